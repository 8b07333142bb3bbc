// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace.ko's buffers, read: its trace<N> files give one whole
 * ring-buffer page per read() (trace_pipe_raw's format), block while
 * empty, and return 0 once the engine is stopped and drained; or, where
 * the module can, map the CPU's ring of pages for reading in place
 * (through live/module/modring.h, the one cursor over a ring).  One thread per
 * CPU copies them into a temporary file; a CPU's pages are then merged
 * with ftrace's record by record.
 */
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
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>
#include <kbuffer.h>

#include "base/fileio.h"
#include "live/module/modrec-int.h"
#include "live/module/modring.h"
#include "live/module/module.h"
#include "ktrace-page.h"

/* ---- the readers ---- */

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
	pthread_mutex_init(&mr->lock, NULL);
	pthread_cond_init(&mr->cond, NULL);
	for (i = 0; i < ncpus; i++) {
		struct modrec_cpu *c = &mr->cpus[i];

		c->in_fd = c->out_fd = c->merged_fd = -1;
		c->rot_fd = c->next_fd = c->old_fd = c->carry_fd = -1;
	}
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
		c->rot_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (c->rot_fd < 0) {
			ret = -errno;
			goto err_mr;
		}
		kt_modring_set_wake(c->ring, c->rot_fd);
	}
	return mr;

err_mr:
	kt_modrec_free(mr);
err:
	errno = -ret;
	return NULL;
}

/* A reader thread's nice value, lib/live/buffers/recorder.c's RECORDER_NICE. */
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
 * A batch taken: to the file straight from the mapping (or the page
 * read()), then back to the writer.  Under mr->lock.
 */
static int modrec_take(struct modrec_cpu *c)
{
	size_t page = c->mr->page_size;
	struct kt_modring_gone gone;
	const void *pages;
	unsigned int n;
	off_t base;
	int ret;

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
	return 0;
}

/* Rounds of a cut's last batches: the writer may fill pages meanwhile. */
#define CUT_ROUNDS	16

/*
 * What the ring holds now, the page being written closed (FLUSH) and
 * taken too, to out_fd.  Under mr->lock.
 */
static int modrec_drain(struct modrec_cpu *c)
{
	uint64_t one;
	int i, ret = 0;

	if (read(c->rot_fd, &one, sizeof(one)) < 0)
		one = 0;
	for (i = 0; !ret && i < CUT_ROUNDS; i++) {
		ret = kt_modring_get(c->ring, false);
		if (ret != 1)
			break;
		ret = modrec_take(c);
	}
	return ret < 0 ? ret : 0;
}

/*
 * A rotation's cut, in the CPU's reader (take) or in the rotating
 * thread (a CPU whose reader is gone or never maps): what the ring
 * holds now goes to the old file (drained), then the next file takes
 * over, at a page boundary.
 */
static int modrec_cut(struct modrec_cpu *c, bool take)
{
	struct kt_modrec *mr = c->mr;
	int ret = 0;

	pthread_mutex_lock(&mr->lock);
	if (take)
		ret = modrec_drain(c);
	c->old_fd = c->out_fd;
	c->old_size = atomic_load(&c->bytes) - atomic_load(&c->base);
	c->out_fd = c->next_fd;
	c->next_fd = -1;
	atomic_store(&c->base, atomic_load(&c->bytes));
	atomic_store(&c->rot_req, false);
	c->switched = true;
	pthread_cond_broadcast(&mr->cond);
	pthread_mutex_unlock(&mr->lock);
	return ret;
}

/*
 * A snapshot's flush, in the reader (take) or the asking thread, as a
 * cut is: what the ring holds now goes to out_fd (drained), whose size
 * is noted; the reader goes on into the same file.
 */
static int modrec_flush_one(struct modrec_cpu *c, bool take)
{
	struct kt_modrec *mr = c->mr;
	int ret = 0;

	pthread_mutex_lock(&mr->lock);
	if (take)
		ret = modrec_drain(c);
	c->flushed_size = atomic_load(&c->bytes) - atomic_load(&c->base);
	atomic_store(&c->flush_req, false);
	c->flushed = true;
	pthread_cond_broadcast(&mr->cond);
	pthread_mutex_unlock(&mr->lock);
	return ret;
}

/*
 * The cursor waits as a blocking read() would, and after "stop" hands
 * out what is left and then the end, so the thread needs no stop signal
 * of its own; a rotation wakes it to cut, a snapshot to flush.
 */
static int modrec_copy(struct modrec_cpu *c)
{
	uint64_t one;
	int ret, got;

	for (;;) {
		got = kt_modring_get(c->ring, true);
		if (got < 0)
			return got;
		if (got == 1) {
			pthread_mutex_lock(&c->mr->lock);
			ret = modrec_take(c);
			pthread_mutex_unlock(&c->mr->lock);
			if (ret)
				return ret;
		}
		if (atomic_load(&c->rot_req) || atomic_load(&c->flush_req)) {
			ret = atomic_load(&c->rot_req) ? modrec_cut(c, true) :
			      modrec_flush_one(c, true);
			if (ret)
				return ret;
			continue;
		}
		if (got == KT_MODRING_WOKEN &&
		    read(c->rot_fd, &one, sizeof(one)) < 0)
			continue;
		if (!got)
			return 0;
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
	/* Gone: a rotation no longer waits for it. */
	pthread_mutex_lock(&c->mr->lock);
	c->exited = true;
	pthread_cond_broadcast(&c->mr->cond);
	pthread_mutex_unlock(&c->mr->lock);
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
			struct modrec_cpu *c = &mr->cpus[i];
			int *fds[] = { &c->out_fd, &c->merged_fd, &c->rot_fd,
				       &c->next_fd, &c->old_fd, &c->carry_fd };
			size_t k;

			for (k = 0; k < sizeof(fds) / sizeof(fds[0]); k++)
				if (*fds[k] >= 0)
					close(*fds[k]);
		}
		pthread_mutex_destroy(&mr->lock);
		pthread_cond_destroy(&mr->cond);
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

int kt_modrec_cursor_load(struct kt_modrec_cursor *c, int page_size)
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

int kt_modrec_cursor_next(struct kt_modrec_cursor *c, int page_size)
{
	c->data = kbuffer_next_event(c->kb, &c->ts);
	return c->data ? 0 : kt_modrec_cursor_load(c, page_size);
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

/*
 * The records of n files of pages (c[i].fd, c[i].size), merged in time
 * order: those at or before cut into o, the later ones into rest (NULL:
 * none is later).
 */
static int pages_merge(struct kt_modrec_cursor *c, int n, struct outpage *o,
		       struct outpage *rest, unsigned long long cut)
{
	int i, ret = -ENOMEM;

	for (i = 0; i < n; i++) {
		c[i].page = malloc(o->page_size);
		c[i].kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
					KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!c[i].page || !c[i].kb)
			goto out;
	}
	for (i = 0, ret = 0; !ret && i < n; i++)
		ret = kt_modrec_cursor_load(&c[i], o->page_size);
	while (!ret) {
		struct kt_modrec_cursor *p = NULL;

		for (i = 0; i < n; i++)
			if (c[i].data && (!p || c[i].ts < p->ts))
				p = &c[i];
		if (!p)
			break;
		ret = out_add(rest && p->ts > cut ? rest : o, p->ts, p->data,
			      kbuffer_event_size(p->kb), p->missed);
		p->missed = false;
		if (!ret)
			ret = kt_modrec_cursor_next(p, o->page_size);
	}
	if (!ret)
		ret = out_flush(o);
	if (!ret && rest)
		ret = out_flush(rest);
out:
	for (i = 0; i < n; i++) {
		free(c[i].page);
		if (c[i].kb)
			kbuffer_free(c[i].kb);
	}
	return ret;
}

static int outpage_init(struct outpage *o, int fd, int page_size)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->page_size = page_size;
	o->hdr = sizeof(uint64_t) + sizeof(long);
	o->used = o->hdr;
	o->buf = calloc(1, page_size);
	return o->buf ? 0 : -ENOMEM;
}

/*
 * A CPU's pages from the files in[0, n) (size 0: none) into a new
 * temporary file *out of *written bytes: records at or before cut;
 * with carry, the later ones go into a second new file (*carry,
 * *carry_size), else cut is ignored.
 */
static int merge_files(struct kt_modrec *mr, const int *fd,
		       const unsigned long long *size, int n,
		       unsigned long long cut, int *out,
		       unsigned long long *written, int *carry,
		       unsigned long long *carry_size)
{
	struct kt_modrec_cursor c[3];
	struct outpage o = { .buf = NULL }, rest = { .buf = NULL };
	int i, k = 0, ret;

	*out = temp_file(mr->tmpdir);
	if (*out < 0)
		return *out;
	if (carry) {
		*carry = temp_file(mr->tmpdir);
		if (*carry < 0) {
			ret = *carry;
			goto err_out;
		}
	}
	memset(c, 0, sizeof(c));
	for (i = 0; i < n && k < 3; i++)
		if (size[i]) {
			c[k].fd = fd[i];
			c[k++].size = size[i];
		}
	ret = outpage_init(&o, *out, mr->page_size);
	if (!ret)
		ret = outpage_init(&rest, carry ? *carry : -1, mr->page_size);
	if (!ret)
		ret = pages_merge(c, k, &o, carry ? &rest : NULL, cut);
	*written = o.written;
	if (carry)
		*carry_size = rest.written;
	free(o.buf);
	free(rest.buf);
	if (!ret)
		return 0;
	if (carry)
		close(*carry);
err_out:
	close(*out);
	*out = -1;
	return ret;
}

/*
 * The three files a CPU's merge reads: another source's pages (fd,
 * size; -1: none), the records the last cut carried over, then this
 * CPU's own (own, own_size).
 */
static void merge_inputs(const struct modrec_cpu *c, int fd,
			 unsigned long long size, int own,
			 unsigned long long own_size, int *fds,
			 unsigned long long *sizes)
{
	fds[0] = fd;
	sizes[0] = fd >= 0 ? size : 0;
	fds[1] = c->carry_fd;
	sizes[1] = c->carry_fd >= 0 ? c->carry_size : 0;
	fds[2] = own;
	sizes[2] = own >= 0 ? own_size : 0;
}

/*
 * A CPU's *fd merged with the carried records and own_size bytes of its
 * out_fd, into a new file in *fd and *size: at the end (mr's, and only
 * when needed: out_fd itself when it is all), or for a snapshot (snap:
 * the caller's).
 */
static int merge_cpu(struct kt_modrec *mr, int cpu, unsigned long long own_size,
		     bool snap, int *fd, unsigned long long *size)
{
	struct modrec_cpu *c = &mr->cpus[cpu];
	unsigned long long sizes[3], merged = 0;
	int fds[3], out, ret;

	merge_inputs(c, *fd, *size, c->out_fd, own_size, fds, sizes);
	if (!snap && !sizes[1] && !sizes[2])
		return 0;
	if (!snap && !sizes[0] && !sizes[1]) {
		*fd = c->out_fd;
		*size = sizes[2];
		return 0;
	}
	ret = merge_files(mr, fds, sizes, 3, 0, &out, &merged, NULL, NULL);
	if (ret)
		return ret;
	if (!snap) {
		if (c->merged_fd >= 0)
			close(c->merged_fd);
		c->merged_fd = out;
	}
	*fd = out;
	*size = merged;
	return 0;
}

int kt_modrec_merge(struct kt_modrec *mr, int cpu, int *fd,
		    unsigned long long *size)
{
	if (cpu < 0 || cpu >= mr->ncpus)
		return 0;
	return merge_cpu(mr, cpu, kt_modrec_bytes(mr, cpu) -
			 atomic_load(&mr->cpus[cpu].base), false, fd, size);
}

/* ---- rotation ---- */

bool kt_modrec_can_rotate(const struct kt_modrec *mr)
{
	int i;

	for (i = 0; i < mr->ncpus; i++)
		if (mr->cpus[i].ring && !kt_modring_mapped(mr->cpus[i].ring) &&
		    !kt_modring_ringless(mr->cpus[i].ring))
			return false;
	return true;
}

/*
 * Each mapped CPU's reader asked to cut (rotation) or to flush
 * (snapshot), and waited for; a CPU whose reader is gone, never
 * started or never maps (a CPU never up) is done here.
 */
static int ask_readers(struct kt_modrec *mr, bool flush)
{
	struct modrec_cpu *c;
	int i, ret = 0;

	for (i = 0; i < mr->ncpus; i++) {
		c = &mr->cpus[i];
		if (c->started && c->ring && kt_modring_mapped(c->ring)) {
			atomic_store(flush ? &c->flush_req : &c->rot_req, true);
			if (eventfd_write(c->rot_fd, 1))
				ret = -errno;
		}
	}
	pthread_mutex_lock(&mr->lock);
	for (i = 0; i < mr->ncpus; i++) {
		c = &mr->cpus[i];
		while (c->started && c->ring && kt_modring_mapped(c->ring) &&
		       !(flush ? c->flushed : c->switched) && !c->exited)
			pthread_cond_wait(&mr->cond, &mr->lock);
	}
	pthread_mutex_unlock(&mr->lock);
	for (i = 0; i < mr->ncpus; i++) {
		c = &mr->cpus[i];
		if (flush && !c->flushed)
			modrec_flush_one(c, false);
		else if (!flush && !c->switched)
			modrec_cut(c, false);
	}
	return ret;
}

int kt_modrec_rotate(struct kt_modrec *mr)
{
	struct modrec_cpu *c;
	int i, ret = 0;

	for (i = 0; i < mr->ncpus; i++) {
		c = &mr->cpus[i];
		c->next_fd = temp_file(mr->tmpdir);
		if (c->next_fd < 0) {
			ret = c->next_fd;
			c->next_fd = -1;
			goto err;
		}
		if (c->old_fd >= 0)
			close(c->old_fd);
		c->old_fd = -1;
		c->old_size = 0;
		c->switched = false;
	}
	return ask_readers(mr, false);

err:
	while (i-- > 0) {
		close(mr->cpus[i].next_fd);
		mr->cpus[i].next_fd = -1;
	}
	return ret;
}

int kt_modrec_cut_merge(struct kt_modrec *mr, int cpu, unsigned long long cut,
			int *fd, unsigned long long *size)
{
	struct modrec_cpu *c;
	unsigned long long sizes[3], merged = 0, carry_size = 0;
	int fds[3], out, carry, ret;

	if (cpu < 0 || cpu >= mr->ncpus)
		return 0;
	c = &mr->cpus[cpu];
	merge_inputs(c, *fd, *size, c->old_fd, c->old_size, fds, sizes);
	ret = merge_files(mr, fds, sizes, 3, cut, &out, &merged, &carry,
			  &carry_size);
	if (ret)
		return ret;
	if (c->carry_fd >= 0)
		close(c->carry_fd);
	c->carry_fd = carry;
	c->carry_size = carry_size;
	if (c->old_fd >= 0)
		close(c->old_fd);
	c->old_fd = -1;
	*fd = out;
	*size = merged;
	return 0;
}

/* ---- snapshots ---- */

int kt_modrec_flush(struct kt_modrec *mr)
{
	int i;

	pthread_mutex_lock(&mr->lock);
	for (i = 0; i < mr->ncpus; i++)
		mr->cpus[i].flushed = false;
	pthread_mutex_unlock(&mr->lock);
	return ask_readers(mr, true);
}

int kt_modrec_flush_merge(struct kt_modrec *mr, int cpu, int *fd,
			  unsigned long long *size)
{
	const struct modrec_cpu *c;

	if (cpu < 0 || cpu >= mr->ncpus)
		return 0;
	c = &mr->cpus[cpu];
	return merge_cpu(mr, cpu, c->flushed ? c->flushed_size : 0, true, fd, size);
}
