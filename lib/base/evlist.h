/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A de-duplicated list of events (system:name), in the order they were
 * added: what a resolved -e gives, and what a catalog holds.
 */
#ifndef KT_EVLIST_H
#define KT_EVLIST_H

#include <stdbool.h>
#include <stddef.h>

struct kt_event_ref {
	const char *system;
	const char *name;
};

struct kt_event_list;
struct kt_event_list *kt_event_list_new(void);
/*
 * A list whose entries point at the caller's system names instead of
 * copies: they must outlive it (a catalog's interned names).
 */
struct kt_event_list *kt_event_list_new_shared(void);
void kt_event_list_free(struct kt_event_list *list);
size_t kt_event_list_count(const struct kt_event_list *list);
const struct kt_event_ref *kt_event_list_at(const struct kt_event_list *list,
					    size_t i);
/* Whether system:name is in the list. */
bool kt_event_list_has(const struct kt_event_list *list, const char *system,
		       const char *name);
/* Returns 1 if added, 0 if it was already there, -ENOMEM. */
int kt_event_list_add(struct kt_event_list *list, const char *system,
		      const char *name);
/*
 * Append without looking for it first, for a caller that knows it is
 * new (a directory's entries): 1 or -ENOMEM.
 */
int kt_event_list_append(struct kt_event_list *list, const char *system,
			 const char *name);
/* Sort the entries from first on by system, then name. */
void kt_event_list_sort(struct kt_event_list *list, size_t first);

#endif
