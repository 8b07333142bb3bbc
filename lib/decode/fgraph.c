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

/* Spaces per call level. */
#define FGRAPH_INDENT	2

/* Function names by address, direct-mapped: a graph calls few functions. */
#define NAME_CACHE	1024
/* A line's info at most: the deepest indent (4096), a name, the rest. */
#define INFO_MAX	(4096 + 1024)

/* A field of the graph's records, looked up once. */
struct gfield {
	int offset, size;	/* size 0: the format lacks it */
};

struct name_ent {
	unsigned long long addr;
	const char *name;	/* NULL: none there (printed in hex) */
	size_t len;
	bool valid;
};

struct kt_fgraph {
	struct kt_fgraph_gate gate;	/* first: kt_fgraph_feed() reads it so */
	struct tep_handle *tep;
	struct tep_event *entry_ev, *exit_ev;
	struct gfield depth_in, func_in, depth_out, func_out, calltime, rettime;
	bool host_order;	/* the file's byte order is this machine's */
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
	struct gfield g = { 0, 0 };

	if (f && f->offset >= 0 && f->size > 0 && f->size <= 8) {
		g.offset = f->offset;
		g.size = f->size;
	}
	return g;
}

struct kt_fgraph *kt_fgraph_new(struct tep_handle *tep)
{
	struct kt_fgraph *g;

	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->tep = tep;
	g->entry_ev = tep_find_event_by_name(tep, "ftrace", "funcgraph_entry");
	g->exit_ev = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
	if (!g->entry_ev || !g->exit_ev) {
		free(g);
		errno = 0;
		return NULL;
	}
	g->gate.entry_id = g->entry_ev->id;
	g->host_order = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	g->depth_in = gfield_of(g->entry_ev, "depth");
	g->func_in = gfield_of(g->entry_ev, "func");
	g->depth_out = gfield_of(g->exit_ev, "depth");
	g->func_out = gfield_of(g->exit_ev, "func");
	g->calltime = gfield_of(g->exit_ev, "calltime");
	g->rettime = gfield_of(g->exit_ev, "rettime");
	return g;
}

void kt_fgraph_free(struct kt_fgraph *g)
{
	if (!g)
		return;
	free(g->data);
	free(g);
}

/* A field's number; false when the format or the record lacks it. */
static bool field(struct kt_fgraph *g, const struct gfield *f,
		  const struct tep_record *rec, unsigned long long *v)
{
	const char *at = (const char *)rec->data + f->offset;

	if (!f->size || f->offset + f->size > rec->size)
		return false;
	if (g->host_order && f->size == 8)
		memcpy(v, at, 8);	/* the graph's times and addresses */
	else if (g->host_order && f->size == 4) {
		uint32_t v32;

		memcpy(&v32, at, 4);
		*v = v32;
	} else {
		*v = tep_read_number(g->tep, at, f->size);
	}
	return true;
}

/* A line's room: the text written so far, and where it must stop. */
struct room {
	char *p, *end;
};

/* Past the end once, it stays past: nothing more is written. */
static bool short_of(const struct room *r, size_t n)
{
	return r->p > r->end || (size_t)(r->end - r->p) < n;
}

static void put(struct room *r, const char *s, size_t n)
{
	if (short_of(r, n)) {
		r->p = r->end + 1;	/* over: said by fits() */
		return;
	}
	memcpy(r->p, s, n);
	r->p += n;
}

static bool fits(const struct room *r)
{
	return r->p <= r->end;
}

/* An address by name, else in hex, as libtraceevent names it. */
static void put_addr(struct kt_fgraph *g, struct room *r, unsigned long long addr)
{
	struct name_ent *n = &g->names[(addr ^ (addr >> 12)) % NAME_CACHE];
	char hex[20];

	if (!n->valid || n->addr != addr) {
		n->addr = addr;
		n->valid = true;
		n->name = tep_find_function(g->tep, addr);
		n->len = n->name ? strlen(n->name) : 0;
	}
	if (n->name) {
		put(r, n->name, n->len);
		return;
	}
	put(r, hex, (size_t)(kt_fmt_hex(hex, addr) - hex));
}

/* The mark of a long call: '+' over 10 us, '!' 100 us, '#' 1 ms, '$' 1 s. */
static void put_overhead(struct room *r, unsigned long long ns)
{
	put(r, ns > 1000000000ULL ? "$ " : ns > 1000000ULL ? "# " :
	       ns > 100000ULL ? "! " : ns > 10000ULL ? "+ " : "  ", 2);
}

/* "12.345 us   |  ": microseconds, their ns up to 7 digits, a column. */
static void put_duration(struct room *r, unsigned long long ns)
{
	static const char pad[] = "       ";
	char us[32];
	int n = (int)(kt_fmt_udec(us, ns / 1000, 0, ' ') - us);

	if (n < 7) {
		us[n] = '.';
		n = (int)(kt_fmt_udec(us + n + 1, ns % 1000, 3, '0') - us);
	}
	put(r, us, (size_t)n);
	put(r, " us ", 4);
	if (n < 7)
		put(r, pad, (size_t)(7 - n));
	put(r, "|  ", 3);
}

static void put_indent(struct room *r, unsigned long long depth)
{
	size_t n = depth < 2048 ? (size_t)depth * FGRAPH_INDENT : 4096;

	if (short_of(r, n)) {
		r->p = r->end + 1;
		return;
	}
	memset(r->p, ' ', n);
	r->p += n;
}

/* Its length, or -ENOSPC. */
static int done(const struct room *r, char *out)
{
	return fits(r) ? (int)(r->p - out) : -ENOSPC;
}

static int entry_text(char *out, size_t cap, struct tep_event *e,
		      struct tep_record *rec, void *priv)
{
	struct kt_fgraph *g = priv;
	bool leaf = g->leaf && rec == &g->rec;
	unsigned long long depth, func;
	struct room r = { out, out + cap };

	(void)e;
	if (leaf) {
		put_overhead(&r, g->leaf_ns);
		put_duration(&r, g->leaf_ns);
	} else {
		put(&r, "             |  ", 16);
	}
	if (!field(g, &g->depth_in, rec, &depth))
		return put(&r, "!", 1), done(&r, out);
	put_indent(&r, depth);
	if (!field(g, &g->func_in, rec, &func))
		return put(&r, "!", 1), done(&r, out);
	put_addr(g, &r, func);
	if (leaf)
		put(&r, "();", 3);
	else
		put(&r, "() {", 4);
	return done(&r, out);
}

static bool call_ns(struct kt_fgraph *g, struct tep_record *rec,
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
	struct room r = { out, out + cap };

	(void)e;
	if (!call_ns(g, rec, &ns))
		return put(&r, "!", 1), done(&r, out);
	put_overhead(&r, ns);
	put_duration(&r, ns);
	if (!field(g, &g->depth_out, rec, &depth))
		return put(&r, "!", 1), done(&r, out);
	put_indent(&r, depth);
	put(&r, "}", 1);
	return done(&r, out);
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
	if (g->entry_ev)
		kt_printer_set_text(p, g->entry_ev->id, entry_text, entry_info, g);
	if (g->exit_ev)
		kt_printer_set_text(p, g->exit_ev->id, exit_text, exit_info, g);
}

static bool is(const struct kt_event *ev, const struct tep_event *e)
{
	return e && ev->event->id == e->id;
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
	memcpy(g->data, r->data, r->size);
	g->rec = *r;
	g->rec.data = g->data;
	g->rec.priv = NULL;
	g->ev = *ev;
	g->ev.record = &g->rec;
	g->gate.held = true;
	return 0;
}

/* Is next the held entry's own exit: the same pid and function? */
static bool own_exit(struct kt_fgraph *g, const struct kt_event *next)
{
	unsigned long long f1, f2;

	if (!is(next, g->exit_ev) ||
	    tep_data_pid(g->tep, next->record) != tep_data_pid(g->tep, &g->rec))
		return false;
	return field(g, &g->func_in, &g->rec, &f1) &&
	       field(g, &g->func_out, next->record, &f2) && f1 == f2;
}

int kt_fgraph_feed_held(struct kt_fgraph *g, const struct kt_event *ev,
			kt_event_fn fn, void *arg)
{
	int ret;

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
