/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conditions (cond.h) evaluated on records as they are read: a system
 * call's sys_enter and sys_exit paired by thread; a task's wait from
 * its wakeup, or its block from its switch out, to its switch in.  Fed
 * records in the order read, decoded with libtraceevent against the
 * recording's formats; says when one holds and the record that made it
 * hold.
 *
 * The waits follow tasks across CPUs, and a CPU's records can come up
 * to a second after another's (a quiet CPU's page is read late): the
 * records they read are held until a second of newer ones was fed, and
 * then taken in time order (or once the trace clock is a second past
 * them, kt_watch_now()).  Their firings come out of kt_watch_next(),
 * after the record that released them; kt_watch_end() releases the rest.
 *
 * A switch the kernel dropped (this happens without a count) must not
 * make a wait seem long: a wait whose switch in was not seen is
 * forgotten when the task is seen running (an event of its own), as
 * analyze's runs rule has it (analyze/runs.h).
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
	uint64_t since;			/* what it measured began (sys_enter, the
					   wakeup, the switch out), or ts */
	char what[256];			/* the firing event, in words */
};

/*
 * conds[n] (kept, not copied) against tep's formats.  NULL + errno;
 * EINVAL with why (len bytes) saying which event or filter is bad.
 */
struct kt_watch *kt_watch_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n, char *why, size_t len);
void kt_watch_free(struct kt_watch *w);

/*
 * One record: 1 with *f filled when a condition held, 0 when none; the
 * waits' firings it released wait in kt_watch_next().
 */
int kt_watch_record(struct kt_watch *w, struct tep_record *rec, struct kt_fire *f);

/* The next firing of a wait: 1 with *f, 0 when there is none. */
int kt_watch_next(struct kt_watch *w, struct kt_fire *f);

/*
 * The trace clock reads now: the held records a second older are taken
 * (then kt_watch_next()), so a quiet recording does not hold a firing.
 */
void kt_watch_now(struct kt_watch *w, uint64_t now);

/* The end of the records: the held ones taken (then kt_watch_next()). */
void kt_watch_end(struct kt_watch *w);

#endif
