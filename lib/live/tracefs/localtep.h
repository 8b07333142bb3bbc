/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tep for this machine's live events, built from tracefs files read
 * whole: the ring's page header first, then the formats a caller names.
 * tracefs_local_events() reads every format, kallsyms, printk formats
 * and saved cmdlines, each through a buffer grown a BUFSIZ at a time;
 * under ASan each step through 5 MB of kallsyms is a fresh mapping and
 * a copy (1.1 million page faults, 17 s where a fault costs 7 us), and a
 * probe that reads one event needs none of it.
 */
#ifndef KT_LOCALTEP_H
#define KT_LOCALTEP_H

#include <event-parse.h>

/* Host byte order, long and page size, the page header parsed; NULL: errno. */
struct tep_handle *kt_local_tep_new(void);
/* SYSTEM:EVENT's format from tracefs into tep: 0 or -errno. */
int kt_local_tep_add(struct tep_handle *tep, const char *system, const char *event);
/*
 * What tracefs_local_events_system() gives: the page header, every
 * event of the NULL-terminated systems (NULL: of every system), then
 * kallsyms, printk formats and saved cmdlines.  NULL: errno.
 */
struct tep_handle *kt_local_tep_systems(const char *const *systems);

#endif
