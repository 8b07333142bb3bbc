// SPDX-License-Identifier: GPL-2.0
/*
 * The cursor over ktrace.ko's traceN: its ring mapped and walked in
 * batches between GET_PRODUCED and PUT_CONSUMED, or whole pages read()
 * where the module or the caller will not map it (kernel/ktrace-abi.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/module/modring.h"
#include "base/log.h"
#include "ktrace-abi.h"

struct kt_modring {
	int fd;
	size_t page_size;
	/* The mapped ring, or NULL when read() reads it into page. */
	unsigned char *map;
	size_t map_len;
	unsigned int nr_pages;
	bool ringless;
	int wake;			/* kt_modring_set_wake(), or -1 */
	unsigned char *page;
	/*
	 * The batch: [start, next) walked, not yet given back, and
	 * [next, end) to walk; ring positions, or 0 and 1 for the page
	 * read().
	 */
	unsigned long long start, next, end;
};

/*
 * Map the ring when the module can: an older ktrace.ko answers the
 * ioctl with ENOTTY, a global channel too; a CPU never up has no ring.
 */
static int modring_map(struct kt_modring *r)
{
	struct ktrace_buf_pos pos;
	void *map;

	if (ioctl(r->fd, KTRACE_BUF_GET_PRODUCED, &pos))
		return -errno;
	/* read() it is: nothing until the CPU comes up, then its pages. */
	r->ringless = !pos.nr_pages;
	if (r->ringless)
		return -ENODEV;
	r->map_len = (size_t)pos.nr_pages * r->page_size;
	map = mmap(NULL, r->map_len, PROT_READ, MAP_SHARED, r->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	r->map = map;
	r->nr_pages = pos.nr_pages;
	return 0;
}

struct kt_modring *kt_modring_new(int fd, int cpu, bool no_mmap)
{
	struct kt_modring *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->wake = -1;
	r->page_size = (size_t)getpagesize();
	if (!no_mmap) {
		ret = modring_map(r);
		if (!ret)
			return r;
		kt_debug("cpu%d: cannot map ktrace.ko's ring (%s); reading it",
			 cpu, strerror(-ret));
	}
	r->page = malloc(r->page_size);
	if (!r->page) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void kt_modring_free(struct kt_modring *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->page);
	free(r);
}

void kt_modring_set_wake(struct kt_modring *r, int fd)
{
	r->wake = fd;
}

bool kt_modring_mapped(const struct kt_modring *r)
{
	return r->map != NULL;
}

bool kt_modring_ringless(const struct kt_modring *r)
{
	return r->ringless;
}

size_t kt_modring_page_size(const struct kt_modring *r)
{
	return r->page_size;
}

/*
 * With nothing complete, a waiting reader waits in poll() as a blocking
 * read() would (half a page, the wake timer's tick, or the stop), and
 * only then has the module close the page being written (FLUSH):
 * closing it whenever nothing was complete would have record write page
 * after page of its own system calls' events.  Stopped and nothing left
 * is the end.
 */
static int get_mapped(struct kt_modring *r, bool wait)
{
	struct pollfd pfd[2] = {
		{ .fd = r->fd, .events = POLLIN },
		{ .fd = r->wake, .events = POLLIN },
	};
	struct ktrace_buf_pos pos;
	bool ready = false, stopped;

	for (;;) {
		if (ioctl(r->fd, KTRACE_BUF_GET_PRODUCED, &pos))
			return -errno;
		stopped = pos.flags & KTRACE_BUF_STOPPED;
		if (pos.produced == pos.consumed && (!wait || ready || stopped) &&
		    (ioctl(r->fd, KTRACE_BUF_FLUSH) ||
		     ioctl(r->fd, KTRACE_BUF_GET_PRODUCED, &pos)))
			return -errno;
		if (pos.produced != pos.consumed)
			break;
		if (!wait || stopped)
			return 0;
		if (poll(pfd, r->wake >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			return -errno;
		if (r->wake >= 0 && (pfd[1].revents & POLLIN))
			return KT_MODRING_WOKEN;
		ready = true;
	}
	r->start = r->next = pos.consumed;
	r->end = pos.produced;
	return 1;
}

/* A blocking read() waits for a page and gives 0 once stopped and drained. */
static int get_read(struct kt_modring *r, bool wait)
{
	ssize_t n;

	do {
		n = read(r->fd, r->page, r->page_size);
	} while (n < 0 && errno == EINTR);
	/* ENODEV: a CPU never up has no ring yet, so nothing to read. */
	if (n < 0 && !wait && (errno == EAGAIN || errno == ENODEV))
		return 0;
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	if ((size_t)n < r->page_size)
		memset(r->page + n, 0, r->page_size - (size_t)n);
	r->start = r->next = 0;
	r->end = 1;
	return 1;
}

int kt_modring_get(struct kt_modring *r, bool wait)
{
	if (r->next < r->end)
		return 1;
	/* Walked pages not given back would be taken again. */
	if (r->start < r->next)
		return -EINVAL;
	return r->map ? get_mapped(r, wait) : get_read(r, wait);
}

unsigned int kt_modring_walk(struct kt_modring *r, unsigned int max,
			     const void **pages)
{
	unsigned long long slot, n = r->end - r->next;

	if (!n || !max)
		return 0;
	if (!r->map) {
		*pages = r->page;
		r->next++;
		return 1;
	}
	slot = r->next % r->nr_pages;
	if (n > r->nr_pages - slot)
		n = r->nr_pages - slot;
	if (n > max)
		n = max;
	*pages = r->map + slot * r->page_size;
	r->next += n;
	return (unsigned int)n;
}

unsigned long long kt_modring_left(const struct kt_modring *r)
{
	return r->end - r->next;
}

int kt_modring_put(struct kt_modring *r, struct kt_modring_gone *gone)
{
	struct ktrace_buf_pos pos;

	memset(gone, 0, sizeof(*gone));
	gone->pages = r->next - r->start;
	if (!r->map || !gone->pages) {
		r->start = r->next;
		return 0;
	}
	memset(&pos, 0, sizeof(pos));
	pos.consumed = r->next;
	if (ioctl(r->fd, KTRACE_BUF_PUT_CONSUMED, &pos))
		return -errno;
	if (pos.valid > r->start)
		gone->taken = pos.valid - r->start < gone->pages ?
			      pos.valid - r->start : gone->pages;
	gone->missed = pos.missed;
	r->start = r->next;
	return 0;
}
