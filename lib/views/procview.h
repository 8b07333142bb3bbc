/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process view: one short line per process event of a
 * `ktrace record --process` file, in place of the event's usual text:
 *
 *   fork 1234 flags 0x1200011       task:task_newtask (thread 1235 ...
 *                                   with CLONE_THREAD)
 *   exec /usr/bin/ls                sched:sched_process_exec
 *   exit 0                          sched:sched_process_exit, the code
 *                                   from the exit_group/exit call before
 *                                   it ('?' when the kernel gave none,
 *                                   then "killed by 10 SIGUSR1" when a
 *                                   fatal signal ended it)
 *   signal 10 SIGUSR1 sent to process 1234 errno 0 code 0x0 result
 *   delivered                       signal:signal_generate, in the sender
 *   signal 10 SIGUSR1 errno 0 code 0   signal:signal_deliver
 *   signal 9 SIGKILL errno 0 code 0x0 sent as 10 SIGUSR1
 *                                   a fatal signal, which the kernel
 *                                   delivers as SIGKILL to every thread
 *   syscall openat(0xffffff9c, 0x7ffd5c2e0f20, 0x80000, 0x0)
 *   syscall openat rc 3 error 0     raw_syscalls:sys_enter / sys_exit
 *
 * ktrace.ko's process tracer (ktrace:process_fork, _exec, _exit, _signal,
 * _signal_generate, _syscall_entry, _syscall_exit) gives the same lines;
 * its exit record carries the wait status, so its code needs no exit
 * call before it.
 *
 * The caller prints the usual "comm-pid [cpu] timestamp: " columns first
 * and then asks for the rest of the line, record by record, in time
 * order (the view keeps a little state: which thread belongs to which
 * process, and exit codes seen before the exit).  It knows nothing of the
 * report command, so any decoder can call it.
 *
 * Every field is read with bounds checks against the record: a damaged
 * or foreign file gives '?' fields, never a read outside the record.
 */
#ifndef KT_PROCVIEW_H
#define KT_PROCVIEW_H

#include <stdbool.h>

struct tep_event;
struct tep_handle;
struct tep_record;
struct trace_seq;

/*
 * The marker `record --process` leaves in the file: the VERSION option
 * (KT_OPT_VERSION, a free-form string trace-cmd only displays) reads
 * "ktrace <version> " KT_PROCVIEW_MARK, so report picks the view by
 * itself while trace-cmd reads the file as any other.
 */
#define KT_PROCVIEW_MARK	"+process"

/* Does a file's VERSION option text carry the marker? */
bool kt_procview_marked(const char *version);

struct kt_procview;

/*
 * machine: the traced machine as uname -m gave it ("x86_64"; the last
 * word of the file's UNAME option); NULL means x86_64.  System call
 * names are known for x86_64 only; elsewhere they print as syscall_NNN.
 * NULL + errno on failure.
 */
struct kt_procview *kt_procview_new(struct tep_handle *tep,
				    const char *machine);
void kt_procview_free(struct kt_procview *pv);

enum {
	KT_PROCVIEW_SHOWN = 0,	/* the text is in s */
	KT_PROCVIEW_HIDDEN = 1,	/* only feeds the view (exit_group's code) */
};

/*
 * Append the process-view text of one record (of event) to s, without
 * the leading columns and without a newline.  Returns KT_PROCVIEW_SHOWN,
 * KT_PROCVIEW_HIDDEN (print no line for it), or -ENOENT when the event
 * is not a process event (print it the usual way).
 */
int kt_procview_format(struct kt_procview *pv, struct trace_seq *s,
		       struct tep_event *event, struct tep_record *record);

/*
 * Whether records of event only feed the view (KT_PROCVIEW_HIDDEN): a
 * caller that prints nothing else for them can skip its line early, but
 * must still pass them to kt_procview_format(), in order.
 */
bool kt_procview_hides(const struct kt_procview *pv,
		       const struct tep_event *event);

#endif
