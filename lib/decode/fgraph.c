// SPDX-License-Identifier: GPL-2.0
/*
 * function_graph's text, as trace-cmd report prints it, with its
 * one-record look-ahead for the leaves.  See fgraph.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode/fastfmt.h"
#include "decode/fgraph.h"
#include "decode/printer.h"
#include "decode/textline.h"
#include "file/reader.h"

/* Spaces per call level. */
#define FGRAPH_INDENT	2

/* Function names by address, direct-mapped: a graph calls few functions. */
#define NAME_CACHE	1024
/* A line's info at most: the deepest indent (4096), a name, the rest. */
#define INFO_MAX	(4096 + 1024)

/* How field() reads a field: decided once, not at each record. */
enum gread { GREAD_NONE, GREAD_HOST8, GREAD_HOST4, GREAD_TEP };

/* A field of the graph's records, looked up once. */
struct gfield {
	int offset, size;	/* size 0: the format lacks it */
	int end;		/* offset + size: the record must reach it */
	enum gread how;
};

/*
 * A function's text: its name, or its address in hex where it has none.
 * One of up to NAME_COPY bytes is kept in txt, padded, to be copied as
 * a block of that size; a longer one is where libtraceevent keeps it.
 */
#define NAME_COPY	48

struct name_ent {
	unsigned long long addr;
	const char *name;	/* txt, or the long name */
	size_t len;
	bool valid;
	char txt[NAME_COPY];
};

struct kt_fgraph {
	struct kt_fgraph_gate gate;	/* first: kt_fgraph_feed() reads it so */
	struct kt_reader *r;
	struct tep_handle *tep;
	int exit_id;		/* known before its format is parsed (gate.entry_id too) */
	int ready;			/* 0: not set up yet, 1: set up, -1: cannot be */
	struct tep_event *entry_ev, *exit_ev;
	struct gfield depth_in, func_in, depth_out, func_out, calltime, rettime;
	bool host_order;	/* the file's byte order is this machine's */
	/* common_pid read in place (kt_textline_pid_place()). */
	bool pid_direct;
	unsigned int pid_off;
	/* The entry held back until the next record (gate.held), its copy. */
	struct kt_event ev;
	struct tep_record rec;
	void *data;
	size_t cap;
	/* While the held entry is printed as a leaf: its exit's duration. */
	bool leaf;
	unsigned long long leaf_ns;
	struct name_ent names[NAME_CACHE];
	char info[INFO_MAX];	/* the trace_seq path's text, built here */
};

static struct gfield gfield_of(struct tep_event *e, const char *name)
{
	struct tep_format_field *f = tep_find_field(e, name);
	struct gfield g = { .how = GREAD_NONE };

	if (f && f->offset >= 0 && f->size > 0 && f->size <= 8) {
		g.offset = f->offset;
		g.size = f->size;
		g.end = f->offset + f->size;
		g.how = GREAD_TEP;
	}
	return g;
}

/* Each field's way of being read, once the file's byte order is known. */
static void gfield_how(struct gfield *f, bool host_order)
{
	if (f->how == GREAD_TEP && host_order && f->size == 8)
		f->how = GREAD_HOST8;
	else if (f->how == GREAD_TEP && host_order && f->size == 4)
		f->how = GREAD_HOST4;
}

struct kt_fgraph *kt_fgraph_new(struct kt_reader *r)
{
	struct kt_fgraph *g;

	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->r = r;
	g->tep = kt_reader_tep_lazy(r);
	g->gate.entry_id = kt_reader_event_id(r, "ftrace", "funcgraph_entry");
	g->exit_id = kt_reader_event_id(r, "ftrace", "funcgraph_exit");
	if (g->gate.entry_id < 0 || g->exit_id < 0) {
		free(g);
		errno = 0;
		return NULL;
	}
	return g;
}

/* The graph's formats parsed and its fields found, at its first record. */
static bool ready(struct kt_fgraph *g)
{
	if (g->ready)
		return g->ready > 0;
	g->entry_ev = kt_reader_event_named(g->r, "ftrace", "funcgraph_entry");
	g->exit_ev = kt_reader_event_named(g->r, "ftrace", "funcgraph_exit");
	if (!g->entry_ev || !g->exit_ev || g->entry_ev->id != g->gate.entry_id ||
	    g->exit_ev->id != g->exit_id) {
		g->ready = -1;
		g->gate.entry_id = -1;
		return false;
	}
	g->ready = 1;
	g->host_order = tep_is_file_bigendian(g->tep) == tep_is_local_bigendian(g->tep);
	g->depth_in = gfield_of(g->entry_ev, "depth");
	g->func_in = gfield_of(g->entry_ev, "func");
	g->depth_out = gfield_of(g->exit_ev, "depth");
	g->func_out = gfield_of(g->exit_ev, "func");
	g->calltime = gfield_of(g->exit_ev, "calltime");
	g->rettime = gfield_of(g->exit_ev, "rettime");
	gfield_how(&g->depth_in, g->host_order);
	gfield_how(&g->func_in, g->host_order);
	gfield_how(&g->depth_out, g->host_order);
	gfield_how(&g->func_out, g->host_order);
	gfield_how(&g->calltime, g->host_order);
	gfield_how(&g->rettime, g->host_order);
	g->pid_direct = kt_textline_pid_place(g->tep, &g->pid_off);
	return true;
}

void kt_fgraph_free(struct kt_fgraph *g)
{
	if (!g)
		return;
	free(g->data);
	free(g);
}

/* A field's number; false when the format or the record lacks it. */
static inline __attribute__((always_inline))
bool field(struct kt_fgraph *g, const struct gfield *f,
	   const struct tep_record *rec, unsigned long long *v)
{
	const char *at = (const char *)rec->data + f->offset;

	if (f->how == GREAD_NONE || f->end > rec->size)
		return false;
	if (f->how == GREAD_HOST8) {
		memcpy(v, at, 8);	/* the graph's times and addresses */
	} else if (f->how == GREAD_HOST4) {
		uint32_t v32;

		memcpy(&v32, at, 4);
		*v = v32;
	} else {
		*v = tep_read_number(g->tep, at, f->size);
	}
	return true;
}

/*
 * The parts of a line: what goes before the indent (a duration, or the
 * blank column), the indent, the function (or "!" where a field is
 * missing) and what ends it.  Measured first and then copied, with no
 * check a byte: the text is most of a graph's report.
 */
struct gline {
	/*
	 * 32 bytes readable: blank_lead, or the caller's buffer of the
	 * duration.  A pointer, not the bytes: the parts then stay in
	 * registers, not a struct written and read back.
	 */
	const char *lead;
	size_t lead_len, indent;
	const char *name;	/* NAME_COPY bytes readable when name_len is under */
	size_t name_len;
	const char *tail;	/* 4 bytes readable */
	size_t tail_len;
};

/* Spaces enough for the indent of most lines, copied as one block. */
#define INDENT_COPY	64
static const char spaces[INDENT_COPY + 1] =
	"                                                                ";

/* The room a line's blocks may take past its end. */
#define GLINE_SLACK	(32 + INDENT_COPY + NAME_COPY + 4)

/*
 * l's text at out: its length, or -ENOSPC when it is longer than cap
 * (the caller's general path then).  Where cap leaves room to spare,
 * each part is copied as a block of a constant size, past its end
 * (the next part, or the next line, writes over the rest): four moves
 * and no calls, where a check and a memcpy() a part cost 150
 * instructions a line.
 */
static inline __attribute__((always_inline))
int gline_put(const struct gline *l, char *out, size_t cap)
{
	size_t n = l->lead_len + l->indent + l->name_len + l->tail_len;
	char *p = out;

	if (n > cap)
		return -ENOSPC;
	if (cap - n >= GLINE_SLACK && l->indent <= INDENT_COPY &&
	    l->name_len <= NAME_COPY) {
		memcpy(p, l->lead, 32);
		p += l->lead_len;
		memcpy(p, spaces, INDENT_COPY);
		p += l->indent;
		memcpy(p, l->name, NAME_COPY);
		p += l->name_len;
		memcpy(p, l->tail, 4);
		return (int)n;
	}
	memcpy(p, l->lead, l->lead_len);
	p += l->lead_len;
	memset(p, ' ', l->indent);
	p += l->indent;
	memcpy(p, l->name, l->name_len);
	p += l->name_len;
	memcpy(p, l->tail, l->tail_len);
	return (int)n;
}

/* What a line's name or tail may be, padded to be copied in blocks. */
static const char bang[NAME_COPY] = "!", brace[NAME_COPY] = "}", none[4] = "";
/* The lead of a call that is not a leaf: the blank duration column. */
static const char blank_lead[32] = "             |  ";

/* A line that stops at a missing field. */
static void gline_missing(struct gline *l)
{
	l->name = bang;
	l->name_len = 1;
	l->tail = none;
	l->tail_len = 0;
}

/* Spaces of a call's depth, as many as trace-cmd's at most. */
static size_t indent_of(unsigned long long depth)
{
	return depth < 2048 ? (size_t)depth * FGRAPH_INDENT : 4096;
}

/* n for addr: its name, else its hex, as libtraceevent names it. */
static void name_fill(struct kt_fgraph *g, struct name_ent *n,
		      unsigned long long addr)
{
	const char *name = tep_find_function(g->tep, addr);

	n->addr = addr;
	n->valid = true;
	memset(n->txt, 0, sizeof(n->txt));
	if (!name) {
		n->name = n->txt;
		n->len = (size_t)(kt_fmt_hex(n->txt, addr) - n->txt);
		return;
	}
	n->len = strlen(name);
	n->name = n->len <= NAME_COPY ? memcpy(n->txt, name, n->len) : name;
}

/* An address by name, else in hex, as libtraceevent names it. */
static void name_of(struct kt_fgraph *g, unsigned long long addr,
		    struct gline *l)
{
	struct name_ent *n = &g->names[(addr ^ (addr >> 12)) % NAME_CACHE];

	if (!n->valid || n->addr != addr)
		name_fill(g, n, addr);
	l->name = n->name;
	l->name_len = n->len;
}

/* The mark of a long call: '+' over 10 us, '!' 100 us, '#' 1 ms, '$' 1 s. */
static char overhead_mark(unsigned long long ns)
{
	return ns > 1000000000ULL ? '$' : ns > 1000000ULL ? '#' :
	       ns > 100000ULL ? '!' : ns > 10000ULL ? '+' : ' ';
}

static const char digits2[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * duration_text() of a call under a millisecond (most of a graph's),
 * in 32 bits and without a loop: always 16 bytes, the number (1 to 3
 * digits, the point and 3 more) and the padding after " us " making
 * up 7 between them.  Writes up to p + 17.
 */
static inline __attribute__((always_inline))
size_t duration_short(char *p, uint32_t ns)
{
	static const char ends[3][8] = { " us   |", " us  | ", " us |  " };
	uint32_t us = ns / 1000, frac = ns - us * 1000;
	char *s = p + 2;

	p[0] = ns > 100000 ? '!' : ns > 10000 ? '+' : ' ';
	p[1] = ' ';
	if (us >= 100)
		*s++ = (char)('0' + us / 100);
	if (us >= 10) {
		memcpy(s, digits2 + 2 * (us % 100), 2);
		s += 2;
	} else {
		*s++ = (char)('0' + us);
	}
	s[0] = '.';
	s[1] = (char)('0' + frac / 100);
	memcpy(s + 2, digits2 + 2 * (frac % 100), 2);
	/* " us ", the padding and the column's bar, by the digits */
	memcpy(s + 4, ends[s - p - 3], 8);
	memcpy(p + 13, "|  ", 3);
	return 16;
}

/*
 * "+ 12.345 us   |  ": the mark, the microseconds with their ns when
 * they have under 7 digits, a column 7 wide; at p, which has room for
 * 32.  Returns its length.
 */
static inline __attribute__((always_inline))
size_t duration_text(char *p, unsigned long long ns)
{
	unsigned long long us;
	unsigned int frac;
	/* digits end at tmp + 24: 8 bytes readable from any start past 16 */
	char tmp[32], *d = tmp + 24;
	size_t n;
	char *s = p;

	if (ns < 1000000)
		return duration_short(p, (uint32_t)ns);
	us = ns / 1000;
	frac = (unsigned int)(ns % 1000);
	*s++ = overhead_mark(ns);
	*s++ = ' ';
	do {
		*--d = (char)('0' + us % 10);
		us /= 10;
	} while (us);
	n = (size_t)(tmp + 24 - d);
	if (n <= 8)
		memcpy(s, d, 8);
	else
		memcpy(s, d, n);	/* 20 digits at most */
	s += n;
	if (n < 7) {
		*s++ = '.';
		*s++ = (char)('0' + frac / 100);
		memcpy(s, digits2 + 2 * (frac % 100), 2);
		s += 2;
		n += 4;
	}
	memcpy(s, " us     ", 8);	/* " us " and up to 2 of padding */
	s += 4 + (n < 7 ? 7 - n : 0);
	memcpy(s, "|  ", 3);
	return (size_t)(s + 3 - p);
}

static int entry_text(char *out, size_t cap, struct tep_event *e,
		      struct tep_record *rec, void *priv)
{
	struct kt_fgraph *g = priv;
	bool leaf = g->leaf && rec == &g->rec;
	unsigned long long depth, func;
	struct gline l;
	char dur[32];

	(void)e;
	if (!ready(g))
		return -1;	/* libtraceevent's text */
	if (leaf) {
		l.lead_len = duration_text(dur, g->leaf_ns);
		l.lead = dur;
	} else {
		l.lead = blank_lead;
		l.lead_len = 16;
	}
	l.indent = 0;
	if (!field(g, &g->depth_in, rec, &depth)) {
		gline_missing(&l);
		return gline_put(&l, out, cap);
	}
	l.indent = indent_of(depth);
	if (!field(g, &g->func_in, rec, &func)) {
		gline_missing(&l);
		return gline_put(&l, out, cap);
	}
	name_of(g, func, &l);
	l.tail = leaf ? "();" : "() {";
	l.tail_len = leaf ? 3 : 4;
	return gline_put(&l, out, cap);
}

static inline __attribute__((always_inline)) bool call_ns(struct kt_fgraph *g, struct tep_record *rec,
		    unsigned long long *ns)
{
	unsigned long long call, ret;

	if (!field(g, &g->calltime, rec, &call) ||
	    !field(g, &g->rettime, rec, &ret))
		return false;
	*ns = ret - call;
	return true;
}

static int exit_text(char *out, size_t cap, struct tep_event *e,
		     struct tep_record *rec, void *priv)
{
	struct kt_fgraph *g = priv;
	unsigned long long ns, depth;
	struct gline l;
	char dur[32];

	(void)e;
	if (!ready(g))
		return -1;	/* libtraceevent's text */
	l.lead = blank_lead;	/* none: copied, then written over */
	l.lead_len = 0;
	l.indent = 0;
	if (!call_ns(g, rec, &ns)) {
		gline_missing(&l);
		return gline_put(&l, out, cap);
	}
	l.lead_len = duration_text(dur, ns);
	l.lead = dur;
	if (!field(g, &g->depth_out, rec, &depth)) {
		gline_missing(&l);
		return gline_put(&l, out, cap);
	}
	l.indent = indent_of(depth);
	l.name = brace;
	l.name_len = 1;
	l.tail = none;
	l.tail_len = 0;
	return gline_put(&l, out, cap);
}

/* The trace_seq path's: the same text. */
static int seq_text(struct trace_seq *s, kt_text_fn text, struct tep_event *e,
		    struct tep_record *rec, struct kt_fgraph *g)
{
	int n = text(g->info, sizeof(g->info) - 1, e, rec, g);

	if (n < 0)
		return n;
	g->info[n] = '\0';
	trace_seq_puts(s, g->info);
	return 0;
}

static int entry_info(struct trace_seq *s, struct tep_event *e,
		      struct tep_record *rec, void *priv)
{
	return seq_text(s, entry_text, e, rec, priv);
}

static int exit_info(struct trace_seq *s, struct tep_event *e,
		     struct tep_record *rec, void *priv)
{
	return seq_text(s, exit_text, e, rec, priv);
}

void kt_fgraph_hook(struct kt_fgraph *g, struct kt_printer *p)
{
	kt_printer_set_text(p, g->gate.entry_id, entry_text, entry_info, g);
	kt_printer_set_text(p, g->exit_id, exit_text, exit_info, g);
}

static bool is(const struct kt_event *ev, const struct tep_event *e)
{
	return e && ev->event->id == e->id;
}

/* memcpy(): an entry's 16 to 32 bytes in two moves, not a call. */
static inline void copy_small(void *to, const void *from, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(to, from, 16);
		memcpy((char *)to + n - 16, (const char *)from + n - 16, 16);
		return;
	}
	memcpy(to, from, n);
}

/* Keep a copy of an entry: the decoder reuses its record. */
static int hold(struct kt_fgraph *g, const struct kt_event *ev)
{
	struct tep_record *r = ev->record;

	if ((size_t)r->size > g->cap) {
		void *d = realloc(g->data, r->size);

		if (!d)
			return -ENOMEM;
		g->data = d;
		g->cap = r->size;
	}
	copy_small(g->data, r->data, (size_t)r->size);
	g->rec = *r;
	g->rec.data = g->data;
	g->rec.priv = NULL;
	g->ev = *ev;
	g->ev.record = &g->rec;
	g->gate.held = true;
	return 0;
}

static int pid_of(const struct kt_fgraph *g, struct tep_record *rec)
{
	int32_t pid;

	if (!g->pid_direct)
		return tep_data_pid(g->tep, rec);
	memcpy(&pid, (const char *)rec->data + g->pid_off, sizeof(pid));
	return pid;
}

/* Is next the held entry's own exit: the same pid and function? */
static bool own_exit(struct kt_fgraph *g, const struct kt_event *next)
{
	unsigned long long f1, f2;

	if (!is(next, g->exit_ev) ||
	    pid_of(g, next->record) != pid_of(g, &g->rec))
		return false;
	return field(g, &g->func_in, &g->rec, &f1) &&
	       field(g, &g->func_out, next->record, &f2) && f1 == f2;
}

int kt_fgraph_feed_held(struct kt_fgraph *g, const struct kt_event *ev,
			kt_event_fn fn, void *arg)
{
	int ret;

	if (!g->gate.held && !ready(g))
		return fn(ev, arg);
	if (g->gate.held) {
		g->gate.held = false;
		if (own_exit(g, ev) && call_ns(g, ev->record, &g->leaf_ns)) {
			g->leaf = true;
			ret = fn(&g->ev, arg);
			g->leaf = false;
			return ret;
		}
		ret = fn(&g->ev, arg);
		if (ret)
			return ret;
	}
	if (is(ev, g->entry_ev))
		return hold(g, ev);
	return fn(ev, arg);
}

int kt_fgraph_flush(struct kt_fgraph *g, kt_event_fn fn, void *arg)
{
	if (!g->gate.held)
		return 0;
	g->gate.held = false;
	return fn(&g->ev, arg);
}
