/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ktrace record` and `ktrace stream` share: the tracing options
 * (-e/-f/-b/-p/-F/-c), where COMMAND starts on the command line, the
 * private instance ktrace-<pid> with its events, filters and pids, and
 * the signals that end a session.
 */
#ifndef KT_SESSION_H
#define KT_SESSION_H

#include <argp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "live/events.h"

struct kt_evspec {
	char *spec;
	char *filter;	/* the -f after it, or NULL */
};

struct kt_trace_opts {
	struct kt_evspec *specs;
	size_t nspecs;
	unsigned long buffer_kb;
	pid_t *pids;
	size_t npids;
	bool only_cmd;
	bool children;
	char **cmd;	/* COMMAND and its arguments, or NULL */
};

/* The argp entries of the shared options, for a command's options[]. */
#define KT_TRACE_OPTIONS \
	{ "event", 'e', "EVENT", 0, "trace EVENT (a name, glob, system:* or classic alias); repeatable", 0 }, \
	{ "filter", 'f', "FILTER", 0, "ftrace filter for the preceding -e", 0 }, \
	{ "buffer-size", 'b', "KB", 0, "per-CPU kernel buffer size in KB", 0 }, \
	{ "pid", 'p', "PID", 0, "trace only this running process; repeatable", 0 }, \
	{ "command-only", 'F', NULL, 0, "trace only COMMAND's process", 0 }, \
	{ "children", 'c', NULL, 0, "trace COMMAND (or -p PID) and its descendants", 0 }

/*
 * parse_opt() for the shared options: handles its keys (also the
 * ARGP_KEY_END checks, returning 0 so the caller does its own) and
 * returns ARGP_ERR_UNKNOWN for the rest.
 */
error_t kt_trace_opt(struct kt_trace_opts *o, int key, char *arg,
		     struct argp_state *state);
int kt_parse_ulong(const char *s, unsigned long long max,
		   unsigned long long *out);
void kt_trace_opts_free(struct kt_trace_opts *o);

/*
 * Split argv at COMMAND (after "--", or the first word that is neither
 * an option of options[] nor an option's argument): o->cmd is set and
 * the number of words left for argp is returned.
 */
int kt_trace_split_command(const struct argp_option *options, int argc,
			   char **argv, struct kt_trace_opts *o);

/* A private instance with the events of the options. */
struct kt_tracing {
	const struct kt_trace_opts *o;
	struct kt_catalog *cat;
	struct kt_event_list *events;
	char **filters;			/* per event of events, or NULL */
	char inst_name[64];
	struct tracefs_instance *inst;
	/* Set by the caller before kt_tracing_arm(), for record --process: */
	const char *comm;		/* ANDed into every filter ("comm == NAME"), or NULL */
	bool follow_children;		/* follow forks as -c does */
};

/*
 * Resolve the -e specs (sched_switch and sched_wakeup without any) and
 * check the -p pids, printing what is wrong.  KT_EXIT_OK or _FAIL.
 * specs, when not NULL, replaces o's -e list (record --process generates
 * its own); it must outlive t.
 */
int kt_tracing_resolve(struct kt_tracing *t, const struct kt_trace_opts *o,
		       const struct kt_evspec *specs, size_t nspecs);
/*
 * Create ktrace-<pid> with tracing off, buffer_percent set to
 * wake_percent (when the readers' poll() wakes) and -b applied.
 */
int kt_tracing_instance(struct kt_tracing *t, const char *wake_percent);
/* set_event_pid (child: COMMAND's pid or 0), filters, enable. */
int kt_tracing_arm(struct kt_tracing *t, pid_t child);
/*
 * Is r one of ktrace.ko's events (system ktrace with the module in
 * use)?  kt_tracing_arm() leaves those alone: they are not in the
 * instance, and whoever records them switches them on itself.
 */
bool kt_is_module_event(const struct kt_event_ref *r);
/* Stop tracing and remove the instance if still there; free all. */
void kt_tracing_release(struct kt_tracing *t);

/*
 * Block SIGINT, SIGTERM, SIGHUP (unless ignored) and SIGCHLD and return
 * a signalfd for them (non-blocking), or -errno.  *old is the mask to
 * restore.
 */
int kt_signals_block(sigset_t *old);

/* COMMAND as a session runs it, and the signals that end the session. */
struct kt_run {
	struct kt_child *child;	/* COMMAND, or NULL */
	bool child_done;	/* reaped: child_status is its wait status */
	int child_status;
	int stop_signal;	/* the last SIGINT, SIGTERM or SIGHUP, or 0 */
	int nsignals;
};

enum kt_run_event {
	KT_RUN_GOING,		/* nothing that ends the session */
	KT_RUN_CHILD_EXITED,	/* COMMAND exited (and was reaped) */
	KT_RUN_SIGNALLED,	/* a signal ends the session */
};

/* Reap COMMAND if it has exited; true once it has. */
bool kt_run_child_exited(struct kt_run *r);
/*
 * Read every pending signal from the signalfd sfd.  With COMMAND still
 * running, the first SIGINT/SIGTERM/SIGHUP does not end the session but
 * is passed on to COMMAND (unless it came from the terminal, which
 * signalled COMMAND already), and COMMAND's exit ends it; a second one
 * ends it at once.
 */
enum kt_run_event kt_run_signals(struct kt_run *r, int sfd);
/* ktrace's exit status for COMMAND's wait status (128+N for signal N). */
int kt_run_exit_status(int wait_status);

#endif
