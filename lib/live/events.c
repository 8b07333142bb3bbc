// SPDX-License-Identifier: GPL-2.0
/*
 * Event name resolution.  The catalog is read once from events/ with
 * readdir (cheap: no format file is opened), then every -e spec is
 * matched against it in memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "base/aliases.h"
#include "base/editdist.h"
#include "live/events.h"
#include "live/module.h"

/* ---- lists ---- */

/*
 * An open-addressing index over ev keeps kt_event_list_add() O(1): a
 * catalog has thousands of events and "enable '*'" adds them all.
 */
struct kt_event_list {
	struct kt_event_ref *ev;
	size_t n, cap;
	size_t *slot;		/* index + 1 into ev, 0 when free */
	size_t nslots;		/* a power of two, at least 2 * n */
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

struct kt_event_list *kt_event_list_new(void)
{
	return calloc(1, sizeof(struct kt_event_list));
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

/* ---- the catalog ---- */

struct kt_catalog {
	struct kt_event_list *all;
	const char **systems;
	size_t nsystems;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_ref_name(const void *a, const void *b)
{
	const struct kt_event_ref *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Add every event directory of one system. */
static int catalog_add_system(struct kt_catalog *cat, const char *tracing_dir,
			      const char *system)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	/* The module's events live in debugfs, not under tracefs. */
	if (kt_event_system_dir(tracing_dir, system, path, sizeof(path)))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		ret = list_append(cat->all, system, de->d_name);
		if (ret < 0)
			break;
	}
	closedir(d);
	return ret < 0 ? ret : 0;
}

/* The module's system name, unless tracefs has one by that name. */
static int add_module_system(struct kt_catalog *cat)
{
	const char **sys;
	size_t i;

	if (!kt_module_present())
		return 0;
	for (i = 0; i < cat->nsystems; i++)
		if (!strcmp(cat->systems[i], KTRACE_EVENT_SYSTEM))
			return 0;
	sys = realloc(cat->systems, (cat->nsystems + 1) * sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	cat->systems = sys;
	sys[cat->nsystems] = strdup(KTRACE_EVENT_SYSTEM);
	if (!sys[cat->nsystems])
		return -ENOMEM;
	cat->nsystems++;
	return 0;
}

/*
 * The catalog of every system, or of only the one named: "sched:*" and
 * "sched:sched_switch" need not read 100 other directories.
 */
static struct kt_catalog *catalog_read(const char *tracing_dir,
				       const char *only)
{
	enum kt_backend backend = kt_events_backend();
	char events_dir[4096];
	struct kt_catalog *cat;
	struct dirent *de;
	size_t i;
	DIR *d;
	int ret = -ENOMEM;

	if (!tracing_dir)
		tracing_dir = tracefs_tracing_dir();
	if (!tracing_dir && backend != KT_BACKEND_MODULE) {
		errno = ENODEV;
		return NULL;
	}
	if (!tracing_dir)
		tracing_dir = "";
	cat = calloc(1, sizeof(*cat));
	if (!cat)
		goto err;
	cat->all = kt_event_list_new();
	if (!cat->all)
		goto err_cat;
	cat->all->shared_systems = true;
	snprintf(events_dir, sizeof(events_dir), "%s/events", tracing_dir);
	d = backend == KT_BACKEND_MODULE ? NULL : opendir(events_dir);
	if (!d && backend != KT_BACKEND_MODULE) {
		ret = -errno;
		goto err_cat;
	}
	while (d && (de = readdir(d))) {
		const char **sys;

		/* Regular files here are enable, filter, header_page ... */
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		if (only && strcmp(only, de->d_name))
			continue;
		sys = realloc(cat->systems, (cat->nsystems + 1) * sizeof(*sys));
		if (!sys)
			goto err_dir;
		cat->systems = sys;
		sys[cat->nsystems] = strdup(de->d_name);
		if (!sys[cat->nsystems])
			goto err_dir;
		cat->nsystems++;
	}
	if (d)
		closedir(d);
	d = NULL;
	if (kt_events_use_module() &&
	    (!only || kt_event_where(only) == KT_EVENT_MODULE)) {
		ret = add_module_system(cat);
		if (ret)
			goto err_cat;
		ret = -ENOMEM;
	}
	/* qsort() of NULL, 0 is undefined (no system, or none by that name). */
	if (cat->nsystems > 1)
		qsort(cat->systems, cat->nsystems, sizeof(*cat->systems), cmp_str);
	/*
	 * System by system in order, each one's events sorted by name: the
	 * whole catalog comes out sorted without comparing system names.
	 */
	for (i = 0; i < cat->nsystems; i++) {
		size_t first = cat->all->n;

		ret = catalog_add_system(cat, tracing_dir, cat->systems[i]);
		if (ret < 0)
			goto err_cat;
		if (cat->all->n - first > 1)
			qsort(cat->all->ev + first, cat->all->n - first,
			      sizeof(*cat->all->ev), cmp_ref_name);
	}
	return cat;

err_dir:
	closedir(d);
err_cat:
	kt_catalog_free(cat);
err:
	errno = ret < 0 ? -ret : ENOMEM;
	return NULL;
}

struct kt_catalog *kt_catalog_load(const char *tracing_dir)
{
	return catalog_read(tracing_dir, NULL);
}

struct kt_catalog *kt_catalog_load_system(const char *tracing_dir,
					  const char *system)
{
	return catalog_read(tracing_dir, system);
}

void kt_catalog_free(struct kt_catalog *cat)
{
	size_t i;

	if (!cat)
		return;
	for (i = 0; i < cat->nsystems; i++)
		free((char *)cat->systems[i]);
	free(cat->systems);
	kt_event_list_free(cat->all);
	free(cat);
}

size_t kt_catalog_count(const struct kt_catalog *cat)
{
	return cat->all->n;
}

const struct kt_event_ref *kt_catalog_at(const struct kt_catalog *cat,
					 size_t i)
{
	return kt_event_list_at(cat->all, i);
}

size_t kt_catalog_systems(const struct kt_catalog *cat,
			  const char *const **systems)
{
	*systems = cat->systems;
	return cat->nsystems;
}

/* ---- resolution ---- */

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool is_system(const struct kt_catalog *cat, const char *name)
{
	return cat->nsystems &&
	       bsearch(&name, cat->systems, cat->nsystems,
		       sizeof(*cat->systems), cmp_str) != NULL;
}

/* Add every catalog event whose system and name match the patterns. */
static int add_matching(const struct kt_catalog *cat, const char *sys_pat,
			const char *ev_pat, struct kt_event_list *out,
			int *matched)
{
	size_t i;
	int ret;

	for (i = 0; i < cat->all->n; i++) {
		const struct kt_event_ref *r = &cat->all->ev[i];

		if (sys_pat && fnmatch(sys_pat, r->system, 0))
			continue;
		if (fnmatch(ev_pat, r->name, 0))
			continue;
		ret = kt_event_list_add(out, r->system, r->name);
		if (ret < 0)
			return ret;
		(*matched)++;
	}
	return 0;
}

int kt_events_resolve(const struct kt_catalog *cat, const char *spec,
		      struct kt_event_list *out)
{
	const struct kt_alias *alias;
	const char *colon = strchr(spec, ':');
	int matched = 0, ret;
	size_t i, systems_hit = 0;

	if (!*spec)
		return -ENOENT;
	if (colon) {
		char *sys = strndup(spec, colon - spec);
		const char *ev = colon + 1;

		if (!sys)
			return -ENOMEM;
		/* "sched:" and "sched:*" both mean the whole system. */
		ret = add_matching(cat, sys, *ev ? ev : "*", out, &matched);
		free(sys);
		if (ret < 0)
			return ret;
		return matched ? matched : -ENOENT;
	}
	if (has_glob(spec)) {
		ret = add_matching(cat, NULL, spec, out, &matched);
		if (ret < 0)
			return ret;
		return matched ? matched : -ENOENT;
	}
	/*
	 * A bare name the module offers is the module's event: ktrace's
	 * classic names (sched_schedule ...) are what it was built for.
	 */
	for (i = 0; i < cat->all->n; i++)
		if (!strcmp(cat->all->ev[i].name, spec) &&
		    kt_event_where(cat->all->ev[i].system) == KT_EVENT_MODULE)
			return kt_event_list_add(out, KTRACE_EVENT_SYSTEM,
						 spec) < 0 ? -ENOMEM : 1;
	/* A bare name: an event, then a classic alias, then a system. */
	for (i = 0; i < cat->all->n; i++)
		if (!strcmp(cat->all->ev[i].name, spec))
			systems_hit++;
	if (systems_hit > 1)
		return -EEXIST;
	if (systems_hit == 1) {
		ret = add_matching(cat, NULL, spec, out, &matched);
		return ret < 0 ? ret : matched;
	}
	alias = kt_alias_find(spec);
	if (alias) {
		ret = add_matching(cat, alias->system, alias->event, out,
				   &matched);
		if (ret < 0)
			return ret;
		return matched ? matched : -ENOENT;
	}
	if (is_system(cat, spec)) {
		ret = add_matching(cat, spec, "*", out, &matched);
		if (ret < 0)
			return ret;
		return matched ? matched : -ENOENT;
	}
	return -ENOENT;
}

int kt_events_suggest(const struct kt_catalog *cat, const char *spec,
		      char *buf, size_t len)
{
	const char *colon = strchr(spec, ':');
	const char *want = colon ? colon + 1 : spec;
	size_t best = (size_t)-1, i, n, limit, nalias;
	const struct kt_alias *al = kt_alias_table(&nalias);
	int shown = 0;
	size_t used = 0;

	/* Allow about one typo in three characters, at least two. */
	limit = strlen(want) / 3;
	if (limit < 2)
		limit = 2;
	n = cat->all->n;
	for (i = 0; i < n; i++) {
		size_t d = kt_edit_distance(want, cat->all->ev[i].name);

		if (d < best)
			best = d;
	}
	for (i = 0; i < nalias; i++) {
		size_t d = kt_edit_distance(want, al[i].classic);

		if (d < best)
			best = d;
	}
	if (best > limit || !len)
		return -ENOENT;
	buf[0] = '\0';
	for (i = 0; i < n && shown < 3; i++) {
		const struct kt_event_ref *r = &cat->all->ev[i];

		if (kt_edit_distance(want, r->name) != best)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s'%s:%s'", shown ? " or " : "",
				 r->system, r->name);
		shown++;
	}
	for (i = 0; i < nalias && shown < 3; i++) {
		if (kt_edit_distance(want, al[i].classic) != best)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s'%s'", shown ? " or " : "", al[i].classic);
		shown++;
	}
	return shown ? 0 : -ENOENT;
}
