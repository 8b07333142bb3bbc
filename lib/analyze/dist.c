// SPDX-License-Identifier: GPL-2.0
/*
 * Distributions of durations.  See dist.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/dist.h"

int kt_dist_add(struct kt_dist *d, unsigned long long ns,
		unsigned long long ts, int cpu)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		unsigned long long *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = ns;
	d->sum += ns;
	if (d->n == 1 || ns > d->max) {
		d->max = ns;
		d->max_ts = ts;
		d->max_cpu = cpu;
	}
	d->sorted = 0;
	return 0;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

unsigned long long kt_dist_pct(struct kt_dist *d, double p)
{
	double x = p / 100.0 * (double)d->n;
	size_t rank;

	if (!d->n)
		return 0;
	if (!d->sorted) {
		qsort(d->v, d->n, sizeof(*d->v), cmp_ull);
		d->sorted = 1;
	}
	/* Nearest rank: the smallest value with p% of them at or below it. */
	rank = (size_t)x;
	if ((double)rank < x)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > d->n)
		rank = d->n;
	return d->v[rank - 1];
}

unsigned long long kt_dist_mean(const struct kt_dist *d)
{
	return d->n ? d->sum / d->n : 0;
}

void kt_dist_free(struct kt_dist *d)
{
	free(d->v);
	*d = (struct kt_dist){ 0 };
}
