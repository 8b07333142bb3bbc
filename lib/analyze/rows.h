/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the per-task analyses share about their rows: the sort (by a
 * key's value, the largest first, or by comm; ties by comm, then pid),
 * and the per-CPU state they keep in a table that grows to the CPUs seen.
 */
#ifndef KT_ANALYZE_ROWS_H
#define KT_ANALYZE_ROWS_H

#include <stdbool.h>
#include <stddef.h>

struct kt_rowsort {
	const char *key;		/* "comm": A to Z */
	unsigned long long (*value)(const void *row, const char *key);
	const char *(*comm)(const void *row);
	int (*pid)(const void *row);
};

void kt_rows_sort(void **rows, size_t n, const struct kt_rowsort *how);

/* Whether key is one of the n keys an analysis sorts by. */
bool kt_rows_key_known(const char *const *keys, size_t n, const char *key);

struct kt_percpu {
	void *v;
	int n;
	size_t size;			/* of one CPU's state */
};

/* CPU cpu's state, zeroed when new; NULL: a bad cpu, or ENOMEM. */
void *kt_percpu_at(struct kt_percpu *p, int cpu);

#endif
