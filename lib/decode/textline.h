/* SPDX-License-Identifier: GPL-2.0 */
/* The start of a report line ("comm-pid [cpu] time: name: "), from caches. */
/*
 * The start of a report line as trace-cmd prints it,
 * "%16s-%-5d [%03d] %5llu.%06llu: name: " and the padding after the name,
 * built by hand from caches: the "comm-pid" text per pid, the seconds
 * (which change once a second), and the "name: " text per event.  It is
 * most of the bytes of most lines, so it must cost little.
 *
 * The comm cache keeps only what libtraceevent found in its comm list:
 * the report's readers only add comms for unknown pids
 * (tep_register_comm()), never change a known one, so a found name stays
 * right; a pid not found ("<...>") is asked again each time, as a
 * sched_switch printed later may name it.  Not for a tep whose comms are
 * overridden (tep_override_comm(), as stream does).
 */
#ifndef KT_TEXTLINE_H
#define KT_TEXTLINE_H

#include <stdbool.h>

struct tep_handle;
struct tep_event;
struct tep_record;

enum kt_textline_time {
	KT_TEXTLINE_USECS,	/* ns shown " %5llu.%06llu" (rounded) */
	KT_TEXTLINE_NSECS,	/* ns shown " %5llu.%09llu" */
	KT_TEXTLINE_RAW,	/* counts of another clock: "%12llu" */
};

/* Room a header needs at the output pointer. */
#define KT_TEXTLINE_MAX 256

struct kt_textline;
/* no_name: leave out the event name column (the process view). */
struct kt_textline *kt_textline_new(struct tep_handle *tep,
				    enum kt_textline_time tmode, bool no_name);
void kt_textline_free(struct kt_textline *t);

/*
 * Write the line's start for rec (of event ev, on cpu) at out, which has
 * KT_TEXTLINE_MAX bytes of room; returns the end, or NULL for a rare
 * shape (a negative pid or cpu, a very long comm or name) that the
 * caller lays out with libtraceevent instead.
 */
char *kt_textline_header(struct kt_textline *t, char *out,
			 struct tep_event *ev, struct tep_record *rec, int cpu);

#endif
