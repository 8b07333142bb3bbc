/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conditions (cond.h) evaluated on records as they are read: a system
 * call's sys_enter and sys_exit paired by thread, a task's waits
 * (waits.h), events and their filters.  Fed records in the order read,
 * decoded with libtraceevent against the recording's formats; says when
 * one holds and the record that made it hold.
 */
#ifndef KT_WATCH_H
#define KT_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "live/trigger/cond.h"

struct tep_handle;
struct tep_record;
struct kt_watch;

/*
 * conds[n] (kept, not copied) against tep's formats.  NULL + errno;
 * EINVAL with why (len bytes) saying which event or filter is bad.
 */
struct kt_watch *kt_watch_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n, char *why, size_t len);
void kt_watch_free(struct kt_watch *w);

/*
 * One record: 1 with *f filled when a condition held, 0 when none.  The
 * wait conditions (wakeup>, offcpu>) are said by kt_watch_next instead.
 */
int kt_watch_record(struct kt_watch *w, struct tep_record *rec, struct kt_fire *f);

/*
 * A wait condition that held (waits.h), once every CPU's records before
 * its end were given: now is the trace clock they all were read up to
 * (UINT64_MAX at the end).  1 with *f, 0 when none is left; call it
 * until 0 (one switch in may satisfy several conditions).
 */
int kt_watch_next(struct kt_watch *w, uint64_t now, struct kt_fire *f);

/*
 * A recording scoped to tasks (-F, -c, --pid): only the waits of the
 * threads of roots[n]'s processes count, and of the processes they fork
 * with children (waits.h).  0 or -ENOMEM.
 */
int kt_watch_scope(struct kt_watch *w, const pid_t *roots, int n, bool children);

#endif
