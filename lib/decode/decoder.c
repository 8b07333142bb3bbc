// SPDX-License-Identifier: GPL-2.0
/*
 * Merge per-CPU ring-buffer pages into one time-ordered record stream,
 * and print records as trace-cmd does.  See decoder.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "base/byteorder.h"
#include "decode/decoder.h"
#include "base/aliases.h"
#include "base/editdist.h"
#include "base/log.h"
#include "base/lsan.h"
#include "file/rawpage.h"
#include "file/reader.h"
#include "decode/textline.h"
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
	long long lost;		/* events lost before the page */
	struct tep_record rec;
	struct tep_event *event;	/* of rec */
};

struct kt_decoder {
	struct kt_reader *r;
	struct tep_handle *tep;
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
	unsigned long page_warnings;
	bool swap;
	int long_size;
	unsigned int page_size;
	/* Selection. */
	bool selecting;		/* any of the below */
	bool *ids;		/* NULL: every event */
	struct tep_event_filter *filter;
	bool has_filter;
	int *pids;
	int npids;
	char **comms;
	int ncomms;
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

/* NULL when the record's dynamic fields lie inside it (len bytes). */
static const char *dyn_problem(const struct kt_decoder *d, unsigned int id,
			       const unsigned char *rec, unsigned int len)
{
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
		/* The kernel's __string() keeps the NUL; printf("%s") needs it. */
		if (f->string && l && !memchr(rec + o, '\0', l))
			return "a record's string does not end";
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
		      const char *what)
{
	kt_reader_set_damaged(d->r);
	if (++d->page_warnings > MAX_PAGE_WARNINGS)
		return;
	kt_warn("damaged trace file '%s': CPU %d page at byte %llu: %s at page offset %u; skipping the rest of the page",
		kt_reader_path(d->r), it->cpu, (unsigned long long)it->page_off,
		what, at + page_hdr_size(d));
}

static bool cpu_wanted(const struct kt_decoder *d, int cpu)
{
	if (!d->opts.cpus)
		return true;
	return cpu >= 0 && cpu < d->opts.ncpus && d->opts.cpus[cpu];
}

/*
 * What the walker needs to know of the file: where common_type is, how
 * long the common fields are, and the bytes each event's fields need,
 * so every record handed out is one libtraceevent can read in bounds.
 */
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

static int setup_events(struct kt_decoder *d)
{
	struct tep_event **evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	struct tep_format_field *f;
	unsigned int common = 8;
	int i, pass;

	d->need = malloc(NR_IDS * sizeof(*d->need));
	d->evs = calloc(NR_IDS, sizeof(*d->evs));
	d->dyn = calloc(NR_IDS, sizeof(*d->dyn));
	if (!d->need || !d->evs || !d->dyn)
		return -ENOMEM;
	memset(d->need, 0xff, NR_IDS * sizeof(*d->need));
	d->fmt.swap = d->swap;
	d->fmt.big = kt_reader_big_endian(d->r);
	d->fmt.need = d->need;
	if (!evs || !evs[0])
		return 0;
	/* libtraceevent reads common_type where the first event has it. */
	f = tep_find_common_field(evs[0], "common_type");
	if (!f || f->offset < 0 || f->offset > 64 || f->size < 0 || f->size > 8)
		return 0;	/* every record then names no event */
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
			if (ok)
				d->dyn[ev->id] = event_dyn(ev);
		} else if (d->need[ev->id] >= 0) {
			d->need[ev->id] = !ok ? -1 : need > d->need[ev->id] ?
					  need : d->need[ev->id];
		}
	}
	return 0;
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
	d->tep = kt_reader_tep(r);
	if (opts)
		d->opts = *opts;
	d->long_size = kt_reader_long_size(r);
	d->page_size = kt_reader_page_size(r);
	d->swap = kt_reader_big_endian(r) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (setup_events(d))
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
			if (!cpu_wanted(d, it->cpu))
				continue;
			it->s = kt_stream_open(r, b, i);
			if (!it->s)
				goto err;
			it->rec.cpu = it->cpu;
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
	for (i = 0; d->dyn && i < NR_IDS; i++)
		free(d->dyn[i]);
	free(d->dyn);
	free(d->need);
	free(d->evs);
	free(d->ids);
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
			page_warn(d, it, 0, "commit size is larger than the page");
			continue;
		}
		it->data = page + hdr;
		it->pos = 0;
		it->clock = rd64(d, page);
		it->lost = 0;
		if (flags & KT_RB_MISSED_EVENTS) {
			it->lost = -1;
			if ((flags & KT_RB_MISSED_STORED) &&
			    it->commit + (unsigned int)d->long_size <= d->page_size - hdr)
				it->lost = (long long)rdlong(d, it->data + it->commit);
		}
		return true;
	}
}

/* Step it to its next record in the window; false when it has none. */
static bool iter_next(struct kt_decoder *d, struct iter *it)
{
	struct kt_rawpage_rec rr;
	const char *why;
	int ret;

	for (;;) {
		if (!it->data && !next_page(d, it))
			return false;
		ret = kt_rawpage_next(&d->fmt, it->data, it->commit, &it->pos,
				      &it->clock, &rr, &why);
		if (ret <= 0) {
			if (ret < 0)
				page_warn(d, it, it->pos, why);
			it->data = NULL;
			continue;
		}
		/*
		 * Its dynamic fields must lie inside it before libtraceevent
		 * follows them; a bad one ends the page, as other damage.
		 */
		why = d->dyn[rr.id] ?
		      dyn_problem(d, rr.id, it->data + rr.data, rr.size) : NULL;
		if (why) {
			page_warn(d, it, rr.hdr, why);
			it->data = NULL;
			continue;
		}
		it->rec.ts = kt_reader_ts(d->r, rr.ts);
		it->rec.size = (int)rr.size;
		it->rec.record_size = (int)(rr.data + rr.size - rr.hdr);
		it->rec.data = (void *)(it->data + rr.data);
		it->rec.offset = it->page_off + rr.hdr + (unsigned int)page_hdr_size(d);
		/* As kbuffer: only a record at the page's very start carries them. */
		it->rec.missed_events = rr.hdr ? 0 : it->lost;
		it->event = d->evs[rr.id];
		if (d->opts.has_to && it->rec.ts > d->opts.to)
			return false;
		if (d->opts.has_from && it->rec.ts < d->opts.from)
			continue;
		return true;
	}
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

static int decoder_merge(struct kt_decoder *d, kt_event_fn fn, void *arg)
{
	struct kt_event ev;
	struct iter *it;
	int i, ret;

	d->nheap = 0;
	for (i = 0; i < d->nits; i++) {
		if (iter_next(d, &d->its[i])) {
			d->heap[d->nheap] = &d->its[i];
			heap_up(d, d->nheap++);
		}
	}
	while (d->nheap) {
		it = d->heap[0];
		ev.record = &it->rec;
		ev.event = it->event;
		ev.buffer = it->buf;
		ev.cpu = it->cpu;
		/* The walker let only records of known events through. */
		ev.selected = ev.event && (!d->selecting || selected(d, ev.event, &it->rec));
		if (ev.event) {
			ret = fn(&ev, arg);
			if (ret < 0)
				return ret;
		}
		if (iter_next(d, it)) {
			heap_down(d, 0);
		} else {
			d->heap[0] = d->heap[--d->nheap];
			heap_down(d, 0);
		}
	}
	return 0;
}

/* ---- selection ---- */

int kt_decoder_add_event(struct kt_decoder *d, const char *spec)
{
	struct tep_event **evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	const char *colon = strchr(spec, ':');
	const struct kt_alias *alias;
	char full[512];
	int i, found = 0;

	if (!d->ids) {
		d->ids = calloc(NR_IDS, sizeof(*d->ids));
		if (!d->ids)
			return -ENOMEM;
		d->selecting = true;
	}
	for (i = 0; evs && evs[i]; i++) {
		struct tep_event *e = evs[i];
		bool hit;

		if (e->id < 0 || e->id >= NR_IDS)
			continue;
		snprintf(full, sizeof(full), "%s:%s", e->system, e->name);
		if (colon)
			hit = !fnmatch(spec, full, 0);
		else
			hit = !fnmatch(spec, e->name, 0) ||
			      !fnmatch(spec, e->system, 0);
		if (hit) {
			d->ids[e->id] = true;
			found++;
		}
	}
	/* A classic name (sched_schedule) stands for its modern event. */
	alias = found ? NULL : kt_alias_find(colon ? colon + 1 : spec);
	if (alias && (!colon || !strncmp(spec, "ktrace:", 7))) {
		snprintf(full, sizeof(full), "%s:%s", alias->system, alias->event);
		return kt_decoder_add_event(d, full);
	}
	return found ? 0 : -ENOENT;
}

int kt_decoder_suggest_event(struct kt_decoder *d, const char *spec,
			     char *buf, size_t len)
{
	struct tep_event **evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	const char *colon = strchr(spec, ':');
	const char *want = colon ? colon + 1 : spec;
	size_t best = (size_t)-1, limit = strlen(want) / 3, dist;
	const struct tep_event *pick = NULL;
	int i;

	/* As kt_events_suggest(): about one typo in three characters. */
	if (limit < 2)
		limit = 2;
	for (i = 0; evs && evs[i]; i++) {
		dist = kt_edit_distance(want, evs[i]->name);
		if (dist < best) {
			best = dist;
			pick = evs[i];
		}
	}
	if (!pick || best > limit || !len)
		return -ENOENT;
	snprintf(buf, len, "%s:%s", pick->system, pick->name);
	return 0;
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

static int filter_trial(struct tep_handle *tep, const char *filter,
			char *err, size_t len)
{
	int fds[2], status, ret;
	ssize_t n;
	pid_t pid;

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
		struct tep_event_filter *f = tep_filter_alloc(tep);
		char msg[256] = "", word[64];
		const char *event;
		int null = open("/dev/null", O_WRONLY);

		/* A crash here is the answer, not news: no sanitizer report. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
#ifdef KT_LSAN
		/* Nor a fuzzer's crash input (libFuzzer's death callback). */
		__sanitizer_set_death_callback(NULL);
#endif
		close(fds[0]);
		ret = f ? tep_filter_add_filter_str(f, filter) : -1;
		if (ret < 0 && f && !tep_filter_strerror(f, ret, msg, sizeof(msg)) &&
		    write(fds[1], msg, strlen(msg)) < 0)
			ret = -1;
		if (ret >= 0 &&
		    kt_filter_unknown_word(tep, f, filter, word, sizeof(word),
					   &event)) {
			snprintf(msg, sizeof(msg), "no field '%s' in %s",
				 word, event ? event : "its events");
			if (write(fds[1], msg, strlen(msg)) < 0)
				ret = -1;
			ret = -1;
		}
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

/* ---- printing ---- */

struct info_hook {
	kt_info_fn fn;
	void *priv;
};

struct kt_printer {
	struct kt_reader *r;
	struct tep_handle *tep;
	enum kt_print_mode mode;
	unsigned int flags;
	FILE *out;
	struct trace_seq s;
	const char *tfmt;
	enum { TMODE_USECS, TMODE_NSECS, TMODE_RAW } tmode;
	int prec;			/* digits after the point */
	unsigned long long p10;		/* 10^prec */
	/* Instances: every line starts with the buffer name in a column. */
	int name_width;
	struct info_hook *hooks;	/* by event id, NULL when none */
	struct info_hook fallback;	/* for events without one */
	kt_info_text_fn text_fn;	/* straight into the line */
	void *text_priv;
	/* Lines are built here, then written (at once or in blocks). */
	char *obuf;
	size_t olen, ocap;
	/* File reports: the line start from caches; NULL: text_header(). */
	struct kt_textline *tl;
	char **bufpre;			/* "name: " of each buffer */
	unsigned int *bufpre_len;
	int nbufs;
};

/* Buffer-name columns up to this long are copied as a whole block. */
#define BUFPRE_COPY	32
/* Room the fast path wants for one line before it starts it. */
#define LINE_ROOM	8192
#define OBUF_SIZE	(256u << 10)

/*
 * The line start from caches (lib/decode/textline.c), with each buffer's name
 * column ready: for files only, whose comms are only ever added to.
 * Without it (out of memory, absurd names) text_header() does the work.
 */
static void setup_textline(struct kt_printer *p)
{
	int b, n = kt_reader_buffers(p->r);

	if (p->mode == KT_PRINT_JSON || p->name_width > 512)
		return;
	p->bufpre = calloc((size_t)n, sizeof(*p->bufpre));
	p->bufpre_len = calloc((size_t)n, sizeof(*p->bufpre_len));
	if (!p->bufpre || !p->bufpre_len)
		return;
	p->nbufs = n;
	for (b = 0; p->name_width >= 0 && b < n; b++) {
		const char *name = kt_reader_buffer_name(p->r, b);
		size_t size = (size_t)p->name_width + 2 + BUFPRE_COPY;

		/* Room to be copied BUFPRE_COPY bytes at a time. */
		p->bufpre[b] = calloc(1, size);
		if (!p->bufpre[b])
			return;
		p->bufpre_len[b] = (unsigned int)snprintf(p->bufpre[b], size,
				*name ? "%*s: " : "%*s  ", p->name_width, name);
	}
	p->tl = kt_textline_new(p->tep, p->tmode == TMODE_USECS ? KT_TEXTLINE_USECS :
				p->tmode == TMODE_NSECS ? KT_TEXTLINE_NSECS :
				KT_TEXTLINE_RAW, p->flags & KT_PRINT_NO_NAME);
}

struct kt_printer *kt_printer_new(struct kt_reader *r, enum kt_print_mode mode,
				  unsigned int flags, FILE *out)
{
	struct kt_printer *p;
	int b;

	p = kt_printer_new_tep(kt_reader_tep(r), kt_reader_in_usecs(r), mode,
			       flags, out);
	if (!p)
		return NULL;
	p->r = r;
	for (b = 1; b < kt_reader_buffers(r); b++) {
		int len = (int)strlen(kt_reader_buffer_name(r, b));

		if (len > p->name_width)
			p->name_width = len;
	}
	setup_textline(p);
	return p;
}

struct kt_printer *kt_printer_new_tep(struct tep_handle *tep, bool in_usecs,
				      enum kt_print_mode mode,
				      unsigned int flags, FILE *out)
{
	struct kt_printer *p = calloc(1, sizeof(*p));
	int b;

	if (!p)
		return NULL;
	p->tep = tep;
	p->mode = mode;
	p->flags = flags;
	p->out = out;
	trace_seq_init(&p->s);
	if (flags & KT_PRINT_NSEC)
		tep_set_flag(p->tep, TEP_NSEC_OUTPUT);
	if (!in_usecs) {
		p->tfmt = "%12d:";
		p->tmode = TMODE_RAW;
		p->prec = 12;
	} else if (flags & KT_PRINT_NSEC) {
		p->tfmt = " %9.1d:";
		p->tmode = TMODE_NSECS;
		p->prec = 9;
	} else {
		p->tfmt = " %6.1000d:";
		p->tmode = TMODE_USECS;
		p->prec = 6;
	}
	p->p10 = 1;
	for (b = 0; b < p->prec; b++)
		p->p10 *= 10;
	p->name_width = -1;
	p->ocap = flags & KT_PRINT_BATCH ? OBUF_SIZE : LINE_ROOM;
	p->obuf = malloc(p->ocap);
	if (!p->obuf) {
		kt_printer_free(p);
		return NULL;
	}
	return p;
}

void kt_printer_free(struct kt_printer *p)
{
	int i;

	if (!p)
		return;
	kt_printer_flush(p);
	trace_seq_destroy(&p->s);
	free(p->hooks);
	kt_textline_free(p->tl);
	for (i = 0; i < p->nbufs; i++)
		free(p->bufpre[i]);
	free(p->bufpre);
	free(p->bufpre_len);
	free(p->obuf);
	free(p);
}

void kt_printer_set_info(struct kt_printer *p, int event_id, kt_info_fn fn,
			 void *priv)
{
	if (event_id < 0 || event_id >= NR_IDS)
		return;
	if (!p->hooks) {
		p->hooks = calloc(NR_IDS, sizeof(*p->hooks));
		if (!p->hooks)
			return;
	}
	p->hooks[event_id].fn = fn;
	p->hooks[event_id].priv = priv;
}

void kt_printer_set_info_text(struct kt_printer *p, kt_info_text_fn fn,
			      void *priv)
{
	p->text_fn = fn;
	p->text_priv = priv;
}

void kt_printer_set_info_default(struct kt_printer *p, kt_info_fn fn,
				 void *priv)
{
	p->fallback.fn = fn;
	p->fallback.priv = priv;
}

static void text_prefix(struct kt_printer *p, const struct kt_event *ev)
{
	const char *name;

	if (p->name_width < 0)
		return;
	name = kt_reader_buffer_name(p->r, ev->buffer);
	if (*name)
		trace_seq_printf(&p->s, "%*s: ", p->name_width, name);
	else
		trace_seq_printf(&p->s, "%*s  ", p->name_width, "");
}

/* Decimal digits of v at the end of buf[0..len); returns the start. */
static char *utoa_back(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Append v zero-padded to width digits (more when it needs them). */
static char *put_zpad(char *p, unsigned long long v, int width)
{
	char tmp[24], *b = utoa_back(tmp + sizeof(tmp), v);
	int n = (int)(tmp + sizeof(tmp) - b);

	for (; n < width; width--)
		*p++ = '0';
	memcpy(p, b, (size_t)n);
	return p + n;
}

/*
 * "%16s-%-5d [%03d] %5llu.%06llu: name: " + padding, as trace-cmd asks
 * tep_print_event() for it (the time as libtraceevent's print_event_time
 * renders " %6.1000d", " %9.1d" and "%12d"), without its per-call format
 * parsing: this header is most of the text of most lines.
 */
static void text_header(struct kt_printer *p, const struct kt_event *ev)
{
	static const char spaces[] = "                    ";
	struct tep_record *rec = ev->record;
	const char *comm, *name = ev->event->name;
	size_t clen, nlen = strlen(name);
	char buf[192], *b = buf, tmp[24], *d;
	unsigned long long t;
	int pid = tep_data_pid(p->tep, rec);
	int n;

	comm = tep_data_comm_from_pid(p->tep, pid);
	clen = strlen(comm);
	if (clen + nlen > 100 || pid < 0 || ev->cpu < 0) {
		/* Rare shapes: let libtraceevent lay them out. */
		tep_print_event(p->tep, &p->s, rec, "%16s-%-5d [%03d]",
				TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
		tep_print_event(p->tep, &p->s, rec, p->tfmt, TEP_PRINT_TIME);
		if (p->flags & KT_PRINT_NO_NAME) {
			trace_seq_putc(&p->s, ' ');
			return;
		}
		trace_seq_printf(&p->s, " %s: ", name);
		if (nlen < 20)
			trace_seq_printf(&p->s, "%.*s", (int)(20 - nlen), spaces);
		return;
	}
	if (clen < 16) {
		memset(b, ' ', 16 - clen);
		b += 16 - clen;
	}
	memcpy(b, comm, clen);
	b += clen;
	*b++ = '-';
	d = utoa_back(tmp + sizeof(tmp), (unsigned long long)pid);
	n = (int)(tmp + sizeof(tmp) - d);
	memcpy(b, d, (size_t)n);
	b += n;
	for (; n < 5; n++)
		*b++ = ' ';
	*b++ = ' ';
	*b++ = '[';
	b = put_zpad(b, (unsigned long long)ev->cpu, 3);
	*b++ = ']';
	/* As print_event_time(): round to the divisor, "%5llu.%0*llu". */
	t = p->tmode == TMODE_USECS ? (rec->ts + 500) / 1000 : rec->ts;
	if (p->tmode != TMODE_RAW)
		*b++ = ' ';
	d = utoa_back(tmp + sizeof(tmp), t / p->p10);
	n = (int)(tmp + sizeof(tmp) - d);
	if (n < 5) {
		memset(b, ' ', (size_t)(5 - n));
		b += 5 - n;
	}
	memcpy(b, d, (size_t)n);
	b += n;
	*b++ = '.';
	b = put_zpad(b, t % p->p10, p->prec);
	*b++ = ':';
	*b++ = ' ';
	if (!(p->flags & KT_PRINT_NO_NAME)) {
		memcpy(b, name, nlen);
		b += nlen;
		*b++ = ':';
		*b++ = ' ';
		if (nlen < 20) {
			memcpy(b, spaces, 20 - nlen);
			b += 20 - nlen;
		}
	}
	*b = '\0';
	trace_seq_puts(&p->s, buf);
}

static void text_line(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	struct info_hook *hook;

	text_header(p, ev);
	hook = p->hooks && p->hooks[ev->event->id].fn ? &p->hooks[ev->event->id] :
	       p->fallback.fn ? &p->fallback : NULL;
	if (p->mode == KT_PRINT_RAW) {
		tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO_RAW);
	} else if (hook) {
		unsigned int mark = s->len;

		if (hook->fn(s, ev->event, rec, hook->priv) < 0) {
			s->len = mark;
			tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
		}
	} else {
		tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
	}
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
}

/*
 * The keys a JSON line gives the task and the record itself.  An event
 * field of the same name (task_newtask's pid and comm, sched_wakeup's
 * pid) is written as field_NAME: a second "pid" would be a duplicate
 * key, and jq would silently take the field for the task.
 */
static bool json_key_taken(const char *name)
{
	static const char *const keys[] = {
		"cpu", "ts", "pid", "comm", "event", "system", "buffer", "lost",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(name, keys[i]))
			return true;
	return false;
}

static void json_field(struct kt_printer *p, struct tep_format_field *f,
		       struct tep_record *rec)
{
	struct trace_seq *s = &p->s;
	unsigned char *data = rec->data;
	unsigned int off = (unsigned int)f->offset, len = (unsigned int)f->size;
	unsigned int i, es;
	bool is_char;

	trace_seq_printf(s, ",\"%s%s\":",
			 json_key_taken(f->name) ? "field_" : "", f->name);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long v;

		if (off + len > (unsigned int)rec->size) {
			trace_seq_puts(s, "null");
			return;
		}
		v = tep_read_number(p->tep, data + off, len);
		off = (unsigned int)(v & 0xffff);
		len = (unsigned int)(v >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)(f->offset + f->size);
	}
	/* A trailing "char buf[]" (ftrace:print) runs to the record's end. */
	if (!len && (f->flags & TEP_FIELD_IS_ARRAY) && off <= (unsigned int)rec->size)
		len = (unsigned int)rec->size - off;
	if (off > (unsigned int)rec->size || len > (unsigned int)rec->size - off) {
		trace_seq_puts(s, "null");
		return;
	}
	is_char = f->type && strstr(f->type, "char") &&
		  (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC));
	/* Byte arrays (__u8 saddr[4]) are arrays; only char text is a string. */
	if (is_char) {
		trace_seq_putc(s, '"');
		for (i = 0; i < len && data[off + i]; i++) {
			unsigned char c = data[off + i];

			if (c == '"' || c == '\\')
				trace_seq_printf(s, "\\%c", c);
			else if (c < 0x20 || c >= 0x7f)
				trace_seq_printf(s, "\\u%04x", c);
			else
				trace_seq_putc(s, (char)c);
		}
		trace_seq_putc(s, '"');
		return;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		es = f->elementsize;
		if (!es || es > 8 || (es & (es - 1)))
			es = 1;
		trace_seq_putc(s, '[');
		for (i = 0; i + es <= len; i += es) {
			unsigned long long v = tep_read_number(p->tep, data + off + i, es);

			trace_seq_printf(s, i ? ",%llu" : "%llu", v);
		}
		trace_seq_putc(s, ']');
		return;
	}
	if (len == 0 || len > 8 || (len & (len - 1))) {
		trace_seq_puts(s, "null");
		return;
	}
	{
		unsigned long long v = tep_read_number(p->tep, data + off, len);

		if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv;

			switch (len) {
			case 1: sv = (int8_t)v; break;
			case 2: sv = (int16_t)v; break;
			case 4: sv = (int32_t)v; break;
			default: sv = (long long)v; break;
			}
			trace_seq_printf(s, "%lld", sv);
		} else {
			trace_seq_printf(s, "%llu", v);
		}
	}
}

static void json_str(struct trace_seq *s, const char *str)
{
	const unsigned char *c = (const unsigned char *)str;

	trace_seq_putc(s, '"');
	for (; *c; c++) {
		if (*c == '"' || *c == '\\')
			trace_seq_printf(s, "\\%c", *c);
		else if (*c < 0x20)
			trace_seq_printf(s, "\\u%04x", *c);
		else
			trace_seq_putc(s, (char)*c);
	}
	trace_seq_putc(s, '"');
}

static void json_line(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	struct tep_format_field *f;
	int pid = tep_data_pid(p->tep, rec);
	const char *comm = tep_data_comm_from_pid(p->tep, pid);

	trace_seq_printf(s, "{\"cpu\":%d,\"ts\":%llu,\"pid\":%d,\"comm\":",
			 ev->cpu, rec->ts, pid);
	json_str(s, comm ? comm : "<...>");
	trace_seq_puts(s, ",\"event\":");
	json_str(s, ev->event->name);
	trace_seq_puts(s, ",\"system\":");
	json_str(s, ev->event->system);
	if (ev->buffer) {
		trace_seq_puts(s, ",\"buffer\":");
		json_str(s, kt_reader_buffer_name(p->r, ev->buffer));
	}
	for (f = ev->event->format.fields; f; f = f->next)
		json_field(p, f, rec);
	trace_seq_putc(s, '}');
}

int kt_printer_flush(struct kt_printer *p)
{
	size_t n = p->olen;

	if (!n)
		return 0;
	p->olen = 0;
	errno = 0;
	if (fwrite(p->obuf, 1, n, p->out) != n)
		return errno ? -errno : -EIO;
	return 0;
}

/* Append len bytes to the output. */
static int out_put(struct kt_printer *p, const char *buf, size_t len)
{
	int ret;

	if (len > p->ocap - p->olen) {
		ret = kt_printer_flush(p);
		if (ret)
			return ret;
		if (len > p->ocap) {
			errno = 0;
			if (fwrite(buf, 1, len, p->out) != len)
				return errno ? -errno : -EIO;
			return 0;
		}
	}
	memcpy(p->obuf + p->olen, buf, len);
	p->olen += len;
	return 0;
}

static int flush_seq(struct kt_printer *p)
{
	struct trace_seq *s = &p->s;
	int ret;

	if (s->state != TRACE_SEQ__GOOD) {
		trace_seq_reset(s);
		return -ENOMEM;
	}
	trace_seq_putc(s, '\n');
	ret = s->state == TRACE_SEQ__GOOD ? out_put(p, s->buffer, s->len) : -ENOMEM;
	trace_seq_reset(s);
	return ret;
}

/*
 * A text line built in place in the output buffer: the start from
 * lib/decode/textline.c, the info from the text hook (or, for what it does not
 * compile, libtraceevent's text copied in).  Returns 0, 1 when the line
 * takes the general path instead (nothing was written), or -errno.
 */
static int fast_line(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct info_hook *hook = NULL;
	struct trace_seq *s = &p->s;
	char *start, *e;
	size_t cap;
	int n, ret;

	if (p->ocap - p->olen < LINE_ROOM) {
		ret = kt_printer_flush(p);
		if (ret)
			return ret;
	}
	start = p->obuf + p->olen;
	e = start;
	if (p->name_width >= 0) {
		if (ev->buffer < 0 || ev->buffer >= p->nbufs)
			return 1;
		unsigned int len = p->bufpre_len[ev->buffer];

		memcpy(e, p->bufpre[ev->buffer], len <= BUFPRE_COPY ? BUFPRE_COPY : len);
		e += len;
	}
	e = kt_textline_header(p->tl, e, ev->event, rec, ev->cpu);
	if (!e)
		return 1;
	cap = (size_t)(p->obuf + p->ocap - e) - 1;
	if (p->hooks && p->hooks[ev->event->id].fn)
		hook = &p->hooks[ev->event->id];
	n = -ENOTSUP;
	if (p->mode == KT_PRINT_TEXT && !hook && p->text_fn)
		n = p->text_fn(p->text_priv, ev->event, rec, e, cap);
	if (n == -ENOSPC)
		return 1;
	if (n < 0) {
		/* As text_line(): a hook, else libtraceevent. */
		if (!hook && p->mode == KT_PRINT_TEXT && p->fallback.fn)
			hook = &p->fallback;
		trace_seq_reset(s);
		if (p->mode == KT_PRINT_RAW) {
			tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO_RAW);
		} else if (!hook || hook->fn(s, ev->event, rec, hook->priv) < 0) {
			trace_seq_reset(s);
			tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
		}
		if (s->state != TRACE_SEQ__GOOD || s->len > cap) {
			trace_seq_reset(s);
			return 1;
		}
		memcpy(e, s->buffer, s->len);
		n = (int)s->len;
		trace_seq_reset(s);
	}
	e += n;
	if (n && e[-1] == '\n')
		e--;
	*e++ = '\n';
	p->olen = (size_t)(e - p->obuf);
	return 0;
}

static int print_event(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	int ret;

	if (!rec->missed_events && !ev->selected)
		return 0;
	/* A line after a lost-events mark has no buffer column: the general path. */
	if (p->tl && !rec->missed_events && p->mode != KT_PRINT_JSON) {
		ret = fast_line(p, ev);
		if (ret <= 0)
			return ret;
	}
	if (p->mode == KT_PRINT_JSON) {
		if (rec->missed_events) {
			trace_seq_printf(s, "{\"cpu\":%d,\"ts\":%llu,\"lost\":",
					 ev->cpu, rec->ts);
			if (rec->missed_events > 0)
				trace_seq_printf(s, "%lld}", rec->missed_events);
			else
				trace_seq_puts(s, "null}");
			if (ev->buffer) {
				s->len--;
				trace_seq_puts(s, ",\"buffer\":");
				json_str(s, kt_reader_buffer_name(p->r, ev->buffer));
				trace_seq_putc(s, '}');
			}
			ret = flush_seq(p);
			if (ret)
				return ret;
		}
		if (!ev->selected)
			return 0;
		json_line(p, ev);
		return flush_seq(p);
	}
	text_prefix(p, ev);
	if (rec->missed_events > 0)
		trace_seq_printf(s, "CPU:%d [%lld EVENTS DROPPED]\n", ev->cpu,
				 rec->missed_events);
	else if (rec->missed_events < 0)
		trace_seq_printf(s, "CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	if (!ev->selected) {
		/* The mark alone: drop the newline flush_seq() adds back. */
		if (s->len)
			s->len--;
		return flush_seq(p);
	}
	text_line(p, ev);
	return flush_seq(p);
}

int kt_printer_print(struct kt_printer *p, const struct kt_event *ev)
{
	int ret = print_event(p, ev);

	if (!(p->flags & KT_PRINT_BATCH)) {
		int fret = kt_printer_flush(p);

		if (!ret)
			ret = fret;
	}
	return ret;
}
