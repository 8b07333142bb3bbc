/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wait conditions (cond.h's wakeup>DUR and offcpu>DUR) on records as
 * they are read: each task's wait, from its wakeup or from the switch
 * that took it off a CPU asleep, to the switch that puts it back, in a
 * table by tid.  A wait that held is not said at once: records come CPU
 * by CPU, and one read later may prove the task ran inside it (a dropped
 * switch), so it is held until the reader has passed its end
 * (kt_waits_next).  Used by watch.c.
 */
#ifndef KT_WAITS_H
#define KT_WAITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "live/trigger/cond.h"

struct tep_handle;
struct tep_record;
struct kt_waits;

/*
 * The waits of conds[n] (kept) against tep's sched formats (ids and
 * field offsets looked up here, once).  NULL + errno (EINVAL: no
 * sched_switch in the formats).
 */
struct kt_waits *kt_waits_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n);
void kt_waits_free(struct kt_waits *ws);

/*
 * Count only the waits of the threads of roots[n]'s processes (and, with
 * children, of the processes they fork): a recording scoped to tasks
 * (-F, -c, --pid) sees other tasks' switches only where a traced task
 * is on one side, so their waits would be made up.  Looked up in /proc
 * once per thread, when one of its waits held.
 */
int kt_waits_scope(struct kt_waits *ws, const pid_t *roots, int n, bool children);

/* One record of type (its common_type), in the order read. */
void kt_waits_record(struct kt_waits *ws, int type, const struct tep_record *rec);

/*
 * A wait that held and ended before now (the trace clock every CPU's
 * records have been read up to; UINT64_MAX: all of them), the earliest
 * first, once per condition it satisfies: 1 with *f, 0 when none.
 */
int kt_waits_next(struct kt_waits *ws, uint64_t now, struct kt_fire *f);

#endif
