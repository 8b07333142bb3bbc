// SPDX-License-Identifier: GPL-2.0
/*
 * Batches sent on a thread of their own.  See sender.h.
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

struct kt_sender {
	struct kt_ch *ch;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool busy, quit;
	char *sql;
	char what[300];			/* "batch of N rows into 'T'" */
	struct kt_block *block;
	kt_sender_prep_fn prep;
	void *prep_arg;
	int err;
	char msg[1024];
};

static void *run(void *arg)
{
	struct kt_sender *s = arg;
	const struct iovec *iov;
	int ret, n;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->busy && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->busy)
			break;
		pthread_mutex_unlock(&s->mu);
		ret = s->prep ? s->prep(s->prep_arg, s->ch, s->msg, sizeof(s->msg)) : 0;
		if (!ret) {
			n = kt_block_iov(s->block, &iov);
			ret = kt_ch_insert(s->ch, s->sql, iov, n, NULL);
			if (ret)
				snprintf(s->msg, sizeof(s->msg), "%s refused: %s", s->what,
					 kt_ch_error(s->ch));
		}
		kt_block_clear(s->block);
		pthread_mutex_lock(&s->mu);
		if (ret)
			s->err = ret;
		free(s->sql);
		s->sql = NULL;
		s->block = NULL;
		s->busy = false;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct kt_sender *kt_sender_new(const struct kt_ch *ch)
{
	struct kt_sender *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->ch = kt_ch_clone(ch);
	if (!s->ch)
		goto err_s;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	err = pthread_create(&s->th, NULL, run, s);
	if (err) {
		errno = err;
		goto err_ch;
	}
	return s;

err_ch:
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	kt_ch_free(s->ch);
err_s:
	err = errno;
	free(s);
	errno = err;
	return NULL;
}

int kt_sender_wait(struct kt_sender *s, char *msg, size_t len)
{
	int ret;

	pthread_mutex_lock(&s->mu);
	while (s->busy)
		pthread_cond_wait(&s->cv, &s->mu);
	ret = s->err;
	if (ret)
		snprintf(msg, len, "%s", s->msg);
	pthread_mutex_unlock(&s->mu);
	return ret;
}

int kt_sender_send(struct kt_sender *s, const char *sql, struct kt_block *block,
		   kt_sender_prep_fn prep, void *prep_arg,
		   const char *what, char *msg, size_t len)
{
	char *copy = strdup(sql);
	int ret;

	if (!copy)
		return -ENOMEM;
	ret = kt_sender_wait(s, msg, len);
	if (ret) {
		free(copy);
		return ret;
	}
	pthread_mutex_lock(&s->mu);
	s->block = block;
	s->prep = prep;
	s->prep_arg = prep_arg;
	s->sql = copy;
	snprintf(s->what, sizeof(s->what), "%s", what);
	s->busy = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

void kt_sender_free(struct kt_sender *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->sql);
	kt_ch_free(s->ch);
	free(s);
}
