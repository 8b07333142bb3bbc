/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events of other modules (ktrace-modevents.c), for the event engine:
 * the API itself is in ktrace.h.
 */
#ifndef KTRACE_MODEVENTS_H
#define KTRACE_MODEVENTS_H

#include <linux/types.h>

struct ktrace_channel;
struct dentry;
struct seq_file;

/* They write into chan and have their directories in events. */
int kt_modev_init(struct ktrace_channel *chan, struct dentry *events);
/* At ktrace.ko's exit, when no module with events is left. */
void kt_modev_exit(void);
/* The engine's "enabled" switch: every event's static key follows. */
void kt_modev_set_enabled(bool on);
/* Their info lines. */
void kt_modev_show(struct seq_file *m);

#endif /* KTRACE_MODEVENTS_H */
