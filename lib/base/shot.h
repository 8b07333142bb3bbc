/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trigger's snapshot, as the session that wrote it hands it to what
 * follows it (record --on-trigger, --push).  In base/ because it goes
 * from live/ (the trigger that fires and writes the file) up to cmd/,
 * which runs the actions (push/ is not live/'s to call).
 *
 * The session calls kt_shot_fn from its own thread once the file is
 * complete under its final name; the callee must not block (it queues
 * or forks, and reaps later): the recording is waiting.
 */
#ifndef KT_SHOT_H
#define KT_SHOT_H

#include <stdint.h>

struct kt_shot {
	const char *path;		/* the trace.dat, under its final name */
	const char *condition;		/* the --trigger text that fired, as given */
	uint64_t fire_ts;		/* the firing event's trace-clock time, ns */
	int64_t fire_realtime_ns;	/* the same moment, ns since the epoch */
	const char *fire_event;		/* the firing event, as report prints it */
	uint64_t first_ts, last_ts;	/* the window the file holds, trace clock */
	uint64_t suppressed;		/* firings held back since the last snapshot */
};

typedef void (*kt_shot_fn)(void *ctx, const struct kt_shot *shot);

#endif
