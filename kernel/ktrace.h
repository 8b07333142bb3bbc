/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace channels: named trace buffers in debugfs that any module can
 * write compact records into.  A channel lives in <root>/<name>/ (or in
 * <root>/ when name is NULL) with one traceN file per possible CPU (one
 * trace0 for a global channel) that hands out whole pages in the ftrace
 * ring-buffer page format, so trace-cmd's tools decode them.
 */
#ifndef KTRACE_H
#define KTRACE_H

#include <linux/types.h>
#include "ktrace-abi.h"

struct ktrace_channel;
struct dentry;
struct ring_buffer_event;

/* Writer state between reserve and commit; lives on the writer's stack. */
struct ktrace_wctx {
	struct ring_buffer_event *event;
	unsigned long irqflags;
	void *rec;		/* the reserved record, for exports */
	u32 len;
};

/*
 * Create a stopped channel of buf_size * buf_nr bytes per CPU (in all for
 * a global one).  Returns an ERR_PTR(): -EINVAL for bad arguments,
 * -EEXIST when <root>/<name> is taken, -ENOMEM.
 */
struct ktrace_channel *ktrace_channel_setup(const char *root,
					    const char *name, u32 buf_size,
					    u32 buf_nr, u32 flags);
int ktrace_channel_start(struct ktrace_channel *chan);
int ktrace_channel_stop(struct ktrace_channel *chan);
void ktrace_channel_cleanup(struct ktrace_channel *chan);

/*
 * Reserve len bytes for one record; NULL when the channel is stopped or
 * the record cannot be stored (counted in "dropped" while running).
 * Every non-NULL reserve must be followed by ktrace_channel_commit() in
 * the same context; interrupts stay off in between.  Never sleeps;
 * callable from any context.
 */
void *ktrace_channel_reserve(struct ktrace_channel *chan, u32 len,
			     struct ktrace_wctx *w);
void ktrace_channel_commit(struct ktrace_channel *chan,
			   struct ktrace_wctx *w);
/* Reserve, copy and commit in one call. */
int ktrace_channel_write(struct ktrace_channel *chan, const void *data,
			 u32 len);

/* The channel's directory, for callers that add files of their own. */
struct dentry *ktrace_channel_dir(struct ktrace_channel *chan);
bool ktrace_channel_running(struct ktrace_channel *chan);
u64 ktrace_channel_dropped(struct ktrace_channel *chan);
u64 ktrace_channel_overrun(struct ktrace_channel *chan);
/* Discard every stored record and zero the counters. */
void ktrace_channel_reset(struct ktrace_channel *chan);
/* NULL: channels write buffers of their own, not the kernel's ring buffer. */
struct trace_buffer *ktrace_channel_buffer(struct ktrace_channel *chan);

/*
 * Exports: every record committed to any ktrace channel is also handed
 * to each registered export's write(), with a time stamp and the whole
 * record (common header and payload).  The stamp is a trace_clock_local()
 * read as the record is committed: the clock the channels' buffers use,
 * but a read of its own, so it trails the stored record's stamp by the
 * few ns between the two (the ring buffer does not hand its stamp to
 * modules).  Records the buffer dropped are not exported.  write() runs in the context of the
 * event, which may be NMI: it must not sleep or take locks an
 * interrupted context could hold.
 */
struct ktrace_export {
	struct ktrace_export __rcu *next;
	void (*write)(struct ktrace_export *e, u64 ts, const void *rec,
		      unsigned int len);
};

/* -EINVAL without a write callback, -EEXIST when already registered. */
int ktrace_register_export(struct ktrace_export *e);
/*
 * Returns once no call of e->write() is running or can start; -ENOENT
 * when e was not registered.
 */
int ktrace_unregister_export(struct ktrace_export *e);

#endif /* KTRACE_H */
