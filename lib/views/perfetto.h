/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perfetto's own trace format (`report --format perfetto`): a protobuf
 * perfetto.protos.Trace, as Perfetto's traced_probes writes one of a
 * kernel's ftrace, for ui.perfetto.dev and Perfetto's trace processor:
 *   - the records in per-CPU FtraceEventBundles (views/pfbundle.h):
 *     sched_switch and sched_waking in the compact form, comms interned;
 *     the events Perfetto defines in their own messages, the others as
 *     generic events with their fields by name (views/pfevent.h); a
 *     loss marks the CPU's next bundle (lost_events);
 *   - each kernel or user stack of a selected event a PerfSample of its
 *     thread, its callstack interned (views/pfstack.h);
 *   - a ProcessTree: every task the events name, each thread under its
 *     process (the tgids the recording stored, file/tgidmap.h), named
 *     by its comm;
 *   - first, a SystemInfo naming the kernel (uname's release), by which
 *     Perfetto reads sched_switch's prev_state;
 *   - a ClockSnapshot of the trace clock (as BOOTTIME, the clock Perfetto
 *     takes ftrace's to be) against REALTIME, when the recording
 *     measured it (file/wallclock.h);
 *   - FtraceStats at the start and the end: per CPU, the events written
 *     and those lost (overrun).
 * With compact false (a selection of tasks: -F, --pid, --comm), switches
 * and wakings are typed events too: the compact form leaves out the
 * task switched from, which Perfetto takes from the CPU's switch before,
 * and a selection of tasks leaves that out.
 */
#ifndef KT_PERFETTO_H
#define KT_PERFETTO_H

#include <stdbool.h>
#include <stdio.h>

#include "decode/decoder.h"

struct kt_reader;
struct kt_perfetto;

struct kt_perfetto *kt_perfetto_new(struct kt_reader *r, bool compact, FILE *out);
/* Frees; does not write the end (see kt_perfetto_finish). */
void kt_perfetto_free(struct kt_perfetto *pf);
/* A record from the decoder (kt_event_fn shape); 0 or -errno. */
int kt_perfetto_add(const struct kt_event *ev, void *pf);
/* Write the bundles still held, the process tree and the stats. */
int kt_perfetto_finish(struct kt_perfetto *pf);

#endif
