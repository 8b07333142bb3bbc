/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the files of ktrace.ko, not exported. */
#ifndef KTRACE_INTERNAL_H
#define KTRACE_INTERNAL_H

#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ring_buffer.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>

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
	int nr_readers;
	struct kt_reader *readers;
};

/*
 * The per-CPU case of ktrace_channel_reserve(), inline so the event
 * engine's probes pay no calls of ours around the ring buffer's.
 */
static __always_inline void *kt_rb_reserve(struct ktrace_channel *chan,
					   u32 len, struct ktrace_wctx *w)
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
	w->event = ev;
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
