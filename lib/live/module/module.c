// SPDX-License-Identifier: GPL-2.0
/*
 * The ktrace.ko backend's control: its small text files in debugfs
 * ktrace/ (events, switches, statistics, the pid filter, the process
 * tracer's controls).  Its buffers are read by modrec.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "live/module/module.h"

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

int kt_module_claim(int max_cpus)
{
	int ret = kt_module_running(), ncpus;

	if (ret == 1) {
		kt_err("ktrace.ko is already running (another recording?); wait for it or stop it with 'ktrace reset'");
		return -EBUSY;
	}
	ncpus = kt_module_cpu_count();
	if (ret < 0 || ncpus <= 0 || ncpus > max_cpus) {
		ret = ret < 0 ? ret : ncpus < 0 ? ncpus : -EINVAL;
		kt_err("cannot use ktrace.ko in %s: %s", kt_module_dir(),
		       strerror(-ret));
		return ret;
	}
	return ncpus;
}

int kt_module_start(void)
{
	int ret = kt_module_write(KTRACE_FILE_ENABLED, "1");

	return ret ? ret : kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_START);
}

int kt_module_stop(void)
{
	int ret = kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_STOP);

	kt_module_write(KTRACE_FILE_ENABLED, "0");
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
		ret = kt_module_write(KTRACE_FILE_SET_PID, list ? list : "\n");
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
	if (kt_module_has_process())
		step(&ret, kt_module_process_defaults());
	step(&ret, kt_module_write(KTRACE_FILE_RESET, "1"));
	return ret;
}

int kt_module_process_defaults(void)
{
	static const char *const ctl[][2] = {
		{ KTRACE_FILE_PROCESS_FOLLOW_PID, "0" },
		{ KTRACE_FILE_PROCESS_UID_FILTER, "-1" },
		/* An empty write() changes nothing: a newline clears it. */
		{ KTRACE_FILE_PROCESS_COMM_FILTER, "\n" },
		{ KTRACE_FILE_PROCESS_LIFECYCLE, "1" },
		{ KTRACE_FILE_PROCESS_SYSCALLS, "0" },
		{ KTRACE_FILE_PROCESS_SIGNALS, "0" },
	};
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++)
		step(&ret, kt_module_write(ctl[i][0], ctl[i][1]));
	return ret;
}

/* ---- the process tracer ---- */

bool kt_module_has_process(void)
{
	char path[PATH_MAX];

	return !kt_module_path(KTRACE_FILE_PROCESS_FOLLOW_PID, path, sizeof(path)) &&
	       access(path, F_OK) == 0;
}

/* Is line "\tfield:TYPE NAME[N];\toffset:..." the field name? */
static bool field_line_is(const char *line, const char *name)
{
	const char *decl = strstr(line, "field:"), *end, *start;
	size_t len = strlen(name);

	if (!decl)
		return false;
	end = strchr(decl, ';');
	if (!end)
		return false;
	if (end > decl && end[-1] == ']')
		while (end > decl && *end != '[')
			end--;
	start = end;
	while (start > decl && (start[-1] == '_' || (start[-1] >= '0' && start[-1] <= '9') ||
				(start[-1] >= 'a' && start[-1] <= 'z') ||
				(start[-1] >= 'A' && start[-1] <= 'Z')))
		start--;
	return (size_t)(end - start) == len && !strncmp(start, name, len);
}

int kt_module_event_field(const char *event, const char *field, int *id,
			  int *offset, int *size)
{
	char rel[PATH_MAX], *text, *line, *save = NULL;
	const char *p;
	int ret = -ENOENT;
	bool have_id = false;

	if (!*event || strchr(event, '/'))
		return -EINVAL;
	if (snprintf(rel, sizeof(rel), "%s/%s/%s", KTRACE_DIR_EVENTS, event,
		     KTRACE_FILE_FORMAT) >= (int)sizeof(rel))
		return -ENAMETOOLONG;
	text = kt_module_read(rel);
	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "ID: ", 4)) {
			have_id = sscanf(line + 4, "%d", id) == 1;
			continue;
		}
		if (!field_line_is(line, field))
			continue;
		p = strstr(line, "offset:");
		if (!p || sscanf(p, "offset:%d", offset) != 1)
			break;
		p = strstr(line, "size:");
		if (!p || sscanf(p, "size:%d", size) != 1)
			break;
		ret = 0;
	}
	free(text);
	return have_id ? ret : -ENOENT;
}
