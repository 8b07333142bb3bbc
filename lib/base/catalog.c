// SPDX-License-Identifier: GPL-2.0
/*
 * A catalog of events: its systems, each name kept once and shared by
 * the system's events, and the events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/catalog.h"

struct kt_catalog {
	struct kt_event_list *all;
	char **systems;
	size_t nsystems;
	size_t last;		/* the system found last: events come in runs */
	char *preferred;
};

struct kt_catalog *kt_catalog_new(void)
{
	struct kt_catalog *cat = calloc(1, sizeof(*cat));

	if (!cat)
		return NULL;
	cat->all = kt_event_list_new_shared();
	if (!cat->all) {
		free(cat);
		errno = ENOMEM;
		return NULL;
	}
	return cat;
}

void kt_catalog_free(struct kt_catalog *cat)
{
	size_t i;

	if (!cat)
		return;
	/* The list's entries point at these names: free it first. */
	kt_event_list_free(cat->all);
	for (i = 0; i < cat->nsystems; i++)
		free(cat->systems[i]);
	free(cat->systems);
	free(cat->preferred);
	free(cat);
}

/* The catalog's copy of system, added when new; NULL when out of memory. */
static const char *intern(struct kt_catalog *cat, const char *system)
{
	char **sys;
	size_t i;

	if (cat->last < cat->nsystems &&
	    !strcmp(cat->systems[cat->last], system))
		return cat->systems[cat->last];
	for (i = 0; i < cat->nsystems; i++) {
		if (!strcmp(cat->systems[i], system)) {
			cat->last = i;
			return cat->systems[i];
		}
	}
	sys = realloc(cat->systems, (cat->nsystems + 1) * sizeof(*sys));
	if (!sys)
		return NULL;
	cat->systems = sys;
	sys[cat->nsystems] = strdup(system);
	if (!sys[cat->nsystems])
		return NULL;
	cat->last = cat->nsystems++;
	return sys[cat->last];
}

int kt_catalog_add_system(struct kt_catalog *cat, const char *system)
{
	return intern(cat, system) ? 0 : -ENOMEM;
}

int kt_catalog_add_event(struct kt_catalog *cat, const char *system,
			 const char *name)
{
	const char *sys = intern(cat, system);

	if (!sys)
		return -ENOMEM;
	return kt_event_list_append(cat->all, sys, name) < 0 ? -ENOMEM : 0;
}

int kt_catalog_prefer(struct kt_catalog *cat, const char *system)
{
	free(cat->preferred);
	cat->preferred = system ? strdup(system) : NULL;
	return system && !cat->preferred ? -ENOMEM : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void kt_catalog_sort(struct kt_catalog *cat)
{
	/* qsort() of NULL, 0 is undefined (no system at all). */
	if (cat->nsystems > 1)
		qsort(cat->systems, cat->nsystems, sizeof(*cat->systems),
		      cmp_str);
	kt_event_list_sort(cat->all, 0);
}

size_t kt_catalog_count(const struct kt_catalog *cat)
{
	return kt_event_list_count(cat->all);
}

const struct kt_event_ref *kt_catalog_at(const struct kt_catalog *cat,
					 size_t i)
{
	return kt_event_list_at(cat->all, i);
}

size_t kt_catalog_systems(const struct kt_catalog *cat,
			  const char *const **systems)
{
	*systems = (const char *const *)cat->systems;
	return cat->nsystems;
}

const char *kt_catalog_preferred(const struct kt_catalog *cat)
{
	return cat->preferred;
}
