/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event specs on the running kernel: its catalog (tracefs's events and
 * ktrace.ko's) for the one resolver (base/evspec.h), the exact names
 * answered without it, and what to say when a spec names nothing.
 */
#ifndef KT_EVENTS_H
#define KT_EVENTS_H

#include "base/catalog.h"
#include "base/evlist.h"
#include "base/evspec.h"
/* The catalog holds the events of the backend chosen there. */
#include "live/events/evhome.h"

/*
 * Every event under a tracing directory's events/ (NULL: the live one),
 * and ktrace.ko's while its events are in play, preferred for bare
 * names.  NULL + errno.
 */
struct kt_catalog *kt_catalog_load(const char *tracing_dir);
/*
 * Only one system's events (none if it does not exist): enough to
 * resolve "system:glob", not to suggest or to find bare names.
 */
struct kt_catalog *kt_catalog_load_system(const char *tracing_dir,
					  const char *system);

/*
 * Resolve spec ("sys:event", a bare unique event name or a classic
 * alias) into out without the catalog.  Loading the catalog reads every
 * events/<system>/ directory, which makes eventfs build an inode for
 * each of thousands of events: tens of milliseconds a short recording
 * should not pay for "sched_switch".  This answers the common exact
 * cases with a few stat calls.  Returns 1 when resolved, 0 when the
 * catalog must decide (glob, unknown, ambiguous, a system name), -errno
 * on error.  Agrees with kt_evspec_resolve() whenever it returns 1.
 */
int kt_event_lookup(const char *tracing_dir, const char *spec,
		    struct kt_event_list *out);

/*
 * kt_evspec_resolve() for a user's spec, saying through kt_log() what
 * is wrong when it fails: "unknown event 'x'; did you mean ...?",
 * ambiguous names, ktrace.ko's events without the module, a kernel
 * function named as an event.  0 or -errno.
 */
int kt_event_spec_resolve(const struct kt_catalog *cat, const char *spec,
			  unsigned int flags, struct kt_event_list *list);

#endif
