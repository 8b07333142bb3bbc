/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event engine (ktrace-events.c), set up by ktrace-main.c.  The
 * event table itself is events/ktrace-events.h.
 */
#ifndef KTRACE_EVENTS_H
#define KTRACE_EVENTS_H

#include <linux/types.h>

struct ktrace_channel;
struct dentry;
struct seq_file;
struct tracepoint;

int kt_events_init(struct ktrace_channel *chan, struct dentry *dir);
/* Detach every probe and wait until none runs any more. */
void kt_events_exit(void);
int kt_events_set_enabled(bool on);
bool kt_events_enabled(void);
/* Event groups the process tracer switches on and off as a whole. */
enum {
	KT_GRP_NONE,
	KT_GRP_LIFECYCLE,
	KT_GRP_SYSCALLS,
	KT_GRP_SIGNALS,
	KT_NR_GROUPS
};
int kt_events_set_group(int group, bool on);
bool kt_events_group(int group);
/* The kernel tracepoint called name, NULL if there is none. */
struct tracepoint *kt_find_tracepoint(const char *name);
/* Describe every event for the info file. */
void kt_events_show(struct seq_file *m);
/* An info line's first columns: name, format string, id, enabled. */
void kt_events_line(struct seq_file *m, const char *name, const char *print,
		    int id, bool enabled);
/* Is name one of the engine's events? */
bool kt_events_has(const char *name);
/* common_flags for a record written now. */
unsigned char kt_events_ctx_flags(void);
/* ftrace's common fields in a format file, and the blank line after. */
extern const char kt_common_fields[];

#endif /* KTRACE_EVENTS_H */
