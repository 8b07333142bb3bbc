// SPDX-License-Identifier: GPL-2.0
/*
 * The pages of a snapshot of a --rotate recording: see snappages.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/tmpfile.h"
#include "file/pack.h"
#include "file/rawpage.h"
#include "file/reader.h"
#include "file/tracedat.h"
#include "file/unpack.h"
#include "file/writer.h"
#include "file/piecepack.h"
#include "live/session/sink.h"
#include "live/session/snappages.h"
#include "live/tracefs/tracefs.h"

/*
 * One CPU's scratch files, a page behind: kept only once the next one
 * says.  The finished chunks' pages kept go into pfd as packed blocks
 * (their own, copied as they are, or packed here a few pages at a time
 * in pend), the pieces' after them into fd.
 */
struct cpu_out {
	int fd;
	unsigned long long size;
	char *prev;
	bool have_prev;
	bool started;		/* the window began: every page after is in */
	bool in_chunks;		/* kept pages go to pfd */
	int pfd;
	unsigned long long plen;
	uint32_t blocks;
	char *pend;
	size_t npend;		/* pages in pend */
};

/* What the chunks' blocks are copied and cut with. */
struct gather {
	struct kt_reader *r;
	unsigned long long cutoff;
	size_t page;
	struct kt_pack *pack;	/* NULL: the chunks' pages are copied loose */
	const char *codec;
	struct kt_unpack *unpack;
	char *sec;		/* a CPU's packed data of a chunk */
	size_t sec_cap;
	char *ubuf, *zbuf;	/* a block unpacked; a group packed */
	size_t ucap, zcap;
	struct kt_snapshot_res *res;
	bool count;
	const char *beside;
};

static uint64_t page_ts(const void *page)
{
	uint64_t ts;

	memcpy(&ts, page, sizeof(ts));
	return ts;
}

/* The pages in pend, packed as one block at the end of pfd. */
static int pack_pend(struct gather *g, struct cpu_out *o)
{
	size_t len = o->npend * g->page;
	uint32_t sizes[2];
	ssize_t n;
	int ret;

	if (!o->npend)
		return 0;
	n = kt_pack_block(g->pack, o->pend, len, g->zbuf + 8, g->zcap, 0);
	if (n < 0)
		return (int)n;
	sizes[0] = n;
	sizes[1] = len;
	memcpy(g->zbuf, sizes, 8);
	ret = kt_write_all(o->pfd, g->zbuf, 8 + n);
	if (ret)
		return ret;
	o->plen += 8 + n;
	o->blocks++;
	o->npend = 0;
	return 0;
}

/* A page is in: after the chunks' blocks (pend) or the pieces' (fd). */
static int keep_page(struct gather *g, struct cpu_out *o, const void *page)
{
	uint64_t n = 0, ts = page_ts(page);
	int ret;

	if (!g->res->first_ts || ts < g->res->first_ts)
		g->res->first_ts = ts;
	if (o->in_chunks && g->pack) {
		if (!kt_rawpage_events(page, g->page, &n))
			g->res->events += n;
		memcpy(o->pend + o->npend++ * g->page, page, g->page);
		return o->npend == KT_DAT_CHUNK_PAGES ? pack_pend(g, o) : 0;
	}
	/* Pages loose in fd are counted there (sink-file.c). */
	ret = kt_write_all(o->fd, page, g->page);
	if (!ret)
		o->size += g->page;
	return ret;
}

static int put_page(struct gather *g, struct cpu_out *o, const void *page)
{
	int ret = 0;

	if (!g->cutoff || o->started)
		return keep_page(g, o, page);
	if (o->have_prev && page_ts(page) >= g->cutoff)
		ret = keep_page(g, o, o->prev);
	memcpy(o->prev, page, g->page);
	o->have_prev = true;
	return ret;
}

/* What the chunks stored they lost, per CPU (the series sums them). */
static void chunk_losses(const struct kt_reader *r, int ncpus,
			 struct kt_cpu_stats *prior, unsigned long long *prior_unw)
{
	struct kt_cpu_stats st;
	const char *text, *u;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		text = kt_reader_cpustat(r, 0, cpu);
		if (!text || kt_cpu_stats_parse(text, &st))
			continue;
		prior[cpu].overrun += st.overrun;
		prior[cpu].commit_overrun += st.commit_overrun;
		prior[cpu].dropped += st.dropped;
		u = strstr(text, KT_CPUSTAT_UNWRITTEN);
		if (u)
			prior_unw[cpu] += strtoull(u + strlen(KT_CPUSTAT_UNWRITTEN), NULL, 10);
	}
}

/*
 * The finished chunks' pages, per CPU, read loose (another compression:
 * a trigger's ring is kept unpacked): into blocks packed with g's codec
 * (in_chunks), or into the loose scratch files when the snapshot is not
 * packed.
 */
static int loose_chunks(struct gather *g, int ncpus, struct cpu_out *out)
{
	struct kt_stream *st;
	uint64_t at;
	void *p;
	int i, cpu, ret = 0;

	for (i = 0; !ret && i < kt_reader_streams(g->r, 0); i++) {
		cpu = kt_reader_stream_cpu(g->r, 0, i);
		if (cpu < 0 || cpu >= ncpus)
			continue;
		st = kt_stream_open(g->r, 0, i);
		if (!st)
			return -errno;
		while (!ret && (ret = kt_stream_next_page(st, &p, &at)) == 1)
			ret = put_page(g, &out[cpu], p);
		kt_stream_close(st);
	}
	return ret;
}

static int grow(char **buf, size_t *cap, size_t want)
{
	char *p;

	if (want <= *cap)
		return 0;
	p = realloc(*buf, want);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

/* A chunk's CPU data as blocks: where each begins in g->sec. */
struct blocks {
	size_t n;
	size_t *at;		/* [n + 1]: the last, where the data ends */
};

/* Read chunk path's packed CPU data c into g->sec; its blocks into b. */
static int read_blocks(struct gather *g, const char *path,
		       const struct kt_reader_chunk_cpu *c, struct blocks *b)
{
	uint32_t count, sizes[2];
	size_t at = 0, len = c->size;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = grow(&g->sec, &g->sec_cap, len + 4);
	if (!ret)
		ret = kt_pread_all(fd, g->sec, len + 4, c->off);
	close(fd);
	if (ret)
		return ret == -EIO ? -EBADMSG : ret;
	memcpy(&count, g->sec, 4);
	if (count > len / 8)
		return -EBADMSG;
	free(b->at);
	b->at = malloc(((size_t)count + 1) * sizeof(*b->at));
	if (!b->at)
		return -ENOMEM;
	for (b->n = 0, at = 4; b->n < count; b->n++) {
		if (len + 4 - at < 8)
			return -EBADMSG;
		memcpy(sizes, g->sec + at, 8);
		if (sizes[0] > len + 4 - at - 8 ||
		    !kt_dat_chunk_size_ok(sizes[1], g->page))
			return -EBADMSG;
		b->at[b->n] = at;
		at += 8 + (size_t)sizes[0];
	}
	b->at[b->n] = at;
	return 0;
}

/* Block i of g->sec unpacked into g->ubuf: its bytes, or -errno. */
static ssize_t unpack_block(struct gather *g, const struct blocks *b, size_t i)
{
	uint32_t sizes[2];
	int ret;

	memcpy(sizes, g->sec + b->at[i], 8);
	ret = grow(&g->ubuf, &g->ucap, sizes[1]);
	if (ret)
		return ret;
	if (!strcmp(g->codec, "zstd"))
		ret = kt_unpack_zstd(g->unpack, g->sec + b->at[i] + 8, sizes[0],
				     g->ubuf, sizes[1]);
	else
		ret = kt_unpack_zlib(g->unpack, g->sec + b->at[i] + 8, sizes[0],
				     g->ubuf, sizes[1]);
	return ret ? ret : (ssize_t)sizes[1];
}

/* The time of block i's first page. */
static int block_ts(struct gather *g, const struct blocks *b, size_t i,
		    uint64_t *ts)
{
	ssize_t n = unpack_block(g, b, i);

	if (n < 0)
		return (int)n;
	*ts = page_ts(g->ubuf);
	return 0;
}

/* Block i's pages through put_page(). */
static int feed_block(struct gather *g, const struct blocks *b, size_t i,
		      struct cpu_out *o)
{
	ssize_t n = unpack_block(g, b, i), at;
	int ret = n < 0 ? (int)n : 0;

	for (at = 0; !ret && at + (ssize_t)g->page <= n; at += g->page)
		ret = put_page(g, o, g->ubuf + at);
	return ret;
}

/*
 * Whole packed blocks come next: the page before them kept, the pages
 * kept so far packed into a block of their own.
 */
static int whole_blocks_next(struct gather *g, struct cpu_out *o)
{
	int ret = 0;

	if (o->have_prev)
		ret = keep_page(g, o, o->prev);
	o->have_prev = false;
	return ret ? ret : pack_pend(g, o);
}

/* The window began: every page from here on is in. */
static void began(struct gather *g, struct cpu_out *o, uint64_t first_ts)
{
	o->started = true;
	if (!g->res->first_ts || first_ts < g->res->first_ts)
		g->res->first_ts = first_ts;
}

/*
 * Blocks [from, b->n) whole into the CPU's packed file, as they are:
 * the window began.  Counted (unpacked, never packed again) if asked.
 */
static int copy_blocks(struct gather *g, const struct blocks *b, size_t from,
		       uint64_t first_ts, struct cpu_out *o)
{
	uint64_t ev;
	ssize_t n, at;
	size_t i;
	int ret = 0;

	if (from >= b->n)
		return 0;
	ret = whole_blocks_next(g, o);
	if (!ret)
		ret = kt_write_all(o->pfd, g->sec + b->at[from],
				   b->at[b->n] - b->at[from]);
	if (ret)
		return ret;
	o->plen += b->at[b->n] - b->at[from];
	o->blocks += b->n - from;
	began(g, o, first_ts);
	for (i = from; g->count && i < b->n; i++) {
		n = unpack_block(g, b, i);
		if (n < 0)
			return (int)n;
		for (at = 0; at + (ssize_t)g->page <= n; at += g->page)
			if (!kt_rawpage_events(g->ubuf + at, g->page, &ev))
				g->res->events += ev;
	}
	return 0;
}

/* Pages [from, to) of the piece through put_page(), a few at a time. */
static int feed_piece(struct gather *g, const struct kt_writer_cpu *c,
		      unsigned long long from, unsigned long long to,
		      struct cpu_out *o)
{
	size_t n, at;
	int ret = 0;

	while (!ret && from < to) {
		n = to - from < g->ucap ? (size_t)(to - from) : g->ucap;
		ret = kt_pread_all(c->fd, g->ubuf, n, c->off + from);
		for (at = 0; !ret && at + g->page <= n; at += g->page)
			ret = put_page(g, o, g->ubuf + at);
		from += n;
	}
	return ret;
}

/*
 * An unpacked chunk's pages of a CPU (c, in the file at path), as a
 * piece's: kept from the window on, packed with the chunks' blocks.
 */
static int loose_chunk(struct gather *g, const char *path,
		       const struct kt_reader_chunk_cpu *c, struct cpu_out *o)
{
	struct kt_writer_cpu in = { .off = c->off };
	int ret = grow(&g->ubuf, &g->ucap, KT_DAT_CHUNK_PAGES * g->page);

	if (ret)
		return ret;
	in.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in.fd < 0)
		return -errno;
	ret = feed_piece(g, &in, 0, c->size - c->size % g->page, o);
	close(in.fd);
	return ret == -EIO ? -EBADMSG : ret;
}

/*
 * Chunk k of a CPU's: the first chunk whose pages reach the window is
 * cut (kstar: the last one that begins before it), a block's pages at a
 * time (the block the window begins in found by halving); the blocks
 * after, and every chunk after, are copied whole.
 */
static int packed_chunk(struct gather *g, const char *path, int k, int kstar,
			const struct kt_reader_chunk_cpu *c, struct blocks *b,
			struct cpu_out *o)
{
	uint64_t ts = c->first;
	size_t lo, hi, i, from;
	int ret;

	if (!o->started && c->first <= c->last && k < kstar) {
		/* Every page of it is followed by one before the window. */
		o->have_prev = false;
		return 0;
	}
	/* An auto ring's quiet chunk: its pages, packed here. */
	if (!c->packed)
		return loose_chunk(g, path, c, o);
	ret = read_blocks(g, path, c, b);
	if (ret || !b->n)
		return ret;
	if (o->started)
		return copy_blocks(g, b, 0, ts, o);
	if (c->first > c->last) {
		/* No events (or no span read): page by page. */
		for (i = 0; !ret && i < b->n; i++)
			ret = feed_block(g, b, i, o);
		return ret;
	}
	if (k > kstar)
		return copy_blocks(g, b, 0, ts, o);
	/* The first block beginning in the window, from the second on. */
	for (lo = 1, hi = b->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		ret = block_ts(g, b, mid, &ts);
		if (ret)
			return ret;
		if (ts >= g->cutoff)
			hi = mid;
		else
			lo = mid + 1;
	}
	from = lo;
	if (from < b->n) {
		ret = block_ts(g, b, from, &ts);
		if (ret)
			return ret;
	}
	ret = feed_block(g, b, from - 1, o);
	return ret ? ret : copy_blocks(g, b, from, ts, o);
}

/*
 * The finished chunks' pages, per CPU, as packed blocks, the chunks'
 * own whole ones as they are.  Only where their compression is g's.
 */
static int packed_chunks(struct gather *g, const char *const *chunks, int n,
			 int ncpus, struct cpu_out *out)
{
	struct kt_reader_chunk_cpu c;
	struct kt_reader_chunk ch;
	struct blocks b = { 0 };
	int k, cpu, kstar, ret = 0;

	/* The series' chunks in time order, as it read them. */
	if (kt_reader_chunks(g->r))
		n = kt_reader_chunks(g->r);
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		kstar = -1;
		for (k = 0; g->cutoff && k < n; k++)
			if (!kt_reader_chunk_cpu(g->r, k, cpu, &c) &&
			    c.first <= c.last && c.first < g->cutoff)
				kstar = k;
		for (k = 0; !ret && k < n; k++)
			if (!kt_reader_chunk_cpu(g->r, k, cpu, &c))
				ret = packed_chunk(g, kt_reader_chunks(g->r) &&
						   !kt_reader_chunk(g->r, k, &ch) ?
						   ch.path : chunks[0], k, kstar,
						   &c, &b, &out[cpu]);
		if (!ret)
			ret = pack_pend(g, &out[cpu]);
	}
	free(b.at);
	return ret;
}

/*
 * Whether every chunk is packed as the snapshot will be, or not at all
 * (an unpacked ring's, an auto ring's quiet ones): each CPU's blocks
 * then go in as they are, its loose pages packed here.
 */
static bool same_packing(struct gather *g, int n, int ncpus)
{
	struct kt_reader_chunk_cpu c;
	struct kt_reader_chunk ch;
	const char *codec;
	int k, cpu;

	if (!strcmp(g->codec, "none") || !kt_pack_known(g->codec))
		return false;
	for (k = 0; k < n; k++) {
		if (kt_reader_chunks(g->r) && kt_reader_chunk(g->r, k, &ch))
			return false;
		codec = kt_reader_chunks(g->r) ? ch.compression :
			kt_reader_compression(g->r);
		if (!strcmp(codec, "none"))
			continue;
		if (strcmp(codec, g->codec))
			return false;
		for (cpu = 0; cpu < ncpus; cpu++)
			if (!kt_reader_chunk_cpu(g->r, k, cpu, &c) && !c.packed)
				return false;
	}
	return true;
}

/* Packing with g->codec: its state, and each CPU's blocks' scratch file. */
static int packing_start(struct gather *g, int ncpus, struct cpu_out *out)
{
	size_t cap;
	int cpu, ret;

	g->pack = kt_pack_new(g->codec);
	g->unpack = kt_unpack_new();
	cap = kt_pack_bound(g->pack, KT_DAT_CHUNK_PAGES * g->page) + 8;
	g->zbuf = g->pack && g->unpack ? malloc(cap) : NULL;
	g->zcap = cap - 8;
	if (!g->zbuf)
		return -ENOMEM;
	for (cpu = 0, ret = 0; !ret && cpu < ncpus; cpu++) {
		out[cpu].pend = malloc(KT_DAT_CHUNK_PAGES * g->page);
		out[cpu].pfd = out[cpu].pend ? kt_tmpfile_scratch(g->beside) : -ENOMEM;
		if (out[cpu].pfd < 0)
			ret = out[cpu].pfd;
	}
	return ret;
}

/* The finished chunks' pages, per CPU. */
static int from_chunks(struct gather *g, const char *const *chunks, int n,
		       int ncpus, struct cpu_out *out,
		       struct kt_cpu_stats *prior, unsigned long long *prior_unw)
{
	bool same;
	int cpu, ret;

	g->r = kt_reader_open_list_index(chunks, n);
	if (!g->r)
		return -errno;
	if (kt_reader_page_size(g->r) != g->page)
		return -EINVAL;
	chunk_losses(g->r, ncpus, prior, prior_unw);
	same = same_packing(g, n, ncpus);
	/* Loose into the snapshot's blocks here, not through a scratch file. */
	if (!same && (!strcmp(g->codec, "none") || !kt_pack_known(g->codec)))
		return loose_chunks(g, ncpus, out);
	ret = packing_start(g, ncpus, out);
	for (cpu = 0; cpu < ncpus; cpu++)
		out[cpu].in_chunks = true;
	if (!ret && same)
		ret = packed_chunks(g, chunks, n, ncpus, out);
	else if (!ret)
		ret = loose_chunks(g, ncpus, out);
	for (cpu = 0; !ret && !same && cpu < ncpus; cpu++)
		ret = pack_pend(g, &out[cpu]);
	for (cpu = 0; cpu < ncpus; cpu++)
		out[cpu].in_chunks = false;
	return ret;
}

/*
 * The pieces' pages of CPU cpu, packed as they came (pk, already
 * extended to all of them): the blocks lying wholly in the window copied
 * as they are after the chunks', the pages of the block the window
 * begins in kept as any (packed with the chunks' edge).
 */
static int packed_piece(struct gather *g, struct kt_piecepack *pk, int cpu,
			const struct kt_writer_cpu *c, struct cpu_out *o)
{
	struct kt_piecepack_block b;
	uint32_t n = kt_piecepack_blocks(pk, cpu), from = 0;
	unsigned long long ev = 0;
	int ret = 0;

	if (!n)
		return 0;
	o->in_chunks = true;
	if (g->cutoff && !o->started) {
		/* The first block beginning in the window, from the second on. */
		for (from = 1; from < n; from++)
			if (!kt_piecepack_block(pk, cpu, from, &b) &&
			    b.first_ts >= g->cutoff)
				break;
		if (!kt_piecepack_block(pk, cpu, from - 1, &b))
			ret = feed_piece(g, c, b.src, b.src + b.src_len, o);
	}
	if (!ret && from < n && !kt_piecepack_block(pk, cpu, from, &b)) {
		ret = whole_blocks_next(g, o);
		if (!ret)
			ret = kt_piecepack_copy(pk, cpu, from, o->pfd, &o->blocks,
						&o->plen);
		if (!ret)
			began(g, o, b.first_ts);
		/* Counted from the pages, only when asked (never packed again). */
		if (!ret && g->count &&
		    !kt_rawpage_count_file(c->fd, c->off + b.src,
					   c->off + kt_piecepack_src(pk, cpu),
					   g->page, &ev))
			g->res->events += ev;
	}
	if (!ret)
		ret = pack_pend(g, o);
	o->in_chunks = false;
	return ret;
}

/* The pieces' pages of a CPU, after the chunks'. */
static int from_piece(struct gather *g, struct kt_piecepack *pk, int cpu,
		      const struct kt_writer_cpu *c, struct cpu_out *o)
{
	int ret = grow(&g->ubuf, &g->ucap, KT_DAT_CHUNK_PAGES * g->page);

	if (ret)
		return ret;
	if (pk && g->pack && o->pfd >= 0 && c->off == 0) {
		ret = kt_piecepack_extend(pk, cpu, c->fd, c->size, 1);
		if (!ret)
			return packed_piece(g, pk, cpu, c, o);
		/*
		 * The pack's own file refused its last pages (a full disk):
		 * nothing of this CPU is written yet, so its pages go as any
		 * piece's, packed here; the series drops the pack at its next
		 * tick and packs at the chunk's end, as without one.
		 */
		kt_debug("the pages packed as they came: %s; packing CPU %d's here",
			 strerror(-ret), cpu);
	}
	return feed_piece(g, c, 0, c->size - c->size % g->page, o);
}

int kt_snappages_gather(const struct kt_snappages *in,
			struct kt_writer_cpu *cpus, struct kt_cpu_stats *prior,
			unsigned long long *prior_unw, struct kt_snapshot_res *res)
{
	struct gather g = {
		.cutoff = in->cutoff, .page = (size_t)getpagesize(),
		.codec = in->codec, .res = res, .count = in->count,
		.beside = in->beside,
	};
	int ncpus = in->ncpus;
	struct cpu_out *out = calloc(ncpus, sizeof(*out));
	int cpu, ret = out ? 0 : -ENOMEM;

	for (cpu = 0; out && cpu < ncpus; cpu++)
		out[cpu].fd = out[cpu].pfd = -1;
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		out[cpu].prev = malloc(g.page);
		out[cpu].fd = out[cpu].prev ? kt_tmpfile_scratch(in->beside) : -ENOMEM;
		if (out[cpu].fd < 0)
			ret = out[cpu].fd;
	}
	if (ret) {
		kt_err("cannot make room beside '%s': %s", in->beside, strerror(-ret));
		goto out;
	}
	/*
	 * No finished chunk yet (a ring's first, or a long one): the pieces'
	 * blocks packed as they came are still copied, not packed again.
	 */
	if (in->n) {
		ret = from_chunks(&g, in->chunks, in->n, ncpus, out, prior, prior_unw);
		if (ret)
			kt_err("cannot read the finished files of the recording for '%s': %s",
			       in->beside, strerror(-ret));
	} else if (in->pieces && strcmp(g.codec, "none") && kt_pack_known(g.codec)) {
		ret = packing_start(&g, ncpus, out);
		if (ret)
			kt_err("cannot make room beside '%s': %s", in->beside,
			       strerror(-ret));
	}
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		ret = from_piece(&g, in->pieces, cpu, &cpus[cpu], &out[cpu]);
		/* The newest page is always in. */
		if (!ret && out[cpu].have_prev) {
			ret = kt_write_all(out[cpu].fd, out[cpu].prev, g.page);
			out[cpu].size += ret ? 0 : g.page;
		}
		if (ret)
			kt_err("cannot write beside '%s': %s", in->beside, strerror(-ret));
	}
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		close(cpus[cpu].fd);
		memset(&cpus[cpu], 0, sizeof(cpus[cpu]));
		cpus[cpu].fd = out[cpu].fd;
		cpus[cpu].size = out[cpu].size;
		out[cpu].fd = -1;
		/* No blocks: no file (closed below) for the caller to close. */
		cpus[cpu].packed_fd = -1;
		if (!out[cpu].blocks)
			continue;
		cpus[cpu].packed_fd = out[cpu].pfd;
		cpus[cpu].packed_blocks = out[cpu].blocks;
		cpus[cpu].packed_len = out[cpu].plen;
		out[cpu].pfd = -1;
	}
out:
	for (cpu = 0; out && cpu < ncpus; cpu++) {
		if (out[cpu].fd >= 0)
			close(out[cpu].fd);
		if (out[cpu].pfd >= 0)
			close(out[cpu].pfd);
		free(out[cpu].prev);
		free(out[cpu].pend);
	}
	if (g.r)
		kt_reader_close(g.r);
	kt_pack_free(g.pack);
	kt_unpack_free(g.unpack);
	free(g.sec);
	free(g.ubuf);
	free(g.zbuf);
	free(out);
	return ret;
}
