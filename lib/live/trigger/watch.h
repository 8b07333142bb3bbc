/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conditions (cond.h) evaluated on records as they are read: a system
 * call's sys_enter and sys_exit paired by thread.  Fed records in the
 * order read, decoded with libtraceevent against the recording's
 * formats; says when one holds and the record that made it hold.
 */
#ifndef KT_WATCH_H
#define KT_WATCH_H

#include <stdint.h>

#include "live/trigger/cond.h"

struct tep_handle;
struct tep_record;
struct kt_watch;

/* A condition that held. */
struct kt_fire {
	int cond;			/* its index */
	uint64_t ts;			/* the firing record's time, trace clock */
	int cpu;
	int pid;
	uint64_t since;			/* what it measured began (sys_enter), or ts */
	char what[256];			/* the firing event, in words */
};

/*
 * conds[n] (kept, not copied) against tep's formats.  NULL + errno;
 * EINVAL with why (len bytes) saying which event or filter is bad.
 */
struct kt_watch *kt_watch_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n, char *why, size_t len);
void kt_watch_free(struct kt_watch *w);

/* One record: 1 with *f filled when a condition held, 0 when none. */
int kt_watch_record(struct kt_watch *w, struct tep_record *rec, struct kt_fire *f);

#endif
