/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A series of trace.dat chunks (`ktrace record --rotate`), a sink
 * (sink.h): DIR/ktrace-NNNNNN.dat, each a complete file trace-cmd reads
 * on its own, with its own statistics, clock and command line.  A chunk
 * ends when its file would reach a size or after a duration; its pieces
 * then go on at a page boundary of each CPU, so chunk k+1 begins
 * exactly where chunk k ended.  A chunk is assembled under hidden
 * names (.ktrace-NNNNNN.dat.part and its pieces, named in file/pieces.h) and
 * takes its name only when whole; numbers go on after the highest in
 * DIR, so name order is time order across restarts.
 */
#ifndef KT_SINK_SERIES_H
#define KT_SINK_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "live/session/sink.h"

struct kt_series_sink;

extern const struct kt_sink_ops kt_series_sink_ops;

struct kt_series_opts {
	const char *dir;		/* created (one level, 0755) if missing */
	unsigned long long size;	/* a chunk's file size, or 0 */
	unsigned long long ns;		/* a chunk's duration, or 0 */
	unsigned int keep;		/* chunks kept in dir, or 0: all */
	/*
	 * Pack each CPU's pages as they come (piecepack.h), for a ring
	 * that snapshots often (a trigger's): a snapshot and the chunk's
	 * end copy the blocks, a page is packed once.
	 */
	bool prepack;
	/*
	 * With prepack and compression: pack as they come only the chunks
	 * of a busy ring, whose window (prepack_window_ns of pages at the
	 * last chunk's rate) would hold more than prepack_over bytes: a
	 * snapshot then copies their blocks and is on disk soon after its
	 * window, however busy.  Below half that the chunks are kept with
	 * compression, costing no packing while nothing fires.  0: every
	 * chunk packed as it comes.
	 */
	unsigned long long prepack_over, prepack_window_ns;
	/*
	 * The chunks' compression (kept, not copied), or NULL: the
	 * recording's.  Snapshots are packed as the recording asked.
	 */
	const char *compression;
	/* The chunks hold no thread-to-process map (a trigger's ring). */
	bool no_tgids;
	/*
	 * A chunk's pieces, once written into it, are written over by the
	 * chunk after next instead of removed (kt_session_recycle): a ring
	 * never recovered (a trigger's) takes and frees no page a chunk,
	 * for one chunk's pages more on disk.
	 */
	bool recycle;
};

/* The series into o->dir (o is copied).  NULL + errno. */
struct kt_series_sink *kt_series_sink_new(const struct kt_series_opts *o);

/*
 * Pages of cpu's current piece read by the ring's owner (a trigger's
 * conditions), len bytes from offset at: packed from there when the
 * ring packs as it comes, not read again.  0 or -errno (the pages are
 * then packed at the chunk's end).
 */
int kt_series_sink_feed(struct kt_series_sink *r, int cpu,
			unsigned long long at, const void *pages, size_t len);

/* What was written: chunks, their first and last numbers, their bytes. */
struct kt_series_done {
	unsigned int chunks;
	unsigned int first, last;
	unsigned long long bytes;
	unsigned int removed;		/* by --keep or a full disk */
	/*
	 * A full disk stopped the recording (no --keep): the files named
	 * are complete; the caller says so, with the events (one account).
	 */
	bool disk_full;
};
void kt_series_sink_done(const struct kt_series_sink *r,
			 struct kt_series_done *d);

#endif
