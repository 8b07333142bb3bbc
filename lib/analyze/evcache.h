/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each event of a file is to an analysis, worked out once per event
 * id (its kind, its fields) and then found by id for every record.
 */
#ifndef KT_EVCACHE_H
#define KT_EVCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct tep_event;
struct tep_format_field;
struct tep_record;

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

/* The fields of sched:sched_switch the analyses read. */
struct kt_switch_fields {
	struct tep_format_field *prev_pid, *prev_state, *next_pid;
	struct tep_format_field *prev_comm, *next_comm;
};

/* Whether e is sched_switch with its pids and prev_state; f filled. */
bool kt_switch_fields_find(struct tep_event *e, struct kt_switch_fields *f);

/* A char array or __string field of rec into out, cut to len; "" if none. */
void kt_field_str(struct tep_format_field *f, struct tep_record *rec,
		  char *out, size_t len);

#endif
