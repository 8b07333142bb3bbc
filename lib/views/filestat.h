/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Did anything overflow?" for a trace.dat file: per CPU the record-time
 * stats and the lost-event marks in the data, event counts, and a
 * one-line verdict on loss (the numbers come from views/summary.h).
 * What `ktrace report --stat` and `ktrace stat -i FILE` print.
 */
#ifndef KT_FILESTAT_H
#define KT_FILESTAT_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Write the statistics of the file at path to out, as text or JSON.
 * Returns 0, -EBADMSG for a damaged file (what could be read is
 * written) or one that is no trace.dat, or -errno.
 */
int kt_filestat_write(const char *path, FILE *out, bool json);

#endif
