/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live, counting-only reader of one CPU's ring buffer of an instance
 * (per_cpu/cpuN/trace_pipe_raw).  Where the kernel can map the buffer
 * (Linux 6.10+) the pages are read in place, without a copy; elsewhere,
 * or when asked, whole pages are read().  Reading consumes the buffer,
 * as trace_pipe does.
 */
#ifndef KT_LIVEBUF_H
#define KT_LIVEBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <tracefs.h>

#include "file/rawpage.h"

enum {
	KT_LIVEBUF_NO_MMAP = 1 << 0,	/* read() even where mmap works */
	KT_LIVEBUF_KBUFFER = 1 << 1,	/* walk pages with libtraceevent */
	KT_LIVEBUF_PAGES = 1 << 2,	/* a file of whole pages: read() */
};

struct kt_livebuf;

/* The flags the environment asks for: KTRACE_NO_MMAP (not 0) forces read(). */
unsigned int kt_livebuf_env_flags(void);

/* NULL + errno.  inst NULL is the top-level buffer. */
struct kt_livebuf *kt_livebuf_open(struct tracefs_instance *inst, int cpu,
				   unsigned int flags);
/*
 * A file that hands out whole pages of ftrace's format by read() (ktrace.ko's
 * traceN), as CPU cpu's: its ring mapped where the module can map it,
 * unless flags has KT_LIVEBUF_NO_MMAP.  NULL + errno.
 */
struct kt_livebuf *kt_livebuf_open_pages(const char *path, int cpu,
					 unsigned int flags);
void kt_livebuf_close(struct kt_livebuf *lb);
bool kt_livebuf_mapped(const struct kt_livebuf *lb);
/*
 * A ktrace.ko traceN of a CPU never up: no ring to map yet, read() finds
 * nothing until it comes up.  Neither mapped nor read, for a read mode.
 */
bool kt_livebuf_ringless(const struct kt_livebuf *lb);
/*
 * The file to poll() for POLLIN: ready once the buffer is as full as the
 * instance's buffer_percent says; -1 (poll() skips it) for a CPU with no
 * ring buffer, which must be drained on a timeout instead.
 */
int kt_livebuf_fd(const struct kt_livebuf *lb);

/*
 * Count every event committed so far: counts[slot[type id]]++ for each
 * (slot has KT_RAWPAGE_IDS entries).  Returns the number counted or
 * -errno.  Stops after a bounded number of pages so a flood cannot keep
 * the caller from its other work; call again.
 */
long kt_livebuf_drain(struct kt_livebuf *lb, const uint16_t *slot,
		      uint64_t *counts);

/*
 * Hand out the next committed records in place, for a caller that
 * decodes them: *page is a whole sub-buffer (the mapped one itself, or
 * the read() copy) valid until the next call; only the records whose
 * data offset lies in [*skip, *end) are new (a mapped page the writer is
 * still filling comes back with more).  Returns 1 with a page, 0 when
 * nothing new is committed, -errno.
 */
int kt_livebuf_next(struct kt_livebuf *lb, void **page, size_t *skip,
		    size_t *end);
/* Bytes of one sub-buffer, header included. */
size_t kt_livebuf_subbuf_size(const struct kt_livebuf *lb);

/*
 * Events the kernel said were lost, from the page headers, since open;
 * *unknown (if non-NULL) is set when some page said "lost" without a
 * number, so the real total is higher.
 */
uint64_t kt_livebuf_missed(const struct kt_livebuf *lb, bool *unknown);

#endif
