/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommands.
 *
 * Adding a command:
 *   1. the table entry in ktrace.c (sorted, with its NEED_* flags)
 *   2. cmd/<name>.c exporting int cmd_<name>(int argc, char **argv)
 *      (the Makefile picks up every cmd/ source by itself)
 *   3. man/ktrace-<name>.1, its SYNOPSIS matching --help
 *   4. completions: options come from `ktrace <name> --list-opts`; add any
 *      argument completion to completions/ktrace.bash and completions/_ktrace
 *   5. tests/bats/<name>.bats
 */
#ifndef KT_CMD_H
#define KT_CMD_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/json.h"
#include "live/events/events.h"

/* Exit statuses, the same for every command (see ktrace(1)). */
enum {
	KT_EXIT_OK = 0,
	KT_EXIT_FAIL = 1,
	KT_EXIT_DAMAGED = 2,
	KT_EXIT_LOST = 3,
	KT_EXIT_USAGE = 64,
};

int cmd_agent(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_top(int argc, char **argv);

/*
 * ktrace agent's worker: one controller's recording on connection fd
 * (authenticated), with record's arguments argv (argv[0] "ktrace
 * record"), checked by record's own parser; COMMAND only when allow
 * names it.  agent is the agent's pid.  Returns record's exit status.
 */
int record_serve(int fd, int agent, char *const *allow, size_t nallow,
		 int argc, char **argv);

/*
 * --token-file FILE of agent and record --remote: its token's key
 * (net/auth.h), 32 bytes; 0, or -errno when it cannot be had (said).
 */
int token_load(const char *path, unsigned char *key);

/*
 * argp_parse() for a subcommand, plus the hidden --list-opts that prints
 * every option (one per line) for the completions and the man page test.
 * Returns 0 to go on, or 1 when the command should return KT_EXIT_OK at
 * once (after --list-opts).  Usage errors exit 64 inside argp.
 */
int parse_args(const struct argp *argp, int argc, char **argv,
	       void *input);

/*
 * The trace.dat format options of record and report -o: --file-version's
 * value (6 or 7) and --compression's (zstd, zlib or none), each refused
 * in one line (exit 64) when bad; then whether the two go together.
 */
int parse_file_version(struct argp_state *state, const char *arg);
const char *parse_compression(struct argp_state *state, const char *arg);
void check_file_format(struct argp_state *state, int version,
		       const char *compression);

/*
 * A size (K, M, G; B or iB after them taken too) into *size, or a
 * duration (ms, s, m, h) into *ns, the other set to 0: record --rotate,
 * snapshot --last.  A bare number is neither.  0 or -EINVAL.
 */
int parse_size_duration(const char *arg, unsigned long long *size,
			unsigned long long *ns);

/* --top N of analyze and diff: rows shown, 1 or more (exit 64 when bad). */
long parse_top(struct argp_state *state, const char *arg);

/*
 * Make sure tracefs is there and writable; print the one-line reason and
 * return KT_EXIT_FAIL when it is not.  Commands with an offline mode call
 * it themselves after parsing their options.
 */
int need_tracefs(void);

/*
 * --backend ftrace|module: set which tracer's events names mean (see
 * kt_events_set_backend()); a bad name is a usage error.
 */
void backend_option(struct argp_state *state, const char *arg);
/*
 * After parsing: --backend module needs ktrace.ko loaded.  Prints the
 * reason and how to load it; returns 0 or KT_EXIT_FAIL.
 */
int need_backend(void);

/*
 * Look up the existing instance a -B NAME option names (NULL: the top
 * level, *out NULL), printing "no instance 'x'; ..." when there is none.
 * Never creates one.  Returns 0 or KT_EXIT_FAIL.
 */
struct tracefs_instance;
int instance_arg_lookup(const char *name, struct tracefs_instance **out);

/*
 * -i: the recording to read: a trace.dat file, a directory of chunks
 * (record --rotate's), or, repeated, chunks of one recording, read as one
 * (kt_reader_open_list()).  name is what messages call it: the one -i, or
 * the several joined by ", ".
 */
struct input_list {
	const char **paths;
	int n;
	char *name;
};
void input_add(struct argp_state *state, struct input_list *in, const char *arg);
/* At ARGP_KEY_END: ktrace.dat when no -i was given; sets and returns in->name. */
const char *input_done(struct argp_state *state, struct input_list *in);
void input_free(struct input_list *in);
/*
 * Several -i of different hosts (report -i host.dat -i guest.dat, their
 * records on one timeline: decode/hosts.h) rather than chunks of one
 * recording: when any is a remote recording (it stores clock offsets) or
 * the host names they store differ.  Then true, with each file's reader
 * in rs (in->n of them, the caller's to close); else false and nothing
 * open (a file that does not open is left to the caller's own open).
 */
struct kt_reader;
bool hosts_open(const struct input_list *in, struct kt_reader **rs);
/* The same question, nothing left open. */
bool hosts_given(const struct input_list *in);

/*
 * -o FILE (cmd/util-output.c): stdout for none or "-"; a device or fifo as
 * it is; else a temporary file beside FILE (*tmp) that output_close()
 * puts in place when status is KT_EXIT_OK and every write succeeded,
 * and removes otherwise.  NULL after saying why.  output_close returns
 * the status to end with.
 */
FILE *output_open(const char *path, char **tmp);
int output_close(FILE *f, const char *path, char *tmp, int status);

#endif
