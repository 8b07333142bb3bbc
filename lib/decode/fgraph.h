/* SPDX-License-Identifier: GPL-2.0 */
/*
 * function_graph's records as `trace-cmd report` prints them: its
 * funcgraph_entry/funcgraph_exit as the nested call graph with
 * durations (ftrace:function is libtraceevent's function plugin's, as
 * in trace-cmd).  trace-cmd looks one record ahead in the file's time
 * order: an entry whose next record is its own exit (the same pid and
 * function) prints as one leaf line, "func();" with the call's
 * duration, and that exit is not printed.  A kt_fgraph sits between the
 * decoder and the printer and does the same: it holds an entry back
 * until the next record says which it is.
 */
#ifndef KT_FGRAPH_H
#define KT_FGRAPH_H

#include <stdbool.h>

#include <event-parse.h>

#include "decode/decoder.h"

struct kt_printer;
struct kt_reader;

struct kt_fgraph;
/*
 * For the file r reads: NULL with errno 0 when it lacks the graph's
 * events (nothing to do), NULL with errno set on failure.  Their formats
 * are parsed when the first of their records comes (most files hold
 * them, as ftrace's own, and have no records of them: their parse was
 * an eighth of a small file's report); should they not parse then, the
 * records are printed as libtraceevent prints them.
 */
struct kt_fgraph *kt_fgraph_new(struct kt_reader *r);
void kt_fgraph_free(struct kt_fgraph *g);

/* Have p's text lines of the graph's events formatted here. */
void kt_fgraph_hook(struct kt_fgraph *g, struct kt_printer *p);

/*
 * What kt_fgraph_feed() reads of every record, the first member of a
 * kt_fgraph: most records pass on inline, in the decoder's callback,
 * without a call of their own (12 instructions a record, 1.2% of a
 * report of kernel stacks; trace-cmd's files all have the graph's
 * formats).
 */
struct kt_fgraph_gate {
	int entry_id;		/* funcgraph_entry's event id */
	bool held;		/* an entry is held back */
};

/* kt_fgraph_feed() with an entry held or coming. */
int kt_fgraph_feed_held(struct kt_fgraph *g, const struct kt_event *ev,
			kt_event_fn fn, void *arg);

/*
 * Pass ev on to fn, now or, for an entry, with the next record (an exit
 * that makes it a leaf is then swallowed).  fn's value, or -ENOMEM.
 */
static inline int kt_fgraph_feed(struct kt_fgraph *g, const struct kt_event *ev,
				 kt_event_fn fn, void *arg)
{
	const struct kt_fgraph_gate *gate = (const struct kt_fgraph_gate *)g;

	if (!gate->held && ev->event->id != gate->entry_id)
		return fn(ev, arg);
	return kt_fgraph_feed_held(g, ev, fn, arg);
}
/* Pass on the entry still held at the end of the stream. */
int kt_fgraph_flush(struct kt_fgraph *g, kt_event_fn fn, void *arg);

#endif
