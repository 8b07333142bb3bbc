// SPDX-License-Identifier: GPL-2.0
/*
 * The per-event-id cache of the analyses.  See evcache.h.
 */
#include <search.h>
#include <stdbool.h>
#include <stdlib.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"

static int cmp_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Event ids are small (the kernel counts them up from 1): a table. */
#define DIRECT 65536

void *kt_evcache_get(struct kt_evcache *c, struct tep_event *e)
{
	int id = e->id;
	bool direct = id >= 0 && id < DIRECT;
	void **found;
	int *entry;

	if (direct && c->direct && c->direct[id])
		return c->direct[id];
	if (!direct) {
		found = tfind(&id, &c->tree, cmp_id);
		if (found)
			return *found;
	}
	if (direct && !c->direct) {
		c->direct = calloc(DIRECT, sizeof(*c->direct));
		if (!c->direct)
			return NULL;
	}
	entry = calloc(1, c->size);
	if (!entry)
		return NULL;
	*entry = id;
	c->fill(entry, e);
	if (direct) {
		c->direct[id] = entry;
	} else if (!tsearch(entry, &c->tree, cmp_id)) {
		free(entry);
		return NULL;
	}
	return entry;
}

void kt_evcache_free(struct kt_evcache *c)
{
	size_t i;

	if (c->direct)
		for (i = 0; i < DIRECT; i++)
			free(c->direct[i]);
	free(c->direct);
	c->direct = NULL;
	tdestroy(c->tree, free);
	c->tree = NULL;
}
