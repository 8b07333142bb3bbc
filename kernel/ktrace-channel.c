// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace channels: per-CPU ones on a page ring per CPU that only its CPU
 * writes, global ones on a page ring all CPUs write under a lock, both in
 * ftrace's page format.  The debugfs files that control and read them
 * are in ktrace-chanfiles.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/trace_clock.h>
#include <linux/wait.h>

#include "compat.h"
#include "ktrace.h"
#include "ktrace-channel.h"
#include "ktrace-page.h"

/*
 * Readers are woken from an irq_work when a CPU has written this share of
 * its buffer since its last kick (kt_wake_kick()), and from a timer for
 * the rest; never from a writer.
 */
#define KT_WAKE_PERCENT		10
#define KT_WAKE_INTERVAL	(HZ / 20)

/* ---- pages ---- */

/* A time extend record of delta (2^27 ns or more) at the end of page. */
static void kt_page_put_extend(struct kt_page *page, u64 delta)
{
	u32 *hdr = (u32 *)(page->data + page->commit);

	hdr[0] = KT_RB_TYPE_TIME_EXTEND |
		 (u32)(delta & ((1U << KT_RB_DELTA_BITS) - 1)) << 5;
	hdr[1] = delta >> KT_RB_DELTA_BITS;
	page->commit += 8;
}

/*
 * Copy src to dst as a reader gets it: header, len bytes of records,
 * zeroes to the end.  A len past the page (a page a flight writer is
 * overwriting under a reader, who will throw the copy away) is cut.
 */
static void kt_page_copy(struct kt_page *dst, const struct kt_page *src,
			 unsigned long len)
{
	len = min_t(unsigned long, len, KT_PAGE_DATA);
	memcpy(dst, src, offsetof(struct kt_page, data) + len);
	dst->commit = len;
	memset(dst->data + len, 0, KT_PAGE_DATA - len);
}

/* ---- the global channel's page array ---- */

static struct kt_gbuf *kt_gbuf_alloc(unsigned long size)
{
	struct kt_gbuf *g;
	unsigned int i;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return NULL;
	raw_spin_lock_init(&g->lock);
	g->nr_pages = max_t(unsigned long, DIV_ROUND_UP(size, PAGE_SIZE), 2);
	g->pages = kcalloc(g->nr_pages, sizeof(*g->pages), GFP_KERNEL);
	g->entries = kcalloc(g->nr_pages, sizeof(*g->entries), GFP_KERNEL);
	if (!g->pages || !g->entries)
		goto err;
	for (i = 0; i < g->nr_pages; i++) {
		g->pages[i] = (struct kt_page *)get_zeroed_page(GFP_KERNEL);
		if (!g->pages[i])
			goto err;
	}
	return g;
err:
	for (i = 0; g->pages && i < g->nr_pages; i++)
		free_page((unsigned long)g->pages[i]);
	kfree(g->pages);
	kfree(g->entries);
	kfree(g);
	return NULL;
}

static void kt_gbuf_free(struct kt_gbuf *g)
{
	unsigned int i;

	for (i = 0; i < g->nr_pages; i++)
		free_page((unsigned long)g->pages[i]);
	kfree(g->pages);
	kfree(g->entries);
	kfree(g);
}

static void kt_gbuf_reset(struct kt_gbuf *g)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&g->lock, flags);
	g->head = 0;
	g->tail = 0;
	g->pages[0]->commit = 0;
	g->entries[0] = 0;
	g->overrun = 0;
	g->missed = false;
	raw_spin_unlock_irqrestore(&g->lock, flags);
}

/*
 * Make the tail page able to take need bytes, moving to the next page
 * when it cannot; in a flight channel the oldest page gives way.  Called
 * with the lock held.  Returns false when the record must be dropped.
 */
static bool kt_gbuf_make_room(struct kt_gbuf *g, u32 need, bool flight)
{
	struct kt_page *tail = g->pages[g->tail];
	unsigned int next;

	if (tail->commit + need <= KT_PAGE_DATA)
		return true;
	if (need > KT_PAGE_DATA)
		return false;
	next = (g->tail + 1) % g->nr_pages;
	if (next == g->head) {
		if (!flight)
			return false;
		g->overrun += g->entries[g->head];
		g->head = (g->head + 1) % g->nr_pages;
		g->missed = true;
	}
	g->tail = next;
	g->pages[next]->commit = 0;
	g->entries[next] = 0;
	return true;
}

/* Reserve len bytes in the global buffer; returns with the lock held. */
static void *kt_gbuf_reserve(struct ktrace_channel *chan, u32 len,
			     struct ktrace_wctx *w)
{
	struct kt_gbuf *g = chan->gbuf;
	u32 size = kt_event_size(len);
	struct kt_page *page;
	void *data;
	u64 ts, delta;
	bool extend;

	/* An NMI may have interrupted a writer on this CPU: do not spin. */
	if (in_nmi())
		return NULL;
	raw_spin_lock_irqsave(&g->lock, w->irqflags);
	ts = trace_clock_local();
	/* Local clocks of different CPUs may disagree slightly. */
	if (ts < g->last_ts)
		ts = g->last_ts;
	page = g->pages[g->tail];
	delta = page->commit ? ts - g->last_ts : 0;
	extend = delta >= (1ULL << KT_RB_DELTA_BITS);
	if (!kt_gbuf_make_room(g, size + (extend ? 8 : 0),
			       chan->flags & KTRACE_FLIGHT_CHANNEL))
		goto err_unlock;
	if (page != g->pages[g->tail]) {
		page = g->pages[g->tail];
		delta = 0;
		extend = false;
	}
	if (!page->commit)
		page->time_stamp = ts;
	g->last_ts = ts;
	if (extend) {
		kt_page_put_extend(page, delta);
		delta = 0;
	}
	w->event = (struct ring_buffer_event *)(page->data + page->commit);
	data = kt_page_put(page, len, size, delta);
	page->commit += size;
	g->entries[g->tail]++;
	return data;

err_unlock:
	raw_spin_unlock_irqrestore(&g->lock, w->irqflags);
	return NULL;
}

static void kt_gbuf_commit(struct ktrace_channel *chan, struct ktrace_wctx *w)
{
	raw_spin_unlock_irqrestore(&chan->gbuf->lock, w->irqflags);
}

static bool kt_gbuf_empty(struct kt_gbuf *g)
{
	return g->head == g->tail && !READ_ONCE(g->pages[g->tail]->commit);
}

/* Copy the oldest page out to dst; returns false when there is none. */
bool kt_gbuf_read_page(struct kt_gbuf *g, struct kt_page *dst)
{
	struct kt_page *src;
	unsigned long flags;
	bool ok = true;

	raw_spin_lock_irqsave(&g->lock, flags);
	src = g->pages[g->head];
	if (g->head == g->tail && !src->commit) {
		ok = false;
		goto out;
	}
	kt_page_copy(dst, src, src->commit);
	if (g->missed)
		dst->commit |= KT_RB_MISSED_EVENTS;
	g->missed = false;
	if (g->head == g->tail) {
		/* The page being written: take what is there and start over. */
		src->commit = 0;
		g->entries[g->head] = 0;
	} else {
		g->head = (g->head + 1) % g->nr_pages;
	}
out:
	raw_spin_unlock_irqrestore(&g->lock, flags);
	return ok;
}

/* ---- per-CPU buffers ---- */

/*
 * Each CPU's buffer of a per-CPU channel is a ring of pages that only
 * its CPU writes, interrupts off from reserve to commit (kt_rb_reserve(),
 * kt_rb_commit_rec()); the reasoning is in kernel/README.md, "Per-CPU
 * buffers".  Pages in [head, tail) are complete and belong to the
 * readers, the tail page to the writer.  A reader copies the head page
 * out and then moves head on by cmpxchg; a flight writer that needs a
 * page takes the head one by cmpxchg too, so a reader whose cmpxchg
 * fails copied a page being overwritten and throws it away.  A reader
 * that wants the tail page has its CPU close it (kt_cbuf_flip()).
 */

static unsigned int kt_cbuf_pages(unsigned long size)
{
	/* As the ring buffer: its pages, at least two, and the reader's. */
	return max_t(unsigned long, DIV_ROUND_UP(size, KT_PAGE_DATA), 2) + 1;
}

static void kt_cbuf_free(struct kt_cbuf *cb)
{
	unsigned int i;

	if (!cb)
		return;
	for (i = 0; i < cb->nr_pages; i++)
		free_page((unsigned long)cb->pages[i]);
	kfree(cb->entries);
	kfree(cb);
}

static struct kt_cbuf *kt_cbuf_alloc(struct ktrace_channel *chan, int cpu)
{
	unsigned int i, nr = kt_cbuf_pages(chan->cbuf_size);
	int node = cpu_to_node(cpu);
	struct kt_cbuf *cb;
	struct page *p;

	cb = kzalloc_node(struct_size(cb, pages, nr), GFP_KERNEL, node);
	if (!cb)
		return NULL;
	cb->cpu = cpu;
	cb->entries = kcalloc_node(nr, sizeof(*cb->entries), GFP_KERNEL,
				   node);
	if (!cb->entries)
		goto err;
	for (i = 0; i < nr; i++) {
		p = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
		if (!p)
			goto err;
		cb->pages[i] = page_address(p);
		cb->nr_pages = i + 1;
	}
	cb->page = cb->pages[0];
	cb->budget = READ_ONCE(chan->wake_bytes);
	return cb;
err:
	kt_cbuf_free(cb);
	return NULL;
}

/*
 * Move the writer on to a fresh page, closing the tail one.  In a flight
 * channel the oldest page gives way when there is no other; else false.
 * On the buffer's CPU with interrupts off and busy set.
 */
static bool kt_cbuf_next(struct ktrace_channel *chan, struct kt_cbuf *cb)
{
	unsigned long t = cb->tail, h;
	unsigned int e;

	for (;;) {
		/* Acquire: the reader is done with every page before head. */
		h = smp_load_acquire(&cb->head);
		if (t + 1 - h < cb->nr_pages)
			break;
		if (!(chan->flags & KTRACE_FLIGHT_CHANNEL))
			return false;
		e = cb->entries[h % cb->nr_pages];
		if (cmpxchg(&cb->head, h, h + 1) == h) {
			WRITE_ONCE(cb->overrun, cb->overrun + e);
			break;
		}
	}
	/*
	 * The rest of the page zeroed: a mapped reader then writes whole
	 * pages as they lie, as read() gives them.  Mostly a few bytes: a
	 * page is closed when the next record does not fit.
	 */
	memset(cb->page->data + cb->page->commit, 0,
	       KT_PAGE_DATA - cb->page->commit);
	cb->entries[t % cb->nr_pages] = cb->nent;
	WRITE_ONCE(cb->written, cb->written + cb->nent);
	cb->nent = 0;
	cb->page = cb->pages[(t + 1) % cb->nr_pages];
	cb->page->commit = 0;
	cb->limit = 0;
	/* Release: page t is complete before a reader can see it is. */
	smp_store_release(&cb->tail, t + 1);
	return true;
}

/*
 * The slow path of kt_rb_reserve(): a fresh page to stamp, a delta too
 * large for the header, a full page, or a clock read behind the last.
 * Returns the record's data, or NULL when it must be dropped.
 */
void *kt_cbuf_reserve_slow(struct ktrace_channel *chan, struct kt_cbuf *cb,
			   u64 ts, u32 len, u32 size)
{
	struct kt_page *page = cb->page;
	bool extend;
	u64 delta;
	void *data;

	/* Never backwards: a clock read behind the last is no time passing. */
	if (ts < cb->last_ts)
		ts = cb->last_ts;
	delta = ts - cb->last_ts;
	if (!cb->limit || !page->commit)
		delta = 0;	/* the page's first record: its time stamp */
	extend = delta >= (1ULL << KT_RB_DELTA_BITS);
	if (page->commit + size + (extend ? 8 : 0) > KT_PAGE_DATA) {
		if (size > KT_PAGE_DATA || !kt_cbuf_next(chan, cb))
			return NULL;
		page = cb->page;
		delta = 0;
	} else if (extend) {
		kt_page_put_extend(page, delta);
		delta = 0;
	}
	if (!page->commit)
		page->time_stamp = ts;
	cb->limit = KT_PAGE_DATA;
	data = kt_page_put(page, len, size, delta);
	page->commit += size;
	cb->last_ts = ts;
	cb->nent++;
	return data;
}

/* Close a CPU's tail page for a reader; on that CPU, interrupts off. */
static void kt_cbuf_flip(void *arg)
{
	struct ktrace_channel *chan = ((struct kt_reader *)arg)->chan;
	struct kt_cbuf *cb = *per_cpu_ptr(chan->cbuf,
					  ((struct kt_reader *)arg)->cpu);

	/* An NMI writing now finds busy set and drops its record. */
	cb->busy = 1;
	barrier();
	if (READ_ONCE(cb->head) == cb->tail && cb->page->commit)
		kt_cbuf_next(chan, cb);
	barrier();
	cb->busy = 0;
}

/*
 * Have the tail page closed by its CPU, or here when the CPU is offline
 * and so writes nothing.  Under the channel's lock.
 */
void kt_cbuf_flip_on(struct ktrace_channel *chan, struct kt_reader *r)
{
	unsigned long flags;

	cpus_read_lock();
	if (cpu_online(r->cpu)) {
		smp_call_function_single(r->cpu, kt_cbuf_flip, r, 1);
	} else {
		local_irq_save(flags);
		kt_cbuf_flip(r);
		local_irq_restore(flags);
	}
	cpus_read_unlock();
}

/* Nothing to read: a hint, as the writer may be adding to it meanwhile. */
bool kt_cbuf_empty(struct kt_cbuf *cb)
{
	/* Acquire: pairs with the writer's release of tail. */
	return !cb || (READ_ONCE(cb->head) == smp_load_acquire(&cb->tail) &&
		       !READ_ONCE(READ_ONCE(cb->page)->commit));
}

/*
 * Copy the oldest page of r's CPU out to dst; false when there is none.
 * A page lost to a flight writer flags the next one read, with the count
 * stored after its records as ftrace does.  Under the channel's lock.
 */
bool kt_cbuf_read_page(struct kt_reader *r, struct kt_page *dst)
{
	struct ktrace_channel *chan = r->chan;
	struct kt_cbuf *cb = *per_cpu_ptr(chan->cbuf, r->cpu);
	unsigned long h, t, missed;
	struct kt_page *src;
	bool flipped = false;
	unsigned int e;

	if (!cb)
		return false;
	for (;;) {
		h = READ_ONCE(cb->head);
		/* Acquire: pages before tail are complete. */
		t = smp_load_acquire(&cb->tail);
		if (h == t) {
			if (flipped || kt_cbuf_empty(cb))
				return false;
			kt_cbuf_flip_on(chan, r);
			flipped = true;
			continue;
		}
		src = cb->pages[h % cb->nr_pages];
		kt_page_copy(dst, src, READ_ONCE(src->commit));
		e = READ_ONCE(cb->entries[h % cb->nr_pages]);
		/* Full barrier: the copy is done before the page is given up. */
		if (cmpxchg(&cb->head, h, h + 1) == h)
			break;
	}
	cb->read += e;
	missed = READ_ONCE(cb->overrun) - cb->read_overrun;
	cb->read_overrun += missed;
	if (missed) {
		if (dst->commit + sizeof(missed) <= KT_PAGE_DATA) {
			memcpy(dst->data + dst->commit, &missed,
			       sizeof(missed));
			dst->commit |= KT_RB_MISSED_STORED;
		}
		dst->commit |= KT_RB_MISSED_EVENTS;
	}
	return true;
}

/* Whether half a page waits: a whole one, or a tail page half full. */
bool kt_cbuf_half(struct kt_cbuf *cb)
{
	return cb && (READ_ONCE(cb->head) != READ_ONCE(cb->tail) ||
		      READ_ONCE(READ_ONCE(cb->page)->commit) >= PAGE_SIZE / 2);
}

/* Bytes a reader of this CPU would find, about (stats/cpuN). */
static unsigned long kt_cbuf_bytes(struct kt_cbuf *cb)
{
	unsigned long h, t, n = 0;

	if (!cb)
		return 0;
	h = READ_ONCE(cb->head);
	t = READ_ONCE(cb->tail);
	if (t - h > cb->nr_pages)
		return 0;	/* moved under us */
	for (; h != t; h++)
		n += READ_ONCE(cb->pages[h % cb->nr_pages]->commit);
	return n + READ_ONCE(READ_ONCE(cb->page)->commit);
}

/* Empty a CPU's buffer; on that CPU, interrupts off. */
static void kt_cbuf_reset(void *arg)
{
	struct kt_cbuf *cb = arg;

	cb->busy = 1;
	barrier();
	cb->page->commit = 0;
	cb->limit = 0;
	cb->nent = 0;
	cb->written = 0;
	cb->overrun = 0;
	cb->read = 0;
	cb->read_overrun = 0;
	WRITE_ONCE(cb->head, cb->tail);
	barrier();
	cb->busy = 0;
}

/* Run fn(cb) on each CPU's buffer, on its CPU or here if offline. */
static void kt_cbuf_each(struct ktrace_channel *chan, smp_call_func_t fn)
{
	unsigned long flags;
	struct kt_cbuf *cb;
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		cb = *per_cpu_ptr(chan->cbuf, cpu);
		if (!cb)
			continue;
		if (cpu_online(cpu)) {
			smp_call_function_single(cpu, fn, cb, 1);
		} else {
			local_irq_save(flags);
			fn(cb);
			local_irq_restore(flags);
		}
	}
	cpus_read_unlock();
}

/*
 * CPU hotplug: a CPU gets its buffer before it first comes up, as with
 * the ring buffer, and keeps it when it goes down, so what it recorded
 * can still be read.  One multi-instance state for all channels.
 */
static DEFINE_MUTEX(kt_cpuhp_lock);
static int kt_cpuhp_state;
static unsigned int kt_cpuhp_users;

static int kt_cbuf_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct ktrace_channel *chan = hlist_entry(node, struct ktrace_channel,
						  cpuhp);
	struct kt_cbuf *cb;

	if (*per_cpu_ptr(chan->cbuf, cpu))
		return 0;
	cb = kt_cbuf_alloc(chan, cpu);
	if (!cb)
		return -ENOMEM;
	/* The CPU is not running yet: nothing reads this before it does. */
	*per_cpu_ptr(chan->cbuf, cpu) = cb;
	return 0;
}

static int kt_cbuf_setup(struct ktrace_channel *chan)
{
	int ret;

	mutex_lock(&kt_cpuhp_lock);
	if (!kt_cpuhp_users) {
		ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN,
					      "ktrace/channel:prepare",
					      kt_cbuf_cpu_prepare, NULL);
		if (ret < 0)
			goto out;
		kt_cpuhp_state = ret;
	}
	/* Buffers for the CPUs up now come from this call. */
	ret = cpuhp_state_add_instance(kt_cpuhp_state, &chan->cpuhp);
	if (!ret) {
		kt_cpuhp_users++;
		chan->cpuhp_added = true;
	} else if (!kt_cpuhp_users) {
		cpuhp_remove_multi_state(kt_cpuhp_state);
	}
out:
	mutex_unlock(&kt_cpuhp_lock);
	return ret < 0 ? ret : 0;
}

/* No CPU coming up after this gets a buffer for chan. */
static void kt_cbuf_unhook(struct ktrace_channel *chan)
{
	if (!chan->cpuhp_added)
		return;
	mutex_lock(&kt_cpuhp_lock);
	cpuhp_state_remove_instance_nocalls(kt_cpuhp_state, &chan->cpuhp);
	chan->cpuhp_added = false;
	if (!--kt_cpuhp_users)
		cpuhp_remove_multi_state(kt_cpuhp_state);
	mutex_unlock(&kt_cpuhp_lock);
}

static void kt_cbuf_free_all(struct ktrace_channel *chan)
{
	int cpu;

	if (!chan->cbuf)
		return;
	for_each_possible_cpu(cpu)
		kt_cbuf_free(*per_cpu_ptr(chan->cbuf, cpu));
	free_percpu(chan->cbuf);
}

/* ---- exports ---- */

DEFINE_STATIC_KEY_FALSE(kt_export_key);
static struct ktrace_export __rcu *kt_exports;
static DEFINE_MUTEX(kt_exports_lock);

/*
 * Called between reserve and commit, so the record is still ours.  The
 * list is read as ftrace reads its exports: preemption off, which RCU
 * counts as a read-side section in every context, NMI included.
 */
void kt_export_call(const void *rec, u32 len)
{
	struct ktrace_export *e;
	u64 ts = trace_clock_local();

	preempt_disable_notrace();
	for (e = rcu_dereference_raw(kt_exports); e;
	     e = rcu_dereference_raw(e->next))
		e->write(e, ts, rec, len);
	preempt_enable_notrace();
}

int ktrace_register_export(struct ktrace_export *e)
{
	struct ktrace_export *p;
	int ret = 0;

	if (!e || !e->write)
		return -EINVAL;
	mutex_lock(&kt_exports_lock);
	for (p = rcu_dereference_protected(kt_exports,
					   lockdep_is_held(&kt_exports_lock));
	     p; p = rcu_dereference_protected(p->next,
				lockdep_is_held(&kt_exports_lock))) {
		if (p == e) {
			ret = -EEXIST;
			goto out;
		}
	}
	RCU_INIT_POINTER(e->next, rcu_dereference_protected(kt_exports,
				lockdep_is_held(&kt_exports_lock)));
	rcu_assign_pointer(kt_exports, e);
	static_branch_inc(&kt_export_key);
out:
	mutex_unlock(&kt_exports_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ktrace_register_export);

int ktrace_unregister_export(struct ktrace_export *e)
{
	struct ktrace_export __rcu **pp;
	struct ktrace_export *p;
	int ret = -ENOENT;

	mutex_lock(&kt_exports_lock);
	for (pp = &kt_exports;
	     (p = rcu_dereference_protected(*pp,
				lockdep_is_held(&kt_exports_lock)));
	     pp = &p->next) {
		if (p == e) {
			rcu_assign_pointer(*pp, rcu_dereference_protected(e->next,
					   lockdep_is_held(&kt_exports_lock)));
			static_branch_dec(&kt_export_key);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&kt_exports_lock);
	/* Calls that found e in the list may still be running. */
	if (!ret)
		synchronize_rcu();
	return ret;
}
EXPORT_SYMBOL_GPL(ktrace_unregister_export);

/* ---- writers ---- */

void *ktrace_channel_reserve(struct ktrace_channel *chan, u32 len,
			     struct ktrace_wctx *w)
{
	void *data;

	if (!chan->gbuf) {
		data = kt_rb_reserve(chan, len, &w->event);
	} else {
		data = kt_gbuf_reserve(chan, len, w);
		/* Every record lost while running is counted. */
		if (!data)
			this_cpu_inc(*chan->dropped);
	}
	w->rec = data;
	w->len = len;
	return data;
}
EXPORT_SYMBOL_GPL(ktrace_channel_reserve);

void ktrace_channel_commit(struct ktrace_channel *chan, struct ktrace_wctx *w)
{
	if (!chan->gbuf) {
		kt_rb_commit_rec(chan, w->event, w->rec, w->len);
		return;
	}
	if (static_branch_unlikely(&kt_export_key))
		kt_export_call(w->rec, w->len);
	kt_gbuf_commit(chan, w);
	kt_wake_account(chan, w->len);
}
EXPORT_SYMBOL_GPL(ktrace_channel_commit);

int ktrace_channel_write(struct ktrace_channel *chan, const void *data,
			 u32 len)
{
	struct ktrace_wctx w;
	void *p;

	p = ktrace_channel_reserve(chan, len, &w);
	if (!p)
		return -ENOSPC;
	memcpy(p, data, len);
	ktrace_channel_commit(chan, &w);
	return 0;
}
EXPORT_SYMBOL_GPL(ktrace_channel_write);

/* ---- state ---- */

bool kt_chan_cpu_empty(struct ktrace_channel *chan, int cpu)
{
	if (chan->gbuf)
		return kt_gbuf_empty(chan->gbuf);
	return kt_cbuf_empty(*per_cpu_ptr(chan->cbuf, cpu));
}

static bool kt_chan_has_data(struct ktrace_channel *chan)
{
	int i;

	for (i = 0; i < chan->nr_readers; i++)
		if (!kt_chan_cpu_empty(chan, chan->readers[i].cpu))
			return true;
	return false;
}

/*
 * Writers never wake readers: a wake-up from a probe could take the
 * scheduler's locks from inside the scheduler.  An irq_work does it
 * instead when a writer has filled a share of its buffer (a flood fills
 * a megabyte in less than the timer's 50 ms), and a timer for the rest.
 *
 * A writer's CPU has committed wake_bytes since it last came here: give
 * it a new budget and, if a reader sleeps, queue the irq_work.  Any
 * context, NMI included.  The barrier in wq_has_sleeper() pairs with the
 * one a sleeping reader sets its state with, so either the writer sees
 * the sleeper or the reader sees the data.
 */
void kt_wake_kick(struct ktrace_channel *chan)
{
	this_cpu_write(*chan->wake_budget, READ_ONCE(chan->wake_bytes));
	if (wq_has_sleeper(&chan->wait))
		irq_work_queue(&chan->wake_work);
}

/* kt_wake_kick() for a per-CPU channel's writer, whose budget is cb's. */
void kt_cbuf_kick(struct ktrace_channel *chan, struct kt_cbuf *cb)
{
	cb->budget = READ_ONCE(chan->wake_bytes);
	if (wq_has_sleeper(&chan->wait))
		irq_work_queue(&chan->wake_work);
}

/* Hard interrupt context, or the irq_work thread on PREEMPT_RT. */
static void kt_wake_work_fn(struct irq_work *work)
{
	struct ktrace_channel *chan = container_of(work, struct ktrace_channel,
						   wake_work);

	wake_up_interruptible(&chan->wait);
}

/* KT_WAKE_PERCENT of a CPU's buffer, and at least what makes a reader ready. */
static unsigned long kt_wake_bytes(struct ktrace_channel *chan)
{
	unsigned long size;

	if (chan->gbuf)
		return max_t(unsigned long, PAGE_SIZE,
			     chan->gbuf->nr_pages * KT_PAGE_DATA / 100 *
			     KT_WAKE_PERCENT / num_possible_cpus());
	size = (kt_cbuf_pages(chan->cbuf_size) - 1) * PAGE_SIZE;
	return max_t(unsigned long, PAGE_SIZE / 2,
		     size / 100 * KT_WAKE_PERCENT);
}

static void kt_wake_fn(struct timer_list *t)
{
	struct ktrace_channel *chan = kt_from_timer(chan, t, wake_timer);

	WRITE_ONCE(chan->tick, chan->tick + 1);
	if (wq_has_sleeper(&chan->wait) && kt_chan_has_data(chan))
		wake_up_interruptible(&chan->wait);
	if (READ_ONCE(chan->running))
		mod_timer(&chan->wake_timer, jiffies + KT_WAKE_INTERVAL);
}

int ktrace_channel_start(struct ktrace_channel *chan)
{
	struct kt_cbuf *cb;
	int cpu;

	mutex_lock(&chan->lock);
	if (!chan->running) {
		/* The buffer may have been resized while stopped. */
		WRITE_ONCE(chan->wake_bytes, kt_wake_bytes(chan));
		cpus_read_lock();
		for_each_possible_cpu(cpu) {
			*per_cpu_ptr(chan->wake_budget, cpu) = chan->wake_bytes;
			cb = chan->cbuf ? *per_cpu_ptr(chan->cbuf, cpu) : NULL;
			if (cb)
				WRITE_ONCE(cb->budget, chan->wake_bytes);
		}
		cpus_read_unlock();
		WRITE_ONCE(chan->running, true);
		mod_timer(&chan->wake_timer, jiffies + KT_WAKE_INTERVAL);
	}
	mutex_unlock(&chan->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(ktrace_channel_start);

int ktrace_channel_stop(struct ktrace_channel *chan)
{
	mutex_lock(&chan->lock);
	if (chan->running) {
		WRITE_ONCE(chan->running, false);
		timer_delete_sync(&chan->wake_timer);
		/* Writers still finishing may queue it again: see kt_chan_free. */
		irq_work_sync(&chan->wake_work);
	}
	mutex_unlock(&chan->lock);
	/* Blocked readers see the end of the data. */
	wake_up_interruptible_all(&chan->wait);
	return 0;
}
EXPORT_SYMBOL_GPL(ktrace_channel_stop);

bool ktrace_channel_running(struct ktrace_channel *chan)
{
	return READ_ONCE(chan->running);
}
EXPORT_SYMBOL_GPL(ktrace_channel_running);

struct dentry *ktrace_channel_dir(struct ktrace_channel *chan)
{
	return chan->dir;
}
EXPORT_SYMBOL_GPL(ktrace_channel_dir);

/* The kernel's ring buffer is no channel's any more. */
struct trace_buffer *ktrace_channel_buffer(struct ktrace_channel *chan)
{
	return NULL;
}
EXPORT_SYMBOL_GPL(ktrace_channel_buffer);

u64 ktrace_channel_dropped(struct ktrace_channel *chan)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(chan->dropped, cpu);
	return sum;
}
EXPORT_SYMBOL_GPL(ktrace_channel_dropped);

u64 ktrace_channel_overrun(struct ktrace_channel *chan)
{
	unsigned long flags;
	struct kt_cbuf *cb;
	u64 sum = 0;
	int cpu;

	if (!(chan->flags & KTRACE_FLIGHT_CHANNEL))
		return 0;
	if (chan->gbuf) {
		raw_spin_lock_irqsave(&chan->gbuf->lock, flags);
		sum = chan->gbuf->overrun;
		raw_spin_unlock_irqrestore(&chan->gbuf->lock, flags);
		return sum;
	}
	for_each_possible_cpu(cpu) {
		cb = *per_cpu_ptr(chan->cbuf, cpu);
		if (cb)
			sum += READ_ONCE(cb->overrun);
	}
	return sum;
}
EXPORT_SYMBOL_GPL(ktrace_channel_overrun);

void ktrace_channel_reset(struct ktrace_channel *chan)
{
	int cpu;

	mutex_lock(&chan->lock);
	if (chan->gbuf)
		kt_gbuf_reset(chan->gbuf);
	else
		kt_cbuf_each(chan, kt_cbuf_reset);
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(chan->dropped, cpu) = 0;
	mutex_unlock(&chan->lock);
}
EXPORT_SYMBOL_GPL(ktrace_channel_reset);

/*
 * Give each CPU's buffer of a stopped per-CPU channel size bytes: what
 * the buffers held is discarded, the counters are kept.  -EBUSY while
 * running.
 */
int kt_chan_resize(struct ktrace_channel *chan, unsigned long size)
{
	struct kt_cbuf **old, *cb;
	unsigned long old_size;
	int cpu, ret = 0;

	if (!chan->cbuf)
		return -EINVAL;
	old = kcalloc(nr_cpu_ids, sizeof(*old), GFP_KERNEL);
	if (!old)
		return -ENOMEM;
	mutex_lock(&chan->lock);
	mutex_lock(&chan->map_lock);
	/* A mapping holds the pages: readers would see the old ring. */
	if (chan->running || atomic_read(&chan->nr_maps)) {
		ret = -EBUSY;
		goto out;
	}
	cpus_read_lock();
	old_size = chan->cbuf_size;
	chan->cbuf_size = size;
	for_each_possible_cpu(cpu) {
		if (!*per_cpu_ptr(chan->cbuf, cpu))
			continue;
		old[cpu] = kt_cbuf_alloc(chan, cpu);
		if (!old[cpu]) {
			ret = -ENOMEM;
			break;
		}
	}
	if (ret)
		chan->cbuf_size = old_size;
	for_each_possible_cpu(cpu) {
		if (!old[cpu])
			continue;
		cb = *per_cpu_ptr(chan->cbuf, cpu);
		if (!ret) {
			/*
			 * The counters go on: what is discarded counts as
			 * read, so the new buffer holds no entries.
			 */
			old[cpu]->written = cb->written + cb->nent;
			old[cpu]->overrun = cb->overrun;
			old[cpu]->read_overrun = cb->overrun;
			old[cpu]->read = old[cpu]->written - cb->overrun;
			*per_cpu_ptr(chan->cbuf, cpu) = old[cpu];
			old[cpu] = cb;
		}
	}
	cpus_read_unlock();
	/* A writer that saw the channel running just before it stopped. */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		kt_cbuf_free(old[cpu]);
	WRITE_ONCE(chan->wake_bytes, kt_wake_bytes(chan));
out:
	mutex_unlock(&chan->map_lock);
	mutex_unlock(&chan->lock);
	kfree(old);
	return ret;
}

/* stats/cpuN of a per-CPU channel, in ftrace's per_cpu stats format. */
void kt_chan_stats(struct ktrace_channel *chan, int cpu, struct seq_file *m)
{
	struct kt_cbuf *cb = chan->cbuf ? *per_cpu_ptr(chan->cbuf, cpu) : NULL;
	unsigned long written = 0, overrun = 0, read = 0, rem;
	u64 t = 0;

	if (cb) {
		overrun = READ_ONCE(cb->overrun);
		read = READ_ONCE(cb->read);
		written = READ_ONCE(cb->written) + READ_ONCE(cb->nent);
		if (!kt_cbuf_empty(cb))
			t = READ_ONCE(cb->pages[READ_ONCE(cb->head) %
						cb->nr_pages]->time_stamp);
	}
	seq_printf(m, "entries: %lu\n", written - read - overrun);
	seq_printf(m, "overrun: %lu\n", overrun);
	seq_puts(m, "commit overrun: 0\n");
	seq_printf(m, "bytes: %lu\n", kt_cbuf_bytes(cb));
	rem = do_div(t, NSEC_PER_SEC);
	seq_printf(m, "oldest event ts: %5llu.%06lu\n", t, rem / 1000);
	t = trace_clock_local();
	rem = do_div(t, NSEC_PER_SEC);
	seq_printf(m, "now ts: %5llu.%06lu\n", t, rem / 1000);
	seq_printf(m, "dropped events: %lu\n",
		   *per_cpu_ptr(chan->dropped, cpu));
	seq_printf(m, "read events: %lu\n", read);
}

static void kt_chan_free(struct kref *ref)
{
	struct ktrace_channel *chan = container_of(ref, struct ktrace_channel,
						   ref);

	/* No writer is left now, but a kick of the last ones may be pending. */
	irq_work_sync(&chan->wake_work);
	if (chan->gbuf)
		kt_gbuf_free(chan->gbuf);
	kt_cbuf_free_all(chan);
	kfree(chan->readers);
	free_percpu(chan->wake_budget);
	free_percpu(chan->dropped);
	kfree(chan);
}

void kt_chan_put(struct ktrace_channel *chan)
{
	kref_put(&chan->ref, kt_chan_free);
}

/* ---- life cycle ---- */

struct ktrace_channel *ktrace_channel_setup(const char *root,
					    const char *name, u32 buf_size,
					    u32 buf_nr, u32 flags)
{
	struct ktrace_channel *chan;
	unsigned long size;
	int cpu, i = 0, err = -ENOMEM;

	if (!root || !buf_size || !buf_nr ||
	    flags & ~(KTRACE_GLOBAL_CHANNEL | KTRACE_FLIGHT_CHANNEL |
		      KTRACE_DISABLE_STATE))
		return ERR_PTR(-EINVAL);
	size = (unsigned long)buf_size * buf_nr;
	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return ERR_PTR(-ENOMEM);
	kref_init(&chan->ref);
	chan->flags = flags;
	chan->buf_size = buf_size;
	chan->buf_nr = buf_nr;
	mutex_init(&chan->lock);
	mutex_init(&chan->map_lock);
	init_waitqueue_head(&chan->wait);
	timer_setup(&chan->wake_timer, kt_wake_fn, 0);
	init_irq_work(&chan->wake_work, kt_wake_work_fn);

	chan->dropped = alloc_percpu(unsigned long);
	if (!chan->dropped)
		goto err_free;
	/* Zero: a global channel's first record kicks and sets the budget. */
	chan->wake_budget = alloc_percpu(long);
	if (!chan->wake_budget)
		goto err_dropped;
	chan->nr_readers = flags & KTRACE_GLOBAL_CHANNEL ? 1 :
			   num_possible_cpus();
	chan->readers = kcalloc(chan->nr_readers, sizeof(*chan->readers),
				GFP_KERNEL);
	if (!chan->readers)
		goto err_dropped;
	if (flags & KTRACE_GLOBAL_CHANNEL) {
		chan->readers[0].chan = chan;
		chan->gbuf = kt_gbuf_alloc(size);
		if (!chan->gbuf)
			goto err_readers;
	} else {
		for_each_possible_cpu(cpu) {
			chan->readers[i].chan = chan;
			chan->readers[i++].cpu = cpu;
		}
		chan->cbuf_size = size;
		chan->cbuf = alloc_percpu(struct kt_cbuf *);
		if (!chan->cbuf)
			goto err_readers;
	}
	/* A global channel takes writes before its first start too. */
	chan->wake_bytes = kt_wake_bytes(chan);
	if (chan->cbuf) {
		err = kt_cbuf_setup(chan);
		if (err)
			goto err_buf;
		err = -ENOMEM;
	}

	err = kt_chan_files_create(chan, root, name);
	if (err)
		goto err_buf;
	return chan;

err_buf:
	kt_cbuf_unhook(chan);
	if (chan->gbuf)
		kt_gbuf_free(chan->gbuf);
	kt_cbuf_free_all(chan);
err_readers:
	kfree(chan->readers);
err_dropped:
	free_percpu(chan->wake_budget);
	free_percpu(chan->dropped);
err_free:
	kfree(chan);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(ktrace_channel_setup);

void ktrace_channel_cleanup(struct ktrace_channel *chan)
{
	if (IS_ERR_OR_NULL(chan))
		return;
	ktrace_channel_stop(chan);
	kt_cbuf_unhook(chan);
	/*
	 * Writers check running with interrupts off: once every CPU has
	 * had them on, none is left inside a buffer.
	 */
	synchronize_rcu();
	/*
	 * Removing the files waits for operations in progress on the
	 * control files and makes later ones fail.  The traceN files are
	 * not proxied (mmap): a reader may still be inside one, on a
	 * buffer its open file keeps; chan->dead fails it from then on.
	 */
	kt_chan_files_remove(chan);
	/* traceN files still open fail from now on (kt_trace_usable()). */
	mutex_lock(&chan->lock);
	WRITE_ONCE(chan->dead, true);
	mutex_unlock(&chan->lock);
	wake_up_interruptible_all(&chan->wait);
	/* Readers still open keep the buffer until they close. */
	kt_chan_put(chan);
}
EXPORT_SYMBOL_GPL(ktrace_channel_cleanup);
