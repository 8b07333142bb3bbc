// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace stream: trace into a private instance and print events as they
 * happen, with report's decoder and line format, no file.
 *
 * Every CPU's buffer is polled (buffer_percent 0: any event wakes us);
 * each wake-up decodes what is committed on every CPU, merged in time
 * order (lib/live/livestream.h says how far the order holds), and flushes it.
 * The mapped ring buffer is read in place where the kernel has it
 * (6.10+); KTRACE_NO_MMAP=1 forces read().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "live/child.h"
#include "decode/decoder.h"
#include "decode/printer.h"
#include "live/tracefs.h"
#include "live/livebuf.h"
#include "live/livestream.h"
#include "live/modlive.h"
#include "live/module.h"
#include "base/log.h"
#include "live/run.h"
#include "live/tracing.h"
#include "util-session-opts.h"

enum {
	OPT_FORMAT = 256,
	OPT_CLOCK,
};

struct stream_opts {
	struct kt_trace_opts t;
	bool json;
	bool nsec;
	bool quiet;
	const char *clock;
};

static const char args_doc[] = "[-- COMMAND [ARGS...]]";
static const char doc[] =
	"Trace a command, or the whole system, and print events as they happen."
	"\vLines are those of 'ktrace report' (text, or JSON with --format json); "
	"lost events show inline as 'CPU:N [N EVENTS DROPPED]' and in a summary "
	"on standard error at the end.  With COMMAND, tracing is on before its "
	"first instruction, stops when it exits, and ktrace exits with its "
	"status.  Without, ktrace streams until SIGINT/SIGTERM or until its "
	"output is closed.  With no -e, streams sched:sched_switch and "
	"sched:sched_wakeup.";

static const struct argp_option options[] = {
	KT_TRACE_OPTIONS,
	/* -p PID as before -P; a tracer name is record's. */
	{ NULL, 'p', "PID", OPTION_HIDDEN, NULL, 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default) or json (one object per line)", 0 },
	{ "nsec", 't', NULL, 0, "timestamps in nanoseconds", 0 },
	{ "clock", OPT_CLOCK, "CLOCK", 0, "trace clock of the instance (local, global, mono, boot, ...)", 0 },
	{ "quiet", 'q', NULL, 0, "no start line and no summary (losses are still reported)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct stream_opts *o = state->input;
	error_t ret;

	ret = kt_trace_opt(&o->t, key, arg, state);
	if (ret != ARGP_ERR_UNKNOWN && key != ARGP_KEY_END)
		return ret;
	switch (key) {
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			o->json = true;
		else if (strcmp(arg, "text"))
			argp_error(state, "bad --format '%s'; use text or json", arg);
		break;
	case 't':
		o->nsec = true;
		break;
	case OPT_CLOCK:
		if (!*arg || strchr(arg, '/') || strchr(arg, ' '))
			argp_error(state, "bad --clock '%s'; see the trace_clock file", arg);
		o->clock = arg;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'p':
		argp_error(state, "stream runs no tracer ('-p %s'); record does (ktrace record -p %s), and -P PID gives a pid",
			   arg, arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected '%s'; put the command after the options", arg);
		break;
	case ARGP_KEY_END:
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

enum stop_reason {
	STOP_NONE,
	STOP_CHILD = KT_RUN_CHILD_EXITED,
	STOP_SIGNAL = KT_RUN_SIGNALLED,
	STOP_OUTPUT = KT_RUN_HOOK,	/* the reader of our output went away */
	STOP_ERROR,
};

struct stream {
	struct stream_opts *o;
	struct kt_tracing *t;
	struct tep_handle *tep;
	struct kt_livestream *ls;
	struct kt_modlive *mod;		/* ktrace.ko, when its events stream */
	struct kt_printer *p;
	struct kt_run *run;		/* COMMAND and the signals that end it */
	int ncpus;
	struct kt_cpu_stats *st0, *st1;
	bool out_is_pipe;
	enum stop_reason why;
	int err;		/* first decode/print error */
};

/* Systems the events come from, plus ftrace (trace_marker's print). */
static struct tep_handle *load_formats(const struct kt_event_list *events)
{
	size_t n = kt_event_list_count(events), i, j, k = 0;
	const char **systems = calloc(n + 2, sizeof(*systems));
	struct tep_handle *tep;

	if (!systems)
		return NULL;
	systems[k++] = "ftrace";
	for (i = 0; i < n; i++) {
		const char *sys = kt_event_list_at(events, i)->system;

		/* ktrace.ko's formats are in debugfs: kt_modlive_formats(). */
		if (kt_is_module_event(kt_event_list_at(events, i)))
			continue;
		for (j = 0; j < k && strcmp(systems[j], sys); j++)
			;
		if (j == k)
			systems[k++] = sys;
	}
	tep = tracefs_local_events_system(NULL, systems);
	free(systems);
	return tep;
}

/* The kernel's last name for pid, from saved_cmdlines ("pid comm"). */
static int saved_comm(int pid, char *comm, size_t len)
{
	char *text = kt_tracefs_read(NULL, "saved_cmdlines"), *p, *nl;
	char key[24];
	int ret = -ENOENT;

	if (!text)
		return -errno;
	snprintf(key, sizeof(key), "%d ", pid);
	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, strlen(key))) {
			if (nl)
				*nl = '\0';
			snprintf(comm, len, "%s", p + strlen(key));
			ret = 0;
			break;
		}
	}
	free(text);
	return ret;
}

/*
 * Task names as events name pids: /proc while the task lives (the
 * truth, where saved_cmdlines may still hold an earlier task with the
 * same pid), then the command's own name, then saved_cmdlines, else
 * "<...>" for good.
 */
/*
 * The pids learn_comm() has named.  The tep comes preloaded with
 * saved_cmdlines, which may name an earlier task that had the same pid,
 * so a pid registered there is not yet known: only one asked here is.
 * pid_max is at most 2^22: a bitmap of 512 KB, allocated on first use.
 */
#define STREAM_PID_MAX (1u << 22)
static unsigned char *learned;

static bool learned_before(int pid)
{
	if (!learned)
		learned = calloc(STREAM_PID_MAX / 8, 1);
	if (!learned || (unsigned int)pid >= STREAM_PID_MAX)
		return false;
	if (learned[pid / 8] & (1u << (pid % 8)))
		return true;
	learned[pid / 8] |= 1u << (pid % 8);
	return false;
}

static void learn_comm(struct stream *s, int pid)
{
	struct tep_handle *tep = s->tep;
	char path[64], comm[64];
	ssize_t n;
	int fd;

	if (pid <= 0 || learned_before(pid))
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		if (pid == kt_run_child_pid(s->run)) {
			const char *slash = strrchr(s->o->t.cmd[0], '/');

			/* What exec made its comm: the name, cut to 15. */
			snprintf(comm, 16, "%s", slash ? slash + 1 : s->o->t.cmd[0]);
			tep_override_comm(tep, comm, pid);
			return;
		}
		if (saved_comm(pid, comm, sizeof(comm)) == 0) {
			tep_override_comm(tep, comm, pid);
			return;
		}
		/* Gone already: remember that, so we ask once. */
		tep_override_comm(tep, "<...>", pid);
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	tep_override_comm(tep, comm, pid);
}

static int print_fn(const struct kt_event *ev, void *arg)
{
	struct stream *s = arg;

	learn_comm(s, tep_data_pid(s->tep, ev->record));
	return kt_printer_print(s->p, ev);
}

/*
 * Decode and print what is committed now; false to stop.  While tracing
 * runs, one bounded round: under a flood the loop must come back to
 * poll() to see signals and the end of the command.  At the end (all),
 * until the buffers are empty.
 */
static bool drain(struct stream *s, bool all)
{
	long n;

	for (;;) {
		n = kt_livestream_round(s->ls, print_fn, s);
		if (n < 0)
			break;
		/* Out at once: a line a reader waits for is not held back. */
		if (fflush(stdout)) {
			n = errno ? -errno : -EIO;
			break;
		}
		if (!n || !all)
			return true;
	}
	if (n == -EPIPE) {
		s->why = STOP_OUTPUT;
		return false;
	}
	if (!s->err)
		s->err = (int)n;
	s->why = STOP_ERROR;
	return false;
}

/* Before each wait: print what is there; stop when that fails. */
static int run_before(void *arg, int *timeout_ms)
{
	struct stream *s = arg;

	(void)timeout_ms;
	return drain(s, false) ? 0 : s->why;
}

/* A pipe whose reader left says POLLERR: stop even when idle. */
static int run_woke(void *arg, const struct pollfd *fds)
{
	(void)arg;
	return fds[0].revents & (POLLERR | POLLHUP) ? STOP_OUTPUT : 0;
}

static void run_loop(struct stream *s)
{
	int n = kt_livestream_nfds(s->ls) + 1, i, why;
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	struct kt_run_hooks hooks = {
		.fds = pfd, .nfds = n, .before = run_before, .woke = run_woke,
		.arg = s,
	};

	if (!pfd) {
		s->err = -ENOMEM;
		s->why = STOP_ERROR;
		return;
	}
	pfd[0].fd = s->out_is_pipe ? STDOUT_FILENO : -1;
	pfd[0].events = 0;
	for (i = 0; i + 1 < n; i++) {
		pfd[i + 1].fd = kt_livestream_fd(s->ls, i);
		pfd[i + 1].events = POLLIN;
	}
	why = kt_run_loop(s->run, &hooks);
	if (why < 0) {
		s->err = why;
		s->why = STOP_ERROR;
	} else {
		s->why = why;
	}
	free(pfd);
}

/* The instance's counters, and ktrace.ko's (zero at the start) added. */
static void read_stats(struct stream *s, struct kt_cpu_stats *st)
{
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (kt_cpu_stats_read(kt_tracing_inst(s->t), cpu, &st[cpu]))
			memset(&st[cpu], 0, sizeof(st[cpu]));
	if (s->mod && st == s->st1)
		kt_modlive_stats(s->mod, st);
}

/* The summary on stderr; loud about loss even with -q. */
static void summary(struct stream *s)
{
	unsigned long long events = 0, lost = 0, marks = 0, l;
	bool unknown = false, u;
	int cpu, mapped;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		events += kt_livestream_events(s->ls, cpu);
		lost += kt_stat_delta(s->st1[cpu].overrun, s->st0[cpu].overrun) +
			kt_stat_delta(s->st1[cpu].dropped, s->st0[cpu].dropped) +
			kt_stat_delta(s->st1[cpu].commit_overrun, s->st0[cpu].commit_overrun);
		marks += kt_livestream_missed(s->ls, cpu, &u);
		unknown |= u;
	}
	if (marks > lost)
		lost = marks;
	mapped = kt_livestream_mapped(s->ls);
	if (!s->o->quiet)
		fprintf(stderr, "%s: %llu events on %d CPUs (%s), %llu%s lost\n",
			kt_log_prog(), events, s->ncpus,
			mapped == s->ncpus ? "mapped" : mapped ? "mapped+read" : "read",
			lost, unknown ? "+" : "");
	if (!lost && !unknown)
		return;
	kt_warn("LOST %llu%s events: the kernel buffer filled up faster than it was printed",
		lost, unknown ? "+" : "");
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		l = kt_stat_delta(s->st1[cpu].overrun, s->st0[cpu].overrun) +
		    kt_stat_delta(s->st1[cpu].commit_overrun, s->st0[cpu].commit_overrun);
		if (l || kt_stat_delta(s->st1[cpu].dropped, s->st0[cpu].dropped))
			kt_warn("  CPU %d: %llu overrun, %llu dropped", cpu, l,
				kt_stat_delta(s->st1[cpu].dropped, s->st0[cpu].dropped));
	}
	kt_warn("to lose nothing: a bigger buffer (-b), fewer events (-e), a filter (-f), or output to a file");
}

static bool in_usecs(const char *clock)
{
	/* Clocks that count something other than nanoseconds. */
	return !clock || (strcmp(clock, "counter") && strcmp(clock, "uptime") &&
			  strcmp(clock, "x86-tsc") && strcmp(clock, "perf"));
}

/* ktrace.ko stamps with trace_clock_local: its records sort with those. */
static int check_module_clock(struct stream *s)
{
	const struct kt_event_list *events = kt_tracing_events(s->t);
	size_t i, n = kt_event_list_count(events);

	if (!s->o->clock || !strcmp(s->o->clock, "local"))
		return KT_EXIT_OK;
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!kt_is_module_event(r))
			continue;
		kt_err("'%s:%s' is ktrace.ko's event, stamped with the local clock: drop --clock %s, or stream ftrace events only",
		       r->system, r->name, s->o->clock);
		return KT_EXIT_USAGE;
	}
	return KT_EXIT_OK;
}

/*
 * ktrace.ko's events: the module set up as record sets it, its formats
 * learned, its traceN files merged with the instance's per-CPU buffers.
 */
static int setup_module(struct stream *s)
{
	char rel[32], path[4096];
	int ret, cpu;

	ret = kt_modlive_new(s->t, &s->o->t, kt_run_child_pid(s->run), s->ncpus, &s->mod);
	if (ret || !s->mod)
		return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
	ret = kt_modlive_formats(s->mod, s->tep);
	for (cpu = 0; !ret && cpu < kt_modlive_cpus(s->mod); cpu++) {
		snprintf(rel, sizeof(rel), "%s%d", KTRACE_FILE_TRACE_PREFIX, cpu);
		ret = kt_module_path(rel, path, sizeof(path));
		if (!ret)
			ret = kt_livestream_add_pages(s->ls, path, cpu);
		if (ret)
			kt_err("cannot open ktrace.ko's %s: %s", rel, strerror(-ret));
	}
	return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

static int setup(struct stream *s)
{
	struct stream_opts *o = s->o;
	unsigned int flags = 0;
	const char *env;
	int ret;

	s->t = kt_tracing_new(&o->t, NULL, 0);
	if (!s->t)
		return KT_EXIT_FAIL;
	ret = check_module_clock(s);
	if (ret)
		return ret;
	if (o->t.cmd) {
		ret = kt_child_check(o->t.cmd[0]);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t.cmd[0],
			       ret == -ENOENT ? "command not found" : strerror(-ret));
			return ret == -ENOENT ? 127 : 126;
		}
	}
	s->ncpus = kt_cpu_count();
	if (s->ncpus <= 0) {
		kt_err("cannot count CPUs in tracefs: %s", strerror(-s->ncpus));
		return KT_EXIT_FAIL;
	}
	s->st0 = calloc(s->ncpus, sizeof(*s->st0));
	s->st1 = calloc(s->ncpus, sizeof(*s->st1));
	if (!s->st0 || !s->st1)
		return KT_EXIT_FAIL;
	s->tep = load_formats(kt_tracing_events(s->t));
	if (!s->tep) {
		kt_err("cannot read the event formats: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	/* Any event wakes the readers: a line shows as soon as it happens. */
	if (kt_tracing_instance(s->t, "0"))
		return KT_EXIT_FAIL;
	if (o->clock) {
		ret = kt_tracefs_write(kt_tracing_inst(s->t), "trace_clock", o->clock);
		if (ret) {
			kt_err("cannot set trace clock '%s': %s; see %s/trace_clock",
			       o->clock, strerror(-ret),
			       tracefs_tracing_dir() ? tracefs_tracing_dir() : "");
			return KT_EXIT_FAIL;
		}
	}
	env = getenv("KTRACE_NO_MMAP");
	if (env && *env && strcmp(env, "0"))
		flags |= KT_LIVEBUF_NO_MMAP;
	s->ls = kt_livestream_new(kt_tracing_inst(s->t), s->ncpus, s->tep, flags);
	if (!s->ls) {
		kt_err("cannot open the per-CPU buffers: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	if (o->t.cmd) {
		ret = kt_run_child_new(s->run, o->t.cmd);
		if (ret) {
			kt_err("cannot start '%s': %s", o->t.cmd[0], strerror(-ret));
			return KT_EXIT_FAIL;
		}
	}
	if (kt_tracing_arm(s->t, kt_run_child_pid(s->run)))
		return KT_EXIT_FAIL;
	ret = setup_module(s);
	if (ret)
		return ret;
	/* After the module's formats: the printer compiles what tep holds. */
	s->p = kt_printer_new_tep(s->tep, in_usecs(o->clock),
				  o->json ? KT_PRINT_JSON : KT_PRINT_TEXT,
				  (o->nsec ? KT_PRINT_NSEC : 0) | KT_PRINT_COMPILED,
				  stdout);
	if (!s->p)
		return KT_EXIT_FAIL;
	read_stats(s, s->st0);
	if (s->mod && kt_modlive_start(s->mod))
		return KT_EXIT_FAIL;
	ret = kt_tracefs_write(kt_tracing_inst(s->t), "tracing_on", "1");
	if (ret) {
		kt_err("cannot start tracing: %s", strerror(-ret));
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}

static int stream(struct stream_opts *o)
{
	struct stream s = { .o = o };
	static char obuf[1 << 16];
	int status, ret, st;
	struct stat sb;

	s.run = kt_run_new();
	if (!s.run) {
		kt_err("cannot set up signal handling: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	s.out_is_pipe = !fstat(STDOUT_FILENO, &sb) &&
			(S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode));
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	status = setup(&s);
	if (status)
		goto out;
	if (!o->quiet)
		fprintf(stderr, "%s: streaming from instance '%s'%s\n",
			kt_log_prog(), kt_tracing_name(s.t),
			kt_run_child_pid(s.run) ? "" : "; Ctrl-C stops");
	if (kt_run_child_pid(s.run)) {
		ret = kt_run_child_release(s.run);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t.cmd[0], strerror(-ret));
			status = kt_run_child_status(s.run, &st) ?
				 kt_run_exit_status(st) : KT_EXIT_FAIL;
			goto out;
		}
	}

	run_loop(&s);

	/* Nothing new in the buffers, then print what is left in them. */
	kt_tracefs_write(kt_tracing_inst(s.t), "tracing_on", "0");
	if (s.mod && kt_modlive_stop(s.mod) && s.why != STOP_ERROR) {
		s.why = STOP_ERROR;
		s.err = -EIO;
	}
	if (s.why != STOP_OUTPUT && s.why != STOP_ERROR)
		drain(&s, true);
	read_stats(&s, s.st1);
	summary(&s);
	if (kt_run_child_running(s.run)) {
		/* Nobody reads what it does any more (or we failed). */
		if (s.why == STOP_OUTPUT || s.why == STOP_ERROR)
			kt_run_child_kill(s.run, SIGTERM);
		kt_run_child_wait(s.run);
	}
	if (s.why == STOP_ERROR) {
		kt_err("streaming stopped: %s", strerror(-s.err));
		status = KT_EXIT_FAIL;
	} else if (s.why == STOP_OUTPUT) {
		status = KT_EXIT_OK;
	} else if (kt_run_child_status(s.run, &st)) {
		status = kt_run_exit_status(st);
	} else {
		status = KT_EXIT_OK;
	}
out:
	kt_printer_free(s.p);
	kt_livestream_free(s.ls);
	kt_modlive_free(s.mod);
	if (s.run)
		kt_run_child_free(s.run);
	kt_tracing_free(s.t);
	if (s.tep)
		tep_free(s.tep);
	free(s.st0);
	free(s.st1);
	kt_run_free(s.run);
	if (s.why == STOP_OUTPUT) {
		/* The dispatcher's last flush must not complain either. */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			__fpurge(stdout);
			clearerr(stdout);
			dup2(null, STDOUT_FILENO);
			close(null);
		}
	}
	return status;
}

int cmd_stream(int argc, char **argv)
{
	struct stream_opts o = { 0 };
	int cmd_at, status;

	cmd_at = kt_trace_split_command(options, argc, argv, &o.t);
	if (kt_argp_parse(&argp, cmd_at, argv, &o)) {
		kt_trace_opts_free(&o.t);
		return KT_EXIT_OK;
	}
	status = stream(&o);
	kt_trace_opts_free(&o.t);
	free(learned);
	learned = NULL;
	return status;
}
