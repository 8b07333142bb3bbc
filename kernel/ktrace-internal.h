/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the files of ktrace.ko, not exported. */
#ifndef KTRACE_INTERNAL_H
#define KTRACE_INTERNAL_H

#include <linux/types.h>
#include <linux/compiler.h>

/*
 * Copy a control-file write of count bytes into buf as one word without
 * its trailing newline; -EINVAL for empty or oversized input.
 */
int kt_copy_word(char *buf, size_t size, const char __user *ubuf,
		 size_t count);
/* Parse a decimal control-file write; -EINVAL for anything else. */
int kt_parse_u64(const char __user *ubuf, size_t count, u64 *val);
ssize_t kt_read_u64(char __user *ubuf, size_t count, loff_t *ppos, u64 val);

/* The event engine (ktrace-events.c), set up by ktrace-main.c. */
struct ktrace_channel;
struct dentry;
int kt_events_init(struct ktrace_channel *chan, struct dentry *dir);
/* Detach every probe and wait until none runs any more. */
void kt_events_exit(void);
int kt_events_set_enabled(bool on);
bool kt_events_enabled(void);
/* Describe every event for the info file. */
struct seq_file;
void kt_events_show(struct seq_file *m);

#endif /* KTRACE_INTERNAL_H */
