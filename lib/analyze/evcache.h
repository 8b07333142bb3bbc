/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each event of a file is to an analysis, worked out once per event
 * id (its kind, its fields) and then found by id for every record.
 */
#ifndef KT_EVCACHE_H
#define KT_EVCACHE_H

#include <stddef.h>

struct tep_event;

/* An entry's first member is the event id; the rest is the caller's. */
struct kt_evcache {
	void **direct;			/* by id, for ids below 65536 */
	void *tree;			/* tsearch, by id: the others */
	size_t size;			/* of an entry */
	/* Fill a new (zeroed) entry for e. */
	void (*fill)(void *entry, struct tep_event *e);
};

/* The entry of e's id, made with fill the first time; NULL: ENOMEM. */
void *kt_evcache_get(struct kt_evcache *c, struct tep_event *e);
void kt_evcache_free(struct kt_evcache *c);

#endif
