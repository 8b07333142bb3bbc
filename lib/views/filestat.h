/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Did anything overflow?" for a trace.dat file: per CPU the record-time
 * stats and the lost-event marks in the data, event counts, and a
 * one-line verdict on loss (the numbers come from views/summary.h).
 * What `ktrace report --stat` and `ktrace stat -i FILE` print; for a
 * series of chunks (-i DIR), first its chunks: each one's span, events
 * and losses.
 */
#ifndef KT_FILESTAT_H
#define KT_FILESTAT_H

#include <stdbool.h>
#include <stdio.h>

struct kt_select;

/*
 * Write the statistics of the recording at paths (a file, a directory of
 * chunks, or chunks: kt_reader_open_list(); name is what messages call
 * it) to out, as text or JSON; of
 * the selection sel (decode/select.h; NULL or empty: the whole file),
 * with a line saying what it was and which losses count.  Returns 0,
 * -EBADMSG for a damaged file (what could be read is written) or one
 * that is no trace.dat, -EDOM for a bad --cpu/--from/--to (reported; a
 * usage error), or -errno.
 */
int kt_filestat_write(const char *const *paths, int n, const char *name,
		      struct kt_select *sel, FILE *out, bool json);

#endif
