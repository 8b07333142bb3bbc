// SPDX-License-Identifier: GPL-2.0
/*
 * record --push URL: the snapshots' queue and the thread that pushes
 * it.  See shotpush.h.
 *
 * Once and only once: kt_push_file() sends a trace's rows with its
 * traces row last and sends nothing for a trace whose traces row is
 * there (an interrupted one is deleted and sent again), so a snapshot
 * whose push failed midway is simply pushed again.  Its snapshots row
 * follows its trace, written after a query found none for its (host,
 * trace_id): an INSERT whose answer was lost is found by the next try.
 * One thread pushes, so two tries never race.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/deadline.h"
#include "base/log.h"
#include "push/bytebuf.h"
#include "push/clickhouse.h"
#include "push/push.h"
#include "push/shotpush.h"

/* The backoff of a server that cannot be reached: doubling, capped. */
#define BACKOFF_FIRST_MS	250
#define BACKOFF_MAX_MS		5000
/* At the end, after the wait: what a push under way is given more. */
#define UNDERWAY_MS		5000

#define SNAPSHOTS_CREATE \
	"CREATE TABLE IF NOT EXISTS snapshots (host String, trace_id UInt64, " \
	"wall_ts Int64, time DateTime DEFAULT toDateTime(intDiv(wall_ts, 1000000000)), " \
	"condition String, fire_event String, fire_ts UInt64, first_ts UInt64, " \
	"last_ts UInt64, suppressed UInt64, path String) " \
	"ENGINE = MergeTree() ORDER BY (host, trace_id)"
#define SNAPSHOTS_INSERT \
	"INSERT INTO snapshots (host, trace_id, wall_ts, condition, fire_event, " \
	"fire_ts, first_ts, last_ts, suppressed, path) FORMAT TabSeparated"

/* A snapshot waiting: base/shot.h's, copied. */
struct entry {
	struct entry *next;
	char *path, *condition, *fire_event;
	unsigned long long fire_ts, first_ts, last_ts, suppressed;
	long long wall_ns;
};

struct kt_shotpush {
	struct kt_ch *ch;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* to the thread: work, the end */
	pthread_cond_t done;		/* from it: a snapshot pushed, its end */
	struct entry *head, **tail;
	bool running;			/* the thread has not ended */
	bool closing;			/* the end: push what is queued, then end */
	bool stop;			/* end now */
	bool down;			/* the last try failed (said once) */
	bool made;			/* snapshots made or found */
	size_t pushed;
	char **left;			/* not pushed, for the end's line */
	size_t nleft;
	char msg[1024];
};

static void entry_free(struct entry *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->condition);
	free(e->fire_event);
	free(e);
}

/* s as a ClickHouse string literal, into b. */
static void put_literal(struct kt_bytebuf *b, const char *s)
{
	kt_bytebuf_add(b, "'", 1);
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			kt_bytebuf_add(b, "\\", 1);
		kt_bytebuf_add(b, s, 1);
	}
	kt_bytebuf_add(b, "'", 1);
}

/* s as a TabSeparated field, then sep, into b. */
static void put_field(struct kt_bytebuf *b, const char *s, char sep)
{
	for (; *s; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" :
				  *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;

		if (esc)
			kt_bytebuf_add(b, esc, 2);
		else
			kt_bytebuf_add(b, s, 1);
	}
	kt_bytebuf_add(b, &sep, 1);
}

static void put_num(struct kt_bytebuf *b, long long v, bool is_signed, char sep)
{
	char n[32];
	int len = is_signed ? snprintf(n, sizeof(n), "%lld%c", v, sep) :
			      snprintf(n, sizeof(n), "%llu%c", (unsigned long long)v, sep);

	kt_bytebuf_add(b, n, (size_t)len);
}

/* The snapshots row of e, pushed as trace st: once. */
static int snapshots_row(struct kt_shotpush *q, const struct entry *e,
			 const struct kt_push_stats *st)
{
	struct kt_bytebuf b = { 0 };
	const char *reply, *body;
	char tail[80];
	int ret;

	if (!q->made) {
		ret = kt_ch_query(q->ch, SNAPSHOTS_CREATE, NULL, 0, NULL);
		if (ret)
			return ret;
		q->made = true;
	}
	kt_bytebuf_add(&b, "SELECT count() FROM snapshots WHERE host = ", 43);
	put_literal(&b, st->host);
	snprintf(tail, sizeof(tail), " AND trace_id = %s", st->trace_id);
	kt_bytebuf_add(&b, tail, strlen(tail));
	ret = b.failed ? -ENOMEM : kt_ch_query(q->ch, kt_bytebuf_text(&b), NULL, 0, &reply);
	kt_bytebuf_free(&b);
	if (ret)
		return ret;
	if (atoll(reply) > 0)
		return 0;
	memset(&b, 0, sizeof(b));
	put_field(&b, st->host, '\t');
	put_field(&b, st->trace_id, '\t');
	put_num(&b, e->wall_ns, true, '\t');
	put_field(&b, e->condition, '\t');
	put_field(&b, e->fire_event, '\t');
	put_num(&b, (long long)e->fire_ts, false, '\t');
	put_num(&b, (long long)e->first_ts, false, '\t');
	put_num(&b, (long long)e->last_ts, false, '\t');
	put_num(&b, (long long)e->suppressed, false, '\t');
	put_field(&b, e->path, '\n');
	body = kt_bytebuf_text(&b);
	ret = b.failed || !body ? -ENOMEM :
	      kt_ch_query(q->ch, SNAPSHOTS_INSERT, body, strlen(body), NULL);
	kt_bytebuf_free(&b);
	return ret;
}

/*
 * One snapshot, its trace and its row: 0, 1 when the file cannot be
 * pushed ever (gone, damaged: said), or -errno with the reason in msg.
 */
static int push_one(struct kt_shotpush *q, const struct entry *e)
{
	struct kt_push_opts po = { 0 };
	struct kt_push_stats st;
	int ret;

	q->msg[0] = '\0';
	if (access(e->path, R_OK)) {
		kt_err("cannot push snapshot '%s': %s", e->path, strerror(errno));
		return 1;
	}
	ret = kt_push_file(q->ch, e->path, &po, &st, q->msg, sizeof(q->msg));
	if (ret == -EBADMSG || ret == -EINVAL) {
		kt_err("cannot push snapshot '%s': %s", e->path,
		       *q->msg ? q->msg : strerror(-ret));
		return 1;
	}
	if (ret < 0)
		return ret;
	if (ret == 2)
		kt_warn("snapshot '%s' is damaged: pushed what could be read", e->path);
	ret = snapshots_row(q, e, &st);
	if (ret)
		snprintf(q->msg, sizeof(q->msg), "%s", kt_ch_error(q->ch));
	return ret;
}

/* The queue's head is done with: pushed, or kept for the end's line. */
static void pop(struct kt_shotpush *q, bool pushed)
{
	struct entry *e = q->head;
	char **l;

	q->head = e->next;
	if (!q->head)
		q->tail = &q->head;
	if (pushed) {
		q->pushed++;
	} else {
		l = realloc(q->left, (q->nleft + 1) * sizeof(*l));
		if (l) {
			q->left = l;
			q->left[q->nleft++] = e->path;
			e->path = NULL;
		}
	}
	entry_free(e);
	pthread_cond_broadcast(&q->done);
}

static void *pusher(void *arg)
{
	struct kt_shotpush *q = arg;
	struct timespec t;
	struct entry *e;
	int backoff = 0, ret;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->head && !q->closing && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->stop || !q->head)
			break;
		e = q->head;
		pthread_mutex_unlock(&q->mu);
		ret = push_one(q, e);
		pthread_mutex_lock(&q->mu);
		if (ret >= 0) {
			if (!ret && q->down)
				kt_info("pushed snapshot '%s' to %s: the server answers again",
					e->path, kt_ch_server(q->ch));
			q->down = false;
			backoff = 0;
			pop(q, !ret);
			continue;
		}
		if (!q->down)
			kt_warn("cannot push snapshot '%s' to %s: %s; trying again in the background, the snapshots kept on disk",
				e->path, kt_ch_server(q->ch), *q->msg ? q->msg : strerror(-ret));
		q->down = true;
		backoff = backoff ? backoff * 2 : BACKOFF_FIRST_MS;
		if (backoff > BACKOFF_MAX_MS)
			backoff = BACKOFF_MAX_MS;
		kt_deadline_in(&t, backoff);
		while (!q->stop && pthread_cond_timedwait(&q->cv, &q->mu, &t) != ETIMEDOUT)
			;
	}
	q->running = false;
	pthread_cond_broadcast(&q->done);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct kt_shotpush *kt_shotpush_new(const char *url, const char *user,
				    const char *password)
{
	struct kt_shotpush *q = calloc(1, sizeof(*q));
	int err;

	if (!q)
		return NULL;
	q->ch = kt_ch_new(url, user, password);
	if (!q->ch) {
		err = errno;
		goto err_free;
	}
	q->tail = &q->head;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	pthread_cond_init(&q->done, NULL);
	q->running = true;
	err = pthread_create(&q->th, NULL, pusher, q);
	if (err)
		goto err_sync;
	return q;

err_sync:
	pthread_cond_destroy(&q->done);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	kt_ch_free(q->ch);
err_free:
	free(q);
	errno = err;
	return NULL;
}

int kt_shotpush_add(struct kt_shotpush *q, const struct kt_shot *shot)
{
	struct entry *e = calloc(1, sizeof(*e));

	if (e) {
		e->path = strdup(shot->path);
		e->condition = strdup(shot->condition ? shot->condition : "");
		e->fire_event = strdup(shot->fire_event ? shot->fire_event : "");
	}
	if (!e || !e->path || !e->condition || !e->fire_event) {
		entry_free(e);
		kt_err("cannot queue snapshot '%s' for --push: %s; push it with 'ktrace push -i %s --to URL'",
		       shot->path, strerror(ENOMEM), shot->path);
		return -ENOMEM;
	}
	e->fire_ts = shot->fire_ts;
	e->first_ts = shot->first_ts;
	e->last_ts = shot->last_ts;
	e->suppressed = shot->suppressed;
	e->wall_ns = shot->fire_realtime_ns;
	pthread_mutex_lock(&q->mu);
	*q->tail = e;
	q->tail = &e->next;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

size_t kt_shotpush_finish(struct kt_shotpush *q, int ms)
{
	struct timespec t;
	bool ended;

	pthread_mutex_lock(&q->mu);
	q->closing = true;
	pthread_cond_signal(&q->cv);
	kt_deadline_in(&t, ms);
	while (q->running && q->head &&
	       pthread_cond_timedwait(&q->done, &q->mu, &t) != ETIMEDOUT)
		;
	q->stop = true;
	pthread_cond_signal(&q->cv);
	kt_deadline_in(&t, UNDERWAY_MS);
	while (q->running && pthread_cond_timedwait(&q->done, &q->mu, &t) != ETIMEDOUT)
		;
	ended = !q->running;
	/* What is still queued (the head perhaps under way): not pushed. */
	while (q->head && ended)
		pop(q, false);
	pthread_mutex_unlock(&q->mu);
	if (ended) {
		pthread_join(q->th, NULL);
	} else {
		/*
		 * A push still under way, past every bound: left to the
		 * process's exit, which cuts it (the next push of that file
		 * completes it); q is its, not freed.
		 */
		pthread_mutex_lock(&q->mu);
		for (struct entry *e = q->head; e; e = e->next) {
			char **l = realloc(q->left, (q->nleft + 1) * sizeof(*l));

			if (!l)
				break;
			q->left = l;
			q->left[q->nleft++] = strdup(e->path);
		}
		pthread_mutex_unlock(&q->mu);
		pthread_detach(q->th);
		q->th = 0;
	}
	return q->nleft;
}

const char *kt_shotpush_left(const struct kt_shotpush *q, size_t i)
{
	return i < q->nleft ? q->left[i] : NULL;
}

size_t kt_shotpush_pushed(const struct kt_shotpush *q)
{
	return q->pushed;
}

void kt_shotpush_free(struct kt_shotpush *q)
{
	size_t i;

	if (!q)
		return;
	if (q->running) {
		/* Not finished, or its thread left running (above). */
		if (!q->closing)
			kt_shotpush_finish(q, 0);
		if (q->running)
			return;
	}
	for (i = 0; i < q->nleft; i++)
		free(q->left[i]);
	free(q->left);
	while (q->head)
		pop(q, true);
	pthread_cond_destroy(&q->done);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	kt_ch_free(q->ch);
	free(q);
}
