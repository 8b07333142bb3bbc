/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a recording leaves when it is killed outright (SIGKILL, a crash,
 * power loss), and turning it back into a trace.dat file.
 *
 * While `ktrace record -o FILE` (pid P) runs, the file is made of pieces
 * beside FILE, named in file/pieces.h.  A normal end (signals included) assembles FILE and removes the pieces;
 * kt_recover() does the same for pieces whose recorder is gone.
 */
#ifndef KT_RECOVER_H
#define KT_RECOVER_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Write "<prefix>.meta" for a recording on ncpus CPUs whose trace_clock
 * file reads clock_text (its current clock: clock_name).  0 or -errno.
 */
int kt_recover_meta_write(const char *prefix, int ncpus,
			  const char *clock_text, const char *clock_name);
/* Remove it (a recording that ended, well or not, but not killed). */
void kt_recover_meta_remove(const char *prefix);

struct kt_recover_result {
	pid_t pid;			/* the recording that was recovered */
	int ncpus;
	unsigned long long bytes;	/* trace data in the file */
	bool kallsyms_lost;		/* killed before kallsyms was in */
	bool drained;			/* its instance was still there: its
					   unread events are in too */
	int others;			/* more interrupted recordings of FILE */
};

/*
 * Assemble FILE from the newest interrupted recording of FILE whose
 * ktrace no longer runs, then remove its pieces.  When its instance
 * (ktrace-PID) is still there, tracing in it is turned off and the
 * events the recorders had not taken yet are added; the instance itself
 * is left for 'ktrace reset -a'.  The saved cmdlines
 * come from the live tracefs (the recording could not store them).
 * Returns 0; -ENOENT (nothing to recover), -EBUSY (its ktrace still
 * runs; res->pid says which), -EBADMSG (the header piece is damaged
 * before its formats end), -ENOSPC (the disk was full: FILE keeps the
 * oldest data that fit, the pieces are gone) or another -errno.
 */
int kt_recover(const char *output, struct kt_recover_result *res);

/*
 * The same for a series of chunks a killed `record --rotate -o DIR`
 * left (live/session/sink-series.h): every chunk in progress in DIR,
 * oldest first, assembled and given its name (only the newest takes
 * what the instance still held), and a chunk whole but not yet named
 * named.  res sums them (bytes) and names the last; *chunks says how
 * many.  Returns as kt_recover(); -ENOENT: no chunk in progress.
 */
int kt_recover_series(const char *dir, struct kt_recover_result *res,
		      unsigned int *chunks);

#endif
