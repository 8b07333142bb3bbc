/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat file of a session (`ktrace record`), a sink (sink.h):
 * the sources' recorders move the pages into the pieces beside the
 * output while tracing runs; at the end the pieces, kallsyms, the
 * formats, the statistics and the options are assembled into the file
 * (file/writer.h), the instance removed meanwhile.
 */
#ifndef KT_SINK_FILE_H
#define KT_SINK_FILE_H

#include <stddef.h>

#include "live/session/sink.h"

struct kt_cpu_stats;
struct kt_piecepack;
struct kt_writer;
struct kt_writer_cpu;

struct kt_file_sink;

extern const struct kt_sink_ops kt_file_sink_ops;

/* The file of the session's cfg->output.  NULL + errno. */
struct kt_file_sink *kt_file_sink_new(void);
/*
 * Before it begins: the file's compression ("none", "zstd", "zlib",
 * kept, not copied) in place of the recording's; the chunks after it
 * take it too, a snapshot the recording's.
 */
void kt_file_sink_set_compression(struct kt_file_sink *f, const char *codec);
/*
 * Before it begins: no thread-to-process map in the file nor the chunks
 * after it (a trigger's ring, read only by its snapshots, which read
 * the threads themselves).
 */
void kt_file_sink_no_tgids(struct kt_file_sink *f);
/* The file's size, as written so far. */
unsigned long long kt_file_sink_size(const struct kt_file_sink *f);
/*
 * A full disk cut the file (its newest pages, or kallsyms, left out):
 * the caller says so once, with the recording's unwritten events.
 */
bool kt_file_sink_disk_full(const struct kt_file_sink *f);

/*
 * For a sink that sends the file elsewhere (sink-net.c), after the
 * sources stopped: the options the file would hold queued in its writer
 * (kt_writer_option_at()), and the cmdlines' text (malloc'ed, NULL when
 * none).  0 or -errno.
 */
int kt_file_sink_tail(struct kt_file_sink *f, struct kt_writer **w,
		      char **cmdlines);

/*
 * A chunk of a series (sink-series.c), one file sink per chunk.  The
 * first is this sink begun as any (set its path before KT_SINK_OPEN);
 * the next ones start from its head and are written while the
 * recording goes on.
 */
int kt_file_sink_set_path(struct kt_file_sink *f, const char *path);
/*
 * The file's start once kallsyms is in (header, formats, kallsyms,
 * printk formats), malloc'ed, for the next chunks.  0 or -errno.
 */
int kt_file_sink_head(struct kt_file_sink *f, void **buf, size_t *len);
/*
 * The next chunk, at path, begun with head: its pieces named, its
 * clock against realtime and its threads read now.  NULL + errno (said).
 */
struct kt_file_sink *kt_file_sink_next(const struct kt_file_sink *prev,
				       const char *path, const void *head,
				       size_t len);
/*
 * Write the chunk from cpus (its pages: NULL, the sources' pieces now)
 * with stat_text (its own CPUSTAT, one per CPU), and give it its name
 * (path).  Its threads at its end are next's, read as next began (a
 * rotation: the same moment, not read twice), or read now (next NULL).
 * 0; 1 when a full disk cut it (valid, the cut said); -errno (said): no
 * file.
 */
int kt_file_sink_write_chunk(struct kt_file_sink *f, struct kt_writer_cpu *cpus,
			     char *const *stat_text,
			     const struct kt_file_sink *next);

/*
 * A CPU's CPUSTAT option text over [base, now] (a chunk's, a
 * snapshot's), with unw events unwritten.  NULL: ENOMEM.
 */
char *kt_file_sink_cpustat(int cpu, const struct kt_cpu_stats *now,
			   const struct kt_cpu_stats *base,
			   unsigned long long unw);

/*
 * A snapshot (sink.h's snapshot op) of the recording f writes, or of
 * the chunk f is: the sources' pieces up to now, the partly filled
 * pages taken, in a file of their own (req->path, or by default beside
 * the output, a series' DIR too), written read only from the pieces;
 * a series' finished chunks (chunks[nchunks], oldest first) before
 * them (snappages.h), pieces the series' pieces packed so far (or
 * NULL); losses counted from base (per CPU) and unw_base (NULL: 0).
 * 0 or -errno (said).
 */
int kt_file_sink_snapshot(struct kt_file_sink *f, const struct kt_cpu_stats *base,
			  const unsigned long long *unw_base,
			  const char *const *chunks, int nchunks,
			  struct kt_piecepack *pieces,
			  const struct kt_snapshot_req *req,
			  struct kt_snapshot_res *res);
/* The compression the file is written with ("none", "zstd", "zlib"). */
const char *kt_file_sink_compression(const struct kt_file_sink *f);

#endif
