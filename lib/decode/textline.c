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

/* "%16s-%-5d [%03d]" of one pid on one CPU, as trace-cmd prints it. */
struct comm_slot {
	int pid;
	int cpu;
	unsigned int len;	/* 0: empty */
	char txt[52];		/* copied whole: a fixed-size copy is cheaper */
};

/* "name: " and the padding to the column. */
struct name_slot {
	char *txt;		/* NULL: not built yet; NAME_COPY bytes or more */
	unsigned int len;
};

#define NAME_COPY	32

struct kt_textline {
	struct tep_handle *tep;
	enum kt_textline_time tmode;
	bool no_name;
	/* common_pid read in place when it is a host-order int. */
	bool pid_direct;
	unsigned int pid_off;
	struct comm_slot *comms;
	unsigned int ncomms;	/* slots in comms */
	struct name_slot *names;
	int nnames;		/* entries in names: grown to the ids seen */
	/* " %5llu." of the last whole seconds printed. */
	unsigned long long secs;
	unsigned int secs_len;
	char secs_txt[32];
	/* "%06llu: " of the last microseconds printed (a stack's record follows its event's). */
	unsigned long long us;
	char us_txt[8];
	/* us / 100 of that text: within it only the last two digits change. */
	unsigned long long us_hi;
};

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

struct kt_textline *kt_textline_new(struct tep_handle *tep,
				    enum kt_textline_time tmode, bool no_name)
{
	struct kt_textline *t = calloc(1, sizeof(*t));
	struct tep_event *first;
	struct tep_format_field *f;
	bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

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
	t->secs = ~0ULL;
	t->us = ~0ULL;
	t->us_hi = ~0ULL;
	/* libtraceevent reads common_pid where the first event has it. */
	/* Not tep_list_events(): its list would miss formats parsed later (lazyfmt.c). */
	first = tep_get_events_count(tep) > 0 ? tep_get_event(tep, 0) : NULL;
	if (first && tep_is_file_bigendian(tep) == host_big) {
		f = tep_find_common_field(first, "common_pid");
		if (f && f->size == 4 && f->offset >= 0 && f->offset <= 60) {
			t->pid_direct = true;
			t->pid_off = (unsigned int)f->offset;
		}
	}
	return t;
}

void kt_textline_free(struct kt_textline *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < t->nnames; i++)
		free(t->names[i].txt);
	free(t->names);
	free(t->comms);
	free(t);
}

/* Decimal digits of v ending at end; returns the start. */
static char *utoa_back(char *end, unsigned long long v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, digits2 + 2 * v, 2);
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

static struct comm_slot *comm_slot(struct kt_textline *t, int pid, int cpu)
{
	return &t->comms[((unsigned int)pid * 8 + (unsigned int)cpu) &
			 (t->ncomms - 1)];
}

/*
 * Twice the slots, the kept lines moved over: a table sized for the
 * tasks a file has (a small file's reader sets up no 256 KB).
 */
static void comms_grow(struct kt_textline *t)
{
	struct comm_slot *old = t->comms, *c;
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
		c = comm_slot(t, old[i].pid, old[i].cpu);
		*c = old[i];
	}
	free(old);
}

/* put_comm()'s text built (and kept if found): apart, out of the common frame. */
static __attribute__((noinline)) char *comm_build(struct kt_textline *t,
						  char *p, int pid, int cpu,
						  bool *rare)
{
	struct comm_slot *c = comm_slot(t, pid, cpu);
	const char *comm;
	char *start = p, tmp[24], *d;
	size_t clen;
	int n;

	comm = tep_data_comm_from_pid(t->tep, pid);
	clen = strlen(comm);
	if (clen > 64) {
		*rare = true;
		return p;
	}
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
			c = comm_slot(t, pid, cpu);
		}
		c->pid = pid;
		c->cpu = cpu;
		c->len = (unsigned int)(p - start);
		memcpy(c->txt, start, (size_t)(p - start));
	}
	return p;
}

/* "%16s-%-5d [%03d]": from the cache, or built. */
static inline char *put_comm(struct kt_textline *t, char *p, int pid, int cpu,
			     bool *rare)
{
	const struct comm_slot *c = comm_slot(t, pid, cpu);

	if (c->len && c->pid == pid && c->cpu == cpu) {
		memcpy(p, c->txt, sizeof(c->txt));
		return p + c->len;
	}
	return comm_build(t, p, pid, cpu, rare);
}

/* name_of()'s slot grown to and built: once an event. */
static __attribute__((noinline)) struct name_slot *name_build(struct kt_textline *t,
							      struct tep_event *ev)
{
	struct name_slot *n;
	size_t len, pad;

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
	if (n->txt)
		return n;
	len = strlen(ev->name);
	if (len > 100)
		return NULL;
	pad = len < NAME_COL ? NAME_COL - len : 0;
	n->txt = calloc(1, len + 2 + pad + NAME_COPY);
	if (!n->txt)
		return NULL;
	memcpy(n->txt, ev->name, len);
	memcpy(n->txt + len, ": ", 2);
	memset(n->txt + len + 2, ' ', pad);
	n->len = (unsigned int)(len + 2 + pad);
	return n;
}

static inline struct name_slot *name_of(struct kt_textline *t, struct tep_event *ev)
{
	if (ev->id >= 0 && ev->id < t->nnames && t->names[ev->id].txt)
		return &t->names[ev->id];
	return name_build(t, ev);
}

/* put_usecs() in another hundred microseconds: apart, out of the common frame. */
static __attribute__((noinline)) char *usecs_build(struct kt_textline *t, char *p,
						   unsigned long long us,
						   unsigned long long hi)
{
	unsigned long long secs = us / 1000000;
	unsigned int frac = (unsigned int)(us % 1000000);

	t->us_hi = hi;
	if (secs != t->secs) {
		char *e = put_num(t->secs_txt + 1, secs, 5, ' ');

		t->secs_txt[0] = ' ';
		*e++ = '.';
		t->secs_len = (unsigned int)(e - t->secs_txt);
		t->secs = secs;
	}
	memcpy(p, t->secs_txt, sizeof(t->secs_txt));
	p += t->secs_len;
	memcpy(p, digits2 + 2 * (frac / 10000), 2);
	memcpy(p + 2, digits2 + 2 * (frac / 100 % 100), 2);
	memcpy(p + 4, digits2 + 2 * (frac % 100), 2);
	p[6] = ':';
	p[7] = ' ';
	memcpy(t->us_txt, p, 8);
	t->us = us;
	return p + 8;
}

/* " %5llu.%06llu: " of ns, rounded to us as libtraceevent does. */
static inline char *put_usecs(struct kt_textline *t, char *p, unsigned long long ts)
{
	unsigned long long us = (ts + 500) / 1000, hi;

	if (us == t->us) {
		memcpy(p, t->secs_txt, sizeof(t->secs_txt));
		p += t->secs_len;
		memcpy(p, t->us_txt, 8);
		return p + 8;
	}
	/* The same second and the same hundred microseconds: two digits. */
	hi = us / 100;
	if (hi == t->us_hi) {
		memcpy(t->us_txt + 4, digits2 + 2 * (us - hi * 100), 2);
		t->us = us;
		memcpy(p, t->secs_txt, sizeof(t->secs_txt));
		p += t->secs_len;
		memcpy(p, t->us_txt, 8);
		return p + 8;
	}
	return usecs_build(t, p, us, hi);
}

/* The time of the other modes (nanoseconds, raw): apart, out of the common frame. */
static __attribute__((noinline)) char *put_other_time(struct kt_textline *t,
						      char *p, unsigned long long v)
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

char *kt_textline_header(struct kt_textline *t, char *out,
			 struct tep_event *ev, struct tep_record *rec, int cpu)
{
	struct name_slot *name = NULL;
	bool rare = false;
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
	if (!t->no_name && !(name = name_of(t, ev)))
		return NULL;
	p = put_comm(t, p, pid, cpu, &rare);
	if (rare)
		return NULL;
	if (t->tmode == KT_TEXTLINE_USECS)
		p = put_usecs(t, p, rec->ts);
	else
		p = put_other_time(t, p, rec->ts);
	if (name) {
		if (name->len <= NAME_COPY)
			memcpy(p, name->txt, NAME_COPY);
		else
			memcpy(p, name->txt, name->len);
		p += name->len;
	}
	return p;
}
