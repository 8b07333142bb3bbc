// SPDX-License-Identifier: GPL-2.0
/* The start of a report line ("comm-pid [cpu] time: name: "), from caches. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/textline.h"

#define NR_IDS		65536
#define COMM_SLOTS	4096	/* a power of two: the most slots */
#define COMM_SLOTS_MIN	64	/* the first; doubled at a collision */
#define NAME_COL	20	/* names are padded to this width */

const char kt_textline_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

struct kt_textline *kt_textline_new(struct tep_handle *tep,
				    enum kt_textline_time tmode, bool no_name)
{
	struct kt_textline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tep = tep;
	t->tmode = tmode;
	t->no_name = no_name;
	/* Zeroed: every slot empty. */
	t->ncomms = COMM_SLOTS_MIN;
	t->comms = calloc(t->ncomms, sizeof(*t->comms));
	if (!t->comms) {
		kt_textline_free(t);
		errno = ENOMEM;
		return NULL;
	}
	/* blk_span 0: no block yet (calloc). */
	t->pid_direct = kt_textline_pid_place(tep, &t->pid_off);
	t->usual = t->pid_direct && !no_name && tmode == KT_TEXTLINE_USECS;
	return t;
}

bool kt_textline_pid_place(struct tep_handle *tep, unsigned int *off)
{
	bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	struct tep_format_field *f;
	struct tep_event *first;

	/* libtraceevent reads common_pid where the first event has it. */
	/* Not tep_list_events(): its list would miss formats parsed later (lazyfmt.c). */
	first = tep_get_events_count(tep) > 0 ? tep_get_event(tep, 0) : NULL;
	if (!first || tep_is_file_bigendian(tep) != host_big)
		return false;
	f = tep_find_common_field(first, "common_pid");
	if (!f || f->size != 4 || f->offset < 0 || f->offset > 60)
		return false;
	*off = (unsigned int)f->offset;
	return true;
}

void kt_textline_free(struct kt_textline *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < t->nnames; i++)
		free(t->names[i].ltxt);
	free(t->names);
	free(t->comms);
	free(t);
}

/* Decimal digits of v ending at end; returns the start. */
static char *utoa_back(char *end, unsigned long long v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, kt_textline_digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, kt_textline_digits2 + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* v right-aligned in width columns, padded with pad. */
static char *put_num(char *p, unsigned long long v, int width, char pad)
{
	char tmp[24], *b = utoa_back(tmp + sizeof(tmp), v);
	int n = (int)(tmp + sizeof(tmp) - b);

	for (; n < width; width--)
		*p++ = pad;
	memcpy(p, b, (size_t)n);
	return p + n;
}

/*
 * Twice the slots, the kept lines moved over: a table sized for the
 * tasks a file has (a small file's reader sets up no 256 KB).
 */
static void comms_grow(struct kt_textline *t)
{
	struct kt_textline_comm *old = t->comms, *c;
	unsigned int i, n = t->ncomms;

	t->comms = calloc(2 * n, sizeof(*t->comms));
	if (!t->comms) {
		t->comms = old;
		return;
	}
	t->ncomms = 2 * n;
	for (i = 0; i < n; i++) {
		if (!old[i].len)
			continue;
		c = kt_textline_comm_slot(t, old[i].pid, old[i].cpu);
		*c = old[i];
	}
	free(old);
}

/* kt_textline_put_comm()'s miss: the text built (and kept if found); NULL: a rare shape. */
char *kt_textline_comm_build(struct kt_textline *t, char *p, int pid, int cpu)
{
	struct kt_textline_comm *c = kt_textline_comm_slot(t, pid, cpu);
	const char *comm;
	char *start = p, tmp[24], *d;
	size_t clen;
	int n;

	comm = tep_data_comm_from_pid(t->tep, pid);
	clen = strlen(comm);
	if (clen > 64)
		return NULL;
	if (clen < 16) {
		memset(p, ' ', 16 - clen);
		p += 16 - clen;
	}
	memcpy(p, comm, clen);
	p += clen;
	*p++ = '-';
	d = utoa_back(tmp + sizeof(tmp), (unsigned int)pid);
	n = (int)(tmp + sizeof(tmp) - d);
	memcpy(p, d, (size_t)n);
	p += n;
	for (; n < 5; n++)
		*p++ = ' ';
	*p++ = ' ';
	*p++ = '[';
	p = put_num(p, (unsigned int)cpu, 3, '0');
	*p++ = ']';
	/* "<...>": not in the list yet; a later sched_switch may add it. */
	if (p - start <= (long)sizeof(c->txt) && strcmp(comm, "<...>")) {
		if (c->len && t->ncomms < COMM_SLOTS) {
			comms_grow(t);
			c = kt_textline_comm_slot(t, pid, cpu);
		}
		c->pid = pid;
		c->cpu = cpu;
		c->len = (unsigned int)(p - start);
		memcpy(c->txt, start, (size_t)(p - start));
	}
	return p;
}

/* kt_textline_name_of()'s miss: the slot grown to and built, once an event. */
struct kt_textline_name *kt_textline_name_build(struct kt_textline *t,
						struct tep_event *ev)
{
	struct kt_textline_name *n;
	size_t len, pad;
	char *txt;

	if (ev->id < 0 || ev->id >= NR_IDS)
		return NULL;
	if (ev->id >= t->nnames) {
		/* A file's ids are few and small: not NR_IDS slots up front. */
		int want = ev->id + 1 > 2 * t->nnames ? ev->id + 1 : 2 * t->nnames;

		if (want > NR_IDS)
			want = NR_IDS;

		n = realloc(t->names, (size_t)want * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + t->nnames, 0, (size_t)(want - t->nnames) * sizeof(*n));
		t->names = n;
		t->nnames = want;
	}
	n = &t->names[ev->id];
	if (n->len)
		return n;
	len = strlen(ev->name);
	if (len > 100)
		return NULL;
	pad = len < NAME_COL ? NAME_COL - len : 0;
	txt = len + 2 + pad <= KT_TEXTLINE_NAME_COPY ? n->txt :
	      (n->ltxt = calloc(1, len + 2 + pad));
	if (!txt)
		return NULL;
	memcpy(txt, ev->name, len);
	memcpy(txt + len, ": ", 2);
	memset(txt + len + 2, ' ', pad);
	n->len = (unsigned int)(len + 2 + pad);
	return n;
}

/* kt_textline_put_usecs() in another hundred microseconds: its text built. */
char *kt_textline_usecs_build(struct kt_textline *t, char *p,
			      unsigned long long ts)
{
	/* As libtraceevent: (ts + 500) / 1000, wrapping as it does. */
	unsigned long long x = ts + 500, us = x / 1000, secs = us / 1000000;
	unsigned long long hi = us / 100, base = hi * 100000;
	unsigned int frac = (unsigned int)(us % 1000000);
	char *e = put_num(t->time_txt + 1, secs, 5, ' ');

	t->time_txt[0] = ' ';
	*e++ = '.';
	memcpy(e, kt_textline_digits2 + 2 * (frac / 10000), 2);
	memcpy(e + 2, kt_textline_digits2 + 2 * (frac / 100 % 100), 2);
	memcpy(e + 4, kt_textline_digits2 + 2 * (frac % 100), 2);
	e[6] = ':';
	e[7] = ' ';
	t->time_len = (unsigned int)(e + 8 - t->time_txt);
	/*
	 * The block: x in [base, base + 100000), ts - (base - 500) below
	 * the span; the last block below 2^64 is shorter, so that a
	 * wrapped x is never taken for one in it.
	 */
	t->blk_lo = base - 500;
	t->blk_span = ~0ULL - base < 100000 ? ~0ULL - base + 1 : 100000;
	memcpy(p, t->time_txt, sizeof(t->time_txt));
	return p + t->time_len;
}

/* The time of the other modes (nanoseconds, raw). */
char *kt_textline_other_time(struct kt_textline *t, char *p,
			     unsigned long long v)
{
	if (t->tmode == KT_TEXTLINE_NSECS) {
		/* As print_event_time(): "%5llu.%09llu". */
		unsigned long long p10 = 1000000000ULL;

		*p++ = ' ';
		p = put_num(p, v / p10, 5, ' ');
		*p++ = '.';
		p = put_num(p, v % p10, 9, '0');
	} else {
		/* As print_event_time() renders trace-cmd's "%12d": "%12llu". */
		p = put_num(p, v, 12, ' ');
	}
	*p++ = ':';
	*p++ = ' ';
	return p;
}

char *kt_textline_header_any(struct kt_textline *t, char *out,
			     struct tep_event *ev, struct tep_record *rec,
			     int cpu)
{
	struct kt_textline_name *name = NULL;
	char *p = out;
	int pid;

	if (t->pid_direct) {
		int32_t v32;

		memcpy(&v32, (const char *)rec->data + t->pid_off, sizeof(v32));
		pid = v32;
	} else {
		pid = tep_data_pid(t->tep, rec);
	}
	if (pid < 0 || cpu < 0 || cpu > 999999)
		return NULL;
	if (!t->no_name && !(name = kt_textline_name_of(t, ev)))
		return NULL;
	p = kt_textline_put_comm(t, p, pid, cpu);
	if (!p)
		return NULL;
	if (t->tmode == KT_TEXTLINE_USECS)
		p = kt_textline_put_usecs(t, p, rec->ts);
	else
		p = kt_textline_other_time(t, p, rec->ts);
	if (name) {
		if (name->len <= KT_TEXTLINE_NAME_COPY)
			memcpy(p, name->txt, KT_TEXTLINE_NAME_COPY);
		else
			memcpy(p, name->ltxt, name->len);
		p += name->len;
	}
	return p;
}
