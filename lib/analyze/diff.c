// SPDX-License-Identifier: GPL-2.0
/*
 * Two recordings compared key by key.  See diff.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff.h"

#define MIN_N		8	/* durations a side, for the test */
#define MATTERS		0.01	/* of the largest total of a row */
#define SHIFT		0.1	/* of the larger median */
#define DEVICE		0.5	/* of a row's time blocked in D: a device row */
#define DEVICE_EFFECT	0.9	/* the effect a device row needs */

void kt_diff_mwu(const unsigned long long *x, size_t nx,
		 const unsigned long long *y, size_t ny, double *p, double *effect)
{
	double rank = 1, rx = 0, ties = 0, n = (double)(nx + ny), u, mean, sd, z;
	size_t i = 0, j = 0, cx, cy;
	unsigned long long v;

	while (i < nx || j < ny) {
		v = j >= ny || (i < nx && x[i] <= y[j]) ? x[i] : y[j];
		for (cx = 0; i < nx && x[i] == v; i++)
			cx++;
		for (cy = 0; j < ny && y[j] == v; j++)
			cy++;
		/* The tie's ranks rank .. rank + t - 1: each its mean. */
		rx += (double)cx * (rank + (double)(cx + cy - 1) / 2);
		if (cx + cy > 1)
			ties += pow((double)(cx + cy), 3) - (double)(cx + cy);
		rank += (double)(cx + cy);
	}
	/* u: the pairs where x is longer, ties counted a half. */
	u = rx - (double)nx * ((double)nx + 1) / 2;
	mean = (double)nx * (double)ny / 2;
	*effect = nx && ny ? 1 - u / mean : 0;
	sd = sqrt((double)nx * (double)ny / 12 * ((n + 1) - ties / (n * (n - 1))));
	if (!nx || !ny || sd <= 0) {
		*p = 1;
		return;
	}
	z = fabs(u - mean) - 0.5;
	if (z < 0)
		z = 0;
	z /= sd;
	*p = erfc(z / sqrt(2));
}

/* Nearest rank, as dist.h's. */
static unsigned long long pct(const struct kt_sample_set *s, double p)
{
	size_t k;

	if (!s || !s->n)
		return 0;
	k = (size_t)ceil(p / 100 * (double)s->n);
	if (k < 1)
		k = 1;
	return s->v[k - 1];
}

static void side(struct kt_diff_side *d, const struct kt_sample_set *s)
{
	if (!s)
		return;
	d->count = s->n;
	d->total = s->sum;
	d->p50 = pct(s, 50);
	d->p99 = pct(s, 99);
}

/* How far one run's first half of a key is from its second: |delta|. */
static double within(const struct kt_sample_set *s)
{
	double p, effect;

	kt_diff_mwu(s->half[0], s->nhalf[0], s->half[1], s->nhalf[1], &p, &effect);
	return fabs(effect);
}

static int cmp_ull(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* The totals of blocks from .. from + n of a set, sorted into to. */
static void blocks(const struct kt_sample_set *s, size_t from, size_t n,
		   unsigned long long *to)
{
	memcpy(to, s->block + from, n * sizeof(*to));
	qsort(to, n, sizeof(*to), cmp_ull);
}

/*
 * The test of the totals by block of time (batch means: the durations
 * of neighbouring events are not independent, a block's total nearly
 * is), and how far each run's first eight blocks are from its last.
 */
static void block_test(struct kt_diff_row *r, const struct kt_sample_set *x,
		       const struct kt_sample_set *y)
{
	enum { N = KT_DIFF_BLOCKS, H = KT_DIFF_BLOCKS / 2 };
	unsigned long long bx[N], by[N];
	double p, e;

	blocks(x, 0, N, bx);
	blocks(y, 0, N, by);
	kt_diff_mwu(bx, N, by, N, &r->block_p, &r->block_effect);
	blocks(x, 0, H, bx);
	blocks(x, H, H, bx + H);
	kt_diff_mwu(bx, H, bx + H, H, &p, &e);
	r->block_within = fabs(e);
	blocks(y, 0, H, by);
	blocks(y, H, H, by + H);
	kt_diff_mwu(by, H, by + H, H, &p, &e);
	r->block_within = fmax(r->block_within, fabs(e));
}

static double device(const struct kt_sample_set *s)
{
	return s->sum ? (double)s->dev / (double)s->sum : 0;
}

static int cmp_key(const struct kt_sample_set *x, const struct kt_sample_set *y)
{
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

static unsigned long long impact(const struct kt_diff_row *r)
{
	return r->b.total > r->a.total ? r->b.total - r->a.total : r->a.total - r->b.total;
}

/*
 * The medians differ by SHIFT of the larger at least: a rank test finds
 * 29 us more in 300 naps of 1 ms that all took 1.04-1.07 ms a "large"
 * effect, which no one is after.
 */
static bool shifted(const struct kt_diff_row *r)
{
	double a = (double)r->a.p50, b = (double)r->b.p50;

	return fabs(b - a) >= SHIFT * (a > b ? a : b);
}

/* The effect a row needs: a device row's is larger. */
static double needed(const struct kt_diff_row *r, double min_effect)
{
	return r->device >= DEVICE ? fmax(min_effect, DEVICE_EFFECT) : min_effect;
}

static bool by_durations(const struct kt_diff_row *r, double alpha, double min_effect)
{
	double e = fabs(r->effect);

	return r->p < alpha && e >= needed(r, min_effect) && e > r->within && shifted(r);
}

/* The totals differ by SHIFT of the larger at least. */
static bool by_blocks(const struct kt_diff_row *r, double alpha, double min_effect)
{
	double e = fabs(r->block_effect), a = (double)r->a.total, b = (double)r->b.total;

	return r->block_p < alpha && e >= needed(r, min_effect) && e > r->block_within &&
	       fabs(b - a) >= SHIFT * (a > b ? a : b);
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct kt_diff_row *x = a, *y = b;
	const bool *sig_first = arg;
	unsigned long long ix = impact(x), iy = impact(y);

	if (*sig_first && x->significant != y->significant)
		return x->significant ? -1 : 1;
	if (ix != iy)
		return ix < iy ? 1 : -1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

int kt_diff_compare(struct kt_samples *a, struct kt_samples *b,
		    const struct kt_diff_opts *o, struct kt_diff_row **rows,
		    size_t *n)
{
	const struct kt_sample_set *sa, *sb, *x, *y;
	double alpha = o->alpha > 0 ? o->alpha : 0.01;
	double min_effect = o->min_effect > 0 ? o->min_effect : 0.4;
	unsigned long long most = 0;
	size_t na, nb, i = 0, j = 0, m = 0, tested = 0;
	struct kt_diff_row *v;
	bool sig_first = o->sig_first;
	int ret, c;

	ret = kt_samples_sets(a, &sa, &na);
	if (!ret)
		ret = kt_samples_sets(b, &sb, &nb);
	if (ret)
		return ret;
	v = calloc(na + nb ? na + nb : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (i < na || j < nb) {
		struct kt_diff_row *r = &v[m++];

		c = i >= na ? 1 : j >= nb ? -1 : cmp_key(&sa[i], &sb[j]);
		x = c <= 0 ? &sa[i++] : NULL;
		y = c >= 0 ? &sb[j++] : NULL;
		r->kind = (x ? x : y)->kind;
		r->name = (x ? x : y)->name;
		side(&r->a, x);
		side(&r->b, y);
		r->p = 1;
		if (x && y && x->n >= MIN_N && y->n >= MIN_N) {
			kt_diff_mwu(x->v, x->n, y->v, y->n, &r->p, &r->effect);
			r->within = fmax(within(x), within(y));
			r->device = fmax(device(x), device(y));
			block_test(r, x, y);
			r->tested = true;
			tested++;
		}
	}
	for (i = 0; i < m; i++) {
		unsigned long long top = v[i].a.total > v[i].b.total ? v[i].a.total : v[i].b.total;

		if (top > most)
			most = top;
	}
	for (i = 0; i < m; i++) {
		if (!v[i].tested)
			continue;
		/* Two tests a row. */
		v[i].p = fmin(1, v[i].p * 2 * (double)tested);
		v[i].block_p = fmin(1, v[i].block_p * 2 * (double)tested);
		if ((double)impact(&v[i]) < MATTERS * (double)most)
			continue;
		v[i].significant = by_durations(&v[i], alpha, min_effect);
		if (!v[i].significant)
			v[i].significant = v[i].by_blocks = by_blocks(&v[i], alpha, min_effect);
	}
	qsort_r(v, m, sizeof(*v), cmp_rows, &sig_first);
	*rows = v;
	*n = m;
	return 0;
}
