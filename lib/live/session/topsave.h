/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top-level buffer's settings, saved before a recording borrows the
 * top level (a function tracer the kernel does not run in instances)
 * and put back as found after it, on every path that frees it.  Its
 * buffer's contents cannot be put back: the recording clears and reads
 * them.
 */
#ifndef KT_TOPSAVE_H
#define KT_TOPSAVE_H

#include "live/events/events.h"

struct kt_topsave;

/* Save the files a recording sets and events' switches/filters.  NULL + errno. */
struct kt_topsave *kt_topsave_new(const struct kt_event_list *events);
/* Put every saved file and event back; 0, or the first -errno (said). */
int kt_topsave_restore(struct kt_topsave *ts);
void kt_topsave_free(struct kt_topsave *ts);

#endif
