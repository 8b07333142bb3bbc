/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record as the event of a Perfetto FtraceEvent: an event Perfetto
 * defines (of those lib/views/perfetto_trace.proto keeps: sched_*, irq,
 * softirq, sys_enter/sys_exit, task_*, signal_*, print) in its own
 * message, any other as Perfetto's traced_probes writes it with
 * denser_generic_event_encoding: described once per bundle (a
 * GenericEventDescriptor: its name, group, and each field's name and
 * type) and then its values alone, in an FtraceEvent field numbered
 * 65536 + its event id; an event of more than 31 fields (more than the
 * trace processor takes) a GenericFtraceEvent with its fields by name.
 *
 * The typed messages are filled by name: each field of the message
 * (protobuf-c's descriptor) takes the record's field of the same name,
 * as Perfetto's own messages are named after the kernel's formats; a
 * field the record lacks stays unset.  What each event id maps to is
 * found once.
 */
#ifndef KT_PFEVENT_H
#define KT_PFEVENT_H

#include "views/perfetto_trace.pb-c.h"

struct kt_event;
struct kt_pfarena;
struct tep_handle;
struct kt_pfevent;

/*
 * machine is the recording's (uname -m), or NULL: on x86_64 a sys_enter
 * keeps only the arguments its call takes (kt_syscall_count_args), the
 * registers beyond them being leftovers; all six where the count is not
 * known (another machine, a number outside the table).
 */
struct kt_pfevent *kt_pfevent_new(struct tep_handle *tep, const char *machine);
void kt_pfevent_free(struct kt_pfevent *m);
/*
 * Fill fe (timestamp, pid and the event) from ev, its messages and
 * strings in a.  *ged: the descriptor its bundle must hold, or NULL.
 * 0, or -ENOMEM.  common_flags is left out, as
 * traced_probes leaves it out unless asked: two bytes of every event.
 */
int kt_pfevent_fill(struct kt_pfevent *m, const struct kt_event *ev,
		    Perfetto__Protos__FtraceEvent *fe, struct kt_pfarena *a,
		    const Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor **ged);

#endif
