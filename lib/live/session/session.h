/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live session (`ktrace record`, `ktrace stream`, `ktrace top`): its
 * sources set up, the run loop, stop and restore on every path, the
 * statistics, and its sinks fed (the trace.dat file, the live decoder,
 * top's counter).  The session says what goes wrong through kt_log();
 * what a command prints (the status line, the summary, top's table) it
 * takes from kt_session_cpu(), its sinks and the callbacks.  A command
 * fills a struct kt_session_config, names its sinks there, and calls
 * new, start, run, finish, free; a command with a loop of its own (top's
 * screen) calls kt_session_step() in it instead of run.
 *
 * Adding a recording source (a uprobe/kprobe, a function tracer, ...):
 *   1. one new file lib/live/session/source-<name>.c with a struct
 *      kt_source_ops (live/session/source.h); hooks it does not need stay NULL
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
 *   7. a live sink reads its buffers itself (env->live): open no readers
 *      then, and name the files of pages a live sink reads (page_file)
 *      and the formats tracefs lacks (formats)
 *
 * Adding a sink (an output: rotated chunks, a snapshot ring, a trigger,
 * a network peer, ...):
 *   1. one new file lib/live/session/sink-<name>.c with a struct kt_sink_ops
 *      (live/session/sink.h) and its public header sink-<name>.h: a constructor
 *      and what a command reads of it; hooks it does not need stay NULL
 *   2. pieces or live (sink.h): a pieces sink takes the sources' pieces
 *      at end() and costs the recording nothing while it runs; a live
 *      sink (KT_SINK_LIVE) reads the buffers in pages() and must keep
 *      up, one per session
 *   3. begin() at the steps it needs, in order; it says why it fails
 *   4. end() takes the rest and writes; free() puts back and frees on
 *      every path, the error paths included
 *   5. the command names it in kt_session_config.sinks, beside the
 *      others: several sinks at once are fed the same recording (up to
 *      KT_SESSION_SINKS, session-priv.h)
 *   6. tests in tests/bats/ for the command that attaches it
 */
#ifndef KT_SESSION_H
#define KT_SESSION_H

#include <poll.h>
#include <stdbool.h>

#include "live/session/session-config.h"

struct kt_run;
struct kt_session;

/*
 * Block the signals that end a recording, take cfg's sinks (they start
 * their early work: the file reads kallsyms) and resolve the events (cfg
 * must outlive the session).  NULL + errno; EDOM when cfg's clock is not
 * the one ktrace.ko's events are stamped with (a usage error).
 */
struct kt_session *kt_session_new(const struct kt_session_config *cfg);
/* Stop, put every source back, remove the instance and the pieces. */
void kt_session_free(struct kt_session *s);

/*
 * Open the outputs, create the instance, start COMMAND held, set up
 * every source, start tracing and let COMMAND go.  0 or -errno; when
 * COMMAND could not exec, it has exited (kt_run_child_status()).  With
 * cfg->take the instance is taken instead (kt_tracing_take()) and the
 * sinks name, switch and start its events (top's counter).
 */
int kt_session_start(struct kt_session *s);
/* Until COMMAND exits, a signal, -s, -m or an error. */
enum kt_session_stop kt_session_run(struct kt_session *s);
/*
 * Instead of kt_session_run(), for a command that runs its own loop
 * (top's screen and keys): one turn of it, a wait of at most timeout_ms
 * (-1 for ever) on the session's files, the signals and the caller's
 * fds (nfds of them, the same at every step; their revents set), then
 * the sinks fed.  KT_STOP_NONE to go on, else why it stopped
 * (kt_session_stopped()); -errno when the wait failed (not said).
 */
int kt_session_step(struct kt_session *s, struct pollfd *fds, int nfds,
		    int timeout_ms);
/*
 * Stop tracing, take what is left, read the statistics and let every
 * sink take the rest (a file is written while the instance is removed).
 * 0; 1 when the output is written but something failed (a full disk, a
 * source that could not be read to the end); -errno when it is not.
 */
int kt_session_finish(struct kt_session *s);
/*
 * The instance's removal, retried once COMMAND is gone when it held a
 * file of the instance open; a warning when it cannot be removed.
 */
void kt_session_retire(struct kt_session *s);

/* COMMAND and the signals: see live/session/run.h. */
struct kt_run *kt_session_runner(const struct kt_session *s);
enum kt_session_stop kt_session_stopped(const struct kt_session *s);
/* What stopped it with KT_STOP_ERROR (-errno), or 0. */
int kt_session_error(const struct kt_session *s);
/* The instance's name. */
const char *kt_session_instance(const struct kt_session *s);

/* One CPU's share of a finished recording. */
struct kt_session_cpu {
	unsigned long long events;	/* in the file */
	unsigned long long bytes;	/* of trace data */
	unsigned long long overrun;	/* overwritten (over the recording) */
	unsigned long long commit_overrun;
	unsigned long long dropped;
	unsigned long long left;	/* still in the buffer at the end */
	unsigned long long unwritten;	/* read, but refused by the output */
	unsigned long long lost;	/* overrun + commit_overrun + dropped */
};

int kt_session_ncpus(const struct kt_session *s);
void kt_session_cpu(const struct kt_session *s, int cpu,
		    struct kt_session_cpu *out);
/* The seconds tracing was on. */
double kt_session_elapsed(const struct kt_session *s);

#endif
