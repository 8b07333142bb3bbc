// SPDX-License-Identifier: GPL-2.0
/*
 * watch-replay FILE COND...: every record of the recording FILE, in time
 * order, through lib/live/trigger/watch.c's conditions COND (as `record
 * --trigger` gives them, without the sink's cooldown and merging); one
 * line per firing, "COND pid PID TOOK_NS", then "firings N".  A stored
 * recording gives the exact known firings (tests/bats/trigger.bats).
 */
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
	long firings;
};

static int one(const struct kt_event *ev, void *arg)
{
	struct replay *r = arg;
	struct kt_fire f;

	if (kt_watch_record(r->w, ev->record, &f) != 1)
		return 0;
	r->firings++;
	printf("%s pid %d %llu\n", r->conds[f.cond].text, f.pid,
	       (unsigned long long)(f.ts - f.since));
	return 0;
}

int main(int argc, char **argv)
{
	struct kt_decoder_opts o = { 0 };
	struct replay r = { 0 };
	struct kt_cond *conds;
	struct kt_decoder *d;
	struct kt_reader *rd;
	char why[512];
	int i, n = argc - 2, ret = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: watch-replay FILE COND...\n");
		return 2;
	}
	conds = calloc(n, sizeof(*conds));
	if (!conds)
		return 2;
	for (i = 0; i < n; i++)
		if (kt_cond_parse(argv[i + 2], &conds[i], why, sizeof(why))) {
			fprintf(stderr, "bad condition '%s': %s\n", argv[i + 2], why);
			free(conds);
			return 2;
		}
	rd = kt_reader_open(argv[1]);
	if (!rd) {
		free(conds);
		return 2;
	}
	why[0] = '\0';
	r.w = kt_watch_new(kt_reader_tep(rd), conds, n, why, sizeof(why));
	r.conds = conds;
	d = r.w ? kt_decoder_new(rd, &o) : NULL;
	if (d && !kt_decoder_run(d, one, &r)) {
		printf("firings %ld\n", r.firings);
		ret = 0;
	} else {
		fprintf(stderr, "watch-replay: cannot replay '%s' %s\n", argv[1], why);
	}
	kt_decoder_free(d);
	kt_watch_free(r.w);
	kt_reader_close(rd);
	free(conds);
	return ret;
}
