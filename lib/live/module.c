// SPDX-License-Identifier: GPL-2.0
/*
 * The ktrace.ko backend.  The module's control files are small text
 * files in debugfs; its buffers are trace<N> files that give one whole
 * ring-buffer page per read() (trace_pipe_raw's format), block while
 * empty, and return 0 once the engine is stopped and drained; or, where
 * the module can, map the CPU's ring of pages for reading in place
 * (through live/modring.h, the one cursor over a ring).
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <kbuffer.h>

#include "base/fileio.h"
#include "base/log.h"
#include "live/modring.h"
#include "live/module.h"
#include "ktrace-page.h"

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
	struct kt_modring *ring;
	unsigned long long missed;	/* told, not yet put in a page */
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

struct kt_modrec *kt_modrec_new(int ncpus, const char *tmpdir, bool no_mmap)
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
		c->ring = kt_modring_new(c->in_fd, i, no_mmap);
		if (!c->ring) {
			ret = -errno;
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

/* A reader thread's nice value, lib/live/recorder.c's RECORDER_NICE. */
#define MODREC_NICE	(-20)

/*
 * After the batch went back: the pages a flight writer took while we
 * wrote them (its first gone->taken, written from base on) become empty
 * pages, and the first page kept says how many records were lost before
 * it, as the read() path's does.
 */
static int modrec_fix_pages(struct modrec_cpu *c, off_t base,
			    const struct kt_modring_gone *gone)
{
	static const char zeroes[65536];
	size_t page = c->mr->page_size;
	unsigned long long i;
	unsigned long commit;
	off_t off;
	int ret;

	for (i = 0; i < gone->taken; i++, base += page) {
		ret = kt_pwrite_all(c->out_fd, zeroes, page, base);
		if (ret)
			return ret;
	}
	if (!c->missed || gone->taken == gone->pages)
		return 0;
	off = base + sizeof(uint64_t);
	if (pread(c->out_fd, &commit, sizeof(commit), off) != sizeof(commit))
		return -EIO;
	if ((commit & KT_RB_COMMIT_MASK) + sizeof(uint64_t) + 2 * sizeof(long) <=
	    page) {
		unsigned long n = c->missed;

		ret = kt_pwrite_all(c->out_fd, &n, sizeof(n), off + sizeof(long) +
				    (commit & KT_RB_COMMIT_MASK));
		if (ret)
			return ret;
		commit |= KT_RB_MISSED_STORED;
	}
	commit |= KT_RB_MISSED_EVENTS;
	c->missed = 0;
	return kt_pwrite_all(c->out_fd, &commit, sizeof(commit), off);
}

/*
 * What is complete goes to the file straight from the mapping (or the
 * page read()), then back to the writer; the cursor waits as a blocking
 * read() would, and after "stop" hands out what is left and then the
 * end.  So the thread needs no stop signal of its own.
 */
static int modrec_copy(struct modrec_cpu *c)
{
	size_t page = c->mr->page_size;
	struct kt_modring_gone gone;
	const void *pages;
	unsigned int n;
	off_t base;
	int ret;

	for (;;) {
		ret = kt_modring_get(c->ring, true);
		if (ret <= 0)
			return ret;
		/* One write() a run, two when the batch wraps round the ring. */
		while ((n = kt_modring_walk(c->ring, UINT_MAX, &pages))) {
			ret = kt_write_all(c->out_fd, pages, (size_t)n * page);
			if (ret)
				return ret;
		}
		ret = kt_modring_put(c->ring, &gone);
		if (ret)
			return ret;
		c->missed += gone.missed;
		if (gone.taken || c->missed) {
			base = lseek(c->out_fd, 0, SEEK_CUR);
			if (base < 0)
				return -errno;
			base -= (off_t)(gone.pages * page);
			ret = modrec_fix_pages(c, base, &gone);
			if (ret)
				return ret;
		}
		atomic_fetch_add(&c->bytes, gone.pages * page);
	}
}

static void *modrec_main(void *arg)
{
	struct modrec_cpu *c = arg;
	char name[16];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/*
	 * Ahead of the traced workload, as ftrace's recorders: once woken
	 * at a tenth of the buffer, the rest fills while we wait for a CPU.
	 * Best effort (needs privilege).
	 */
	setpriority(PRIO_PROCESS, 0, MODREC_NICE);
	/* Named, so its CPU time can be told apart (bench/module-read.sh). */
	snprintf(name, sizeof(name), "ktrace-mod%d", c->cpu);
	pthread_setname_np(pthread_self(), name);
	c->err = modrec_copy(c);
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
		kt_modring_free(c->ring);
		c->ring = NULL;
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

const char *kt_modrec_read_mode(const struct kt_modrec *mr)
{
	int i, mapped = 0, rings = 0;

	/* A CPU without a ring (never up) is read by neither. */
	for (i = 0; i < mr->ncpus; i++) {
		if (!mr->cpus[i].ring)
			continue;
		mapped += kt_modring_mapped(mr->cpus[i].ring);
		rings += !kt_modring_ringless(mr->cpus[i].ring);
	}
	return !mapped ? "read" : mapped == rings ? "mmap" : "mmap+read";
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

/*
 * Records of two page streams are merged by time and written into new
 * pages: page order alone would leave ftrace's and the module's records
 * of overlapping pages out of order.  A page is the ring buffer's
 * (kernel/ktrace-page.h).
 */

struct cursor {
	int fd;
	unsigned long long size, off;
	char *page;
	struct kbuffer *kb;
	void *data;		/* the current record, NULL at the end */
	unsigned long long ts;
	bool missed;		/* events lost before the current page */
};

/* Load pages until one has a record; data NULL when none is left. */
static int cursor_load(struct cursor *c, int page_size)
{
	c->data = NULL;
	while (c->off + page_size <= c->size) {
		ssize_t n = pread(c->fd, c->page, page_size, c->off);

		if (n < 0)
			return -errno;
		if (n != page_size)
			return -EIO;
		c->off += page_size;
		if (kbuffer_load_subbuffer(c->kb, c->page))
			continue;
		if (kbuffer_missed_events(c->kb))
			c->missed = true;
		c->data = kbuffer_read_event(c->kb, &c->ts);
		if (c->data)
			return 0;
	}
	return 0;
}

static int cursor_next(struct cursor *c, int page_size)
{
	c->data = kbuffer_next_event(c->kb, &c->ts);
	return c->data ? 0 : cursor_load(c, page_size);
}

struct outpage {
	int fd;
	int page_size;
	size_t hdr;		/* where records start */
	char *buf;
	size_t used;
	unsigned long long last_ts;
	bool missed;
	unsigned long long written;
};

static int out_flush(struct outpage *o)
{
	unsigned long commit;
	int ret;

	if (o->used == o->hdr)
		return 0;
	commit = (o->used - o->hdr) | (o->missed ? KT_RB_MISSED_EVENTS : 0);
	memcpy(o->buf + sizeof(uint64_t), &commit, sizeof(commit));
	memset(o->buf + o->used, 0, o->page_size - o->used);
	ret = kt_write_all(o->fd, o->buf, o->page_size);
	if (ret)
		return ret;
	o->written += o->page_size;
	o->used = o->hdr;
	o->missed = false;
	return 0;
}

static void put32(struct outpage *o, uint32_t v)
{
	memcpy(o->buf + o->used, &v, sizeof(v));
	o->used += sizeof(v);
}

/* Append one record's data (len a multiple of 4) at time ts. */
static int out_add(struct outpage *o, unsigned long long ts, const void *data,
		   size_t len, bool missed)
{
	unsigned long long delta = 0;
	size_t need = 4 + (len > KT_RB_MAX_SMALL ? 4 : 0) + len;
	int ret;

	if (o->used > o->hdr) {
		delta = ts > o->last_ts ? ts - o->last_ts : 0;
		if (delta >> KT_RB_DELTA_BITS)
			need += 8;
		if (o->used + need > (size_t)o->page_size) {
			ret = out_flush(o);
			if (ret)
				return ret;
		}
	}
	if (o->used == o->hdr) {
		uint64_t t = ts;

		memcpy(o->buf, &t, sizeof(t));
		delta = 0;
	}
	o->missed |= missed;
	if (delta >> KT_RB_DELTA_BITS) {
		put32(o, KT_RB_TYPE_TIME_EXTEND |
			 (uint32_t)((delta & ((1ULL << KT_RB_DELTA_BITS) - 1)) << 5));
		put32(o, (uint32_t)(delta >> KT_RB_DELTA_BITS));
		delta = 0;
	}
	if (len > KT_RB_MAX_SMALL || !len) {
		put32(o, (uint32_t)(delta << 5));
		put32(o, len + 4);
	} else {
		put32(o, (len / 4) | (uint32_t)(delta << 5));
	}
	memcpy(o->buf + o->used, data, len);
	o->used += len;
	o->last_ts = ts;
	return 0;
}

static int pages_merge(int a, unsigned long long a_size, int b,
		       unsigned long long b_size, int out, int page_size,
		       unsigned long long *written)
{
	struct cursor c[2] = {
		{ .fd = a, .size = a_size },
		{ .fd = b, .size = b_size },
	};
	struct outpage o = { .fd = out, .page_size = page_size,
			     .hdr = sizeof(uint64_t) + sizeof(long) };
	int i, ret = -ENOMEM;

	o.used = o.hdr;
	o.buf = calloc(1, page_size);
	for (i = 0; i < 2; i++) {
		c[i].page = malloc(page_size);
		c[i].kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
					KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!c[i].page || !c[i].kb)
			goto out;
	}
	if (!o.buf)
		goto out;
	ret = cursor_load(&c[0], page_size);
	if (!ret)
		ret = cursor_load(&c[1], page_size);
	while (!ret && (c[0].data || c[1].data)) {
		struct cursor *p = !c[1].data ? &c[0] : !c[0].data ? &c[1] :
				   c[0].ts <= c[1].ts ? &c[0] : &c[1];

		ret = out_add(&o, p->ts, p->data, kbuffer_event_size(p->kb),
			      p->missed);
		p->missed = false;
		if (!ret)
			ret = cursor_next(p, page_size);
	}
	if (!ret)
		ret = out_flush(&o);
	*written = o.written;
out:
	for (i = 0; i < 2; i++) {
		free(c[i].page);
		if (c[i].kb)
			kbuffer_free(c[i].kb);
	}
	free(o.buf);
	return ret;
}

int kt_modrec_merge(struct kt_modrec *mr, int cpu, int *fd,
		    unsigned long long *size)
{
	struct modrec_cpu *c;
	unsigned long long mine, merged = 0;
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
	ret = pages_merge(*fd, *size, c->out_fd, mine, out, mr->page_size,
			  &merged);
	if (ret) {
		close(out);
		return ret;
	}
	if (c->merged_fd >= 0)
		close(c->merged_fd);
	c->merged_fd = out;
	*fd = out;
	*size = merged;
	return 0;
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

/* pid -> name, open addressing; the newest name of a pid wins. */
struct comm_ent {
	int pid;		/* 0: free */
	unsigned long long ts;	/* of the record that named it */
	char comm[16];
};

struct comm_map {
	struct comm_ent *e;
	size_t cap, used;
};

static int comm_put(struct comm_map *m, int pid, unsigned long long ts,
		    const char *comm)
{
	size_t i;

	if (pid <= 0)
		return 0;
	if ((m->used + 1) * 2 > m->cap) {
		struct comm_map g = { .cap = m->cap ? m->cap * 2 : 256 };

		g.e = calloc(g.cap, sizeof(*g.e));
		if (!g.e)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->e[i].pid)
				comm_put(&g, m->e[i].pid, m->e[i].ts, m->e[i].comm);
		free(m->e);
		*m = g;
	}
	for (i = ((unsigned int)pid * 2654435761u) & (m->cap - 1);
	     m->e[i].pid && m->e[i].pid != pid; i = (i + 1) & (m->cap - 1))
		;
	if (!m->e[i].pid)
		m->used++;
	else if (m->e[i].ts > ts)
		return 0;	/* another CPU saw a newer name */
	m->e[i].pid = pid;
	m->e[i].ts = ts;
	memcpy(m->e[i].comm, comm, sizeof(m->e[i].comm));
	m->e[i].comm[sizeof(m->e[i].comm) - 1] = '\0';
	return 0;
}

/* The names in one CPU's pages. */
static int comms_of_cpu(const struct modrec_cpu *c, int page_size,
			const int *ids, const int *offsets, size_t n,
			struct comm_map *m)
{
	unsigned long long size = atomic_load(&((struct modrec_cpu *)c)->bytes);
	struct cursor cur = { .fd = c->out_fd, .size = size };
	int ret = -ENOMEM;

	cur.page = malloc(page_size);
	cur.kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
			       KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!cur.page || !cur.kb)
		goto out;
	for (ret = cursor_load(&cur, page_size); !ret && cur.data;
	     ret = cursor_next(&cur, page_size)) {
		unsigned int len = kbuffer_event_size(cur.kb);
		uint16_t type;
		int32_t pid;
		size_t i;

		if (len < 8)
			continue;
		memcpy(&type, cur.data, sizeof(type));
		memcpy(&pid, (char *)cur.data + 4, sizeof(pid));
		for (i = 0; i < n; i++)
			if (ids[i] == type && offsets[i] >= 8 &&
			    (unsigned int)offsets[i] + 16 <= len)
				break;
		if (i < n) {
			ret = comm_put(m, pid, cur.ts,
				       (char *)cur.data + offsets[i]);
			if (ret)
				break;
		}
	}
out:
	free(cur.page);
	if (cur.kb)
		kbuffer_free(cur.kb);
	return ret;
}

char *kt_modrec_comms(const struct kt_modrec *mr, const int *ids,
		      const int *offsets, size_t n)
{
	struct comm_map m = { 0 };
	char *text, *p;
	size_t i;
	int cpu, ret = 0;

	for (cpu = 0; !ret && cpu < mr->ncpus; cpu++)
		ret = comms_of_cpu(&mr->cpus[cpu], mr->page_size, ids, offsets,
				   n, &m);
	text = ret ? NULL : malloc(m.used * (24 + 16) + 1);
	if (!text) {
		free(m.e);
		errno = ret ? -ret : ENOMEM;
		return NULL;
	}
	p = text;
	*p = '\0';
	for (i = 0; i < m.cap; i++)
		if (m.e[i].pid && m.e[i].comm[0])
			p += sprintf(p, "%d %s\n", m.e[i].pid, m.e[i].comm);
	free(m.e);
	return text;
}
