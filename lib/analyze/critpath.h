/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze critpath: where a task's time went, its waits followed to whoever
 * ended them, as Trace Compass's critical-path analysis and Perfetto's
 * thread-state critical path compute it.
 *
 * Every task's states over time are built from sched_switch and the
 * wakeups (sched_waking, else sched_wakeup, and sched_wakeup_new), as
 * the task model (taskstate.h) gives their transitions:
 * running (by each CPU's chain of switches, runs.h: the rule every
 * analysis counts run time and missing switches by), runnable (woken or
 * preempted, not yet on a CPU), asleep in S, D or another state, and
 * unknown where records are missing.  A sleep ends at its wakeup, whose
 * waker is the task the record was written in (its common_pid), unless
 * it was written in interrupt context (common_flags' hardirq, softirq or
 * NMI bits: a timer, a device) or by the idle task: then no task woke it.
 *
 * A target's (a task with an event of its own selected: --pid, --comm)
 * time, from its first known state to its exit (a switch out in state X
 * or Z) or the end of the window, is its running, runnable and unknown time, its sleeps that no task
 * ended, and each sleep a task W ended: W's states over that sleep, W's
 * own sleeps followed to their waker in turn, at most KT_CRITPATH_DEPTH
 * tasks deep and always within the target's sleep.  So the time a target
 * waited on a pipeline is given to the stages' running and sleeping.
 *
 * Missing records: where a CPU's chain lacks a switch (the kernel dropped
 * it uncounted), or a task is seen on a CPU while believed off it, or is
 * switched in while asleep with no wakeup seen, the time since the task's
 * last known change is unknown: given to no state of its, never guessed.
 */
#ifndef KT_ANALYZE_CRITPATH_H
#define KT_ANALYZE_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "decode/decoder.h"

/* How many tasks deep a sleep is followed (the target is 1). */
#define KT_CRITPATH_DEPTH 32

enum kt_cp_state {
	KT_CP_RUNNING,
	KT_CP_RUNNABLE,
	KT_CP_SLEEP_S,
	KT_CP_SLEEP_D,
	KT_CP_SLEEP_OTHER,
	KT_CP_UNKNOWN,
	KT_CP_NSTATES,
};

/* "running", "runnable", "sleep-S", "sleep-D", "sleep-other", "unknown". */
const char *kt_critpath_state_name(enum kt_cp_state st);

/* One (task, state) of the targets' time. */
struct kt_critpath_row {
	int pid;
	char comm[32];
	enum kt_cp_state state;
	unsigned long long ns;
};

/* A target: its time from its first known state to the end. */
struct kt_critpath_target {
	int pid;
	char comm[32];
	unsigned long long ns;		/* all of it */
	unsigned long long woken_ns;	/* its sleeps that a task ended */
};

struct kt_critpath_totals {
	unsigned long long switches;
	unsigned long long missing;	/* switches missing (runs.h) */
	unsigned long long lost;	/* events lost in the window */
	bool lost_unknown;
	bool has_switch;		/* the file holds sched_switch */
	bool has_wakeup;		/* ... and some wakeup event */
	unsigned long long ns;		/* the targets' time, summed */
};

struct tep_handle;
struct kt_critpath;

struct kt_critpath *kt_critpath_new(struct tep_handle *tep);
/* A kt_event_fn: feed every record of the decoder, in time order. */
int kt_critpath_add(const struct kt_event *ev, void *arg);
/*
 * After the run: the targets' time given to (task, state) rows, the most
 * first, and the targets (by pid).  The arrays are the analysis's.
 * 0 or -ENOMEM.
 */
int kt_critpath_rows(struct kt_critpath *cp, struct kt_critpath_row ***rows,
		     size_t *n);
int kt_critpath_targets(struct kt_critpath *cp, struct kt_critpath_target **t,
			size_t *n);
/*
 * The same time by path, as folded stacks for flame graphs:
 * "target-tid;waker-tid;...;state", the heaviest first.  fn's non-zero
 * return ends the walk with that value.  0, -ENOMEM or fn's.
 */
int kt_critpath_each_path(struct kt_critpath *cp,
			  int (*fn)(const char *path, unsigned long long ns, void *arg),
			  void *arg);
void kt_critpath_totals(struct kt_critpath *cp, struct kt_critpath_totals *t);
void kt_critpath_free(struct kt_critpath *cp);

#endif
