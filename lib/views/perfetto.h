/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Chrome/Perfetto trace-event JSON of a trace (opens in
 * ui.perfetto.dev and chrome://tracing), fed record by record:
 *   - a "CPUs" process with one track (thread) per CPU, and on it a
 *     complete slice ("X") per task run, named comm:pid, from the
 *     sched_switch that put the task on the CPU to the next sched_switch
 *     on that CPU (idle is no slice); runs still going at the end close
 *     at the trace's last timestamp;
 *   - system calls as slices on the task's own track: a "B" at
 *     sys_enter named for the call (its number in args.id), an "E" at
 *     the matching sys_exit (args.ret, and args.errno for an error);
 *   - hard and soft interrupts as slices on a second track per CPU,
 *     "CPU N irq": "irq 24 nvme0q1" from irq_handler_entry to _exit,
 *     "softirq TIMER" from softirq_entry to _exit;
 *     a slice whose end is missing (lost, or outside the recording)
 *     ends at the next begin or at the trace's end, args.unfinished;
 *   - every other event (wakeups too, and an exit with no entry) an
 *     instant event ("i") on the emitting task's own track, its fields
 *     as args; events of the idle task go on the CPU's track;
 *   - lost events an instant event on the CPU's track;
 *   - process_name/thread_name metadata for the CPUs and every task.
 * Timestamps are microseconds with three decimals (exact nanoseconds).
 */
#ifndef KT_PERFETTO_H
#define KT_PERFETTO_H

#include <stdio.h>

#include "decode/decoder.h"

/* The pid of the synthetic "CPUs" process holding the CPU tracks. */
#define KT_PERFETTO_CPU_PID 1000000000
/* CPU N's interrupt track is thread KT_PERFETTO_IRQ_TID + N of it. */
#define KT_PERFETTO_IRQ_TID 100000

struct tep_handle;
struct kt_perfetto;

/*
 * machine: the traced machine (kt_reader_machine()), for the names of
 * system calls; NULL means x86_64.
 */
struct kt_perfetto *kt_perfetto_new(struct tep_handle *tep, const char *machine,
				    FILE *out);
/* Frees; does not write the end (see kt_perfetto_finish). */
void kt_perfetto_free(struct kt_perfetto *pf);
/* A record from the decoder (kt_event_fn shape); 0 or -errno. */
int kt_perfetto_add(const struct kt_event *ev, void *pf);
/* Close the runs, write the names and the end of the JSON. */
int kt_perfetto_finish(struct kt_perfetto *pf);

#endif
