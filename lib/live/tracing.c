// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing session `ktrace record` and `ktrace stream` share: their
 * common options, the private instance, its events, filters and pids,
 * and the signals that end it.  See util-session.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/child.h"
#include "cmd.h"
#include "live/events.h"
#include "live/evlookup.h"
#include "live/tracefs.h"
#include "base/log.h"
#include "live/module.h"
#include "live/tracing.h"

int kt_parse_ulong(const char *s, unsigned long long max,
		   unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

error_t kt_trace_opt(struct kt_trace_opts *o, int key, char *arg,
		     struct argp_state *state)
{
	unsigned long long v;
	struct kt_evspec *sp;
	pid_t *pids;

	switch (key) {
	case 'e':
		sp = realloc(o->specs, (o->nspecs + 1) * sizeof(*sp));
		if (!sp)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-e");
		o->specs = sp;
		sp[o->nspecs].spec = arg;
		sp[o->nspecs].filter = NULL;
		o->nspecs++;
		return 0;
	case 'f':
		if (!o->nspecs)
			argp_error(state, "-f '%s' must follow the -e it filters", arg);
		if (o->specs[o->nspecs - 1].filter)
			argp_error(state, "only one -f per -e ('%s')",
				   o->specs[o->nspecs - 1].spec);
		o->specs[o->nspecs - 1].filter = arg;
		return 0;
	case 'b':
		if (kt_parse_ulong(arg, 64ULL << 20, &v) || !v)
			argp_error(state, "bad buffer size '%s'; give KB per CPU, e.g. -b 8192", arg);
		o->buffer_kb = v;
		return 0;
	case 'p':
		if (kt_parse_ulong(arg, INT32_MAX, &v) || !v)
			argp_error(state, "bad pid '%s'", arg);
		pids = realloc(o->pids, (o->npids + 1) * sizeof(*pids));
		if (!pids)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-p");
		o->pids = pids;
		o->pids[o->npids++] = v;
		return 0;
	case 'F':
		o->only_cmd = true;
		return 0;
	case 'c':
		o->children = true;
		return 0;
	case ARGP_KEY_END:
		if (o->only_cmd && !o->cmd)
			argp_error(state, "-F needs a COMMAND");
		if (o->children && !o->cmd && !o->npids)
			argp_error(state, "-c needs a COMMAND or -p PID");
		if (o->only_cmd && o->npids)
			argp_error(state, "-F and -p conflict; -F traces only COMMAND");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void kt_trace_opts_free(struct kt_trace_opts *o)
{
	free(o->specs);
	free(o->pids);
	o->specs = NULL;
	o->pids = NULL;
}

/* Does the option named by arg (without dashes) take an argument? */
static bool long_takes_arg(const struct argp_option *options,
			   const char *name, size_t len)
{
	const struct argp_option *op;

	for (op = options; op->name || op->key || op->doc; op++)
		if (op->name && !strncmp(op->name, name, len) && op->arg)
			return true;
	return false;
}

static bool short_takes_arg(const struct argp_option *options, int c)
{
	const struct argp_option *op;

	for (op = options; op->name || op->key || op->doc; op++)
		if (op->key == c)
			return op->arg != NULL;
	return false;
}

/*
 * Everything from COMMAND on belongs to the command, even words that
 * look like our options.
 */
int kt_trace_split_command(const struct argp_option *options, int argc,
			   char **argv, struct kt_trace_opts *o)
{
	bool dashdash = false;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			dashdash = true;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			if (!eq && long_takes_arg(options, a + 2, strlen(a + 2)))
				i++;
			continue;
		}
		for (a++; *a; a++) {
			if (short_takes_arg(options, *a)) {
				if (!a[1])
					i++;
				break;
			}
		}
	}
	if (i > argc)
		i = argc;
	if (i < argc && argv[i + (dashdash ? 1 : 0)])
		o->cmd = argv + i + (dashdash ? 1 : 0);
	return i;
}

static int add_resolved(struct kt_tracing *t, const struct kt_evspec *sp)
{
	struct kt_event_list *one = kt_event_list_new();
	size_t before = kt_event_list_count(t->events), j, k, n;
	int status = KT_EXIT_FAIL;
	char **f;

	if (!one)
		return KT_EXIT_FAIL;
	/* Exact names need no catalog; load it only when one must. */
	if (kt_event_lookup(NULL, sp->spec, one) != 1) {
		if (!t->cat)
			t->cat = kt_catalog_load(NULL);
		if (!t->cat) {
			kt_err("cannot read the event list: %s", strerror(errno));
			goto out;
		}
		if (kt_resolve_event_spec(t->cat, sp->spec, one))
			goto out;
	}
	for (j = 0; j < kt_event_list_count(one); j++) {
		const struct kt_event_ref *r = kt_event_list_at(one, j);

		if (kt_event_list_add(t->events, r->system, r->name) < 0)
			goto out;
	}
	n = kt_event_list_count(t->events);
	f = realloc(t->filters, (n ? n : 1) * sizeof(*f));
	if (!f)
		goto out;
	t->filters = f;
	for (j = before; j < n; j++)
		f[j] = NULL;
	/* The filter lands on every event its -e named. */
	for (j = 0; sp->filter && j < n; j++) {
		const struct kt_event_ref *r = kt_event_list_at(t->events, j);

		for (k = 0; k < kt_event_list_count(one); k++) {
			const struct kt_event_ref *x = kt_event_list_at(one, k);

			if (!strcmp(x->system, r->system) &&
			    !strcmp(x->name, r->name))
				f[j] = sp->filter;
		}
	}
	status = KT_EXIT_OK;
out:
	kt_event_list_free(one);
	return status;
}

int kt_tracing_resolve(struct kt_tracing *t, const struct kt_trace_opts *o,
		       const struct kt_evspec *specs, size_t nspecs)
{
	static const struct kt_evspec defaults[] = {
		{ "sched:sched_switch", NULL },
		{ "sched:sched_wakeup", NULL },
	};
	size_t i;

	if (!specs) {
		specs = o->nspecs ? o->specs : defaults;
		nspecs = o->nspecs ? o->nspecs : 2;
	}

	t->o = o;
	t->events = kt_event_list_new();
	if (!t->events)
		return KT_EXIT_FAIL;
	for (i = 0; i < nspecs; i++)
		if (add_resolved(t, &specs[i]))
			return KT_EXIT_FAIL;
	for (i = 0; i < o->npids; i++) {
		if (kill(o->pids[i], 0) < 0 && errno == ESRCH) {
			kt_err("no process with pid %d; see 'ps'", (int)o->pids[i]);
			return KT_EXIT_FAIL;
		}
	}
	return KT_EXIT_OK;
}

bool kt_is_module_event(const struct kt_event_ref *r)
{
	return !strcmp(r->system, KTRACE_EVENT_SYSTEM) && kt_events_use_module();
}

static bool is_ftrace_event(const struct kt_event_ref *r)
{
	/* ftrace/print and friends have no enable file: always on. */
	return !strcmp(r->system, "ftrace");
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
		return KT_EXIT_FAIL;
	}
	if (!created) {
		kt_instance_close(t->inst);
		t->inst = NULL;
		kt_err("tracefs instance '%s' already exists; remove it with 'ktrace reset'",
		       t->inst_name);
		return KT_EXIT_FAIL;
	}
	/* Nothing reaches the buffer until everything is in place. */
	ret = kt_tracefs_write(t->inst, "tracing_on", "0");
	if (ret) {
		kt_err("cannot stop tracing in '%s': %s", t->inst_name, strerror(-ret));
		return KT_EXIT_FAIL;
	}
	ret = kt_tracefs_write(t->inst, "buffer_percent", wake_percent);
	if (ret && ret != -ENOENT) {
		kt_err("cannot set buffer_percent: %s", strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (t->o->buffer_kb) {
		char kb[32];

		snprintf(kb, sizeof(kb), "%lu", t->o->buffer_kb);
		ret = kt_tracefs_write(t->inst, "buffer_size_kb", kb);
		if (ret) {
			kt_err("cannot set a %lu KB buffer: %s; try a smaller -b",
			       t->o->buffer_kb, strerror(-ret));
			return KT_EXIT_FAIL;
		}
	}
	return KT_EXIT_OK;
}

static void filter_error(const char *filter, const struct kt_event_ref *r,
			 char *why, int err)
{
	const char *dir = tracefs_tracing_dir();
	char *msg = why, *p, *nl;

	/* error_log: "[ts] event filter parse error: error: <reason>\n ..." */
	while (msg && (p = strstr(msg, "error: ")))
		msg = p + strlen("error: ");
	if (msg) {
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
	}
	kt_err("bad filter '%s' for '%s:%s': %s; its fields are in %s/events/%s/%s/format",
	       filter, r->system, r->name, msg && *msg ? msg : strerror(-err),
	       dir ? dir : "", r->system, r->name);
	free(why);
}

/*
 * --comm NAME: the kernel's filters know "comm" on every event (the
 * current task's name, or the event's own comm field where it has one,
 * the same name for the events --process records).
 */
static char *comm_filter(const char *comm, const char *user)
{
	const char *op = strpbrk(comm, "*?[") ? "~" : "==";
	char *f;

	if (user ? asprintf(&f, "(%s) && comm %s \"%s\"", user, op, comm) < 0
		 : asprintf(&f, "comm %s \"%s\"", op, comm) < 0)
		return NULL;
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

		filter = t->filters[i];
		comm = NULL;
		/* ktrace.ko's events take no filter: --comm is ftrace's. */
		if (t->comm && *t->comm && !is_ftrace_event(r) && !kt_is_module_event(r)) {
			comm = comm_filter(t->comm, filter);
			if (!comm)
				return KT_EXIT_FAIL;
			filter = comm;
		}
		if (!filter)
			continue;
		if (kt_is_module_event(r)) {
			kt_err("'%s:%s' is ktrace.ko's and takes no filter; drop the -f after it, or use -F/-p for pids",
			       r->system, r->name);
			return KT_EXIT_FAIL;
		}
		if (is_ftrace_event(r)) {
			kt_err("event '%s:%s' cannot be filtered; drop the -f after it",
			       r->system, r->name);
			return KT_EXIT_FAIL;
		}
		ret = kt_event_set_filter(t->inst, r->system, r->name,
					  filter, &why);
		if (ret)
			filter_error(filter, r, why, ret);
		free(comm);
		if (ret)
			return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}

static int enable_events(struct kt_tracing *t)
{
	size_t i, n = kt_event_list_count(t->events);
	int ret;

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(t->events, i);

		/* ktrace.ko's events are the caller's (see record's module_prepare). */
		if (is_ftrace_event(r) || kt_is_module_event(r))
			continue;
		ret = kt_event_set_enable(t->inst, r->system, r->name, true);
		if (ret) {
			kt_err("cannot enable '%s:%s': %s", r->system, r->name,
			       strerror(-ret));
			return KT_EXIT_FAIL;
		}
	}
	return KT_EXIT_OK;
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
		return KT_EXIT_OK;
	if (child > 0)
		ret = append_pid(&list, &len, child);
	for (i = 0; !ret && i < o->npids; i++)
		ret = append_pid(&list, &len, o->pids[i]);
	if (!ret && children)
		ret = kt_tracefs_write(t->inst, "options/event-fork", "1");
	if (!ret)
		ret = kt_tracefs_write(t->inst, "set_event_pid", list);
	if (ret)
		kt_err("cannot limit tracing to pids '%s': %s", list ? list : "",
		       strerror(-ret));
	free(list);
	return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

int kt_tracing_arm(struct kt_tracing *t, pid_t child)
{
	if (set_pids(t, child) || set_filters(t) || enable_events(t))
		return KT_EXIT_FAIL;
	return KT_EXIT_OK;
}

void kt_tracing_release(struct kt_tracing *t)
{
	if (t->inst) {
		/* An error before the end: no events must stay enabled. */
		kt_tracefs_write(t->inst, "tracing_on", "0");
		kt_instance_remove(t->inst);
		t->inst = NULL;
	}
	free(t->filters);
	t->filters = NULL;
	kt_event_list_free(t->events);
	t->events = NULL;
	kt_catalog_free(t->cat);
	t->cat = NULL;
}

int kt_signals_block(sigset_t *old)
{
	struct sigaction sa = { .sa_handler = SIG_DFL }, prev;
	sigset_t set;
	int fd;

	/*
	 * A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal never reaches a signalfd: take SIGINT and SIGTERM back.
	 * An ignored SIGHUP (nohup) stays ignored.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (sigaction(SIGHUP, NULL, &prev) == 0 && prev.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		fd = -errno;
		sigprocmask(SIG_SETMASK, old, NULL);
	}
	return fd;
}

bool kt_run_child_exited(struct kt_run *r)
{
	int st;

	if (!r->child || r->child_done)
		return r->child_done;
	if (kt_child_poll(r->child, &st) != 1)
		return false;
	r->child_done = true;
	r->child_status = st;
	return true;
}

enum kt_run_event kt_run_signals(struct kt_run *r, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (r->child && !r->child_done && kt_run_child_exited(r))
				return KT_RUN_CHILD_EXITED;
			continue;
		}
		r->nsignals++;
		r->stop_signal = (int)si.ssi_signo;
		if (r->child && !r->child_done && r->nsignals == 1) {
			/*
			 * COMMAND's exit ends the session, so its last events
			 * are kept.  A signal from the terminal reached it
			 * already; one sent to ktrace alone is passed on.
			 */
			if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
				kill(kt_child_pid(r->child), (int)si.ssi_signo);
			continue;
		}
		return KT_RUN_SIGNALLED;
	}
	return KT_RUN_GOING;
}

int kt_run_exit_status(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return KT_EXIT_FAIL;
}
