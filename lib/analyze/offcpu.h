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

struct tep_handle;
struct kt_offcpu;

struct kt_offcpu *kt_offcpu_new(struct tep_handle *tep, const char *machine,
				bool by_comm);
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
