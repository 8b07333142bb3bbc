/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record as the event of a Perfetto FtraceEvent: an event Perfetto
 * defines (of those lib/views/perfetto_trace.proto keeps: sched_*, irq,
 * softirq, sys_enter/sys_exit, task_*, signal_*, print) in its own
 * message, any other a GenericFtraceEvent with its fields by name.
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
 * strings in a.  0, or -ENOMEM.  common_flags is left out, as
 * traced_probes leaves it out unless asked: two bytes of every event.
 */
int kt_pfevent_fill(struct kt_pfevent *m, const struct kt_event *ev,
		    Perfetto__Protos__FtraceEvent *fe, struct kt_pfarena *a);

#endif
