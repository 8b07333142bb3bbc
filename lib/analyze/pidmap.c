// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task records by pid.  See pidmap.h.
 */
#include <search.h>
#include <stdlib.h>

#include "analyze/pidmap.h"

static int cmp_pid(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void *kt_pidmap_get(struct kt_pidmap *m, int pid)
{
	void **found = tfind(&pid, &m->tree, cmp_pid);
	int *rec;

	if (found)
		return *found;
	rec = calloc(1, m->size);
	if (!rec)
		return NULL;
	*rec = pid;
	if (!tsearch(rec, &m->tree, cmp_pid)) {
		free(rec);
		return NULL;
	}
	m->n++;
	return rec;
}

void *kt_pidmap_find(struct kt_pidmap *m, int pid)
{
	void **found = tfind(&pid, &m->tree, cmp_pid);

	return found ? *found : NULL;
}

void kt_pidmap_free(struct kt_pidmap *m, void (*fn)(void *))
{
	tdestroy(m->tree, fn ? fn : free);
	m->tree = NULL;
	m->n = 0;
}
