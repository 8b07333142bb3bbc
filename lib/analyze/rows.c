// SPDX-License-Identifier: GPL-2.0
/*
 * Rows and per-CPU tables of the analyses.  See rows.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/rows.h"

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const void *x = *(void *const *)a, *y = *(void *const *)b;
	const struct kt_rowsort *how = arg;
	unsigned long long kx, ky;
	int c, px, py;

	if (strcmp(how->key, "comm")) {
		kx = how->value(x, how->key);
		ky = how->value(y, how->key);
		if (kx != ky)
			return kx < ky ? 1 : -1;
	}
	c = strcmp(how->comm(x), how->comm(y));
	if (c)
		return c;
	px = how->pid(x);
	py = how->pid(y);
	return (px > py) - (px < py);
}

void kt_rows_sort(void **rows, size_t n, const struct kt_rowsort *how)
{
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), cmp_rows, (void *)how);
}

bool kt_rows_key_known(const char *const *keys, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

void *kt_percpu_at(struct kt_percpu *p, int cpu)
{
	char *v;

	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu >= p->n) {
		v = realloc(p->v, (size_t)(cpu + 1) * p->size);
		if (!v)
			return NULL;
		memset(v + (size_t)p->n * p->size, 0, (size_t)(cpu + 1 - p->n) * p->size);
		p->v = v;
		p->n = cpu + 1;
	}
	return (char *)p->v + (size_t)cpu * p->size;
}
