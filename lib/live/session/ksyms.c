// SPDX-License-Identifier: GPL-2.0
/*
 * The kallsyms thread of a recording.  See ksyms.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fileio.h"
#include "file/writer.h"
#include "live/session/ksyms.h"

/* kallsyms goes into the file in pieces of this size while being read. */
#define KSYMS_PIECE	(256 << 10)

enum { KSYMS_WAIT, KSYMS_WRITE, KSYMS_ABORT };

struct kt_ksyms {
	const char *tracing_dir;
	struct kt_writer *w;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;			/* KSYMS_*: set by the main thread */
	int err;
};

/* Has the main thread handed the writer over yet?  Waits if asked to. */
static int state(struct kt_ksyms *s, bool wait)
{
	int go;

	pthread_mutex_lock(&s->lock);
	while (wait && s->go == KSYMS_WAIT)
		pthread_cond_wait(&s->cond, &s->lock);
	go = s->go;
	pthread_mutex_unlock(&s->lock);
	return go;
}

/*
 * Reads /proc/kallsyms (tens of ms, 4 KB per read) from the start, and
 * streams it into the file as soon as the main thread has written the
 * headers before it and handed the writer over (kt_ksyms_handover).
 */
static void *ksyms_main(void *arg)
{
	struct kt_ksyms *s = arg;
	char path[PATH_MAX], *buf, *nbuf, *printk = NULL;
	size_t cap = KSYMS_PIECE * 2, len = 0, printk_len = 0;
	bool writing = false, ok = true;
	sigset_t all;
	ssize_t n;
	int fd;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	buf = malloc(cap);
	/* Unreadable (a locked-down kernel): an empty section. */
	fd = buf ? open("/proc/kallsyms", O_RDONLY | O_CLOEXEC) : -1;
	while (fd >= 0) {
		if (cap - len < KSYMS_PIECE) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				ok = false;
				break;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		len += n;
		if (!writing && state(s, false) == KSYMS_WRITE) {
			writing = true;
			s->err = kt_writer_kallsyms_begin(s->w);
		}
		if (writing && len >= KSYMS_PIECE) {
			kt_writer_kallsyms_add(s->w, buf, len);
			len = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/printk_formats", s->tracing_dir);
	if (kt_file_slurp(path, &printk, &printk_len))
		printk_len = 0;
	if (state(s, true) == KSYMS_WRITE) {
		if (!writing)
			s->err = kt_writer_kallsyms_begin(s->w);
		if (!s->err) {
			if (ok && len)
				kt_writer_kallsyms_add(s->w, buf, len);
			s->err = kt_writer_kallsyms_end(s->w, ok && fd >= 0);
		}
		n = kt_writer_printk(s->w, printk, printk_len);
		if (n && !s->err)
			s->err = n;
	}
	free(buf);
	free(printk);
	return NULL;
}

static void handover(struct kt_ksyms *s, int go)
{
	pthread_mutex_lock(&s->lock);
	if (s->go == KSYMS_WAIT)
		s->go = go;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

struct kt_ksyms *kt_ksyms_start(const char *tracing_dir)
{
	struct kt_ksyms *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	k->tracing_dir = tracing_dir;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
	err = pthread_create(&k->thread, NULL, ksyms_main, k);
	if (err)
		goto err_free;
	/* Named, so top, perf and the tests can tell it apart. */
	pthread_setname_np(k->thread, "ktrace-ksyms");
	/*
	 * Reading kallsyms (system time) and packing it (zstd level 6,
	 * ~0.08 s) take CPU from the workload being recorded: on a busy
	 * machine they wait for idle time, up to kt_ksyms_join().
	 */
	pthread_setschedparam(k->thread, SCHED_IDLE, &(struct sched_param){ 0 });
	return k;

err_free:
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
	free(k);
	errno = err;
	return NULL;
}

void kt_ksyms_handover(struct kt_ksyms *k, struct kt_writer *w)
{
	k->w = w;
	handover(k, KSYMS_WRITE);
}

int kt_ksyms_join(struct kt_ksyms *k)
{
	int err;

	handover(k, KSYMS_ABORT);
	/* Now the recording waits for it: at the usual priority again. */
	pthread_setschedparam(k->thread, SCHED_OTHER, &(struct sched_param){ 0 });
	pthread_join(k->thread, NULL);
	err = k->err;
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
	free(k);
	return err;
}
