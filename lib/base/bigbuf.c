// SPDX-License-Identifier: GPL-2.0
/*
 * Large buffers, their pages taken ahead.  See bigbuf.h.
 *
 * Why: each new page of a buffer is a fault at its first write, and each
 * 4 KB page an entry the TLB misses on as the buffer is walked.  A
 * function_graph report unpacks its file's 7.2 MB kallsyms text once:
 * about 1,800 faults (7 us each on a paravirtualized guest), and the
 * unpacking itself ran at 360 MB/s into new 4 KB pages against 1.2 GB/s
 * into pages already used.  Populated alone, the pages still missed the
 * TLB as often; into 2 MB pages populated in one call the report's
 * unpacking takes 10 ms instead of 20-29 (measured: BENCHMARKS.md, "Huge
 * pages for the kallsyms text").  posix_memalign() keeps the buffer
 * free()able as any other, so its owners need not know.
 *
 * The pages are taken, not promised: a caller sizes a buffer by what is
 * there to fill it (the file's bytes, a packed section's plausible
 * yield), never by a hostile header's claim alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/bigbuf.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Below this a buffer's faults cost less than the call's set-up. */
#define PREFAULT_MIN	(256u << 10)
/* From this on, the buffer is aligned for huge pages (x86-64's 2 MB). */
#define HUGE_MIN	(1u << 20)
#define HUGE_ALIGN	(2u << 20)

/* [p, p + len) shrunk to whole pages; false when none is left. */
static bool whole_pages(void *p, size_t len, uintptr_t *start, size_t *n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t s = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(page - 1);

	if (e <= s)
		return false;
	*start = s;
	*n = e - s;
	return true;
}

void kt_prefault(void *p, size_t len)
{
	uintptr_t start;
	size_t n;

	if (p && len >= PREFAULT_MIN && whole_pages(p, len, &start, &n))
		(void)madvise((void *)start, n, MADV_POPULATE_WRITE);
}

void *kt_bigbuf_alloc(size_t len)
{
	uintptr_t start;
	void *p;
	size_t n;
	int err;

	if (len < HUGE_MIN) {
		p = malloc(len ? len : 1);
		kt_prefault(p, len);
		return p;
	}
	err = posix_memalign(&p, HUGE_ALIGN, len);
	if (err) {
		errno = err;
		return NULL;
	}
	/* A hint each: THP "never", or a kernel without either, is fine. */
	if (whole_pages(p, len, &start, &n))
		(void)madvise((void *)start, n, MADV_HUGEPAGE);
	kt_prefault(p, len);
	return p;
}
