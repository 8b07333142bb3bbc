/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace diff: two recordings' durations (diff-samples.h) compared key
 * by key: counts, totals, p50 and p99 of each side, and whether the key
 * moved, by two Mann-Whitney U tests (the normal approximation, with
 * the correction for ties and for continuity): of the durations, and of
 * the totals in KT_DIFF_BLOCKS equal stretches of each run's time (batch
 * means: the events of a run share its state, the lock's contention,
 * the disk's queue, so they are not independent draws and a test of
 * them overstates; a stretch's total nearly is independent of the next).
 *
 * A row is significant when its change in total time matters (at least
 * 1% of the largest total of any row: a system call's 37 us more, or an
 * irq's 1 ms, beside a wait that took 200 ms, is not the change anyone
 * is after) and either test passes.  A test passes when its p-value,
 * times twice the number of rows tested (Bonferroni's correction over
 * both tests of every row), is below alpha; its effect, Cliff's delta
 * (the chance that a B value is larger than an A one less the chance it
 * is smaller), is at least min_effect in size (0.4 by default, between
 * a medium and a large effect: on tests/lockreg.c run twice unchanged,
 * rows whose total moved 1% or more had up to 0.33 from the machine's
 * scheduling; its seeded regression's lock wait 0.52 to 0.81); it is
 * larger than the same test's effect between the first and the second
 * half (by time) of A, and of B (a difference between runs no larger
 * than a run's difference from itself is no evidence); and the medians,
 * or for the blocks the totals, differ by 10% of the larger at least (a
 * rank test calls 29 us more on each of 300 naps of 1 ms that all took
 * 1.04 to 1.07 ms a large effect).  A row that spent half its time or
 * more blocked in D (a device's waits: fsync) needs an effect of 0.9:
 * a device's latency moves between runs as a whole with its state,
 * which one run a side cannot tell from the program's change (30
 * unchanged pairs of lockreg on a real disk: such rows up to 0.70 by
 * durations, 0.79 by blocks).  A key with fewer than eight durations on
 * a side is not tested.
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
	bool by_blocks;			/* significant by the blocks' test only */
	double p;			/* the durations', corrected; 1 when not tested */
	double effect;			/* their Cliff's delta: > 0, B longer */
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
