// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace stream: trace into a private instance and print events as they
 * happen, with report's decoder and line format, no file.  The session
 * is lib/live/session/session.h, its live decoder lib/live/session/sink-print.h; this
 * file parses the options and prints the start line and the summary.
 * KTRACE_NO_MMAP=1 forces read() of the buffers (lib/live/buffers/livebuf.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "base/log.h"
#include "live/session/child.h"
#include "live/session/run.h"
#include "live/session/session.h"
#include "live/session/sink-print.h"
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

	ret = trace_opt(&o->t, key, arg, state);
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

/* The start line, as tracing goes on. */
static void started(void *arg)
{
	struct kt_session **s = arg;

	fprintf(stderr, "%s: streaming from instance '%s'%s\n", kt_log_prog(),
		kt_session_instance(*s),
		kt_run_child_pid(kt_session_runner(*s)) ? "" : "; Ctrl-C stops");
}

/* The summary on stderr; loud about loss even with -q. */
static void summary(const struct stream_opts *o, const struct kt_print_sink *p)
{
	struct kt_print_summary sum;
	unsigned long long overrun, dropped;
	int cpu;

	kt_print_sink_summary(p, &sum);
	if (!o->quiet)
		fprintf(stderr, "%s: %llu events on %d CPUs (%s), %llu%s lost\n",
			kt_log_prog(), sum.events, sum.ncpus,
			sum.mapped == sum.ncpus ? "mapped" :
			sum.mapped ? "mapped+read" : "read",
			sum.lost, sum.unknown ? "+" : "");
	if (!sum.lost && !sum.unknown)
		return;
	kt_warn("LOST %llu%s events: the kernel buffer filled up faster than it was printed",
		sum.lost, sum.unknown ? "+" : "");
	for (cpu = 0; cpu < sum.ncpus; cpu++) {
		kt_print_sink_cpu_loss(p, cpu, &overrun, &dropped);
		if (overrun || dropped)
			kt_warn("  CPU %d: %llu overrun, %llu dropped", cpu,
				overrun, dropped);
	}
	kt_warn("to lose nothing: a bigger buffer (-b), fewer events (-e), a filter (-f), or output to a file");
}

/* Its exit status once streaming ended (why) and COMMAND with it. */
static int stream_status(struct kt_session *s, enum kt_session_stop why)
{
	struct kt_run *run = kt_session_runner(s);
	int st;

	if (kt_run_child_running(run)) {
		/* Nobody reads what it does any more (or we failed). */
		if (why == KT_STOP_OUTPUT || why == KT_STOP_ERROR)
			kt_run_child_kill(run, SIGTERM);
		kt_run_child_wait(run);
	}
	if (why == KT_STOP_ERROR) {
		kt_err("streaming stopped: %s", strerror(-kt_session_error(s)));
		return KT_EXIT_FAIL;
	}
	if (why != KT_STOP_OUTPUT && kt_run_child_status(run, &st))
		return kt_run_exit_status(st);
	return KT_EXIT_OK;
}

static int stream(struct stream_opts *o)
{
	static char obuf[1 << 16];
	struct kt_print_sink_opts po = {
		.json = o->json, .nsec = o->nsec, .clock = o->clock, .out = stdout,
	};
	struct kt_session *s = NULL;
	struct kt_session_config cfg = {
		.t = &o->t, .clock = o->clock, .quiet = true, .comm = "",
		.started = o->quiet ? NULL : started, .arg = &s,
	};
	struct kt_print_sink *p;
	struct kt_sink sink;
	int status = KT_EXIT_FAIL, ret, st;
	enum kt_session_stop why;
	struct stat sb;

	po.out_is_pipe = !fstat(STDOUT_FILENO, &sb) &&
			 (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode));
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	p = kt_print_sink_new(&po);
	sink = (struct kt_sink){ &kt_print_sink_ops, p };
	cfg.sinks = &sink;
	cfg.nsinks = 1;
	s = kt_session_new(&cfg);
	if (!s)
		return errno == EDOM ? KT_EXIT_USAGE : KT_EXIT_FAIL;
	if (o->t.cmd) {
		ret = kt_child_check(o->t.cmd[0]);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t.cmd[0],
			       ret == -ENOENT ? "command not found" : strerror(-ret));
			status = ret == -ENOENT ? 127 : 126;
			goto out;
		}
	}
	if (kt_session_start(s)) {
		if (kt_run_child_status(kt_session_runner(s), &st))
			status = kt_run_exit_status(st);
		goto out;
	}
	kt_session_run(s);
	kt_session_finish(s);
	summary(o, p);
	why = kt_session_stopped(s);
	status = stream_status(s, why);
	if (why == KT_STOP_OUTPUT) {
		/* The dispatcher's last flush must not complain either. */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			__fpurge(stdout);
			clearerr(stdout);
			dup2(null, STDOUT_FILENO);
			close(null);
		}
	}
out:
	kt_session_free(s);
	return status;
}

int cmd_stream(int argc, char **argv)
{
	struct stream_opts o = { 0 };
	int cmd_at, status;

	cmd_at = split_command(options, argc, argv, &o.t);
	if (parse_args(&argp, cmd_at, argv, &o)) {
		trace_opts_free(&o.t);
		return KT_EXIT_OK;
	}
	status = stream(&o);
	trace_opts_free(&o.t);
	return status;
}
