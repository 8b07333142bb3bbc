/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A distribution of durations in nanoseconds: every value kept, so that
 * its percentiles are exact (nearest rank, as perf and most people
 * compute them), with the largest value's timestamp and CPU.
 */
#ifndef KT_DIST_H
#define KT_DIST_H

#include <stddef.h>

struct kt_dist {
	unsigned long long *v;
	size_t n, cap;
	unsigned long long sum;
	unsigned long long max, max_ts;	/* the largest and when it ended */
	int max_cpu;
	int sorted;
};

/* Add one value that ended at ts on cpu.  0 or -ENOMEM. */
int kt_dist_add(struct kt_dist *d, unsigned long long ns,
		unsigned long long ts, int cpu);
/* The p-th percentile (0 < p <= 100), nearest rank; 0 when empty. */
unsigned long long kt_dist_pct(struct kt_dist *d, double p);
unsigned long long kt_dist_mean(const struct kt_dist *d);
void kt_dist_free(struct kt_dist *d);

#endif
