// SPDX-License-Identifier: GPL-2.0
/*
 * The event spec resolver: matching a spec against a catalog, and "did
 * you mean" for one that matches nothing.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/aliases.h"
#include "base/editdist.h"
#include "base/evspec.h"

bool kt_evspec_has_glob(const char *spec)
{
	return strpbrk(spec, "*?[") != NULL;
}

static bool is_system(const struct kt_catalog *cat, const char *name)
{
	const char *const *systems;
	size_t i, n = kt_catalog_systems(cat, &systems);

	for (i = 0; i < n; i++)
		if (!strcmp(systems[i], name))
			return true;
	return false;
}

/*
 * Add every catalog event whose system and name match the patterns;
 * the count of those that match, -ENOENT for none, or -ENOMEM.
 */
static int add_matching(const struct kt_catalog *cat, const char *sys_pat,
			const char *ev_pat, struct kt_event_list *out)
{
	size_t i, n = kt_catalog_count(cat);
	int matched = 0;

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_catalog_at(cat, i);

		if (sys_pat && fnmatch(sys_pat, r->system, 0))
			continue;
		if (fnmatch(ev_pat, r->name, 0))
			continue;
		if (kt_event_list_add(out, r->system, r->name) < 0)
			return -ENOMEM;
		matched++;
	}
	return matched ? matched : -ENOENT;
}

/* A bare name: the preferred system's, a unique event, an alias, a system. */
static int resolve_bare(const struct kt_catalog *cat, const char *spec,
			unsigned int flags, struct kt_event_list *out)
{
	const char *preferred = kt_catalog_preferred(cat);
	size_t i, n = kt_catalog_count(cat), systems_hit = 0;
	const struct kt_alias *alias;

	/*
	 * A bare name the module offers is the module's event: ktrace's
	 * classic names (sched_schedule ...) are what it was built for.
	 */
	for (i = 0; preferred && i < n; i++) {
		const struct kt_event_ref *r = kt_catalog_at(cat, i);

		if (!strcmp(r->name, spec) && !strcmp(r->system, preferred))
			return kt_event_list_add(out, r->system, spec) < 0 ?
			       -ENOMEM : 1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(kt_catalog_at(cat, i)->name, spec))
			systems_hit++;
	if (systems_hit > 1 && !(flags & KT_EVSPEC_EVERY_SYSTEM))
		return -EEXIST;
	if (systems_hit)
		return add_matching(cat, NULL, spec, out);
	alias = kt_alias_find(spec);
	if (alias)
		return add_matching(cat, alias->system, alias->event, out);
	if (is_system(cat, spec))
		return add_matching(cat, spec, "*", out);
	return -ENOENT;
}

int kt_evspec_resolve(const struct kt_catalog *cat, const char *spec,
		      unsigned int flags, struct kt_event_list *out)
{
	const char *colon = strchr(spec, ':');
	char *sys;
	int ret;

	if (!*spec)
		return -ENOENT;
	if (colon) {
		sys = strndup(spec, colon - spec);
		if (!sys)
			return -ENOMEM;
		/* "sched:" and "sched:*" both mean the whole system. */
		ret = add_matching(cat, sys, colon[1] ? colon + 1 : "*", out);
		free(sys);
		return ret;
	}
	if (kt_evspec_has_glob(spec))
		return add_matching(cat, NULL, spec, out);
	return resolve_bare(cat, spec, flags, out);
}

/*
 * Whether a classic alias names something in cat: its event, or one of
 * that name (ktrace.ko's).  One that does not is no suggestion: on a
 * recording without syscalls, 'syscall_entry' is no better than a typo.
 */
static bool alias_here(const struct kt_catalog *cat, const struct kt_alias *al)
{
	size_t i, n = kt_catalog_count(cat);

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_catalog_at(cat, i);

		if (!strcmp(r->name, al->classic) ||
		    (!strcmp(r->name, al->event) &&
		     !strcmp(r->system, al->system)))
			return true;
	}
	return false;
}

int kt_evspec_suggest(const struct kt_catalog *cat, const char *spec,
		      char *buf, size_t len)
{
	const char *colon = strchr(spec, ':');
	const char *want = colon ? colon + 1 : spec;
	size_t best = (size_t)-1, i, n, limit, nalias;
	const struct kt_alias *al = kt_alias_table(&nalias);
	unsigned long long here = 0;	/* the aliases that name something */
	int shown = 0;
	size_t used = 0;

	if (kt_evspec_has_glob(spec))
		return -ENOENT;
	/* Allow about one typo in three characters, at least two. */
	limit = strlen(want) / 3;
	if (limit < 2)
		limit = 2;
	n = kt_catalog_count(cat);
	for (i = 0; i < n; i++) {
		size_t d = kt_edit_distance(want, kt_catalog_at(cat, i)->name);

		if (d < best)
			best = d;
	}
	for (i = 0; i < nalias && i < sizeof(here) * 8; i++) {
		size_t d = kt_edit_distance(want, al[i].classic);

		/* Best only falls: one at the final best is marked. */
		if (d > best || !alias_here(cat, &al[i]))
			continue;
		best = d;
		here |= 1ULL << i;
	}
	if (best > limit || !len)
		return -ENOENT;
	buf[0] = '\0';
	for (i = 0; i < n && shown < 3; i++) {
		const struct kt_event_ref *r = kt_catalog_at(cat, i);

		if (kt_edit_distance(want, r->name) != best)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s'%s:%s'", shown ? " or " : "",
				 r->system, r->name);
		shown++;
	}
	for (i = 0; i < nalias && i < sizeof(here) * 8 && shown < 3; i++) {
		if (!(here & (1ULL << i)) ||
		    kt_edit_distance(want, al[i].classic) != best)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s'%s'", shown ? " or " : "", al[i].classic);
		shown++;
	}
	return shown ? 0 : -ENOENT;
}
