// SPDX-License-Identifier: GPL-2.0
/*
 * Counting events live from per_cpu/cpuN/trace_pipe_raw, mapped where the
 * kernel allows it (no copy at all), read() page by page elsewhere; and
 * from ktrace.ko's traceN through its cursor (live/module/modring.h), which
 * maps or read()s it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <kbuffer.h>

#include "live/buffers/livebuf.h"
#include "live/module/modring.h"
#include "base/log.h"

/*
 * include/uapi/linux/trace_mmap.h of Linux 6.10+, which Debian 12's
 * kernel headers predate: the first page of the mapping.
 */
struct kt_trace_buffer_meta {
	uint32_t meta_page_size;
	uint32_t meta_struct_len;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id;
		uint32_t read;
	} reader;
	uint64_t flags;
	uint64_t entries;
	uint64_t overrun;
	uint64_t read;
	uint64_t reserved1;
	uint64_t reserved2;
};
#define KT_TRACE_MMAP_IOCTL_GET_READER _IO('R', 0x20)

/* Pages per drain call: a buffer's worth at the default size and more. */
#define DRAIN_MAX_PAGES 2048

struct kt_livebuf {
	int fd;
	int cpu;
	unsigned int flags;
	size_t subbuf_size;
	struct kbuffer *kb;
	uint64_t missed;
	bool missed_unknown;
	/* mmap */
	struct kt_trace_buffer_meta *meta;
	size_t meta_len;
	unsigned char *data;
	size_t data_len;
	uint32_t cur_id;	/* reader sub-buffer being read */
	size_t cur_off;		/* how far into its data we counted */
	/* ktrace.ko's traceN, mapped or read() */
	struct kt_modring *ring;
	/* read() */
	unsigned char *page;
};

static void add_missed(struct kt_livebuf *lb, long long missed)
{
	if (missed > 0)
		lb->missed += (uint64_t)missed;
	else if (missed < 0)
		lb->missed_unknown = true;
}

static size_t subbuf_size_of(struct tracefs_instance *inst)
{
	char *path = tracefs_instance_get_file(inst, "buffer_subbuf_size_kb");
	size_t size = (size_t)getpagesize();
	char text[32];
	ssize_t n;
	int fd;

	if (!path)
		return size;
	/* Kernels before 6.8 have no such file: the sub-buffer is a page. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return size;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n > 0) {
		text[n] = '\0';
		if (strtoul(text, NULL, 10) > 0)
			size = strtoul(text, NULL, 10) * 1024;
	}
	return size;
}

/* Map the meta page and the sub-buffers; -errno leaves nothing mapped. */
static int map_buffer(struct kt_livebuf *lb)
{
	size_t psize = (size_t)getpagesize();
	void *meta, *data;

	meta = mmap(NULL, psize, PROT_READ, MAP_SHARED, lb->fd, 0);
	if (meta == MAP_FAILED)
		return -errno;
	lb->meta = meta;
	lb->meta_len = psize;
	if (lb->meta->meta_struct_len < sizeof(*lb->meta) ||
	    lb->meta->meta_page_size < psize ||
	    lb->meta->subbuf_size < 64 || !lb->meta->nr_subbufs)
		goto err_meta;
	if (lb->meta->meta_page_size > psize) {
		size_t len = lb->meta->meta_page_size;

		munmap(meta, psize);
		meta = mmap(NULL, len, PROT_READ, MAP_SHARED, lb->fd, 0);
		if (meta == MAP_FAILED)
			return -errno;
		lb->meta = meta;
		lb->meta_len = len;
	}
	lb->subbuf_size = lb->meta->subbuf_size;
	lb->data_len = lb->subbuf_size * lb->meta->nr_subbufs;
	data = mmap(NULL, lb->data_len, PROT_READ, MAP_SHARED, lb->fd,
		    (off_t)lb->meta_len);
	if (data == MAP_FAILED) {
		int ret = -errno;

		munmap(lb->meta, lb->meta_len);
		lb->meta = NULL;
		return ret;
	}
	lb->data = data;
	/* What a reader before us consumed of the current page stays read. */
	lb->cur_id = lb->meta->reader.id;
	lb->cur_off = lb->meta->reader.read;
	return 0;
err_meta:
	munmap(lb->meta, lb->meta_len);
	lb->meta = NULL;
	return -EPROTO;
}

/*
 * Open path for reading, mapped unless flags or the kernel say no; inst
 * (the ring buffer's instance, for its sub-buffer size) NULL with
 * KT_LIVEBUF_NO_MMAP is a file of whole pages (ktrace.ko's traceN).
 */
static struct kt_livebuf *open_path(const char *path, struct tracefs_instance *inst,
				    int cpu, unsigned int flags)
{
	struct kt_livebuf *lb;
	int err;

	lb = calloc(1, sizeof(*lb));
	if (!lb)
		return NULL;
	lb->cpu = cpu;
	lb->flags = flags;
	lb->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	err = errno;
	if (lb->fd < 0)
		goto err_free;
	if (flags & KT_LIVEBUF_KBUFFER) {
		lb->kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
				       KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!lb->kb) {
			err = ENOMEM;
			goto err_close;
		}
	}
	if (flags & KT_LIVEBUF_PAGES) {
		lb->ring = kt_modring_new(lb->fd, cpu, flags & KT_LIVEBUF_NO_MMAP);
		if (!lb->ring) {
			err = errno;
			goto err_kb;
		}
		lb->subbuf_size = kt_modring_page_size(lb->ring);
		return lb;
	}
	if (!(flags & KT_LIVEBUF_NO_MMAP)) {
		err = -map_buffer(lb);
		if (!err)
			return lb;
		kt_debug("cpu%d: cannot map the ring buffer (%s); reading it",
			 cpu, strerror(err));
	}
	lb->subbuf_size = subbuf_size_of(inst);
	lb->page = malloc(lb->subbuf_size);
	if (!lb->page) {
		err = ENOMEM;
		goto err_kb;
	}
	return lb;
err_kb:
	if (lb->kb)
		kbuffer_free(lb->kb);
err_close:
	close(lb->fd);
err_free:
	free(lb);
	errno = err;
	return NULL;
}

struct kt_livebuf *kt_livebuf_open(struct tracefs_instance *inst, int cpu,
				   unsigned int flags)
{
	struct kt_livebuf *lb;
	char file[64];
	char *path;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	path = tracefs_instance_get_file(inst, file);
	if (!path) {
		errno = ENOMEM;
		return NULL;
	}
	lb = open_path(path, inst, cpu, flags & ~KT_LIVEBUF_PAGES);
	tracefs_put_tracing_file(path);
	return lb;
}

unsigned int kt_livebuf_env_flags(void)
{
	const char *env = getenv("KTRACE_NO_MMAP");

	return env && *env && strcmp(env, "0") ? KT_LIVEBUF_NO_MMAP : 0;
}

struct kt_livebuf *kt_livebuf_open_pages(const char *path, int cpu,
					 unsigned int flags)
{
	return open_path(path, NULL, cpu, flags | KT_LIVEBUF_PAGES);
}

void kt_livebuf_close(struct kt_livebuf *lb)
{
	if (!lb)
		return;
	if (lb->data)
		munmap(lb->data, lb->data_len);
	if (lb->meta)
		munmap(lb->meta, lb->meta_len);
	kt_modring_free(lb->ring);
	free(lb->page);
	if (lb->kb)
		kbuffer_free(lb->kb);
	close(lb->fd);
	free(lb);
}

bool kt_livebuf_mapped(const struct kt_livebuf *lb)
{
	return lb->data || (lb->ring && kt_modring_mapped(lb->ring));
}

bool kt_livebuf_ringless(const struct kt_livebuf *lb)
{
	return lb->ring && kt_modring_ringless(lb->ring);
}

/*
 * A CPU that was never online has no ring buffer, and poll() on its file
 * answers POLLERR at once, every time: a caller polling it would spin,
 * and under syscall events count its own spinning (top on a VM with a
 * possible CPU never brought up: 60k+ events/s of its own).  So such a
 * buffer gives no fd to poll; callers still drain it every round.
 */
int kt_livebuf_fd(const struct kt_livebuf *lb)
{
	struct pollfd p = { .fd = lb->fd, .events = POLLIN };

	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL)))
		return -1;
	return lb->fd;
}

uint64_t kt_livebuf_missed(const struct kt_livebuf *lb, bool *unknown)
{
	if (unknown)
		*unknown = lb->missed_unknown;
	return lb->missed;
}

static int count_page(struct kt_livebuf *lb, void *page,
		      const struct kt_rawpage_hdr *hdr, size_t *off,
		      const uint16_t *slot, uint64_t *counts)
{
	if (lb->kb)
		return kt_rawpage_count_kbuffer(lb->kb, page, hdr, off, slot,
						counts);
	return kt_rawpage_count(page, hdr, off, slot, counts);
}

/*
 * The kernel hands the reader one sub-buffer at a time.  GET_READER swaps
 * in the next one once the current is consumed, or returns the same one
 * when the writer is still filling it; it then counts as consumed up to
 * its commit, so we remember how far we counted ourselves.
 */
static long drain_mapped(struct kt_livebuf *lb, const uint16_t *slot,
			 uint64_t *counts)
{
	struct kt_rawpage_hdr hdr;
	long total = 0;
	unsigned char *page;
	uint32_t id;
	bool same, same_before = false;
	int i, n;

	for (i = 0; i < DRAIN_MAX_PAGES; i++) {
		if (ioctl(lb->fd, KT_TRACE_MMAP_IOCTL_GET_READER) < 0) {
			if (errno == EINTR)
				continue;
			return total ? total : -errno;
		}
		id = __atomic_load_n(&lb->meta->reader.id, __ATOMIC_ACQUIRE);
		if (id >= lb->meta->nr_subbufs)
			return -EPROTO;
		page = lb->data + (size_t)id * lb->subbuf_size;
		if (kt_rawpage_header(page, lb->subbuf_size, &hdr) < 0)
			return -EBADMSG;
		same = id == lb->cur_id;
		if (!same) {
			lb->cur_id = id;
			lb->cur_off = 0;
			add_missed(lb, hdr.missed);
		}
		if (hdr.len <= lb->cur_off)
			break;
		n = count_page(lb, page, &hdr, &lb->cur_off, slot, counts);
		if (n < 0)
			return n;
		total += n;
		/*
		 * More on the same page twice in a row means we are reading
		 * where the writer writes; stop there, or our own ioctl()s,
		 * traced as syscalls, would keep us here.
		 */
		if (same && same_before)
			break;
		same_before = same;
	}
	return total;
}

static long drain_read(struct kt_livebuf *lb, const uint16_t *slot,
		       uint64_t *counts)
{
	struct kt_rawpage_hdr hdr;
	long total = 0;
	size_t off;
	ssize_t got;
	int i, n;

	for (i = 0; i < DRAIN_MAX_PAGES; i++) {
		got = read(lb->fd, lb->page, lb->subbuf_size);
		if (got < 0 && errno == EINTR)
			continue;
		/*
		 * ENODEV: a CPU that has never been online has no ring
		 * buffer yet, so nothing to read (it gets one when it comes).
		 */
		if (got < 0 && (errno == EAGAIN || errno == ENODEV))
			break;
		if (got < 0)
			return total ? total : -errno;
		if (got == 0)
			break;
		if (kt_rawpage_header(lb->page, (size_t)got, &hdr) < 0)
			return -EBADMSG;
		add_missed(lb, hdr.missed);
		off = 0;
		n = count_page(lb, lb->page, &hdr, &off, slot, counts);
		if (n < 0)
			return n;
		total += n;
		/*
		 * A page far from full is the one the writer is on: stop, or
		 * our own read()s, traced as syscalls, would keep us here.
		 */
		if (hdr.len < (lb->subbuf_size - hdr.data_off) / 2)
			break;
	}
	return total;
}

/*
 * ktrace.ko's traceN: the cursor's pages handed out one per call, each
 * batch given back on the call after its last.  A flight writer that
 * took some while they were looked at makes the missed count unknown:
 * what was counted of them may be torn.  Pages read() say themselves
 * what was lost before them.
 */
static int module_put(struct kt_livebuf *lb)
{
	struct kt_modring_gone gone;
	int ret;

	ret = kt_modring_put(lb->ring, &gone);
	if (ret)
		return ret;
	add_missed(lb, (long long)gone.missed);
	if (gone.taken)
		lb->missed_unknown = true;
	return 0;
}

static int next_module(struct kt_livebuf *lb, void **page, size_t *skip,
		       size_t *end)
{
	struct kt_rawpage_hdr hdr;
	const void *p;
	int ret;

	if (!kt_modring_walk(lb->ring, 1, &p)) {
		ret = module_put(lb);
		if (ret)
			return ret;
		ret = kt_modring_get(lb->ring, false);
		if (ret <= 0)
			return ret;
		if (!kt_modring_walk(lb->ring, 1, &p))
			return 0;
	}
	if (kt_rawpage_header(p, lb->subbuf_size, &hdr) < 0)
		return -EBADMSG;
	if (!kt_modring_mapped(lb->ring))
		add_missed(lb, hdr.missed);
	*page = (void *)p;
	*skip = 0;
	*end = hdr.len;
	return 1;
}

static long drain_module(struct kt_livebuf *lb, const uint16_t *slot,
			 uint64_t *counts)
{
	struct kt_rawpage_hdr hdr;
	long total = 0;
	size_t off, end;
	void *page;
	int i, n;

	for (i = 0; i < DRAIN_MAX_PAGES; i++) {
		n = next_module(lb, &page, &off, &end);
		if (n < 0)
			return total ? total : n;
		if (!n)
			break;
		if (kt_rawpage_header(page, lb->subbuf_size, &hdr) < 0)
			return -EBADMSG;
		n = count_page(lb, page, &hdr, &off, slot, counts);
		if (n < 0)
			return n;
		total += n;
		/* The page being written, closed for us: see drain_read(). */
		if (!kt_modring_left(lb->ring) &&
		    hdr.len < (lb->subbuf_size - hdr.data_off) / 2)
			break;
	}
	/*
	 * Counted, so given back now: a complete page left in the ring
	 * makes poll() answer at once, and top spun on its own syscalls.
	 */
	if (!kt_modring_left(lb->ring)) {
		n = module_put(lb);
		if (n < 0)
			return total ? total : n;
	}
	return total;
}

long kt_livebuf_drain(struct kt_livebuf *lb, const uint16_t *slot,
		      uint64_t *counts)
{
	if (lb->ring)
		return drain_module(lb, slot, counts);
	return lb->data ? drain_mapped(lb, slot, counts)
			: drain_read(lb, slot, counts);
}

/*
 * Mapped: GET_READER hands out the reader sub-buffer, a new one once the
 * current is consumed, or the same one with more committed when the
 * writer is still on it; we remember how far we handed it out.
 */
static int next_mapped(struct kt_livebuf *lb, void **page, size_t *skip,
		       size_t *end)
{
	struct kt_rawpage_hdr hdr;
	unsigned char *p;
	uint32_t id;

	while (ioctl(lb->fd, KT_TRACE_MMAP_IOCTL_GET_READER) < 0)
		if (errno != EINTR)
			return -errno;
	id = __atomic_load_n(&lb->meta->reader.id, __ATOMIC_ACQUIRE);
	if (id >= lb->meta->nr_subbufs)
		return -EPROTO;
	p = lb->data + (size_t)id * lb->subbuf_size;
	if (kt_rawpage_header(p, lb->subbuf_size, &hdr) < 0)
		return -EBADMSG;
	if (id != lb->cur_id) {
		lb->cur_id = id;
		lb->cur_off = 0;
		add_missed(lb, hdr.missed);
	}
	if (hdr.len <= lb->cur_off)
		return 0;
	*page = p;
	*skip = lb->cur_off;
	*end = hdr.len;
	lb->cur_off = hdr.len;
	return 1;
}

static int next_read(struct kt_livebuf *lb, void **page, size_t *skip,
		     size_t *end)
{
	struct kt_rawpage_hdr hdr;
	ssize_t got;

	do {
		got = read(lb->fd, lb->page, lb->subbuf_size);
	} while (got < 0 && errno == EINTR);
	/* ENODEV: no ring buffer yet (see drain_read). */
	if (got < 0)
		return errno == EAGAIN || errno == ENODEV ? 0 : -errno;
	if (got == 0)
		return 0;
	if (kt_rawpage_header(lb->page, (size_t)got, &hdr) < 0)
		return -EBADMSG;
	add_missed(lb, hdr.missed);
	*page = lb->page;
	*skip = 0;
	*end = hdr.len;
	return 1;
}

int kt_livebuf_next(struct kt_livebuf *lb, void **page, size_t *skip,
		    size_t *end)
{
	if (lb->ring)
		return next_module(lb, page, skip, end);
	return lb->data ? next_mapped(lb, page, skip, end)
			: next_read(lb, page, skip, end);
}

size_t kt_livebuf_subbuf_size(const struct kt_livebuf *lb)
{
	return lb->subbuf_size;
}
