/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Chrome trace-event JSON of a trace (`report --format chrome`: opens
 * in chrome://tracing and ui.perfetto.dev), fed record by record:
 *   - a "CPUs" process with one track (thread) per CPU, and on it a
 *     complete slice ("X") per task run, named comm:pid, from the
 *     sched_switch that put the task on the CPU to the next sched_switch
 *     on that CPU (idle is no slice); runs still going at the end close
 *     at the trace's last timestamp.  The JSON format has no CPU tracks:
 *     a process of its own (pid KT_CHROME_CPU_PID, past any real pid) is
 *     the nearest it comes; `--format perfetto` has real ones;
 *   - a task's events on its own track: "pid" its process (the tgid the
 *     recording stored, file/tgidmap.h; the pid itself when it stored
 *     none), "tid" the thread; process_name and thread_name metadata
 *     name them;
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
 *     as args (arrays of numbers as arrays), category its system (a
 *     probe's, ktrace_PID, which changes every recording, is "probe");
 *     events of the idle task go on the CPU's track;
 *   - kernel and user stacks (ftrace:kernel_stack, ftrace:user_stack)
 *     as the stack of the event they follow on their CPU: "sf" (for a
 *     switch's run slice, "esf": where the task left the CPU) naming a
 *     frame of the file's "stackFrames", user frames outermost, the
 *     kernel's on top; a stack whose event made no trace event is an
 *     instant of its own, named for the stack;
 *   - lost events an instant event on the CPU's track.
 * Timestamps are microseconds with three decimals (exact nanoseconds).
 */
#ifndef KT_CHROME_H
#define KT_CHROME_H

#include <stdio.h>

#include "decode/decoder.h"

/* The pid of the synthetic "CPUs" process holding the CPU tracks. */
#define KT_CHROME_CPU_PID 1000000000
/* CPU N's interrupt track is thread KT_CHROME_IRQ_TID + N of it. */
#define KT_CHROME_IRQ_TID 100000

struct kt_reader;
struct kt_chrome;

/* Of r's events (formats, machine, tgids, user stacks' maps). */
struct kt_chrome *kt_chrome_new(struct kt_reader *r, FILE *out);
/* Frees; does not write the end (see kt_chrome_finish). */
void kt_chrome_free(struct kt_chrome *c);
/* A record from the decoder (kt_event_fn shape); 0 or -errno. */
int kt_chrome_add(const struct kt_event *ev, void *c);
/* Close the runs, write the names, the stack frames and the end. */
int kt_chrome_finish(struct kt_chrome *c);

#endif
