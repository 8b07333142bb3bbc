/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's body, shared by session.c and its sinks (sink.h) that
 * need more of it than the public accessors give (the trace.dat file
 * stores the sources' options, pages and statistics).  Internal to
 * lib/live's session, its sources and its sinks.
 */
#ifndef KT_SESSION_PRIV_H
#define KT_SESSION_PRIV_H

#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "live/session/session-config.h"
#include "live/session/sink.h"
#include "live/session/source.h"

/* The sources, in the order they are set up. */
#define KT_SESSION_SOURCES	2
/* Sinks one session feeds at most. */
#define KT_SESSION_SINKS	4

struct kt_session_source {
	const struct kt_source_ops *ops;
	void *state;			/* NULL: not in this recording */
};

struct kt_session {
	const struct kt_session_config *cfg;
	const char *tracing_dir;
	struct kt_tracing *t;		/* instance, events, filters */
	struct kt_evspec *specs;	/* --process: what kt_tracing_new used */
	struct kt_run *run;		/* COMMAND and the signals that end it */
	struct kt_source_env env;
	struct kt_session_source src[KT_SESSION_SOURCES];
	struct kt_sink sink[KT_SESSION_SINKS];
	size_t nsinks;
	bool live;			/* a sink reads the buffers itself */
	int ncpus;
	struct kt_cpu_stats *st0, *st1;
	unsigned long long *cut;	/* per CPU, events an output refused */
	char *clock;			/* trace_clock file text */
	struct timespec t0;
	double elapsed;
	/* The instance removed by a helper thread while the file is written. */
	pthread_t remover;
	bool remover_running;
	int remove_err;
	int exclude_err;		/* -F: the first fork left in */
	enum kt_session_stop why;
	int err;			/* what stopped it with KT_STOP_ERROR */
	struct pollfd *step_fds;	/* kt_session_step()'s: ours, then the caller's */
	int nstep_fds;			/* ours */
	bool registered;		/* in the registry for snapshots */
};

/* The trace clock's name, from "[local] global counter ..."; NULL + errno. */
char *kt_session_clock_name(const char *text);
/* The instance's clock now, as a record's timestamp (0: unknown). */
unsigned long long kt_session_trace_now(struct kt_session *s);

/*
 * The first source of the recording whose ops lack the hook at offset
 * hook (offsetof(struct kt_source_ops, rotate)), named as messages name
 * it ("ktrace.ko"); NULL when every one has it.
 */
const char *kt_session_lacking(const struct kt_session *s, size_t hook);

/* Events of a CPU read but not written: every source's. */
unsigned long long kt_session_unwritten(struct kt_session *s, int cpu);
/* A CPU's pages in the pieces (*fd, -1: none, and *size): every source's, in order. */
int kt_session_cpu_data(struct kt_session *s, int cpu, int *fd,
			unsigned long long *size);

/*
 * A rotation's old pieces of prefix given back to every source to be
 * written over (source.h's recycle); -EOPNOTSUPP when a source that
 * rotates cannot (the caller removes them).
 */
int kt_session_recycle(struct kt_session *s, const char *prefix);
/*
 * A CPU's current piece's bytes, where pieces may be written over (a
 * file's size may then be an older chunk's); -EOPNOTSUPP where they
 * cannot be (the file's size is the piece's).
 */
int kt_session_piece_size(struct kt_session *s, int cpu,
			  unsigned long long *size);

/*
 * While tracing runs (a chunk's cut, a snapshot): each CPU's counters
 * now, the instance's (fallback[cpu] where they cannot be read) and the
 * other sources' (ktrace.ko's) added, now[ncpus].
 */
void kt_session_counts_now(struct kt_session *s,
			   const struct kt_cpu_stats *fallback,
			   struct kt_cpu_stats *now);

#endif
