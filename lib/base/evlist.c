// SPDX-License-Identifier: GPL-2.0
/*
 * A de-duplicated list of events, with an index that keeps adding O(1).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/evlist.h"

/*
 * An open-addressing index over ev keeps kt_event_list_add() O(1): a
 * catalog has thousands of events and "enable '*'" adds them all.
 */
struct kt_event_list {
	struct kt_event_ref *ev;
	size_t n, cap;
	size_t *slot;		/* index + 1 into ev, 0 when free */
	size_t nslots;		/* a power of two, at least 2 * n; 0: none */
	/* The catalog's entries share its system names instead of copies. */
	bool shared_systems;
};

static size_t ref_hash(const char *system, const char *name)
{
	size_t h = 14695981039346656037ULL;

	for (; *system; system++)
		h = (h ^ (unsigned char)*system) * 1099511628211ULL;
	h = (h ^ ':') * 1099511628211ULL;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return h;
}

/* The slot that holds system:name, or the free one where it would go. */
static size_t *find_slot(const struct kt_event_list *list,
			 const char *system, const char *name)
{
	size_t mask = list->nslots - 1, i = ref_hash(system, name) & mask;

	for (;; i = (i + 1) & mask) {
		size_t *s = &list->slot[i];
		const struct kt_event_ref *r;

		if (!*s)
			return s;
		r = &list->ev[*s - 1];
		if (!strcmp(r->name, name) && !strcmp(r->system, system))
			return s;
	}
}

/* (Re)build the index with room for want entries. */
static int reindex(struct kt_event_list *list, size_t want)
{
	size_t nslots = 64, i;

	while (nslots < 2 * want)
		nslots *= 2;
	free(list->slot);
	list->slot = calloc(nslots, sizeof(*list->slot));
	if (!list->slot) {
		list->nslots = 0;
		return -ENOMEM;
	}
	list->nslots = nslots;
	for (i = 0; i < list->n; i++)
		*find_slot(list, list->ev[i].system, list->ev[i].name) = i + 1;
	return 0;
}

/* Appending or sorting leaves the index behind: the next add rebuilds it. */
static void drop_index(struct kt_event_list *list)
{
	free(list->slot);
	list->slot = NULL;
	list->nslots = 0;
}

struct kt_event_list *kt_event_list_new(void)
{
	return calloc(1, sizeof(struct kt_event_list));
}

struct kt_event_list *kt_event_list_new_shared(void)
{
	struct kt_event_list *list = kt_event_list_new();

	if (list)
		list->shared_systems = true;
	return list;
}

void kt_event_list_free(struct kt_event_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->n; i++) {
		if (!list->shared_systems)
			free((char *)list->ev[i].system);
		free((char *)list->ev[i].name);
	}
	free(list->ev);
	free(list->slot);
	free(list);
}

size_t kt_event_list_count(const struct kt_event_list *list)
{
	return list ? list->n : 0;
}

const struct kt_event_ref *kt_event_list_at(const struct kt_event_list *list,
					    size_t i)
{
	return i < list->n ? &list->ev[i] : NULL;
}

bool kt_event_list_has(const struct kt_event_list *list, const char *system,
		       const char *name)
{
	size_t i;

	if (list->nslots)
		return *find_slot(list, system, name) != 0;
	/* No index (appended, or sorted, since): look at each. */
	for (i = 0; i < list->n; i++)
		if (!strcmp(list->ev[i].name, name) &&
		    !strcmp(list->ev[i].system, system))
			return true;
	return false;
}

/* Append a copy of system:name without looking for it first. */
static int list_append(struct kt_event_list *list, const char *system,
		       const char *name)
{
	struct kt_event_ref ref;

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 16;
		struct kt_event_ref *ev = realloc(list->ev, cap * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		list->ev = ev;
		list->cap = cap;
	}
	ref.system = list->shared_systems ? system : strdup(system);
	ref.name = strdup(name);
	if (!ref.system || !ref.name) {
		if (!list->shared_systems)
			free((char *)ref.system);
		free((char *)ref.name);
		return -ENOMEM;
	}
	list->ev[list->n++] = ref;
	return 1;
}

int kt_event_list_append(struct kt_event_list *list, const char *system,
			 const char *name)
{
	if (list->slot)
		drop_index(list);
	return list_append(list, system, name);
}

int kt_event_list_add(struct kt_event_list *list, const char *system,
		      const char *name)
{
	size_t *slot;
	int ret;

	if (2 * (list->n + 1) > list->nslots && reindex(list, list->n + 1))
		return -ENOMEM;
	slot = find_slot(list, system, name);
	if (*slot)
		return 0;
	ret = list_append(list, system, name);
	if (ret > 0)
		*slot = list->n;
	return ret;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct kt_event_ref *x = a, *y = b;
	/* A catalog's entries share their system's one copy. */
	int c = x->system == y->system ? 0 : strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

void kt_event_list_sort(struct kt_event_list *list, size_t first)
{
	if (first >= list->n || list->n - first < 2)
		return;
	if (list->slot)
		drop_index(list);
	qsort(list->ev + first, list->n - first, sizeof(*list->ev), cmp_ref);
}
