// SPDX-License-Identifier: GPL-2.0
/*
 * function_graph's text, as trace-cmd report prints it, with its
 * one-record look-ahead for the leaves.  See fgraph.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode/fgraph.h"
#include "decode/printer.h"

/* Spaces per call level. */
#define FGRAPH_INDENT	2

struct kt_fgraph {
	struct tep_handle *tep;
	struct tep_event *entry_ev, *exit_ev;
	/* An entry held back until the next record, and its copy. */
	bool held;
	struct kt_event ev;
	struct tep_record rec;
	void *data;
	size_t cap;
	/* While the held entry is printed as a leaf: its exit's duration. */
	bool leaf;
	unsigned long long leaf_ns;
};

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
	return g;
}

void kt_fgraph_free(struct kt_fgraph *g)
{
	if (!g)
		return;
	free(g->data);
	free(g);
}

/* A field's number; false when the record lacks it. */
static bool field(struct kt_fgraph *g, struct tep_event *e,
		  struct tep_record *rec, const char *name,
		  unsigned long long *v)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    f->offset + f->size > rec->size)
		return false;
	*v = tep_read_number(g->tep, (char *)rec->data + f->offset, f->size);
	return true;
}

/* An address by name, else in hex as hexfmt says. */
static void put_addr(struct kt_fgraph *g, struct trace_seq *s,
		     unsigned long long addr, const char *hexfmt)
{
	const char *name = tep_find_function(g->tep, addr);

	if (name)
		trace_seq_puts(s, name);
	else
		trace_seq_printf(s, hexfmt, addr);
}

/* The mark of a long call: '+' over 10 us, '!' 100 us, '#' 1 ms, '$' 1 s. */
static void put_overhead(struct trace_seq *s, unsigned long long ns)
{
	trace_seq_puts(s, ns > 1000000000ULL ? "$ " : ns > 1000000ULL ? "# " :
			  ns > 100000ULL ? "! " : ns > 10000ULL ? "+ " : "  ");
}

/* "12.345 us   |  ": microseconds, their ns up to 7 digits, a column. */
static void put_duration(struct trace_seq *s, unsigned long long ns)
{
	char us[24];
	int n = snprintf(us, sizeof(us), "%llu", ns / 1000);

	trace_seq_puts(s, us);
	if (n < 7) {
		trace_seq_printf(s, ".%03llu", ns % 1000);
		n += 4;
	}
	trace_seq_puts(s, " us ");
	for (; n < 7; n++)
		trace_seq_putc(s, ' ');
	trace_seq_puts(s, "|  ");
}

static void put_indent(struct trace_seq *s, unsigned long long depth)
{
	unsigned long long i;

	for (i = 0; i < depth * FGRAPH_INDENT && i < 4096; i++)
		trace_seq_putc(s, ' ');
}

static int entry_info(struct trace_seq *s, struct tep_event *e,
		      struct tep_record *rec, void *priv)
{
	struct kt_fgraph *g = priv;
	bool leaf = g->leaf && rec == &g->rec;
	unsigned long long depth, func;

	if (leaf) {
		put_overhead(s, g->leaf_ns);
		put_duration(s, g->leaf_ns);
	} else {
		trace_seq_puts(s, "  ");
		trace_seq_puts(s, "           |  ");
	}
	if (!field(g, e, rec, "depth", &depth))
		return trace_seq_putc(s, '!'), 0;
	put_indent(s, depth);
	if (!field(g, e, rec, "func", &func))
		return trace_seq_putc(s, '!'), 0;
	put_addr(g, s, func, "%llx");
	trace_seq_puts(s, leaf ? "();" : "() {");
	return 0;
}

static bool call_ns(struct kt_fgraph *g, struct tep_event *e,
		    struct tep_record *rec, unsigned long long *ns)
{
	unsigned long long call, ret;

	if (!field(g, e, rec, "calltime", &call) ||
	    !field(g, e, rec, "rettime", &ret))
		return false;
	*ns = ret - call;
	return true;
}

static int exit_info(struct trace_seq *s, struct tep_event *e,
		     struct tep_record *rec, void *priv)
{
	struct kt_fgraph *g = priv;
	unsigned long long ns, depth;

	if (!call_ns(g, e, rec, &ns))
		return trace_seq_putc(s, '!'), 0;
	put_overhead(s, ns);
	put_duration(s, ns);
	if (!field(g, e, rec, "depth", &depth))
		return trace_seq_putc(s, '!'), 0;
	put_indent(s, depth);
	trace_seq_putc(s, '}');
	return 0;
}

void kt_fgraph_hook(struct kt_fgraph *g, struct kt_printer *p)
{
	if (g->entry_ev)
		kt_printer_set_info(p, g->entry_ev->id, entry_info, g);
	if (g->exit_ev)
		kt_printer_set_info(p, g->exit_ev->id, exit_info, g);
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
	g->held = true;
	return 0;
}

/* Is next the held entry's own exit: the same pid and function? */
static bool own_exit(struct kt_fgraph *g, const struct kt_event *next)
{
	unsigned long long f1, f2;

	if (!is(next, g->exit_ev) ||
	    tep_data_pid(g->tep, next->record) != tep_data_pid(g->tep, &g->rec))
		return false;
	return field(g, g->entry_ev, &g->rec, "func", &f1) &&
	       field(g, g->exit_ev, next->record, "func", &f2) && f1 == f2;
}

/* kt_fgraph_feed() with an entry held or coming. */
static int __attribute__((noinline))
feed_held(struct kt_fgraph *g, const struct kt_event *ev, kt_event_fn fn,
	  void *arg)
{
	int ret;

	if (g->held) {
		g->held = false;
		if (own_exit(g, ev) && call_ns(g, ev->event, ev->record, &g->leaf_ns)) {
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

int kt_fgraph_feed(struct kt_fgraph *g, const struct kt_event *ev,
		   kt_event_fn fn, void *arg)
{
	/* Most records: passed on in a tail call, no frame of its own. */
	if (!g->held && !is(ev, g->entry_ev))
		return fn(ev, arg);
	return feed_held(g, ev, fn, arg);
}

int kt_fgraph_flush(struct kt_fgraph *g, kt_event_fn fn, void *arg)
{
	if (!g->held)
		return 0;
	g->held = false;
	return fn(&g->ev, arg);
}
