/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The durations ktrace diff compares, from one recording, each under a
 * key (a kind and a name):
 *
 *   task     each run on a CPU of a task (switch-in to switch-out), by
 *            comm: count is its switches, total its run time;
 *   syscall  each system call, entry to exit of the same task, by call
 *            (raw_syscalls, or syscalls:sys_enter_NAME/sys_exit_NAME);
 *   offcpu   each stretch a task was blocked (a switch-out in a sleeping
 *            state to the switch back in), by reason: the first function
 *            out of the scheduler on the switch's kernel stack where the
 *            file holds stacks, else the wait kind, the state and the
 *            system call the task was in ("S futex", "D fsync", "S");
 *   irq      each hard-irq handler, entry to exit, by handler name;
 *   softirq  each softirq, entry to exit, by vector (TIMER, RCU, ...).
 *
 * What the file cannot support is not counted: a run or a stretch whose
 * switch is missing (the kernel dropped it uncounted), a call whose entry
 * is not in the file, an interrupt across a loss.  In a recording of
 * some tasks only (record -c, -F, -P: own_only) that holds events other
 * than switches, task, offcpu and syscall samples are those of the tasks
 * with events of their own, not of the others its switches name (their
 * runs and stretches are seen only in part).
 */
#ifndef KT_DIFF_SAMPLES_H
#define KT_DIFF_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include "decode/decoder.h"

enum kt_diff_kind {
	KT_DIFF_TASK,
	KT_DIFF_SYSCALL,
	KT_DIFF_OFFCPU,
	KT_DIFF_IRQ,
	KT_DIFF_SOFTIRQ,
	KT_DIFF_NKINDS,
};

/* "task", "syscall", "offcpu", "irq", "softirq". */
const char *kt_diff_kind_name(enum kt_diff_kind k);

/*
 * What a file holds, a bit per kind of input: the events its formats
 * say were recorded (whether or not a record of them came), or, for
 * stacks, kernel stacks seen on switches.
 */
enum {
	KT_DIFF_HAS_SWITCH = 1u << 0,
	KT_DIFF_HAS_STACKS = 1u << 1,	/* kernel stacks on switches */
	KT_DIFF_HAS_SYSCALLS = 1u << 2,
	KT_DIFF_HAS_IRQ = 1u << 3,
	KT_DIFF_HAS_SOFTIRQ = 1u << 4,
};

/*
 * One key's durations, in ns, sorted from the shortest; and the same
 * durations in two halves by time, half[0] the first n / 2 to end, each
 * sorted.  dev: the time of them spent blocked in D (uninterruptible:
 * waiting for a device, mostly): all of an offcpu stretch in D, the D
 * stretches inside a system call.  block: the total of the durations
 * that ended in each sixteenth of the time from the file's first
 * duration's end to its last.
 */
#define KT_DIFF_BLOCKS	24

struct kt_sample_set {
	enum kt_diff_kind kind;
	const char *name;
	const unsigned long long *v;
	size_t n;
	unsigned long long sum, dev;
	const unsigned long long *half[2];
	size_t nhalf[2];
	unsigned long long block[KT_DIFF_BLOCKS];
};

struct tep_handle;
struct kt_samples;

/* machine: the file's ("x86_64"), for system call names. */
struct kt_samples *kt_samples_new(struct tep_handle *tep, const char *machine,
				  bool own_only);
/* A kt_event_fn: feed every record of the decoder, in time order. */
int kt_samples_add(const struct kt_event *ev, void *arg);
/*
 * After the last record: the sets, by kind then name.  The array and
 * what it points to are the collector's.  0 or -ENOMEM.
 */
int kt_samples_sets(struct kt_samples *s, const struct kt_sample_set **sets,
		    size_t *n);
/* KT_DIFF_HAS_* bits. */
unsigned int kt_samples_has(const struct kt_samples *s);
/* Events lost in the file; *unknown when a loss of no known size. */
unsigned long long kt_samples_lost(const struct kt_samples *s, bool *unknown);
void kt_samples_free(struct kt_samples *s);

#endif
