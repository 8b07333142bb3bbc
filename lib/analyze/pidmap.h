/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task records of an analysis, found by pid: each record's first
 * member is its int pid, the rest is the caller's, zeroed when new.
 */
#ifndef KT_PIDMAP_H
#define KT_PIDMAP_H

#include <stddef.h>

struct kt_pidmap {
	void *tree;			/* tsearch, by pid */
	size_t n;			/* records made */
	size_t size;			/* of a record */
};

/* The record of pid, made the first time; NULL: ENOMEM. */
void *kt_pidmap_get(struct kt_pidmap *m, int pid);
/* The record of pid, or NULL when there is none. */
void *kt_pidmap_find(struct kt_pidmap *m, int pid);
/* Free every record with fn (free when NULL). */
void kt_pidmap_free(struct kt_pidmap *m, void (*fn)(void *));

#endif
