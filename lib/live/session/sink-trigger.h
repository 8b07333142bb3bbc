/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trigger (`ktrace record --trigger COND -o DIR`), a sink (sink.h):
 * the recording kept in a bounded ring of recent history (a series of
 * chunks, sink-series.h, in a hidden directory in DIR, the oldest
 * removed), the pages read again as they come into the pieces and their
 * records fed to the conditions (live/trigger/watch.h), and when one
 * holds at time t, once --after has passed, [t - before, t + after]
 * written as its own trace.dat into DIR while the recording goes on.
 * A firing inside a window still to be written is merged into it; one
 * within the cooldown of the last snapshot's, or past max_snapshots, is
 * suppressed and counted (in the next snapshot, and in the summary).  A
 * window that reaches back into the last snapshot's begins where that
 * one ended (chained), and its file says so.
 */
#ifndef KT_SINK_TRIGGER_H
#define KT_SINK_TRIGGER_H

#include <stdint.h>

#include "live/session/sink.h"
#include "live/trigger/cond.h"

struct kt_trigger_sink;

extern const struct kt_sink_ops kt_trigger_sink_ops;

enum kt_ring_packing { KT_RING_AUTO, KT_RING_PACKED, KT_RING_UNPACKED };
/*
 * What a snapshot packs after its window, about a second's work on a
 * busy two-CPU machine (zstd at about 150 MB/s of pages beside the
 * workload): a ring whose window holds more is packed as it comes.
 */
#define KT_RING_AUTO_BYTES	(128ULL << 20)

struct kt_trigger_opts {
	const char *dir;		/* the snapshots' (created if missing) */
	const struct kt_cond *conds;	/* kept, not copied */
	int nconds;
	uint64_t before, after;		/* ns */
	/* Storms: snapshots at most (0: no limit), and the least time between two firings that each take one. */
	unsigned int max_snapshots;
	uint64_t cooldown;		/* ns */
	/*
	 * How the ring of recent history is kept: packed as the snapshots
	 * are (pieces packed as they come, blocks copied into each
	 * snapshot), or unpacked (nothing packed until a snapshot, which
	 * packs its window), or by default (KT_RING_AUTO) unpacked while a
	 * window's pages come to less than ring_auto_bytes (0: the
	 * default, KT_RING_AUTO_BYTES) and packed above that, so that a
	 * busy ring's snapshot is not late.
	 */
	enum kt_ring_packing ring;
	unsigned long long ring_auto_bytes;
};

/* The trigger into o->dir (o is copied).  NULL + errno. */
struct kt_trigger_sink *kt_trigger_sink_new(const struct kt_trigger_opts *o);

/* What it did, for the summary. */
struct kt_trigger_done {
	unsigned int snapshots;		/* files written */
	unsigned long long fired;	/* conditions that held */
	unsigned long long merged;	/* ... inside a window being written */
	unsigned long long suppressed;	/* ... held back by --cooldown, --max-snapshots */
	unsigned long long failed;	/* snapshots that could not be written */
};
void kt_trigger_sink_done(const struct kt_trigger_sink *t,
			  struct kt_trigger_done *d);

#endif
