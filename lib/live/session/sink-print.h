/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live decoder of a session (`ktrace stream`), a live sink
 * (sink.h): every CPU's buffer is polled (buffer_percent 0: any event
 * wakes it); each wake-up decodes what is committed on every CPU, merged
 * in time order (livestream.h says how far the order holds), with
 * ktrace.ko's pages when its events are streamed, and prints it with
 * report's line format.  The mapped ring buffer is read in place where
 * the kernel has it (6.10+).  Task names are learned as events name
 * pids: /proc while the task lives, then COMMAND's own name, then
 * saved_cmdlines.
 */
#ifndef KT_SINK_PRINT_H
#define KT_SINK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "live/session/sink.h"

struct kt_print_sink;

extern const struct kt_sink_ops kt_print_sink_ops;

struct kt_print_sink_opts {
	bool json;			/* one object per line, else text */
	bool nsec;			/* timestamps in nanoseconds */
	const char *clock;		/* the instance's trace clock, or NULL */
	FILE *out;			/* flushed after every round */
	/* out is a pipe or a socket: its reader leaving stops the session. */
	bool out_is_pipe;
};

/* NULL + errno. */
struct kt_print_sink *kt_print_sink_new(const struct kt_print_sink_opts *o);

/* What the session printed and lost, after kt_session_finish(). */
struct kt_print_summary {
	unsigned long long events;
	unsigned long long lost;	/* by the counters or the pages' marks */
	bool unknown;			/* some lost events were not counted */
	int ncpus;
	int mapped;			/* CPUs whose buffer was read in place */
};

void kt_print_sink_summary(const struct kt_print_sink *p,
			   struct kt_print_summary *sum);
/* One CPU's losses by the counters: overwritten (overrun), dropped. */
void kt_print_sink_cpu_loss(const struct kt_print_sink *p, int cpu,
			    unsigned long long *overrun,
			    unsigned long long *dropped);

#endif
