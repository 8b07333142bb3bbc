// SPDX-License-Identifier: GPL-2.0
/*
 * Batches sent by a pool of threads.  See sender.h.
 *
 * One mutex and one condition variable guard the pool: a thread's job
 * (busy, its block and statement), the first failure, and quit.  The
 * caller hands a batch to an idle thread and waits on the same variable
 * for a thread to go idle, for a block to come back, or for all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "push/block.h"
#include "push/clickhouse.h"
#include "push/sender.h"

struct worker {
	struct kt_sender *s;
	struct kt_ch *ch;
	pthread_t th;
	bool started, busy;
	char *sql;
	char what[300];			/* "batch of N rows into 'T'" */
	struct kt_block *block;
	kt_sender_prep_fn prep;
	void *prep_arg;
	char msg[1024];
};

struct kt_sender {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool quit;
	int err;			/* the first failure */
	char msg[1024];			/* and its reason */
	int n;
	struct worker w[];
};

static void *run(void *arg)
{
	struct worker *w = arg;
	struct kt_sender *s = w->s;
	const struct iovec *iov;
	int ret, n;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!w->busy && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&s->mu);
		ret = w->prep ? w->prep(w->prep_arg, w->ch, w->msg, sizeof(w->msg)) : 0;
		if (!ret) {
			n = kt_block_iov(w->block, &iov);
			ret = kt_ch_insert(w->ch, w->sql, iov, n, NULL);
			if (ret)
				snprintf(w->msg, sizeof(w->msg), "%s refused: %s", w->what,
					 kt_ch_error(w->ch));
		}
		kt_block_sent(w->block);
		pthread_mutex_lock(&s->mu);
		if (ret && !s->err) {
			s->err = ret;
			snprintf(s->msg, sizeof(s->msg), "%s", w->msg);
		}
		free(w->sql);
		w->sql = NULL;
		w->block = NULL;
		w->busy = false;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct kt_sender *kt_sender_new(const struct kt_ch *ch, int n)
{
	struct kt_sender *s = calloc(1, sizeof(*s) + (size_t)n * sizeof(s->w[0]));
	int i, err;

	if (!s)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->n = n;
	for (i = 0; i < n; i++) {
		s->w[i].s = s;
		s->w[i].ch = kt_ch_clone(ch);
		if (!s->w[i].ch)
			goto err_pool;
		err = pthread_create(&s->w[i].th, NULL, run, &s->w[i]);
		if (err) {
			errno = err;
			goto err_pool;
		}
		s->w[i].started = true;
	}
	return s;

err_pool:
	err = errno;
	kt_sender_free(s);
	errno = err;
	return NULL;
}

/* Whether the failure before is there, copied to msg. */
static bool failed(struct kt_sender *s, char *msg, size_t len)
{
	if (s->err)
		snprintf(msg, len, "%s", s->msg);
	return s->err;
}

int kt_sender_send(struct kt_sender *s, const char *sql, struct kt_block *block,
		   kt_sender_prep_fn prep, void *prep_arg,
		   const char *what, char *msg, size_t len)
{
	char *copy = strdup(sql);
	struct worker *w = NULL;
	int i, ret = 0;

	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&s->mu);
	while (!failed(s, msg, len)) {
		for (i = 0; i < s->n && !w; i++)
			if (!s->w[i].busy)
				w = &s->w[i];
		if (w)
			break;
		pthread_cond_wait(&s->cv, &s->mu);
	}
	if (w) {
		w->block = block;
		w->prep = prep;
		w->prep_arg = prep_arg;
		w->sql = copy;
		copy = NULL;
		snprintf(w->what, sizeof(w->what), "%s", what);
		w->busy = true;
		pthread_cond_broadcast(&s->cv);
	} else {
		ret = s->err;
	}
	pthread_mutex_unlock(&s->mu);
	free(copy);
	return ret;
}

/* Whether block is with a thread (all blocks: NULL). */
static bool sending(const struct kt_sender *s, const struct kt_block *block)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->w[i].busy && (!block || s->w[i].block == block))
			return true;
	return false;
}

int kt_sender_wait_block(struct kt_sender *s, const struct kt_block *block, char *msg, size_t len)
{
	int ret;

	pthread_mutex_lock(&s->mu);
	while (sending(s, block))
		pthread_cond_wait(&s->cv, &s->mu);
	ret = failed(s, msg, len) ? s->err : 0;
	pthread_mutex_unlock(&s->mu);
	return ret;
}

int kt_sender_wait(struct kt_sender *s, char *msg, size_t len)
{
	return kt_sender_wait_block(s, NULL, msg, len);
}

void kt_sender_free(struct kt_sender *s)
{
	int i;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	for (i = 0; i < s->n; i++) {
		if (s->w[i].started)
			pthread_join(s->w[i].th, NULL);
		free(s->w[i].sql);
		kt_ch_free(s->w[i].ch);
	}
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
