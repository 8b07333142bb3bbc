/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU recorders: one thread per CPU moves whole ring-buffer pages
 * from per_cpu/cpuN/trace_pipe_raw into a per-CPU piece file with
 * splice(2), so page data never passes through user space.  Each thread
 * sleeps in poll() until the kernel says the buffer is buffer_percent
 * full, or until it is told to stop; then it takes the rest, including
 * the last partly filled page.
 */
#ifndef KT_RECORDER_H
#define KT_RECORDER_H

#include <stdbool.h>
#include <sys/types.h>
#include <tracefs.h>

struct kt_recorder;

/*
 * Open every CPU's trace_pipe_raw of inst and a piece file per CPU named
 * "<prefix>.cpuN" (prefix beside the output, so the final copy stays on
 * one filesystem, and a recording killed with SIGKILL leaves its pages
 * for 'ktrace record --recover').  NULL + errno on failure.
 */
struct kt_recorder *kt_recorder_new(struct tracefs_instance *inst,
				    int ncpus, const char *prefix);
/* Stop (if running), close everything and remove the pieces. */
void kt_recorder_free(struct kt_recorder *rec);

/* Start the threads (not for a flight recording). */
int kt_recorder_start(struct kt_recorder *rec);

/*
 * Before kt_recorder_start(): the pages go to put() instead of the
 * pieces (which stay empty): len bytes of whole pages of cpu, which put()
 * takes out of the pipe pipe_rd, all of them (0), or fails (-errno: the
 * recorder stops with that error; what is left in the pipe is counted
 * as never written).  Each CPU's calls come in its pages' order, from
 * its own thread (or the caller's at the end): put() serializes them.
 * Besides the full pages as the kernel wakes the thread, every 100 ms
 * each thread puts what its CPU has then, the partly filled page too
 * (zero-padded to a whole page), so no CPU's events wait for the stop.
 * It must not call kt_log() while it holds what it serializes with.
 */
typedef int (*kt_recorder_put_fn)(void *arg, int cpu, int pipe_rd, size_t len);
void kt_recorder_set_put(struct kt_recorder *rec, kt_recorder_put_fn put,
			 void *arg);
/*
 * Readable (poll) once a recorder stopped on its own: an error such as
 * a full disk, or the byte limit.  Never read from it.
 */
int kt_recorder_notify_fd(const struct kt_recorder *rec);

/* Stop taking data once this many bytes are recorded (0: no limit). */
void kt_recorder_set_limit(struct kt_recorder *rec, unsigned long long bytes);

/*
 * Take everything left in the buffers, then stop the threads.  Without
 * kt_recorder_start() (flight recorder) this reads the buffers in the
 * calling thread.  Call with tracing off so the buffers stop growing.
 * Returns the first error any recorder met (0 or -errno).
 */
int kt_recorder_stop(struct kt_recorder *rec);
/* The first error (0 or -errno), e.g. -ENOSPC. */
int kt_recorder_error(const struct kt_recorder *rec);

/* Bytes recorded so far, per CPU and in total. */
unsigned long long kt_recorder_bytes(const struct kt_recorder *rec, int cpu);
/*
 * Events of one CPU taken from the kernel but refused by the output (a
 * full disk, a write error): counted from their pages, never silent.
 */
unsigned long long kt_recorder_unwritten(const struct kt_recorder *rec, int cpu);
unsigned long long kt_recorder_total(const struct kt_recorder *rec);
/* The piece holding a CPU's pages since the start or the last rotation
 * (offset 0 on), and its bytes. */
int kt_recorder_fd(const struct kt_recorder *rec, int cpu);
unsigned long long kt_recorder_piece_size(const struct kt_recorder *rec, int cpu);

/*
 * A rotation (a series of chunks): from now on each CPU's pages go to a
 * new piece "<prefix>.cpuN"; every page recorded so far, the partly
 * filled one read too, stays in the old piece, so the pieces meet at a
 * page boundary with nothing lost or in both.  Waits until every
 * recorder switched.  The old pieces are the caller's: fd[cpu] (from
 * offset 0; to close) and size[cpu] of ncpus; their names are the old
 * prefix's (file/pieces.h), to remove.  0 or -errno (nothing switched).
 */
int kt_recorder_rotate(struct kt_recorder *rec, const char *prefix, int *fd,
		       unsigned long long *size);

/*
 * The pieces of prefix (a rotation's old ones, their pages read and
 * written elsewhere) given back: the next rotation's pieces are these
 * files renamed and written over from their start, so that their pages
 * are neither freed nor taken again (a ring).  Past a piece's size its
 * bytes are an older chunk's until a rotation cuts them off: readers
 * take the size from kt_recorder_piece_size().  A recording killed
 * meanwhile leaves such bytes in its pieces, so only a ring that is
 * never recovered gives its pieces back.  One spare a CPU: an older
 * one is removed.  0 or -errno (those not kept are removed).
 */
int kt_recorder_recycle(struct kt_recorder *rec, const char *prefix);

/*
 * A snapshot: every page the kernel has now, the partly filled one too,
 * taken into the pieces (in each CPU's thread, waited for; a flight
 * recording's read here), and the pieces handed out read only: fd[cpu]
 * (a new descriptor, to close) and size[cpu] of ncpus.  The pieces go
 * on growing after size; nothing is switched, lost or doubled.  0 or
 * -errno (the first error a recorder met).
 */
int kt_recorder_flush(struct kt_recorder *rec, int *fd,
		      unsigned long long *size);

#endif
