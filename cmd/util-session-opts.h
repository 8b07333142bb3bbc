/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing options `ktrace record` and `ktrace stream` share
 * (-e/-f/-b/-P/-F/-c) and where COMMAND starts on the command line:
 * argp's side of struct kt_trace_opts (live/session/tracing.h).
 */
#ifndef KT_SESSION_OPTS_H
#define KT_SESSION_OPTS_H

#include <argp.h>

#include "live/session/tracing.h"

/* Above every command's own OPT_ keys (256 on). */
#define KT_OPT_TRACE_SELF 0x4000

/* The argp entries of the shared options, for a command's options[]. */
#define KT_TRACE_OPTIONS \
	{ "event", 'e', "EVENT", 0, "trace EVENT (a name, glob, system:* or classic alias); repeatable", 0 }, \
	{ "filter", 'f', "FILTER", 0, "ftrace filter for the preceding -e", 0 }, \
	{ "buffer-size", 'b', "KB", 0, "per-CPU kernel buffer size in KB", 0 }, \
	{ "pid", 'P', "PID", 0, "trace only this running process; repeatable (-p PID, a number, too)", 0 }, \
	{ "command-only", 'F', NULL, 0, "trace COMMAND's process: all its threads, not the processes it forks", 0 }, \
	{ "children", 'c', NULL, 0, "trace COMMAND (or -P PID), its threads and its descendants", 0 }, \
	{ "trace-self", KT_OPT_TRACE_SELF, NULL, 0, "record ktrace's own threads too (left out by default, as trace-cmd leaves out its own)", 0 }

/*
 * parse_opt() for the shared options: handles its keys (also the
 * ARGP_KEY_END checks, returning 0 so the caller does its own) and
 * returns ARGP_ERR_UNKNOWN for the rest.  -p with a number is a pid, as
 * -P (what -p was before record's -p TRACER); with a name it is the
 * caller's.
 */
error_t trace_opt(struct kt_trace_opts *o, int key, char *arg,
		  struct argp_state *state);
int parse_ulong(const char *s, unsigned long long max,
		unsigned long long *out);
void trace_opts_free(struct kt_trace_opts *o);

/*
 * Split argv at COMMAND (after "--", or the first word that is neither
 * an option of options[] nor an option's argument): o->cmd is set and
 * the number of words left for argp is returned.
 */
int split_command(const struct argp_option *options, int argc,
		  char **argv, struct kt_trace_opts *o);

#endif
