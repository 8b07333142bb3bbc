/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ktrace-channel.c gives the other files of ktrace.ko beyond the
 * channel API of ktrace.h: the channel's body for the engine's inline
 * reserve and commit, and the debugfs control-file helpers.
 */
#ifndef KTRACE_CHANNEL_H
#define KTRACE_CHANNEL_H

#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ring_buffer.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "compat.h"
#include "ktrace.h"

struct kt_root;
struct kt_gbuf;
struct kt_reader;

/* A channel; see ktrace-channel.c. */
struct ktrace_channel {
	struct kref ref;	/* the owner's and each open reader's */
	u32 flags;
	u32 buf_size;
	u32 buf_nr;
	bool running;
	struct mutex lock;	/* serializes state changes and readers */
	struct kt_root *root;
	struct dentry *dir;
	bool own_dir;
	struct trace_buffer *rb;
	struct kt_gbuf *gbuf;
	unsigned long __percpu *dropped;
	wait_queue_head_t wait;
	struct timer_list wake_timer;
	unsigned long tick;	/* wake_timer's runs: they pace blocked readers */
	long __percpu *wake_budget;	/* bytes left before a CPU's next kick */
	unsigned long wake_bytes;	/* a kick every so many, set at start */
	struct irq_work wake_work;	/* wakes the readers after a kick */
	int nr_readers;
	struct kt_reader *readers;
};

void kt_wake_kick(struct ktrace_channel *chan);

/*
 * After a commit of len bytes: when this CPU has committed wake_bytes
 * since its last kick, kick (see kt_wake_kick()).  The wake timer alone
 * let a flood fill the buffer between its ticks.  Counting down to zero
 * costs the probes 5 instructions a record (a per-CPU xadd and a sign
 * test), counting up to wake_bytes 7.
 */
static __always_inline void kt_wake_account(struct ktrace_channel *chan,
					    u32 len)
{
	if (unlikely(this_cpu_sub_return(*chan->wake_budget, len) < 0))
		kt_wake_kick(chan);
}

/*
 * The per-CPU case of ktrace_channel_reserve(), inline so the event
 * engine's probes pay no calls of ours around the ring buffer's.
 */
static __always_inline void *kt_rb_reserve(struct ktrace_channel *chan,
					   u32 len,
					   struct ring_buffer_event **evp)
{
	struct ring_buffer_event *ev;

	if (!READ_ONCE(chan->running))
		return NULL;
	ev = ring_buffer_lock_reserve(chan->rb, len);
	if (unlikely(!ev)) {
		/* Every record lost while running is counted. */
		this_cpu_inc(*chan->dropped);
		return NULL;
	}
	*evp = ev;
	/*
	 * ring_buffer_event_data(), inline: the reserved event may begin
	 * with an 8-byte time extend or absolute time stamp; a small
	 * record's data follows its header word, a large one's the length
	 * word after it.
	 */
	if (unlikely(ev->type_len >= RINGBUF_TYPE_TIME_EXTEND))
		ev = (void *)ev + 8;
	return ev->type_len ? (void *)&ev->array[0] : (void *)&ev->array[1];
}

/* ---- exports ---- */

DECLARE_STATIC_KEY_FALSE(kt_export_key);
/* Hand one record about to be committed to every registered export. */
void kt_export_call(const void *rec, u32 len);

/*
 * Commit a per-CPU record of len bytes at rec, exporting it first.  The
 * probes keep only the event pointer on their stack, not a whole
 * ktrace_wctx: the kernel's stack auto-initialization zeroes every
 * local, and each word costs a store per event.
 */
static __always_inline void kt_rb_commit_rec(struct ktrace_channel *chan,
					     struct ring_buffer_event *ev,
					     const void *rec, u32 len)
{
	if (static_branch_unlikely(&kt_export_key))
		kt_export_call(rec, len);
	kt_rb_commit(chan->rb, ev);
	kt_wake_account(chan, len);
}

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
