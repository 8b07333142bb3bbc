/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One CPU's FtraceEventBundle of a Perfetto trace (views/perfetto.h),
 * as traced_probes writes them: the CPU's events in time order, with
 * sched_switch and sched_waking in the compact form (CompactSched:
 * arrays of their fields, timestamps as deltas, comms interned in the
 * bundle's table) and the rest as FtraceEvents.  Written when full as
 * a packet of its own: a Trace of one TracePacket, packed by protobuf-c
 * (a file of such Traces, one after another, is one Trace).
 */
#ifndef KT_PFBUNDLE_H
#define KT_PFBUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "views/perfetto_trace.pb-c.h"

struct kt_pfarena;
struct kt_pfbundle;

/* Events a bundle holds before it is written. */
#define KT_PFBUNDLE_EVENTS 2048

struct kt_pfbundle *kt_pfbundle_new(unsigned int cpu);
void kt_pfbundle_free(struct kt_pfbundle *b);
/* Where the bundle's messages and strings go, until it is written. */
struct kt_pfarena *kt_pfbundle_arena(struct kt_pfbundle *b);
/* A new FtraceEvent at the end of the bundle; NULL with no memory. */
Perfetto__Protos__FtraceEvent *kt_pfbundle_event(struct kt_pfbundle *b);
/*
 * A generic event's descriptor, which the bundle holds once (traced_probes
 * writes those of a bundle's events in it); it outlives the bundle's
 * writing.  0 or -ENOMEM.
 */
int kt_pfbundle_describe(struct kt_pfbundle *b,
			 const Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor *ged);
/* A sched_switch, compact: what the switch gives of the next task. */
int kt_pfbundle_switch(struct kt_pfbundle *b, uint64_t ts, int64_t prev_state,
		       int32_t next_pid, int32_t next_prio, const char *next_comm);
/* A sched_waking, compact. */
int kt_pfbundle_waking(struct kt_pfbundle *b, uint64_t ts, int32_t pid,
		       int32_t target_cpu, int32_t prio, const char *comm,
		       uint32_t common_flags);
/* Events were lost before the next one: the bundle says so. */
void kt_pfbundle_lost(struct kt_pfbundle *b);
/* How many events it holds. */
size_t kt_pfbundle_count(const struct kt_pfbundle *b);
/* Write it (if it holds any) as a packet to out, and empty it.  0 or -errno. */
int kt_pfbundle_write(struct kt_pfbundle *b, FILE *out);

/*
 * Any packet p as a Trace of one packet to out (packed straight into
 * the stream), with the trusted sequence id all of ktrace's share.
 * 0 or -EIO.
 */
int kt_pfbundle_put_packet(Perfetto__Protos__TracePacket *p, FILE *out);

#endif
