/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording source: what the session (session.h) calls to set up,
 * start, stop, count and put back one kind of tracing (the ftrace
 * instance's buffers, ktrace.ko, ...).  Every hook is optional.  Hooks
 * return 0 or -errno and say what went wrong through kt_log() themselves.
 * Internal to lib/live's session and its sources.
 */
#ifndef KT_SOURCE_H
#define KT_SOURCE_H

#include <stdbool.h>
#include <sys/types.h>

#include "live/buffers/recorder.h"
#include "live/session/session-config.h"
#include "live/tracefs/tracefs.h"

struct kt_page_file;
struct kt_writer;
struct kt_writer_cpu;
struct tep_handle;

/* What a source may use of the session it is part of. */
struct kt_source_env {
	const struct kt_session_config *cfg;
	struct kt_tracing *t;		/* the instance and its events */
	int ncpus;
	pid_t child;			/* COMMAND's pid, or 0 */
	const char *prefix;		/* of the pieces (file/pieces.h) */
	const char *tmpdir;		/* the output's directory */
	unsigned long long limit;	/* -m: bytes of trace data, or 0 */
	bool mod_process;		/* --process on ktrace.ko */
	/* A live sink reads the buffers (sink.h): open no readers. */
	bool live;
	/*
	 * A session that takes its instance (cfg->take) for ktrace top's
	 * counter (sink-counter.c): the instance is not the source's (no clock
	 * set on it), the events' switches are the counter's (it turns them
	 * on and off live, and puts back only those it changed), and a
	 * failure to set ktrace.ko going is said as top says it.  With
	 * live: the counter reads traceN (page_file).
	 */
	bool counter;
	unsigned int read_flags;	/* KT_LIVEBUF_* (livebuf.h) */
	/* Every source's counters once stopped: what the file stores. */
	const struct kt_cpu_stats *st_end;
};

enum kt_source_phase {
	KT_SOURCE_BEGIN,		/* before tracing starts */
	KT_SOURCE_END,			/* after it stopped */
	KT_SOURCE_END_ERROR,		/* ... stopped by an error */
	/*
	 * A rotation cut a chunk (tracing on): add the counters now; the
	 * instance's own the series reads itself.
	 */
	KT_SOURCE_CUT,
};

struct kt_source_ops {
	const char *name;
	/*
	 * After the instance is armed, tracing still off: take part (set
	 * *state) or not (leave it NULL).  *state is restore()d on every
	 * path, also when prepare fails.
	 */
	int (*prepare)(const struct kt_source_env *env, void **state);
	/* Start recording (tracing goes on after every source started). */
	int (*start)(void *state);
	/* Tracing is off: take what is left and stop. */
	int (*stop)(void *state);
	/*
	 * The per-CPU counters (ncpus of them) at the start, or added to at
	 * the end.
	 */
	int (*collect)(void *state, struct kt_cpu_stats *st,
		       enum kt_source_phase phase);
	/* While recording: add to the status line. */
	void (*progress)(void *state, const struct kt_cpu_stats *st0,
			 struct kt_session_progress *p);
	/* A descriptor that turns readable when the source stops by itself. */
	int (*wake_fd)(void *state);
	/* ... and then why: KT_STOP_SIZE or KT_STOP_ERROR. */
	enum kt_session_stop (*woke)(void *state);
	/*
	 * One CPU's pages for the file: set *fd and *size, or merge this
	 * source's into them (sources run in order).
	 */
	int (*data)(void *state, int cpu, int *fd, unsigned long long *size);
	/*
	 * A rotation (a series of chunks): from now on the pages go to the
	 * pieces of prefix; those so far are handed out in cpus[ncpus] (fd,
	 * size: the caller closes the fds and removes the old pieces), or
	 * merged into what an earlier source handed out there (sources
	 * rotate in order).  prefix NULL, before tracing starts: only
	 * whether it can (0, or -errno said).  NULL: this source cannot be
	 * rotated.
	 */
	int (*rotate)(void *state, const char *prefix, struct kt_writer_cpu *cpus);
	/*
	 * A rotation's old pieces of prefix, read and written into their
	 * chunk, given back to be written over by a later rotation's
	 * (kt_recorder_recycle) instead of removed.  NULL: this source
	 * cannot, and the caller removes them.
	 */
	int (*recycle)(void *state, const char *prefix);
	/*
	 * Before start(): from then on the pages go to put() (recorder.h)
	 * instead of the pieces, which stay empty (the agent's network
	 * sink).  NULL: this source cannot.
	 */
	int (*stream)(void *state, kt_recorder_put_fn put, void *arg);
	/*
	 * A snapshot while recording: every page so far, the partly filled
	 * ones too, into the pieces, which go on; they are handed out read
	 * only in cpus[ncpus] (fd: a new descriptor the caller closes, from
	 * offset 0; size).  NULL: this source cannot be snapshotted.
	 */
	int (*flush)(void *state, struct kt_writer_cpu *cpus);
	/*
	 * A rotation begins, before any source's rotate(): the moment its
	 * chunk ends (ktrace.ko's records after it go to the next chunk).
	 */
	int (*rotating)(void *state);
	/* Bytes of trace data, and events read but not written, of a CPU. */
	unsigned long long (*bytes)(void *state, int cpu);
	unsigned long long (*unwritten)(void *state, int cpu);
	/* Its options of the file (after the session's own). */
	int (*options)(void *state, struct kt_writer *w);
	/*
	 * The cmdlines of the file: takes saved (saved_cmdlines, or NULL)
	 * and returns it or a new string that replaces it.
	 */
	char *(*cmdlines)(void *state, char *saved);
	/*
	 * For a live sink: the i-th file of pages it fills (0), or -ENOENT
	 * with pf->count set past the last; and the formats of its events
	 * that tracefs does not hold.
	 */
	int (*page_file)(void *state, int i, struct kt_page_file *pf);
	int (*formats)(void *state, struct tep_handle *tep);
	/* Put back everything it changed and free state (NULL: nothing). */
	void (*restore)(void *state);
};

extern const struct kt_source_ops kt_source_ftrace;
extern const struct kt_source_ops kt_source_module;

#endif
