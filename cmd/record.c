// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace record: trace a command, or the whole system, into a trace.dat
 * (v6) file in a private tracefs instance.  The options, the status
 * line and the summary; the recording itself is lib/live/session/session.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <poll.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "base/human.h"
#include "base/log.h"
#include "cmd.h"
#include "file/pack.h"
#include "file/pieces.h"
#include "live/session/child.h"
#include "live/session/hook.h"
#include "live/session/recover.h"
#include "live/session/run.h"
#include "live/session/session.h"
#include "live/session/sink-file.h"
#include "live/session/sink-net.h"
#include "live/tracefs/tracefs.h"
#include "net/auth.h"
#include "net/remote.h"
#include "net/wire.h"
#include "push/shotpush.h"
#include "live/session/sink-series.h"
#include "live/session/sink-trigger.h"
#include "live/trigger/cond.h"
#include "util-session-opts.h"
#include "views/procview.h"

#define DEFAULT_OUTPUT	"ktrace.dat"
/* At the end: how long --on-trigger's hooks and --push's queue are waited for. */
#define ACTIONS_WAIT_MS	10000

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
	OPT_STACK,
	OPT_FOR,
	OPT_USER_STACK,
	OPT_UPROBE,
	OPT_URETPROBE,
	OPT_KPROBE,
	OPT_KRETPROBE,
	OPT_MAX_GRAPH_DEPTH,
	OPT_FUNC_STACK,
	OPT_COMPRESSION,
	OPT_FILE_VERSION,
	OPT_ROTATE,
	OPT_KEEP,
	OPT_REMOTE,
	OPT_TOKEN_FILE,
	OPT_LOCAL,
	OPT_GUEST,
	OPT_TRIGGER,
	OPT_BEFORE,
	OPT_AFTER,
	OPT_MAX_SNAPSHOTS,
	OPT_COOLDOWN,
	OPT_PACKED_RING,
	OPT_ON_TRIGGER,
	OPT_PUSH,
};

/* --trigger given at most this many times. */
#define TRIGGERS_MAX	16

/* The kernel keeps this many characters of a process name. */
#define COMM_MAX	15

/* --remote given this many times at most. */
#define MAX_REMOTES 16

struct record_opts {
	struct kt_trace_opts t;
	char *cmdline;			/* this command line, for the file */
	const char *output;
	bool output_set;		/* -o given */
	bool flight;
	bool quiet;
	double seconds;
	unsigned long long max_mb;
	long long max_lost;
	const char *recover;
	int file_version;		/* 0: KT_DAT_VERSION_DEFAULT */
	const char *compression;	/* NULL: the version's default */
	/* --rotate: a chunk's size or duration, and --keep */
	const char *rotate;
	struct kt_series_opts series;
	/* --process */
	bool process;
	bool no_syscalls, no_signals, no_lifecycle;
	char comm[COMM_MAX + 1];
	const char *uid;
	/* --remote: the agents (remote: the first), and their token */
	const char *remote;
	const char *remotes[MAX_REMOTES];
	int nremotes;
	/* --guest CID[:PORT], as the address "vsock:CID:PORT" */
	char guests[MAX_REMOTES][48];
	bool local;		/* --local: this machine too */
	const char *token_file;
	/* --trigger COND (each parsed), --before, --after */
	struct kt_cond conds[TRIGGERS_MAX];
	int nconds;
	unsigned long long before, after, cooldown;
	bool before_set, after_set, cooldown_set;
	unsigned int max_snapshots;
	/* --packed-ring[=WHEN]: auto unless said; its bound (0: the default) */
	enum kt_ring_packing ring;
	unsigned long long ring_auto_bytes;
	bool ring_set;
	/* The actions on each snapshot: --on-trigger, --push */
	const char *on_trigger;
	const char *push;
	struct kt_hook *hook;
	struct kt_shotpush *shots;
};

static const char args_doc[] = "[-- COMMAND [ARGS...]]";
static const char doc[] =
	"Trace a command, or the whole system, into a trace.dat file."
	"\vWith COMMAND, tracing is on before its first instruction and stops "
	"when it exits; ktrace exits with its status.  Without, ktrace records "
	"until SIGINT/SIGTERM or -s.  With no -e, records sched:sched_switch "
	"and sched:sched_wakeup.  The file is trace-cmd's trace.dat v7 packed "
	"with zstd (--file-version and --compression choose otherwise): "
	"'ktrace report' and 'trace-cmd report -i FILE' read it.  With "
	"--rotate, it records until stopped into a series of whole files in "
	"-o DIR, DIR/ktrace-NNNNNN.dat, a new one at a size or after a "
	"duration (--keep N: the newest N stay; --recover DIR after a kill).  "
	"While it records, 'ktrace snapshot' or SIGUSR2 writes a whole file of "
	"what it holds, and it goes on.  With --trigger COND -o DIR, it keeps "
	"only recent history and, each time COND holds at time t, writes "
	"[t - --before, t + --after] as its own file into DIR "
	"(DIR/trigger-DATE-COND.dat), and goes on; COND is syscall>DUR or "
	"syscall:NAME>DUR (a system call that took longer than DUR, e.g. "
	"'syscall:fsync>20ms'), wakeup>DUR (a task waited longer than DUR from "
	"its wakeup to a CPU), offcpu>DUR (a task blocked longer than DUR), "
	"exit (COMMAND exits non-zero or is killed), or "
	"'event SYSTEM:EVENT [if FILTER]' (e.g. 'event signal:signal_generate if sig == 11').";

static const struct argp_option options[] = {
	KT_TRACE_OPTIONS,
	{ "output", 'o', "FILE", 0, "write FILE (default " DEFAULT_OUTPUT ")", 0 },
	{ "flight", OPT_FLIGHT, NULL, 0, "flight recorder: keep only the newest -b KB per CPU, written at the end (or by 'ktrace snapshot', any number of times)", 0 },
	{ "seconds", 's', "SECONDS", 0, "stop after SECONDS", 0 },
	{ "max-size", 'm', "MB", 0, "stop when the file reaches MB megabytes", 0 },
	{ "rotate", OPT_ROTATE, "SIZE|DURATION", 0, "write a series of complete files into -o DIR, a new one at SIZE (64M; K, M, G) or after DURATION (10m; ms, s, m, h): DIR/ktrace-NNNNNN.dat", 0 },
	{ "keep", OPT_KEEP, "N", 0, "with --rotate: keep at most N files in DIR, removing the oldest", 0 },
	{ "trigger", OPT_TRIGGER, "COND", 0, "keep only recent history and write the moments COND holds into -o DIR, each as its own file: syscall>DUR, syscall:NAME>DUR, wakeup>DUR, offcpu>DUR, exit, 'event SYS:EVENT [if FILTER]'; repeatable", 0 },
	{ "before", OPT_BEFORE, "DURATION", 0, "with --trigger: the history a snapshot holds before the moment (default 10s; ms, s, m)", 0 },
	{ "after", OPT_AFTER, "DURATION", 0, "with --trigger: what it holds after the moment (default 1s)", 0 },
	{ "max-snapshots", OPT_MAX_SNAPSHOTS, "N", 0, "with --trigger: write at most N snapshots; later firings are counted as suppressed", 0 },
	{ "cooldown", OPT_COOLDOWN, "DURATION", 0, "with --trigger: a firing within DURATION of the last snapshot's is counted as suppressed (default 3s; 0: none)", 0 },
	{ "packed-ring", OPT_PACKED_RING, "WHEN", OPTION_ARG_OPTIONAL, "with --trigger: how the ring of recent history is kept: always packed (no WHEN; 5-9x less disk, the packing's CPU paid while waiting), never (only the snapshots are packed), or auto, the default: unpacked while a window's pages come to less than 128M (or WHEN given as a size, e.g. --packed-ring=32M), packed above, so a busy ring's snapshot is not late", 0 },
	{ "max-lost", OPT_MAX_LOST, "N", 0, "exit 3 when more than N events were lost", 0 },
	{ "compression", OPT_COMPRESSION, "zstd|zlib|none", 0, "how the v7 file is packed (default zstd, as trace-cmd's)", 0 },
	{ "file-version", OPT_FILE_VERSION, "6|7", 0, "trace.dat version (default 7; 6 is never compressed)", 0 },
	{ "remote", OPT_REMOTE, "HOST:PORT", 0, "record on the machine where 'ktrace agent' listens at HOST:PORT, with these options; the file is written here; repeated, several machines at once, each into OUT-HOST.dat", 0 },
	{ "guest", OPT_GUEST, "CID[:PORT]", 0, "record on the VM guest of vsock context id CID, where 'ktrace agent --vsock PORT' listens (PORT 6517 by default); as --remote, and with it", 0 },
	{ "local", OPT_LOCAL, NULL, 0, "with --remote: record this machine too, into OUT, COMMAND run here once every agent records; the agents record until it ends", 0 },
	{ "token-file", OPT_TOKEN_FILE, "FILE", 0, "with --remote: the agent's token, proved and never sent", 0 },
	{ "quiet", 'q', NULL, 0, "no status line and no summary (losses are still reported)", 0 },
	{ "recover", OPT_RECOVER, "FILE|DIR", 0, "assemble FILE from the pieces a killed 'ktrace record -o FILE' left (DIR: the files in progress of a killed --rotate)", 0 },
	{ "backend", OPT_BACKEND, "ftrace|module", 0, "names mean ftrace's events, or ktrace.ko's (default: a bare name ktrace.ko offers is its own)", 0 },
	{ "kernel-stacks", 'T', NULL, 0, "a kernel stack with every event (the instance's stacktrace option)", 0 },
	{ "stack", OPT_STACK, "EVENT", 0, "record EVENT, with a kernel stack with each of its events only (a stacktrace trigger); repeatable", 0 },
	{ "for", OPT_FOR, "ANALYSIS", 0, "record the events 'ktrace analyze ANALYSIS' needs: sched, syscalls, cpu or offcpu; repeatable", 0 },
	{ "user-stack", OPT_USER_STACK, NULL, 0, "a user-space stack with every event (the instance's userstacktrace option), and the processes' memory maps so that report names its frames (COMMAND's and its children's read as each exits, under ptrace)", 0 },
	{ NULL, 0, NULL, 0, "Dynamic probes (removed when the recording ends):", 2 },
	{ "uprobe", OPT_UPROBE, "BIN:SYM[+OFF] [ARGS]", 0, "a probe at the entry of function SYM of BIN (a path, a library such as libc, a program in PATH), e.g. 'libc:malloc size=%di:u64'; repeatable", 2 },
	{ "uretprobe", OPT_URETPROBE, "BIN:SYM [ARGS]", 0, "a probe at SYM's return, e.g. 'libc:malloc ptr=$retval:x64'; repeatable", 2 },
	{ "kprobe", OPT_KPROBE, "FUNC[+OFF] [ARGS]", 0, "a probe at kernel function FUNC, e.g. 'do_sys_openat2 dfd=%di:s32 filename=+0(%si):string' (kernels with kprobe_events); repeatable", 2 },
	{ "kretprobe", OPT_KRETPROBE, "FUNC [ARGS]", 0, "a probe at FUNC's return, e.g. 'do_sys_openat2 ret=$retval:s64'; repeatable", 2 },
	{ NULL, 0, NULL, 0, "Function tracers (trace-cmd's -p; all reset when the recording ends):", 3 },
	{ "tracer", 'p', "TRACER", 0, "run ftrace's function or function_graph tracer (in the private instance, or in the top-level buffer, put back after, where the kernel runs it only there); a number is a pid, as -P", 3 },
	{ "plugin", 0, NULL, OPTION_ALIAS, NULL, 3 },
	{ "limit-func", 'l', "FUNC", 0, "trace only functions matching FUNC (a glob; set_ftrace_filter); repeatable", 3 },
	{ "notrace-func", 'n', "FUNC", 0, "do not trace functions matching FUNC (set_ftrace_notrace); repeatable", 3 },
	{ "graph-func", 'g', "FUNC", 0, "function_graph: only FUNC and what it calls (set_graph_function); repeatable", 3 },
	{ "max-graph-depth", OPT_MAX_GRAPH_DEPTH, "N", 0, "function_graph: calls at most N deep (max_graph_depth)", 3 },
	{ "func-stack", OPT_FUNC_STACK, NULL, 0, "function: a kernel stack with each function event (options/func_stack_trace)", 3 },
	{ NULL, 0, NULL, 0, "Process events:", 4 },
	{ "process", OPT_PROCESS, NULL, 0, "record process events (fork, exec, exit, signals, system calls) of COMMAND's or -P PID's whole tree, or of every process; on ktrace.ko's process tracer when it is loaded", 4 },
	{ "comm", OPT_COMM, "NAME", 0, "with --process: only processes named NAME (the kernel keeps 15 characters; a glob on ftrace, an exact name on ktrace.ko)", 4 },
	{ "uid", OPT_UID, "UID", 0, "with --process: only processes of user UID (needs the ktrace module)", 4 },
	{ "no-syscalls", OPT_NO_SYSCALLS, NULL, 0, "with --process: no system calls", 4 },
	{ "no-signals", OPT_NO_SIGNALS, NULL, 0, "with --process: no signals (sent or delivered)", 4 },
	{ "no-lifecycle", OPT_NO_LIFECYCLE, NULL, 0, "with --process: no fork, exec and exit", 4 },
	{ NULL, 0, NULL, 0, "Actions on each snapshot (a trigger's, or one of 'ktrace snapshot' or SIGUSR2):", 5 },
	{ "on-trigger", OPT_ON_TRIGGER, "CMD", 0, "run CMD, split into words without a shell ('...' and \"...\" quote), with KTRACE_SNAPSHOT, KTRACE_CONDITION, KTRACE_TIME, KTRACE_FIRE_TS, KTRACE_EVENT and KTRACE_SUPPRESSED in its environment; at most 4 at once", 5 },
	{ "push", OPT_PUSH, "URL", 0, "push each snapshot into ClickHouse at http://HOST:PORT[/DATABASE] as 'ktrace push' does, plus a row in its snapshots table, in the background (retried while the server is down; $KTRACE_PUSH_PASSWORD)", 5 },
	{ 0 }
};

/* -l/-n/-g FUNC: one more glob of a list. */
static void add_func(struct argp_state *state, const char ***list, size_t *n,
		     const char *arg)
{
	const char **l;

	if (!*arg || strpbrk(arg, " \t\n"))
		argp_error(state, "bad function '%s'; give a name or a glob, e.g. 'vfs_*'", arg);
	l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-l");
	l[(*n)++] = arg;
	*list = l;
}

/*
 * --for ANALYSIS: the events of each analysis of 'ktrace analyze', as
 * -e (or --stack) would add them, each once however many ask for it.
 */
static const struct {
	const char *analysis;
	const char *events[6];
	const char *stack;		/* with a kernel stack on it */
} presets[] = {
	{ "sched", { "sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup_new" }, NULL },
	{ "syscalls", { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" }, NULL },
	{ "cpu", { "sched:sched_switch", "irq:irq_handler_entry", "irq:irq_handler_exit",
		   "irq:softirq_entry", "irq:softirq_exit" }, NULL },
	{ "offcpu", { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" }, "sched:sched_switch" },
};

/* The -e of spec, when one was given already. */
static struct kt_evspec *spec_of(struct record_opts *o, const char *spec)
{
	size_t i;

	for (i = 0; i < o->t.nspecs; i++)
		if (!strcmp(o->t.specs[i].spec, spec))
			return &o->t.specs[i];
	return NULL;
}

static void add_preset(struct record_opts *o, const char *name, struct argp_state *state)
{
	struct kt_evspec *sp;
	size_t i, k;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].analysis, name))
			break;
	if (i == sizeof(presets) / sizeof(presets[0]))
		argp_error(state, "unknown --for '%s'; use sched, syscalls, cpu or offcpu", name);
	for (k = 0; k < 6 && presets[i].events[k]; k++)
		if (!spec_of(o, presets[i].events[k]))
			trace_opt(&o->t, 'e', (char *)presets[i].events[k], state);
	if (presets[i].stack) {
		sp = spec_of(o, presets[i].stack);
		if (!sp) {
			trace_opt(&o->t, 'e', (char *)presets[i].stack, state);
			sp = &o->t.specs[o->t.nspecs - 1];
		}
		sp->stack = true;
	}
}

/* What --rotate does not go with, and its -o DIR. */
static void rotate_end(struct record_opts *o, struct argp_state *state)
{
	struct stat st;

	if (o->flight || o->max_mb || o->t.ustacks || o->recover)
		argp_error(state, "--rotate and %s conflict; record without one of them",
			   o->flight ? "--flight" : o->max_mb ? "-m" :
			   o->t.ustacks ? "--user-stack" : "--recover");
	if (!o->output_set)
		argp_error(state, "--rotate needs -o DIR, the directory its files go into (created if missing)");
	if (!strcmp(o->output, "-"))
		argp_error(state, "--rotate writes files into a directory, not to standard output; give -o DIR");
	if (stat(o->output, &st) == 0 && !S_ISDIR(st.st_mode))
		argp_error(state, "-o '%s' is a file; --rotate writes its files into a directory: give -o DIR",
			   o->output);
	o->series.dir = o->output;
}

/* --trigger COND: parsed now, so a bad one is said before anything is set up. */
static void trigger_opt(struct record_opts *o, const char *arg,
			struct argp_state *state)
{
	char why[256];

	if (o->nconds == TRIGGERS_MAX)
		argp_error(state, "more than %d --trigger; join conditions into fewer",
			   TRIGGERS_MAX);
	if (kt_cond_parse(arg, &o->conds[o->nconds], why, sizeof(why)))
		argp_error(state, "bad --trigger '%s': %s", arg, why);
	o->nconds++;
}

static void window_opt(struct record_opts *o, int key, const char *arg,
		       struct argp_state *state)
{
	const char *name = key == OPT_BEFORE ? "--before" :
			   key == OPT_AFTER ? "--after" : "--cooldown";
	uint64_t ns;
	char why[256];

	if (key == OPT_COOLDOWN && !strcmp(arg, "0")) {
		o->cooldown = 0;
		o->cooldown_set = true;
		return;
	}
	if (kt_cond_duration(arg, &ns, why, sizeof(why)))
		argp_error(state, "bad %s: %s", name, why);
	if (key == OPT_COOLDOWN) {
		o->cooldown = ns;
		o->cooldown_set = true;
	} else if (key == OPT_BEFORE) {
		o->before = ns;
		o->before_set = true;
	} else {
		o->after = ns;
		o->after_set = true;
	}
}

/* --packed-ring[=always|never|auto|SIZE]: how the trigger's ring is kept. */
static void packed_ring_opt(struct record_opts *o, const char *arg,
			    struct argp_state *state)
{
	unsigned long long size = 0, ns = 0;

	o->ring_set = true;
	o->ring_auto_bytes = 0;
	if (!arg || !strcmp(arg, "always"))
		o->ring = KT_RING_PACKED;
	else if (!strcmp(arg, "never"))
		o->ring = KT_RING_UNPACKED;
	else if (!strcmp(arg, "auto"))
		o->ring = KT_RING_AUTO;
	else if (!parse_size_duration(arg, &size, &ns) && size) {
		o->ring = KT_RING_AUTO;
		o->ring_auto_bytes = size;
	} else
		argp_error(state, "bad --packed-ring=%s; give always, never, auto or a window's size of pages above which it is packed, e.g. --packed-ring=32M",
			   arg);
}

/*
 * What --trigger does not go with, its -o DIR, and the events its
 * conditions need, added to -e (with record's defaults when -e named
 * nothing).
 */
static void trigger_end(struct record_opts *o, struct argp_state *state)
{
	static const char *const defaults[] = { "sched:sched_switch", "sched:sched_wakeup" };
	const char *const *ev;
	struct stat st;
	size_t i;
	int k;

	if (o->flight || o->max_mb || o->rotate || o->recover || o->remote)
		argp_error(state, "--trigger and %s conflict; record without one of them",
			   o->flight ? "--flight" : o->max_mb ? "-m" : o->rotate ? "--rotate" :
			   o->recover ? "--recover" : "--remote");
	if (!o->output_set || !strcmp(o->output, "-"))
		argp_error(state, "--trigger needs -o DIR, the directory its snapshots go into (created if missing)");
	if (stat(o->output, &st) == 0 && !S_ISDIR(st.st_mode))
		argp_error(state, "-o '%s' is a file; --trigger writes its snapshots into a directory: give -o DIR",
			   o->output);
	if (!o->before_set)
		o->before = 10000000000ULL;
	if (!o->after_set)
		o->after = 1000000000ULL;
	if (!o->cooldown_set)
		o->cooldown = 3000000000ULL;
	if (!o->t.nspecs && !o->process && !o->t.ft.tracer)
		for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			trace_opt(&o->t, 'e', (char *)defaults[i], state);
	for (k = 0; k < o->nconds; k++) {
		if (o->conds[k].kind == KT_COND_EXIT && !o->t.cmd)
			argp_error(state, "--trigger exit needs a COMMAND: ktrace record --trigger exit -o DIR -- COMMAND");
		for (ev = kt_cond_events(&o->conds[k]); *ev; ev++)
			if (!spec_of(o, *ev))
				trace_opt(&o->t, 'e', (char *)*ev, state);
	}
}

/*
 * --guest CID[:PORT]: "vsock:CID:PORT" into buf (PORT: the agent's
 * default).  CID 0 and 2 are the hypervisor and the host, never a guest;
 * 1 is this machine through vsock's loopback (how the VM tests try the
 * vsock path inside one guest).  0 or -1.
 */
static int parse_guest(const char *arg, char *buf, size_t len)
{
	unsigned long long cid, port = KT_WIRE_PORT;
	const char *colon = strchr(arg, ':');
	char num[24];

	if (!colon)
		colon = arg + strlen(arg);
	if ((size_t)(colon - arg) >= sizeof(num))
		return -1;
	snprintf(num, sizeof(num), "%.*s", (int)(colon - arg), arg);
	if (parse_ulong(num, 0xfffffffeULL, &cid) || cid == 0 || cid == 2)
		return -1;
	if (*colon && (parse_ulong(colon + 1, 0xffffffffULL, &port) || !port))
		return -1;
	snprintf(buf, len, "vsock:%llu:%llu", cid, port);
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	unsigned long long v;
	char *end;
	error_t ret;

	ret = trace_opt(&o->t, key, arg, state);
	if (ret != ARGP_ERR_UNKNOWN && key != ARGP_KEY_END)
		return ret;
	switch (key) {
	case 'o':
		if (!*arg)
			argp_error(state, "-o needs a file name");
		o->output = arg;
		o->output_set = true;
		break;
	case OPT_ROTATE:
		if (*arg && strspn(arg, "0") == strlen(arg))
			o->series.size = o->series.ns = 0;
		else if (parse_size_duration(arg, &o->series.size, &o->series.ns))
			argp_error(state, "bad --rotate '%s'; give a size (64M: K, M or G) or a duration (10m: ms, s, m or h)",
				   arg);
		if (!o->series.size && !o->series.ns)
			argp_error(state, "bad --rotate '%s': a chunk needs a size or a duration above zero, e.g. --rotate 64M or --rotate 10m",
				   arg);
		o->rotate = arg;
		break;
	case OPT_KEEP:
		if (parse_ulong(arg, 1000000, &v) || !v)
			argp_error(state, "bad --keep '%s'; give how many files to keep, 1 or more, e.g. --keep 10",
				   arg);
		o->series.keep = v;
		break;
	case OPT_TRIGGER:
		trigger_opt(o, arg, state);
		break;
	case OPT_BEFORE:
	case OPT_AFTER:
	case OPT_COOLDOWN:
		window_opt(o, key, arg, state);
		break;
	case OPT_PACKED_RING:
		packed_ring_opt(o, arg, state);
		break;
	case OPT_MAX_SNAPSHOTS:
		if (parse_ulong(arg, 1000000, &v) || !v)
			argp_error(state, "bad --max-snapshots '%s'; give how many snapshots at most, 1 or more, e.g. --max-snapshots 10",
				   arg);
		o->max_snapshots = v;
		break;
	case OPT_REMOTE:
		if (!*arg)
			argp_error(state, "--remote needs HOST:PORT, where 'ktrace agent' listens");
		if (o->nremotes == MAX_REMOTES)
			argp_error(state, "at most %d --remote", MAX_REMOTES);
		o->remotes[o->nremotes++] = arg;
		o->remote = o->remotes[0];
		break;
	case OPT_GUEST:
		if (o->nremotes == MAX_REMOTES)
			argp_error(state, "at most %d --remote and --guest", MAX_REMOTES);
		if (parse_guest(arg, o->guests[o->nremotes], sizeof(o->guests[0])))
			argp_error(state, "bad --guest '%s'; give the guest's vsock context id (3 or more; 1: this machine) and the agent's port, e.g. --guest 3 or --guest 3:6517 ('ktrace agent --vsock 6517' in the guest)",
				   arg);
		o->remotes[o->nremotes] = o->guests[o->nremotes];
		o->nremotes++;
		o->remote = o->remotes[0];
		break;
	case OPT_LOCAL:
		o->local = true;
		break;
	case OPT_TOKEN_FILE:
		if (!*arg)
			argp_error(state, "--token-file needs a file name");
		o->token_file = arg;
		break;
	case OPT_FLIGHT:
		o->flight = true;
		break;
	case OPT_ON_TRIGGER: {
		const char *why = NULL;

		if (kt_hook_check(arg, &why))
			argp_error(state, "bad --on-trigger '%s': %s; quote a word with '...' or \"...\"",
				   arg, why ? why : strerror(ENOMEM));
		o->on_trigger = arg;
		break;
	}
	case OPT_PUSH:
		if (strncmp(arg, "http://", 7) || !arg[7])
			argp_error(state, "bad --push '%s'; give http://HOST:PORT[/DATABASE]", arg);
		o->push = arg;
		break;
	case 's':
		errno = 0;
		o->seconds = strtod(arg, &end);
		if (errno || *end || !(o->seconds > 0) || o->seconds > 1e9)
			argp_error(state, "bad duration '%s'; give seconds, e.g. -s 10", arg);
		break;
	case 'm':
		if (parse_ulong(arg, 1ULL << 30, &v) || !v)
			argp_error(state, "bad size '%s'; give megabytes, e.g. -m 100", arg);
		o->max_mb = v;
		break;
	case OPT_MAX_LOST:
		if (parse_ulong(arg, INT64_MAX, &v))
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
		if (parse_ulong(arg, 4294967294ULL, &v))
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
	case OPT_COMPRESSION:
		o->compression = parse_compression(state, arg);
		break;
	case OPT_FILE_VERSION:
		o->file_version = parse_file_version(state, arg);
		break;
	case OPT_RECOVER:
		if (!*arg)
			argp_error(state, "--recover needs a file name");
		o->recover = arg;
		break;
	case OPT_BACKEND:
		backend_option(state, arg);
		break;
	case 'T':
		o->t.stacks = true;
		break;
	case OPT_USER_STACK:
		o->t.ustacks = true;
		break;
	case OPT_UPROBE:
	case OPT_URETPROBE:
	case OPT_KPROBE:
	case OPT_KRETPROBE: {
		struct kt_probe_spec *ps = realloc(o->t.probes, (o->t.nprobes + 1) * sizeof(*ps));

		if (!ps)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "--uprobe");
		ps[o->t.nprobes].kind = key == OPT_UPROBE ? KT_UPROBE :
					key == OPT_URETPROBE ? KT_URETPROBE :
					key == OPT_KPROBE ? KT_KPROBE : KT_KRETPROBE;
		ps[o->t.nprobes].spec = arg;
		o->t.probes = ps;
		o->t.nprobes++;
		break;
	}
	case 'p':
		if (strcmp(arg, "function") && strcmp(arg, "function_graph"))
			argp_error(state, "bad tracer '%s'; ktrace runs function or function_graph (or give a pid with -P)",
				   arg);
		o->t.ft.tracer = arg;
		break;
	case 'l':
		add_func(state, &o->t.ft.filter, &o->t.ft.nfilter, arg);
		break;
	case 'n':
		add_func(state, &o->t.ft.notrace, &o->t.ft.nnotrace, arg);
		break;
	case 'g':
		add_func(state, &o->t.ft.graph_funcs, &o->t.ft.ngraph_funcs, arg);
		break;
	case OPT_MAX_GRAPH_DEPTH:
		if (parse_ulong(arg, 1000000, &v) || !v)
			argp_error(state, "bad depth '%s' for --max-graph-depth; give calls, e.g. 3", arg);
		o->t.ft.max_graph_depth = v;
		break;
	case OPT_FUNC_STACK:
		o->t.ft.func_stack = true;
		break;
	case OPT_FOR:
		add_preset(o, arg, state);
		break;
	case OPT_STACK:
		/* -e EVENT, marked: its events get the trigger. */
		ret = trace_opt(&o->t, 'e', arg, state);
		if (ret)
			return ret;
		o->t.specs[o->t.nspecs - 1].stack = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected '%s'; put the command after the options", arg);
		break;
	case ARGP_KEY_END:
		if (!o->t.ft.tracer && (o->t.ft.nfilter || o->t.ft.nnotrace ||
				     o->t.ft.ngraph_funcs || o->t.ft.max_graph_depth ||
				     o->t.ft.func_stack))
			argp_error(state, "-l, -n, -g, --max-graph-depth and --func-stack go with -p function or -p function_graph");
		if (o->t.ft.tracer && strcmp(o->t.ft.tracer, "function_graph") &&
		    (o->t.ft.ngraph_funcs || o->t.ft.max_graph_depth))
			argp_error(state, "-g and --max-graph-depth go with -p function_graph");
		if (o->t.ft.tracer && strcmp(o->t.ft.tracer, "function") && o->t.ft.func_stack)
			argp_error(state, "--func-stack goes with -p function");
		if (o->t.ft.tracer && o->process)
			argp_error(state, "-p %s and --process conflict; record them separately",
				   o->t.ft.tracer);
		check_file_format(state, o->file_version, o->compression);
		if (o->flight && o->max_mb)
			argp_error(state, "--flight and -m conflict; a flight recording is -b KB per CPU");
		if (!o->process && (*o->comm || o->uid || o->no_syscalls ||
				    o->no_signals || o->no_lifecycle))
			argp_error(state, "--comm, --uid and --no-* go with --process");
		if (o->process && o->no_syscalls && o->no_signals &&
		    o->no_lifecycle && !o->t.nspecs)
			argp_error(state, "--no-syscalls, --no-signals and --no-lifecycle leave nothing to record");
		if (o->series.keep && !o->rotate)
			argp_error(state, "--keep %u goes with --rotate; e.g. --rotate 64M --keep %u",
				   o->series.keep, o->series.keep);
		if (o->token_file && !o->remote)
			argp_error(state, "--token-file goes with --remote HOST:PORT");
		if (o->local && !o->remote)
			argp_error(state, "--local goes with --remote HOST:PORT (this machine and that one); without --remote, record records this machine");
		if (o->remote && (o->on_trigger || o->push))
			argp_error(state, "--remote and %s conflict; the snapshots are the agent's machine's",
				   o->on_trigger ? "--on-trigger" : "--push");
		if (o->remote && (o->rotate || o->recover || o->flight))
			argp_error(state, "--remote and %s conflict; record that on the agent's machine itself",
				   o->rotate ? "--rotate" : o->recover ? "--recover" : "--flight");
		if (o->rotate)
			rotate_end(o, state);
		if (o->nconds)
			trigger_end(o, state);
		else if (o->before_set || o->after_set || o->cooldown_set || o->max_snapshots ||
			 o->ring_set)
			argp_error(state, "--before, --after, --cooldown, --max-snapshots and --packed-ring go with --trigger COND");
		if (o->recover && (o->t.cmd || o->t.nspecs || o->t.npids || o->flight ||
				   o->t.ft.tracer ||
				   o->t.stacks || o->t.ustacks || o->t.nprobes ||
				   o->process || o->seconds > 0 || o->max_mb ||
				   o->t.buffer_kb || o->file_version || o->compression ||
				   o->on_trigger || o->push))
			argp_error(state, "--recover takes only FILE (and -q); it records nothing");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* ---- what is printed ---- */

static void status_line(void *arg, const struct kt_session_progress *p)
{
	const struct record_opts *o = arg;
	char mb[32];

	kt_human_bytes(p->bytes, mb, sizeof(mb));
	fprintf(stderr, "\r\033[K%s: %.0f s, %llu events, %s written, %llu %s",
		kt_log_prog(), p->seconds, p->events, mb, p->lost,
		o->flight ? "overwritten" : "lost");
	fflush(stderr);
}

static void summary(const struct record_opts *o, const struct kt_session *s,
		    const struct kt_file_sink *file,
		    const struct kt_series_sink *series)
{
	int cpu, ncpus = kt_session_ncpus(s);
	unsigned long long events = 0;
	struct kt_session_cpu c;
	struct kt_series_done d;
	char b[32];

	for (cpu = 0; cpu < ncpus; cpu++) {
		kt_session_cpu(s, cpu, &c);
		events += c.events;
	}
	if (series) {
		kt_series_sink_done(series, &d);
		kt_human_bytes(d.bytes, b, sizeof(b));
		fprintf(stderr, "%s: wrote %u files into '%s' (" KT_SERIES_PREFIX "%06u" KT_SERIES_SUFFIX
			" to " KT_SERIES_PREFIX "%06u" KT_SERIES_SUFFIX "%s): %llu events, %s in %.2f s\n",
			kt_log_prog(), d.chunks, o->output, d.first, d.last,
			d.removed ? ", the oldest removed as --keep says" : "",
			events, b, kt_session_elapsed(s));
	} else {
		kt_human_bytes(kt_file_sink_size(file), b, sizeof(b));
		fprintf(stderr, "%s: wrote '%s': %llu events, %s in %.2f s\n",
			kt_log_prog(), o->output, events, b, kt_session_elapsed(s));
	}
	fprintf(stderr, "  %4s %12s %12s %10s %10s\n", "CPU", "events", "bytes",
		"overrun", "dropped");
	for (cpu = 0; cpu < ncpus; cpu++) {
		kt_session_cpu(s, cpu, &c);
		kt_human_bytes(c.bytes, b, sizeof(b));
		fprintf(stderr, "  %4d %12llu %12s %10llu %10llu\n", cpu,
			c.events, b, c.overrun, c.dropped);
	}
}

/* What the triggers did, even with -q when some failed. */
static void trigger_summary(const struct record_opts *o, const struct kt_session *s,
			    const struct kt_trigger_sink *t)
{
	struct kt_trigger_done d;

	kt_trigger_sink_done(t, &d);
	if (d.failed)
		kt_err("%llu trigger snapshots could not be written into '%s'",
		       d.failed, o->output);
	if (o->quiet)
		return;
	fprintf(stderr, "%s: %u snapshots into '%s' (%llu firings: %llu inside a window already taken, %llu suppressed by --cooldown or --max-snapshots) in %.2f s\n",
		kt_log_prog(), d.snapshots, o->output, d.fired, d.merged,
		d.suppressed, kt_session_elapsed(s));
}

/*
 * A full disk stopped the recording or cut its file: one account, even
 * with -q: what is in the files, what is not, and what to do.
 */
static void disk_full(const struct record_opts *o, const struct kt_session *s,
		      const struct kt_series_done *d, unsigned long long unwritten,
		      unsigned long long lost)
{
	unsigned long long written = 0;
	struct kt_session_cpu c;
	char why[96] = "";
	int cpu;

	for (cpu = 0; cpu < kt_session_ncpus(s); cpu++) {
		kt_session_cpu(s, cpu, &c);
		written += c.events;
	}
	if (lost)
		snprintf(why, sizeof(why), " (%llu of them lost in the kernel buffers)",
			 lost);
	if (!d)
		kt_err("disk full: '%s' holds %llu events, %llu more were not written%s; free space or record elsewhere (-o)",
		       o->output, written, unwritten + lost, why);
	else if (!d->chunks)
		kt_err("disk full: recording into '%s' stopped before its first file was complete; %llu events were not written%s; free space, or use --keep N to drop the oldest",
		       o->output, written + unwritten + lost, why);
	else
		kt_err("disk full: recording into '%s' stopped; its %u files (%06u to %06u) are complete and hold %llu events, %llu more were not written%s; free space, or use --keep N to drop the oldest",
		       o->output, d->chunks, d->first, d->last, written,
		       unwritten + lost, why);
}

/* Loud, even with -q: loss is never silent. */
static unsigned long long report_loss(const struct record_opts *o,
				      const struct kt_session *s,
				      const struct kt_file_sink *file,
				      const struct kt_series_sink *series)
{
	unsigned long long lost = 0, left = 0, unwritten = 0;
	bool error = kt_session_stopped(s) == KT_STOP_ERROR;
	bool full = file ? kt_file_sink_disk_full(file) ||
			   kt_session_error(s) == -ENOSPC : false;
	struct kt_series_done d;
	int cpu, ncpus = kt_session_ncpus(s);
	struct kt_session_cpu c;

	for (cpu = 0; cpu < ncpus; cpu++) {
		kt_session_cpu(s, cpu, &c);
		lost += c.lost;
		left += c.left;
		/*
		 * Read from the kernel, then refused by a full disk, or never
		 * read because the disk stopped the recorders: lost too.
		 */
		unwritten += c.unwritten + (error ? c.left : 0);
	}
	if (series) {
		kt_series_sink_done(series, &d);
		full = d.disk_full;
	}
	/* The buffer overran while the disk held the readers: one account. */
	if (full) {
		disk_full(o, s, series ? &d : NULL, unwritten,
			  o->flight ? 0 : lost);
		return (o->flight ? 0 : lost) + unwritten;
	}
	if (lost && o->flight) {
		if (!o->quiet)
			kt_info("flight recorder kept the newest events; %llu older ones were overwritten (a bigger -b keeps more)",
				lost);
	} else if (lost) {
		kt_warn("LOST %llu events: the kernel buffer filled up faster than it was written out", lost);
		for (cpu = 0; cpu < ncpus; cpu++) {
			kt_session_cpu(s, cpu, &c);
			if (c.lost)
				kt_warn("  CPU %d: %llu overrun, %llu dropped", cpu,
					c.overrun + c.commit_overrun, c.dropped);
		}
		kt_warn("to lose nothing: a bigger buffer (-b %lu), fewer events (-e), or a filter (-f)",
			(o->t.buffer_kb ? o->t.buffer_kb : 1408) * 4);
	}
	if (left && kt_session_stopped(s) == KT_STOP_SIZE)
		kt_warn("%llu events after the -m limit were not written", left);
	if (unwritten) {
		kt_warn("NOT WRITTEN %llu events: the output refused them or stopped the recorders before they were read", unwritten);
		for (cpu = 0; cpu < ncpus; cpu++) {
			kt_session_cpu(s, cpu, &c);
			if (c.unwritten || (error && c.left))
				kt_warn("  CPU %d: %llu read but refused, %llu left in the kernel buffer",
					cpu, c.unwritten, error ? c.left : 0);
		}
	}
	return (o->flight ? 0 : lost) + unwritten;
}

/* ---- the actions on each snapshot ---- */

/* The session's kt_shot_fn: never waits (hook.h, shotpush.h). */
static void on_shot(void *ctx, const struct kt_shot *shot)
{
	struct record_opts *o = ctx;

	if (o->hook)
		kt_hook_run(o->hook, shot);
	if (o->shots)
		kt_shotpush_add(o->shots, shot);
}

/* A trigger's snapshot is written: its one line, then the actions. */
static void trigger_shot(void *ctx, const struct kt_shot *shot)
{
	char at[32];
	time_t sec = shot->fire_realtime_ns / 1000000000LL;
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(at, sizeof(at), "%H:%M:%S", &tm);
	printf("trigger '%s' at %s.%03d: wrote '%s' (%.3f s): %s\n",
	       shot->condition, at, (int)(shot->fire_realtime_ns / 1000000 % 1000),
	       shot->path, shot->last_ts > shot->first_ts ?
	       (shot->last_ts - shot->first_ts) / 1e9 : 0.0, shot->fire_event);
	fflush(stdout);
	on_shot(ctx, shot);
}

static int actions_begin(struct record_opts *o)
{
	if (o->on_trigger) {
		o->hook = kt_hook_new(o->on_trigger);
		if (!o->hook) {
			kt_err("cannot set up --on-trigger '%s': %s", o->on_trigger,
			       strerror(errno));
			return -1;
		}
	}
	if (o->push) {
		o->shots = kt_shotpush_new(o->push, NULL, getenv("KTRACE_PUSH_PASSWORD"));
		if (!o->shots) {
			kt_err("cannot use --push '%s': %s", o->push, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The end, once no snapshot can come: the hooks and the queue waited for
 * (bounded), and what was not pushed said with how to push it.
 */
static void actions_end(struct record_opts *o)
{
	char cmdl[4096];
	size_t i, n, ca = 0;
	const char *f;

	if (o->hook) {
		kt_hook_wait(o->hook, ACTIONS_WAIT_MS);
		kt_hook_free(o->hook);
		o->hook = NULL;
	}
	if (!o->shots)
		return;
	n = kt_shotpush_finish(o->shots, ACTIONS_WAIT_MS);
	if (n) {
		cmdl[0] = '\0';
		for (i = 0; (f = kt_shotpush_left(o->shots, i)) && ca < sizeof(cmdl); i++)
			ca += (size_t)snprintf(cmdl + ca, sizeof(cmdl) - ca, " -i '%s'", f);
		kt_warn("--push: %zu snapshot(s) not pushed to '%s' within %d s; push them later with: ktrace push%s --to %s",
			n, o->push, ACTIONS_WAIT_MS / 1000, cmdl, o->push);
	} else if (!o->quiet && kt_shotpush_pushed(o->shots)) {
		kt_info("--push: %zu snapshot(s) pushed to '%s'", kt_shotpush_pushed(o->shots),
			o->push);
	}
	kt_shotpush_free(o->shots);
	o->shots = NULL;
}

/* ---- the recording ---- */

/* ktrace agent's worker (record_serve()): the connection and its sink. */
static int serve_fd = -1;
static struct kt_net_sink *serve_net;

static int record(struct record_opts *o, struct kt_net_sink *net)
{
	struct kt_session_config cfg = {
		.t = &o->t,
		.output = o->output,
		.flight = o->flight,
		.seconds = o->seconds,
		.max_mb = o->max_mb,
		.file_version = o->file_version,
		.compression = o->compression,
		.quiet = o->quiet,
		/* The process view's marker rides in the version (procview.h). */
		.version = o->process ? "ktrace " KTRACE_VERSION " " KT_PROCVIEW_MARK :
					"ktrace " KTRACE_VERSION,
		.cmdline = o->cmdline,
		.process = o->process,
		.no_syscalls = o->no_syscalls,
		.no_signals = o->no_signals,
		.no_lifecycle = o->no_lifecycle,
		.comm = o->comm,
		.uid = o->uid,
		.progress = !o->quiet && isatty(STDERR_FILENO) ? status_line : NULL,
		.arg = o,
		.on_shot = o->on_trigger || o->push ? on_shot : NULL,
		.on_shot_ctx = o,
	};
	struct kt_trigger_opts to = {
		.dir = o->output, .conds = o->conds, .nconds = o->nconds,
		.before = o->before, .after = o->after,
		.max_snapshots = o->max_snapshots, .cooldown = o->cooldown,
		.ring = o->ring, .ring_auto_bytes = o->ring_auto_bytes,
	};
	struct kt_trigger_sink *trigger = o->nconds ? kt_trigger_sink_new(&to) : NULL;
	struct kt_file_sink *file = o->rotate || o->nconds ? NULL : kt_file_sink_new();
	struct kt_series_sink *series = o->rotate ? kt_series_sink_new(&o->series) : NULL;
	struct kt_sink sink = { &kt_file_sink_ops, file };
	enum kt_session_stop why;
	unsigned long long lost;
	struct kt_session *s;
	struct kt_run *run;
	int ret, status = KT_EXIT_FAIL, st;

	if (o->rotate) {
		sink.ops = &kt_series_sink_ops;
		sink.state = series;
	}
	if (o->nconds) {
		sink.ops = &kt_trigger_sink_ops;
		sink.state = trigger;
		cfg.on_shot = trigger_shot;
		cfg.on_shot_ctx = o;
	}
	if (net) {
		sink.ops = &kt_net_sink_ops;
		sink.state = net;
		free(file);
		file = NULL;
	}
	cfg.sinks = &sink;
	cfg.nsinks = 1;
	s = kt_session_new(&cfg);
	if (!s) {
		/* The session freed the sink. */
		serve_net = NULL;
		return KT_EXIT_FAIL;
	}
	run = kt_session_runner(s);
	if (actions_begin(o))
		goto out;
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
		/* COMMAND could not exec: its status is ours. */
		if (kt_run_child_status(run, &st))
			status = kt_run_exit_status(st);
		goto out;
	}
	why = kt_session_run(s);
	if (cfg.progress)
		fprintf(stderr, "\r\033[K");
	ret = kt_session_finish(s);
	actions_end(o);
	if (ret < 0)
		goto out;
	if (trigger)
		trigger_summary(o, s, trigger);
	else if (!o->quiet)
		summary(o, s, file, series);
	lost = report_loss(o, s, file, series);

	if (net && kt_run_child_running(run) &&
	    (why == KT_STOP_SIGNAL || kt_net_sink_gone(net))) {
		/* The agent's controller left or stopped it: COMMAND ends too. */
		kt_info("stopping '%s' (pid %d): the recording ended",
			o->t.cmd[0], (int)kt_run_child_pid(run));
		kt_run_child_kill(run, why == KT_STOP_SIGNAL ? SIGINT : SIGTERM);
		kt_run_child_wait(run);
	}
	if (kt_run_child_running(run) && why != KT_STOP_SIGNAL) {
		/* -s, -m or a full disk ended the recording, not the command. */
		if (!o->quiet)
			kt_info("waiting for '%s' (pid %d) to exit",
				o->t.cmd[0], (int)kt_run_child_pid(run));
		kt_run_child_wait(run);
	}
	kt_session_retire(s);
	if (ret)
		status = KT_EXIT_FAIL;
	else if (kt_run_child_status(run, &st) && st != 0)
		status = kt_run_exit_status(st);
	else if (why == KT_STOP_SIGNAL && kt_run_child_pid(run))
		status = 128 + kt_run_stop_signal(run);
	else if (o->max_lost >= 0 && lost > (unsigned long long)o->max_lost) {
		/* Not on status 3 alone: a command may exit 3 itself. */
		status = KT_EXIT_LOST;
		kt_err("lost %llu events, more than --max-lost %lld", lost, o->max_lost);
	} else {
		status = KT_EXIT_OK;
	}
out:
	actions_end(o);
	if (net) {
		/* The END, then the rest of the log stays here. */
		kt_net_sink_close(net, status);
		serve_net = NULL;
		serve_fd = -1;
	}
	kt_session_free(s);
	return status;
}

/* --recover DIR: the chunks in progress of a killed --rotate. */
static int recover_series(const struct record_opts *o)
{
	struct kt_recover_result r;
	unsigned int n;
	char b[32];
	int ret = kt_recover_series(o->recover, &r, &n);

	switch (ret) {
	case 0:
	case -ENOSPC:
		break;
	case -ENOENT:
		kt_err("nothing to recover in '%s': no ." KT_SERIES_PREFIX "NNNNNN" KT_SERIES_SUFFIX
		       KT_SERIES_PART KT_PIECE_TMP "PID left by a killed 'ktrace record --rotate'",
		       o->recover);
		return KT_EXIT_FAIL;
	case -EBUSY:
		kt_err("the recording into '%s' by pid %d is still running; stop it, it will write its files itself",
		       o->recover, (int)r.pid);
		return KT_EXIT_FAIL;
	default:
		kt_err("cannot recover the files in '%s': %s", o->recover, strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (ret == -ENOSPC)
		kt_err("disk full recovering in '%s': the last file keeps the oldest data that fit; free space",
		       o->recover);
	if (!o->quiet) {
		kt_human_bytes(r.bytes, b, sizeof(b));
		fprintf(stderr, "%s: recovered %u file(s) in '%s' from pid %d: %s of trace data\n",
			kt_log_prog(), n, o->recover, (int)r.pid, b);
	}
	return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

static int recover(const struct record_opts *o)
{
	struct kt_recover_result r;
	struct stat st;
	char b[32];
	int ret;

	if (stat(o->recover, &st) == 0 && S_ISDIR(st.st_mode))
		return recover_series(o);
	ret = kt_recover(o->recover, &r);

	switch (ret) {
	case 0:
	case -ENOSPC:
		break;
	case -ENOENT:
		kt_err("nothing to recover for '%s': no %s" KT_PIECE_TMP "PID left by a killed 'ktrace record'",
		       o->recover, o->recover);
		return KT_EXIT_FAIL;
	case -EBUSY:
		kt_err("the recording of '%s' by pid %d is still running; stop it, it will write the file itself",
		       o->recover, (int)r.pid);
		return KT_EXIT_FAIL;
	case -EBADMSG:
		kt_err("cannot recover '%s': the pieces of pid %d are damaged (killed before its headers were written); remove %s" KT_PIECE_TMP "%d*",
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
		kt_human_bytes(r.bytes, b, sizeof(b));
		fprintf(stderr, "%s: recovered '%s' from pid %d: %s of trace data on %d CPUs; %s\n",
			kt_log_prog(), o->recover, (int)r.pid, b, r.ncpus,
			r.drained ? "with the events its instance still held (remove it with 'ktrace reset -a')" :
				    "events still in the kernel buffer when it was killed are not in it");
	}
	return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

static char *join_cmdline(int argc, char **argv);

/* ---- --remote: the controller ---- */

/* The controller's clock: its top-level trace clock, or CLOCK_MONOTONIC. */
struct ctl_clock {
	bool tracefs;
	char name[32];
};

static uint64_t ctl_now(void *arg)
{
	struct ctl_clock *c = arg;
	unsigned long long sec = 0, usec = 0;
	struct timespec t;
	char *text, *at;

	if (c->tracefs) {
		text = kt_tracefs_read(NULL, "per_cpu/cpu0/stats");
		at = text ? strstr(text, "now ts:") : NULL;
		if (at && sscanf(at, "now ts: %llu.%llu", &sec, &usec) == 2) {
			free(text);
			return sec * 1000000000ULL + usec * 1000ULL;
		}
		free(text);
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static void ctl_clock_init(struct ctl_clock *c)
{
	const char *dir = NULL;
	char *text, *a, *b;

	snprintf(c->name, sizeof(c->name), "mono");
	if (kt_tracefs_open(&dir))
		return;
	text = kt_tracefs_read(NULL, "trace_clock");
	a = text ? strchr(text, '[') : NULL;
	b = a ? strchr(a, ']') : NULL;
	if (b && b - a - 1 > 0 && (size_t)(b - a - 1) < sizeof(c->name)) {
		snprintf(c->name, sizeof(c->name), "%.*s", (int)(b - a - 1), a + 1);
		c->tracefs = ctl_now(c) != 0;
	}
	free(text);
	if (!c->tracefs)
		snprintf(c->name, sizeof(c->name), "mono");
}

/*
 * record's arguments less the controller's own: --remote, --guest,
 * --token-file, --local; and less "-- COMMAND" with --local (COMMAND runs here).
 */
static char **agent_args(int argc, char **argv, bool no_cmd, int *n)
{
	char **out = calloc((size_t)argc + 1, sizeof(*out));
	bool cmd = false;
	int i;

	if (!out)
		return NULL;
	*n = 0;
	for (i = 1; i < argc; i++) {
		if (!cmd && !strcmp(argv[i], "--")) {
			if (no_cmd)
				break;
			cmd = true;
		}
		if (!cmd && (!strcmp(argv[i], "--remote") || !strcmp(argv[i], "--token-file") ||
			     !strcmp(argv[i], "--guest"))) {
			i++;
			continue;
		}
		if (!cmd && (!strncmp(argv[i], "--remote=", 9) ||
			     !strncmp(argv[i], "--token-file=", 13) ||
			     !strncmp(argv[i], "--guest=", 8) ||
			     !strcmp(argv[i], "--local")))
			continue;
		out[(*n)++] = argv[i];
	}
	return out;
}

static int remote(struct record_opts *o, const char *addr, const char *output,
		  int argc, char **argv, int ready_fd)
{
	struct kt_remote_opts ro = { .addr = addr, .output = output, .sigfd = -1,
				     .ready_fd = ready_fd };
	struct kt_remote_result r;
	struct ctl_clock clk = { 0 };
	uint8_t key[KT_AUTH_KEY];
	sigset_t set, old;
	char b[32];
	int ret;

	if (o->token_file) {
		if (token_load(o->token_file, key))
			return KT_EXIT_FAIL;
		ro.key = key;
	}
	/* With COMMAND after "--" in argv: all of it goes. */
	while (argv[argc])
		argc++;
	ro.argv = agent_args(argc, argv, o->local, &ro.argc);
	if (!ro.argv)
		return KT_EXIT_FAIL;
	ctl_clock_init(&clk);
	ro.clock_now = ctl_now;
	ro.clock_name = clk.name;
	ro.arg = &clk;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, &old);
	sigdelset(&set, SIGPIPE);
	ro.sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	ret = kt_remote_record(&ro, &r);
	if (ro.sigfd >= 0)
		close(ro.sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(ro.argv);
	if (ret)
		return r.usage ? KT_EXIT_USAGE : KT_EXIT_FAIL;
	kt_human_bytes(r.bytes, b, sizeof(b));
	if (r.dropped) {
		kt_err("the connection to the agent at '%s' dropped (%s): '%s' holds the recording up to the drop, %s of pages",
		       addr, r.why, output, b);
		return KT_EXIT_FAIL;
	}
	if (!o->quiet)
		fprintf(stderr, "%s: wrote '%s' from %s (agent at %s): %s of pages on %d CPUs, %u clock offsets\n",
			kt_log_prog(), output, *r.host ? r.host : "?", addr, b,
			r.ncpus, r.offsets);
	return r.status;
}

/*
 * Several --remote, or --remote with --local: one controller process per
 * agent (each remote() as for one), this machine's recording here with
 * COMMAND (--local), the agents stopped (SIGINT, as at a terminal) when
 * it ends; SIGINT or SIGTERM here stops them too.  trace-cmd's layout:
 * OUT for this machine, OUT-HOST.dat beside it for each agent.
 */
static void remote_output(const char *out, const char *addr, bool port,
			  char *buf, size_t len)
{
	const char *dot = strrchr(out, '.'), *colon = strrchr(addr, ':');
	int stem = dot && dot > out && !strchr(dot, '/') ? (int)(dot - out) : (int)strlen(out);
	int host = colon ? (int)(colon - addr) : (int)strlen(addr);
	char *p;

	/* "[::1]:6517" is "::1" */
	if (*addr == '[' && host > 2 && addr[host - 1] == ']')
		snprintf(buf, len, "%.*s-%.*s%s%s.dat", stem, out, host - 2, addr + 1,
			 port && colon ? "_" : "", port && colon ? colon + 1 : "");
	else
		snprintf(buf, len, "%.*s-%.*s%s%s.dat", stem, out, host, addr,
			 port && colon ? "_" : "", port && colon ? colon + 1 : "");
	for (p = buf + stem + 1; *p; p++)
		if (*p == '/' || *p == ':')
			*p = '_';
}

/* A controller's status, after --local's COMMAND stopped it (SIGINT: 130) too. */
static int remote_status(const struct record_opts *o, int st)
{
	st = WIFEXITED(st) ? WEXITSTATUS(st) : KT_EXIT_FAIL;
	return o->local && st == 130 ? KT_EXIT_OK : st;
}

/*
 * --local: COMMAND runs here only once every agent records (each
 * controller writes a byte to its pipe, ready[i], when its agent's first
 * clock measure comes, as tracing goes on there) or its controller has
 * ended (its pipe closed; its error said; this machine records all the
 * same, as the other agents do).  SIGINT or SIGTERM meanwhile: every
 * agent stopped, status 130.
 */
static int agents_recording(const int *ready, int n, const pid_t *pids)
{
	struct pollfd pfd[MAX_REMOTES + 1];
	struct signalfd_siginfo si;
	sigset_t set, old;
	int i, left = n, status = KT_EXIT_OK;
	char b;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);
	/* pfd[n]: SIGINT or SIGTERM, taken (read) here, not left pending */
	pfd[n] = (struct pollfd){ .fd = signalfd(-1, &set, SFD_CLOEXEC), .events = POLLIN };
	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = ready[i], .events = POLLIN };
	while (left > 0) {
		if (poll(pfd, (nfds_t)n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[n].revents & POLLIN && read(pfd[n].fd, &si, sizeof(si)) > 0) {
			for (i = 0; i < n; i++)
				kill(pids[i], SIGINT);
			status = 130;
			break;
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			/* a byte: recording; none: its controller ended */
			if (read(pfd[i].fd, &b, 1) < 0 && errno == EINTR)
				continue;
			pfd[i].fd = -1;
			left--;
		}
	}
	if (pfd[n].fd >= 0)
		close(pfd[n].fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

static int remotes(struct record_opts *o, int argc, char **argv)
{
	char outs[MAX_REMOTES][PATH_MAX];
	pid_t pids[MAX_REMOTES];
	int code[MAX_REMOTES];
	bool done[MAX_REMOTES] = { false };
	int i, j, status = KT_EXIT_OK, st, n = o->nremotes;
	int ready[MAX_REMOTES][2], readers[MAX_REMOTES];
	bool port;

	for (i = 0; i < n; i++) {
		/* Two agents on one host: their ports tell their files apart. */
		port = false;
		for (j = 0; j < n; j++)
			if (j != i && !strncmp(o->remotes[i], o->remotes[j],
					       strcspn(o->remotes[i], ":") + 1))
				port = true;
		remote_output(o->output, o->remotes[i], port, outs[i], sizeof(outs[i]));
		for (j = 0; j < i; j++)
			if (!strcmp(outs[i], outs[j])) {
				kt_err("'%s' is given twice with --remote", o->remotes[i]);
				return KT_EXIT_USAGE;
			}
	}
	if (o->local && (need_tracefs() != KT_EXIT_OK || need_backend()))
		return KT_EXIT_FAIL;
	for (i = 0; o->local && i < n; i++)
		if (pipe2(ready[i], O_CLOEXEC)) {
			kt_err("cannot make a pipe: %s", strerror(errno));
			while (i--) {
				close(ready[i][0]);
				close(ready[i][1]);
			}
			return KT_EXIT_FAIL;
		}
	fflush(NULL);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			kt_err("cannot start the recording of '%s': %s", o->remotes[i], strerror(errno));
			status = KT_EXIT_FAIL;
			for (j = 0; j < i; j++)
				kill(pids[j], SIGINT);
			n = i;
			break;
		}
		if (pids[i] == 0) {
			for (j = 0; o->local && j < o->nremotes; j++) {
				close(ready[j][0]);
				if (j != i)
					close(ready[j][1]);
			}
			_exit(remote(o, o->remotes[i], outs[i], argc, argv,
				     o->local ? ready[i][1] : -1));
		}
	}
	for (i = 0; o->local && i < o->nremotes; i++) {
		close(ready[i][1]);
		readers[i] = ready[i][0];
	}
	if (status == KT_EXIT_OK && o->local)
		status = agents_recording(readers, n, pids);
	for (i = 0; o->local && i < o->nremotes; i++)
		close(readers[i]);
	if (status == KT_EXIT_OK && o->local) {
		status = record(o, NULL);
		for (i = 0; i < n; i++)
			kill(pids[i], SIGINT);
	} else if (status == KT_EXIT_OK) {
		struct signalfd_siginfo si;
		sigset_t set, old;
		int sfd, alive = n;

		/* Until every agent is done; SIGINT or SIGTERM: stop them all. */
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGCHLD);
		sigprocmask(SIG_BLOCK, &set, &old);
		sfd = signalfd(-1, &set, SFD_CLOEXEC);
		while (sfd >= 0 && alive > 0) {
			for (i = 0; i < n; i++)
				if (!done[i] && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
					done[i] = true;
					code[i] = remote_status(o, st);
					alive--;
				}
			if (!alive || read(sfd, &si, sizeof(si)) != sizeof(si))
				break;
			if (si.ssi_signo != SIGCHLD)
				for (i = 0; i < n; i++)
					if (!done[i])
						kill(pids[i], (int)si.ssi_signo);
		}
		if (sfd >= 0)
			close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	for (i = 0; i < n; i++) {
		if (!done[i]) {
			st = KT_EXIT_FAIL << 8;
			while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
				;
			code[i] = remote_status(o, st);
		}
		if (code[i] && status == KT_EXIT_OK)
			status = code[i];
	}
	return status;
}

/* ---- ktrace agent's side: one controller's recording ---- */

/* The worker's log: its own stderr, and errors and warnings to the controller. */
static void serve_log(enum kt_log_level level, const char *msg)
{
	uint8_t lv = (uint8_t)level;
	size_t len = strlen(msg);

	fprintf(stderr, "%s: %s%s\n", kt_log_prog(),
		level == KT_LOG_WARN ? "warning: " : "", msg);
	if (level > KT_LOG_WARN || serve_fd < 0 ||
	    (serve_net && kt_net_sink_gone(serve_net)))
		return;
	if (serve_net)
		kt_net_sink_log(serve_net, lv, msg, len < 4000 ? len : 4000);
	else
		kt_wire_send2(serve_fd, KT_MSG_LOG, &lv, 1, msg, len < 4000 ? len : 4000, 2000);
}

/*
 * The arguments checked by record's own parser in a child, whose errors
 * (argp's usage lines) are kept: the worker goes on only when it took
 * them, and the controller gets the first line of its refusal.
 */
static int serve_check(int argc, char **argv, char *const *allow, size_t nallow,
		       char *why, size_t whylen)
{
	int p[2], status = 0, devnull;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		struct record_opts o = { .output = DEFAULT_OUTPUT, .max_lost = -1 };
		struct argp a = argp;
		const char *bad = NULL;
		size_t i;
		int at;

		devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		kt_log_set_handler(NULL);
		at = split_command(options, argc, argv, &o.t);
		argp_parse(&a, at, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, &o);
		if (o.remote)
			bad = "--remote";
		else if (o.rotate)
			bad = "--rotate";
		else if (o.recover)
			bad = "--recover";
		else if (o.on_trigger)
			bad = "--on-trigger";
		else if (o.push)
			bad = "--push";
		if (bad)
			fprintf(stderr, "ktrace agent: %s is not taken by an agent\n", bad);
		if (o.t.cmd) {
			for (i = 0; i < nallow; i++)
				if (!strcmp(o.t.cmd[0], allow[i]))
					break;
			if (i == nallow)
				fprintf(stderr, "ktrace agent: '%s' is not allowed here; the agent runs only what --allow-command names\n",
					o.t.cmd[0]);
		}
		fflush(stderr);
		_exit(0);
	}
	close(p[1]);
	while (got < (ssize_t)whylen - 1 &&
	       (n = read(p[0], why + got, whylen - 1 - (size_t)got)) > 0)
		got += n;
	why[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -EINVAL;
	return got ? -EINVAL : 0;
}

int record_serve(int fd, int agent, char *const *allow, size_t nallow,
		 int argc, char **argv)
{
	struct record_opts o = { .output = DEFAULT_OUTPUT, .max_lost = -1 };
	char why[1024], *nl;
	int cmd_at, status, ret;

	ret = serve_check(argc, argv, allow, nallow, why, sizeof(why));
	if (ret) {
		nl = strchr(why, '\n');
		if (nl)
			*nl = '\0';
		if (!*why)
			snprintf(why, sizeof(why), "cannot check the options: %s", strerror(-ret));
		kt_err("refused: %s", why);
		kt_wire_send(fd, KT_MSG_REFUSE, why, strlen(why), 2000);
		return KT_EXIT_USAGE;
	}
	o.cmdline = join_cmdline(argc, argv);
	cmd_at = split_command(options, argc, argv, &o.t);
	parse_args(&argp, cmd_at, argv, &o);
	o.quiet = true;
	serve_fd = fd;
	kt_log_set_handler(serve_log);
	serve_net = kt_net_sink_new(fd, agent);
	if (!serve_net) {
		kt_err("cannot start the recording: %s", strerror(errno));
		status = KT_EXIT_FAIL;
	} else {
		status = need_backend() ? KT_EXIT_FAIL : record(&o, serve_net);
	}
	serve_net = NULL;
	kt_log_set_handler(NULL);
	serve_fd = -1;
	trace_opts_free(&o.t);
	free(o.cmdline);
	return status;
}

/* "ktrace record ARGS...", a word with a space or quote in single quotes. */
static char *join_cmdline(int argc, char **argv)
{
	size_t len = 8, at;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len + 16);
	if (!s)
		return NULL;
	/* argv[0] is argp's program name, "ktrace record". */
	at = (size_t)sprintf(s, "ktrace record");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool quote = !*a || strpbrk(a, " \t\n'\"\\$`");

		s[at++] = ' ';
		if (quote)
			s[at++] = '\'';
		for (; *a; a++) {
			if (quote && *a == '\'') {
				memcpy(s + at, "'\\''", 4);
				at += 4;
				continue;
			}
			s[at++] = *a;
		}
		if (quote)
			s[at++] = '\'';
	}
	s[at] = '\0';
	return s;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .output = DEFAULT_OUTPUT, .max_lost = -1 };
	int cmd_at, status;

	o.cmdline = join_cmdline(argc, argv);
	cmd_at = split_command(options, argc, argv, &o.t);
	if (parse_args(&argp, cmd_at, argv, &o)) {
		trace_opts_free(&o.t);
		free(o.cmdline);
		return KT_EXIT_OK;
	}
	if (o.nremotes > 1 || o.local)
		status = remotes(&o, cmd_at, argv);
	else if (o.remote)
		status = remote(&o, o.remote, o.output, cmd_at, argv, -1);
	else if ((status = need_tracefs()) != KT_EXIT_OK)
		;
	else
		status = o.recover ? recover(&o) :
			 need_backend() ? KT_EXIT_FAIL : record(&o, NULL);
	trace_opts_free(&o.t);
	free(o.cmdline);
	return status;
}
