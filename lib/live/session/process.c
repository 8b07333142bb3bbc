// SPDX-License-Identifier: GPL-2.0
/*
 * What record --process records, and on which tracer.  See process.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "live/events/events.h"
#include "live/module/module.h"
#include "live/session/process.h"

/*
 * Which tracer --process uses: ktrace.ko's process tracer when its
 * events are in play (the module loaded and not --backend ftrace),
 * else ftrace's events.  Prints why the options cannot be had.
 */
int kt_process_backend(const struct kt_session_config *o, bool *module)
{
	*module = kt_events_use_module() && kt_module_has_process();
	if (!*module && kt_events_backend() == KT_BACKEND_MODULE) {
		kt_err("this ktrace.ko has no process tracer ('%s' in %s); load a newer ktrace.ko, or use --backend ftrace",
		       KTRACE_FILE_PROCESS_FOLLOW_PID, kt_module_dir());
		return -EINVAL;
	}
	/* ftrace events carry no user id: only the module can filter on it. */
	if (o->uid && !*module) {
		if (kt_events_backend() == KT_BACKEND_FTRACE)
			kt_err("--uid needs the ktrace module, and --backend ftrace leaves it out; drop --backend ftrace, or use --comm NAME or -P PID");
		else if (!kt_module_present())
			kt_err("--uid needs the ktrace module (kernel/ktrace.ko); load it with 'insmod kernel/ktrace.ko', or use --comm NAME or -P PID");
		else
			kt_err("--uid needs the ktrace module's process tracer, which this ktrace.ko lacks; load a newer one, or use --comm NAME or -P PID");
		return -EINVAL;
	}
	/* The module compares whole names; ftrace's filters take globs. */
	if (*module && strpbrk(o->comm, "*?[")) {
		kt_err("--comm '%s' is a pattern, and ktrace.ko matches exact names; give the whole name, or add --backend ftrace for patterns",
		       o->comm);
		return -EINVAL;
	}
	return 0;
}

/*
 * --process: the events of each class, then the -e ones.  The exit calls
 * only carry the exit code (sched_process_exit has none here), so they
 * are left out when raw_syscalls brings the same, or when the kernel has
 * no syscalls:* events at all.
 */
int kt_process_specs(const struct kt_session_config *o, bool module,
		     struct kt_evspec **out, size_t *n)
{
	const char *want[16];
	struct kt_evspec *specs;
	size_t k = 0, i;

	if (module) {
		/* ktrace.ko's: exit codes and comm are in its own records. */
		if (!o->no_lifecycle) {
			want[k++] = "ktrace:process_fork";
			want[k++] = "ktrace:process_exec";
			want[k++] = "ktrace:process_exit";
		}
		if (!o->no_signals) {
			want[k++] = "ktrace:process_signal";
			/* A ktrace.ko older than the event records deliveries. */
			if (kt_module_event_enabled("process_signal_generate") >= 0)
				want[k++] = "ktrace:process_signal_generate";
		}
		if (!o->no_syscalls) {
			want[k++] = "ktrace:process_syscall_entry";
			want[k++] = "ktrace:process_syscall_exit";
		}
	} else {
		if (!o->no_lifecycle) {
			want[k++] = "task:task_newtask";
			want[k++] = "sched:sched_process_exec";
			want[k++] = "sched:sched_process_exit";
		}
		if (!o->no_lifecycle && o->no_syscalls) {
			struct kt_event_list *probe = kt_event_list_new();

			if (!probe)
				return -ENOMEM;
			if (kt_event_lookup(NULL, "syscalls:sys_enter_exit_group", probe) == 1) {
				want[k++] = "syscalls:sys_enter_exit_group";
				want[k++] = "syscalls:sys_enter_exit";
			}
			kt_event_list_free(probe);
		}
		/*
		 * Both ends of a signal: a fatal one is delivered as SIGKILL,
		 * and only signal_generate has the signal sent.
		 */
		if (!o->no_signals) {
			want[k++] = "signal:signal_generate";
			want[k++] = "signal:signal_deliver";
		}
		if (!o->no_syscalls) {
			want[k++] = "raw_syscalls:sys_enter";
			want[k++] = "raw_syscalls:sys_exit";
		}
	}
	specs = calloc(k + o->t->nspecs + 1, sizeof(*specs));
	if (!specs)
		return -ENOMEM;
	for (i = 0; i < k; i++)
		specs[i].spec = (char *)want[i];
	for (i = 0; i < o->t->nspecs; i++)
		specs[k + i] = o->t->specs[i];
	*out = specs;
	*n = k + o->t->nspecs;
	return 0;
}
