/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ktrace record` and `ktrace stream` trace into: a private
 * instance ktrace-<pid> with the events of the shared options (-e/-f/
 * -b/-p/-F/-c), their filters and pids.  The options are parsed in
 * cmd/ (util-session-opts.h); here is what they ask for.  `ktrace top`
 * counts in one too, its own or a borrowed one (kt_tracing_take()).
 */
#ifndef KT_TRACING_H
#define KT_TRACING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "live/events/events.h"
#include "live/probes/ftracer.h"
#include "live/probes/probes.h"

struct tracefs_instance;

struct kt_evspec {
	char *spec;
	char *filter;	/* the -f after it, or NULL */
	bool stack;	/* record --stack: a kernel stack with each event */
};

/* The shared options, as parsed. */
struct kt_trace_opts {
	struct kt_evspec *specs;
	size_t nspecs;
	unsigned long buffer_kb;
	pid_t *pids;
	size_t npids;
	bool only_cmd;
	bool children;
	bool trace_self;	/* --trace-self: ktrace's own threads traced too */
	bool stacks;	/* record -T: a kernel stack with every event */
	bool ustacks;	/* record --user-stack: a user stack with every event */
	/* record --uprobe/--uretprobe/--kprobe/--kretprobe, in their order */
	struct kt_probe_spec *probes;
	size_t nprobes;
	struct kt_ftrace_opts ft;	/* record -p TRACER and its options */
	char **cmd;	/* COMMAND and its arguments, or NULL */
};

struct kt_tracing;

/*
 * Resolve the -e specs (sched_switch and sched_wakeup without any) and
 * check the -p pids, saying what is wrong through kt_log().  specs, when
 * not NULL, replaces o's -e list (record --process generates its own).
 * o and specs must outlive the result.  NULL + errno on failure.
 */
struct kt_tracing *kt_tracing_new(const struct kt_trace_opts *o,
				  const struct kt_evspec *specs, size_t nspecs);
/*
 * Stop tracing and remove the instance if still there (a borrowed one
 * is only let go); free all.
 */
void kt_tracing_free(struct kt_tracing *t);

/*
 * Create ktrace-<pid> with tracing off, buffer_percent set to
 * wake_percent (when the readers' poll() wakes) and -b applied.
 * 0 or -errno.
 */
int kt_tracing_instance(struct kt_tracing *t, const char *wake_percent);
/*
 * ktrace top's instance, instead of kt_tracing_instance() (the session
 * with cfg->take): borrow NULL creates ktrace-<pid> and leaves it as
 * the kernel made it (top's counter pauses, sizes and starts it itself,
 * and only warns where record fails);
 * borrow names an existing instance (-B), looked up, never created and
 * never removed: what top changes in it top puts back.  Failures are
 * said in top's words (the removal's too, at kt_tracing_free()).
 * 0 or -errno.
 */
int kt_tracing_take(struct kt_tracing *t, const char *borrow);
/*
 * One event named exactly, as top's counter takes its rows (it enables
 * them itself): what the sources see in kt_tracing_events().  0 or
 * -ENOMEM.
 */
int kt_tracing_add_event(struct kt_tracing *t, const char *system,
			 const char *name);
/* kt_tracing_take() borrowed an existing instance. */
bool kt_tracing_borrowed(const struct kt_tracing *t);
/*
 * For record --process, before kt_tracing_arm(): comm is ANDed into
 * every filter ("comm == NAME"; NULL or "" for none), and
 * follow_children follows forks as -c does.
 */
void kt_tracing_set_process(struct kt_tracing *t, const char *comm,
			    bool follow_children);
/*
 * pid (a process -F's COMMAND forked) and what it forks are not traced:
 * set_event_notrace_pid, which event-fork follows.  0 or -errno.
 */
int kt_tracing_exclude(struct kt_tracing *t, pid_t pid);
/*
 * Leave out every thread ktrace has now: set_event_notrace_pid, and
 * set_ftrace_notrace_pid under a function tracer.  0, or -errno with
 * *file naming what refused it (-ENOENT: the kernel has no such file).
 */
int kt_tracing_exclude_self(struct kt_tracing *t, const char **file);
/* After kt_tracing_arm(): whether -F's forks must be excluded so. */
bool kt_tracing_excludes(const struct kt_tracing *t);
/* set_event_pid (child: COMMAND's pid or 0), filters, enable.  0 or -errno. */
int kt_tracing_arm(struct kt_tracing *t, pid_t child);
/*
 * Remove the instance now (the rest stays).  0 or -errno; -EBUSY while
 * a process holds one of its files open (see kt_tracing_remove_again).
 */
int kt_tracing_remove(struct kt_tracing *t);
/* Look the instance up by its name again and remove it. */
int kt_tracing_remove_again(struct kt_tracing *t);

const struct kt_event_list *kt_tracing_events(const struct kt_tracing *t);
/* The instance (NULL before kt_tracing_instance() or once removed). */
struct tracefs_instance *kt_tracing_inst(const struct kt_tracing *t);
/* "ktrace-<pid>" once kt_tracing_instance() ran, or the borrowed one's. */
const char *kt_tracing_name(const struct kt_tracing *t);
/*
 * Where -p TRACER runs, as a sentence for the user ("... in instance
 * 'ktrace-N'", or the top level), or NULL without a tracer.
 */
const char *kt_tracing_place(const struct kt_tracing *t);
const struct kt_trace_opts *kt_tracing_opts(const struct kt_tracing *t);

/*
 * Is r one of ktrace.ko's events (system ktrace with the module in
 * use)?  kt_tracing_arm() leaves those alone: they are not in the
 * instance, and whoever records them switches them on itself.
 */
bool kt_is_module_event(const struct kt_event_ref *r);

#endif
