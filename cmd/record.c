// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace record: trace a command, or the whole system, into a trace.dat
 * (v6) file in a private tracefs instance.
 *
 * The order matters:
 *   1. check everything that can be wrong (events, filters, output file,
 *      command) before any event is enabled;
 *   2. fork the command held on a pipe, point set_event_pid at it, start
 *      the per-CPU recorders, enable the events, turn tracing on, and
 *      only then let the command exec;
 *   3. stop on its exit (or a signal, -s, -m, a full disk), drain the
 *      buffers, and assemble the file while the instance is removed in
 *      the background.
 * /proc/kallsyms is copied into the file by a helper thread while the
 * command runs, so a short recording does not wait for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "live/child.h"
#include "cmd.h"
#include "live/events.h"
#include "live/evlookup.h"
#include "live/tracefs.h"
#include "base/fileio.h"
#include "base/log.h"
#include "views/procview.h"
#include "live/module.h"
#include "live/evsave.h"
#include "live/recorder.h"
#include "live/recover.h"
#include "util-session.h"
#include "file/tracedat.h"
#include "file/writer.h"

#define DEFAULT_OUTPUT	"ktrace.dat"
/* kallsyms goes into the file in pieces of this size while being read. */
#define KSYMS_PIECE	(256 << 10)
/* buffer_percent of the instance: when the recorders wake up. */
#define WAKE_PERCENT	"10"

enum {
	OPT_FLIGHT = 256,
	OPT_MAX_LOST,
	OPT_PROCESS,
	OPT_COMM,
	OPT_UID,
	OPT_NO_SYSCALLS,
	OPT_NO_SIGNALS,
	OPT_NO_LIFECYCLE,
	OPT_RECOVER,
	OPT_BACKEND,
};

/* The kernel keeps this many characters of a process name. */
#define COMM_MAX	15

struct record_opts {
	struct kt_trace_opts t;
	const char *output;
	bool flight;
	bool quiet;
	double seconds;
	unsigned long long max_mb;
	long long max_lost;
	const char *recover;
	/* --process */
	bool process;
	bool no_syscalls, no_signals, no_lifecycle;
	char comm[COMM_MAX + 1];
	const char *uid;
};

/* ktrace.ko's process tracer controls record --process sets, in order. */
static const char *const proc_ctl[] = {
	KTRACE_FILE_PROCESS_LIFECYCLE,
	KTRACE_FILE_PROCESS_SYSCALLS,
	KTRACE_FILE_PROCESS_SIGNALS,
	KTRACE_FILE_PROCESS_UID_FILTER,
	KTRACE_FILE_PROCESS_COMM_FILTER,
	KTRACE_FILE_PROCESS_FOLLOW_PID,
};
#define NPROC_CTL	(sizeof(proc_ctl) / sizeof(proc_ctl[0]))
/* Its events: fork, exec, exit, signal, syscall entry and exit. */
#define NPROC_EVENTS	6

/* Why the recording ended. */
enum stop_reason {
	STOP_NONE,
	STOP_CHILD,
	STOP_SIGNAL,
	STOP_TIME,
	STOP_SIZE,
	STOP_ERROR,
};

struct session {
	struct record_opts *o;
	const char *tracing_dir;
	struct kt_tracing t;		/* instance, events, filters */
	struct kt_evspec *specs;	/* --process: what kt_tracing_resolve used */
	struct kt_writer *w;
	char *tmpdir;
	struct kt_run run;		/* COMMAND and the signals that end it */
	struct kt_recorder *rec;
	/* ktrace.ko's side, when a ktrace: event is recorded */
	size_t nmod;			/* module events in events */
	struct kt_event_state **mod_saved;
	bool mod_started;
	struct kt_modrec *mrec;
	bool mod_process;		/* --process on ktrace.ko's process_* events */
	char *proc_saved[NPROC_CTL];	/* the controls as found, to put back */
	char *mod_buf_saved;		/* -b: ktrace.ko's buffer_size_kb as found */
	int ncpus;
	struct kt_cpu_stats *st0, *st1;
	char **stat_text;		/* per CPU, as stored in the file */
	unsigned long long *cut;	/* per CPU, events a full disk cut off */
	char *clock;			/* trace_clock file text */
	int sfd;
	sigset_t oldmask;
	bool masked;
	struct timespec t0;
	double elapsed;
	/* helper threads */
	pthread_t ksyms;
	bool ksyms_running;
	pthread_mutex_t ksyms_lock;
	pthread_cond_t ksyms_cond;
	enum { KSYMS_WAIT, KSYMS_WRITE, KSYMS_ABORT } ksyms_go;
	int ksyms_err;
	pthread_t remover;
	bool remover_running;
	int remove_err;
	/* outcome */
	enum stop_reason why;
	bool status_line;
};

static const char args_doc[] = "[-- COMMAND [ARGS...]]";
static const char doc[] =
	"Trace a command, or the whole system, into a trace.dat file."
	"\vWith COMMAND, tracing is on before its first instruction and stops "
	"when it exits; ktrace exits with its status.  Without, ktrace records "
	"until SIGINT/SIGTERM or -s.  With no -e, records sched:sched_switch "
	"and sched:sched_wakeup.  The file is trace-cmd's trace.dat v6: "
	"'ktrace report' and 'trace-cmd report -i FILE' read it.";

static const struct argp_option options[] = {
	KT_TRACE_OPTIONS,
	{ "output", 'o', "FILE", 0, "write FILE (default " DEFAULT_OUTPUT ")", 0 },
	{ "flight", OPT_FLIGHT, NULL, 0, "flight recorder: keep only the newest -b KB per CPU, written at the end", 0 },
	{ "seconds", 's', "SECONDS", 0, "stop after SECONDS", 0 },
	{ "max-size", 'm', "MB", 0, "stop when the file reaches MB megabytes", 0 },
	{ "max-lost", OPT_MAX_LOST, "N", 0, "exit 3 when more than N events were lost", 0 },
	{ "quiet", 'q', NULL, 0, "no status line and no summary (losses are still reported)", 0 },
	{ "recover", OPT_RECOVER, "FILE", 0, "assemble FILE from the pieces a killed 'ktrace record -o FILE' left", 0 },
	{ "backend", OPT_BACKEND, "ftrace|module", 0, "names mean ftrace's events, or ktrace.ko's (default: a bare name ktrace.ko offers is its own)", 0 },
	{ NULL, 0, NULL, 0, "Process events:", 1 },
	{ "process", OPT_PROCESS, NULL, 0, "record process events (fork, exec, exit, signals, system calls) of COMMAND's or -p PID's whole tree, or of every process; on ktrace.ko's process tracer when it is loaded", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "with --process: only processes named NAME (the kernel keeps 15 characters; a glob on ftrace, an exact name on ktrace.ko)", 1 },
	{ "uid", OPT_UID, "UID", 0, "with --process: only processes of user UID (needs the ktrace module)", 1 },
	{ "no-syscalls", OPT_NO_SYSCALLS, NULL, 0, "with --process: no system calls", 1 },
	{ "no-signals", OPT_NO_SIGNALS, NULL, 0, "with --process: no signal deliveries", 1 },
	{ "no-lifecycle", OPT_NO_LIFECYCLE, NULL, 0, "with --process: no fork, exec and exit", 1 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	unsigned long long v;
	char *end;
	error_t ret;

	ret = kt_trace_opt(&o->t, key, arg, state);
	if (ret != ARGP_ERR_UNKNOWN && key != ARGP_KEY_END)
		return ret;
	switch (key) {
	case 'o':
		if (!*arg)
			argp_error(state, "-o needs a file name");
		o->output = arg;
		break;
	case OPT_FLIGHT:
		o->flight = true;
		break;
	case 's':
		errno = 0;
		o->seconds = strtod(arg, &end);
		if (errno || *end || !(o->seconds > 0) || o->seconds > 1e9)
			argp_error(state, "bad duration '%s'; give seconds, e.g. -s 10", arg);
		break;
	case 'm':
		if (kt_parse_ulong(arg, 1ULL << 30, &v) || !v)
			argp_error(state, "bad size '%s'; give megabytes, e.g. -m 100", arg);
		o->max_mb = v;
		break;
	case OPT_MAX_LOST:
		if (kt_parse_ulong(arg, INT64_MAX, &v))
			argp_error(state, "bad count '%s' for --max-lost", arg);
		o->max_lost = v;
		break;
	case 'q':
		o->quiet = true;
		break;
	case OPT_PROCESS:
		o->process = true;
		break;
	case OPT_COMM:
		if (!*arg || strchr(arg, '"') || strchr(arg, '\\'))
			argp_error(state, "bad process name '%s' for --comm", arg);
		/* Names are cut at 15 characters by the kernel: match that. */
		snprintf(o->comm, sizeof(o->comm), "%s", arg);
		break;
	case OPT_UID:
		if (kt_parse_ulong(arg, 4294967294ULL, &v))
			argp_error(state, "bad user id '%s' for --uid; give a number, e.g. --uid 1000", arg);
		o->uid = arg;
		break;
	case OPT_NO_SYSCALLS:
		o->no_syscalls = true;
		break;
	case OPT_NO_SIGNALS:
		o->no_signals = true;
		break;
	case OPT_NO_LIFECYCLE:
		o->no_lifecycle = true;
		break;
	case OPT_RECOVER:
		if (!*arg)
			argp_error(state, "--recover needs a file name");
		o->recover = arg;
		break;
	case OPT_BACKEND:
		kt_backend_option(state, arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected '%s'; put the command after the options", arg);
		break;
	case ARGP_KEY_END:
		if (o->flight && o->max_mb)
			argp_error(state, "--flight and -m conflict; a flight recording is -b KB per CPU");
		if (!o->process && (*o->comm || o->uid || o->no_syscalls ||
				    o->no_signals || o->no_lifecycle))
			argp_error(state, "--comm, --uid and --no-* go with --process");
		if (o->process && o->no_syscalls && o->no_signals &&
		    o->no_lifecycle && !o->t.nspecs)
			argp_error(state, "--no-syscalls, --no-signals and --no-lifecycle leave nothing to record");
		if (o->recover && (o->t.cmd || o->t.nspecs || o->t.npids || o->flight ||
				   o->process || o->seconds > 0 || o->max_mb ||
				   o->t.buffer_kb))
			argp_error(state, "--recover takes only FILE (and -q); it records nothing");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* ---- small helpers ---- */

/*
 * Which tracer --process uses: ktrace.ko's process tracer when its
 * events are in play (the module loaded and not --backend ftrace),
 * else ftrace's events.  Prints why the options cannot be had.
 */
static int process_backend(struct session *s)
{
	const struct record_opts *o = s->o;

	s->mod_process = kt_events_use_module() && kt_module_has_process();
	if (!s->mod_process && kt_events_backend() == KT_BACKEND_MODULE) {
		kt_err("this ktrace.ko has no process tracer ('%s' in %s); load a newer ktrace.ko, or use --backend ftrace",
		       KTRACE_FILE_PROCESS_FOLLOW_PID, kt_module_dir());
		return KT_EXIT_FAIL;
	}
	/* ftrace events carry no user id: only the module can filter on it. */
	if (o->uid && !s->mod_process) {
		if (kt_events_backend() == KT_BACKEND_FTRACE)
			kt_err("--uid needs the ktrace module, and --backend ftrace leaves it out; drop --backend ftrace, or use --comm NAME or -p PID");
		else if (!kt_module_present())
			kt_err("--uid needs the ktrace module (kernel/ktrace.ko); load it with 'insmod kernel/ktrace.ko', or use --comm NAME or -p PID");
		else
			kt_err("--uid needs the ktrace module's process tracer, which this ktrace.ko lacks; load a newer one, or use --comm NAME or -p PID");
		return KT_EXIT_FAIL;
	}
	/* The module compares whole names; ftrace's filters take globs. */
	if (s->mod_process && strpbrk(o->comm, "*?[")) {
		kt_err("--comm '%s' is a pattern, and ktrace.ko matches exact names; give the whole name, or add --backend ftrace for patterns",
		       o->comm);
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}



static double now_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void human_bytes(unsigned long long b, char *buf, size_t len)
{
	if (b >= 10ULL << 30)
		snprintf(buf, len, "%.1f GB", b / 1073741824.0);
	else if (b >= 1ULL << 20)
		snprintf(buf, len, "%.1f MB", b / 1048576.0);
	else if (b >= 1ULL << 10)
		snprintf(buf, len, "%.1f KB", b / 1024.0);
	else
		snprintf(buf, len, "%llu B", b);
}

/* Events lost in this recording on one CPU (overwritten or dropped). */
static unsigned long long cpu_lost(const struct session *s, int cpu)
{
	const struct kt_cpu_stats *a = &s->st0[cpu], *b = &s->st1[cpu];

	return kt_stat_delta(b->overrun, a->overrun) +
	       kt_stat_delta(b->dropped, a->dropped) +
	       kt_stat_delta(b->commit_overrun, a->commit_overrun);
}

/* Events of one CPU that reached the pieces: read, less those refused. */
static unsigned long long cpu_events(const struct session *s, int cpu)
{
	return kt_stat_delta(kt_stat_delta(s->st1[cpu].read, s->st0[cpu].read),
		     kt_recorder_unwritten(s->rec, cpu) + s->cut[cpu]);
}

/* ---- setup ---- */

/*
 * --process: the events of each class, then the -e ones.  The exit calls
 * only carry the exit code (sched_process_exit has none here), so they
 * are left out when raw_syscalls brings the same, or when the kernel has
 * no syscalls:* events at all.
 */
static int process_specs(const struct record_opts *o, bool module,
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
		if (!o->no_signals)
			want[k++] = "ktrace:process_signal";
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
				return KT_EXIT_FAIL;
			if (kt_event_lookup(NULL, "syscalls:sys_enter_exit_group", probe) == 1) {
				want[k++] = "syscalls:sys_enter_exit_group";
				want[k++] = "syscalls:sys_enter_exit";
			}
			kt_event_list_free(probe);
		}
		if (!o->no_signals)
			want[k++] = "signal:signal_deliver";
		if (!o->no_syscalls) {
			want[k++] = "raw_syscalls:sys_enter";
			want[k++] = "raw_syscalls:sys_exit";
		}
	}
	specs = calloc(k + o->t.nspecs + 1, sizeof(*specs));
	if (!specs)
		return KT_EXIT_FAIL;
	for (i = 0; i < k; i++)
		specs[i].spec = (char *)want[i];
	for (i = 0; i < o->t.nspecs; i++)
		specs[k + i] = o->t.specs[i];
	*out = specs;
	*n = k + o->t.nspecs;
	return KT_EXIT_OK;
}

static int open_output(struct session *s)
{
	const char *out = s->o->output;
	char *copy, *slash;

	s->w = kt_writer_open(out);
	if (!s->w) {
		kt_err("cannot open '%s': %s; try -o in a writable directory",
		       out, strerror(errno));
		return KT_EXIT_FAIL;
	}
	copy = strdup(out);
	if (!copy)
		return KT_EXIT_FAIL;
	slash = strrchr(copy, '/');
	if (!slash) {
		free(copy);
		s->tmpdir = strdup(".");
	} else {
		if (slash == copy)
			slash[1] = '\0';
		else
			*slash = '\0';
		s->tmpdir = copy;
	}
	return s->tmpdir ? KT_EXIT_OK : KT_EXIT_FAIL;
}

/* ---- ktrace.ko ---- */

/* The pids -F/-c/-p name, for ktrace.ko's pid filter. */
static int module_pids(struct session *s, bool fork)
{
	const struct kt_trace_opts *o = &s->o->t;
	pid_t *pids;
	size_t n = 0, i;
	int ret;

	if (!o->only_cmd && !o->children && !o->npids && !s->mod_process)
		return 0;
	pids = calloc(o->npids + 1, sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	if (s->run.child)
		pids[n++] = kt_child_pid(s->run.child);
	for (i = 0; i < o->npids; i++)
		pids[n++] = o->pids[i];
	ret = kt_module_set_pids(pids, n, fork);
	free(pids);
	if (ret == -EOPNOTSUPP)
		kt_err("this ktrace.ko has no pid filter ('%s' in %s), so -F, -c and -p cannot limit its events; load a newer ktrace.ko or drop them",
		       KTRACE_FILE_SET_PID, kt_module_dir());
	else if (ret)
		kt_err("cannot limit ktrace.ko to the traced pids: %s", strerror(-ret));
	return ret;
}

/*
 * record --process on ktrace.ko: its controls as asked, the old values
 * kept for module_restore().  The tree of COMMAND or -p PID is followed
 * (process_follow_pid takes its existing descendants too); -F, or
 * several roots, go through the pid set (children from now on).
 */
static int module_process_setup(struct session *s)
{
	const struct record_opts *o = s->o;
	const char *val[NPROC_CTL];
	char uid[24], comm[COMM_MAX + 2], root[24];
	size_t i, nroots = (s->run.child ? 1 : 0) + o->t.npids;
	int ret;

	for (i = 0; i < NPROC_CTL; i++) {
		s->proc_saved[i] = kt_module_read(proc_ctl[i]);
		if (!s->proc_saved[i]) {
			ret = errno ? -errno : -EIO;
			kt_err("cannot read ktrace.ko's '%s': %s", proc_ctl[i],
			       strerror(-ret));
			return ret;
		}
	}
	snprintf(uid, sizeof(uid), "%s", o->uid ? o->uid : "-1");
	/* A newline: an empty write() leaves the filter as it was. */
	snprintf(comm, sizeof(comm), "%s\n", o->comm);
	snprintf(root, sizeof(root), "%d", nroots != 1 || o->t.only_cmd ? 0 :
		 s->run.child ? (int)kt_child_pid(s->run.child) : (int)o->t.pids[0]);
	val[0] = o->no_lifecycle ? "0" : "1";
	val[1] = o->no_syscalls ? "0" : "1";
	val[2] = o->no_signals ? "0" : "1";
	val[3] = uid;
	val[4] = comm;
	val[5] = root;
	for (i = 0; i < NPROC_CTL; i++) {
		ret = kt_module_write(proc_ctl[i], val[i]);
		if (ret) {
			kt_err("cannot write '%.*s' to ktrace.ko's '%s': %s",
			       (int)strcspn(val[i], "\n"), val[i], proc_ctl[i],
			       ret == -ESRCH ? "no such process" : strerror(-ret));
			return ret;
		}
	}
	if (nroots > 1 || (nroots && o->t.only_cmd))
		return module_pids(s, !o->t.only_cmd);
	return 0;
}

/* -b sizes ktrace.ko's buffers too (per CPU, while it is stopped). */
static int module_buffer_size(struct session *s)
{
	char kb[32];
	int ret;

	if (!s->o->t.buffer_kb)
		return 0;
	s->mod_buf_saved = kt_module_read(KTRACE_FILE_BUFFER_SIZE_KB);
	if (!s->mod_buf_saved) {
		ret = errno ? -errno : -EIO;
		kt_err("cannot read ktrace.ko's '%s': %s", KTRACE_FILE_BUFFER_SIZE_KB,
		       strerror(-ret));
		return ret;
	}
	snprintf(kb, sizeof(kb), "%lu", s->o->t.buffer_kb);
	ret = kt_module_write(KTRACE_FILE_BUFFER_SIZE_KB, kb);
	if (ret)
		kt_err("cannot give ktrace.ko a %lu KB buffer: %s; try a smaller -b",
		       s->o->t.buffer_kb, strerror(-ret));
	return ret;
}

/*
 * Check ktrace.ko is free, save its events' switches, empty its buffers,
 * set its pid filter, open its readers and select the events.  The
 * ftrace instance goes on the module's clock (trace_clock_local), so
 * both kinds of records sort together.
 */
static int module_prepare(struct session *s)
{
	size_t i, j, n = kt_event_list_count(s->t.events);
	int ret, ncpus;

	for (i = 0; i < n; i++)
		s->nmod += kt_is_module_event(kt_event_list_at(s->t.events, i));
	if (!s->nmod)
		return KT_EXIT_OK;
	ret = kt_module_running();
	if (ret == 1) {
		kt_err("ktrace.ko is already running (another recording?); wait for it or stop it with 'ktrace reset'");
		return KT_EXIT_FAIL;
	}
	ncpus = kt_module_cpu_count();
	if (ret < 0 || ncpus <= 0 || ncpus > s->ncpus) {
		kt_err("cannot use ktrace.ko in %s: %s", kt_module_dir(),
		       strerror(ret < 0 ? -ret : ncpus < 0 ? -ncpus : EINVAL));
		return KT_EXIT_FAIL;
	}
	s->mod_saved = calloc(s->nmod, sizeof(*s->mod_saved));
	if (!s->mod_saved)
		return KT_EXIT_FAIL;
	for (i = 0, j = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(s->t.events, i);

		if (!kt_is_module_event(r))
			continue;
		s->mod_saved[j] = kt_event_state_save(NULL, r->system, r->name);
		if (!s->mod_saved[j++]) {
			kt_err("cannot read the switch of '%s:%s': %s",
			       r->system, r->name, strerror(errno));
			return KT_EXIT_FAIL;
		}
	}
	ret = kt_tracefs_write(s->t.inst, "trace_clock", "local");
	if (!ret)
		ret = kt_module_write(KTRACE_FILE_RESET, "1");
	if (ret) {
		kt_err("cannot prepare ktrace.ko and the ftrace clock: %s", strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (module_buffer_size(s))
		return KT_EXIT_FAIL;
	if (s->mod_process ? module_process_setup(s) :
			     module_pids(s, s->o->t.children))
		return KT_EXIT_FAIL;
	s->mrec = kt_modrec_new(ncpus, s->tmpdir);
	if (!s->mrec) {
		kt_err("cannot open ktrace.ko's buffers: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(s->t.events, i);

		if (!kt_is_module_event(r))
			continue;
		ret = kt_module_event_set_enable(r->name, true);
		if (ret) {
			kt_err("cannot enable '%s:%s': %s", r->system, r->name,
			       strerror(-ret));
			return KT_EXIT_FAIL;
		}
	}
	return KT_EXIT_OK;
}

/* Probes on, engine running, readers waiting for pages. */
static int module_start(struct session *s)
{
	int ret;

	if (!s->nmod)
		return 0;
	ret = kt_module_write(KTRACE_FILE_ENABLED, "1");
	if (!ret)
		ret = kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_START);
	if (ret)
		return ret;
	s->mod_started = true;
	/* A reader started before "start" would find the engine stopped. */
	return kt_modrec_start(s->mrec);
}

/* Stop the engine; the readers take what is left and end. */
static int module_stop(struct session *s)
{
	int ret;

	if (!s->mod_started)
		return 0;
	ret = kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_STOP);
	kt_module_write(KTRACE_FILE_ENABLED, "0");
	s->mod_started = false;
	if (!ret)
		ret = kt_modrec_stop(s->mrec);
	return ret;
}

/* The module's counts join the instance's: loss is loss, whoever lost it. */
static void module_add_stats(struct session *s)
{
	struct kt_cpu_stats m;
	int cpu;

	for (cpu = 0; s->mrec && cpu < s->ncpus; cpu++) {
		if (kt_module_cpu_stats_read(cpu, &m))
			continue;
		s->st1[cpu].entries += m.entries;
		s->st1[cpu].overrun += m.overrun;
		s->st1[cpu].commit_overrun += m.commit_overrun;
		s->st1[cpu].dropped += m.dropped;
		s->st1[cpu].read += m.read;
	}
}

/*
 * The process tracer's controls back as they were.  A followed pid of
 * before that is gone now leaves nothing followed.
 */
static void module_process_restore(struct session *s)
{
	size_t i;
	int ret;

	for (i = NPROC_CTL; i-- > 0;) {
		char *v = s->proc_saved[i];

		if (!v)
			continue;
		/* The comm filter reads "\n" when empty: written back, it clears. */
		ret = kt_module_write(proc_ctl[i], *v ? v : "\n");
		if (ret && !strcmp(proc_ctl[i], KTRACE_FILE_PROCESS_FOLLOW_PID))
			ret = kt_module_write(proc_ctl[i], "0");
		if (ret)
			kt_warn("could not put ktrace.ko's '%s' back to '%.*s': %s; 'ktrace reset' clears it",
				proc_ctl[i], (int)strcspn(v, "\n"), v, strerror(-ret));
		free(s->proc_saved[i]);
		s->proc_saved[i] = NULL;
	}
}

/* Leave ktrace.ko as it was: stopped, switches back, no pid filter. */
static void module_restore(struct session *s)
{
	size_t i;

	if (!s->mod_saved)
		return;
	kt_module_write(KTRACE_FILE_STATE, KTRACE_CMD_STOP);
	kt_module_write(KTRACE_FILE_ENABLED, "0");
	for (i = 0; i < s->nmod; i++) {
		if (s->mod_saved[i] && kt_event_state_restore(s->mod_saved[i]))
			kt_warn("could not switch ktrace.ko's events back; check with 'ktrace stat'");
		kt_event_state_free(s->mod_saved[i]);
	}
	free(s->mod_saved);
	s->mod_saved = NULL;
	if (!s->mod_process &&
	    (s->o->t.only_cmd || s->o->t.children || s->o->t.npids))
		kt_module_set_pids(NULL, 0, false);
	module_process_restore(s);
	if (s->mod_buf_saved &&
	    kt_module_write(KTRACE_FILE_BUFFER_SIZE_KB, s->mod_buf_saved))
		kt_warn("could not put ktrace.ko's buffer back to %.*s KB; set it in %s/%s",
			(int)strcspn(s->mod_buf_saved, "\n"), s->mod_buf_saved,
			kt_module_dir(), KTRACE_FILE_BUFFER_SIZE_KB);
	free(s->mod_buf_saved);
	s->mod_buf_saved = NULL;
}

static int read_stats(struct session *s, struct kt_cpu_stats *st)
{
	int cpu, ret;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		ret = kt_cpu_stats_read(s->t.inst, cpu, &st[cpu]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- helper threads ---- */

/* Has the main thread handed the writer over yet?  Waits if asked to. */
static int ksyms_state(struct session *s, bool wait)
{
	int go;

	pthread_mutex_lock(&s->ksyms_lock);
	while (wait && s->ksyms_go == KSYMS_WAIT)
		pthread_cond_wait(&s->ksyms_cond, &s->ksyms_lock);
	go = s->ksyms_go;
	pthread_mutex_unlock(&s->ksyms_lock);
	return go;
}

/*
 * Reads /proc/kallsyms (tens of ms, 4 KB per read) from the start, and
 * streams it into the file as soon as the main thread has written the
 * headers before it and handed the writer over (ksyms_handover).
 */
static void *ksyms_main(void *arg)
{
	struct session *s = arg;
	char path[PATH_MAX], *buf, *nbuf, *printk = NULL;
	size_t cap = KSYMS_PIECE * 2, len = 0, printk_len = 0;
	bool writing = false, ok = true;
	sigset_t all;
	ssize_t n;
	int fd;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	buf = malloc(cap);
	/* Unreadable (a locked-down kernel): an empty section. */
	fd = buf ? open("/proc/kallsyms", O_RDONLY | O_CLOEXEC) : -1;
	while (fd >= 0) {
		if (cap - len < KSYMS_PIECE) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				ok = false;
				break;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		len += n;
		if (!writing && ksyms_state(s, false) == KSYMS_WRITE) {
			writing = true;
			s->ksyms_err = kt_writer_kallsyms_begin(s->w);
		}
		if (writing && len >= KSYMS_PIECE) {
			kt_writer_kallsyms_add(s->w, buf, len);
			len = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/printk_formats", s->tracing_dir);
	if (kt_file_slurp(path, &printk, &printk_len))
		printk_len = 0;
	if (ksyms_state(s, true) == KSYMS_WRITE) {
		if (!writing)
			s->ksyms_err = kt_writer_kallsyms_begin(s->w);
		if (!s->ksyms_err) {
			if (ok && len)
				kt_writer_kallsyms_add(s->w, buf, len);
			s->ksyms_err = kt_writer_kallsyms_end(s->w, ok && fd >= 0);
		}
		n = kt_writer_printk(s->w, printk, printk_len);
		if (n && !s->ksyms_err)
			s->ksyms_err = n;
	}
	free(buf);
	free(printk);
	return NULL;
}

static void ksyms_handover(struct session *s, int go)
{
	pthread_mutex_lock(&s->ksyms_lock);
	if (s->ksyms_go == KSYMS_WAIT)
		s->ksyms_go = go;
	pthread_cond_signal(&s->ksyms_cond);
	pthread_mutex_unlock(&s->ksyms_lock);
}

static void *remover_main(void *arg)
{
	struct session *s = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	s->remove_err = kt_instance_remove(s->t.inst);
	return NULL;
}

static void join_ksyms(struct session *s)
{
	ksyms_handover(s, KSYMS_ABORT);
	if (s->ksyms_running) {
		pthread_join(s->ksyms, NULL);
		s->ksyms_running = false;
	}
}

static void join_remover(struct session *s)
{
	if (s->remover_running) {
		pthread_join(s->remover, NULL);
		s->remover_running = false;
		s->t.inst = NULL;
	}
}

/* ---- running ---- */

static void status_line(struct session *s)
{
	struct kt_cpu_stats st;
	unsigned long long events = 0, lost = 0;
	char mb[32];
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		if (kt_cpu_stats_read(s->t.inst, cpu, &st))
			continue;
		events += kt_stat_delta(st.read + st.entries,
					s->st0[cpu].read + s->st0[cpu].entries);
		lost += kt_stat_delta(st.overrun, s->st0[cpu].overrun) +
			kt_stat_delta(st.dropped, s->st0[cpu].dropped);
	}
	human_bytes(kt_recorder_total(s->rec), mb, sizeof(mb));
	fprintf(stderr, "\r\033[K%s: %.0f s, %llu events, %s written, %llu %s",
		kt_log_prog(), now_since(&s->t0), events, mb, lost,
		s->o->flight ? "overwritten" : "lost");
	fflush(stderr);
}

static void run_loop(struct session *s)
{
	bool live = s->status_line;
	int timeout;
	double left;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = s->sfd, .events = POLLIN },
			{ .fd = s->rec ? kt_recorder_notify_fd(s->rec) : -1,
			  .events = POLLIN },
		};
		timeout = live ? 1000 : -1;
		if (s->o->seconds > 0) {
			left = s->o->seconds - now_since(&s->t0);
			if (left <= 0) {
				s->why = STOP_TIME;
				return;
			}
			if (timeout < 0 || left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		/* A child that exited before the loop began. */
		if (kt_run_child_exited(&s->run)) {
			s->why = STOP_CHILD;
			return;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR) {
			s->why = STOP_ERROR;
			return;
		}
		switch (kt_run_signals(&s->run, s->sfd)) {
		case KT_RUN_CHILD_EXITED:
			s->why = STOP_CHILD;
			return;
		case KT_RUN_SIGNALLED:
			s->why = STOP_SIGNAL;
			return;
		case KT_RUN_GOING:
			break;
		}
		if (pfd[1].revents & POLLIN) {
			s->why = kt_recorder_error(s->rec) ? STOP_ERROR : STOP_SIZE;
			return;
		}
		if (live)
			status_line(s);
	}
}

/* ---- the end ---- */

/* The end statistics: parsed, and as the file stores them. */
static int collect_cpu_stats(struct session *s)
{
	int cpu;

	s->stat_text = calloc(s->ncpus, sizeof(*s->stat_text));
	if (!s->stat_text)
		return -ENOMEM;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = kt_tracefs_read(s->t.inst, file);
		if (!text)
			return -errno;
		kt_cpu_stats_parse(text, &s->st1[cpu]);
		/*
		 * As trace-cmd stores it: "CPU: N" then the stats file, and
		 * the events a full disk refused after they were read (the
		 * kernel counts them as read) or kept in the buffer by
		 * stopping the recorders, which readers add to the loss.
		 */
		if (asprintf(&s->stat_text[cpu], "CPU: %d\n%s%s%llu\n", cpu, text,
			     KT_CPUSTAT_UNWRITTEN,
			     kt_recorder_unwritten(s->rec, cpu) +
			     (s->why == STOP_ERROR ? s->st1[cpu].entries : 0)) < 0)
			s->stat_text[cpu] = NULL;
		free(text);
		if (!s->stat_text[cpu])
			return -ENOMEM;
	}
	return 0;
}

/* The trace clock's name, from "[local] global counter ...". */
static char *clock_name(const char *text)
{
	const char *b = text ? strchr(text, '[') : NULL;
	const char *e = b ? strchr(b, ']') : NULL;

	if (!b || !e)
		return strdup("local");
	return strndup(b + 1, e - b - 1);
}

static int add_options(struct session *s)
{
	struct utsname u;
	char *str = NULL;
	uint64_t id = 0;
	int cpu, ret = 0;

	if (s->clock)
		ret = kt_writer_add_option_str(s->w, KT_OPT_TRACECLOCK, s->clock);
	if (!ret && uname(&u) == 0) {
		if (asprintf(&str, "%s %s %s %s", u.sysname, u.nodename,
			     u.release, u.machine) < 0)
			return -ENOMEM;
		ret = kt_writer_add_option_str(s->w, KT_OPT_UNAME, str);
		free(str);
	}
	/* The process view's marker rides in the version (procview.h). */
	if (!ret)
		ret = kt_writer_add_option_str(s->w, KT_OPT_VERSION,
					       s->o->process ?
					       "ktrace " KTRACE_VERSION " " KT_PROCVIEW_MARK :
					       "ktrace " KTRACE_VERSION);
	if (!ret && getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id))
		ret = kt_writer_add_option(s->w, KT_OPT_TRACEID, &id, sizeof(id));
	for (cpu = 0; !ret && cpu < s->ncpus; cpu++)
		ret = kt_writer_add_option_str(s->w, KT_OPT_CPUSTAT,
					       s->stat_text[cpu]);
	return ret;
}

/*
 * A full disk cut the file: say how much of each CPU's data is missing,
 * in bytes and in events (counted from the pages that did not fit), so
 * the loss is never only a size.
 */
static void report_cut(struct session *s, const struct kt_writer_cpu *had,
		       const struct kt_writer_cpu *kept)
{
	unsigned long long events = 0, all = 0, lost = 0;
	bool unknown = false;
	char a[32], b[32];
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		all += kept[cpu].size;
		lost += had[cpu].size - kept[cpu].size;
		events += kept[cpu].cut_events;
		unknown |= kept[cpu].cut_unknown;
		s->cut[cpu] = kept[cpu].cut_events;
	}
	human_bytes(all, a, sizeof(a));
	human_bytes(lost, b, sizeof(b));
	kt_err("disk full writing '%s': kept %s of trace data, the newest %s (%s%llu events) did not fit; free space or use -o elsewhere",
	       s->o->output, a, b, unknown ? "at least " : "", events);
	for (cpu = 0; !s->o->quiet && cpu < s->ncpus; cpu++)
		if (had[cpu].size > kept[cpu].size)
			kt_info("  CPU %d: %llu events (%llu bytes) did not fit",
				cpu, kept[cpu].cut_events,
				had[cpu].size - kept[cpu].size);
}

/*
 * saved_cmdlines, after the names ktrace.ko's process records carry:
 * the first line of a pid wins when the file is read, and a task only
 * the module saw is in no saved_cmdlines at all.
 */
static char *process_cmdlines(struct session *s)
{
	char *saved = kt_tracefs_read(NULL, "saved_cmdlines"), *mine, *all;
	int ids[NPROC_EVENTS], offs[NPROC_EVENTS], size;
	size_t i, n = 0, ne = kt_event_list_count(s->t.events);

	if (!s->mod_process || !s->mrec)
		return saved;
	for (i = 0; i < ne && n < NPROC_EVENTS; i++) {
		const struct kt_event_ref *r = kt_event_list_at(s->t.events, i);

		if (kt_is_module_event(r) && !strncmp(r->name, "process_", 8) &&
		    !kt_module_event_field(r->name, "comm", &ids[n], &offs[n], &size) &&
		    size == 16)
			n++;
	}
	mine = n ? kt_modrec_comms(s->mrec, ids, offs, n) : NULL;
	if (!mine)
		return saved;
	if (asprintf(&all, "%s%s", mine, saved ? saved : "") < 0)
		all = NULL;
	free(mine);
	if (!all)
		return saved;
	free(saved);
	return all;
}

static int write_file(struct session *s)
{
	struct kt_writer_tail tail;
	struct kt_writer_cpu *cpus;
	char *cmdlines, *clk;
	int cpu, ret;

	join_ksyms(s);
	if (s->ksyms_err == -ENOSPC)
		kt_warn("kallsyms left out of '%s': %s; kernel addresses will not be named",
			s->o->output, strerror(-s->ksyms_err));
	else if (s->ksyms_err)
		return s->ksyms_err;
	ret = add_options(s);
	if (ret)
		return ret;
	/* [0, ncpus): what each CPU's pieces hold, [ncpus, 2 ncpus): kept. */
	cpus = calloc(2 * (size_t)s->ncpus, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		cpus[cpu].fd = kt_recorder_fd(s->rec, cpu);
		cpus[cpu].size = kt_recorder_bytes(s->rec, cpu);
		ret = s->mrec ? kt_modrec_merge(s->mrec, cpu, &cpus[cpu].fd,
						&cpus[cpu].size) : 0;
		if (ret) {
			free(cpus);
			return ret;
		}
		cpus[s->ncpus + cpu] = cpus[cpu];
	}
	cmdlines = process_cmdlines(s);
	clk = clock_name(s->clock);
	tail.cmdlines = cmdlines ? cmdlines : "";
	tail.cmdlines_len = cmdlines ? strlen(cmdlines) : 0;
	tail.clock = clk;
	ret = kt_writer_finish(s->w, &tail, s->ncpus, cpus + s->ncpus);
	free(clk);
	free(cmdlines);
	if (ret == 1)
		report_cut(s, cpus, cpus + s->ncpus);
	free(cpus);
	if (ret < 0)
		return ret;
	cpu = kt_writer_commit(s->w);	/* 0 or -errno */
	return cpu ? cpu : ret;
}

/* What --recover needs that the pieces do not say. */
static int write_meta(struct session *s)
{
	char *clk = clock_name(s->clock);
	int ret;

	if (!clk)
		return -ENOMEM;
	ret = kt_recover_meta_write(kt_writer_tmp_name(s->w), s->ncpus,
				    s->clock, clk);
	free(clk);
	return ret;
}

static void summary(struct session *s)
{
	unsigned long long events = 0, bytes;
	char b[32];
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		events += cpu_events(s, cpu);
	human_bytes(kt_writer_size(s->w), b, sizeof(b));
	fprintf(stderr, "%s: wrote '%s': %llu events, %s in %.2f s\n",
		kt_log_prog(), s->o->output, events, b, s->elapsed);
	fprintf(stderr, "  %4s %12s %12s %10s %10s\n", "CPU", "events", "bytes",
		"overrun", "dropped");
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		bytes = kt_recorder_bytes(s->rec, cpu) +
			(s->mrec ? kt_modrec_bytes(s->mrec, cpu) : 0);
		human_bytes(bytes, b, sizeof(b));
		fprintf(stderr, "  %4d %12llu %12s %10llu %10llu\n", cpu,
			cpu_events(s, cpu), b,
			kt_stat_delta(s->st1[cpu].overrun, s->st0[cpu].overrun),
			kt_stat_delta(s->st1[cpu].dropped, s->st0[cpu].dropped));
	}
}

/* Loud, even with -q: loss is never silent. */
static unsigned long long report_loss(struct session *s)
{
	unsigned long long lost = 0, left = 0, unwritten = 0;
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		lost += cpu_lost(s, cpu);
		left += s->st1[cpu].entries;
	}
	if (lost && s->o->flight) {
		if (!s->o->quiet)
			kt_info("flight recorder kept the newest events; %llu older ones were overwritten (a bigger -b keeps more)",
				lost);
	} else if (lost) {
		kt_warn("LOST %llu events: the kernel buffer filled up faster than it was written out", lost);
		for (cpu = 0; cpu < s->ncpus; cpu++)
			if (cpu_lost(s, cpu))
				kt_warn("  CPU %d: %llu overrun, %llu dropped", cpu,
					kt_stat_delta(s->st1[cpu].overrun, s->st0[cpu].overrun) +
					kt_stat_delta(s->st1[cpu].commit_overrun, s->st0[cpu].commit_overrun),
					kt_stat_delta(s->st1[cpu].dropped, s->st0[cpu].dropped));
		kt_warn("to lose nothing: a bigger buffer (-b %lu), fewer events (-e), or a filter (-f)",
			(s->o->t.buffer_kb ? s->o->t.buffer_kb : 1408) * 4);
	}
	if (left && s->why == STOP_SIZE)
		kt_warn("%llu events after the -m limit were not written", left);
	/*
	 * Read from the kernel, then refused by a full disk, or never read
	 * because the disk stopped the recorders: lost too.
	 */
	for (cpu = 0; cpu < s->ncpus; cpu++)
		unwritten += kt_recorder_unwritten(s->rec, cpu) + s->cut[cpu] +
			     (s->why == STOP_ERROR ? s->st1[cpu].entries : 0);
	if (unwritten) {
		kt_warn("NOT WRITTEN %llu events: the output refused them or stopped the recorders before they were read", unwritten);
		for (cpu = 0; cpu < s->ncpus; cpu++)
			if (kt_recorder_unwritten(s->rec, cpu) + s->cut[cpu] ||
			    (s->why == STOP_ERROR && s->st1[cpu].entries))
				kt_warn("  CPU %d: %llu read but refused, %llu left in the kernel buffer",
					cpu, kt_recorder_unwritten(s->rec, cpu) + s->cut[cpu],
					s->why == STOP_ERROR ? s->st1[cpu].entries : 0);
	}
	return (s->o->flight ? 0 : lost) + unwritten;
}

static void session_free(struct session *s)
{
	int cpu;

	join_ksyms(s);
	join_remover(s);
	kt_recorder_free(s->rec);
	kt_modrec_free(s->mrec);
	module_restore(s);
	kt_child_free(s->run.child);
	kt_tracing_release(&s->t);
	/* The pieces of a recording that ended, even badly, are gone. */
	if (s->w)
		kt_recover_meta_remove(kt_writer_tmp_name(s->w));
	kt_writer_close(s->w);
	if (s->stat_text)
		for (cpu = 0; cpu < s->ncpus; cpu++)
			free(s->stat_text[cpu]);
	free(s->stat_text);
	free(s->st0);
	free(s->st1);
	free(s->cut);
	free(s->clock);
	free(s->specs);
	free(s->tmpdir);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->masked)
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	pthread_mutex_destroy(&s->ksyms_lock);
	pthread_cond_destroy(&s->ksyms_cond);
}

/*
 * A command still running (after -s, -m or a full disk) may hold a file
 * of the instance open, its trace_marker say: then the removal had to
 * wait for the command's end.
 */
static void retry_remove(struct session *s)
{
	struct tracefs_instance *inst;

	if (s->remove_err != -EBUSY || (s->run.child && !s->run.child_done))
		return;
	s->remove_err = kt_instance_lookup(s->t.inst_name, &inst);
	if (!s->remove_err)
		s->remove_err = kt_instance_remove(inst);
}

static int record(struct record_opts *o)
{
	struct session s = { .o = o, .sfd = -1 };
	int ret, status = KT_EXIT_FAIL, st;
	unsigned long long lost;
	bool failed = false;

	pthread_mutex_init(&s.ksyms_lock, NULL);
	pthread_cond_init(&s.ksyms_cond, NULL);
	if (o->process && process_backend(&s))
		goto out;
	/*
	 * libtracefs caches the tracing directory without a lock: find it
	 * once here, before any helper thread can race to fill the cache.
	 */
	s.tracing_dir = tracefs_tracing_dir();
	if (!s.tracing_dir) {
		kt_err("cannot find tracefs; try: mount -t tracefs nodev /sys/kernel/tracing");
		goto out;
	}
	ret = s.sfd = kt_signals_block(&s.oldmask);
	s.masked = ret >= 0;
	if (ret < 0) {
		kt_err("cannot set up signal handling: %s", strerror(-ret));
		goto out;
	}
	/* kallsyms takes tens of ms: read it while everything else happens. */
	if (pthread_create(&s.ksyms, NULL, ksyms_main, &s) == 0) {
		s.ksyms_running = true;
		/* Named, so top, perf and the tests can tell it apart. */
		pthread_setname_np(s.ksyms, "ktrace-ksyms");
	}
	if (o->process) {
		size_t n;

		if (process_specs(o, s.mod_process, &s.specs, &n))
			goto out;
		if (kt_tracing_resolve(&s.t, &o->t, s.specs, n))
			goto out;
	} else if (kt_tracing_resolve(&s.t, &o->t, NULL, 0)) {
		goto out;
	}
	if (o->t.cmd) {
		ret = kt_child_check(o->t.cmd[0]);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t.cmd[0],
			       ret == -ENOENT ? "command not found" : strerror(-ret));
			status = ret == -ENOENT ? 127 : 126;
			goto out;
		}
	}
	s.ncpus = kt_cpu_count();
	if (s.ncpus <= 0) {
		kt_err("cannot count CPUs in tracefs: %s", strerror(-s.ncpus));
		goto out;
	}
	s.st0 = calloc(s.ncpus, sizeof(*s.st0));
	s.st1 = calloc(s.ncpus, sizeof(*s.st1));
	s.cut = calloc(s.ncpus, sizeof(*s.cut));
	if (!s.st0 || !s.st1 || !s.cut)
		goto out;
	if (open_output(&s) || kt_tracing_instance(&s.t, WAKE_PERCENT))
		goto out;
	ret = kt_writer_headers(s.w, NULL, s.t.events);
	if (ret) {
		kt_err("cannot write '%s': %s", o->output, strerror(-ret));
		goto out;
	}
	/* From here until join_ksyms() the writer is the helper's. */
	if (s.ksyms_running) {
		ksyms_handover(&s, KSYMS_WRITE);
	} else {
		ret = kt_writer_kallsyms(s.w, NULL, 0);
		if (!ret)
			ret = kt_writer_printk(s.w, NULL, 0);
		if (ret) {
			kt_err("cannot write '%s': %s", o->output, strerror(-ret));
			goto out;
		}
	}
	if (o->t.cmd) {
		s.run.child = kt_child_new(o->t.cmd);
		if (!s.run.child) {
			kt_err("cannot start '%s': %s", o->t.cmd[0], strerror(errno));
			goto out;
		}
	}
	s.rec = kt_recorder_new(s.t.inst, s.ncpus, kt_writer_tmp_name(s.w));
	if (!s.rec) {
		kt_err("cannot open the per-CPU buffers: %s", strerror(errno));
		goto out;
	}
	if (o->max_mb) {
		/* The limit is on the file: wait to know the header's size. */
		unsigned long long max = o->max_mb << 20, used;

		char *cmdlines = kt_tracefs_read(NULL, "saved_cmdlines");

		join_ksyms(&s);
		/* What comes after the data: cmdlines, options, page padding. */
		used = kt_writer_size(s.w) + 64 * 1024 +
		       (cmdlines ? 2 * strlen(cmdlines) : 0) +
		       (unsigned long long)s.ncpus * kt_writer_page_size(s.w);
		free(cmdlines);
		if (max <= used)
			kt_warn("-m %llu is less than the file's fixed part (%llu MB: kallsyms, formats); no events will fit",
				o->max_mb, (used + (1 << 20) - 1) >> 20);
		kt_recorder_set_limit(s.rec, max > used ? max - used : 1);
	}
	if (!o->flight) {
		ret = kt_recorder_start(s.rec);
		if (ret) {
			kt_err("cannot start the recorders: %s", strerror(-ret));
			goto out;
		}
	}
	/*
	 * --process follows the tree of the command or -p, unless -F asks
	 * for the command alone; without either it takes every process.
	 */
	s.t.comm = o->comm;
	s.t.follow_children = o->process && !o->t.only_cmd && (s.run.child || o->t.npids);
	if (kt_tracing_arm(&s.t, s.run.child ? kt_child_pid(s.run.child) : 0) ||
	    module_prepare(&s))
		goto out;
	s.clock = kt_tracefs_read(s.t.inst, "trace_clock");
	ret = write_meta(&s);
	if (ret) {
		kt_err("cannot write beside '%s': %s", o->output, strerror(-ret));
		goto out;
	}
	ret = read_stats(&s, s.st0);
	if (!ret)
		ret = module_start(&s);
	if (!ret)
		ret = kt_tracefs_write(s.t.inst, "tracing_on", "1");
	if (ret) {
		kt_err("cannot start tracing: %s", strerror(-ret));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &s.t0);
	s.status_line = !o->quiet && isatty(STDERR_FILENO);
	if (s.run.child) {
		ret = kt_child_release(s.run.child);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t.cmd[0], strerror(-ret));
			kt_child_wait(s.run.child, &st);
			status = kt_run_exit_status(st);
			goto out;
		}
	}

	run_loop(&s);

	/* Stop: nothing new in the buffers, then take what is there. */
	kt_tracefs_write(s.t.inst, "tracing_on", "0");
	ret = module_stop(&s);
	if (ret) {
		kt_err("cannot read ktrace.ko's buffers to the end: %s", strerror(-ret));
		failed = true;
	}
	s.elapsed = now_since(&s.t0);
	if (s.status_line)
		fprintf(stderr, "\r\033[K");
	ret = kt_recorder_stop(s.rec);
	if (ret == -ENOSPC) {
		kt_err("disk full: recording for '%s' stopped early; the file keeps what fits",
		       o->output);
		failed = true;
	} else if (ret) {
		kt_err("recording stopped: %s", strerror(-ret));
		failed = true;
	}
	ret = collect_cpu_stats(&s);
	if (ret) {
		kt_err("cannot read the buffer statistics: %s", strerror(-ret));
		goto out;
	}
	module_add_stats(&s);
	if (s.why == STOP_SIZE && !o->quiet)
		kt_info("stopped: '%s' reached the -m limit of %llu MB",
			o->output, o->max_mb);
	/* The instance is no longer needed: remove it while we write. */
	if (pthread_create(&s.remover, NULL, remover_main, &s) == 0)
		s.remover_running = true;
	ret = write_file(&s);
	if (ret == 1) {
		failed = true;
	} else if (ret) {
		kt_err("cannot write '%s': %s", o->output, strerror(-ret));
		goto out;
	}
	join_remover(&s);
	if (!o->quiet)
		summary(&s);
	lost = report_loss(&s);

	if (s.run.child && !s.run.child_done && s.why != STOP_SIGNAL) {
		/* -s, -m or a full disk ended the recording, not the command. */
		if (!o->quiet)
			kt_info("waiting for '%s' (pid %d) to exit",
				o->t.cmd[0], (int)kt_child_pid(s.run.child));
		if (kt_child_wait(s.run.child, &st) == 0) {
			s.run.child_done = true;
			s.run.child_status = st;
		}
	}
	retry_remove(&s);
	if (s.remove_err)
		kt_warn("cannot remove tracefs instance '%s': %s; remove it with 'ktrace reset'",
			s.t.inst_name, strerror(-s.remove_err));
	if (failed)
		status = KT_EXIT_FAIL;
	else if (s.run.child && s.run.child_done && s.run.child_status != 0)
		status = kt_run_exit_status(s.run.child_status);
	else if (s.why == STOP_SIGNAL && s.run.child)
		status = 128 + s.run.stop_signal;
	else if (o->max_lost >= 0 && lost > (unsigned long long)o->max_lost) {
		/* Not on status 3 alone: a command may exit 3 itself. */
		status = KT_EXIT_LOST;
		kt_err("lost %llu events, more than --max-lost %lld", lost, o->max_lost);
	} else {
		status = KT_EXIT_OK;
	}
out:
	if (s.why == STOP_SIGNAL && s.run.child && !s.run.child_done)
		kill(kt_child_pid(s.run.child), s.run.stop_signal);
	session_free(&s);
	return status;
}

static int recover(const struct record_opts *o)
{
	struct kt_recover_result r;
	char b[32];
	int ret = kt_recover(o->recover, &r);

	switch (ret) {
	case 0:
	case -ENOSPC:
		break;
	case -ENOENT:
		kt_err("nothing to recover for '%s': no %s.tmp-PID left by a killed 'ktrace record'",
		       o->recover, o->recover);
		return KT_EXIT_FAIL;
	case -EBUSY:
		kt_err("the recording of '%s' by pid %d is still running; stop it, it will write the file itself",
		       o->recover, (int)r.pid);
		return KT_EXIT_FAIL;
	case -EBADMSG:
		kt_err("cannot recover '%s': the pieces of pid %d are damaged (killed before its headers were written); remove %s.tmp-%d*",
		       o->recover, (int)r.pid, o->recover, (int)r.pid);
		return KT_EXIT_FAIL;
	default:
		kt_err("cannot recover '%s': %s", o->recover, strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (ret == -ENOSPC)
		kt_err("disk full recovering '%s': the file keeps the oldest data that fit; free space and record again",
		       o->recover);
	if (r.kallsyms_lost)
		kt_warn("kallsyms left out of '%s': the recording was killed before it was written; kernel addresses will not be named",
			o->recover);
	if (r.others > 0)
		kt_warn("%d older interrupted recording(s) of '%s' are still there; run --recover again for each",
			r.others, o->recover);
	if (!o->quiet) {
		human_bytes(r.bytes, b, sizeof(b));
		fprintf(stderr, "%s: recovered '%s' from pid %d: %s of trace data on %d CPUs; %s\n",
			kt_log_prog(), o->recover, (int)r.pid, b, r.ncpus,
			r.drained ? "with the events its instance still held (remove it with 'ktrace reset -a')" :
				    "events still in the kernel buffer when it was killed are not in it");
	}
	return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .output = DEFAULT_OUTPUT, .max_lost = -1 };
	int cmd_at, status;

	cmd_at = kt_trace_split_command(options, argc, argv, &o.t);
	if (kt_argp_parse(&argp, cmd_at, argv, &o)) {
		kt_trace_opts_free(&o.t);
		return KT_EXIT_OK;
	}
	status = o.recover ? recover(&o) :
		 kt_need_backend() ? KT_EXIT_FAIL : record(&o);
	kt_trace_opts_free(&o.t);
	return status;
}
