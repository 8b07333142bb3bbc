/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output of the session (session.h): what the session calls to hand
 * a sink what the sources recorded.  A sink is a struct kt_sink_ops and
 * its state, named in the session's configuration (sinks[]); from
 * kt_session_new() on, the session owns the state, even when it fails,
 * and frees it (free()).  Every hook is optional; hooks return 0 or
 * -errno and say what went wrong through kt_log() themselves.
 *
 * Two ways to take the data, as LTTng's consumers and Perfetto's traced
 * take theirs:
 *   - pieces (the default): the sources' own readers move the kernel's
 *     pages into the pieces while tracing runs, zero-copy (splice, the
 *     mapped ring), and the sink takes them at end() (the trace.dat
 *     file, sink-file.c);
 *   - live (KT_SINK_LIVE): the sink reads the kernel's buffers itself
 *     while tracing runs (the instance's per-CPU buffers, and the files
 *     of pages the sources name: kt_session_page_file()), and the
 *     sources open no readers of their own (stream's decoder,
 *     sink-print.c).
 * Reading a kernel buffer consumes it: one live sink per session.
 * Several sinks at once take the same recording, in the order the
 * configuration names them (begin() and end() in that order, free()
 * after every end()):
 *   - pieces sinks side by side: the first to open an output says where
 *     the pieces go (its KT_SINK_OPEN sets the sources' env prefix and
 *     tmpdir, as the file does); every end() reads them through the
 *     sources' data hooks, and they are removed only by free(), once
 *     every sink is done (a file and a chunk series, a snapshot ring);
 *   - one live sink and others fed from it (a trigger, a network peer):
 *     the live sink hands them each page or record it reads, through
 *     its own interface, while the session runs.
 */
#ifndef KT_SINK_H
#define KT_SINK_H

#include <poll.h>
#include <stdbool.h>

struct kt_session;

/* Where the session is when it calls begin(). */
enum kt_sink_step {
	KT_SINK_NEW,		/* kt_session_new(): early work in the background */
	KT_SINK_OPEN,		/* before the instance: open the output */
	KT_SINK_INSTANCE,	/* the instance is there, no event enabled */
	KT_SINK_CHILD,		/* COMMAND forked and held */
	KT_SINK_ARMED,		/* events enabled, sources prepared, tracing off */
	KT_SINK_STARTED,	/* tracing just went on, COMMAND still held */
	KT_SINK_RELEASED,	/* COMMAND let go */
	KT_SINK_STOPPING,	/* about to stop tracing */
};

enum {
	KT_SINK_LIVE = 1 << 0,	/* reads the kernel's buffers itself */
};

/* A snapshot asked of a running recording (ktrace snapshot, SIGUSR2). */
struct kt_snapshot_req {
	const char *path;		/* the file; NULL: the sink's default */
	unsigned long long last_ns;	/* the newest ns only; 0: all it holds */
	/* Or from this trace-clock time on (a trigger's window; 0: none). */
	unsigned long long from_ts;
	/* A trigger's: KT_OPT_KTRACE_TRIGGER's text for the file, or NULL. */
	const char *trigger;
	/* res->events not wanted (a trigger's): whole packed blocks go uncounted. */
	bool uncounted;
};

/* What a snapshot wrote. */
struct kt_snapshot_res {
	char path[4096];
	unsigned long long first_ts;	/* its oldest page, trace clock */
	unsigned long long last_ts;	/* the moment it was taken */
	unsigned long long events;
	unsigned long long lost;	/* overwritten, dropped, unwritten */
};

struct kt_sink_ops {
	const char *name;
	unsigned int flags;	/* KT_SINK_* */
	/* The instance's buffer_percent: when a reader wakes up. */
	const char *wake_percent;
	/* Each step of the set-up, in the order of enum kt_sink_step. */
	int (*begin)(void *state, struct kt_session *s, enum kt_sink_step step);
	/*
	 * While tracing runs: what to poll, fds[0, n) of at most max; the
	 * number it wants when fds is NULL.
	 */
	int (*poll_fds)(void *state, struct pollfd *fds, int max);
	/*
	 * Before each wait (fds NULL; live sinks only), and after one woke
	 * its fds: take what the buffers hold now (live), in a bounded
	 * round, or act on its own files (a pieces sink: a series' timer).  0 to go on, a
	 * KT_STOP_* to stop, or -errno (stops with KT_STOP_ERROR).
	 */
	int (*pages)(void *state, const struct pollfd *fds);
	/*
	 * Tracing stopped, the sources stopped and counted: take what is
	 * left and write the output.  0; 1 when it is written but something
	 * failed; KT_STOP_OUTPUT when the reader of the output left; -errno
	 * when nothing could be written.
	 */
	int (*end)(void *state, struct kt_session *s);
	/*
	 * While tracing runs: write a whole file of what the recording
	 * holds (its last req->last_ns), under a temporary name until it
	 * is complete, and go on recording with nothing lost or doubled; a
	 * failure (a full disk) fails the snapshot, not the recording.  0
	 * with res filled, or -errno (said).  NULL: cannot be snapshotted.
	 */
	int (*snapshot)(void *state, struct kt_session *s,
			const struct kt_snapshot_req *req,
			struct kt_snapshot_res *res);
	/* Live sinks before the sources are put back, the others after. */
	void (*free)(void *state);
};

struct kt_sink {
	const struct kt_sink_ops *ops;
	void *state;			/* NULL: ENOMEM */
};

/* ---- what a sink may ask of its session ---- */

struct tep_handle;
struct tracefs_instance;
struct kt_event_list;

const struct kt_session_config *kt_session_cfg(const struct kt_session *s);
const struct kt_event_list *kt_session_events(const struct kt_session *s);
struct tracefs_instance *kt_session_inst(const struct kt_session *s);
/*
 * A sink of a taken instance (cfg->take) names its events, at
 * KT_SINK_INSTANCE: what the sources see in kt_session_events() (the
 * module source runs ktrace.ko for its ktrace: events).  0 or -ENOMEM.
 */
int kt_session_add_event(struct kt_session *s, const char *system,
			 const char *name);
/* KT_LIVEBUF_* flags the environment asks for (KTRACE_NO_MMAP). */
unsigned int kt_session_read_flags(const struct kt_session *s);

/* A file of whole pages a source fills (ktrace.ko's traceN). */
struct kt_page_file {
	char path[4096];
	char name[64];			/* for messages: "ktrace.ko's trace0" */
	int cpu;
	int count;			/* -ENOENT: how many the source has */
};

/*
 * From KT_SINK_ARMED on, for a live sink: the i-th file of pages the
 * sources fill beside the instance's buffers.  0, -ENOENT past the
 * last, or -errno (said).
 */
int kt_session_page_file(const struct kt_session *s, int i,
			 struct kt_page_file *pf);
/* ... and the formats of their events that tracefs does not hold. */
int kt_session_formats(const struct kt_session *s, struct tep_handle *tep);

#endif
