// SPDX-License-Identifier: GPL-2.0
/*
 * A test driver for the trigger conditions (lib/live/trigger/watch.c)
 * without tracefs: a stored trace.dat's records, merged in time order
 * by the decoder, go through kt_watch as the trigger sink hands it a
 * recording's; each firing is printed on a line of its own:
 *
 *   COND<TAB>PID<TAB>SINCE<TAB>TS<TAB>NS<TAB>WHAT
 *
 * (SINCE and TS in trace-clock ns, NS = TS - SINCE), then one line
 * "COND<TAB>N" per condition: its firings.
 *
 *   trigger-replay [-c MS] FILE COND...
 *
 * -c MS hands the records over as the sink reads them: MS ms of them at
 * a time, CPU by CPU (each CPU's in time order, a later CPU's older
 * ones after an earlier CPU's newer ones), not merged; the held waits
 * are asked for after each stretch, as the sink asks after each flush.
 *
 * Exit status: 0, 1 (the file), 64 (usage or a bad condition).
 * `make unit` builds it, with the sanitizers, as
 * build/asan/unit/trigger-replay; tests/bats/trigger-replay.bats runs it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "file/reader.h"
#include "live/trigger/cond.h"
#include "live/trigger/watch.h"

struct replay {
	struct kt_watch *w;
	const struct kt_cond *conds;
	unsigned long *count;
	/* -c: the records of the current stretch, copied */
	unsigned long long chunk, start;
	struct tep_record *held;
	size_t n, size;
};

static void print(struct replay *r, const struct kt_fire *f)
{
	r->count[f->cond]++;
	printf("%s\t%d\t%llu\t%llu\t%llu\t%s\n", r->conds[f->cond].text, f->pid,
	       (unsigned long long)f->since, (unsigned long long)f->ts,
	       (unsigned long long)(f->ts - f->since), f->what);
}

/* The waits that held before now, every record before it given. */
static void next(struct replay *r, uint64_t now)
{
	struct kt_fire f;

	while (kt_watch_next(r->w, now, &f))
		print(r, &f);
}

static void feed(struct replay *r, struct tep_record *rec)
{
	struct kt_fire f;

	if (kt_watch_record(r->w, rec, &f))
		print(r, &f);
}

static int by_cpu(const void *a, const void *b)
{
	const struct tep_record *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The stretch held, CPU by CPU. */
static void flush(struct replay *r)
{
	size_t i;

	if (!r->n)
		return;
	qsort(r->held, r->n, sizeof(*r->held), by_cpu);
	for (i = 0; i < r->n; i++) {
		feed(r, &r->held[i]);
		free(r->held[i].data);
	}
	r->n = 0;
}

static int one(const struct kt_event *ev, void *arg)
{
	struct replay *r = arg;
	struct tep_record *rec = ev->record, *held;

	if (!r->chunk) {
		next(r, rec->ts);
		feed(r, rec);
		return 0;
	}
	if (r->n && rec->ts >= r->start + r->chunk) {
		flush(r);
		next(r, r->start + r->chunk);
	}
	if (!r->n)
		r->start = rec->ts;
	if (r->n == r->size) {
		r->size = r->size ? r->size * 2 : 256;
		held = realloc(r->held, r->size * sizeof(*held));
		if (!held)
			return -ENOMEM;
		r->held = held;
	}
	held = &r->held[r->n];
	memset(held, 0, sizeof(*held));
	held->ts = rec->ts;
	held->cpu = rec->cpu;
	held->size = rec->size;
	held->data = malloc(rec->size > 0 ? rec->size : 1);
	if (!held->data)
		return -ENOMEM;
	memcpy(held->data, rec->data, rec->size > 0 ? rec->size : 0);
	r->n++;
	return 0;
}

int main(int argc, char **argv)
{
	struct kt_decoder_opts opts = { 0 };
	struct kt_decoder *d = NULL;
	struct kt_reader *rd = NULL;
	struct replay r = { 0 };
	struct kt_cond *conds;
	char why[512];
	int i, a = 1, n, ret = 1;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		r.chunk = strtoull(argv[2], NULL, 10) * 1000000ULL;
		a = 3;
	}
	n = argc - a - 1;
	if (n < 1) {
		fprintf(stderr, "usage: trigger-replay [-c MS] FILE COND...\n");
		return 64;
	}
	conds = calloc(n, sizeof(*conds));
	r.count = calloc(n, sizeof(*r.count));
	if (!conds || !r.count)
		return 1;
	for (i = 0; i < n; i++)
		if (kt_cond_parse(argv[a + 1 + i], &conds[i], why, sizeof(why))) {
			fprintf(stderr, "trigger-replay: bad condition '%s': %s\n",
				argv[a + 1 + i], why);
			ret = 64;
			goto out;
		}
	r.conds = conds;
	rd = kt_reader_open(argv[a]);
	if (!rd)
		goto out;
	d = kt_decoder_new(rd, &opts);
	if (!d)
		goto out;
	why[0] = '\0';
	r.w = kt_watch_new(kt_reader_tep(rd), conds, n, why, sizeof(why));
	if (!r.w) {
		fprintf(stderr, "trigger-replay: %s\n", *why ? why : strerror(errno));
		goto out;
	}
	if (kt_decoder_run(d, one, &r))
		goto out;
	flush(&r);
	next(&r, UINT64_MAX);
	for (i = 0; i < n; i++)
		printf("%s\t%lu\n", conds[i].text, r.count[i]);
	ret = 0;
out:
	for (i = 0; i < (int)r.n; i++)
		free(r.held[i].data);
	free(r.held);
	kt_watch_free(r.w);
	kt_decoder_free(d);
	kt_reader_close(rd);
	free(r.count);
	free(conds);
	return ret;
}
