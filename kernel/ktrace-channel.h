/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ktrace-channel.c (the rings) and ktrace-chanfiles.c (their debugfs
 * files) give each other and the other files of ktrace.ko beyond the
 * channel API of ktrace.h: the channel's body for the engine's inline
 * reserve and commit, and the debugfs control-file helpers.
 */
#ifndef KTRACE_CHANNEL_H
#define KTRACE_CHANNEL_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/trace_clock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "compat.h"
#include "ktrace.h"
#include "ktrace-page.h"

struct kt_root;
struct kt_trace_file;

/* A buffer page, ftrace's: time stamp, then commit (a local_t there). */
struct kt_page {
	u64 time_stamp;
	long commit;
	unsigned char data[];
};

#define KT_PAGE_DATA	(PAGE_SIZE - offsetof(struct kt_page, data))

/* A global channel's buffer: a ring of pages all CPUs write under lock. */
struct kt_gbuf {
	raw_spinlock_t lock;
	unsigned int nr_pages;
	struct kt_page **pages;
	unsigned int *entries;	/* records in each page */
	unsigned int head;	/* oldest unread page */
	unsigned int tail;	/* page being written */
	u64 last_ts;
	u64 overrun;
	bool missed;		/* pages lost since the last read */
};

/* A reader of a channel: a CPU's ring, or a global channel's one. */
struct kt_reader {
	struct ktrace_channel *chan;
	int cpu;
	/* The file that maps this CPU's ring, under the channel's lock. */
	struct kt_trace_file *owner;
};

/*
 * One CPU's buffer of a per-CPU channel: a ring of pages only that CPU
 * writes, with its interrupts off, and readers on any CPU consume whole
 * pages of.  Page counters run on (page i is pages[i % nr_pages]): pages
 * in [head, tail) are complete, tail is the one being written.  See
 * "Per-CPU buffers" in ktrace-channel.c and kernel/README.md.
 */
struct kt_cbuf {
	/* The writer's, on its CPU with interrupts off. */
	struct kt_page *page;	/* pages[tail % nr_pages] */
	u32 limit;		/* KT_PAGE_DATA, or 0 for a fresh page */
	u32 busy;		/* a write is between reserve and commit */
	unsigned long irqflags;	/* the writer's, for its commit */
	u64 last_ts;
	long budget;		/* bytes left before the next wake kick */
	unsigned long nent;	/* records in the tail page */
	unsigned long tail;	/* published with release: pages begun */
	unsigned long written;	/* records in pages before tail */
	unsigned long overrun;	/* records overwritten (flight) */
	/* head moves on by cmpxchg: a reader's or a flight writer's. */
	unsigned long head ____cacheline_aligned_in_smp;
	/* The readers', under the channel's lock. */
	unsigned long read;	/* records read */
	unsigned long read_overrun;	/* overrun told in pages read */
	unsigned int nr_pages;
	int cpu;
	unsigned int *entries;	/* records in each complete page */
	struct kt_page *pages[];
};

/* A channel; see ktrace-channel.c. */
struct ktrace_channel {
	struct kref ref;	/* the owner's and each open reader's */
	u32 flags;
	u32 buf_size;
	u32 buf_nr;
	bool running;
	bool dead;		/* cleaned up: its files answer EIO */
	atomic_t nr_maps;	/* mappings of its pages: no resize */
	struct mutex lock;	/* serializes state changes and readers */
	/*
	 * Serializes mmap() with resize: mmap() holds the mm's lock, which
	 * a read() under lock may take in copy_to_user().
	 */
	struct mutex map_lock;
	struct kt_root *root;
	struct dentry *dir;
	bool own_dir;
	struct kt_cbuf * __percpu *cbuf;	/* per-CPU channels */
	unsigned long cbuf_size;	/* bytes per CPU, for CPUs coming up */
	struct hlist_node cpuhp;	/* allocates a CPU's buffer on bring-up */
	bool cpuhp_added;
	struct kt_gbuf *gbuf;		/* global channels */
	unsigned long __percpu *dropped;
	wait_queue_head_t wait;
	struct timer_list wake_timer;
	unsigned long tick;	/* wake_timer's runs: they pace blocked readers */
	long __percpu *wake_budget;	/* a global channel's, per CPU */
	unsigned long wake_bytes;	/* a kick every so many, set at start */
	struct irq_work wake_work;	/* wakes the readers after a kick */
	int nr_readers;
	struct kt_reader *readers;
};

void kt_wake_kick(struct ktrace_channel *chan);
void kt_cbuf_kick(struct ktrace_channel *chan, struct kt_cbuf *cb);

/*
 * After a commit of len bytes to a global channel: when this CPU has
 * committed wake_bytes since its last kick, kick (see kt_wake_kick()).
 * The wake timer alone let a flood fill the buffer between its ticks.
 */
static __always_inline void kt_wake_account(struct ktrace_channel *chan,
					    u32 len)
{
	if (unlikely(this_cpu_sub_return(*chan->wake_budget, len) < 0))
		kt_wake_kick(chan);
}

/* Bytes a record of len bytes takes in a page, header included. */
static __always_inline u32 kt_event_size(u32 len)
{
	if (!len)
		len = 1;
	if (len > KT_RB_MAX_SMALL)
		len += sizeof(u32);
	return ALIGN(len + KT_RB_HDR_SIZE, 4);
}

/*
 * Write the header of a record of len bytes (size from kt_event_size())
 * at the end of page with time delta (less than 2^27) and return where
 * its data goes.  The caller adds size to the page's commit.
 */
static __always_inline void *kt_page_put(struct kt_page *page, u32 len,
					 u32 size, u32 delta)
{
	u32 *hdr = (u32 *)(page->data + page->commit);

	/* The padding of the last word is part of the record: clean it. */
	if (len & 3 || !len)
		hdr[size / 4 - 1] = 0;
	if (len > KT_RB_MAX_SMALL || !len) {
		hdr[0] = delta << 5;
		hdr[1] = size - KT_RB_HDR_SIZE;
		return hdr + 2;
	}
	hdr[0] = (size - KT_RB_HDR_SIZE) / 4 | delta << 5;
	return hdr + 1;
}

void *kt_cbuf_reserve_slow(struct ktrace_channel *chan, struct kt_cbuf *cb,
			   u64 ts, u32 len, u32 size);

/*
 * Reserve len bytes in this CPU's buffer of a per-CPU channel, inline so
 * the engine's probes pay no call of ours on the way.  Interrupts stay
 * off until kt_rb_commit_rec(): nothing else writes this CPU's buffer
 * meanwhile but an NMI, which finds busy set and drops its record.  The
 * fast path: a record that fits the tail page within 2^27 ns of the
 * last.  *evp gets the record's header (for ktrace_wctx.event).
 */
static __always_inline void *kt_rb_reserve(struct ktrace_channel *chan,
					   u32 len,
					   struct ring_buffer_event **evp)
{
	u32 size = kt_event_size(len);
	struct kt_cbuf *cb;
	unsigned long flags;
	struct kt_page *page;
	void *data;
	u64 ts;

	/*
	 * A stopped channel costs its probes this load and branch only.
	 * The check with interrupts off below is the one that makes stop
	 * race-free (see ktrace_channel_cleanup()); this one only skips
	 * the rest early.
	 */
	if (unlikely(!READ_ONCE(chan->running)))
		return NULL;
	local_irq_save(flags);
	cb = this_cpu_read(*chan->cbuf);
	if (unlikely(!READ_ONCE(chan->running)))
		goto out;
	if (unlikely(!cb || cb->busy))
		goto drop;
	cb->busy = 1;
	barrier();		/* busy before the rest, for an NMI */
	cb->irqflags = flags;
	ts = trace_clock_local();
	page = cb->page;
	if (unlikely(page->commit + size > cb->limit ||
		     ts - cb->last_ts >= (1ULL << KT_RB_DELTA_BITS))) {
		data = kt_cbuf_reserve_slow(chan, cb, ts, len, size);
		if (unlikely(!data))
			goto unbusy;
	} else {
		data = kt_page_put(page, len, size, ts - cb->last_ts);
		page->commit += size;
		cb->last_ts = ts;
		cb->nent++;
	}
	*evp = data;
	return data;

unbusy:
	barrier();
	cb->busy = 0;
drop:
	/* Every record lost while running is counted. */
	this_cpu_inc(*chan->dropped);
out:
	local_irq_restore(flags);
	return NULL;
}

/* ---- exports ---- */

DECLARE_STATIC_KEY_FALSE(kt_export_key);
/* Hand one record about to be committed to every registered export. */
void kt_export_call(const void *rec, u32 len);

/*
 * Commit a per-CPU record of len bytes at rec, exporting it first, and
 * give the writer's interrupts back.  The probes keep only the event
 * pointer on their stack, not a whole ktrace_wctx: the kernel's stack
 * auto-initialization zeroes every local, and each word costs a store
 * per event.
 */
static __always_inline void kt_rb_commit_rec(struct ktrace_channel *chan,
					     struct ring_buffer_event *ev,
					     const void *rec, u32 len)
{
	struct kt_cbuf *cb = this_cpu_read(*chan->cbuf);
	unsigned long flags = cb->irqflags;

	if (static_branch_unlikely(&kt_export_key))
		kt_export_call(rec, len);
	cb->budget -= len;
	if (unlikely(cb->budget < 0))
		kt_cbuf_kick(chan, cb);
	barrier();		/* the record and irqflags before busy */
	cb->busy = 0;
	local_irq_restore(flags);
}

/* ---- the engine's buffer files ---- */

/* For the traceN files (ktrace-chanfiles.c); see each in ktrace-channel.c. */
bool kt_gbuf_read_page(struct kt_gbuf *g, struct kt_page *dst);
bool kt_cbuf_read_page(struct kt_reader *r, struct kt_page *dst);
bool kt_cbuf_empty(struct kt_cbuf *cb);
bool kt_cbuf_half(struct kt_cbuf *cb);
void kt_cbuf_flip_on(struct ktrace_channel *chan, struct kt_reader *r);
bool kt_chan_cpu_empty(struct ktrace_channel *chan, int cpu);
/* Drop a reference: the channel's owner's or an open traceN's. */
void kt_chan_put(struct ktrace_channel *chan);

/*
 * The channel's debugfs directory and files (ktrace-chanfiles.c):
 * made at setup, 0 or -errno; removed at cleanup.
 */
int kt_chan_files_create(struct ktrace_channel *chan, const char *root,
			 const char *name);
void kt_chan_files_remove(struct ktrace_channel *chan);

struct seq_file;

/* buffer_size_kb: a stopped per-CPU channel's buffers, emptied. */
int kt_chan_resize(struct ktrace_channel *chan, unsigned long size);
/* stats/cpuN: ftrace's per_cpu stats of one CPU's buffer. */
void kt_chan_stats(struct ktrace_channel *chan, int cpu, struct seq_file *m);

/* ---- control files ---- */

/*
 * Copy a control-file write of count bytes into buf as one word without
 * its trailing newline; -EINVAL for empty or oversized input.
 */
int kt_copy_word(char *buf, size_t size, const char __user *ubuf,
		 size_t count);

/*
 * DEFINE_DEBUGFS_ATTRIBUTE() with one change: a number too large for
 * u64 is garbage like any other, so writes fail with -EINVAL, not
 * -ERANGE.  Create the files with debugfs_create_file_unsafe().
 */
ssize_t kt_attr_write(struct file *file, const char __user *buf, size_t len,
		      loff_t *ppos);

#define KT_DEFINE_ATTRIBUTE(fops, get, set)				\
static int fops##_open(struct inode *inode, struct file *file)		\
{									\
	return simple_attr_open(inode, file, get, set, "%llu\n");	\
}									\
static const struct file_operations fops = {				\
	.owner = THIS_MODULE,						\
	.open = fops##_open,						\
	.release = simple_attr_release,					\
	.read = debugfs_attr_read,					\
	.write = kt_attr_write,						\
}

#endif /* KTRACE_CHANNEL_H */
