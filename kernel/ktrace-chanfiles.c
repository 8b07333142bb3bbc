// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs files of ktrace channels: their directories (a root shared
 * by the channels under it), the state, dropped and overrun control
 * files, and the traceN files that read a CPU's pages, by read() or
 * mapped (kernel/README.md, "Zero-copy reading").  The rings themselves
 * are in ktrace-channel.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "compat.h"
#include "ktrace.h"
#include "ktrace-channel.h"
#include "ktrace-page.h"
/*
 * Root directories are shared by the channels under them and removed
 * with the last one.
 */
struct kt_root {
	struct list_head list;
	char *name;
	struct dentry *dir;
	int refs;
};

static LIST_HEAD(kt_roots);
static DEFINE_MUTEX(kt_roots_lock);

static struct kt_root *kt_root_get(const char *name)
{
	struct kt_root *r;

	mutex_lock(&kt_roots_lock);
	list_for_each_entry(r, &kt_roots, list) {
		if (!strcmp(r->name, name)) {
			r->refs++;
			goto out;
		}
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		goto out;
	r->name = kstrdup(name, GFP_KERNEL);
	if (!r->name)
		goto err_free;
	r->dir = debugfs_create_dir(name, NULL);
	if (IS_ERR(r->dir))
		goto err_name;
	r->refs = 1;
	list_add(&r->list, &kt_roots);
	goto out;

err_name:
	kfree(r->name);
err_free:
	kfree(r);
	r = NULL;
out:
	mutex_unlock(&kt_roots_lock);
	return r;
}

static void kt_root_put(struct kt_root *r)
{
	mutex_lock(&kt_roots_lock);
	if (--r->refs == 0) {
		list_del(&r->list);
		debugfs_remove_recursive(r->dir);
		kfree(r->name);
		kfree(r);
	}
	mutex_unlock(&kt_roots_lock);
}

/* ---- helpers for the control files ---- */

int kt_copy_word(char *buf, size_t size, const char __user *ubuf,
		 size_t count)
{
	if (!count || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	/* One trailing newline, as echo writes it, is all we forgive. */
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	return buf[0] ? 0 : -EINVAL;
}

ssize_t kt_attr_write(struct file *file, const char __user *buf, size_t len,
		      loff_t *ppos)
{
	ssize_t ret = debugfs_attr_write(file, buf, len, ppos);

	return ret == -ERANGE ? -EINVAL : ret;
}

/* ---- debugfs files ---- */

static ssize_t kt_state_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct ktrace_channel *chan = file->private_data;
	const char *s = READ_ONCE(chan->running) ? KTRACE_STATE_RUNNING "\n" :
						   KTRACE_STATE_STOPPED "\n";

	return simple_read_from_buffer(ubuf, count, ppos, s, strlen(s));
}

static ssize_t kt_state_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct ktrace_channel *chan = file->private_data;
	char buf[16];
	int ret;

	ret = kt_copy_word(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (!strcmp(buf, KTRACE_CMD_START))
		ret = ktrace_channel_start(chan);
	else if (!strcmp(buf, KTRACE_CMD_STOP))
		ret = ktrace_channel_stop(chan);
	else
		ret = -EINVAL;
	return ret ? ret : count;
}

static const struct file_operations kt_state_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kt_state_read,
	.write = kt_state_write,
	.llseek = default_llseek,
};

static int kt_dropped_get(void *data, u64 *val)
{
	*val = ktrace_channel_dropped(data);
	return 0;
}

static int kt_overrun_get(void *data, u64 *val)
{
	*val = ktrace_channel_overrun(data);
	return 0;
}

KT_DEFINE_ATTRIBUTE(kt_dropped_fops, kt_dropped_get, NULL);
KT_DEFINE_ATTRIBUTE(kt_overrun_fops, kt_overrun_get, NULL);

/*
 * A traceN reader: the page it copies the oldest one into, and for a
 * mapped reader (kernel/README.md, "Zero-copy reading") the ring its
 * positions are of and where it stands in it.
 */
struct kt_trace_file {
	struct kt_reader *r;
	struct kt_page *copy;
	unsigned long tick;	/* chan->tick at this reader's last read */
	struct kt_cbuf *cb;	/* the ring start counts in */
	unsigned long start;	/* the page after its last PUT_CONSUMED */
};

/*
 * Whether a blocking read or poll() goes ahead: the channel stopped, or
 * half a page waits, or some data does and the wake timer ran since this
 * reader's last read.  Without the timer's pace a reader of a
 * system-wide trace would read the events of its own read()s, a page
 * for a handful of records, for as long as it kept the CPU (dbench 8
 * under sched and syscall events: 229 000 reads a run instead of
 * 23 000, 10% of the throughput; BENCHMARKS.md "## module").
 */
static bool kt_trace_ready(struct kt_trace_file *tf)
{
	struct ktrace_channel *chan = tf->r->chan;
	int cpu = tf->r->cpu;

	if (!READ_ONCE(chan->running))
		return true;
	if (chan->cbuf) {
		if (kt_cbuf_half(*per_cpu_ptr(chan->cbuf, cpu)))
			return true;
	} else if (READ_ONCE(chan->gbuf->head) != READ_ONCE(chan->gbuf->tail)) {
		return true;	/* a whole page */
	}
	return tf->tick != READ_ONCE(chan->tick) &&
	       !kt_chan_cpu_empty(chan, cpu);
}

static int kt_trace_open(struct inode *inode, struct file *file)
{
	struct kt_reader *r = inode->i_private;
	struct kt_trace_file *tf;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL);
	if (!tf)
		return -ENOMEM;
	tf->copy = (struct kt_page *)get_zeroed_page(GFP_KERNEL);
	if (!tf->copy) {
		kfree(tf);
		return -ENOMEM;
	}
	tf->r = r;
	kref_get(&r->chan->ref);
	file->private_data = tf;
	return nonseekable_open(inode, file);
}

static int kt_trace_release(struct inode *inode, struct file *file)
{
	struct kt_trace_file *tf = file->private_data;
	struct ktrace_channel *chan = tf->r->chan;

	/* After the last munmap(): a mapping holds its file. */
	cmpxchg(&tf->r->owner, tf, NULL);
	free_page((unsigned long)tf->copy);
	kt_chan_put(chan);
	kfree(tf);
	return 0;
}

/*
 * Whether tf may read its CPU's ring: not while another file maps it or
 * reads it by ioctl, nor once the channel is gone.
 */
static int kt_trace_usable(struct kt_trace_file *tf)
{
	struct kt_trace_file *owner = READ_ONCE(tf->r->owner);

	if (READ_ONCE(tf->r->chan->dead))
		return -EIO;
	return owner && owner != tf ? -EBUSY : 0;
}

/* Make tf the mapped reader of its CPU's ring, until it is released. */
static int kt_trace_claim(struct kt_trace_file *tf)
{
	struct kt_trace_file *owner;

	if (READ_ONCE(tf->r->chan->dead))
		return -EIO;
	owner = cmpxchg(&tf->r->owner, NULL, tf);
	return owner && owner != tf ? -EBUSY : 0;
}

/* Fill the reader's page with the oldest data; -EAGAIN when none. */
static int kt_trace_fill(struct kt_trace_file *tf, void **page)
{
	struct ktrace_channel *chan = tf->r->chan;
	bool ok;

	if (chan->gbuf)
		ok = kt_gbuf_read_page(chan->gbuf, tf->copy);
	else
		ok = kt_cbuf_read_page(tf->r, tf->copy);
	if (!ok)
		return -EAGAIN;
	*page = tf->copy;
	return 0;
}

/*
 * One whole page per read, exactly as ftrace's trace_pipe_raw gives it:
 * the page header, the records, zeroes up to PAGE_SIZE.  A blocking read
 * waits until kt_trace_ready(); once the channel is stopped and drained
 * it returns 0.  A non-blocking read takes whatever there is.
 */
static ssize_t kt_trace_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kt_trace_file *tf = file->private_data;
	struct ktrace_channel *chan = tf->r->chan;
	void *page;
	int ret;

	if (count < PAGE_SIZE)
		return -EINVAL;
	for (;;) {
		if ((file->f_flags & O_NONBLOCK) || kt_trace_ready(tf)) {
			mutex_lock(&chan->lock);
			ret = kt_trace_usable(tf);
			if (ret) {
				mutex_unlock(&chan->lock);
				return ret;
			}
			/* Before the fill: a tick during it allows another. */
			tf->tick = READ_ONCE(chan->tick);
			ret = kt_trace_fill(tf, &page);
			if (!ret) {
				ret = copy_to_user(ubuf, page, PAGE_SIZE) ?
					-EFAULT : 0;
				mutex_unlock(&chan->lock);
				return ret ? ret : PAGE_SIZE;
			}
			mutex_unlock(&chan->lock);
			if (!READ_ONCE(chan->running))
				return 0;
			if (file->f_flags & O_NONBLOCK)
				return -EAGAIN;
		}
		ret = wait_event_interruptible(chan->wait, kt_trace_ready(tf));
		if (ret)
			return ret;
	}
}

static __poll_t kt_trace_poll(struct file *file, poll_table *wait)
{
	struct kt_trace_file *tf = file->private_data;
	struct ktrace_channel *chan = tf->r->chan;

	poll_wait(file, &chan->wait, wait);
	if (READ_ONCE(chan->dead))
		return EPOLLERR | EPOLLHUP;
	if (kt_trace_ready(tf))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/* ---- zero-copy reading: kernel/README.md, "Zero-copy reading" ---- */

/*
 * GET_PRODUCED: where the reader stands and how far the pages are
 * complete.  The reader's position is head, its own since its last
 * PUT_CONSUMED unless a flight writer took pages since.
 */
static void kt_cbuf_get(struct kt_trace_file *tf, struct kt_cbuf *cb,
			struct ktrace_buf_pos *pos)
{
	unsigned long h = READ_ONCE(cb->head);

	/* A new reader, or a ring resized while unmapped. */
	if (tf->cb != cb) {
		tf->cb = cb;
		tf->start = h;
	}
	pos->consumed = h;
	/* Acquire: pages before tail are complete. */
	pos->produced = smp_load_acquire(&cb->tail);
}

/*
 * PUT_CONSUMED: give pages [start, pos->consumed) back to the writer,
 * accounting their records as read as kt_cbuf_read_page() does.  A
 * flight writer may have taken some meanwhile (head moved past start):
 * their records are its overrun, and valid tells the reader to throw
 * away what it read of them.  The cmpxchg succeeds only if head was
 * still at h, so no page from h on was written while the reader read
 * it, and entries[] of those pages were read stable before it.
 */
static int kt_cbuf_put(struct kt_trace_file *tf, struct kt_cbuf *cb,
		       struct ktrace_buf_pos *pos)
{
	unsigned long p = pos->consumed, h, t, i, e, missed;

	if (tf->cb != cb)
		return -ESTALE;
	/* Acquire: entries[] of pages before tail are written. */
	t = smp_load_acquire(&cb->tail);
	if (p - tf->start > t - tf->start)
		return -EINVAL;
	for (;;) {
		h = READ_ONCE(cb->head);
		e = 0;
		if (h - tf->start >= p - tf->start) {
			h = p;	/* the writer took them all */
			break;
		}
		for (i = h; i != p; i++)
			e += READ_ONCE(cb->entries[i % cb->nr_pages]);
		/* Full barrier: the reader's reads are done before. */
		if (cmpxchg(&cb->head, h, p) == h)
			break;
	}
	cb->read += e;
	missed = READ_ONCE(cb->overrun) - cb->read_overrun;
	cb->read_overrun += missed;
	tf->start = p;
	pos->valid = h;
	pos->missed = missed;
	pos->produced = t;
	return 0;
}

static long kt_trace_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct kt_trace_file *tf = file->private_data;
	struct ktrace_channel *chan = tf->r->chan;
	void __user *up = (void __user *)arg;
	struct ktrace_buf_pos pos = {};
	struct kt_cbuf *cb;
	int ret;

	if (!chan->cbuf || (cmd != KTRACE_BUF_GET_PRODUCED &&
			    cmd != KTRACE_BUF_PUT_CONSUMED &&
			    cmd != KTRACE_BUF_FLUSH))
		return -ENOTTY;
	if (cmd == KTRACE_BUF_PUT_CONSUMED &&
	    copy_from_user(&pos, up, sizeof(pos)))
		return -EFAULT;
	mutex_lock(&chan->lock);
	ret = kt_trace_claim(tf);
	if (ret)
		goto out;
	/* Stopped before the positions: what they show is then all. */
	if (!READ_ONCE(chan->running))
		pos.flags |= KTRACE_BUF_STOPPED;
	tf->tick = READ_ONCE(chan->tick);
	cb = *per_cpu_ptr(chan->cbuf, tf->r->cpu);
	if (!cb) {
		/* A CPU never up: nothing to map, nothing to read. */
		pos.consumed = pos.produced = pos.valid = 0;
		goto out;
	}
	pos.nr_pages = cb->nr_pages;
	if (cmd == KTRACE_BUF_GET_PRODUCED)
		kt_cbuf_get(tf, cb, &pos);
	else if (cmd == KTRACE_BUF_PUT_CONSUMED)
		ret = kt_cbuf_put(tf, cb, &pos);
	else if (!kt_cbuf_empty(cb))
		kt_cbuf_flip_on(chan, tf->r);	/* closes only a lone tail */
out:
	mutex_unlock(&chan->lock);
	if (!ret && cmd != KTRACE_BUF_FLUSH &&
	    copy_to_user(up, &pos, sizeof(pos)))
		ret = -EFAULT;
	return ret;
}

/*
 * A mapping holds its file, and so the channel and (through the file's
 * fops) ktrace.ko; vm_insert_page() holds each page.  The count only
 * keeps a resize from swapping the ring under a reader.
 */
static void kt_trace_vm_open(struct vm_area_struct *vma)
{
	struct ktrace_channel *chan = vma->vm_private_data;

	atomic_inc(&chan->nr_maps);
}

static void kt_trace_vm_close(struct vm_area_struct *vma)
{
	struct ktrace_channel *chan = vma->vm_private_data;

	atomic_dec(&chan->nr_maps);
}

static const struct vm_operations_struct kt_trace_vm_ops = {
	.open = kt_trace_vm_open,
	.close = kt_trace_vm_close,
};

/* CPU N's ring, read-only, in ring order from offset 0. */
static int kt_trace_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kt_trace_file *tf = file->private_data;
	struct ktrace_channel *chan = tf->r->chan;
	unsigned long i, n = vma_pages(vma);
	struct kt_cbuf *cb;
	int ret;

	if (!chan->cbuf)
		return -ENODEV;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_pgoff)
		return -EINVAL;
	mutex_lock(&chan->map_lock);
	ret = kt_trace_claim(tf);
	if (ret)
		goto out;
	cb = *per_cpu_ptr(chan->cbuf, tf->r->cpu);
	ret = -ENODEV;
	if (!cb)
		goto out;
	ret = -EINVAL;
	if (n > cb->nr_pages)
		goto out;
	kt_vm_flags_clear(vma, VM_MAYWRITE);
	kt_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < n; i++) {
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     virt_to_page(cb->pages[i]));
		if (ret)
			goto out;
	}
	vma->vm_private_data = chan;
	vma->vm_ops = &kt_trace_vm_ops;
	atomic_inc(&chan->nr_maps);
out:
	mutex_unlock(&chan->map_lock);
	return ret;
}

/*
 * Created unsafe (debugfs_create_file_unsafe()): debugfs's full proxy
 * has no mmap.  Nothing here needs the proxy: an open file holds the
 * channel (kref) and ktrace.ko (fops owner), and chan->dead makes the
 * operations fail once the channel is cleaned up, as the proxy did.
 */
static const struct file_operations kt_trace_fops = {
	.owner = THIS_MODULE,
	.open = kt_trace_open,
	.release = kt_trace_release,
	.read = kt_trace_read,
	.poll = kt_trace_poll,
	.unlocked_ioctl = kt_trace_ioctl,
	.mmap = kt_trace_mmap,
};

static int kt_chan_create_files(struct ktrace_channel *chan)
{
	char name[32];
	int i;

	if (!(chan->flags & KTRACE_DISABLE_STATE))
		debugfs_create_file(KTRACE_FILE_STATE, 0600, chan->dir, chan,
				    &kt_state_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_DROPPED, 0400, chan->dir, chan,
				   &kt_dropped_fops);
	if (chan->flags & KTRACE_FLIGHT_CHANNEL)
		debugfs_create_file_unsafe(KTRACE_FILE_OVERRUN, 0400, chan->dir,
					   chan, &kt_overrun_fops);
	for (i = 0; i < chan->nr_readers; i++) {
		snprintf(name, sizeof(name), KTRACE_FILE_TRACE_PREFIX "%d",
			 chan->readers[i].cpu);
		debugfs_create_file_unsafe(name, 0400, chan->dir,
					   &chan->readers[i], &kt_trace_fops);
	}
	return 0;
}

/*
 * The channel's directory (name under the root directory root, or root
 * itself) and its files.  0 or -errno (-EEXIST for a name already taken).
 */
int kt_chan_files_create(struct ktrace_channel *chan, const char *root,
			 const char *name)
{
	int err;

	chan->root = kt_root_get(root);
	if (!chan->root)
		return -ENOMEM;
	if (name) {
		chan->dir = debugfs_create_dir(name, chan->root->dir);
		if (IS_ERR(chan->dir)) {
			/* -EEXIST for a name already taken. */
			err = PTR_ERR(chan->dir);
			goto err_root;
		}
		chan->own_dir = true;
	} else {
		chan->dir = chan->root->dir;
	}
	kt_chan_create_files(chan);
	return 0;

err_root:
	kt_root_put(chan->root);
	return err;
}

void kt_chan_files_remove(struct ktrace_channel *chan)
{
	if (chan->own_dir)
		debugfs_remove_recursive(chan->dir);
	kt_root_put(chan->root);
}
