/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One instance's live tracing state, read once: what ktrace stat
 * shows.  Plain data, filled by kt_trace_state_read().
 */
#ifndef KT_TRACE_STATE_H
#define KT_TRACE_STATE_H

#include <stdbool.h>
#include <tracefs.h>

#include "live/tracefs/tracefs.h"

struct kt_trace_state_event {
	char *system;
	char *name;
	char *filter;		/* NULL when the event has none */
};

struct kt_trace_state {
	char *name;		/* NULL for the top-level buffer */
	int tracing_on;		/* 1, 0, or -1 when unreadable */
	char *tracer;		/* current_tracer, NULL when unreadable */
	char *clock;		/* trace_clock in use, NULL when unreadable */
	size_t nevents;
	/* enabled events, set_event order */
	struct kt_trace_state_event *events;
	int ncpus;
	struct kt_cpu_stats *cpu;	/* per CPU; zeroes when unreadable */
	unsigned long long *buffer_kb;	/* per CPU buffer_size_kb */
	struct kt_cpu_stats total;	/* sums over CPUs (timestamps unset) */
};

/*
 * Read the state of inst (NULL: the top-level buffer).  Returns 0 or
 * -errno (-ENOENT when the instance went away meanwhile).
 */
int kt_trace_state_read(struct tracefs_instance *inst,
			struct kt_trace_state **out);
void kt_trace_state_free(struct kt_trace_state *st);

/* Events lost on one CPU's stats: overwritten, commit overruns, dropped. */
unsigned long long kt_cpu_stats_lost(const struct kt_cpu_stats *cs);

#endif
