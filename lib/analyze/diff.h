/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace diff: two recordings' durations (diff-samples.h) compared key
 * by key: counts, totals, p50 and p99 of each side, and whether the
 * durations moved, by a Mann-Whitney U test (the normal approximation,
 * with the correction for ties and for continuity).
 *
 * A row is significant when its p-value, times the number of rows tested
 * (Bonferroni's correction: with many rows, some would pass by chance),
 * is below alpha, and its effect is not negligible: Cliff's delta, the
 * chance that a B duration is longer than an A one less the chance it is
 * shorter, at least min_effect in size (0.4 by default, between what
 * is called a medium and a large effect: on tests/lockreg.c run twice
 * unchanged, the rows whose total moved 1% or more had effects up to
 * 0.33, from the machine's scheduling; its seeded regression's lock
 * wait 0.52 to 0.81); and it matters: its change in
 * total time is at least 1% of the largest total of any row (a system
 * call's 37 us more, or an irq's 1 ms, beside a wait that took 200 ms,
 * is not the change anyone is after), and its medians differ by 10% of
 * the larger at least (a rank test calls 29 us more on each of 300 naps
 * of 1 ms that all took 1.04 to 1.07 ms a large effect).  A key with fewer than eight durations on a
 * side is not tested.
 *
 * Rows are ranked by impact, the change in total time, the largest
 * first; with sig_first, the significant rows before the others.
 */
#ifndef KT_DIFF_H
#define KT_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/diff-samples.h"

struct kt_diff_side {
	unsigned long long count, total, p50, p99;
};

struct kt_diff_row {
	enum kt_diff_kind kind;
	const char *name;		/* the samples' */
	struct kt_diff_side a, b;
	bool tested;
	bool significant;
	double p;			/* corrected; 1 when not tested */
	double effect;			/* Cliff's delta: > 0, B longer */
	double within;			/* the larger |delta| of a run's halves */
	double device;			/* the larger share of time in D */
	double block_p, block_effect;	/* the blocks' totals' test */
	double block_within;
};

struct kt_diff_opts {
	double alpha;			/* 0: 0.01 */
	double min_effect;		/* 0: 0.4 */
	bool sig_first;
};

/* The rows of a against b, ranked.  *rows is the caller's to free(). */
int kt_diff_compare(struct kt_samples *a, struct kt_samples *b,
		    const struct kt_diff_opts *o, struct kt_diff_row **rows,
		    size_t *n);

/*
 * Mann-Whitney U of two sorted samples: the two-sided p-value (normal
 * approximation) and Cliff's delta (> 0: y tends longer).
 */
void kt_diff_mwu(const unsigned long long *x, size_t nx,
		 const unsigned long long *y, size_t ny, double *p, double *effect);

#endif
