/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resolving a plain event name without the catalog.  Loading the catalog
 * reads every events/<system>/ directory, which makes eventfs build an
 * inode for each of thousands of events: tens of milliseconds a short
 * recording should not pay for "sched_switch".  This answers the common
 * exact cases with a few stat calls and leaves globs, typos and
 * ambiguities to kt_events_resolve() on the full catalog.
 */
#ifndef KT_EVLOOKUP_H
#define KT_EVLOOKUP_H

#include "live/events.h"

/*
 * Resolve spec ("sys:event", a bare unique event name or a classic
 * alias) into out.  Returns 1 when resolved, 0 when the catalog must
 * decide (glob, unknown, ambiguous, a system name), -errno on error.
 * Agrees with kt_events_resolve() whenever it returns 1.
 */
int kt_event_lookup(const char *tracing_dir, const char *spec,
		    struct kt_event_list *out);

/*
 * kt_events_resolve() for a user's spec, saying through kt_log() what
 * is wrong when it fails: "unknown event 'x'; did you mean ...?",
 * ambiguous names, ktrace.ko's events without the module.  0 or -errno.
 */
int kt_event_spec_resolve(const struct kt_catalog *cat, const char *spec,
			  struct kt_event_list *list);

#endif
