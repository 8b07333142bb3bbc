/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frames of a kernel_stack record (ftrace's stack events: record -T,
 * --stack EVENT): its caller[] array of return addresses, innermost
 * first, as long as the record is, in the file's long size.  The one
 * reading of that array that report's JSON, folded stacks and the
 * off-CPU analysis share.
 */
#ifndef KT_KSTACK_H
#define KT_KSTACK_H

#include <stdbool.h>

struct tep_handle;
struct tep_event;
struct tep_record;

/* A record holds at most a page of frames. */
#define KT_KSTACK_MAX 1024

/*
 * Read up to max addresses into v.  With stop, the kernel's end mark (a
 * -1, ULONG_MAX, after the last frame) ends the stack.  Returns how many,
 * or -EINVAL when e has no caller array of 4- or 8-byte longs.
 */
int kt_kstack_read(struct tep_handle *tep, struct tep_event *e,
		   struct tep_record *rec, unsigned long long *v, int max,
		   bool stop);

/*
 * The first frame out from the scheduler and the tracing code: what a
 * task switched out with this stack waited in (NULL: no named frame).
 * offcpu's reasons and diff's keys are this one answer.
 */
const char *kt_kstack_reason(struct tep_handle *tep, struct tep_event *e,
			     struct tep_record *rec);

#endif
