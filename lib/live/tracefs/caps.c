// SPDX-License-Identifier: GPL-2.0
/*
 * What tracing can do here, found by trying it.  See caps.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <event-parse.h>

#include "live/tracefs/tracefs.h"
#include "base/log.h"
#include "base/lsan.h"
#include "live/tracefs/caps.h"

int kt_tracefs_mount_point(char *buf, size_t size)
{
	char dev[256], dir[4096], type[64];
	FILE *f = fopen("/proc/mounts", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "tracefs")) {
			snprintf(buf, size, "%s", dir);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int kt_caps_open_write(const char *path)
{
	/* O_NONBLOCK: a pipe-like file must not hold us up. */
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int kt_caps_sysctl_write(const char *path)
{
	char val[256];
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != n)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* ---- kernel config ---- */

struct kt_kconfig {
	char *text;		/* the whole config, NUL-terminated */
	char source[320];
};

static char *gz_slurp(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	char *buf = NULL, *n;
	size_t len = 0, cap = 0;
	int got;

	if (!gz)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 262144;
			n = realloc(buf, cap + 1);
			if (!n)
				goto err_buf;
			buf = n;
		}
		got = gzread(gz, buf + len, cap - len);
		if (got < 0)
			goto err_buf;
		if (got == 0)
			break;
		len += got;
	}
	gzclose(gz);
	buf[len] = '\0';
	return buf;

err_buf:
	free(buf);
	gzclose(gz);
	return NULL;
}

int kt_kconfig_open(struct kt_kconfig **out)
{
	struct kt_kconfig *kc;
	struct utsname u;
	char boot[300];

	*out = NULL;
	kc = calloc(1, sizeof(*kc));
	if (!kc)
		return -ENOMEM;
	/*
	 * gzread reads plain files as they are, so one reader does both.
	 * KTRACE_KCONFIG names another config to use (and nothing else).
	 */
	if (getenv("KTRACE_KCONFIG")) {
		snprintf(kc->source, sizeof(kc->source), "%s", getenv("KTRACE_KCONFIG"));
		kc->text = gz_slurp(kc->source);
		goto out;
	}
	kc->text = gz_slurp("/proc/config.gz");
	snprintf(kc->source, sizeof(kc->source), "/proc/config.gz");
	if (!kc->text && !uname(&u)) {
		snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
		kc->text = gz_slurp(boot);
		snprintf(kc->source, sizeof(kc->source), "%s", boot);
	}
out:
	if (!kc->text) {
		free(kc);
		return -ENOENT;
	}
	*out = kc;
	return 0;
}

void kt_kconfig_close(struct kt_kconfig *kc)
{
	if (!kc)
		return;
	free(kc->text);
	free(kc);
}

const char *kt_kconfig_source(const struct kt_kconfig *kc)
{
	return kc->source;
}

const char *kt_kconfig_get(const struct kt_kconfig *kc, const char *sym)
{
	static char val[128];
	size_t len = strlen(sym);
	const char *p = kc->text;

	while ((p = strstr(p, sym))) {
		/* Whole symbol at the start of a line, followed by '='. */
		if ((p == kc->text || p[-1] == '\n') && p[len] == '=') {
			snprintf(val, sizeof(val), "%.*s",
				 (int)strcspn(p + len + 1, "\n"), p + len + 1);
			return val;
		}
		p += len;
	}
	return NULL;
}

/* ---- lockdown, kernel version ---- */

int kt_lockdown_read(char *buf, size_t size)
{
	char text[256], *open_br, *close_br;
	ssize_t n;
	int fd = open("/sys/kernel/security/lockdown", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	/* "none [integrity] confidentiality": the mode in use is bracketed. */
	open_br = strchr(text, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br)
		return -EINVAL;
	snprintf(buf, size, "%.*s", (int)(close_br - open_br - 1), open_br + 1);
	return 0;
}

bool kt_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* ---- event formats ---- */

static char *slurp_at(int dfd, const char *rel, size_t *len)
{
	char *buf = NULL, *n;
	size_t cap = 0;
	ssize_t got;
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);

	*len = 0;
	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - *len < 4096) {
			cap = cap ? cap * 2 : 8192;
			n = realloc(buf, cap + 1);
			if (!n)
				goto err_buf;
			buf = n;
		}
		got = read(fd, buf + *len, cap - *len);
		if (got < 0)
			goto err_buf;
		if (got == 0)
			break;
		*len += got;
	}
	close(fd);
	buf[*len] = '\0';
	return buf;

err_buf:
	free(buf);
	close(fd);
	return NULL;
}

static int check_system(struct tep_handle *tep, int edfd, const char *sys,
			void (*cb)(const char *, const char *, const char *, void *),
			void *ctx)
{
	char rel[600], why[256], *fmt;
	struct dirent *de;
	enum tep_errno err;
	int fd, count = 0;
	size_t len;
	DIR *d;

	fd = openat(edfd, sys, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/format", sys, de->d_name);
		fmt = slurp_at(edfd, rel, &len);
		if (!fmt)
			continue;
		count++;
		/* libtraceevent 1.7 leaks a little on formats it cannot parse. */
		kt_lsan_off();
		err = tep_parse_event(tep, fmt, len, sys);
		kt_lsan_on();
		if (!err) {
			/* Parsed, but with a print format it gave up on. */
			struct tep_event *ev = tep_find_event_by_name(tep, sys, de->d_name);

			if (ev && (ev->flags & TEP_EVENT_FL_FAILED))
				err = TEP_ERRNO__READ_PRINT_FAILED;
		}
		if (err) {
			if (tep_strerror(tep, err, why, sizeof(why)))
				snprintf(why, sizeof(why), "error %d", (int)err);
			cb(sys, de->d_name, why, ctx);
		}
		free(fmt);
	}
	closedir(d);
	return count;
}

int kt_formats_check(const char *tracing_dir,
		     void (*cb)(const char *system, const char *event,
				const char *why, void *ctx),
		     void *ctx)
{
	struct tep_handle *tep;
	struct dirent *de;
	char path[4096];
	int edfd, total = 0, ret;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events", tracing_dir);
	edfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (edfd < 0)
		return -errno;
	d = fdopendir(dup(edfd));
	if (!d) {
		ret = -errno;
		goto err_fd;
	}
	tep = tep_alloc();
	if (!tep) {
		ret = -ENOMEM;
		goto err_dir;
	}
	/* We collect the failures ourselves; keep libtraceevent quiet. */
	tep_set_loglevel(TEP_LOG_NONE);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		total += check_system(tep, edfd, de->d_name, cb, ctx);
	}
	ret = total;
	tep_free(tep);
err_dir:
	closedir(d);
err_fd:
	close(edfd);
	return ret;
}

/* ---- scratch instance ---- */

static sigset_t scratch_saved;

int kt_scratch_open(struct tracefs_instance **out)
{
	char name[64];
	sigset_t hold;
	bool created;
	int ret;

	*out = NULL;
	snprintf(name, sizeof(name), "%s%d", KT_INSTANCE_PREFIX, (int)getpid());
	if (tracefs_instance_exists(name))
		return -EEXIST;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	sigprocmask(SIG_BLOCK, &hold, &scratch_saved);
	ret = kt_instance_open(name, true, out, &created);
	if (!ret && !created) {
		/* Someone made it between our check and mkdir: not ours. */
		kt_instance_close(*out);
		*out = NULL;
		ret = -EEXIST;
	}
	if (ret)
		sigprocmask(SIG_SETMASK, &scratch_saved, NULL);
	return ret;
}

int kt_scratch_close(struct tracefs_instance *inst)
{
	int ret;

	if (!inst)
		return 0;
	ret = kt_instance_remove(inst);
	sigprocmask(SIG_SETMASK, &scratch_saved, NULL);
	return ret;
}

static unsigned long long entries(struct tracefs_instance *inst)
{
	struct kt_cpu_stats cs;
	unsigned long long sum = 0;
	int cpu, n = kt_cpu_count();

	for (cpu = 0; cpu < n; cpu++)
		if (!kt_cpu_stats_read(inst, cpu, &cs))
			sum += cs.entries;
	return sum;
}

/* Events a probe can provoke itself, best first. */
static const struct {
	const char *system, *event, *label;
} probe_events[] = {
	{ "raw_syscalls", "sys_enter", "raw_syscalls:sys_enter" },
	{ "syscalls", "sys_enter_getppid", "syscalls:sys_enter_getppid" },
	{ "sched", "sched_process_fork", "sched:sched_process_fork" },
};

long kt_caps_record(struct tracefs_instance *inst, const char **event)
{
	char filter[64];
	int i, ret = -ENOENT;
	size_t k;
	pid_t pid;

	*event = NULL;
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	for (k = 0; k < sizeof(probe_events) / sizeof(probe_events[0]); k++) {
		ret = kt_event_set_filter(inst, probe_events[k].system,
					  probe_events[k].event, filter, NULL);
		if (!ret)
			ret = kt_event_set_enable(inst, probe_events[k].system,
						  probe_events[k].event, true);
		if (!ret)
			break;
	}
	if (ret)
		return ret;
	*event = probe_events[k].label;
	/* Provoke it: a few syscalls, and one fork for the sched fallback. */
	for (i = 0; i < 8; i++)
		syscall(SYS_getppid);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	kt_event_set_enable(inst, probe_events[k].system,
			    probe_events[k].event, false);
	return (long)entries(inst);
}

int kt_caps_buffer_mmap(struct tracefs_instance *inst)
{
	char *path = tracefs_instance_get_file(inst, "per_cpu/cpu0/trace_pipe_raw");
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int fd, ret = 0;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return -errno;
	/* The first page of a mapped ring buffer is its meta page. */
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		ret = -errno;
	else
		munmap(map, page);
	close(fd);
	return ret;
}
