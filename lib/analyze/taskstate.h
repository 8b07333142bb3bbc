/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one model of each task's state over time that analyze sched,
 * offcpu and critpath share, built from sched_switch and the wakeups
 * (sched_waking, sched_wakeup, sched_wakeup_new), record by record:
 *
 *   - running from a switch that puts it on a CPU, or from an event of
 *     its own (it is on a CPU then: its switch-in is missing);
 *   - runnable from a switch out in state R or R+ (preempted), or from a
 *     wakeup (woken) while asleep or not yet seen;
 *   - asleep in S, D or another state from a switch out in that state,
 *     until its wakeup, or until it is seen running (switched in, an
 *     event of its own, or switched out again) with no wakeup between;
 *   - unknown until it is first seen.
 *
 * A task seen running while runnable or asleep had its switch-in
 * dropped (some kernels drop sched_switch records uncounted): missed_ins
 * counts them.  Run time and missing switches are each CPU's chain of
 * switches (runs.h), given with each switch out.
 *
 * Each analysis keeps its own numbers: the model calls its change() with
 * every transition before applying it (the task's state, the time it
 * entered it, and the record), and keeps the analysis's own part of each
 * task (ops.size bytes, zeroed when new) behind the model's.  An analysis
 * of the CPUs (analyze cpu) asks for each switch too, whoever it names
 * (the idle task's runs are the CPU's idle time).
 *
 * One model serves several analyses of one file (sql's derived tables):
 * each joins it before the first record and gets its part's offset in
 * each task; the model is fed once, and every analysis sees the same
 * tasks, switches and missing switches, so their answers agree by
 * construction.  An analysis that reads more than the model's events
 * does so in its before() and after() hooks, around the model's own
 * handling of each record.
 */
#ifndef KT_ANALYZE_TASKSTATE_H
#define KT_ANALYZE_TASKSTATE_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>

#include "analyze/pidmap.h"
#include "analyze/runs.h"
#include "decode/decoder.h"

enum kt_task_st {
	KT_TASK_UNKNOWN,		/* not seen yet */
	KT_TASK_RUNNING,
	KT_TASK_RUNNABLE,
	KT_TASK_ASLEEP,
};

/* A task as the model has it (read only to the analyses). */
struct kt_task {
	int pid;
	bool selected;			/* an event of its own was selected */
	bool woken;			/* runnable since a wakeup */
	char sleep;			/* 'S', 'D' or 'O' while asleep */
	enum kt_task_st st;
	unsigned long long since;	/* when it entered st */
	alignas(max_align_t) unsigned char own[];	/* the analysis's part */
};

enum kt_ts_what {
	KT_TS_OUT,			/* a switch takes it off its CPU */
	KT_TS_IN,			/* a switch puts it on one */
	KT_TS_WAKE,			/* a wakeup names it */
	KT_TS_SEEN,			/* an event of its own */
	KT_TS_GONE,			/* its CPU's chain lacks its switch out (runs.h) */
	KT_TS_SWITCH,			/* a switch on cpu, before its tasks' (t NULL) */
};

/* One transition of task t, given before the model applies it. */
struct kt_ts_change {
	enum kt_ts_what what;
	struct kt_task *t;		/* its state before (SWITCH: NULL) */
	unsigned long long ts;
	int cpu;
	struct tep_record *rec;
	struct tep_format_field *comm;	/* OUT, SWITCH prev_comm, IN next_comm, WAKE comm */
	unsigned long long state;	/* OUT, IN, GONE, SWITCH: prev_state */
	const struct kt_run *run;	/* OUT, IN, GONE, SWITCH: the CPU's chain (runs.h) */
	int waker;			/* WAKE: the record's task (common_pid) */
	void *own;			/* the analysis's part of t (SWITCH: NULL) */
};

struct kt_taskstate_totals {
	unsigned long long switches;
	unsigned long long missing;	/* switches missing (runs.h) */
	unsigned long long missed_ins;	/* switch-ins the file lacks */
	unsigned long long lost;	/* events lost in the window */
	bool lost_unknown;
	bool has_switch;		/* the file holds sched_switch */
	bool has_wakeup;		/* ... and some wakeup event */
};

struct kt_taskstate_ops {
	size_t size;			/* of the analysis's part of a task */
	bool wakeups;			/* false: wakeups are only their task's events */
	bool switches;			/* KT_TS_SWITCH too */
	/* Each transition; non-zero ends the record with that value. */
	int (*change)(const struct kt_ts_change *c, void *arg);
	/* Frees what the analysis's part holds (may be NULL). */
	void (*free_own)(void *own);
	/* Each record before and after the model's transitions (may be NULL). */
	int (*before)(const struct kt_event *ev, void *arg);
	int (*after)(const struct kt_event *ev, void *arg);
	void *arg;
};

/* The most analyses one model serves. */
#define KT_TASKSTATE_USERS 4

/* The analysis's part of task t, at the offset kt_taskstate_join() gave. */
static inline void *kt_task_part(struct kt_task *t, size_t off)
{
	return t->own + off;
}

struct tep_handle;
struct kt_taskstate;

/* ops is copied; NULL: a model with no analysis yet, to join. */
struct kt_taskstate *kt_taskstate_new(struct tep_handle *tep,
				      const struct kt_taskstate_ops *ops);
/*
 * Another analysis (ops, copied) on m, before its first record: *off is
 * its part's offset in each task.  0, -EBUSY once m has tasks, -E2BIG
 * past KT_TASKSTATE_USERS.
 */
int kt_taskstate_join(struct kt_taskstate *m, const struct kt_taskstate_ops *ops,
		      size_t *off);
/*
 * An analysis's model: shared joined (the analysis's part at *off), or,
 * when shared is NULL, one of its own on tep's events (*off 0).  NULL +
 * errno.
 */
struct kt_taskstate *kt_taskstate_use(struct tep_handle *tep, struct kt_taskstate *shared,
				      const struct kt_taskstate_ops *ops, size_t *off);
/*
 * Feed every record of the decoder, in time order: the loss it marks,
 * the task it selects, and its transitions.  0, -ENOMEM or change()'s.
 */
int kt_taskstate_add(struct kt_taskstate *m, const struct kt_event *ev);
/* Whether e is kernel_stack or user_stack: written after its event, with its task. */
bool kt_taskstate_is_after(struct tep_event *e);
/* The task of pid, made the first time (NULL: ENOMEM), or found (NULL: none). */
struct kt_task *kt_taskstate_get(struct kt_taskstate *m, int pid);
struct kt_task *kt_taskstate_find(struct kt_taskstate *m, int pid);
/* The tasks (struct kt_task *), for kt_collect_rows() and twalk_r(). */
const struct kt_pidmap *kt_taskstate_tasks(const struct kt_taskstate *m);
void kt_taskstate_totals(const struct kt_taskstate *m, struct kt_taskstate_totals *t);
void kt_taskstate_free(struct kt_taskstate *m);

#endif
