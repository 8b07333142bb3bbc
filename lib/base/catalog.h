/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A catalog of events: the (system, name) pairs that event specs are
 * resolved against (base/evspec.h).  Two providers fill one: the running
 * kernel's tracefs and ktrace.ko (live/events/events.h), and a recording's
 * formats (decode/decoder.c).
 */
#ifndef KT_CATALOG_H
#define KT_CATALOG_H

#include <stddef.h>

#include "base/evlist.h"

struct kt_catalog;
struct kt_catalog *kt_catalog_new(void);
void kt_catalog_free(struct kt_catalog *cat);

/* A system, with or without events yet: 0 or -ENOMEM. */
int kt_catalog_add_system(struct kt_catalog *cat, const char *system);
/* An event (its system added if new): 0 or -ENOMEM.  No check for twins. */
int kt_catalog_add_event(struct kt_catalog *cat, const char *system,
			 const char *name);
/*
 * The system whose events a bare name means before any other's (the
 * module's, "ktrace", while its events are in play): 0 or -ENOMEM.
 */
int kt_catalog_prefer(struct kt_catalog *cat, const char *system);
/* Once filled: systems and events in order (by system, then name). */
void kt_catalog_sort(struct kt_catalog *cat);

size_t kt_catalog_count(const struct kt_catalog *cat);
const struct kt_event_ref *kt_catalog_at(const struct kt_catalog *cat,
					 size_t i);
/* Unique system names, sorted once kt_catalog_sort() has run. */
size_t kt_catalog_systems(const struct kt_catalog *cat,
			  const char *const **systems);
/* The system kt_catalog_prefer() named, or NULL. */
const char *kt_catalog_preferred(const struct kt_catalog *cat);

#endif
