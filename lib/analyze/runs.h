/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each CPU's chain of sched_switch records, the one rule every analysis
 * (sched, cpu, offcpu) and ktrace-sql(1)'s query of it count run time,
 * switches and missing switches by:
 *
 *   - a switch takes its prev_pid off the CPU: that is one switch of
 *     prev_pid's (switches are counted going out, as the records name
 *     them, however many the kernel dropped going in);
 *   - prev_pid ran from the CPU's last switch to this one when that
 *     switch put prev_pid there (next_pid): a run;
 *   - when it put another task there, one or more records between are
 *     missing (the kernel dropped them uncounted, as doctor's
 *     switch_records counts them): the time since is unknown, given to
 *     no task, and counted as one missing switch, prev_pid's;
 *   - before a CPU's first switch, and after a loss marked on any of
 *     its records, who ran is not known: no run, nothing missing.
 */
#ifndef KT_ANALYZE_RUNS_H
#define KT_ANALYZE_RUNS_H

#include <stdbool.h>

enum kt_run_kind {
	KT_RUN_UNKNOWN,		/* the CPU's chain begins (or begins again) */
	KT_RUN_RAN,		/* prev ran from start to end */
	KT_RUN_MISSING,		/* records missing between start and end */
};

struct kt_run {
	enum kt_run_kind kind;
	int prev;			/* the task switched out (0: idle) */
	int cur;			/* who the chain had there, or -1 */
	unsigned long long start, end;	/* start: the chain's last switch */
};

struct kt_runs;

struct kt_runs *kt_runs_new(void);
/* A record on cpu lost events before it (missed_events != 0). */
int kt_runs_loss(struct kt_runs *r, int cpu);
/*
 * Every record's missed_events: a loss is added to *lost (or sets
 * *lost_unknown, of no known size) and begins cpu's chain again
 * (kt_runs_loss).  0 or -ENOMEM.
 */
int kt_runs_record(struct kt_runs *r, int cpu, long long missed,
		   unsigned long long *lost, bool *lost_unknown);
/* A sched_switch on cpu at ts: what it ends, into out.  0 or -ENOMEM. */
int kt_runs_switch(struct kt_runs *r, int cpu, unsigned long long ts, int prev,
		   int next, struct kt_run *out);
void kt_runs_free(struct kt_runs *r);

#endif
