/* SPDX-License-Identifier: GPL-2.0 */
/* The printer: a kt_event as a trace-cmd text line, field=value or JSON. */
/*
 * The printer turns a record into trace-cmd's text line (byte for byte),
 * field=value text, or one JSON object.  It chooses the formatter of the
 * part after the event name: the compiled one (lib/decode/fastfmt.c,
 * KT_PRINT_COMPILED) or libtraceevent; a hook can replace it, per event
 * (kt_printer_set_info) or for all (a view's own text).  A file report's
 * text lines are built in place in a large output block (the line start
 * from lib/decode/textline.c's caches, the compiled info written straight
 * into the line).
 */
#ifndef KT_PRINTER_H
#define KT_PRINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct kt_event;
struct kt_reader;
struct tep_event;
struct tep_record;
struct trace_seq;

enum kt_print_mode {
	KT_PRINT_TEXT,		/* as trace-cmd report */
	KT_PRINT_RAW,		/* as trace-cmd report -R */
	KT_PRINT_JSON,
};

#define KT_PRINT_NSEC	(1u << 0)	/* -t: ns timestamps */
/* No event name column: the info hook writes the whole rest of the line. */
#define KT_PRINT_NO_NAME	(1u << 1)
/*
 * Gather lines and write them in large blocks; the caller must call
 * kt_printer_flush() at the end (a file report).  Without it every
 * kt_printer_print() writes its lines to the FILE at once (a live view).
 */
#define KT_PRINT_BATCH		(1u << 2)
/*
 * Text mode: the part after the event name from the compiled formatter
 * (lib/decode/fastfmt.c), byte for byte libtraceevent's and about 15x
 * faster; what it does not compile goes to libtraceevent.  Ignored in
 * raw and JSON modes, and when the environment has KTRACE_NO_FASTFMT.
 * Not with kt_printer_set_info_default(), whose hook it is.
 */
#define KT_PRINT_COMPILED	(1u << 3)

/*
 * Print the part after "event_name: " into s for one event; return 0,
 * or < 0 to fall back to libtraceevent's formatting for this record.
 */
typedef int (*kt_info_fn)(struct trace_seq *s, struct tep_event *event,
			  struct tep_record *record, void *priv);

/*
 * The same written straight into a text line's room (out, cap bytes):
 * its length, -ENOSPC when it does not fit, or another < 0 for the
 * kt_info_fn of the same event (the general path).
 */
typedef int (*kt_text_fn)(char *out, size_t cap, struct tep_event *event,
			  struct tep_record *record, void *priv);

struct kt_printer;
struct kt_printer *kt_printer_new(struct kt_reader *r, enum kt_print_mode mode,
				  unsigned int flags, FILE *out);
/*
 * The same for records that come from elsewhere (a live buffer): tep
 * holds the formats, in_usecs says timestamps are ns shown as seconds.
 * Every kt_event must then have buffer 0.
 */
struct tep_handle;
struct kt_printer *kt_printer_new_tep(struct tep_handle *tep, bool in_usecs,
				      enum kt_print_mode mode,
				      unsigned int flags, FILE *out);
void kt_printer_free(struct kt_printer *p);
void kt_printer_set_info(struct kt_printer *p, int event_id, kt_info_fn fn,
			 void *priv);
/*
 * Text lines of event_id from text where it can (the file's plain text),
 * from fn where not: both say the same.
 */
void kt_printer_set_text(struct kt_printer *p, int event_id, kt_text_fn text,
			 kt_info_fn fn, void *priv);
/* The same for every event without a hook of its own (a compiled
 * formatter that decides per event, answering < 0 where it cannot). */
void kt_printer_set_info_default(struct kt_printer *p, kt_info_fn fn,
				 void *priv);
/*
 * JSON: name user stacks' frames from u (decode/ustack.h), which the
 * caller keeps until the printer is freed.  Text lines take u through
 * kt_printer_set_info() with kt_ustack_info().
 */
struct kt_ustack;
void kt_printer_set_ustack(struct kt_printer *p, struct kt_ustack *u);
/* Print the lost-events mark, if any, and the event when selected. */
int kt_printer_print(struct kt_printer *p, const struct kt_event *ev);
/*
 * KT_PRINT_BATCH into a file the caller alone writes and trims when done
 * (base/fileroom.h): disk room is taken ahead of the blocks written.
 */
void kt_printer_own_file(struct kt_printer *p);
/* Write out what KT_PRINT_BATCH gathered; 0 or -errno. */
int kt_printer_flush(struct kt_printer *p);

#endif
