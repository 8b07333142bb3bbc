// SPDX-License-Identifier: GPL-2.0
/* A reader's second thread and its queue of jobs.  See ahead.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "file/ahead.h"

struct kt_ahead {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* the thread waits here for a job */
	pthread_cond_t done;	/* kt_ahead_wait() waits here for one to end */
	struct kt_ahead_job *head, *tail;
	bool stop;
};

static void *ahead_thread(void *arg)
{
	struct kt_ahead *a = arg;
	struct kt_ahead_job *j;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->stop && !a->head)
			pthread_cond_wait(&a->work, &a->lock);
		if (a->stop)
			break;
		j = a->head;
		a->head = j->next;
		if (!a->head)
			a->tail = NULL;
		j->state = KT_AHEAD_BUSY;
		pthread_mutex_unlock(&a->lock);
		j->fn(j);
		pthread_mutex_lock(&a->lock);
		j->state = KT_AHEAD_DONE;
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct kt_ahead *kt_ahead_new(void)
{
	struct kt_ahead *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->done, NULL);
	ret = pthread_create(&a->tid, NULL, ahead_thread, a);
	if (ret) {
		pthread_cond_destroy(&a->done);
		pthread_cond_destroy(&a->work);
		pthread_mutex_destroy(&a->lock);
		free(a);
		errno = ret;
		return NULL;
	}
	return a;
}

void kt_ahead_free(struct kt_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->tid, NULL);
	pthread_cond_destroy(&a->done);
	pthread_cond_destroy(&a->work);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

void kt_ahead_post(struct kt_ahead *a, struct kt_ahead_job *j)
{
	pthread_mutex_lock(&a->lock);
	j->next = NULL;
	j->state = KT_AHEAD_QUEUED;
	if (a->tail)
		a->tail->next = j;
	else
		a->head = j;
	a->tail = j;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
}

bool kt_ahead_wait(struct kt_ahead *a, struct kt_ahead_job *j)
{
	struct kt_ahead_job **pp, *prev = NULL;
	bool ran = false;

	pthread_mutex_lock(&a->lock);
	if (j->state == KT_AHEAD_QUEUED) {
		for (pp = &a->head; *pp; prev = *pp, pp = &(*pp)->next) {
			if (*pp != j)
				continue;
			*pp = j->next;
			if (a->tail == j)
				a->tail = prev;
			break;
		}
	} else {
		while (j->state == KT_AHEAD_BUSY)
			pthread_cond_wait(&a->done, &a->lock);
		ran = j->state == KT_AHEAD_DONE;
	}
	j->state = KT_AHEAD_IDLE;
	pthread_mutex_unlock(&a->lock);
	return ran;
}
