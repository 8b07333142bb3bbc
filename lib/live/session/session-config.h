/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What describes a recording: its configuration from the command line,
 * the progress it reports and why it stopped.  Apart from session.h so
 * that the session's sources (source.h) and helpers (process.h) can
 * name these without including the session that includes them.
 */
#ifndef KT_SESSION_CONFIG_H
#define KT_SESSION_CONFIG_H

#include <stdbool.h>

#include "base/shot.h"
#include "live/session/tracing.h"

struct kt_sink;

/* About once a second while recording, for a status line. */
struct kt_session_progress {
	double seconds;
	unsigned long long events;	/* in the buffers or read */
	unsigned long long lost;
	unsigned long long bytes;	/* written */
};

struct kt_session_config {
	const struct kt_trace_opts *t;	/* -e/-f/-b/-p/-F/-c, COMMAND */
	const char *output;
	bool flight;			/* keep only the newest -b KB per CPU */
	double seconds;			/* stop after this, or 0 */
	unsigned long long max_mb;	/* stop at this file size, or 0 */
	int file_version;		/* trace.dat 6 or 7; 0: 7 */
	const char *compression;	/* v7's: zstd, zlib, none; NULL: zstd */
	bool quiet;
	const char *clock;		/* the instance's trace clock, or NULL */
	const char *version;		/* the file's version option */
	const char *cmdline;		/* `ktrace record ...`, stored; NULL: none */
	/* --process and its options */
	bool process;
	bool no_syscalls, no_signals, no_lifecycle;
	const char *comm;		/* "" for none */
	const char *uid;		/* NULL for none */
	/*
	 * ktrace top: the instance is taken (kt_tracing_take(): borrow's,
	 * left as found, or ktrace-PID as the kernel made it) and is the
	 * sinks': they name its events (kt_session_add_event() at
	 * KT_SINK_INSTANCE), switch them, size it and turn it on; the
	 * session neither arms it nor writes its tracing_on, and t names
	 * no events.
	 */
	bool take;
	const char *borrow;		/* with take: -B's instance, or NULL */
	/* The outputs (sink.h), owned by the session from kt_session_new(). */
	const struct kt_sink *sinks;
	size_t nsinks;
	/* The status line: called while recording when not NULL. */
	void (*progress)(void *arg, const struct kt_session_progress *p);
	/* Tracing is on, COMMAND about to be let go: when not NULL. */
	void (*started)(void *arg);
	void *arg;
	/*
	 * A trigger's or a `ktrace snapshot`'s file is complete under its
	 * final name (base/shot.h): when not NULL, called from the
	 * session's thread, and must not block.
	 */
	kt_shot_fn on_shot;
	void *on_shot_ctx;
};

/* Why the recording ended. */
enum kt_session_stop {
	KT_STOP_NONE,
	KT_STOP_CHILD,			/* COMMAND exited */
	KT_STOP_SIGNAL,
	KT_STOP_TIME,			/* -s */
	KT_STOP_SIZE,			/* -m */
	KT_STOP_ERROR,			/* a full disk, a failed read */
	KT_STOP_OUTPUT,			/* the reader of a sink's output left */
};

#endif
