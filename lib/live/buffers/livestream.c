// SPDX-License-Identifier: GPL-2.0
/*
 * Live per-CPU ring buffers decoded and merged in timestamp order.
 * See livestream.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "live/buffers/livebuf.h"
#include "live/buffers/livestream.h"
#include "base/log.h"

/* Pages one CPU may give per round: a default buffer's worth and more. */
#define ROUND_MAX_PAGES 512

struct cpu_it {
	struct kt_livebuf *lb;
	struct kbuffer *kb;
	int cpu;
	size_t data_off;	/* page header size */
	size_t skip, end;	/* new records: data offsets [skip, end) */
	bool loaded;
	bool last;		/* the writer's page: the CPU's last this round */
	bool whole_pages;	/* a file of whole pages: read until it is empty */
	bool cut;		/* stopped by the page budget, more to read */
	bool pending;		/* rec is read and not handed out yet */
	int pages;		/* this round */
	long long missed;	/* the loaded page's lost count, not yet shown */
	uint64_t events;
	struct tep_record rec;
};

struct kt_livestream {
	struct tep_handle *tep;
	struct cpu_it *its;
	int ncpus;		/* the instance's CPUs: its[0, ncpus) */
	int nits;		/* and the files added after them */
	struct cpu_it **heap;
	int nheap;
	int nmapped;		/* CPUs read through the mapped buffer */
	unsigned int flags;	/* kt_livestream_new()'s, for files added */
};

struct kt_livestream *kt_livestream_new(struct tracefs_instance *inst,
					int ncpus, struct tep_handle *tep,
					unsigned int flags)
{
	struct kt_livestream *ls;
	int cpu, err;

	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return NULL;
	ls->tep = tep;
	ls->flags = flags;
	ls->its = calloc(ncpus, sizeof(*ls->its));
	ls->heap = calloc(ncpus, sizeof(*ls->heap));
	if (!ls->its || !ls->heap)
		goto err_nomem;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct cpu_it *it = &ls->its[cpu];

		it->cpu = cpu;
		it->lb = kt_livebuf_open(inst, cpu, flags & ~KT_LIVEBUF_KBUFFER);
		if (!it->lb) {
			err = errno;
			goto err;
		}
		ls->ncpus = cpu + 1;
		ls->nits = ls->ncpus;
		it->kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
				       KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!it->kb)
			goto err_nomem;
		it->data_off = kbuffer_start_of_data(it->kb);
		if (kt_livebuf_mapped(it->lb))
			ls->nmapped++;
	}
	return ls;
err_nomem:
	err = ENOMEM;
err:
	kt_livestream_free(ls);
	errno = err;
	return NULL;
}

void kt_livestream_free(struct kt_livestream *ls)
{
	int cpu;

	if (!ls)
		return;
	for (cpu = 0; cpu < ls->nits; cpu++) {
		kt_livebuf_close(ls->its[cpu].lb);
		if (ls->its[cpu].kb)
			kbuffer_free(ls->its[cpu].kb);
	}
	free(ls->its);
	free(ls->heap);
	free(ls);
}

int kt_livestream_cpus(const struct kt_livestream *ls)
{
	return ls->ncpus;
}

int kt_livestream_add_pages(struct kt_livestream *ls, const char *path, int cpu)
{
	struct cpu_it *its, **heap, *it;

	its = realloc(ls->its, (ls->nits + 1) * sizeof(*its));
	if (!its)
		return -ENOMEM;
	ls->its = its;
	heap = realloc(ls->heap, (ls->nits + 1) * sizeof(*heap));
	if (!heap)
		return -ENOMEM;
	ls->heap = heap;
	it = &ls->its[ls->nits];
	memset(it, 0, sizeof(*it));
	it->cpu = cpu;
	it->lb = kt_livebuf_open_pages(path, cpu, ls->flags & KT_LIVEBUF_NO_MMAP);
	if (!it->lb)
		return -errno;
	it->kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!it->kb) {
		kt_livebuf_close(it->lb);
		return -ENOMEM;
	}
	it->data_off = kbuffer_start_of_data(it->kb);
	/*
	 * Its pages carry no sign of the writer being on them (a full one
	 * may end short of the page by more than a record): it is read until
	 * it has nothing more, within the round's budget.
	 */
	it->whole_pages = true;
	ls->nits++;
	return 0;
}

int kt_livestream_nfds(const struct kt_livestream *ls)
{
	return ls->nits;
}

int kt_livestream_fd(const struct kt_livestream *ls, int i)
{
	return kt_livebuf_fd(ls->its[i].lb);
}

int kt_livestream_mapped(const struct kt_livestream *ls)
{
	return ls->nmapped;
}

uint64_t kt_livestream_missed(const struct kt_livestream *ls, int cpu,
			      bool *unknown)
{
	uint64_t n = 0;
	bool u, any = false;
	int i;

	for (i = 0; i < ls->nits; i++)
		if (ls->its[i].cpu == cpu) {
			n += kt_livebuf_missed(ls->its[i].lb, &u);
			any |= u;
		}
	if (unknown)
		*unknown = any;
	return n;
}

uint64_t kt_livestream_events(const struct kt_livestream *ls, int cpu)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < ls->nits; i++)
		if (ls->its[i].cpu == cpu)
			n += ls->its[i].events;
	return n;
}

/*
 * Step a CPU to its next new record: 1 when it has one, 0 when nothing
 * more is committed (or its page budget for the round is spent), -errno.
 */
static int it_next(struct cpu_it *it)
{
	unsigned long long ts;
	size_t off;
	void *data, *page;
	int ret;

	for (;;) {
		data = it->loaded ? kbuffer_read_event(it->kb, &ts) : NULL;
		if (data) {
			off = (size_t)kbuffer_curr_offset(it->kb) - it->data_off;
			if (off >= it->end) {
				it->loaded = false;
				continue;
			}
			if (off < it->skip) {
				kbuffer_next_event(it->kb, NULL);
				continue;
			}
			memset(&it->rec, 0, sizeof(it->rec));
			it->rec.ts = ts;
			it->rec.size = kbuffer_event_size(it->kb);
			it->rec.record_size = kbuffer_curr_size(it->kb);
			it->rec.cpu = it->cpu;
			it->rec.data = data;
			it->rec.missed_events = it->missed;
			it->missed = 0;
			it->rec.ref_count = 1;
			it->rec.locked = 1;
			kbuffer_next_event(it->kb, NULL);
			return 1;
		}
		it->loaded = false;
		if (it->last)
			return 0;
		if (it->pages >= ROUND_MAX_PAGES) {
			it->cut = true;
			return 0;
		}
		ret = kt_livebuf_next(it->lb, &page, &it->skip, &it->end);
		if (ret <= 0)
			return ret;
		it->pages++;
		/*
		 * A page not full, or more of one handed out before, is the
		 * one the writer is on: take no more from this CPU in this
		 * round, so a CPU that keeps getting events cannot run ahead
		 * of the others, read once at the start of the round.
		 */
		it->last = !it->whole_pages &&
			   (it->skip > 0 ||
			    it->end + it->data_off + 64 < kt_livebuf_subbuf_size(it->lb));
		/* The page's own commit may be past end already: end rules. */
		if (kbuffer_load_subbuffer(it->kb, page) < 0)
			return -EBADMSG;
		it->loaded = true;
		/* A page's lost count goes with its first record handed out. */
		it->missed = it->skip ? 0 : kbuffer_missed_events(it->kb);
	}
}

static bool less(const struct cpu_it *a, const struct cpu_it *b)
{
	if (a->rec.ts != b->rec.ts)
		return a->rec.ts < b->rec.ts;
	return a->cpu < b->cpu;
}

static void sift_down(struct kt_livestream *ls, int i)
{
	struct cpu_it **h = ls->heap, *t;
	int n = ls->nheap, l, m;

	for (;;) {
		l = 2 * i + 1;
		if (l >= n)
			return;
		m = l + 1 < n && less(h[l + 1], h[l]) ? l + 1 : l;
		if (!less(h[m], h[i]))
			return;
		t = h[m];
		h[m] = h[i];
		h[i] = t;
		i = m;
	}
}

/*
 * A CPU the page budget stopped has older records than some that other
 * CPUs would hand out next: nothing stamped after its last one handed out
 * goes out in this round (the horizon).  The record that would have gone
 * next stays pending for the next round.
 */
long kt_livestream_round(struct kt_livestream *ls, kt_event_fn fn, void *arg)
{
	unsigned long long horizon = ~0ULL;
	struct kt_event ev = { 0 };
	struct cpu_it *it;
	long n = 0;
	int i, ret;

	ls->nheap = 0;
	for (i = 0; i < ls->nits; i++) {
		it = &ls->its[i];
		it->pages = 0;
		it->last = false;
		it->cut = false;
		if (!it->pending) {
			ret = it_next(it);
			if (ret < 0)
				return ret;
			it->pending = ret;
		}
		if (it->pending)
			ls->heap[ls->nheap++] = it;
	}
	for (i = ls->nheap / 2 - 1; i >= 0; i--)
		sift_down(ls, i);
	while (ls->nheap) {
		it = ls->heap[0];
		if (it->rec.ts > horizon)
			break;
		ev.record = &it->rec;
		ev.event = tep_find_event_by_record(ls->tep, &it->rec);
		ev.cpu = it->cpu;
		ev.selected = true;
		it->pending = false;
		if (ev.event) {
			ret = fn(&ev, arg);
			if (ret < 0)
				return ret;
			it->events++;
			n++;
		}
		ret = it_next(it);
		if (ret < 0)
			return ret;
		it->pending = ret;
		if (!ret) {
			if (it->cut && it->rec.ts < horizon)
				horizon = it->rec.ts;
			ls->heap[0] = ls->heap[--ls->nheap];
		}
		sift_down(ls, 0);
	}
	return n;
}
