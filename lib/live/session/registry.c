// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of running recordings: see registry.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "live/session/registry.h"

#define REGISTRY_DIR	"/run/ktrace"
/* How often an asker looks for the answer. */
#define POLL_MS		5

const char *kt_registry_dir(void)
{
	const char *d = getenv("KTRACE_RUN_DIR");

	return d && *d ? d : REGISTRY_DIR;
}

/* DIR/PID and its SUFFIX (".req", ".ans", ""). */
static int path_of(char *buf, size_t len, pid_t pid, const char *suffix)
{
	int n = snprintf(buf, len, "%s/%d%s", kt_registry_dir(), (int)pid, suffix);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* text as the whole of DIR/PID+suffix, written under a temporary name. */
static int put(pid_t pid, const char *suffix, const char *text)
{
	char path[4096], tmp[4200];
	int fd, ret = path_of(path, sizeof(path), pid, suffix);

	if (ret)
		return ret;
	snprintf(tmp, sizeof(tmp), "%s/.%d%s.tmp", kt_registry_dir(), (int)pid,
		 suffix);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = kt_write_all(fd, text, strlen(text));
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/*
 * A recording killed by SIGKILL cannot remove its entry; each new one
 * sweeps those of the dead (listing reads every entry, and reading one
 * whose pid is not a running ktrace removes it), so /run/ktrace does
 * not grow with every killed run.
 */
static void sweep_dead(void)
{
	pid_t *pids;
	int n;

	if (!kt_registry_list(&pids, &n))
		free(pids);
}

int kt_registry_add(const char *mode, const char *output)
{
	char *text;
	int ret;

	if (mkdir(kt_registry_dir(), 0755) && errno != EEXIST)
		return -errno;
	sweep_dead();
	if (asprintf(&text, "pid %d\nmode %s\noutput %s\nstart %lld\n",
		     (int)getpid(), mode, output ? output : "-",
		     (long long)time(NULL)) < 0)
		return -ENOMEM;
	ret = put(getpid(), "", text);
	free(text);
	return ret;
}

static void remove_of(pid_t pid)
{
	static const char *const suffixes[] = { "", ".req", ".ans" };
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (!path_of(path, sizeof(path), pid, suffixes[i]))
			unlink(path);
}

void kt_registry_remove(void)
{
	remove_of(getpid());
}

/* The pid runs, and is ktrace. */
static bool alive(pid_t pid)
{
	char path[64], comm[64] = "";
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "ktrace");
}

int kt_registry_read(pid_t pid, struct kt_registry_entry *e)
{
	char path[4096], *text, *line, *save = NULL;
	size_t len;
	int ret = path_of(path, sizeof(path), pid, "");

	if (ret)
		return ret;
	ret = kt_file_slurp(path, &text, &len);
	if (ret)
		return ret;
	memset(e, 0, sizeof(*e));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "pid ", 4))
			e->pid = atoi(line + 4);
		else if (!strncmp(line, "mode ", 5))
			snprintf(e->mode, sizeof(e->mode), "%s", line + 5);
		else if (!strncmp(line, "output ", 7))
			snprintf(e->output, sizeof(e->output), "%s", line + 7);
		else if (!strncmp(line, "start ", 6))
			e->start = atoll(line + 6);
	}
	free(text);
	if (e->pid != pid || !alive(pid)) {
		remove_of(pid);
		return -ESRCH;
	}
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int kt_registry_list(pid_t **pids, int *n)
{
	struct kt_registry_entry e;
	struct dirent *de;
	DIR *d = opendir(kt_registry_dir());
	pid_t *p = NULL, *grown;
	char *end;
	long v;
	int cap = 0;

	*pids = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? -ENOENT : -errno;
	while ((de = readdir(d))) {
		v = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || v <= 0)
			continue;
		if (kt_registry_read((pid_t)v, &e))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(p, cap * sizeof(*p));
			if (!grown) {
				free(p);
				closedir(d);
				return -ENOMEM;
			}
			p = grown;
		}
		p[(*n)++] = (pid_t)v;
	}
	closedir(d);
	if (!*n) {
		free(p);
		return -ENOENT;
	}
	qsort(p, *n, sizeof(*p), cmp_pid);
	*pids = p;
	return 0;
}

int kt_registry_ask(pid_t pid, const char *path, unsigned long long last_ns,
		    int *lock)
{
	char reg[4096], ans[4096], *text;
	int fd, ret = path_of(reg, sizeof(reg), pid, "");

	*lock = -1;
	if (!ret)
		ret = path_of(ans, sizeof(ans), pid, ".ans");
	if (ret)
		return ret;
	/* One asker at a time: the lock is on the entry itself. */
	fd = open(reg, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	unlink(ans);
	if (asprintf(&text, "output %s\nlast %llu\n", path, last_ns) < 0) {
		close(fd);
		return -ENOMEM;
	}
	ret = put(pid, ".req", text);
	free(text);
	if (!ret && kill(pid, SIGUSR2))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	*lock = fd;
	return 0;
}

int kt_registry_wait(pid_t pid, int lock, int timeout_ms, char **line, bool *ok)
{
	char ans[4096], reg[4096], *text = NULL;
	size_t len;
	int waited, ret = path_of(ans, sizeof(ans), pid, ".ans");

	if (!ret)
		ret = path_of(reg, sizeof(reg), pid, "");
	for (waited = 0; !ret; waited += POLL_MS) {
		ret = kt_file_slurp(ans, &text, &len);
		if (ret != -ENOENT)
			break;
		ret = 0;
		/*
		 * Gone, or stopping (its entry goes as it stops recording):
		 * unless it answered meanwhile.
		 */
		if (!alive(pid) || access(reg, F_OK)) {
			ret = kt_file_slurp(ans, &text, &len);
			if (ret == -ENOENT)
				ret = -ESRCH;
			break;
		}
		if (waited >= timeout_ms) {
			ret = -ETIMEDOUT;
			break;
		}
		usleep(POLL_MS * 1000);
	}
	if (!ret) {
		unlink(ans);
		*ok = text[0] == '0';
		text[strcspn(text, "\n")] = '\0';
		*line = strdup(len > 2 ? text + 2 : "");
		if (!*line)
			ret = -ENOMEM;
	}
	free(text);
	/* An unanswered request is not answered later. */
	if (ret && !path_of(reg, sizeof(reg), pid, ".req"))
		unlink(reg);
	close(lock);
	return ret;
}

int kt_registry_take(char **path, unsigned long long *last_ns)
{
	char req[4096], *text, *line, *save = NULL;
	size_t len;
	int ret = path_of(req, sizeof(req), getpid(), ".req");

	*path = NULL;
	*last_ns = 0;
	if (ret)
		return ret;
	ret = kt_file_slurp(req, &text, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	unlink(req);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "output ", 7) && !*path)
			*path = strdup(line + 7);
		else if (!strncmp(line, "last ", 5))
			*last_ns = strtoull(line + 5, NULL, 10);
	}
	free(text);
	return *path ? 1 : -EINVAL;
}

int kt_registry_answer(bool ok, const char *line)
{
	char *text;
	int ret;

	if (asprintf(&text, "%c %s\n", ok ? '0' : '1', line) < 0)
		return -ENOMEM;
	ret = put(getpid(), ".ans", text);
	free(text);
	return ret;
}
