/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of a table kept in a tsearch(3) tree, as an analysis or a view
 * gives them: walk the tree, merge the items of one group (a comm, a
 * process) into one row, sort.  The one home of that walk for
 * analyze/ (sched, offcpu, cpu, syscalls) and views/ (folded).
 */
#ifndef KT_COLLECT_H
#define KT_COLLECT_H

#include <stdbool.h>
#include <stddef.h>

struct kt_collect {
	/*
	 * Whether an item (a node's pointer) is a row; NULL: every one.
	 * Called once per item, in tree order, before any merge.
	 */
	bool (*keep)(void *item, void *arg);
	/* The row an item stands for, without a merge; NULL: the item itself. */
	void *(*row)(void *item, void *arg);
	/*
	 * Merge (NULL: none): the kept items in group order (a qsort_r(3)
	 * comparison of two items' pointers), each run of one group folded
	 * into one row by fold(row, item): row NULL for a group's first
	 * item, when fold gives the group's new row; NULL back is -ENOMEM.
	 */
	int (*group)(const void *a, const void *b, void *arg);
	void *(*fold)(void *row, void *item, void *arg);
	/* The rows' order (a qsort_r(3) comparison of rows' pointers); NULL: as they are. */
	int (*cmp)(const void *a, const void *b, void *arg);
	void *arg;	/* for every callback */
};

/*
 * The rows of tree, which holds at most n items: *rows a malloc'ed array
 * of *nrows row pointers.  0, or -ENOMEM with *rows NULL.
 */
int kt_collect_rows(const void *tree, size_t n, const struct kt_collect *how,
		    void ***rows, size_t *nrows);

#endif
