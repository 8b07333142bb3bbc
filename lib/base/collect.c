// SPDX-License-Identifier: GPL-2.0
/*
 * A tree's rows: walked, merged by group, sorted (base/collect.h).
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>

#include "base/collect.h"

struct walk {
	const struct kt_collect *how;
	void **v;
	size_t n;
};

static void take(const void *node, VISIT which, void *arg)
{
	struct walk *w = arg;
	void *item = *(void *const *)node;

	if (which != postorder && which != leaf)
		return;
	if (!w->how->keep || w->how->keep(item, w->how->arg))
		w->v[w->n++] = item;
}

/* Fold each group's run of items into its row, in v's place. */
static int merge(struct walk *w)
{
	const struct kt_collect *how = w->how;
	void *prev = NULL, *row = NULL;
	size_t i, n = 0;

	qsort_r(w->v, w->n, sizeof(*w->v), how->group, how->arg);
	for (i = 0; i < w->n; i++) {
		void *item = w->v[i];
		bool first = !prev || how->group(&prev, &item, how->arg);

		row = how->fold(first ? NULL : row, item, how->arg);
		if (!row)
			return -ENOMEM;
		/* n <= i: item i is read before its slot is taken. */
		if (first)
			w->v[n++] = row;
		prev = item;
	}
	w->n = n;
	return 0;
}

int kt_collect_rows(const void *tree, size_t n, const struct kt_collect *how,
		    void ***rows, size_t *nrows)
{
	struct walk w = { .how = how };
	size_t i;
	int ret;

	*rows = NULL;
	*nrows = 0;
	w.v = malloc((n ? n : 1) * sizeof(*w.v));
	if (!w.v)
		return -ENOMEM;
	twalk_r(tree, take, &w);
	if (how->group) {
		ret = merge(&w);
		if (ret) {
			free(w.v);
			return ret;
		}
	} else if (how->row) {
		for (i = 0; i < w.n; i++)
			w.v[i] = how->row(w.v[i], how->arg);
	}
	if (how->cmp && w.n > 1)
		qsort_r(w.v, w.n, sizeof(*w.v), how->cmp, how->arg);
	*rows = w.v;
	*nrows = w.n;
	return 0;
}
