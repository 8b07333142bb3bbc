/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stacks of a Perfetto trace (views/perfetto.h): each kernel_stack
 * or user_stack record as a PerfSample of its thread at its time, its
 * callstack interned as Perfetto's profilers intern theirs (function
 * names, mappings, frames and callstacks, each given an iid once, in the
 * InternedData of the packet that first uses it, on ktrace's one packet
 * sequence).  Kernel frames are named from the file's kallsyms, in the
 * mapping "[kernel.kallsyms]" at their address; user frames from the maps
 * record --user-stack stored (decode/ustack.h), in the mapping of their
 * file at their offset, or bare addresses in "[unknown]".
 */
#ifndef KT_PFSTACK_H
#define KT_PFSTACK_H

#include <stdbool.h>
#include <stdio.h>

struct kt_event;
struct kt_ustack;
struct tep_event;
struct tep_handle;
struct kt_pfstack;

/* u: the user stacks' maps, or NULL (their frames stay addresses). */
struct kt_pfstack *kt_pfstack_new(struct tep_handle *tep, struct kt_ustack *u);
void kt_pfstack_free(struct kt_pfstack *s);
/* Whether e is ftrace's kernel_stack or user_stack. */
bool kt_pfstack_is_stack(const struct tep_event *e);
/*
 * The stack record ev as a packet of thread tid of process tgid, to out.
 * A stack of no frames writes nothing.  0, or -errno.
 */
int kt_pfstack_write(struct kt_pfstack *s, const struct kt_event *ev, int tgid,
		     int tid, FILE *out);

#endif
