/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording (`ktrace record`): its sources set up, the run loop, stop
 * and restore on every path, the statistics, and the trace.dat file
 * written.  The session says what goes wrong through kt_log(); what a
 * command prints (the status line, the summary) it takes from
 * kt_session_cpu() and the progress callback.
 *
 * Adding a recording source (a uprobe/kprobe, a function tracer, ...):
 *   1. one new file lib/live/source-<name>.c with a struct
 *      kt_source_ops (live/source.h); hooks it does not need stay NULL
 *   2. its line in sources[] in session.c (set up and started in that
 *      order, stopped in reverse)
 *   3. prepare() decides whether it takes part in this recording (0
 *      with *state NULL: it does not), and says why it fails itself
 *   4. restore() puts back everything it changed and frees its state;
 *      it runs on every path, the error paths included
 *   5. anything it needs from the command line: a field of struct
 *      kt_session_config, its option in cmd/record.c
 *   6. tests in tests/bats/ (record.bats, faults.bats for the kill and
 *      signal paths)
 */
#ifndef KT_SESSION_H
#define KT_SESSION_H

#include <stdbool.h>

#include "live/session-config.h"

struct kt_run;
struct kt_session;

/*
 * Block the signals that end a recording, start reading kallsyms and
 * resolve the events (cfg must outlive the session).  NULL + errno.
 */
struct kt_session *kt_session_new(const struct kt_session_config *cfg);
/* Stop, put every source back, remove the instance and the pieces. */
void kt_session_free(struct kt_session *s);

/*
 * Open the output, create the instance, start COMMAND held, set up
 * every source, start tracing and let COMMAND go.  0 or -errno; when
 * COMMAND could not exec, it has exited (kt_run_child_status()).
 */
int kt_session_start(struct kt_session *s);
/* Until COMMAND exits, a signal, -s, -m or an error. */
enum kt_session_stop kt_session_run(struct kt_session *s);
/*
 * Stop tracing, take what is left, read the statistics and write the
 * file (removing the instance meanwhile).  0; 1 when the file is
 * written but something failed (a full disk, a source that could not
 * be read to the end); -errno when the file is not written.
 */
int kt_session_finish(struct kt_session *s);
/*
 * The instance's removal, retried once COMMAND is gone when it held a
 * file of the instance open; a warning when it cannot be removed.
 */
void kt_session_retire(struct kt_session *s);

/* COMMAND and the signals: see live/run.h. */
struct kt_run *kt_session_runner(const struct kt_session *s);
enum kt_session_stop kt_session_stopped(const struct kt_session *s);

/* One CPU's share of a finished recording. */
struct kt_session_cpu {
	unsigned long long events;	/* in the file */
	unsigned long long bytes;	/* of trace data */
	unsigned long long overrun;	/* overwritten (over the recording) */
	unsigned long long commit_overrun;
	unsigned long long dropped;
	unsigned long long left;	/* still in the buffer at the end */
	unsigned long long unwritten;	/* read, but refused by the output */
};

int kt_session_ncpus(const struct kt_session *s);
void kt_session_cpu(const struct kt_session *s, int cpu,
		    struct kt_session_cpu *out);
/* The file's size, and the seconds tracing was on. */
unsigned long long kt_session_file_size(const struct kt_session *s);
double kt_session_elapsed(const struct kt_session *s);

#endif
