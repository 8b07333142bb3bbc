/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where ktrace.ko bridges kernel API differences between
 * the series it supports (6.1 and 6.12).  The KT_HAVE_* macros come from
 * probes of the kernel headers in Kbuild, because distributions backport
 * API changes and a version number alone would lie.
 */
#ifndef KTRACE_COMPAT_H
#define KTRACE_COMPAT_H

#include <linux/version.h>
#include <linux/ring_buffer.h>
#include <linux/err.h>
#include <linux/timer.h>

#ifdef KT_HAVE_RB_READ_PAGE_DATA
/* Since 6.8 the read page is an opaque handle around the data page. */
#define kt_rpage_t struct buffer_data_read_page

static inline kt_rpage_t *kt_rb_alloc_read_page(struct trace_buffer *rb,
						int cpu)
{
#ifdef KT_HAVE_RB_ALLOC_RPAGE_INT
	kt_rpage_t *page = NULL;
	int ret = ring_buffer_alloc_read_page(rb, cpu, &page);

	return ret ? ERR_PTR(ret) : page;
#else
	return ring_buffer_alloc_read_page(rb, cpu);
#endif
}

static inline int kt_rb_read_page(struct trace_buffer *rb, kt_rpage_t **page,
				  size_t len, int cpu)
{
	return ring_buffer_read_page(rb, *page, len, cpu, 0);
}

static inline void *kt_rb_page_data(kt_rpage_t *page)
{
	return ring_buffer_read_page_data(page);
}
#else
#define kt_rpage_t void

static inline kt_rpage_t *kt_rb_alloc_read_page(struct trace_buffer *rb,
						int cpu)
{
	return ring_buffer_alloc_read_page(rb, cpu);
}

static inline int kt_rb_read_page(struct trace_buffer *rb, kt_rpage_t **page,
				  size_t len, int cpu)
{
	return ring_buffer_read_page(rb, page, len, cpu, 0);
}

static inline void *kt_rb_page_data(kt_rpage_t *page)
{
	return page;
}
#endif

static inline void kt_rb_commit(struct trace_buffer *rb,
				struct ring_buffer_event *ev)
{
#ifdef KT_HAVE_RB_COMMIT_NOEVENT
	ring_buffer_unlock_commit(rb);
#else
	ring_buffer_unlock_commit(rb, ev);
#endif
}

/* timer_start lost its flags argument in 6.2 (bucket_expiry since). */
#ifdef KT_HAVE_TIMER_START_FLAGS
#define KT_TIMER_START_PROTO \
	struct timer_list *timer, unsigned long expires, unsigned int flags
#else
#define KT_TIMER_START_PROTO \
	struct timer_list *timer, unsigned long bucket_expiry
#endif

/* from_timer() became timer_container_of() in 6.16. */
#ifdef timer_container_of
#define kt_from_timer(var, t, field)	timer_container_of(var, t, field)
#else
#define kt_from_timer(var, t, field)	from_timer(var, t, field)
#endif

#endif /* KTRACE_COMPAT_H */
