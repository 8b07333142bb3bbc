/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cursor over one of ktrace.ko's per-CPU traceN files, the one place
 * its ring is read: mapped and driven by GET_PRODUCED, PUT_CONSUMED and
 * FLUSH where the module can ("Zero-copy reading" in kernel/README.md),
 * whole pages read() where it cannot (an older module, a global channel)
 * or the caller says not to.  record's readers and the live streams of
 * stream and top walk it alike: take a batch, walk its pages, give it
 * back and learn what the writer took meanwhile.
 */
#ifndef KT_MODRING_H
#define KT_MODRING_H

#include <stdbool.h>
#include <stddef.h>

struct kt_modring;

/*
 * A cursor over fd, an open traceN (the caller keeps the fd and closes
 * it after kt_modring_free()).  Mapped unless no_mmap or the module
 * refuses (ENOTTY, ENODEV): then read().  cpu names it in diagnostics.
 * NULL + errno.
 */
struct kt_modring *kt_modring_new(int fd, int cpu, bool no_mmap);
void kt_modring_free(struct kt_modring *r);
/*
 * A mapped ring's waiting kt_modring_get() also wakes when fd (an
 * eventfd the caller reads) turns readable, and then returns
 * KT_MODRING_WOKEN: a record's rotation asks its reader to cut.  -1:
 * no such fd (the default).
 */
void kt_modring_set_wake(struct kt_modring *r, int fd);
#define KT_MODRING_WOKEN	2
/* Whether the ring is read in place. */
bool kt_modring_mapped(const struct kt_modring *r);
/*
 * A CPU never up: the module has no ring to map yet, read() finds
 * nothing until it comes up.  Neither mapped nor read, for a read mode.
 */
bool kt_modring_ringless(const struct kt_modring *r);
/* Bytes of one page. */
size_t kt_modring_page_size(const struct kt_modring *r);

/*
 * Take the complete pages as the batch to walk.  wait: block until
 * there are some (a blocking fd for read()); mapped, the page being
 * written is closed (FLUSH) only once poll() said the file is ready or
 * the engine stopped, as a blocking read() would.  !wait: the caller
 * polled already; the page being written is closed when nothing is
 * complete, and read() answering EAGAIN or ENODEV is nothing.  Returns
 * 1 with a batch, 0 for nothing (!wait) or the end (wait: stopped and
 * drained), KT_MODRING_WOKEN (wait: the wake fd turned readable first),
 * -errno.  A batch not given back is kept, not taken again.
 */
int kt_modring_get(struct kt_modring *r, bool wait);
/*
 * The batch's next pages, at most max, that lie in a row at *pages
 * (in place when mapped: a batch that wraps round the ring comes in two
 * runs).  Returns how many, 0 when the batch is walked.
 */
unsigned int kt_modring_walk(struct kt_modring *r, unsigned int max,
			     const void **pages);
/* Pages of the batch not yet walked. */
unsigned long long kt_modring_left(const struct kt_modring *r);

/* What kt_modring_put() learnt of the pages it gave back. */
struct kt_modring_gone {
	unsigned long long pages;	/* given back */
	unsigned long long taken;	/* the first of them the writer took */
	unsigned long long missed;	/* records the writer said it overwrote */
};

/*
 * Give the walked pages back to the writer (nothing to do for read()),
 * as soon as they are used: a complete page left in the ring makes
 * poll() answer at once.  The first gone->taken of them were taken by a
 * flight writer while they were looked at, so what was read of them may
 * be torn.  0 or -errno.
 */
int kt_modring_put(struct kt_modring *r, struct kt_modring_gone *gone);

#endif
