// SPDX-License-Identifier: GPL-2.0
/* Counting a recording: see summary.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "decode/select.h"
#include "file/reader.h"
#include "views/summary.h"
#include "file/tracedat.h"

#define NR_IDS 65536

struct ev_acc {
	struct kt_summary_event pub;
	uint64_t *counts;
};

struct kt_summary {
	struct kt_reader *r;
	struct kt_summary_cpu *cpus;
	int ncpus;
	int32_t *slot;		/* event id -> index in evs + 1 */
	unsigned int nslot;	/* entries in slot: grown to the ids seen */
	struct ev_acc *evs;
	int nevs;
	struct kt_summary_lost marks[KT_SUMMARY_MAX_MARKS];
	int nmarks;
	bool window;		/* loss: the marks of a time window only */
	/* Index of the cpu entry for (buffer, cpu): found by a scan. */
};

static void parse_cpustat(struct kt_summary_cpu *c, const char *text)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "entries:", offsetof(struct kt_summary_cpu, st_entries) },
		{ "overrun:", offsetof(struct kt_summary_cpu, st_overrun) },
		{ "commit overrun:", offsetof(struct kt_summary_cpu, st_commit_overrun) },
		{ "bytes:", offsetof(struct kt_summary_cpu, st_bytes) },
		{ "dropped events:", offsetof(struct kt_summary_cpu, st_dropped) },
		{ "read events:", offsetof(struct kt_summary_cpu, st_read) },
		{ KT_CPUSTAT_UNWRITTEN, offsetof(struct kt_summary_cpu, st_unwritten) },
	};
	const char *line = text;
	size_t i;

	c->has_stat = true;
	while (line && *line) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i].key);

			if (!strncmp(line, keys[i].key, n)) {
				*(uint64_t *)((char *)c + keys[i].off) =
					strtoull(line + n, NULL, 10);
				break;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

static struct kt_summary_cpu *find_cpu(struct kt_summary *s, int buf, int cpu)
{
	int i;

	for (i = 0; i < s->ncpus; i++)
		if (s->cpus[i].buffer == buf && s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return NULL;
}

static int count(const struct kt_event *ev, void *arg)
{
	struct kt_summary *s = arg;
	struct tep_record *rec = ev->record;
	struct kt_summary_cpu *c = find_cpu(s, ev->buffer, ev->cpu);
	unsigned int id = (unsigned int)ev->event->id;
	struct ev_acc *e;
	int ci;

	if (!c)
		return 0;
	ci = (int)(c - s->cpus);
	if (rec->missed_events) {
		if (rec->missed_events > 0)
			c->lost += (uint64_t)rec->missed_events;
		else
			c->unknown_marks++;
		c->marks++;
		if (s->nmarks < KT_SUMMARY_MAX_MARKS) {
			struct kt_summary_lost *m = &s->marks[s->nmarks++];

			m->buffer = ev->buffer;
			m->cpu = ev->cpu;
			m->count = rec->missed_events > 0 ? rec->missed_events : -1;
			m->has_after = c->seen > 0;
			m->after_ts = c->seen_ts;
			m->before_ts = rec->ts;
		}
	}
	c->seen++;
	c->seen_ts = rec->ts;
	/* A mark counts for the window; the record only when selected. */
	if (!ev->selected)
		return 0;
	if (!c->events)
		c->first_ts = rec->ts;
	c->last_ts = rec->ts;
	c->events++;
	c->bytes += (uint64_t)(rec->record_size > 0 ? rec->record_size : rec->size);
	if (id >= NR_IDS)
		return 0;
	if (id >= s->nslot) {
		/* A file's ids are few and small: not NR_IDS slots up front. */
		unsigned int want = id + 1 > 2 * s->nslot ? id + 1 : 2 * s->nslot;
		int32_t *ns;

		if (want > NR_IDS)
			want = NR_IDS;
		ns = realloc(s->slot, want * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		memset(ns + s->nslot, 0, (want - s->nslot) * sizeof(*ns));
		s->slot = ns;
		s->nslot = want;
	}
	if (!s->slot[id]) {
		e = realloc(s->evs, sizeof(*e) * (s->nevs + 1));
		if (!e)
			return -ENOMEM;
		s->evs = e;
		e = &s->evs[s->nevs];
		memset(e, 0, sizeof(*e));
		e->counts = calloc(s->ncpus ? s->ncpus : 1, sizeof(*e->counts));
		if (!e->counts)
			return -ENOMEM;
		e->pub.event = ev->event;
		e->pub.first_ts = rec->ts;
		s->slot[id] = ++s->nevs;
	}
	e = &s->evs[s->slot[id] - 1];
	e->pub.total++;
	e->pub.last_ts = rec->ts;
	e->counts[ci]++;
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev_acc *x = a, *y = b;

	/* Most frequent first: what filled the buffer is what matters. */
	if (x->pub.total != y->pub.total)
		return x->pub.total < y->pub.total ? 1 : -1;
	return (x->pub.event->id > y->pub.event->id) -
	       (x->pub.event->id < y->pub.event->id);
}

struct kt_summary *kt_summary_new(struct kt_reader *r)
{
	return kt_summary_new_sel(r, NULL);
}

struct kt_summary *kt_summary_begin(struct kt_reader *r,
				    const struct kt_select *sel)
{
	struct kt_summary *s;
	int b, i, n = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->r = r;
	s->window = sel && kt_select_has_window(sel);
	for (b = 0; b < kt_reader_buffers(r); b++)
		n += kt_reader_streams(r, b);
	s->cpus = calloc(n ? n : 1, sizeof(*s->cpus));
	if (!s->cpus) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	for (b = 0; b < kt_reader_buffers(r); b++) {
		for (i = 0; i < kt_reader_streams(r, b); i++) {
			struct kt_summary_cpu *c = &s->cpus[s->ncpus];
			const char *st;

			if (!kt_select_cpu(sel, kt_reader_stream_cpu(r, b, i)))
				continue;
			s->ncpus++;
			c->buffer = b;
			c->cpu = kt_reader_stream_cpu(r, b, i);
			st = kt_reader_cpustat(r, b, c->cpu);
			if (st)
				parse_cpustat(c, st);
		}
	}
	return s;
}

int kt_summary_add(struct kt_summary *s, const struct kt_event *ev)
{
	return count(ev, s);
}

void kt_summary_end(struct kt_summary *s)
{
	int i;

	/* qsort(NULL, 0, ...) is undefined: a file with no events. */
	if (s->nevs)
		qsort(s->evs, (size_t)s->nevs, sizeof(*s->evs), cmp_ev);
	for (i = 0; i < s->nevs; i++)
		s->evs[i].pub.per_cpu = s->evs[i].counts;
}

struct kt_summary *kt_summary_new_sel(struct kt_reader *r,
				      const struct kt_select *sel)
{
	struct kt_decoder *d;
	struct kt_summary *s;
	int ret;

	s = kt_summary_begin(r, sel);
	if (!s)
		return NULL;
	d = sel ? kt_select_decoder(sel, r) : kt_decoder_new(r, NULL);
	if (!d)
		goto err;
	ret = kt_decoder_run(d, count, s);
	kt_decoder_free(d);
	if (ret) {
		errno = -ret;
		goto err;
	}
	kt_summary_end(s);
	return s;
err:
	ret = errno;
	kt_summary_free(s);
	errno = ret;
	return NULL;
}

void kt_summary_free(struct kt_summary *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nevs; i++)
		free(s->evs[i].counts);
	free(s->evs);
	free(s->cpus);
	free(s->slot);
	free(s);
}

int kt_summary_cpus(const struct kt_summary *s) { return s->ncpus; }
int kt_summary_events(const struct kt_summary *s) { return s->nevs; }
int kt_summary_marks(const struct kt_summary *s) { return s->nmarks; }

const struct kt_summary_cpu *kt_summary_cpu_at(const struct kt_summary *s, int i)
{
	return i >= 0 && i < s->ncpus ? &s->cpus[i] : NULL;
}

const struct kt_summary_event *kt_summary_event_at(const struct kt_summary *s, int i)
{
	return i >= 0 && i < s->nevs ? &s->evs[i].pub : NULL;
}

const struct kt_summary_lost *kt_summary_mark_at(const struct kt_summary *s, int i)
{
	return i >= 0 && i < s->nmarks ? &s->marks[i] : NULL;
}

bool kt_summary_window(const struct kt_summary *s)
{
	return s->window;
}

uint64_t kt_summary_total_lost(const struct kt_summary *s)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < s->ncpus; i++) {
		const struct kt_summary_cpu *c = &s->cpus[i];
		uint64_t rec = c->st_overrun + c->st_dropped;

		if (s->window) {
			n += c->lost;
			continue;
		}
		/* A mark in the data and the overrun count describe the same
		 * loss; take the larger so nothing is counted twice.  Events
		 * the output refused leave no mark: they add. */
		n += (c->lost > rec ? c->lost : rec) + c->st_unwritten;
	}
	return n;
}
