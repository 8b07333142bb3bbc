// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU recorders.  trace_pipe_raw hands out whole pages through
 * splice (the kernel swaps the page out of the ring buffer), a pipe
 * carries them, and a second splice puts them in the CPU's temporary
 * file.  Only the last, partly filled page at the end needs read(),
 * because splice gives full pages only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "live/tracefs/tracefs.h"
#include "file/pieces.h"
#include "file/rawpage.h"
#include "live/buffers/recorder.h"

/* As much as one splice may move; the kernel caps it at pipe-max-size. */
#define PIPE_WANT	(1 << 20)
/* A recorder thread's nice value: ahead of the traced workload. */
#define RECORDER_NICE	(-20)
/* After a wake-up that found no full page, do not spin. */
#define IDLE_NAP_MS	10
/* How often to look again at a CPU that has no buffer yet. */
#define NO_BUFFER_NAP_MS	100
/* With put(): each CPU's partly filled page goes this often too. */
#define PUT_PARTIAL_MS	100

struct cpu_rec {
	struct kt_recorder *rec;
	int cpu;
	int raw_fd;
	int pipe_rd, pipe_wr;
	int out_fd;
	char *out_path;
	size_t pipe_size;
	atomic_ullong bytes;
	/* bytes when out_fd was begun: the piece holds bytes - base. */
	atomic_ullong base;
	/* Events taken from the kernel that could not be written. */
	atomic_ullong unwritten;
	pthread_t thread;
	bool started;
	/* A rotation (kt_recorder_rotate): the next piece, the one left. */
	int rot_fd;			/* eventfd: switch to next_fd */
	int next_fd, old_fd;
	char *next_path;
	unsigned long long old_size;
	/*
	 * A piece given back for its pages to be written over
	 * (kt_recorder_recycle), and whether the pieces now written, next
	 * and left were such: bytes past what they hold are an older
	 * chunk's.
	 */
	char *spare_path;
	bool out_reused, next_reused, old_reused;
	bool flush_only;		/* a snapshot's flush: no switch */
	/* Full pages moved since the last round with put() (put_partial). */
	bool moved_since_round;
	bool switched;			/* under rec->lock */
	bool exited;			/* the thread returned; under rec->lock */
};

struct kt_recorder {
	int ncpus;
	int page_size;
	struct cpu_rec *cpus;
	int stop_fd;
	int notify_fd;
	atomic_int error;
	atomic_ullong total;
	atomic_ullong limit;
	atomic_bool limit_hit;
	bool running;
	bool stopped;
	/* A rotation waits for each thread's switch. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* The pages to the caller's put() instead of the pieces. */
	kt_recorder_put_fn put;
	void *put_arg;
};

static void poke(int fd)
{
	uint64_t one = 1;

	/* An eventfd write only fails when the counter would overflow. */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void set_error(struct kt_recorder *rec, int err)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&rec->error, &none, err))
		poke(rec->notify_fd);
}

/*
 * A named piece beside the output, so that a recording killed with
 * SIGKILL leaves its pages where 'ktrace record --recover' finds them.
 * A spare piece (kt_recorder_recycle) is renamed to it and written over
 * from its start (*reused): its pages are neither freed nor taken again.
 */
static int open_piece(const char *prefix, int cpu, char **path, char **spare,
		      bool *reused)
{
	char name[PATH_MAX];
	int fd, flags = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;

	*path = NULL;
	*reused = false;
	fd = kt_pieces_cpu(name, sizeof(name), prefix, cpu);
	if (fd)
		return fd;
	*path = strdup(name);
	if (!*path)
		return -ENOMEM;
	if (spare && *spare) {
		if (!rename(*spare, name)) {
			flags &= ~O_TRUNC;
			*reused = true;
		} else {
			unlink(*spare);
		}
		free(*spare);
		*spare = NULL;
	}
	fd = open(*path, flags, 0600);
	if (fd < 0) {
		fd = -errno;
		free(*path);
		*path = NULL;
		*reused = false;
	}
	return fd;
}

static int cpu_open(struct kt_recorder *rec, struct tracefs_instance *inst,
		    struct cpu_rec *c, const char *prefix)
{
	char file[64], *path;
	int p[2], ret;

	c->raw_fd = c->pipe_rd = c->pipe_wr = c->out_fd = -1;
	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	path = tracefs_instance_get_file(inst, file);
	if (!path)
		return -ENOMEM;
	c->raw_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ret = c->raw_fd < 0 ? -errno : 0;
	tracefs_put_tracing_file(path);
	if (ret)
		return ret;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c->pipe_rd = p[0];
	c->pipe_wr = p[1];
	/* A big pipe moves many pages per system call. */
	fcntl(c->pipe_wr, F_SETPIPE_SZ, PIPE_WANT);
	ret = fcntl(c->pipe_wr, F_GETPIPE_SZ);
	c->pipe_size = ret > rec->page_size ? (size_t)ret : (size_t)rec->page_size;
	c->out_fd = open_piece(prefix, c->cpu, &c->out_path, NULL, &c->out_reused);
	if (c->out_fd < 0)
		return c->out_fd;
	return 0;
}

/* The reading side: an open trace_pipe_raw keeps its instance busy. */
static void cpu_close_readers(struct cpu_rec *c)
{
	if (c->raw_fd >= 0)
		close(c->raw_fd);
	if (c->pipe_rd >= 0)
		close(c->pipe_rd);
	if (c->pipe_wr >= 0)
		close(c->pipe_wr);
	c->raw_fd = c->pipe_rd = c->pipe_wr = -1;
}

static void cpu_close(struct cpu_rec *c)
{
	cpu_close_readers(c);
	if (c->rot_fd >= 0)
		close(c->rot_fd);
	c->rot_fd = -1;
	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->out_path)
		unlink(c->out_path);
	free(c->out_path);
	c->out_path = NULL;
	if (c->spare_path)
		unlink(c->spare_path);
	free(c->spare_path);
	c->spare_path = NULL;
}

struct kt_recorder *kt_recorder_new(struct tracefs_instance *inst,
				    int ncpus, const char *prefix)
{
	struct kt_recorder *rec;
	int i, ret = -ENOMEM;

	if (ncpus <= 0) {
		errno = EINVAL;
		return NULL;
	}
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return NULL;
	rec->ncpus = ncpus;
	rec->page_size = getpagesize();
	rec->stop_fd = rec->notify_fd = -1;
	rec->cpus = calloc(ncpus, sizeof(*rec->cpus));
	if (!rec->cpus)
		goto err;
	pthread_mutex_init(&rec->lock, NULL);
	pthread_cond_init(&rec->cond, NULL);
	for (i = 0; i < ncpus; i++) {
		rec->cpus[i].raw_fd = rec->cpus[i].pipe_rd = -1;
		rec->cpus[i].pipe_wr = rec->cpus[i].out_fd = -1;
		rec->cpus[i].rot_fd = rec->cpus[i].next_fd = -1;
		rec->cpus[i].old_fd = -1;
	}
	rec->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rec->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rec->stop_fd < 0 || rec->notify_fd < 0) {
		ret = -errno;
		goto err;
	}
	for (i = 0; i < ncpus; i++) {
		rec->cpus[i].rec = rec;
		rec->cpus[i].cpu = i;
		ret = cpu_open(rec, inst, &rec->cpus[i], prefix);
		if (ret)
			goto err;
		rec->cpus[i].rot_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (rec->cpus[i].rot_fd < 0) {
			ret = -errno;
			goto err;
		}
	}
	return rec;

err:
	kt_recorder_free(rec);
	errno = -ret;
	return NULL;
}

/* How many bytes the limit still allows, page-aligned (max: no limit). */
static size_t budget(struct kt_recorder *rec, size_t want)
{
	unsigned long long limit = atomic_load(&rec->limit);
	unsigned long long total = atomic_load(&rec->total);
	unsigned long long left;

	if (!limit)
		return want;
	left = limit > total ? limit - total : 0;
	left -= left % rec->page_size;
	if (left < (unsigned long long)rec->page_size) {
		if (!atomic_exchange(&rec->limit_hit, true))
			poke(rec->notify_fd);
		return 0;
	}
	return left < want ? left : want;
}

static void account(struct cpu_rec *c, size_t n)
{
	atomic_fetch_add(&c->bytes, n);
	atomic_fetch_add(&c->rec->total, n);
}

/* Pages put(): counted, and the piece, which never holds them, stays empty. */
static void account_put(struct cpu_rec *c, size_t n)
{
	account(c, n);
	atomic_fetch_add(&c->base, n);
}

/* Count the events in whole pages that will never reach the file. */
static void count_unwritten(struct cpu_rec *c, const char *pages, size_t len)
{
	size_t page = c->rec->page_size;
	uint64_t n;

	/* A page that does not parse still gives the events before its fault. */
	for (; len >= page; pages += page, len -= page) {
		kt_rawpage_events(pages, page, &n);
		atomic_fetch_add(&c->unwritten, n);
	}
}

/*
 * The output refused the pages already taken from the kernel: they are
 * in the pipe.  Take them out and count their events, so the loss is
 * told in events.
 */
static void strand_pipe(struct cpu_rec *c, size_t len)
{
	size_t page = c->rec->page_size;
	unsigned long long had = atomic_load(&c->bytes) - atomic_load(&c->base);
	size_t rem = had % page;
	char *buf = malloc(page);
	ssize_t n;

	/*
	 * The output took part of a page: put its head back together with
	 * the tail from the pipe, count it, and cut the piece back to whole
	 * pages.
	 */
	if (buf && rem && len >= page - rem &&
	    pread(c->out_fd, buf, rem, had - rem) == (ssize_t)rem &&
	    read(c->pipe_rd, buf + rem, page - rem) == (ssize_t)(page - rem)) {
		count_unwritten(c, buf, page);
		len -= page - rem;
		if (ftruncate(c->out_fd, had - rem) == 0 &&
		    lseek(c->out_fd, had - rem, SEEK_SET) >= 0) {
			atomic_fetch_sub(&c->bytes, rem);
			atomic_fetch_sub(&c->rec->total, rem);
		}
	}
	while (buf && len >= page) {
		n = read(c->pipe_rd, buf, page);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)page)
			break;
		count_unwritten(c, buf, page);
		len -= page;
	}
	free(buf);
}

/*
 * The pages now in the pipe (n bytes) to put(); on a failure those
 * put() left in the pipe are counted as never written.
 */
static int put_pipe(struct cpu_rec *c, size_t n)
{
	int ret = c->rec->put(c->rec->put_arg, c->cpu, c->pipe_rd, n);
	int left = 0;

	if (!ret) {
		account_put(c, n);
		return 0;
	}
	if (ioctl(c->pipe_rd, FIONREAD, &left) == 0 && left > 0)
		strand_pipe(c, (size_t)left);
	return ret;
}

/*
 * Move every full page the kernel has now.  Returns bytes moved, or
 * -errno; -EAGAIN never escapes (it means "nothing more for now").
 */
static long move_pages(struct cpu_rec *c)
{
	long moved = 0;

	for (;;) {
		size_t len = budget(c->rec, c->pipe_size);
		ssize_t n, m;

		if (!len)
			return moved;
		n = splice(c->raw_fd, NULL, c->pipe_wr, NULL, len,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return moved;
		if (n < 0)
			return -errno;
		if (n == 0)
			return moved;
		if (c->rec->put) {
			int err = put_pipe(c, (size_t)n);

			if (err)
				return err;
			moved += n;
			continue;
		}
		while (n > 0) {
			m = splice(c->pipe_rd, NULL, c->out_fd, NULL, n,
				   SPLICE_F_MOVE);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				int err = m < 0 ? -errno : -EIO;

				strand_pipe(c, n);
				return err;
			}
			n -= m;
			moved += m;
			account(c, m);
		}
	}
}

/*
 * The kernel gives a CPU its ring buffer when the CPU first comes online
 * (a possible CPU may never have been: a VM's hot-plug slots, maxcpus=).
 * Until then its trace_pipe_raw polls as an error and read() fails with
 * ENODEV, yet it has recorded nothing: wait for it, do not fail.
 */
static bool cpu_offline(int cpu)
{
	char path[64], v = '1';
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, &v, 1) != 1)
		v = '1';
	close(fd);
	return v == '0';
}

/*
 * The partly filled pages splice will not give: read() them, at most max
 * (-1: all; a rotation with tracing on takes a bounded round).
 */
static int flush_partial(struct cpu_rec *c, int max)
{
	int page = c->rec->page_size;
	char *buf = malloc(page);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (; max; max > 0 ? max-- : 0) {
		ssize_t n;

		if (!budget(c->rec, page))
			break;
		n = read(c->raw_fd, buf, page);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		/* A CPU without a buffer (see cpu_offline) has nothing. */
		if (n < 0 && errno == ENODEV)
			break;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		/* Pages stay whole in the file; the rest is zero anyway. */
		if (n < page)
			memset(buf + n, 0, page - n);
		if (c->rec->put) {
			/* The pipe is empty: the page fits without waiting. */
			ret = kt_write_all(c->pipe_wr, buf, page);
			if (ret) {
				count_unwritten(c, buf, page);
				break;
			}
			ret = put_pipe(c, page);
			if (ret)
				break;
			continue;
		}
		ret = kt_write_all(c->out_fd, buf, page);
		if (ret) {
			count_unwritten(c, buf, page);
			break;
		}
		account(c, page);
	}
	free(buf);
	return ret;
}

/*
 * The pages the kernel has now, the partly filled one too.  move_pages()
 * runs until no full page is left, so one read() takes the rest: what
 * comes after it came after the request.  Reading on until the buffer is
 * empty would not end on a busy CPU, nor on a quiet one when the
 * recording traces system calls: each read() writes its own events
 * there.  It read a pipe's worth of nearly empty pages at each flush.
 */
static int take_now(struct cpu_rec *c)
{
	long n = move_pages(c);

	return n < 0 ? (int)n : flush_partial(c, 1);
}

static int drain(struct cpu_rec *c)
{
	long n = move_pages(c);

	if (n < 0)
		return n;
	return flush_partial(c, -1);
}

/*
 * A rotation's switch, in the CPU's thread (or in the caller's once the
 * thread is gone): the pages the kernel has now, the partly filled one
 * too, go to the old piece, then the next piece takes over.  Every piece
 * holds whole pages: the cut is at a page boundary, nothing in two.
 */
static int cut(struct cpu_rec *c, bool take)
{
	struct kt_recorder *rec = c->rec;
	int n = take ? take_now(c) : 0;

	pthread_mutex_lock(&rec->lock);
	c->old_fd = c->out_fd;
	c->old_size = atomic_load(&c->bytes) - atomic_load(&c->base);
	c->old_reused = c->out_reused;
	free(c->out_path);
	c->out_path = c->next_path;
	c->out_fd = c->next_fd;
	c->out_reused = c->next_reused;
	c->next_path = NULL;
	c->next_fd = -1;
	atomic_store(&c->base, atomic_load(&c->bytes));
	c->switched = true;
	pthread_cond_broadcast(&rec->cond);
	pthread_mutex_unlock(&rec->lock);
	return n;
}

/*
 * A snapshot's flush, in the CPU's thread: the pages the kernel has now,
 * the partly filled one too, into the piece, which goes on (the next
 * pages follow it at a page boundary, as a rotation's do).
 */
static int flush_now(struct cpu_rec *c)
{
	struct kt_recorder *rec = c->rec;
	int n = take_now(c);

	pthread_mutex_lock(&rec->lock);
	c->switched = true;
	pthread_cond_broadcast(&rec->cond);
	pthread_mutex_unlock(&rec->lock);
	return n;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * With put(), every PUT_PARTIAL_MS: the full pages and then the partly
 * filled one (one read), so that no CPU's events wait for the stop to
 * leave: a connection that drops has every CPU's pages up to about then.
 * A CPU whose full pages went since the last round is that current
 * already (its partly filled page is its last page or less): it is left
 * alone, and its pages keep going whole.  Returns the time of the next
 * round (-1: no rounds); the bytes it moved (or -errno) in *moved.
 */
static long long put_partial(struct cpu_rec *c, long long due, long *moved)
{
	long long now;
	int err;

	*moved = 0;
	if (!c->rec->put)
		return -1;
	now = now_ms();
	if (due >= 0 && now < due)
		return due;
	if (due >= 0 && !c->moved_since_round) {
		*moved = move_pages(c);
		if (*moved >= 0) {
			err = flush_partial(c, 1);
			/* A CPU without a buffer (see cpu_offline) has nothing. */
			if (err && err != -ENODEV)
				*moved = err;
		}
	}
	c->moved_since_round = false;
	return now + PUT_PARTIAL_MS;
}

static void *cpu_main(void *arg)
{
	struct cpu_rec *c = arg;
	struct kt_recorder *rec = c->rec;
	sigset_t all;
	int errors = 0;
	long long due;
	long n, round;

	/* Signals are for the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/*
	 * Little work per wake-up, but it must come soon: the buffer keeps
	 * filling while we wait for a CPU.  Best effort (needs privilege).
	 */
	setpriority(PRIO_PROCESS, 0, RECORDER_NICE);
	due = put_partial(c, -1, &n);

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = c->raw_fd, .events = POLLIN },
			{ .fd = rec->stop_fd, .events = POLLIN },
			{ .fd = c->rot_fd, .events = POLLIN },
		};
		long long now = now_ms();
		uint64_t one;
		int ready;

		/* Until the next round with put(), if any. */
		ready = poll(pfd, 3, due < 0 ? -1 : due > now ? (int)(due - now) : 0);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			set_error(rec, -errno);
			return NULL;
		}
		if (pfd[1].revents)
			break;
		due = put_partial(c, due, &round);
		if (round < 0) {
			set_error(rec, round);
			return NULL;
		}
		if (!ready)
			continue;
		if (pfd[2].revents && read(c->rot_fd, &one, sizeof(one)) > 0) {
			n = c->flush_only ? flush_now(c) : cut(c, true);
			if (n < 0) {
				set_error(rec, n);
				return NULL;
			}
			continue;
		}
		/*
		 * No buffer yet: wait for the CPU to come up.  One more look
		 * when it is up already, in case it just came.
		 */
		if ((pfd[0].revents & POLLERR) &&
		    (cpu_offline(c->cpu) || !errors++)) {
			poll(&pfd[1], 1, NO_BUFFER_NAP_MS);
			continue;
		}
		if (pfd[0].revents & (POLLERR | POLLNVAL)) {
			set_error(rec, -EIO);
			return NULL;
		}
		errors = 0;
		n = move_pages(c);
		if (n < 0) {
			set_error(rec, n);
			return NULL;
		}
		if (n > 0)
			c->moved_since_round = true;
		if (atomic_load(&rec->limit_hit))
			return NULL;
		/*
		 * Woken with no full page to take: wait a little.  Not when
		 * the round just took them: the buffer fills as fast as ever,
		 * and a busy CPU's small buffer holds less than a nap's worth
		 * (it would be overwritten while the thread slept).
		 */
		if (n == 0 && round == 0)
			poll(&pfd[1], 1, IDLE_NAP_MS);
	}
	n = drain(c);
	if (n < 0)
		set_error(rec, n);
	return NULL;
}

/* cpu_main, then said gone: a rotation no longer waits for it. */
static void *cpu_thread(void *arg)
{
	struct cpu_rec *c = arg;

	cpu_main(c);
	pthread_mutex_lock(&c->rec->lock);
	c->exited = true;
	pthread_cond_broadcast(&c->rec->cond);
	pthread_mutex_unlock(&c->rec->lock);
	return NULL;
}

int kt_recorder_start(struct kt_recorder *rec)
{
	int i, ret = 0;

	for (i = 0; i < rec->ncpus; i++) {
		ret = -pthread_create(&rec->cpus[i].thread, NULL, cpu_thread,
				      &rec->cpus[i]);
		if (ret)
			break;
		rec->cpus[i].started = true;
	}
	rec->running = true;
	if (ret)
		kt_recorder_stop(rec);
	return ret;
}

void kt_recorder_set_put(struct kt_recorder *rec, kt_recorder_put_fn put,
			 void *arg)
{
	rec->put = put;
	rec->put_arg = arg;
}

int kt_recorder_notify_fd(const struct kt_recorder *rec)
{
	return rec->notify_fd;
}

void kt_recorder_set_limit(struct kt_recorder *rec, unsigned long long bytes)
{
	atomic_store(&rec->limit, bytes);
}

int kt_recorder_stop(struct kt_recorder *rec)
{
	int i, ret;

	if (rec->stopped)
		return kt_recorder_error(rec);
	rec->stopped = true;
	if (!rec->running) {
		/* Flight recorder: nobody read while tracing; read it all now. */
		for (i = 0; i < rec->ncpus; i++) {
			ret = drain(&rec->cpus[i]);
			if (ret) {
				set_error(rec, ret);
				break;
			}
		}
	} else {
		poke(rec->stop_fd);
		for (i = 0; i < rec->ncpus; i++)
			if (rec->cpus[i].started)
				pthread_join(rec->cpus[i].thread, NULL);
	}
	/* Done reading: let the instance go. */
	for (i = 0; i < rec->ncpus; i++)
		cpu_close_readers(&rec->cpus[i]);
	return kt_recorder_error(rec);
}

int kt_recorder_error(const struct kt_recorder *rec)
{
	return atomic_load(&((struct kt_recorder *)rec)->error);
}

unsigned long long kt_recorder_bytes(const struct kt_recorder *rec, int cpu)
{
	if (cpu < 0 || cpu >= rec->ncpus)
		return 0;
	return atomic_load(&rec->cpus[cpu].bytes);
}

unsigned long long kt_recorder_total(const struct kt_recorder *rec)
{
	return atomic_load(&((struct kt_recorder *)rec)->total);
}

unsigned long long kt_recorder_piece_size(const struct kt_recorder *rec, int cpu)
{
	const struct cpu_rec *c;

	if (cpu < 0 || cpu >= rec->ncpus)
		return 0;
	c = &rec->cpus[cpu];
	return atomic_load(&c->bytes) - atomic_load(&c->base);
}

/* The next pieces, one per CPU; on failure none is left. */
static int open_next(struct kt_recorder *rec, const char *prefix)
{
	int i, fd = 0;

	for (i = 0; i < rec->ncpus; i++) {
		fd = open_piece(prefix, i, &rec->cpus[i].next_path,
				&rec->cpus[i].spare_path, &rec->cpus[i].next_reused);
		if (fd < 0)
			break;
		rec->cpus[i].next_fd = fd;
	}
	if (i == rec->ncpus)
		return 0;
	while (i-- > 0) {
		close(rec->cpus[i].next_fd);
		unlink(rec->cpus[i].next_path);
		free(rec->cpus[i].next_path);
		rec->cpus[i].next_fd = -1;
		rec->cpus[i].next_path = NULL;
	}
	return fd;
}

/*
 * Ask every thread to cut (a rotation) or to flush (a snapshot) and wait
 * until each did, or is gone: then its request is taken back (a thread
 * gone writes nothing more).
 */
static void ask_all(struct kt_recorder *rec, bool flush_only)
{
	struct cpu_rec *c;
	uint64_t one;
	int i;

	for (i = 0; i < rec->ncpus; i++) {
		rec->cpus[i].switched = false;
		rec->cpus[i].flush_only = flush_only;
		poke(rec->cpus[i].rot_fd);
	}
	pthread_mutex_lock(&rec->lock);
	for (i = 0; i < rec->ncpus; i++) {
		c = &rec->cpus[i];
		while (!c->switched && !c->exited)
			pthread_cond_wait(&rec->cond, &rec->lock);
	}
	pthread_mutex_unlock(&rec->lock);
	for (i = 0; i < rec->ncpus; i++) {
		c = &rec->cpus[i];
		if (!c->switched && read(c->rot_fd, &one, sizeof(one)) < 0)
			one = 0;
		c->flush_only = false;
	}
}

int kt_recorder_rotate(struct kt_recorder *rec, const char *prefix, int *fd,
		       unsigned long long *size)
{
	struct cpu_rec *c;
	int i, ret;

	if (!rec->running || rec->stopped)
		return -EINVAL;
	ret = open_next(rec, prefix);
	if (ret)
		return ret;
	ask_all(rec, false);
	for (i = 0; i < rec->ncpus; i++) {
		c = &rec->cpus[i];
		/* Gone (an error, the limit): it writes nothing more. */
		if (!c->switched)
			cut(c, false);
		/*
		 * An older chunk's bytes past its own are cut off, so that
		 * its size is the file's.  Shrinking a file cannot fail but
		 * for an I/O error, which its reader meets.
		 */
		if (c->old_reused && ftruncate(c->old_fd, (off_t)c->old_size))
			kt_debug("cannot cut a reused piece: %s", strerror(errno));
		fd[i] = c->old_fd;
		size[i] = c->old_size;
		c->old_fd = -1;
	}
	return 0;
}

int kt_recorder_recycle(struct kt_recorder *rec, const char *prefix)
{
	char name[PATH_MAX];
	struct cpu_rec *c;
	int i, ret = 0;

	for (i = 0; i < rec->ncpus; i++) {
		c = &rec->cpus[i];
		if (kt_pieces_cpu(name, sizeof(name), prefix, i)) {
			ret = -ENAMETOOLONG;
			continue;
		}
		/* One spare a CPU: an older one goes. */
		if (c->spare_path)
			unlink(c->spare_path);
		free(c->spare_path);
		c->spare_path = strdup(name);
		if (!c->spare_path) {
			unlink(name);
			ret = -ENOMEM;
		}
	}
	return ret;
}

int kt_recorder_flush(struct kt_recorder *rec, int *fd,
		      unsigned long long *size)
{
	struct cpu_rec *c;
	int i, ret = 0;

	if (rec->running && !rec->stopped) {
		ask_all(rec, true);
	} else if (!rec->stopped) {
		/* A flight recording: read the buffers here, tracing on. */
		for (i = 0; !ret && i < rec->ncpus; i++)
			ret = take_now(&rec->cpus[i]);
		if (ret)
			return ret;
	}
	ret = kt_recorder_error(rec);
	if (ret)
		return ret;
	for (i = 0; i < rec->ncpus; i++) {
		c = &rec->cpus[i];
		fd[i] = c->out_path ? open(c->out_path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd[i] < 0) {
			ret = c->out_path ? -errno : -ENOENT;
			while (i-- > 0)
				close(fd[i]);
			return ret;
		}
		size[i] = atomic_load(&c->bytes) - atomic_load(&c->base);
	}
	return 0;
}

int kt_recorder_fd(const struct kt_recorder *rec, int cpu)
{
	if (cpu < 0 || cpu >= rec->ncpus)
		return -1;
	return rec->cpus[cpu].out_fd;
}

void kt_recorder_free(struct kt_recorder *rec)
{
	int i;

	if (!rec)
		return;
	if (rec->running && !rec->stopped) {
		rec->stopped = true;
		poke(rec->stop_fd);
		for (i = 0; i < rec->ncpus; i++)
			if (rec->cpus[i].started)
				pthread_join(rec->cpus[i].thread, NULL);
	}
	if (rec->cpus)
		for (i = 0; i < rec->ncpus; i++)
			cpu_close(&rec->cpus[i]);
	if (rec->stop_fd >= 0)
		close(rec->stop_fd);
	if (rec->notify_fd >= 0)
		close(rec->notify_fd);
	pthread_mutex_destroy(&rec->lock);
	pthread_cond_destroy(&rec->cond);
	free(rec->cpus);
	free(rec);
}

unsigned long long kt_recorder_unwritten(const struct kt_recorder *rec, int cpu)
{
	return cpu >= 0 && cpu < rec->ncpus ?
	       atomic_load(&rec->cpus[cpu].unwritten) : 0;
}
