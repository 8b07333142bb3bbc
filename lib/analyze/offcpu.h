/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze offcpu: where tasks spent their time blocked.  A task is off
 * the CPU from a sched_switch that takes it off in a sleeping state (S,
 * D or another; a preempted task, R, is waiting to run, not blocked) to
 * the switch that puts it back.  Each stretch is put down to a reason,
 * where the file tells one: with a kernel stack on that switch (record
 * --stack sched_switch, or -T), the function that called into the
 * scheduler (do_nanosleep, futex_wait_queue, ...); else, with
 * raw_syscalls, the system call the task was in; else none ("-").
 *
 * The states are the task model's (taskstate.h, as analyze sched has
 * them, its wakeups left out: a stretch off ends on a CPU, not at its
 * wakeup).  As in analyze sched, a switch back the kernel dropped is
 * seen by the task's own next event: that stretch ends there (the latest it can),
 * and missed_ins counts them; missing counts the switches the file
 * lacks by runs.h's rule, as analyze sched and cpu count them.
 *
 * Each stretch may be given as it ends (kt_offcpu_on_stretch(): sql's
 * offcpu_slices), with who woke it where the model is asked for the
 * wakeups (wakers): they name the waker, and change no stretch.
 */
#ifndef KT_ANALYZE_OFFCPU_H
#define KT_ANALYZE_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>

#include "decode/decoder.h"

struct kt_off_reason {
	const char *name;		/* the function or syscall, or "-" */
	unsigned long long ns, count;
};

struct kt_off_row {
	int pid;			/* -1 for a row per comm */
	char comm[32];
	unsigned long long s_ns, d_ns, other_ns, count;
	struct kt_off_reason *reasons;	/* the most time first */
	size_t nreasons;
};

struct kt_off_totals {
	unsigned long long missing;	/* switches missing (runs.h) */
	unsigned long long missed_ins;
	unsigned long long lost;
	bool lost_unknown;
	bool has_switch, has_stacks, has_syscalls;
};

/* One stretch off a CPU, as it ends. */
struct kt_off_stretch {
	int pid;
	int cpu;			/* the one it left */
	const char *comm;		/* as it left */
	char state;			/* 'S', 'D' or 'O' (another) */
	const char *reason;		/* NULL: the file does not tell */
	int waker;			/* the wakeup's task, or -1: none seen */
	unsigned long long start, end;
	unsigned long long wake_ts;	/* the first wakeup's, with waker */
};

struct tep_handle;
struct kt_offcpu;
struct kt_taskstate;

/* wakers: the model reads the wakeups too, for kt_off_stretch's waker. */
struct kt_offcpu *kt_offcpu_new(struct tep_handle *tep, const char *machine,
				bool by_comm, bool wakers);
/*
 * The same, with wakers, on model, another's task model (taskstate.h),
 * before its first record; the model's owner feeds it (not
 * kt_offcpu_add()) and frees it after o.
 */
struct kt_offcpu *kt_offcpu_join(struct tep_handle *tep, struct kt_taskstate *model,
				 const char *machine, bool by_comm);
/* fn is given each stretch as it ends; non-zero ends the record with it. */
void kt_offcpu_on_stretch(struct kt_offcpu *o,
			  int (*fn)(const struct kt_off_stretch *s, void *arg), void *arg);
int kt_offcpu_add(const struct kt_event *ev, void *arg);
/*
 * The rows of the tasks whose own events are selected, by key, the most
 * first: "blocked" (the default), "S", "D", "times", or "comm" (A to Z).
 * The array is the analysis's.  -EINVAL for a bad key.
 */
int kt_offcpu_rows(struct kt_offcpu *o, const char *sort,
		   struct kt_off_row ***rows, size_t *n);
void kt_offcpu_totals(const struct kt_offcpu *o, struct kt_off_totals *t);
extern const char *const kt_offcpu_sort_keys;
void kt_offcpu_free(struct kt_offcpu *o);

#endif
