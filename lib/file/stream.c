// SPDX-License-Identifier: GPL-2.0
/*
 * One CPU's pages of a trace.dat buffer, in file order (see reader.h):
 * read a bounded window at a time, or for a compressed file one chunk
 * at a time, unpacked.  Every size is checked against the CPU's data
 * before it is used; damage ends the stream with one warning.
 *
 * A series' stream (series.c) is its CPU's pages chunk after chunk: one
 * chunk reader and its stream at a time, opened when the last chunk's
 * pages are done, so a series costs what one file does.  A damaged
 * chunk ends its part only; the next chunk goes on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "file/ahead.h"
#include "file/rawpage.h"
#include "file/reader-int.h"
#include "file/tracedat.h"
#include "ktrace-page.h"

struct kt_stream {
	struct kt_reader *r;
	const char *bufname;
	int cpu;
	bool compressed;
	uint64_t pos;		/* next file byte to read */
	uint64_t end;
	unsigned char *win;	/* window (+ slack) */
	size_t win_cap;
	size_t win_len;
	size_t cur;		/* offset of the current page in win */
	bool started;
	uint64_t win_off;	/* file offset of win (chunk offset if packed) */
	uint32_t chunks_left;
	/* Packed bytes read ahead: zcap of them at file offset zoff, zlen read. */
	unsigned char *zbuf;
	size_t zcap, zlen;
	uint64_t zoff;
	bool done;
	/* A series' stream: the next chunk to look in, the one being read. */
	int next;
	struct kt_reader *cr;
	struct kt_stream *sub;
	bool windowed;
	uint64_t from, to;	/* shown times: chunks outside are not read */
	struct ahead_fill *fill;	/* the next window, read ahead */
	/*
	 * A packed window read ahead holds several chunks: the file offset
	 * of each (a page's offset is its chunk's) and where it ends in win.
	 * nc 0: one chunk, at win_off.
	 */
	uint64_t *coff;
	size_t *cend;
	int nc, ci, ccap;
};

/*
 * The stream's next window, read (and unpacked) by the reader's second
 * thread (ahead.h) from where the stream stood when it was posted, into
 * a window of its own that is swapped with the stream's when taken.  It
 * only reads what fill_plain() and fill_packed() would read without a
 * complaint; anything else (the stream's end, damage, no memory) leaves
 * ok false, and the stream does the fill itself, warnings and all.
 */
struct ahead_fill {
	struct kt_ahead_job job;	/* first: the job is the fill */
	struct kt_stream *s;		/* read only in the thread */
	uint64_t pos;			/* the stream's pos ... */
	uint32_t chunks_left;		/* ... and chunks when posted */
	bool ok;
	unsigned char *win, *zbuf;
	size_t win_cap, zcap;
	uint64_t zoff;			/* zbuf: zlen packed bytes from zoff */
	size_t zlen;
	uint64_t win_off, pos_after;
	size_t win_len;
	uint32_t chunks_after;
	/* packed: the chunks unpacked one after the other into win */
	uint64_t *coff;
	size_t *cend;
	int nc, ccap;
};

static int stream_bad(struct kt_stream *s, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int stream_bad(struct kt_stream *s, uint64_t at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* A quiet reader (a series' chunk counted for stat) leaves it to the decoder. */
	kt_log(s->r->quiet ? KT_LOG_DEBUG : KT_LOG_WARN,
	       "damaged trace file '%s': CPU %d%s%s%s data at byte %llu: %s; skipping the rest of CPU %d",
		s->r->path, s->cpu, *s->bufname ? " (buffer '" : "",
		s->bufname, *s->bufname ? "')" : "", (unsigned long long)at,
		msg, s->cpu);
	s->r->damaged = true;
	s->done = true;
	return -EBADMSG;
}

struct kt_stream *kt_stream_open(struct kt_reader *r, int buf, int i)
{
	struct cpu_data *d;
	struct kt_stream *s;

	if (buf < 0 || buf >= r->nbufs || i < 0 || i >= r->bufs[buf].nstreams) {
		errno = EINVAL;
		return NULL;
	}
	d = &r->bufs[buf].streams[i];
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->r = r;
	s->bufname = r->bufs[buf].name;
	s->cpu = d->cpu;
	if (r->series)
		return s;
	s->compressed = r->bufs[buf].compressed;
	s->pos = d->off;
	s->end = d->off + d->size;
	/* trace-cmd's stored size of packed data leaves out the chunk count. */
	if (s->compressed && d->size)
		s->end = s->end + 4 <= r->fsize ? s->end + 4 : r->fsize;
	return s;
}

void kt_stream_window(struct kt_stream *s, uint64_t from, uint64_t to)
{
	s->windowed = true;
	s->from = from;
	s->to = to;
}

static void series_leave(struct kt_stream *s)
{
	kt_stream_close(s->sub);
	kt_chunk_reader_close(s->cr);
	s->sub = NULL;
	s->cr = NULL;
}

static void ahead_drop(struct kt_stream *s)
{
	struct ahead_fill *f = s->fill;

	if (!f)
		return;
	kt_ahead_wait(s->r->ahead, &f->job);
	free(f->win);
	free(f->zbuf);
	free(f->coff);
	free(f->cend);
	free(f);
	s->fill = NULL;
}

void kt_stream_close(struct kt_stream *s)
{
	if (!s)
		return;
	ahead_drop(s);
	free(s->coff);
	free(s->cend);
	series_leave(s);
	free(s->win);
	free(s->zbuf);
	free(s);
}

static int grow(unsigned char **buf, size_t *cap, size_t want)
{
	unsigned char *p;

	if (*cap >= want)
		return 0;
	p = realloc(*buf, want);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

static int fill_plain(struct kt_stream *s)
{
	struct kt_reader *r = s->r;
	uint64_t left = s->end - s->pos;
	size_t n;
	int ret;

	if (left < r->page_size) {
		if (left)
			return stream_bad(s, s->pos, "%llu bytes left, less than a page of %u",
					  (unsigned long long)left, r->page_size);
		return 0;
	}
	n = left < r->window ? (size_t)left : r->window;
	n -= n % r->page_size;
	/* What this fill needs: a small stream takes no whole window. */
	if (grow(&s->win, &s->win_cap, n + KT_STREAM_SLACK))
		return -ENOMEM;
	ret = kt_reader_pread_all(r->fd, s->win, n, s->pos);
	if (ret == -EBADMSG)
		return stream_bad(s, s->pos, "the file ends early");
	if (ret) {
		kt_err("cannot read '%s': %s", r->path, strerror(-ret));
		return ret;
	}
	memset(s->win + n, 0, KT_STREAM_SLACK);
	s->win_off = s->pos;
	s->win_len = n;
	s->pos += n;
	return 1;
}

/*
 * A packed stream's bytes at..at+len, from the bytes read ahead: a
 * chunk is a few KB and its header 8 bytes, and a pread() of each
 * (1,400 for a function_graph trace of 5 MB, 164 now) cost 1-1.5 ms
 * of a 62 ms report.  Never past the stream's end; a read ahead that
 * fails is tried again for len alone, so a file cut short fails where
 * it did.
 */
#define PACKED_AHEAD	(128u << 10)

/*
 * len bytes of packed data at at, from the bytes read last (*buf, *have
 * of them from *off) or read anew with what follows, up to
 * PACKED_AHEAD and end: a pread a few chunks, not two a chunk (their
 * header, then their bytes).  The stream's and its fill ahead's.
 */
static int packed_read(int fd, uint64_t end, unsigned char **buf, size_t *cap,
		       uint64_t *off, size_t *have, uint64_t at, size_t len,
		       const unsigned char **p)
{
	size_t want = len;
	int ret;

	if (at >= *off && at - *off <= *have && len <= *have - (at - *off)) {
		*p = *buf + (at - *off);
		return 0;
	}
	if (want < PACKED_AHEAD && end - at > want)
		want = end - at < PACKED_AHEAD ? (size_t)(end - at) : PACKED_AHEAD;
	*have = 0;
	if (grow(buf, cap, want ? want : 1))
		return -ENOMEM;
	ret = kt_reader_pread_all(fd, *buf, want, at);
	if (ret && want > len)
		ret = kt_reader_pread_all(fd, *buf, want = len, at);
	if (ret)
		return ret;
	*off = at;
	*have = want;
	*p = *buf;
	return 0;
}

static int packed_bytes(struct kt_stream *s, uint64_t at, size_t len,
			const unsigned char **p)
{
	return packed_read(s->r->fd, s->end, &s->zbuf, &s->zcap, &s->zoff,
			   &s->zlen, at, len, p);
}

static int fill_packed(struct kt_stream *s)
{
	struct kt_reader *r = s->r;
	const unsigned char *h, *z;
	uint32_t csize, usize;
	uint64_t at;
	int ret;

	if (!s->started) {
		if (s->end - s->pos < 4)
			return stream_bad(s, s->pos, "expected a chunk count");
		ret = packed_bytes(s, s->pos, 4, &h);
		if (ret)
			return ret == -EBADMSG ? stream_bad(s, s->pos, "the file ends early") : ret;
		s->chunks_left = get32(r, h);
		s->pos += 4;
	}
	if (!s->chunks_left)
		return 0;
	at = s->pos;
	if (s->end - s->pos < 8)
		return stream_bad(s, at, "expected a chunk header, %llu bytes left",
				  (unsigned long long)(s->end - s->pos));
	ret = packed_bytes(s, s->pos, 8, &h);
	if (ret)
		return ret == -EBADMSG ? stream_bad(s, at, "the file ends early") : ret;
	csize = get32(r, h);
	usize = get32(r, h + 4);
	s->pos += 8;
	if (csize > s->end - s->pos)
		return stream_bad(s, at, "chunk of %u compressed bytes runs past the CPU data end",
				  csize);
	if (!kt_dat_chunk_size_ok(usize, r->page_size))
		return stream_bad(s, at, "chunk unpacks to %u bytes, expected a multiple of the page size up to %u",
				  usize, KT_DAT_MAX_CHUNK);
	if (grow(&s->win, &s->win_cap, (size_t)usize + KT_STREAM_SLACK))
		return -ENOMEM;
	ret = packed_bytes(s, s->pos, csize, &z);
	if (ret)
		return ret == -EBADMSG ? stream_bad(s, at, "the file ends early") : ret;
	s->pos += csize;
	if (kt_reader_unpack(r, z, csize, s->win, usize))
		return stream_bad(s, at, "chunk does not unpack with %s to the %u bytes it claims",
				  r->comp_name, usize);
	memset(s->win + usize, 0, KT_STREAM_SLACK);
	s->chunks_left--;
	s->win_off = at;
	s->win_len = usize;
	return 1;
}

/* A chunk's place in f: false when the arrays cannot grow. */
static bool ahead_chunk(struct ahead_fill *f, uint64_t at, size_t end)
{
	if (f->nc == f->ccap) {
		int n = f->ccap ? 2 * f->ccap : 16;
		uint64_t *o = realloc(f->coff, (size_t)n * sizeof(*o));
		size_t *e;

		if (!o)
			return false;
		f->coff = o;
		e = realloc(f->cend, (size_t)n * sizeof(*e));
		if (!e)
			return false;
		f->cend = e;
		f->ccap = n;
	}
	f->coff[f->nc] = at;
	f->cend[f->nc++] = end;
	return true;
}

/* packed_bytes() for the fill ahead, from its own buffer. */
static int ahead_bytes(struct ahead_fill *f, uint64_t at, size_t len,
		       const unsigned char **p)
{
	return packed_read(f->s->r->fd, f->s->end, &f->zbuf, &f->zcap, &f->zoff,
			   &f->zlen, at, len, p);
}

/*
 * In the reader's second thread: the fill posted, into f's own window.
 * Packed data: chunk after chunk (a trace-cmd chunk is a few tens of KB)
 * up to a window's worth, so that the thread is woken once a window, not
 * once a chunk; it stops before the first chunk it cannot take.
 */
static void fill_ahead(struct kt_ahead_job *j)
{
	struct ahead_fill *f = (struct ahead_fill *)j;
	const struct kt_stream *s = f->s;
	struct kt_reader *r = s->r;
	const unsigned char *h, *z;
	uint32_t csize, usize, left = f->chunks_left;
	uint64_t pos = f->pos;
	size_t n = 0;

	f->ok = false;
	f->nc = 0;
	if (!s->compressed) {
		uint64_t rest = s->end - pos;

		if (rest < r->page_size)
			return;
		n = rest < r->window ? (size_t)rest : r->window;
		n -= n % r->page_size;
		if (grow(&f->win, &f->win_cap, n + KT_STREAM_SLACK) ||
		    kt_reader_pread_all(r->fd, f->win, n, pos))
			return;
		pos += n;
	}
	while (s->compressed && left && n < r->window) {
		if (s->end - pos < 8 || ahead_bytes(f, pos, 8, &h))
			break;
		csize = get32(r, h);
		usize = get32(r, h + 4);
		if (csize > s->end - pos - 8 || !kt_dat_chunk_size_ok(usize, r->page_size) ||
		    grow(&f->win, &f->win_cap, n + usize + KT_STREAM_SLACK) ||
		    ahead_bytes(f, pos + 8, csize, &z) ||
		    kt_reader_unpack_ctx(r, &r->ahead_unpack, z, csize, f->win + n, usize) ||
		    !ahead_chunk(f, pos, n + usize))
			break;
		n += usize;
		pos += 8 + (uint64_t)csize;
		left--;
	}
	if (!n)
		return;
	memset(f->win + n, 0, KT_STREAM_SLACK);
	f->win_off = f->pos;
	f->win_len = n;
	f->pos_after = pos;
	f->chunks_after = left;
	f->ok = true;
}

/* After a fill: post the next one, if the reader reads ahead and there is one. */
static void ahead_post(struct kt_stream *s)
{
	struct ahead_fill *f = s->fill;

	if (!s->r->ahead || !s->r->ahead_now || s->done)
		return;
	if (s->compressed ? !s->chunks_left : s->end - s->pos < s->r->page_size)
		return;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return;
		f->job.fn = fill_ahead;
		f->s = s;
		s->fill = f;
	}
	f->pos = s->pos;
	f->chunks_left = s->chunks_left;
	kt_ahead_post(s->r->ahead, &f->job);
}

/* The window read ahead, swapped in: 1, or 0 when the stream must fill itself. */
static int ahead_take(struct kt_stream *s)
{
	struct ahead_fill *f = s->fill;
	unsigned char *w;
	size_t cap;

	if (!f || !kt_ahead_wait(s->r->ahead, &f->job) || !f->ok ||
	    f->pos != s->pos)
		return 0;
	w = s->win;
	cap = s->win_cap;
	s->win = f->win;
	s->win_cap = f->win_cap;
	f->win = w;
	f->win_cap = cap;
	s->win_off = f->win_off;
	s->win_len = f->win_len;
	s->pos = f->pos_after;
	s->chunks_left = f->chunks_after;
	if (s->compressed) {
		uint64_t *o = s->coff;
		size_t *e = s->cend;
		int c = s->ccap;

		s->coff = f->coff;
		s->cend = f->cend;
		s->ccap = f->ccap;
		s->nc = f->nc;
		s->ci = 0;
		f->coff = o;
		f->cend = e;
		f->ccap = c;
	}
	return 1;
}

/* Chunk c's part of s: 1 and *b, *i when it has pages in s's window. */
static bool series_wants(const struct kt_stream *s, const struct kt_chunk *c,
			 int *b, int *i)
{
	const struct cpu_data *d;

	if (kt_chunk_find(c, s->bufname, s->cpu, b, i))
		return false;
	d = &c->bufs[*b].streams[*i];
	if (!d->size)
		return false;
	if (!s->windowed || d->first > d->last)
		return true;
	return kt_reader_ts(s->r, d->last) >= s->from &&
	       kt_reader_ts(s->r, d->first) <= s->to;
}

static int series_next_page(struct kt_stream *s, void **page, uint64_t *offset)
{
	struct kt_series *se = s->r->series;
	int b, i, ret;

	for (;;) {
		if (!s->sub) {
			while (s->next < se->n &&
			       !series_wants(s, &se->chunks[s->next], &b, &i))
				s->next++;
			if (s->next == se->n) {
				s->done = true;
				return 0;
			}
			s->cr = kt_chunk_reader_open(s->r, &se->chunks[s->next++]);
			if (!s->cr) {
				s->r->damaged = true;
				continue;
			}
			s->sub = kt_stream_open(s->cr, b, i);
			if (!s->sub) {
				series_leave(s);
				return -ENOMEM;
			}
		}
		ret = kt_stream_next_page(s->sub, page, offset);
		if (ret == 1)
			return 1;
		if (s->cr->damaged)
			s->r->damaged = true;
		series_leave(s);
		if (ret < 0 && ret != -EBADMSG) {
			s->done = true;
			return ret;
		}
	}
}

int kt_stream_next_page(struct kt_stream *s, void **page, uint64_t *offset)
{
	int ret;

	if (s->done)
		return 0;
	if (s->r->series)
		return series_next_page(s, page, offset);
	if (s->started && s->cur + 2 * (size_t)s->r->page_size <= s->win_len) {
		s->cur += s->r->page_size;
	} else {
		uint64_t from = s->pos;

		ret = s->started ? ahead_take(s) : 0;
		if (!ret) {
			s->nc = 0;
			ret = s->compressed ? fill_packed(s) : fill_plain(s);
		}
		s->started = true;
		if (ret <= 0) {
			s->done = true;
			return ret;
		}
		s->cur = 0;
		if (s->r->ahead_trying)
			s->r->ahead_now = kt_ahead_trial_step(&s->r->trial, s->pos - from);
		ahead_post(s);
	}
	*page = s->win + s->cur;
	*offset = s->win_off + (s->compressed ? 0 : s->cur);
	if (s->nc) {
		while (s->ci < s->nc - 1 && s->cur >= s->cend[s->ci])
			s->ci++;
		*offset = s->coff[s->ci];
	}
	return 1;
}

const char *kt_stream_path(const struct kt_stream *s)
{
	return s->cr ? s->cr->path : s->r->path;
}

void *kt_stream_peek_page(struct kt_stream *s)
{
	if (s->r->series)
		return s->sub ? kt_stream_peek_page(s->sub) : NULL;
	if (s->done || !s->started ||
	    s->cur + 2 * (size_t)s->r->page_size > s->win_len)
		return NULL;
	/* (as without reading ahead: not a page of the next chunk) */
	if (s->nc && s->cur + s->r->page_size >= s->cend[s->ci])
		return NULL;
	return s->win + s->cur + s->r->page_size;
}

void kt_page_scan(const struct kt_reader *r, const unsigned char *page,
		  uint64_t *last, uint64_t *events, long long *missed)
{
	static const int32_t need[1];
	struct kt_rawpage_fmt f = { .swap = r->swap, .big = r->big,
				    .need = need, .nids = 1 };
	unsigned int hdr = r->long_size == 8 ? 16 : 12, pos = 0, commit;
	struct kt_rawpage_rec rec;
	const char *why;
	uint64_t ts = get64(r, page), flags;

	*events = 0;
	*missed = 0;
	*last = ts;
	flags = r->long_size == 8 ? get64(r, page + 8) : get32(r, page + 8);
	commit = (unsigned int)(flags & KT_RB_COMMIT_MASK);
	if (commit > r->page_size - hdr)
		return;
	if (flags & KT_RB_MISSED_EVENTS) {
		*missed = -1;
		if ((flags & KT_RB_MISSED_STORED) &&
		    commit + (unsigned int)r->long_size <= r->page_size - hdr)
			*missed = (long long)(r->long_size == 8 ?
				get64(r, page + hdr + commit) :
				get32(r, page + hdr + commit));
	}
	while (kt_rawpage_next(&f, page + hdr, commit, &pos, &ts, &rec, &why) == 1) {
		(*events)++;
		*last = ts;
	}
}

/* Make s's next page the first of its last window (or chunk). */
static int seek_last(struct kt_stream *s)
{
	struct kt_reader *r = s->r;
	unsigned char h[8];
	uint64_t at;
	uint32_t n;

	if (!s->compressed) {
		uint64_t pages = (s->end - s->pos) / r->page_size;

		if (pages > 1)
			s->pos += (pages - 1) * r->page_size;
		return 0;
	}
	if (s->end - s->pos < 4 || kt_reader_pread_all(r->fd, h, 4, s->pos))
		return -EBADMSG;
	n = get32(r, h);
	at = s->pos + 4;
	while (n-- > 1) {
		if (at > s->end || s->end - at < 8 ||
		    kt_reader_pread_all(r->fd, h, 8, at))
			return -EBADMSG;
		at += 8 + (uint64_t)get32(r, h);
	}
	if (at > s->end)
		return -EBADMSG;
	s->pos = at;
	s->chunks_left = 1;
	s->started = true;
	return 0;
}

void kt_stream_span(struct kt_reader *r, int buf, int i, uint64_t *first,
		    uint64_t *last)
{
	struct kt_stream *s = kt_stream_open(r, buf, i);
	uint64_t off;
	void *page;

	*first = 1;
	*last = 0;
	if (!s)
		return;
	if (kt_stream_next_page(s, &page, &off) == 1) {
		*first = get64(r, page);
		kt_stream_close(s);
		s = kt_stream_open(r, buf, i);
		if (!s || seek_last(s)) {
			*first = 1;
			goto out;
		}
		while (kt_stream_next_page(s, &page, &off) == 1) {
			uint64_t n;
			long long missed;

			kt_page_scan(r, page, last, &n, &missed);
		}
		if (*last < *first)
			*first = 1, *last = 0;
	}
out:
	kt_stream_close(s);
}
