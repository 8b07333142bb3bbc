// SPDX-License-Identifier: GPL-2.0
/*
 * The instance `ktrace record`, `ktrace stream` and `ktrace top` trace
 * into: its events, filters and pids.  See tracing.h.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "live/tracefs/errlog.h"
#include "live/events/events.h"
#include "live/module/module.h"
#include "live/tracefs/tracefs.h"
#include "live/session/topsave.h"
#include "live/session/tracing.h"

struct kt_tracing {
	const struct kt_trace_opts *o;
	struct kt_catalog *cat;
	struct kt_event_list *events;
	struct per_event *per;		/* per event of events */
	struct kt_probes *probes;	/* --uprobe and the like, or NULL */
	char inst_name[64];
	struct tracefs_instance *inst;
	const char *comm;		/* ANDed into every filter, or NULL */
	bool follow_children;		/* follow forks as -c does */
	bool exclude_forks;		/* -F: forks go to set_event_notrace_pid */
	/*
	 * -p TRACER that the kernel runs only at the top level: the
	 * recording borrows it (inst stays NULL) and saved puts it back.
	 */
	bool top;
	struct kt_topsave *saved;
	char place[160];		/* where the tracer runs, said */
	/* Taken for ktrace top (kt_tracing_take()): its words and rules. */
	bool counter;
	bool borrowed;			/* -B: never created, never removed */
};

/* What -f and --stack set on one event of the list. */
struct per_event {
	char *filter;			/* or NULL */
	bool stack;			/* its stacktrace trigger */
};

/* Is r one of list's events? */
static bool names(const struct kt_event_list *list, const struct kt_event_ref *r)
{
	size_t k;

	for (k = 0; k < kt_event_list_count(list); k++) {
		const struct kt_event_ref *x = kt_event_list_at(list, k);

		if (!strcmp(x->system, r->system) && !strcmp(x->name, r->name))
			return true;
	}
	return false;
}

/*
 * The ftrace system's events are written by tracers and options, not
 * switched on: only ftrace:print (a write to trace_marker) comes to a
 * recording by itself.  -EINVAL, said, for the others.
 */
static int tracer_event(const struct kt_event_ref *r)
{
	const char *n = r->name;

	if (strcmp(r->system, "ftrace") || !strcmp(n, "print"))
		return 0;
	if (!strcmp(n, "kernel_stack"))
		kt_err("'ftrace:kernel_stack' is written with -T (every event) or --stack EVENT; use those");
	else if (!strcmp(n, "function") || !strncmp(n, "funcgraph_", 10))
		kt_err("'ftrace:%s' is written by the function tracer, not switched on as an event; use -p %s (where 'ktrace doctor' says it runs)",
		       n, strcmp(n, "function") ? "function_graph" : "function");
	else
		kt_err("'ftrace:%s' is written by a tracer or option, not switched on as an event; see 'ktrace list tracers'",
		       n);
	return -EINVAL;
}

static int add_resolved(struct kt_tracing *t, const struct kt_evspec *sp)
{
	struct kt_event_list *one = kt_event_list_new();
	size_t before = kt_event_list_count(t->events), j, n;
	struct per_event *per;
	int ret = -ENOMEM;

	if (!one)
		return -ENOMEM;
	/* Exact names need no catalog; load it only when one must. */
	if (kt_event_lookup(NULL, sp->spec, one) != 1) {
		if (!t->cat)
			t->cat = kt_catalog_load(NULL);
		if (!t->cat) {
			ret = -errno;
			kt_err("cannot read the event list: %s", strerror(errno));
			goto out;
		}
		ret = kt_event_spec_resolve(t->cat, sp->spec, 0, one);
		if (ret)
			goto out;
		ret = -ENOMEM;
	}
	/* A tracer's event named alone records nothing: say what does. */
	if (kt_event_list_count(one) == 1 && !strpbrk(sp->spec, "*?[")) {
		ret = tracer_event(kt_event_list_at(one, 0));
		if (ret)
			goto out;
		ret = -ENOMEM;
	}
	for (j = 0; j < kt_event_list_count(one); j++) {
		const struct kt_event_ref *r = kt_event_list_at(one, j);

		if (kt_event_list_add(t->events, r->system, r->name) < 0)
			goto out;
	}
	n = kt_event_list_count(t->events);
	per = realloc(t->per, (n ? n : 1) * sizeof(*per));
	if (!per)
		goto out;
	t->per = per;
	memset(per + before, 0, (n - before) * sizeof(*per));
	/*
	 * The filter, and --stack, land on every event the spec named,
	 * wherever in the list it came first.
	 */
	for (j = 0; (sp->filter || sp->stack) && j < n; j++) {
		if (!names(one, kt_event_list_at(t->events, j)))
			continue;
		if (sp->filter)
			per[j].filter = sp->filter;
		if (sp->stack)
			per[j].stack = true;
	}
	ret = 0;
out:
	kt_event_list_free(one);
	return ret;
}

int kt_tracing_add_event(struct kt_tracing *t, const char *system,
			 const char *name)
{
	size_t n = kt_event_list_count(t->events);
	struct per_event *per;

	if (kt_event_list_add(t->events, system, name) < 0)
		return -ENOMEM;
	if (kt_event_list_count(t->events) == n++)
		return 0;
	per = realloc(t->per, n * sizeof(*per));
	if (!per)
		return -ENOMEM;
	t->per = per;
	memset(&per[n - 1], 0, sizeof(*per));
	return 0;
}

/* Make the probes, and record their events as -e would. */
static int add_probes(struct kt_tracing *t)
{
	struct kt_evspec sp = { 0 };
	char spec[128];
	size_t i;
	int ret;

	if (!t->o->nprobes)
		return 0;
	t->probes = kt_probes_make(t->o->probes, t->o->nprobes);
	if (!t->probes)
		return -errno;
	for (i = 0; i < kt_probes_count(t->probes); i++) {
		snprintf(spec, sizeof(spec), "%s:%s", kt_probes_group(t->probes),
			 kt_probes_name(t->probes, i));
		sp.spec = spec;
		ret = add_resolved(t, &sp);
		if (ret)
			return ret;
	}
	return 0;
}

struct kt_tracing *kt_tracing_new(const struct kt_trace_opts *o,
				  const struct kt_evspec *specs, size_t nspecs)
{
	static const struct kt_evspec defaults[] = {
		{ "sched:sched_switch", NULL, false },
		{ "sched:sched_wakeup", NULL, false },
	};
	struct kt_tracing *t;
	size_t i;
	int err = ENOMEM, ret;

	if (!specs) {
		specs = o->nspecs ? o->specs : defaults;
		nspecs = o->nspecs ? o->nspecs : 2;
		/* Probes or a tracer alone: their events, not the scheduler's too. */
		if (!o->nspecs && (o->nprobes || o->ft.tracer))
			nspecs = 0;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->o = o;
	t->events = kt_event_list_new();
	if (!t->events)
		goto err_free;
	for (i = 0; i < nspecs; i++) {
		ret = add_resolved(t, &specs[i]);
		if (ret) {
			err = -ret;
			goto err_free;
		}
	}
	ret = add_probes(t);
	if (ret) {
		err = -ret;
		goto err_free;
	}
	for (i = 0; i < o->npids; i++) {
		if (kill(o->pids[i], 0) < 0 && errno == ESRCH) {
			kt_err("no process with pid %d; see 'ps'", (int)o->pids[i]);
			err = ESRCH;
			goto err_free;
		}
	}
	return t;

err_free:
	kt_tracing_free(t);
	errno = err;
	return NULL;
}

bool kt_is_module_event(const struct kt_event_ref *r)
{
	return kt_event_where(r->system) == KT_EVENT_MODULE;
}

static bool is_ftrace_event(const struct kt_event_ref *r)
{
	/* ftrace/print and friends have no enable file: always on. */
	return !strcmp(r->system, "ftrace");
}

/*
 * -p TRACER: the instance where the kernel runs it there (with the files
 * its options need), else the top level, saved first (kt_tracing_free()
 * puts it back).  The instance
 * is open; 0 or -errno, said.
 */
static int place_tracer(struct kt_tracing *t)
{
	const char *tr = t->o->ft.tracer;

	if (kt_ftracer_fits(t->inst, &t->o->ft)) {
		snprintf(t->place, sizeof(t->place),
			 "the %s tracer runs in instance '%s'", tr, t->inst_name);
		return 0;
	}
	if (!kt_ftracer_offered(NULL, tr)) {
		kt_err("this kernel has no '%s' tracer (not in available_tracers); see 'ktrace doctor'",
		       tr);
		return -ENOENT;
	}
	for (size_t i = 0; i < kt_event_list_count(t->events); i++)
		if (t->per[i].stack) {
			kt_err("--stack takes an event trigger, which the top-level buffer the %s tracer needs here would keep; use -T",
			       tr);
			return -EINVAL;
		}
	t->saved = kt_topsave_new(t->events);
	if (!t->saved) {
		kt_err("cannot save the top-level buffer's settings: %s",
		       strerror(errno));
		return -errno;
	}
	kt_instance_remove(t->inst);
	t->inst = NULL;
	t->top = true;
	snprintf(t->place, sizeof(t->place),
		 "the %s tracer runs only in the top-level buffer on this kernel: its settings are put back after, its old contents cleared",
		 tr);
	return 0;
}

int kt_tracing_instance(struct kt_tracing *t, const char *wake_percent)
{
	bool created;
	int ret;

	snprintf(t->inst_name, sizeof(t->inst_name), "%s%d",
		 KT_INSTANCE_PREFIX, (int)getpid());
	ret = kt_instance_open(t->inst_name, true, &t->inst, &created);
	if (ret) {
		kt_err("cannot create tracefs instance '%s': %s",
		       t->inst_name, strerror(-ret));
		return ret;
	}
	if (!created) {
		kt_instance_close(t->inst);
		t->inst = NULL;
		kt_err("tracefs instance '%s' already exists; remove it with 'ktrace reset'",
		       t->inst_name);
		return -EEXIST;
	}
	if (t->o->ft.tracer) {
		ret = place_tracer(t);
		if (ret)
			return ret;
	}
	/* Nothing reaches the buffer until everything is in place. */
	ret = kt_tracefs_write(t->inst, "tracing_on", "0");
	if (ret) {
		kt_err("cannot stop tracing in '%s': %s", t->inst_name, strerror(-ret));
		return ret;
	}
	ret = kt_tracefs_write(t->inst, "buffer_percent", wake_percent);
	if (ret && ret != -ENOENT) {
		kt_err("cannot set buffer_percent: %s", strerror(-ret));
		return ret;
	}
	if (t->o->buffer_kb) {
		char kb[32];

		snprintf(kb, sizeof(kb), "%lu", t->o->buffer_kb);
		ret = kt_tracefs_write(t->inst, "buffer_size_kb", kb);
		if (ret) {
			kt_err("cannot set a %lu KB buffer: %s; try a smaller -b",
			       t->o->buffer_kb, strerror(-ret));
			return ret;
		}
	}
	/*
	 * Each task that runs into saved_tgids, for --by process (see
	 * live/session/tgids.h).  The option is the instance's from 6.x kernels on;
	 * before, the top level's alone, which is not ours to set.
	 */
	if (!t->top)
		(void)kt_tracefs_write(t->inst, "options/record-tgid", "1");
	/* The top level's buffer holds others' events: not ours to record. */
	if (t->top) {
		ret = kt_tracefs_write(NULL, "trace", "");
		if (ret) {
			kt_err("cannot clear the top-level buffer: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int kt_tracing_take(struct kt_tracing *t, const char *borrow)
{
	bool created = false;
	int ret;

	t->counter = true;
	if (borrow) {
		snprintf(t->inst_name, sizeof(t->inst_name), "%s", borrow);
		/* Never created, even if it vanishes meanwhile. */
		ret = kt_instance_lookup(borrow, &t->inst);
		if (ret)
			return kt_instance_explain(borrow, ret);
		t->borrowed = true;
	} else {
		snprintf(t->inst_name, sizeof(t->inst_name), "%s%d",
			 KT_INSTANCE_PREFIX, (int)getpid());
		ret = kt_instance_open(t->inst_name, true, &t->inst, &created);
		if (!ret && !created) {
			kt_err("instance '%s' already exists; remove it with 'rmdir %s/instances/%s'",
			       t->inst_name, tracefs_tracing_dir(), t->inst_name);
			kt_instance_close(t->inst);
			t->inst = NULL;
			return -EEXIST;
		}
	}
	if (ret) {
		kt_err("cannot open instance '%s': %s", t->inst_name,
		       strerror(-ret));
		return ret;
	}
	/* -B naming the top-level buffer ("") is refused before; be sure. */
	return t->inst ? 0 : -EINVAL;
}

bool kt_tracing_borrowed(const struct kt_tracing *t)
{
	return t->borrowed;
}

static void filter_error(const char *filter, const struct kt_event_ref *r,
			 char *why, int err)
{
	const char *dir = tracefs_tracing_dir();
	struct kt_errlog e;

	kt_errlog_parse(why, &e);
	kt_err("bad filter '%s' for '%s:%s': %s; its fields are in %s/events/%s/%s/format",
	       filter, r->system, r->name, *e.reason ? e.reason : strerror(-err),
	       dir ? dir : "", r->system, r->name);
	free(why);
}

/*
 * --comm NAME: the kernel's filters know "comm" on every event (the
 * current task's name, or the event's own comm field where it has one,
 * the same name for the events --process records).  signal_generate's
 * comm is the target's: a signal is kept when its sender (COMM, always
 * the current task's) or its target has the name.
 */
static char *comm_filter(const struct kt_event_ref *r, const char *comm,
			 const char *user)
{
	const char *op = strpbrk(comm, "*?[") ? "~" : "==";
	char *name, *f = NULL;
	int ret;

	if (!strcmp(r->system, "signal") && !strcmp(r->name, "signal_generate"))
		ret = asprintf(&name, "(COMM %s \"%s\" || comm %s \"%s\")",
			       op, comm, op, comm);
	else
		ret = asprintf(&name, "comm %s \"%s\"", op, comm);
	if (ret < 0)
		return NULL;
	if (user ? asprintf(&f, "(%s) && %s", user, name) < 0
		 : !(f = strdup(name)))
		f = NULL;
	free(name);
	return f;
}

static int set_filters(struct kt_tracing *t)
{
	size_t i, n = kt_event_list_count(t->events);
	char *why, *comm;
	const char *filter;
	int ret;

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(t->events, i);

		filter = t->per[i].filter;
		comm = NULL;
		/* ktrace.ko's events take no filter: --comm is ftrace's. */
		if (t->comm && *t->comm && !is_ftrace_event(r) && !kt_is_module_event(r)) {
			comm = comm_filter(r, t->comm, filter);
			if (!comm)
				return -ENOMEM;
			filter = comm;
		}
		if (!filter)
			continue;
		if (kt_is_module_event(r)) {
			kt_err("'%s:%s' is ktrace.ko's and takes no filter; drop the -f after it, or use -F/-p for pids",
			       r->system, r->name);
			return -EINVAL;
		}
		if (is_ftrace_event(r)) {
			kt_err("event '%s:%s' cannot be filtered; drop the -f after it",
			       r->system, r->name);
			return -EINVAL;
		}
		ret = kt_event_set_filter(t->inst, r->system, r->name,
					  filter, &why);
		if (ret)
			filter_error(filter, r, why, ret);
		free(comm);
		if (ret)
			return ret;
	}
	return 0;
}

static int enable_events(struct kt_tracing *t)
{
	size_t i, n = kt_event_list_count(t->events);
	int ret;

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(t->events, i);

		/* ktrace.ko's events are the module source's (source-module.c). */
		if (is_ftrace_event(r) || kt_is_module_event(r))
			continue;
		ret = kt_event_set_enable(t->inst, r->system, r->name, true);
		if (ret) {
			kt_err("cannot enable '%s:%s': %s", r->system, r->name,
			       strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int append_pid(char **buf, size_t *len, pid_t pid)
{
	char num[24];
	size_t n = snprintf(num, sizeof(num), "%d ", (int)pid);
	char *b = realloc(*buf, *len + n + 1);

	if (!b)
		return -ENOMEM;
	memcpy(b + *len, num, n + 1);
	*buf = b;
	*len += n;
	return 0;
}

/* set_event_pid for -F/-c/-p. */
static int set_pids(struct kt_tracing *t, pid_t child)
{
	const struct kt_trace_opts *o = t->o;
	char *list = NULL;
	size_t len = 0, i;
	int ret = 0;
	bool children = o->children || t->follow_children;

	if (!o->only_cmd && !children && !o->npids)
		return 0;
	if (child > 0)
		ret = append_pid(&list, &len, child);
	for (i = 0; !ret && i < o->npids; i++)
		ret = append_pid(&list, &len, o->pids[i]);
	/*
	 * -F follows COMMAND's threads as -c follows forks: the kernel
	 * follows both, and the processes it forks are put in
	 * set_event_notrace_pid as they begin (kt_tracing_exclude()).
	 */
	if (!ret && !children && o->only_cmd && child > 0) {
		t->exclude_forks = !kt_tracefs_write(t->inst, "set_event_notrace_pid", "");
		if (!t->exclude_forks)
			kt_warn("this kernel has no set_event_notrace_pid: -F traces the command's first thread only");
	}
	if (!ret && (children || t->exclude_forks))
		ret = kt_tracefs_write(t->inst, "options/event-fork", "1");
	if (!ret)
		ret = kt_tracefs_write(t->inst, "set_event_pid", list);
	if (ret)
		kt_err("cannot limit tracing to pids '%s': %s", list ? list : "",
		       strerror(-ret));
	free(list);
	return ret;
}

/* -p TRACER, for the pids set_pids() gives the events. */
static int set_tracer(struct kt_tracing *t, pid_t child)
{
	const struct kt_trace_opts *o = t->o;
	bool children = o->children || t->follow_children;
	char *list = NULL;
	size_t len = 0, i;
	int ret = 0;

	if (!o->ft.tracer)
		return 0;
	if (o->only_cmd || children || o->npids) {
		if (child > 0)
			ret = append_pid(&list, &len, child);
		for (i = 0; !ret && i < o->npids; i++)
			ret = append_pid(&list, &len, o->pids[i]);
	}
	if (!ret)
		ret = kt_ftracer_set(t->inst, &o->ft, list, children);
	free(list);
	return ret;
}

/*
 * Kernel stacks: -T is the instance's stacktrace option (a stack after
 * every event); --stack EVENT a stacktrace trigger on that event only,
 * which keeps the cost off the busy ones.  --user-stack is the
 * userstacktrace option.  All go with the instance.
 */
static int set_stacks(struct kt_tracing *t)
{
	size_t i, n = kt_event_list_count(t->events);
	char file[600];
	int ret;

	if (t->o->ustacks) {
		ret = kt_tracefs_write(t->inst, "options/userstacktrace", "1");
		if (ret) {
			kt_err("cannot record user stacks (--user-stack): options/userstacktrace: %s%s",
			       strerror(-ret), ret == -ENOENT ?
			       "; this kernel has no user stack traces (CONFIG_USER_STACKTRACE_SUPPORT)" : "");
			return ret;
		}
	}
	if (t->o->stacks) {
		ret = kt_tracefs_write(t->inst, "options/stacktrace", "1");
		if (ret)
			kt_err("cannot record kernel stacks (-T): options/stacktrace: %s%s",
			       strerror(-ret), ret == -ENOENT ?
			       "; this kernel has no stack traces (CONFIG_STACKTRACE)" : "");
		/* Every event has its stack: a trigger would add a second. */
		return ret;
	}
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(t->events, i);

		if (!t->per[i].stack)
			continue;
		if (is_ftrace_event(r) || kt_is_module_event(r)) {
			kt_err("'%s:%s' takes no stacktrace trigger; use -T for a stack with every event",
			       r->system, r->name);
			return -EINVAL;
		}
		snprintf(file, sizeof(file), "events/%s/%s/trigger", r->system, r->name);
		ret = kt_tracefs_write(t->inst, file, "stacktrace");
		if (ret) {
			kt_err("cannot record stacks of '%s:%s' (--stack): %s: %s%s",
			       r->system, r->name, file, strerror(-ret),
			       ret == -ENOENT ? "; this kernel has no event triggers, use -T" : "");
			return ret;
		}
	}
	return 0;
}

int kt_tracing_arm(struct kt_tracing *t, pid_t child)
{
	int ret = set_pids(t, child);

	if (!ret)
		ret = set_filters(t);
	if (!ret)
		ret = set_stacks(t);
	if (!ret)
		ret = enable_events(t);
	/* Last: the tracer writes from the moment it is set. */
	if (!ret)
		ret = set_tracer(t, child);
	return ret;
}

bool kt_tracing_excludes(const struct kt_tracing *t)
{
	return t->exclude_forks;
}

int kt_tracing_exclude(struct kt_tracing *t, pid_t pid)
{
	char num[24];

	snprintf(num, sizeof(num), "%d", (int)pid);
	return kt_tracefs_append(t->inst, "set_event_notrace_pid", num);
}

/*
 * ktrace's own threads left out, as trace-cmd leaves out its recorders:
 * each read of the buffers is a system call, and without this a
 * recording of raw_syscalls records the recorder reading it (a 2 s
 * `-- sleep 2` held 2,800 of ktrace's events and 500 of sleep's).  The
 * kernel still keeps a sched_switch unless both tasks are left out.
 * A function tracer (-p) is told too (set_ftrace_notrace_pid): its
 * records of ktrace's reads and writes outnumber the command's where
 * the command does little.  Threads made later (the hooks' reapers, the
 * remover at the end) stay traced; the instance is off until the caller
 * turns it on, so the threads listed are all that read it.  One write a
 * file: the kernel takes a list.  0, or -errno with *file the one
 * refused (-ENOENT: a kernel before 5.8, without it).
 */
int kt_tracing_exclude_self(struct kt_tracing *t, const char **file)
{
	char *list = NULL;
	size_t len = 0;
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	*file = "/proc/self/task";
	dir = opendir(*file);
	if (!dir)
		return -errno;
	while (!ret && (d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			ret = append_pid(&list, &len, atoi(d->d_name));
	closedir(dir);
	if (!ret && list) {
		*file = "set_event_notrace_pid";
		ret = kt_tracefs_append(t->inst, *file, list);
	}
	if (!ret && list && t->o->ft.tracer) {
		*file = "set_ftrace_notrace_pid";
		ret = kt_tracefs_append(t->inst, *file, list);
	}
	free(list);
	return ret;
}

void kt_tracing_set_process(struct kt_tracing *t, const char *comm,
			    bool follow_children)
{
	t->comm = comm;
	t->follow_children = follow_children;
}

/* The top level borrowed: tracing off, then everything as it was. */
static int put_back_top(struct kt_tracing *t)
{
	int ret;

	kt_tracefs_write(NULL, "tracing_on", "0");
	kt_ftracer_clear(NULL, &t->o->ft);
	ret = kt_topsave_restore(t->saved);
	kt_topsave_free(t->saved);
	t->saved = NULL;
	t->top = false;
	return ret;
}

int kt_tracing_remove(struct kt_tracing *t)
{
	int ret;

	/* The top level's errors are said there: it is no instance. */
	if (t->top)
		return put_back_top(t), 0;
	if (!t->inst)
		return 0;
	/* The tracer and its filters stop before the instance goes. */
	kt_ftracer_clear(t->inst, &t->o->ft);
	ret = kt_instance_remove(t->inst);
	t->inst = NULL;
	return ret;
}

int kt_tracing_remove_again(struct kt_tracing *t)
{
	struct tracefs_instance *inst;
	int ret;

	if (t->top)
		return put_back_top(t), 0;
	ret = kt_instance_lookup(t->inst_name, &inst);

	return ret ? ret : kt_instance_remove(inst);
}

const struct kt_event_list *kt_tracing_events(const struct kt_tracing *t)
{
	return t->events;
}

struct tracefs_instance *kt_tracing_inst(const struct kt_tracing *t)
{
	return t->inst;
}

const char *kt_tracing_name(const struct kt_tracing *t)
{
	return t->inst_name;
}

const char *kt_tracing_place(const struct kt_tracing *t)
{
	return t->place[0] ? t->place : NULL;
}

const struct kt_trace_opts *kt_tracing_opts(const struct kt_tracing *t)
{
	return t->o;
}

void kt_tracing_free(struct kt_tracing *t)
{
	int ret;

	if (!t)
		return;
	if (t->top) {
		put_back_top(t);
	} else if (t->borrowed) {
		/* Whoever changed it put it back: it stays as found. */
		kt_instance_close(t->inst);
	} else if (t->inst && t->counter) {
		ret = kt_instance_remove(t->inst);
		if (ret)
			kt_warn("cannot remove instance '%s': %s; remove it with 'rmdir %s/instances/%s'",
				t->inst_name, strerror(-ret),
				tracefs_tracing_dir(), t->inst_name);
	} else if (t->inst) {
		/* An error before the end: no events must stay enabled. */
		kt_tracefs_write(t->inst, "tracing_on", "0");
		kt_ftracer_clear(t->inst, &t->o->ft);
		kt_instance_remove(t->inst);
	}
	/* After the instance: a probe enabled there is busy till then. */
	kt_probes_remove(t->probes);
	free(t->per);
	kt_event_list_free(t->events);
	kt_catalog_free(t->cat);
	free(t);
}
