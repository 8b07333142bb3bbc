// SPDX-License-Identifier: GPL-2.0
/*
 * The per-event-id cache of the analyses.  See evcache.h.
 */
#include <search.h>
#include <stdlib.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"

static int cmp_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void *kt_evcache_get(struct kt_evcache *c, struct tep_event *e)
{
	int id = e->id;
	void **found = tfind(&id, &c->tree, cmp_id);
	int *entry;

	if (found)
		return *found;
	entry = calloc(1, c->size);
	if (!entry)
		return NULL;
	*entry = id;
	c->fill(entry, e);
	if (!tsearch(entry, &c->tree, cmp_id)) {
		free(entry);
		return NULL;
	}
	return entry;
}

void kt_evcache_free(struct kt_evcache *c)
{
	tdestroy(c->tree, free);
	c->tree = NULL;
}
