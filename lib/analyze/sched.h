/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze sched: per task, where its time went and how long it waited to
 * run once woken, from sched_switch and sched_waking / sched_wakeup /
 * sched_wakeup_new, whichever the file holds.
 *
 * Each task's state is the task model's (taskstate.h, shared with analyze
 * offcpu and critpath).  A task is running from the switch that puts it
 * on a CPU to the one that takes it off, by the CPU's chain of switches
 * (runs.h: the rule analyze cpu and offcpu count run time, switches and
 * missing switches by); runnable from a wakeup (or a preemption, prev_state R) to
 * the next switch-in; asleep from a switch-out in state S, D or another
 * to its wakeup.  The wakeup latency is wakeup to switch-in; sched_waking
 * (where the file has it) is the wakeup, else sched_wakeup.  Preempted
 * waits count in the wait time, not in the latency, as perf sched
 * latency counts them.
 *
 * Missing switches: some kernels drop sched_switch records without
 * counting them (doctor's switch_records).  A task seen running while
 * believed runnable or asleep (an event of its own, or a switch-out) had
 * its switch-in dropped: that wait is not counted, and missed_ins says
 * how many there were; a sleep ends there, the latest it can, as analyze
 * offcpu ends it, so a file without wakeups (record --for offcpu) gives
 * each task the time offcpu gives it blocked.
 */
#ifndef KT_ANALYZE_SCHED_H
#define KT_ANALYZE_SCHED_H

#include <stdbool.h>

#include "analyze/dist.h"
#include "analyze/taskstate.h"
#include "decode/decoder.h"

enum kt_sched_by {
	KT_SCHED_BY_TASK,
	KT_SCHED_BY_COMM,
	KT_SCHED_BY_PROCESS,		/* threads under their process */
};

struct kt_sched_row {
	int pid;			/* the task's; by process the tgid */
	int threads;			/* tasks in the row (by comm, process) */
	char comm[32];
	unsigned long long switches;	/* switch-outs */
	unsigned long long missing;	/* runs whose start is missing (runs.h) */
	unsigned long long run_ns;
	unsigned long long wait_ns;	/* runnable, not running */
	unsigned long long sleep_s_ns;	/* asleep in state S */
	unsigned long long sleep_d_ns;	/* in state D */
	unsigned long long sleep_other_ns;
	struct kt_dist lat;		/* wakeup latencies */
};

struct tep_handle;
struct kt_sched;
struct kt_taskstate;
struct kt_tgidmap;

/* tg: thread to process, for KT_SCHED_BY_PROCESS; kept, not copied. */
struct kt_sched *kt_sched_new(struct tep_handle *tep, enum kt_sched_by by,
			      const struct kt_tgidmap *tg);
/*
 * The same on model, another's task model (taskstate.h), before its
 * first record; the model's owner feeds it and frees it after s.
 */
struct kt_sched *kt_sched_join(struct kt_taskstate *model, enum kt_sched_by by,
			       const struct kt_tgidmap *tg);
/*
 * A kt_event_fn: feed every record of the decoder, in time order (not
 * on a joined model: its owner feeds it).
 */
int kt_sched_add(const struct kt_event *ev, void *arg);

/* One wakeup latency, as the rows count it (sql's wakeups table). */
struct kt_sched_wakeup {
	int pid;
	const char *comm;		/* at the switch-in */
	unsigned long long wake_ts;	/* the wakeup */
	unsigned long long run_ts;	/* the switch onto a CPU */
	int cpu;			/* of the switch-in */
};
/*
 * fn(w, arg) for each wakeup latency as kt_sched_add() counts it; its
 * non-zero return ends the pass with that value.
 */
void kt_sched_on_wakeup(struct kt_sched *s,
			int (*fn)(const struct kt_sched_wakeup *w, void *arg), void *arg);
/*
 * The rows (tasks that ran, waited or slept in the window; the idle task
 * left out), sorted by key, the largest first: "run" (the default),
 * "wait", "sleep", "switches", "max", "p99", "mean", "wakeups", or
 * "comm" (A to Z).  The array is the analysis's.  -EINVAL for a bad key.
 */
int kt_sched_rows(struct kt_sched *s, const char *sort,
		  struct kt_sched_row ***rows, size_t *n);
/* Its totals are the task model's (taskstate.h). */
void kt_sched_totals(const struct kt_sched *s, struct kt_taskstate_totals *t);
extern const char *const kt_sched_sort_keys;
void kt_sched_free(struct kt_sched *s);

#endif
