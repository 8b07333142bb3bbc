/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spans of the CPU data of finished files, remembered by the file's
 * identity (spanmemo.c): a trigger's ring opens the same chunks at each
 * of its snapshots.
 */
#ifndef KT_FILE_SPANMEMO_H
#define KT_FILE_SPANMEMO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Whether the span of the data at off (size bytes) of the file st is known: *first, *last. */
bool kt_spanmemo_get(const struct stat *st, uint64_t off, uint64_t size,
		     uint64_t *first, uint64_t *last);
/* Remember it (the oldest memo goes when the table is full). */
void kt_spanmemo_put(const struct stat *st, uint64_t off, uint64_t size,
		     uint64_t first, uint64_t last);

#endif
