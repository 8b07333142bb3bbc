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
#include <stdint.h>
#include <string.h>

#include <traceevent/event-parse.h>

enum kt_textline_time {
	KT_TEXTLINE_USECS,	/* ns shown " %5llu.%06llu" (rounded) */
	KT_TEXTLINE_NSECS,	/* ns shown " %5llu.%09llu" */
	KT_TEXTLINE_RAW,	/* counts of another clock: "%12llu" */
};

/* Room a header needs at the output pointer. */
#define KT_TEXTLINE_MAX 256

/* "%16s-%-5d [%03d]" of one pid on one CPU, as trace-cmd prints it. */
struct kt_textline_comm {
	int pid;
	int cpu;
	unsigned int len;	/* 0: empty */
	char txt[52];		/* copied whole: a fixed-size copy is cheaper */
};

#define KT_TEXTLINE_NAME_COPY	32

/*
 * "name: " and the padding to the column: in the slot when it fits
 * (most names), else in ltxt; no pointer to follow for a short one.
 */
struct kt_textline_name {
	unsigned int len;	/* 0: not built yet */
	char txt[KT_TEXTLINE_NAME_COPY];	/* padded: copied whole */
	char *ltxt;		/* len > KT_TEXTLINE_NAME_COPY: the text */
};

/*
 * Here and not in textline.c so that kt_textline_header() runs inline
 * in the printer's line: its call cost 27 instructions a record, a
 * quarter of the header's.  The builders of a miss stay out of line.
 */
struct kt_textline {
	struct tep_handle *tep;
	enum kt_textline_time tmode;
	bool no_name;
	/* common_pid read in place when it is a host-order int. */
	bool pid_direct;
	/* pid_direct, a name column and microseconds: kt_textline_header()'s case */
	bool usual;
	unsigned int pid_off;
	struct kt_textline_comm *comms;
	unsigned int ncomms;	/* slots in comms */
	struct kt_textline_name *names;
	int nnames;		/* entries in names: grown to the ids seen */
	/*
	 * " %5llu.%06llu: " of the last hundred microseconds printed: the
	 * records whose times round into it (ts - blk_lo < blk_span) differ
	 * only in its last two digits, (ts - blk_lo) / 1000.  Found without
	 * a division by 1000 first: most records of a report are there.
	 */
	unsigned long long blk_lo, blk_span;	/* span 0: none yet */
	unsigned int time_len;
	char time_txt[32];
};

/* no_name: leave out the event name column (the process view). */
struct kt_textline *kt_textline_new(struct tep_handle *tep,
				    enum kt_textline_time tmode, bool no_name);
void kt_textline_free(struct kt_textline *t);
/*
 * Where libtraceevent reads every record's pid (the first event's
 * common_pid, 4 bytes in this machine's order, within a record's first
 * 64): *off, true; false where tep_data_pid() must read it.
 */
bool kt_textline_pid_place(struct tep_handle *tep, unsigned int *off);

/* The misses of kt_textline_header()'s caches, out of line: see textline.c. */
extern const char kt_textline_digits2[201];
char *kt_textline_comm_build(struct kt_textline *t, char *p, int pid, int cpu);
struct kt_textline_name *kt_textline_name_build(struct kt_textline *t,
						struct tep_event *ev);
char *kt_textline_usecs_build(struct kt_textline *t, char *p,
			      unsigned long long ts);
char *kt_textline_other_time(struct kt_textline *t, char *p,
			     unsigned long long v);

static inline struct kt_textline_comm *kt_textline_comm_slot(struct kt_textline *t,
							     int pid, int cpu)
{
	return &t->comms[((unsigned int)pid * 8 + (unsigned int)cpu) &
			 (t->ncomms - 1)];
}

/*
 * "%16s-%-5d [%03d]": from the cache, or built; NULL for a rare shape
 * (a returned NULL, not a flag in memory: one store and load a record).
 */
static inline char *kt_textline_put_comm(struct kt_textline *t, char *p,
					 int pid, int cpu)
{
	const struct kt_textline_comm *c = kt_textline_comm_slot(t, pid, cpu);

	if (c->len && c->pid == pid && c->cpu == cpu) {
		memcpy(p, c->txt, sizeof(c->txt));
		return p + c->len;
	}
	return kt_textline_comm_build(t, p, pid, cpu);
}

static inline struct kt_textline_name *kt_textline_name_of(struct kt_textline *t,
							   struct tep_event *ev)
{
	/* unsigned: a negative id is past nnames too */
	if ((unsigned int)ev->id < (unsigned int)t->nnames && t->names[ev->id].len)
		return &t->names[ev->id];
	return kt_textline_name_build(t, ev);
}

/* " %5llu.%06llu: " of ns, rounded to us as libtraceevent does. */
static inline char *kt_textline_put_usecs(struct kt_textline *t, char *p,
					  unsigned long long ts)
{
	unsigned long long d = ts - t->blk_lo;

	if (d < t->blk_span) {
		/* The block's text, then its last two digits over it. */
		memcpy(p, t->time_txt, sizeof(t->time_txt));
		memcpy(p + t->time_len - 4,
		       kt_textline_digits2 + 2 * ((unsigned int)d / 1000), 2);
		return p + t->time_len;
	}
	return kt_textline_usecs_build(t, p, ts);
}

/*
 * Write the line's start for rec (of event ev, on cpu) at out, which has
 * KT_TEXTLINE_MAX bytes of room; returns the end, or NULL for a rare
 * shape (a negative pid or cpu, a very long comm or name) that the
 * caller lays out with libtraceevent instead.  Any shape, every cache
 * filled as needed: out of line.
 */
char *kt_textline_header_any(struct kt_textline *t, char *out,
			     struct tep_event *ev, struct tep_record *rec,
			     int cpu);

/*
 * kt_textline_header_any() where every cache holds the record's parts
 * (the usual case): tested first, then copied, with no call before the
 * copies, so that the caller keeps fewer values across calls.  Any
 * other record, untouched, goes to kt_textline_header_any().
 */
static inline char *kt_textline_header(struct kt_textline *t, char *out,
				       struct tep_event *ev,
				       struct tep_record *rec, int cpu)
{
	const struct kt_textline_name *name;
	const struct kt_textline_comm *c;
	unsigned long long d;
	int32_t pid;
	char *p;

	if (!t->usual)
		return kt_textline_header_any(t, out, ev, rec, cpu);
	memcpy(&pid, (const char *)rec->data + t->pid_off, sizeof(pid));
	d = rec->ts - t->blk_lo;
	/* unsigned: a negative id or cpu is past the bound too */
	if ((unsigned int)ev->id >= (unsigned int)t->nnames || d >= t->blk_span ||
	    pid < 0 || (unsigned int)cpu > 999999)
		return kt_textline_header_any(t, out, ev, rec, cpu);
	name = &t->names[ev->id];
	c = kt_textline_comm_slot(t, pid, cpu);
	if (!name->len || !c->len || c->pid != pid || c->cpu != cpu)
		return kt_textline_header_any(t, out, ev, rec, cpu);
	memcpy(out, c->txt, sizeof(c->txt));
	p = out + c->len;
	/* kt_textline_put_usecs()'s block: its text, its last two digits over it */
	memcpy(p, t->time_txt, sizeof(t->time_txt));
	memcpy(p + t->time_len - 4,
	       kt_textline_digits2 + 2 * ((unsigned int)d / 1000), 2);
	p += t->time_len;
	if (name->len <= KT_TEXTLINE_NAME_COPY)
		memcpy(p, name->txt, KT_TEXTLINE_NAME_COPY);
	else
		memcpy(p, name->ltxt, name->len);
	return p + name->len;
}

#endif
