// SPDX-License-Identifier: GPL-2.0
/*
 * The ktrace.ko backend.  The module's control files are small text
 * files in debugfs; its buffers are trace<N> files that give one whole
 * ring-buffer page per read() (trace_pipe_raw's format), block while
 * empty, and return 0 once the engine is stopped and drained.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module.h"
#include "writer.h"

#define DEBUGFS		"/sys/kernel/debug"
/* Where the kernel lists a loaded module, whatever debugfs does. */
#define SYSFS_MODULE	"/sys/module/ktrace"

static char root[PATH_MAX];

bool kt_module_present(void)
{
	struct stat st;

	if (root[0])
		return stat(root, &st) == 0;
	if (stat(SYSFS_MODULE, &st))
		return false;
	snprintf(root, sizeof(root), "%s/%s", DEBUGFS, KTRACE_ROOT);
	if (stat(root, &st) == 0)
		return true;
	/* Loaded, but nobody mounted debugfs yet. */
	mount("nodev", DEBUGFS, "debugfs", 0, NULL);
	if (stat(root, &st) == 0)
		return true;
	root[0] = '\0';
	return false;
}

const char *kt_module_dir(void)
{
	if (!kt_module_present()) {
		errno = ENOENT;
		return NULL;
	}
	return root;
}

int kt_module_path(const char *rel, char *buf, size_t len)
{
	const char *dir = kt_module_dir();

	if (!dir)
		return -ENOENT;
	if (snprintf(buf, len, "%s/%s", dir, rel) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int kt_module_events_dir(char *buf, size_t len)
{
	return kt_module_path(KTRACE_DIR_EVENTS, buf, len);
}

char *kt_module_read(const char *rel)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;
	int ret = kt_module_path(rel, path, sizeof(path));

	if (!ret)
		ret = kt_file_slurp(path, &text, &len);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return text;
}

int kt_module_write(const char *rel, const char *val)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = kt_module_path(rel, path, sizeof(path));

	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* An empty write is how a list file (set_pid) is cleared. */
	n = write(fd, val, len);
	ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return ret;
}

int kt_module_read_ull(const char *rel, unsigned long long *val)
{
	char *text = kt_module_read(rel), *end;
	int ret = 0;

	if (!text)
		return -errno;
	errno = 0;
	*val = strtoull(text, &end, 10);
	if (errno || end == text)
		ret = -EINVAL;
	free(text);
	return ret;
}

static int event_file(const char *event, char *rel, size_t len)
{
	if (!*event || strchr(event, '/') || !strcmp(event, ".") ||
	    !strcmp(event, ".."))
		return -EINVAL;
	if (snprintf(rel, len, "%s/%s/%s", KTRACE_DIR_EVENTS, event,
		     KTRACE_FILE_ENABLE) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int kt_module_event_enabled(const char *event)
{
	unsigned long long v;
	char rel[PATH_MAX];
	int ret = event_file(event, rel, sizeof(rel));

	if (!ret)
		ret = kt_module_read_ull(rel, &v);
	return ret ? ret : v != 0;
}

int kt_module_event_set_enable(const char *event, bool on)
{
	char rel[PATH_MAX];
	int ret = event_file(event, rel, sizeof(rel));

	return ret ? ret : kt_module_write(rel, on ? "1" : "0");
}

int kt_module_cpu_count(void)
{
	const char *dir = kt_module_dir();
	size_t plen = strlen(KTRACE_FILE_TRACE_PREFIX);
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (!dir)
		return -ENOENT;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *num = de->d_name + plen;

		if (!strncmp(de->d_name, KTRACE_FILE_TRACE_PREFIX, plen) &&
		    *num >= '0' && *num <= '9' &&
		    strspn(num, "0123456789") == strlen(num))
			n++;
	}
	closedir(d);
	return n;
}

int kt_module_cpu_stats_read(int cpu, struct kt_cpu_stats *st)
{
	char rel[64], *text;
	int ret;

	snprintf(rel, sizeof(rel), "%s/%s%d", KTRACE_DIR_STATS,
		 KTRACE_FILE_STATS_PREFIX, cpu);
	text = kt_module_read(rel);
	if (!text)
		return -errno;
	ret = kt_cpu_stats_parse(text, st);
	free(text);
	return ret;
}

int kt_module_running(void)
{
	char *text = kt_module_read(KTRACE_FILE_STATE);
	int ret;

	if (!text)
		return -errno;
	ret = !strncmp(text, KTRACE_STATE_RUNNING, strlen(KTRACE_STATE_RUNNING));
	free(text);
	return ret;
}

int kt_module_set_pids(const pid_t *pids, size_t n, bool fork)
{
	char path[PATH_MAX], *list = NULL, *grown;
	size_t len = 0, i;
	int ret = kt_module_path(KTRACE_FILE_SET_PID, path, sizeof(path));

	if (ret)
		return ret;
	if (access(path, F_OK))
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	for (i = 0; i < n; i++) {
		grown = realloc(list, len + 24);
		if (!grown) {
			free(list);
			return -ENOMEM;
		}
		list = grown;
		len += snprintf(list + len, 24, "%d\n", (int)pids[i]);
	}
	ret = kt_module_write(KTRACE_FILE_PID_FORK, fork ? "1" : "0");
	if (ret == -ENOENT)
		ret = fork ? -EOPNOTSUPP : 0;
	if (!ret)
		ret = kt_module_write(KTRACE_FILE_SET_PID, list ? list : "");
	free(list);
	return ret;
}

/* Keep the first error, go on with the other steps. */
static void step(int *first, int ret)
{
	if (ret && !*first)
		*first = ret;
}

int kt_module_reset(void)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	step(&ret, kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_STOP));
	step(&ret, kt_module_write(KTRACE_FILE_ENABLED, "0"));
	step(&ret, kt_module_events_dir(dir, sizeof(dir)));
	d = ret ? NULL : opendir(dir);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			step(&ret, kt_module_event_set_enable(de->d_name, false));
	if (d)
		closedir(d);
	/* An older module without a pid filter has nothing to clear. */
	if (kt_module_set_pids(NULL, 0, false) != -EOPNOTSUPP)
		step(&ret, kt_module_set_pids(NULL, 0, false));
	step(&ret, kt_module_write(KTRACE_FILE_RESET, "1"));
	return ret;
}

/* ---- the readers ---- */

struct modrec_cpu {
	struct kt_modrec *mr;
	int cpu;
	int in_fd;
	int out_fd;
	int merged_fd;
	atomic_ullong bytes;
	pthread_t thread;
	bool started;
	int err;
};

struct kt_modrec {
	int ncpus;
	int page_size;
	char *tmpdir;
	struct modrec_cpu *cpus;
};

static int temp_file(const char *dir)
{
	char path[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/.ktrace-mod-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

struct kt_modrec *kt_modrec_new(int ncpus, const char *tmpdir)
{
	struct kt_modrec *mr;
	char rel[64], path[PATH_MAX];
	int i, ret = -ENOMEM;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		goto err;
	mr->ncpus = ncpus;
	mr->page_size = getpagesize();
	mr->tmpdir = strdup(tmpdir);
	if (!mr->tmpdir)
		goto err_mr;
	mr->cpus = calloc(ncpus > 0 ? ncpus : 1, sizeof(*mr->cpus));
	if (!mr->cpus)
		goto err_mr;
	for (i = 0; i < ncpus; i++)
		mr->cpus[i].in_fd = mr->cpus[i].out_fd =
			mr->cpus[i].merged_fd = -1;
	for (i = 0; i < ncpus; i++) {
		struct modrec_cpu *c = &mr->cpus[i];

		c->mr = mr;
		c->cpu = i;
		snprintf(rel, sizeof(rel), "%s%d", KTRACE_FILE_TRACE_PREFIX, i);
		ret = kt_module_path(rel, path, sizeof(path));
		if (ret)
			goto err_mr;
		c->in_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (c->in_fd < 0) {
			ret = -errno;
			goto err_mr;
		}
		c->out_fd = temp_file(tmpdir);
		if (c->out_fd < 0) {
			ret = c->out_fd;
			goto err_mr;
		}
	}
	return mr;

err_mr:
	kt_modrec_free(mr);
err:
	errno = -ret;
	return NULL;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * A blocking read waits for a page; after "stop" the module hands out
 * what is left and then 0.  So the thread needs no stop signal of its own.
 */
static void *modrec_main(void *arg)
{
	struct modrec_cpu *c = arg;
	int page = c->mr->page_size;
	char *buf = malloc(page);
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (!buf) {
		c->err = -ENOMEM;
		return NULL;
	}
	for (;;) {
		ssize_t n = read(c->in_fd, buf, page);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			c->err = -errno;
			break;
		}
		if (n == 0)
			break;
		if (n < page)
			memset(buf + n, 0, page - n);
		c->err = write_all(c->out_fd, buf, page);
		if (c->err)
			break;
		atomic_fetch_add(&c->bytes, page);
	}
	free(buf);
	return NULL;
}

int kt_modrec_start(struct kt_modrec *mr)
{
	int i, ret;

	for (i = 0; i < mr->ncpus; i++) {
		ret = pthread_create(&mr->cpus[i].thread, NULL, modrec_main,
				     &mr->cpus[i]);
		if (ret)
			return -ret;
		mr->cpus[i].started = true;
	}
	return 0;
}

int kt_modrec_stop(struct kt_modrec *mr)
{
	int i, ret = 0;

	for (i = 0; i < mr->ncpus; i++) {
		struct modrec_cpu *c = &mr->cpus[i];

		if (c->started) {
			pthread_join(c->thread, NULL);
			c->started = false;
		}
		if (c->in_fd >= 0) {
			/* An open trace<N> keeps the module from unloading. */
			close(c->in_fd);
			c->in_fd = -1;
		}
		if (c->err && !ret)
			ret = c->err;
	}
	return ret;
}

void kt_modrec_free(struct kt_modrec *mr)
{
	int i;

	if (!mr)
		return;
	if (mr->cpus) {
		/* Threads still blocked would wait for a stop: end the engine. */
		for (i = 0; i < mr->ncpus; i++)
			if (mr->cpus[i].started) {
				kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_STOP);
				break;
			}
		kt_modrec_stop(mr);
		for (i = 0; i < mr->ncpus; i++) {
			if (mr->cpus[i].out_fd >= 0)
				close(mr->cpus[i].out_fd);
			if (mr->cpus[i].merged_fd >= 0)
				close(mr->cpus[i].merged_fd);
		}
	}
	free(mr->tmpdir);
	free(mr->cpus);
	free(mr);
}

int kt_modrec_fd(const struct kt_modrec *mr, int cpu)
{
	return cpu >= 0 && cpu < mr->ncpus ? mr->cpus[cpu].out_fd : -1;
}

unsigned long long kt_modrec_bytes(const struct kt_modrec *mr, int cpu)
{
	if (cpu < 0 || cpu >= mr->ncpus)
		return 0;
	return atomic_load(&((struct kt_modrec *)mr)->cpus[cpu].bytes);
}

unsigned long long kt_modrec_total(const struct kt_modrec *mr)
{
	unsigned long long sum = 0;
	int i;

	for (i = 0; i < mr->ncpus; i++)
		sum += kt_modrec_bytes(mr, i);
	return sum;
}

/* ---- merging ---- */

static int read_page(int fd, unsigned long long off, char *buf, int page)
{
	ssize_t n = pread(fd, buf, page, off);

	if (n < 0)
		return -errno;
	if (n != page)
		return -EIO;
	return 0;
}

static int pages_merge(int a, unsigned long long a_size, int b,
		       unsigned long long b_size, int out, int page_size)
{
	unsigned long long ao = 0, bo = 0;
	char *pa = malloc(page_size), *pb = malloc(page_size);
	bool have_a = false, have_b = false;
	int ret = pa && pb ? 0 : -ENOMEM;

	while (!ret) {
		uint64_t ta, tb;

		if (!have_a && ao + page_size <= a_size) {
			ret = read_page(a, ao, pa, page_size);
			have_a = !ret;
			ao += page_size;
		}
		if (!ret && !have_b && bo + page_size <= b_size) {
			ret = read_page(b, bo, pb, page_size);
			have_b = !ret;
			bo += page_size;
		}
		if (ret || (!have_a && !have_b))
			break;
		/* The page header starts with the first record's u64 time. */
		memcpy(&ta, pa, sizeof(ta));
		memcpy(&tb, pb, sizeof(tb));
		if (have_a && (!have_b || ta <= tb)) {
			ret = write_all(out, pa, page_size);
			have_a = false;
		} else {
			ret = write_all(out, pb, page_size);
			have_b = false;
		}
	}
	free(pa);
	free(pb);
	return ret;
}

int kt_modrec_merge(struct kt_modrec *mr, int cpu, int *fd,
		    unsigned long long *size)
{
	struct modrec_cpu *c;
	unsigned long long mine;
	int out, ret;

	if (cpu < 0 || cpu >= mr->ncpus)
		return 0;
	c = &mr->cpus[cpu];
	mine = kt_modrec_bytes(mr, cpu);
	if (!mine)
		return 0;
	if (!*size) {
		*fd = c->out_fd;
		*size = mine;
		return 0;
	}
	out = temp_file(mr->tmpdir);
	if (out < 0)
		return out;
	ret = pages_merge(*fd, *size, c->out_fd, mine, out, mr->page_size);
	if (ret) {
		close(out);
		return ret;
	}
	if (c->merged_fd >= 0)
		close(c->merged_fd);
	c->merged_fd = out;
	*fd = out;
	*size += mine;
	return 0;
}
