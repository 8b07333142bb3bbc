/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names: the catalog of events the kernel offers, globs, the
 * classic ktrace/LTTng aliases (base/aliases.h), and "did you mean" for
 * typos.
 */
#ifndef KT_EVENTS_H
#define KT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

/* The catalog holds the events of the backend chosen there. */
#include "live/evhome.h"

struct kt_event_ref {
	const char *system;
	const char *name;
};

/* Every event under a tracing directory's events/ (NULL: the live one). */
struct kt_catalog;
struct kt_catalog *kt_catalog_load(const char *tracing_dir);
/*
 * Only one system's events (none if it does not exist): enough to
 * resolve "system:glob", not to suggest or to find bare names.
 */
struct kt_catalog *kt_catalog_load_system(const char *tracing_dir,
					  const char *system);
void kt_catalog_free(struct kt_catalog *cat);
size_t kt_catalog_count(const struct kt_catalog *cat);
const struct kt_event_ref *kt_catalog_at(const struct kt_catalog *cat,
					 size_t i);
/* Sorted, unique system names. */
size_t kt_catalog_systems(const struct kt_catalog *cat,
			  const char *const **systems);

/* A de-duplicated list of events, in the order they were added. */
struct kt_event_list;
struct kt_event_list *kt_event_list_new(void);
void kt_event_list_free(struct kt_event_list *list);
size_t kt_event_list_count(const struct kt_event_list *list);
const struct kt_event_ref *kt_event_list_at(const struct kt_event_list *list,
					    size_t i);
/* Returns 1 if added, 0 if it was already there, -ENOMEM. */
int kt_event_list_add(struct kt_event_list *list, const char *system,
		      const char *name);

/*
 * Resolve one user spec into events, appended to out:
 *   "sys:event", "event" (unique bare name), a classic alias, or globs
 *   ("sched:*", "*wakeup*", "sched").  A bare system name means all its
 *   events.
 * Returns the number of events added (>= 1), -ENOENT when nothing
 * matches, -EEXIST (ambiguous) when a bare name names events in several
 * systems.
 */
int kt_events_resolve(const struct kt_catalog *cat, const char *spec,
		      struct kt_event_list *out);

/*
 * Fill buf with "'sys:a'" or "'sys:a' or 'sys:b'" naming the closest
 * events (and aliases) to spec.  Returns 0, or -ENOENT when nothing is
 * close enough to suggest.
 */
int kt_events_suggest(const struct kt_catalog *cat, const char *spec,
		      char *buf, size_t len);

#endif
