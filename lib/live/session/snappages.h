/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pages of a snapshot of a --rotate recording (sink-file.h's
 * kt_file_sink_snapshot): each CPU's pages of the recording's finished
 * chunks (read as one series, file/reader.h) and then of the chunk being
 * written (its pieces), the pages before the window left out, copied
 * into a scratch file with no name beside the snapshot.
 */
#ifndef KT_SNAPPAGES_H
#define KT_SNAPPAGES_H

#include <stdbool.h>

struct kt_cpu_stats;
struct kt_piecepack;
struct kt_snapshot_res;
struct kt_writer_cpu;

/*
 * chunks[n]: the finished chunks, oldest first (n 0: none yet, with
 * pieces only: their blocks copied); cutoff: the window's
 * start (trace clock; 0: everything), a page kept when the next one
 * starts at or after it, and the last always; codec: the snapshot's
 * compression; count: the events of the chunks' blocks copied whole
 * counted too (they are unpacked for it, never packed again); pieces:
 * the pieces packed so far (piecepack.h, with codec), extended here to
 * all their pages and copied as they are where a CPU's window began
 * before them, or NULL.
 */
struct kt_snappages {
	const char *const *chunks;
	int n;
	unsigned long long cutoff;
	const char *beside;
	const char *codec;
	bool count;
	int ncpus;
	struct kt_piecepack *pieces;
};

/*
 * cpus[ncpus]: in, the pieces (fd, off, size: closed here); out, the
 * scratch files: the chunks' pages kept as packed blocks (packed_fd,
 * packed_blocks, packed_len; where the chunks are packed with codec: the
 * blocks lying wholly in the window are theirs, copied as they are, only
 * the window's edge packed again; packed otherwise or not at all, their
 * pages are packed here; with codec "none" they go loose into fd), then
 * the pieces' pages (fd, off 0, size).  res: the events of the chunks' pages kept (count) and their
 * oldest page's time.  0 or -errno (said); on failure cpus is as it
 * came.  prior[ncpus], prior_unw[ncpus]: what the chunks stored they lost
 * (their CPUSTATs summed: overrun, commit overrun, dropped, unwritten
 * events), for the snapshot to say with its own.
 */
int kt_snappages_gather(const struct kt_snappages *in,
			struct kt_writer_cpu *cpus, struct kt_cpu_stats *prior,
			unsigned long long *prior_unw, struct kt_snapshot_res *res);

#endif
