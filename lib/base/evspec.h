/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one resolver of event specs (-e, --stack, list's GLOB, top's
 * rows, report's selection of a recording's events), as perf's
 * parse-events.c is: one grammar, one suggestion routine, over a
 * catalog (base/catalog.h) of the running kernel or of a recording.
 *
 * The grammar:
 *   "system:event"   globs in either part; "system:" is the whole system
 *   "event"          a bare name: the preferred system's event of that
 *                    name (ktrace.ko's), else the one system's that has
 *                    it, else a classic alias (base/aliases.h), else a
 *                    system name, for all its events
 *   "*wakeup*"       a glob without a colon matches event names
 */
#ifndef KT_EVSPEC_H
#define KT_EVSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/catalog.h"

/* A bare name in several systems names all of them, not -EEXIST. */
#define KT_EVSPEC_EVERY_SYSTEM	0x1

/*
 * Resolve spec into events of cat, appended to out.  Returns the number
 * of catalog events it names (>= 1), -ENOENT when nothing matches,
 * -EEXIST when a bare name names events in several systems (unless
 * flags has KT_EVSPEC_EVERY_SYSTEM), -ENOMEM.
 */
int kt_evspec_resolve(const struct kt_catalog *cat, const char *spec,
		      unsigned int flags, struct kt_event_list *out);

/*
 * Fill buf with "'sys:a'", "'sys:a' or 'sys:b'" or up to three, naming
 * the events and classic aliases closest to spec.  0, or -ENOENT when
 * nothing is close enough to suggest (or spec is a glob: edit distance
 * to a glob suggests nonsense).
 */
int kt_evspec_suggest(const struct kt_catalog *cat, const char *spec,
		      char *buf, size_t len);

/* Whether spec has a glob character. */
bool kt_evspec_has_glob(const char *spec);

#endif
