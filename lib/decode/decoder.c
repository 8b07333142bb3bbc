// SPDX-License-Identifier: GPL-2.0
/* Per-CPU ring-buffer pages merged into one checked, time-ordered stream. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/byteorder.h"
#include "decode/decoder.h"
#include "base/aliases.h"
#include "base/evspec.h"
#include "base/log.h"
#include "base/lsan.h"
#include "file/rawpage.h"
#include "file/reader.h"
#include "file/tepcheck.h"
#include "ktrace-page.h"

#define NR_IDS			65536

struct iter {
	struct kt_stream *s;
	int buf;
	int cpu;
	int idx;		/* merge order: buffer, then CPU */
	uint64_t page_off;
	/* The current page: its data area, committed length, clock. */
	const unsigned char *data;	/* NULL: load the next page */
	unsigned int pos;
	unsigned int commit;
	uint64_t clock;
	long long lost;		/* events lost before the page (0 when hidden) */
	uint64_t rec_base;	/* page_off + its header: a record's offset less rr.hdr */
	bool hidden;		/* a CPU --cpu leaves out, read (read_hidden) */
	/* Neither hidden nor selected from: its records are all selected. */
	bool all;
	struct tep_record rec;
	/*
	 * What the merge hands out: its record, buffer and CPU set once
	 * (kt_decoder_new()), its event (of rec) by iter_next_inline(),
	 * selected by the merge; not a copy made for each record.
	 */
	struct kt_event ev;
};

struct kt_decoder {
	struct kt_reader *r;
	struct tep_handle *tep;
	/* kt_reader_ts()'s numbers (kt_reader_ts_scale), for each record inline */
	uint32_t ts_mult, ts_shift;
	long long ts_offset;
	struct kt_decoder_opts opts;
	struct iter *its;
	int nits;
	struct iter **heap;
	int nheap;
	/* Smallest payload each event id needs; -1: no such event. */
	int32_t *need;
	struct tep_event **evs;	/* by id */
	struct kt_rawpage_fmt fmt;
	/* Each event id's dynamic fields (NULL: none), checked per record. */
	struct dyn_info **dyn;
	int nids;		/* entries in need, evs and dyn */
	/* kt_reader_formats_gen() when they were made (lazyfmt.c). */
	unsigned int fgen;
	unsigned long page_warnings;
	bool swap;
	int long_size;
	unsigned int page_size;
	/*
	 * Set once, not worked out for each record: a page's header
	 * bytes, the data area's bytes, and whether --from or --to set
	 * a window.
	 */
	unsigned int hdr_size, data_size;
	bool window;
	/* Selection. */
	bool selecting;		/* any of the below */
	bool *ids;		/* NULL: every event */
	struct tep_event_filter *filter;
	bool has_filter;
	int *pids;
	int npids;
	char **comms;
	int ncomms;
	struct kt_catalog *cat;	/* the file's events, for -e */
	/* kt_decoder_next(): the heap is built; its top was handed out. */
	bool pulling, handed;
};

static uint32_t rd32(const struct kt_decoder *d, const void *p)
{
	return kt_get32(d->swap, p);
}

static uint64_t rd64(const struct kt_decoder *d, const void *p)
{
	return kt_get64(d->swap, p);
}

static uint64_t rdlong(const struct kt_decoder *d, const void *p)
{
	return d->long_size == 8 ? rd64(d, p) : rd32(d, p);
}

/*
 * A __data_loc or __rel_loc field: 16 bits of offset, 16 of length (or
 * only an offset, in a 2-byte one), pointing into the record.
 * libtraceevent follows a __rel_loc's offset without checking it against
 * the record, for a __get_cpumask() of length 0 asks malloc for 3 GB
 * (found by tests/fuzz/fuzz_format.c), and prints a string with %s to
 * its NUL, wherever that is; so all three are checked first.
 */
struct dyn_field {
	int offset, size;
	bool rel;		/* __rel_loc: from the end of the field */
	bool cpumask;		/* printed by __get_cpumask() */
	bool string;		/* printed with %s: must hold its NUL */
};

struct dyn_info {
	int n;
	struct dyn_field f[];
};

/* Does the print fmt print the field NAME with __get_cpumask()? */
static bool prints_cpumask(const struct tep_print_arg *a, const char *name,
			   int depth)
{
	for (; a && depth < 32; a = a->next) {
		const struct tep_print_arg *sub[2] = { NULL, NULL };

		switch (a->type) {
		case TEP_PRINT_CPUMASK:
			if (a->bitmask.bitmask && !strcmp(a->bitmask.bitmask, name))
				return true;
			break;
		case TEP_PRINT_OP:
			sub[0] = a->op.left;
			sub[1] = a->op.right;
			break;
		case TEP_PRINT_TYPE:
			sub[0] = a->typecast.item;
			break;
		case TEP_PRINT_FUNC:
			sub[0] = a->func.args;
			break;
		case TEP_PRINT_FLAGS:
			sub[0] = a->flags.field;
			break;
		case TEP_PRINT_SYMBOL:
			sub[0] = a->symbol.field;
			break;
		default:
			break;
		}
		if (prints_cpumask(sub[0], name, depth + 1) ||
		    prints_cpumask(sub[1], name, depth + 1))
			return true;
	}
	return false;
}

static struct dyn_info *event_dyn(struct tep_event *ev)
{
	struct tep_format_field *f;
	struct dyn_info *di;
	int n = 0;

	for (f = ev->format.fields; f; f = f->next)
		n += !!(f->flags & TEP_FIELD_IS_DYNAMIC);
	if (!n)
		return NULL;
	di = calloc(1, sizeof(*di) + (size_t)n * sizeof(di->f[0]));
	if (!di)
		return NULL;
	for (f = ev->format.fields; f; f = f->next) {
		struct dyn_field *df = &di->f[di->n];

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) ||
		    (f->size != 2 && f->size != 4 && f->size != 8))
			continue;
		df->offset = f->offset;
		df->size = f->size;
		df->rel = f->flags & TEP_FIELD_IS_RELATIVE;
		df->cpumask = prints_cpumask(ev->print_fmt.args, f->name, 0);
		df->string = f->flags & TEP_FIELD_IS_STRING;
		di->n++;
	}
	return di;
}

/*
 * NULL when the record's dynamic fields lie inside it (len bytes, avail
 * readable to its page's end).  *rec_only: only this record is bad.
 * *reach: the bytes a formatter reads, past len when a string's NUL is.
 */
static const char *dyn_problem(const struct kt_decoder *d, unsigned int id,
			       const unsigned char *rec, unsigned int len,
			       unsigned int avail, bool *rec_only,
			       unsigned int *reach)
{
	const unsigned char *nul;
	const struct dyn_info *di = d->dyn[id];
	int i;

	for (i = 0; di && i < di->n; i++) {
		const struct dyn_field *f = &di->f[i];
		uint64_t v, o, l;

		v = f->size == 2 ? kt_get16(d->swap, rec + f->offset) :
		    f->size == 4 ? rd32(d, rec + f->offset) : rd64(d, rec + f->offset);
		o = v & 0xffff;
		l = f->size == 2 ? (o <= len ? len - o : 0) : (v >> 16) & 0xffff;
		if (f->rel)
			o += (uint64_t)f->offset + (uint64_t)f->size;
		if (o + l > len)
			return "a record's dynamic field points past its end";
		if (f->cpumask && !l)
			return "a record's cpumask is empty";
		/*
		 * The kernel's __string() keeps the NUL, but a string may be
		 * shorter than its length says, or longer ("(null)", 6 bytes
		 * and no NUL, in arm64 EAS sched_load_se records): as
		 * libtraceevent (and so trace-cmd), it is printed to its NUL,
		 * which may lie after its length and after the record, in the
		 * page.  With no NUL before the page ends, only this record
		 * is left out.
		 */
		if (f->string && l && !memchr(rec + o, '\0', l)) {
			nul = memchr(rec + o, '\0', avail - o);
			if (!nul) {
				*rec_only = true;
				return "a record's string does not end in its page";
			}
			if ((unsigned int)(nul + 1 - rec) > *reach)
				*reach = (unsigned int)(nul + 1 - rec);
		}
	}
	return NULL;
}

static int page_hdr_size(const struct kt_decoder *d)
{
	return d->long_size == 8 ? 16 : 12;
}

/* After this many, damaged pages are counted, not each reported. */
#define MAX_PAGE_WARNINGS 10

static void page_warn(struct kt_decoder *d, struct iter *it, unsigned int at,
		      const char *what, bool rec_only)
{
	kt_reader_set_damaged(d->r);
	if (++d->page_warnings > MAX_PAGE_WARNINGS)
		return;
	kt_warn("damaged trace file '%s': CPU %d page at byte %llu: %s at page offset %u; skipping %s",
		kt_stream_path(it->s), it->cpu, (unsigned long long)it->page_off,
		what, at + page_hdr_size(d), rec_only ? "the record" : "the rest of the page");
}

static bool cpu_wanted(const struct kt_decoder *d, int cpu)
{
	if (!d->opts.cpus)
		return true;
	return cpu >= 0 && cpu < d->opts.ncpus && d->opts.cpus[cpu];
}

/*
 * ftrace's own events (system "ftrace") are declarations of the
 * kernel's ring-buffer entries, not tracepoint layouts: a trailing
 * fixed array there is as long as the record says, not as the format
 * says.  kernel_stack declares caller[8] and writes as many frames as
 * the stack has (FTRACE_STACK_ENTRIES is a declaration, not a length);
 * trace-cmd and libtraceevent read what the record holds.  So the
 * record must reach the array, not its declared end.
 */
static bool trailing_array(const struct tep_event *ev,
			   const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_ARRAY) &&
	       !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
	       ev->system && !strcmp(ev->system, "ftrace");
}

/*
 * What the walker needs to know of the file: where common_type is, how
 * long the common fields are, and the bytes each event's fields need,
 * so every record handed out is one libtraceevent can read in bounds.
 */
static int setup_events(struct kt_decoder *d, struct tep_event **old_evs,
			struct dyn_info **old_dyn, int old_nids)
{
	/*
	 * A copy: libtraceevent's own list (tep_list_events()) is made once
	 * and not told of formats parsed later (lazyfmt.c).
	 */
	struct tep_event **evs = tep_list_events_copy(d->tep, TEP_EVENT_SORT_ID);
	struct tep_format_field *f;
	unsigned int common = 8;
	int i, pass;

	/*
	 * Tables as long as the highest id: ids past it name no event.
	 * (NR_IDS each, they cost more to set up than a small file takes
	 * to read.)
	 */
	d->nids = 1;
	for (i = 0; evs && evs[i]; i++)
		if (evs[i]->id >= d->nids && evs[i]->id < NR_IDS)
			d->nids = evs[i]->id + 1;
	d->need = malloc((size_t)d->nids * sizeof(*d->need));
	d->evs = calloc((size_t)d->nids, sizeof(*d->evs));
	d->dyn = calloc((size_t)d->nids, sizeof(*d->dyn));
	if (!d->need || !d->evs || !d->dyn) {
		free(evs);
		return -ENOMEM;
	}
	memset(d->need, 0xff, (size_t)d->nids * sizeof(*d->need));
	d->fmt.nids = (unsigned int)d->nids;
	d->fmt.swap = d->swap;
	d->fmt.big = kt_reader_big_endian(d->r);
	d->fmt.need = d->need;
	if (!evs || !evs[0])
		goto out;
	/* libtraceevent reads common_type where the first event has it. */
	f = tep_find_common_field(evs[0], "common_type");
	if (!f || f->offset < 0 || f->offset > 64 || f->size < 0 || f->size > 8)
		goto out;	/* every record then names no event */
	d->fmt.type_off = (unsigned int)f->offset;
	d->fmt.type_size = (unsigned int)f->size;
	{
		unsigned int sz = 0;

		for (f = evs[0]->format.common_fields; f; f = f->next)
			if (f->offset >= 0 && f->size >= 0 &&
			    (unsigned int)(f->offset + f->size) > sz)
				sz = (unsigned int)(f->offset + f->size);
		if (sz > 0 && sz <= 64)
			common = sz;
	}
	if (common < d->fmt.type_off + d->fmt.type_size)
		common = d->fmt.type_off + d->fmt.type_size;
	d->fmt.min_size = common;
	d->fmt.plain = !d->fmt.swap && !d->fmt.big && d->fmt.type_size == 2 &&
		       d->fmt.nids && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	for (i = 0; evs[i]; i++) {
		struct tep_event *ev = evs[i];
		int32_t need = 0;
		bool ok = true;

		if (ev->id < 0 || ev->id >= NR_IDS)
			continue;
		for (pass = 0; pass < 2 && ok; pass++) {
			f = pass ? ev->format.fields : ev->format.common_fields;
			for (; f; f = f->next) {
				int64_t end = (int64_t)f->offset + f->size;

				if (f->offset < 0 || f->size < 0 || end > 65535) {
					ok = false;
					break;
				}
				if (pass && !f->next && trailing_array(ev, f))
					end = f->offset;
				if (end > need)
					need = (int32_t)end;
			}
		}
		if (need < 1)
			need = 1;
		/*
		 * A damaged file may give two formats one id, and
		 * libtraceevent may print a record with either: it must
		 * fit them all.
		 */
		if (!d->evs[ev->id]) {
			d->evs[ev->id] = ev;
			d->need[ev->id] = ok ? need : -1;
			/* The same event as the last tables': its fields again. */
			if (ok && ev->id < old_nids && old_evs[ev->id] == ev) {
				d->dyn[ev->id] = old_dyn[ev->id];
				old_dyn[ev->id] = NULL;
			} else if (ok) {
				d->dyn[ev->id] = event_dyn(ev);
			}
		} else if (d->need[ev->id] >= 0) {
			d->need[ev->id] = !ok ? -1 : need > d->need[ev->id] ?
					  need : d->need[ev->id];
		}
	}
out:
	free(evs);
	return 0;
}

/*
 * The tables by id, made again: formats were parsed since (lazyfmt.c).
 * An event the last tables had keeps its dynamic fields (a file of many
 * kinds of event is refreshed once for each: remade each time, they
 * were a tenth of its report).
 */
static int refresh_events(struct kt_decoder *d)
{
	struct tep_event **old_evs = d->evs;
	struct dyn_info **old_dyn = d->dyn;
	int i, old_nids = d->nids, ret;

	free(d->need);
	d->dyn = NULL;
	d->need = NULL;
	d->evs = NULL;
	d->fgen = kt_reader_formats_gen(d->r);
	ret = setup_events(d, old_evs, old_dyn, old_evs && old_dyn ? old_nids : 0);
	for (i = 0; old_dyn && i < old_nids; i++)
		if (old_dyn[i])
			free(old_dyn[i]);
	free(old_dyn);
	free(old_evs);
	return ret;
}

/*
 * Every format of the file parsed, for what names or filters events by
 * the file's whole list (-e, -F): the tables follow.
 */
static int all_events(struct kt_decoder *d)
{
	kt_reader_tep(d->r);
	if (kt_reader_formats_gen(d->r) == d->fgen)
		return 0;
	kt_catalog_free(d->cat);
	d->cat = NULL;
	return refresh_events(d);
}

struct kt_decoder *kt_decoder_new(struct kt_reader *r,
				  const struct kt_decoder_opts *opts)
{
	struct kt_decoder *d;
	int b, i, n = 0;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->r = r;
	/* Formats parsed as their records come (lazyfmt.c; iter_next()). */
	d->tep = kt_reader_tep_lazy(r);
	/* One event at least: where common_type is, how long the common fields are. */
	kt_reader_events_some(r);
	d->fgen = kt_reader_formats_gen(r);
	if (opts)
		d->opts = *opts;
	d->long_size = kt_reader_long_size(r);
	kt_reader_ts_scale(r, &d->ts_mult, &d->ts_shift, &d->ts_offset);
	d->page_size = kt_reader_page_size(r);
	d->swap = kt_reader_big_endian(r) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	d->hdr_size = (unsigned int)page_hdr_size(d);
	d->data_size = d->page_size - d->hdr_size;
	d->window = d->opts.has_from || d->opts.has_to;
	if (setup_events(d, NULL, NULL, 0))
		goto err;
	for (b = 0; b < kt_reader_buffers(r); b++)
		n += kt_reader_streams(r, b);
	d->its = calloc(n ? n : 1, sizeof(*d->its));
	d->heap = calloc(n ? n : 1, sizeof(*d->heap));
	if (!d->its || !d->heap)
		goto err;
	for (b = 0; b < kt_reader_buffers(r); b++) {
		for (i = 0; i < kt_reader_streams(r, b); i++) {
			struct iter *it = &d->its[d->nits];

			it->buf = b;
			it->cpu = kt_reader_stream_cpu(r, b, i);
			it->idx = d->nits;
			it->hidden = !cpu_wanted(d, it->cpu);
			if (it->hidden && !d->opts.read_hidden)
				continue;
			it->s = kt_stream_open(r, b, i);
			if (!it->s)
				goto err;
			/* A series' chunks outside the window are not opened. */
			if (d->opts.has_from || d->opts.has_to)
				kt_stream_window(it->s,
						 d->opts.has_from ? d->opts.from : 0,
						 d->opts.has_to ? d->opts.to : UINT64_MAX);
			it->rec.cpu = it->cpu;
			it->ev.record = &it->rec;
			it->ev.buffer = it->buf;
			it->ev.cpu = it->cpu;
			it->rec.ref_count = 1;
			it->rec.locked = 1;
			d->nits++;
		}
	}
	return d;
err:
	kt_decoder_free(d);
	errno = ENOMEM;
	return NULL;
}

void kt_decoder_free(struct kt_decoder *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < d->nits; i++)
		kt_stream_close(d->its[i].s);
	free(d->its);
	free(d->heap);
	for (i = 0; d->dyn && i < d->nids; i++)
		free(d->dyn[i]);
	free(d->dyn);
	free(d->need);
	free(d->evs);
	free(d->ids);
	kt_catalog_free(d->cat);
	if (d->filter)
		tep_filter_free(d->filter);
	free(d->pids);
	for (i = 0; i < d->ncomms; i++)
		free(d->comms[i]);
	free(d->comms);
	free(d);
}

/*
 * Load the next usable page of it; false at the end of its data.  Its
 * header is read as kbuffer reads it: the commit, and the events lost
 * before it (stored after the data, or unknown).
 */
static bool next_page(struct kt_decoder *d, struct iter *it)
{
	unsigned int hdr = (unsigned int)page_hdr_size(d);
	unsigned char *page, *peek;
	uint64_t off, flags;
	void *pg;

	for (;;) {
		if (kt_stream_next_page(it->s, &pg, &off) <= 0)
			return false;
		page = pg;
		it->page_off = off;
		if (d->opts.has_to &&
		    kt_reader_ts(d->r, rd64(d, page)) > d->opts.to)
			return false;
		/* Every record of a page comes before the next page starts. */
		if (d->opts.has_from && (peek = kt_stream_peek_page(it->s)) &&
		    kt_reader_ts(d->r, rd64(d, peek)) < d->opts.from)
			continue;
		flags = rdlong(d, page + 8);
		it->commit = (unsigned int)(flags & KT_RB_COMMIT_MASK);
		if (it->commit > d->page_size - hdr) {
			page_warn(d, it, 0, "commit size is larger than the page", false);
			continue;
		}
		it->data = page + hdr;
		it->pos = 0;
		it->clock = rd64(d, page);
		it->lost = 0;
		it->rec_base = off + hdr;
		/* A hidden CPU's marks are not printed (see iter_next_inline()). */
		if ((flags & KT_RB_MISSED_EVENTS) && !it->hidden) {
			it->lost = -1;
			if ((flags & KT_RB_MISSED_STORED) &&
			    it->commit + (unsigned int)d->long_size <= d->page_size - hdr)
				it->lost = (long long)rdlong(d, it->data + it->commit);
		}
		return true;
	}
}

/* Step it to its next record in the window; false when it has none. */
/* kt_reader_ts() of a record, without the call. */
static inline unsigned long long dec_ts(const struct kt_decoder *d,
					unsigned long long ts)
{
	if (d->ts_mult)
		ts = (unsigned long long)(((unsigned __int128)ts * d->ts_mult) >>
					  d->ts_shift);
	return ts + (unsigned long long)d->ts_offset;
}

/*
 * The iterator's next record: false at its end.  Inline in the merge's
 * loop, once a record (its call's frame and the record's fields written
 * through memory were 23 instructions a record), a call elsewhere
 * (iter_next()).
 */
static inline __attribute__((always_inline)) bool
iter_next_inline(struct kt_decoder *d, struct iter *it)
{
	struct kt_rawpage_rec rr;
	const char *why;
	unsigned int reach;
	bool rec_only;
	int ret;

	for (;;) {
		if (!it->data && !next_page(d, it))
			return false;
		ret = kt_rawpage_next_inline(&d->fmt, it->data, it->commit,
					     &it->pos, &it->clock, &rr, &why);
		if (ret <= 0) {
			/*
			 * An id the tables lack: its format parsed now, or
			 * since they were made (lazyfmt.c), and the record
			 * read again.
			 */
			if (ret == -ENOENT &&
			    (kt_reader_event_want(d->r, (int)rr.id) > 0 ||
			     kt_reader_formats_gen(d->r) != d->fgen)) {
				if (refresh_events(d))
					return false;
				continue;
			}
			if (ret < 0)
				page_warn(d, it, it->pos, why, false);
			it->data = NULL;
			continue;
		}
		/*
		 * Its dynamic fields must lie inside it before libtraceevent
		 * follows them; a bad one ends the page, as other damage.
		 */
		rec_only = false;
		reach = rr.size;
		why = d->dyn[rr.id] ?
		      dyn_problem(d, rr.id, it->data + rr.data, rr.size,
				  d->data_size - rr.data,
				  &rec_only, &reach) : NULL;
		if (why) {
			page_warn(d, it, rr.hdr, why, rec_only);
			if (!rec_only)
				it->data = NULL;
			continue;
		}
		it->rec.ts = dec_ts(d, rr.ts);
		/* A string running past the record: formatters read to its NUL. */
		it->rec.size = (int)reach;
		it->rec.record_size = (int)(rr.data + rr.size - rr.hdr);
		it->rec.data = (void *)(it->data + rr.data);
		it->rec.offset = it->rec_base + rr.hdr;
		/* As kbuffer: only a record at the page's very start carries them. */
		it->rec.missed_events = rr.hdr ? 0 : it->lost;
		it->ev.event = d->evs[rr.id];
		if (!d->window)
			return true;
		if (d->opts.has_to && it->rec.ts > d->opts.to)
			return false;
		if (d->opts.has_from && it->rec.ts < d->opts.from)
			continue;
		return true;
	}
}

static __attribute__((noinline)) bool iter_next(struct kt_decoder *d, struct iter *it)
{
	return iter_next_inline(d, it);
}

static int decoder_merge(struct kt_decoder *d, kt_event_fn fn, void *arg);

static bool heap_less(const struct iter *a, const struct iter *b)
{
	if (a->rec.ts != b->rec.ts)
		return a->rec.ts < b->rec.ts;
	return a->idx < b->idx;
}

static void heap_down(struct kt_decoder *d, int i)
{
	struct iter **h = d->heap;
	int n = d->nheap, l, m;

	for (;;) {
		l = 2 * i + 1;
		if (l >= n)
			return;
		m = l + 1 < n && heap_less(h[l + 1], h[l]) ? l + 1 : l;
		if (!heap_less(h[m], h[i]))
			return;
		struct iter *t = h[m];
		h[m] = h[i];
		h[i] = t;
		i = m;
	}
}

static void heap_up(struct kt_decoder *d, int i)
{
	struct iter **h = d->heap;

	while (i > 0) {
		int p = (i - 1) / 2;

		if (!heap_less(h[i], h[p]))
			return;
		struct iter *t = h[p];
		h[p] = h[i];
		h[i] = t;
		i = p;
	}
}

static bool selected(struct kt_decoder *d, struct tep_event *ev,
		     struct tep_record *rec)
{
	int i, pid;

	if (d->ids && !d->ids[ev->id])
		return false;
	if (d->has_filter) {
		int ret = tep_filter_match(d->filter, rec);

		if (ret != TEP_ERRNO__FILTER_MATCH && ret != TEP_ERRNO__NO_FILTER)
			return false;
	}
	if (d->npids || d->ncomms) {
		pid = tep_data_pid(d->tep, rec);
		for (i = 0; i < d->npids; i++)
			if (d->pids[i] == pid)
				return true;
		if (d->ncomms) {
			const char *comm = tep_data_comm_from_pid(d->tep, pid);

			for (i = 0; i < d->ncomms; i++)
				if (comm && !fnmatch(d->comms[i], comm, 0))
					return true;
		}
		return false;
	}
	return true;
}

static void warn_suppressed(struct kt_decoder *d)
{
	if (d->page_warnings > MAX_PAGE_WARNINGS)
		kt_warn("damaged trace file '%s': %lu more damaged pages skipped",
			kt_reader_path(d->r), d->page_warnings - MAX_PAGE_WARNINGS);
	d->page_warnings = 0;
}

int kt_decoder_run(struct kt_decoder *d, kt_event_fn fn, void *arg)
{
	int ret = decoder_merge(d, fn, arg);

	warn_suppressed(d);
	return ret;
}

/* The least time of the top's children (none: every time is below it). */
static unsigned long long heap_next_ts(const struct kt_decoder *d)
{
	unsigned long long ts;

	if (d->nheap < 2)
		return ~0ULL;
	ts = d->heap[1]->rec.ts;
	if (d->nheap > 2 && d->heap[2]->rec.ts < ts)
		ts = d->heap[2]->rec.ts;
	return ts;
}

static int decoder_merge(struct kt_decoder *d, kt_event_fn fn, void *arg)
{
	unsigned long long next_ts;
	struct iter *it;
	int i, ret;

	d->nheap = 0;
	for (i = 0; i < d->nits; i++) {
		/* The selection is complete once the run starts. */
		d->its[i].all = !d->its[i].hidden && !d->selecting;
		if (iter_next(d, &d->its[i])) {
			d->heap[d->nheap] = &d->its[i];
			heap_up(d, d->nheap++);
		}
	}
	/*
	 * next_ts: below it the top stays the top (the least of its two
	 * children's times, refreshed after each sift): a CPU's run of
	 * records costs one comparison a record, not a sift.
	 */
	next_ts = heap_next_ts(d);
	while (d->nheap) {
		it = d->heap[0];
		/* The walker let only records of known events through. */
		it->ev.selected = it->ev.event &&
				  (it->all || (!it->hidden &&
				   (!d->selecting || selected(d, it->ev.event, &it->rec))));
		if (it->ev.event) {
			ret = fn(&it->ev, arg);
			if (ret < 0)
				return ret;
		}
		if (iter_next_inline(d, it)) {
			if (it->rec.ts < next_ts)
				continue;
			/*
			 * Two CPUs (a small machine's every report): the
			 * sift is one comparison, inline, and the next time
			 * to beat the other CPU's.
			 */
			if (d->nheap == 2) {
				if (heap_less(d->heap[1], it)) {
					d->heap[0] = d->heap[1];
					d->heap[1] = it;
				}
				next_ts = d->heap[1]->rec.ts;
				continue;
			}
			heap_down(d, 0);
		} else {
			d->heap[0] = d->heap[--d->nheap];
			heap_down(d, 0);
		}
		next_ts = heap_next_ts(d);
	}
	return 0;
}

/* The heap's top has been used: step it on, or drop it at its end. */
static void heap_pop(struct kt_decoder *d)
{
	if (iter_next(d, d->heap[0])) {
		heap_down(d, 0);
	} else {
		d->heap[0] = d->heap[--d->nheap];
		heap_down(d, 0);
	}
}

int kt_decoder_next(struct kt_decoder *d, struct kt_event *ev)
{
	struct iter *it;
	int i;

	if (!d->pulling) {
		d->pulling = true;
		d->nheap = 0;
		for (i = 0; i < d->nits; i++) {
			if (iter_next(d, &d->its[i])) {
				d->heap[d->nheap] = &d->its[i];
				heap_up(d, d->nheap++);
			}
		}
	} else if (d->handed) {
		heap_pop(d);
	}
	d->handed = false;
	while (d->nheap) {
		it = d->heap[0];
		/* The walker let only records of known events through. */
		if (it->ev.event) {
			ev->record = &it->rec;
			ev->event = it->ev.event;
			ev->buffer = it->buf;
			ev->cpu = it->cpu;
			ev->selected = !it->hidden &&
				       (!d->selecting || selected(d, ev->event, &it->rec));
			d->handed = true;
			return 1;
		}
		heap_pop(d);
	}
	warn_suppressed(d);
	return 0;
}

/* ---- selection ---- */

/*
 * The file's events as a catalog for the one resolver (base/evspec.h):
 * -e on a recording means what it means on the running kernel, and a
 * typo gets the same suggestions.  Built on first use.
 */
/* An event -e can name: a damaged file may hold ids past the tables. */
static bool nameable(const struct tep_event *e)
{
	return e->id >= 0 && e->id < NR_IDS && e->system && e->name;
}

static const struct kt_catalog *file_catalog(struct kt_decoder *d)
{
	struct tep_event **evs;
	int i;

	if (d->cat)
		return d->cat;
	evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	d->cat = kt_catalog_new();
	for (i = 0; d->cat && evs && evs[i]; i++) {
		if (!nameable(evs[i]))
			continue;
		if (kt_catalog_add_event(d->cat, evs[i]->system, evs[i]->name)) {
			kt_catalog_free(d->cat);
			d->cat = NULL;
		}
	}
	if (d->cat)
		kt_catalog_sort(d->cat);
	return d->cat;
}

int kt_decoder_add_event(struct kt_decoder *d, const char *spec)
{
	int err = all_events(d);
	struct tep_event **evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	const struct kt_catalog *cat = err ? NULL : file_catalog(d);
	const struct kt_alias *alias;
	struct kt_event_list *sel;
	char full[512];
	int i, ret;

	if (!cat)
		return -ENOMEM;
	if (!d->ids) {
		d->ids = calloc(NR_IDS, sizeof(*d->ids));
		if (!d->ids)
			return -ENOMEM;
		d->selecting = true;
	}
	sel = kt_event_list_new();
	if (!sel)
		return -ENOMEM;
	/* A file has no ambiguity to refuse: a name in two systems is both. */
	ret = kt_evspec_resolve(cat, spec, KT_EVSPEC_EVERY_SYSTEM, sel);
	/*
	 * ktrace.ko's event (ktrace:sched_schedule) in a file recorded
	 * without it is the ftrace event it stands for, so that one
	 * selection reads a recording of either backend.
	 */
	alias = ret == -ENOENT && !strncmp(spec, "ktrace:", 7) ?
		kt_alias_find(spec + 7) : NULL;
	if (alias) {
		snprintf(full, sizeof(full), "%s:%s", alias->system, alias->event);
		ret = kt_evspec_resolve(cat, full, 0, sel);
	}
	for (i = 0; ret > 0 && evs && evs[i]; i++) {
		struct tep_event *e = evs[i];

		if (nameable(e) && kt_event_list_has(sel, e->system, e->name))
			d->ids[e->id] = true;
	}
	kt_event_list_free(sel);
	return ret < 0 ? ret : 0;
}

int kt_decoder_suggest_event(struct kt_decoder *d, const char *spec,
			     char *buf, size_t len)
{
	const struct kt_catalog *cat = all_events(d) ? NULL : file_catalog(d);

	return cat ? kt_evspec_suggest(cat, spec, buf, len) : -ENOMEM;
}

/*
 * Parse FILTER once in a child first: libtraceevent 1.7's filter parser
 * frees twice or dereferences NULL on many syntax errors after an && or
 * || ("a == 1 && b == nosuch", "a == 1 && b =="; found by
 * tests/fuzz/fuzz_filter.c), too many shapes to refuse one by one, and a
 * typo in -F must not kill report.  The real parse happens only once the
 * child has parsed the same text without failing.  0, or -EINVAL with
 * libtraceevent's reason in err.
 */
/* What the trial child writes when the filter parsed (no message does). */
#define TRIAL_OK	"\x01"

static kt_filter_trial_fn trial_fn;

void kt_decoder_set_filter_trial(kt_filter_trial_fn fn)
{
	trial_fn = fn;
}

int kt_decoder_filter_try(struct tep_handle *tep, const char *filter,
			  char *msg, size_t len)
{
	struct tep_event_filter *f = tep_filter_alloc(tep);
	const char *event;
	char word[64];
	int ret;

	*msg = '\0';
	ret = f ? tep_filter_add_filter_str(f, filter) : -1;
	if (ret < 0 && f && tep_filter_strerror(f, ret, msg, len))
		*msg = '\0';
	if (ret >= 0 &&
	    kt_filter_unknown_word(tep, f, filter, word, sizeof(word), &event)) {
		snprintf(msg, len, "no field '%s' in %s",
			 word, event ? event : "its events");
		ret = -1;
	}
	return ret < 0 ? -1 : 0;
}

static int filter_trial(struct tep_handle *tep, const char *filter,
			char *err, size_t len)
{
	int fds[2], status, ret;
	ssize_t n;
	pid_t pid;

	if (trial_fn)
		return trial_fn(tep, filter, err, len);
	if (pipe(fds) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (!pid) {
		char msg[256];
		int null = open("/dev/null", O_WRONLY);

		/* A crash here is the answer, not news: no sanitizer report. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
#ifdef KT_LSAN
		/* Nor a fuzzer's crash input (libFuzzer's death callback). */
		__sanitizer_set_death_callback(NULL);
#endif
		close(fds[0]);
		ret = kt_decoder_filter_try(tep, filter, msg, sizeof(msg));
		if (*msg && write(fds[1], msg, strlen(msg)) < 0)
			ret = -1;
		/*
		 * Success is said through the pipe, not only the exit
		 * status: under valgrind the child's exit status is
		 * valgrind's verdict on libtraceevent's leaks.
		 */
		if (ret >= 0 && write(fds[1], TRIAL_OK, 1) < 0)
			ret = -1;
		_exit(ret < 0 ? 1 : 0);
	}
	close(fds[1]);
	n = read(fds[0], err, len - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	/* Exited (a crash is no answer) after saying it parsed. */
	if (WIFEXITED(status) && err[0] == TRIAL_OK[0])
		return 0;
	if (!*err)
		snprintf(err, len, "cannot parse it");
	return -EINVAL;
}

int kt_decoder_add_filter(struct kt_decoder *d, const char *filter)
{
	enum tep_errno ret;
	const char *why;
	char err[256];

	if (all_events(d))
		return -ENOMEM;

	why = kt_filter_problem(filter);
	if (!why) {
		ret = filter_trial(d->tep, filter, err, sizeof(err));
		if (ret == -EINVAL)
			why = err;
		else if (ret)
			return ret;
	}
	if (!why && !d->filter && !(d->filter = tep_filter_alloc(d->tep)))
		return -ENOMEM;
	if (!why) {
		/*
		 * libtraceevent 1.7 leaks a little of each filter it
		 * parses: the parse tree of one it rejects ("x[0] == 1"),
		 * the "!" of "!(...)" in one it accepts (found by
		 * tests/fuzz/fuzz_filter.c).  Once per -F, a few bytes:
		 * kept out of the sanitizers' leak reports.  The filter
		 * itself is allocated above, where a leak of ours shows.
		 */
		kt_lsan_off();
		ret = tep_filter_add_filter_str(d->filter, filter);
		kt_lsan_on();
		if (ret < 0 && tep_filter_strerror(d->filter, ret, err, sizeof(err)))
			snprintf(err, sizeof(err), "cannot parse it");
		if (ret < 0)
			why = err;
	}
	if (why) {
		kt_err("bad filter '%s': %s; see FILTERS in ktrace-report(1)",
		       filter, why);
		return -EINVAL;
	}
	d->has_filter = true;
	d->selecting = true;
	return 0;
}

void kt_decoder_add_pid(struct kt_decoder *d, int pid)
{
	int *p = realloc(d->pids, sizeof(*p) * (d->npids + 1));

	if (!p)
		return;
	d->pids = p;
	d->pids[d->npids++] = pid;
	d->selecting = true;
}

int kt_decoder_add_comm(struct kt_decoder *d, const char *glob)
{
	char **c = realloc(d->comms, sizeof(*c) * (d->ncomms + 1));

	if (!c)
		return -ENOMEM;
	d->comms = c;
	c[d->ncomms] = strdup(glob);
	if (!c[d->ncomms])
		return -ENOMEM;
	d->ncomms++;
	d->selecting = true;
	return 0;
}
