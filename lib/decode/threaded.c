// SPDX-License-Identifier: GPL-2.0
/* The decoder in a thread of its own, its records handed over in batches. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "decode/threaded.h"
#include "file/reader.h"

/* A batch: records copied out of their pages, which the decoder reuses. */
#define BATCH_RECS	2048
#define BATCH_DATA	(128u << 10)
/* Batches in flight (about 2 MB): the decoder fills one while fn takes another. */
#define NBATCH		8
/*
 * A side that waits sleeps until half the batches are there for it (or
 * the end): a sleep is two context switches, so they come once every
 * NBATCH / 2 batches, not at each one (a report of 3 M records: 5400
 * context switches with a wake-up at each batch of 4096, 830 so).
 */
#define WAKE		(NBATCH / 2)
/* Zeroed bytes after the last record, as a stream's window has. */
#define DATA_SLACK	16

/* 48 bytes: every byte of it crosses from one CPU's cache to the other's. */
struct rec {
	struct tep_event *event;
	unsigned long long ts;
	unsigned long long offset;
	uint32_t data;		/* in the batch's data */
	int size;
	int record_size;
	int cpu;
	int buffer;
	uint8_t flags;
};

#define REC_SELECTED	1
#define REC_MISSED	2	/* missed[i] holds the events lost before it */

struct batch {
	struct rec *recs;
	long long *missed;	/* by record, set only where REC_MISSED */
	int n;
	unsigned char *data;
	size_t len, cap;
};

struct handoff {
	struct kt_decoder *d;
	pthread_mutex_t lock;
	pthread_cond_t more;	/* fn's side waits here for batches */
	pthread_cond_t room;	/* the decoder waits here for free ones */
	bool fn_waits, dec_waits;
	struct batch b[NBATCH];
	/* Batch k lives in b[k % NBATCH]; the decoder fills b[produced]. */
	unsigned long produced, consumed;
	bool done;		/* the decoder has returned ret */
	bool cancel;		/* fn stopped: the decoder stops too */
	int ret;
	/* By event id: 1 + the end of its last field; 0: not yet known. */
	uint16_t *ends;
};

static int batch_room(struct batch *b, size_t want)
{
	unsigned char *p;
	size_t cap;

	if (b->cap - b->len >= want + DATA_SLACK)
		return 0;
	cap = b->len + want + DATA_SLACK;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

/* Hand the filled batch over; wait for a free one.  0 or -ECANCELED. */
static int publish(struct handoff *h)
{
	int ret = 0;

	pthread_mutex_lock(&h->lock);
	h->produced++;
	if (h->fn_waits && h->produced - h->consumed >= WAKE)
		pthread_cond_signal(&h->more);
	if (!h->cancel && h->produced - h->consumed >= NBATCH) {
		h->dec_waits = true;
		while (!h->cancel && h->produced - h->consumed > NBATCH - WAKE)
			pthread_cond_wait(&h->room, &h->lock);
		h->dec_waits = false;
	}
	if (h->cancel)
		ret = -ECANCELED;
	pthread_mutex_unlock(&h->lock);
	if (!ret) {
		struct batch *b = &h->b[h->produced % NBATCH];

		b->n = 0;
		b->len = 0;
	}
	return ret;
}

/*
 * How many bytes past a record libtraceevent may read, from those that
 * follow it in the page: a record shorter than its format (kernel_stack
 * with 7 of its caller[8] frames, which the decoder lets through) is
 * printed by --raw to the declared end, and a "char buf[]" of no size
 * (ftrace's raw_data) as a string, to the next NUL wherever that is.
 * The copy takes those bytes too, up to the KT_STREAM_SLACK bytes a page
 * guarantees, so that the text is the serial one.
 */
#define ENDS_OPEN	0x8000	/* a field of size 0: read to a NUL */

static size_t past_end(struct handoff *h, struct tep_event *e,
		       const unsigned char *data, size_t size)
{
	struct tep_format_field *f;
	unsigned int end = 0;
	size_t past = 0, n;
	uint16_t *slot;

	if (!h->ends || e->id < 0 || e->id > 65535)
		return 0;
	slot = &h->ends[e->id];
	if (!*slot) {
		uint16_t open = 0;

		for (f = e->format.fields; f; f = f->next) {
			if (f->offset < 0 || f->size < 0)
				continue;
			if ((unsigned int)(f->offset + f->size) > end)
				end = (unsigned int)(f->offset + f->size);
			/*
			 * An open array, or a string whose NUL may lie past
			 * its length (an empty __data_loc at the record's
			 * end is printed to the next NUL in the page).
			 */
			if (!f->size || (f->flags & TEP_FIELD_IS_DYNAMIC))
				open = ENDS_OPEN;
		}
		*slot = (uint16_t)(open | (1 + (end < 0x7ffe ? end : 0x7ffe)));
	}
	end = (*slot & ~ENDS_OPEN) - 1u;
	if (end > size)
		past = end - size;
	if (*slot & ENDS_OPEN) {
		n = strnlen((const char *)data + size, KT_STREAM_SLACK) + 1;
		if (n > past)
			past = n;
	}
	return past < KT_STREAM_SLACK ? past : KT_STREAM_SLACK;
}

/* The decoder's callback, in the decoder's thread: copy the record. */
static int collect(const struct kt_event *ev, void *arg)
{
	struct handoff *h = arg;
	struct batch *b = &h->b[h->produced % NBATCH];
	const struct tep_record *rec = ev->record;
	size_t size = rec->size > 0 ? (size_t)rec->size : 0;
	uintptr_t src = (uintptr_t)rec->data;
	size_t at, past = past_end(h, ev->event, rec->data, size);
	struct rec *r;
	int ret;

	if (b->n == BATCH_RECS ||
	    (b->n && b->cap - b->len < size + past + 8 + DATA_SLACK)) {
		ret = publish(h);
		if (ret)
			return ret;
		b = &h->b[h->produced % NBATCH];
	}
	/* The same alignment as in the page, for libtraceevent's loads. */
	at = (b->len + 7) & ~(size_t)7;
	at += src & 7;
	if (batch_room(b, at - b->len + size + past))
		return -ENOMEM;
	memcpy(b->data + at, rec->data, size + past);
	/* The next record may overwrite what lies past this one: a copy. */
	b->len = at + size + past;
	r = &b->recs[b->n++];
	r->event = ev->event;
	r->ts = rec->ts;
	r->offset = rec->offset;
	r->data = (uint32_t)at;
	r->size = rec->size;
	r->record_size = rec->record_size;
	r->buffer = ev->buffer;
	r->cpu = ev->cpu;
	r->flags = ev->selected ? REC_SELECTED : 0;
	if (rec->missed_events) {
		r->flags |= REC_MISSED;
		b->missed[b->n - 1] = rec->missed_events;
	}
	return 0;
}

static void *decode_thread(void *arg)
{
	struct handoff *h = arg;
	int ret = kt_decoder_run(h->d, collect, h);

	pthread_mutex_lock(&h->lock);
	/* The last batch, partly filled (an empty one costs nothing). */
	if (ret != -ECANCELED)
		h->produced++;
	h->done = true;
	h->ret = ret == -ECANCELED && h->cancel ? 0 : ret;
	pthread_cond_signal(&h->more);
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Call fn for each record of batch b, as the decoder would have. */
static int replay(struct batch *b, kt_event_fn fn, void *arg)
{
	struct tep_record rec = { .ref_count = 1, .locked = 1 };
	struct kt_event ev = { .record = &rec };
	int i, ret;

	memset(b->data + b->len, 0, DATA_SLACK);
	for (i = 0; i < b->n; i++) {
		const struct rec *r = &b->recs[i];

		rec.ts = r->ts;
		rec.offset = r->offset;
		rec.missed_events = r->flags & REC_MISSED ? b->missed[i] : 0;
		rec.record_size = r->record_size;
		rec.size = r->size;
		rec.data = b->data + r->data;
		rec.cpu = r->cpu;
		ev.event = r->event;
		ev.buffer = r->buffer;
		ev.cpu = r->cpu;
		ev.selected = r->flags & REC_SELECTED;
		ret = fn(&ev, arg);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void handoff_free(struct handoff *h)
{
	int i;

	for (i = 0; i < NBATCH; i++) {
		free(h->b[i].recs);
		free(h->b[i].missed);
		free(h->b[i].data);
	}
	free(h->ends);
	pthread_cond_destroy(&h->more);
	pthread_cond_destroy(&h->room);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

int kt_decoder_run_threaded(struct kt_decoder *d, kt_event_fn fn, void *arg)
{
	struct handoff *h = calloc(1, sizeof(*h));
	int i, ret = 0, fret = 0;
	pthread_t tid;

	if (!h)
		return kt_decoder_run(d, fn, arg);
	h->d = d;
	h->ends = calloc(65536, sizeof(*h->ends));
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->more, NULL);
	pthread_cond_init(&h->room, NULL);
	for (i = 0; i < NBATCH; i++) {
		h->b[i].recs = malloc(BATCH_RECS * sizeof(*h->b[i].recs));
		h->b[i].missed = malloc(BATCH_RECS * sizeof(*h->b[i].missed));
		h->b[i].data = malloc(BATCH_DATA + DATA_SLACK);
		h->b[i].cap = BATCH_DATA + DATA_SLACK;
		if (!h->b[i].recs || !h->b[i].missed || !h->b[i].data)
			goto serial;
	}
	if (pthread_create(&tid, NULL, decode_thread, h))
		goto serial;
	for (;;) {
		struct batch *b;

		pthread_mutex_lock(&h->lock);
		if (h->consumed == h->produced && !h->done) {
			h->fn_waits = true;
			while (h->produced - h->consumed < WAKE && !h->done)
				pthread_cond_wait(&h->more, &h->lock);
			h->fn_waits = false;
		}
		if (h->consumed == h->produced) {
			pthread_mutex_unlock(&h->lock);
			break;
		}
		pthread_mutex_unlock(&h->lock);
		b = &h->b[h->consumed % NBATCH];
		fret = replay(b, fn, arg);
		pthread_mutex_lock(&h->lock);
		if (fret)
			h->cancel = true;
		else
			h->consumed++;
		if (h->dec_waits && (h->cancel || h->produced - h->consumed <= NBATCH - WAKE))
			pthread_cond_signal(&h->room);
		pthread_mutex_unlock(&h->lock);
		if (fret)
			break;
	}
	pthread_join(tid, NULL);
	ret = fret ? fret : h->ret;
	handoff_free(h);
	return ret;
serial:
	handoff_free(h);
	return kt_decoder_run(d, fn, arg);
}

bool kt_threaded_pays(const struct kt_reader *r)
{
	uint64_t bytes = 0;
	cpu_set_t set;
	double load;
	int b, i, ncpu;

	for (b = 0; b < kt_reader_buffers(r); b++)
		for (i = 0; i < kt_reader_streams(r, b); i++)
			bytes += kt_reader_stream_bytes(r, b, i);
	if (bytes < KT_THREADED_MIN_BYTES)
		return false;
	ncpu = sched_getaffinity(0, sizeof(set), &set) ? (int)sysconf(_SC_NPROCESSORS_ONLN) :
	       CPU_COUNT(&set);
	if (ncpu < 2)
		return false;
	return getloadavg(&load, 1) != 1 || ncpu - load > 1.5;
}
