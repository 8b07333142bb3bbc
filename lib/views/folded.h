/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, what flame graph tools take (flamegraph.pl, inferno,
 * speedscope): one line per distinct stack, "comm;outer;...;inner COUNT",
 * the heaviest first.  The stacks are the file's kernel_stack records
 * (record -T or --stack EVENT) and user_stack records (--user-stack),
 * each one belonging to the event recorded just before it on its CPU, in
 * its buffer; a stack counts only when that event is selected (report's
 * -e, -F, --pid, --comm, --cpu, --from, --to).  An event's user and
 * kernel stacks are one stack, whatever order they came in: its user
 * frames from the outermost in, then its kernel frames to the leaf.
 *
 *   KT_FOLDED_EVENTS  each stack counts 1: where the events fired.
 *   KT_FOLDED_OFFCPU  each stack of a sched_switch counts the time its
 *                     task then stayed off the CPU, in microseconds: from
 *                     that switch to the next one that puts the task back
 *                     (a task still off at the end of the trace counts
 *                     nothing).  comm is the switch's prev_comm.  Where
 *                     that switch is missing (a kernel that dropped it
 *                     uncounted), the task's next event of its own ends
 *                     the time off; missed_ins counts these.
 *
 * Kernel frames are the file's kallsyms names, as trace-cmd prints them
 * (a hexadecimal address where there is none).  User frames are named
 * from the memory maps record --user-stack stored (kt_folded_name_users):
 * the function ("main"); without one, the file's base name and the
 * offset in it ("libc.so.6+0x29d90"); outside every known mapping, or
 * with no maps (trace-cmd's files), the address ("0x7f0a12345678").  A
 * ';' or a space in a name becomes '_'.  The tracing machinery's own
 * frames at the inner end (trace_event_raw_event_*, __traceiter_*,
 * perf_trace_*, __bpf_trace_*), the same in every stack of an event, are
 * left out, as perf leaves them out.
 */
#ifndef KT_FOLDED_H
#define KT_FOLDED_H

#include <stdio.h>

#include "decode/decoder.h"

enum kt_folded_mode {
	KT_FOLDED_EVENTS,
	KT_FOLDED_OFFCPU,
};

struct kt_folded_stats {
	unsigned long long stacks;	/* kernel_stack records counted */
	unsigned long long ustacks;	/* user_stack records counted */
	unsigned long long lost;	/* events lost before records seen */
	bool lost_unknown;		/* a loss of no known size */
	unsigned long long missed_ins;	/* offcpu: switches back in not seen */
};

struct tep_handle;
struct kt_folded;
struct kt_reader;

struct kt_folded *kt_folded_new(struct tep_handle *tep, enum kt_folded_mode mode);
/*
 * Name user frames from the memory maps r holds (decode/ustack.h), if it
 * has user stacks and maps; else they stay addresses.  0, or -errno.
 */
int kt_folded_name_users(struct kt_folded *f, struct kt_reader *r);
/* A kt_event_fn: feed every record of the decoder, in time order. */
int kt_folded_add(const struct kt_event *ev, void *arg);
/*
 * A stack made elsewhere (analyze critpath's "target;waker;...;state"):
 * key, frames outer to inner joined by ';', gets count more.  0 or
 * -ENOMEM.
 */
int kt_folded_put(struct kt_folded *f, const char *key, unsigned long long count);
/*
 * Each distinct stack with its count (not 0), the heaviest first: fn's
 * nonzero return stops the walk and is returned.  0, or -ENOMEM.
 */
typedef int (*kt_folded_fn)(const char *key, unsigned long long count, void *arg);
int kt_folded_each(struct kt_folded *f, kt_folded_fn fn, void *arg);
/* Write the lines to out.  0, or -errno (a write error, ENOMEM). */
int kt_folded_write(struct kt_folded *f, FILE *out);
void kt_folded_stats(const struct kt_folded *f, struct kt_folded_stats *st);
void kt_folded_free(struct kt_folded *f);

#endif
