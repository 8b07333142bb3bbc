// SPDX-License-Identifier: GPL-2.0
/*
 * The evaluation of trigger conditions on records (watch.h): each
 * thread's open system call in a table by tid (open addressing), the
 * event ids and field offsets looked up once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <traceevent/event-parse.h>

#include "decode/symbols.h"
#include "live/trigger/watch.h"

struct open_call {
	int tid;			/* 0: a free slot */
	long nr;
	uint64_t ts;
};

struct kt_watch {
	struct tep_handle *tep;
	const struct kt_cond *conds;
	int n;
	int enter_id, exit_id;
	struct tep_format_field *enter_nr, *exit_nr, *exit_ret;
	struct open_call *calls;
	size_t size, used;		/* size: a power of two */
	char machine[65];
};

static struct tep_event *find(struct tep_handle *tep, const char *sys,
			      const char *name, int *id)
{
	struct tep_event *e = tep_find_event_by_name(tep, sys, name);

	*id = e ? e->id : -1;
	return e;
}

struct kt_watch *kt_watch_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n)
{
	struct kt_watch *w = calloc(1, sizeof(*w));
	struct tep_event *en, *ex;
	struct utsname u;

	if (!w)
		return NULL;
	w->tep = tep;
	w->conds = conds;
	w->n = n;
	en = find(tep, "raw_syscalls", "sys_enter", &w->enter_id);
	ex = find(tep, "raw_syscalls", "sys_exit", &w->exit_id);
	if (en)
		w->enter_nr = tep_find_field(en, "id");
	if (ex) {
		w->exit_nr = tep_find_field(ex, "id");
		w->exit_ret = tep_find_field(ex, "ret");
	}
	if (!uname(&u))
		snprintf(w->machine, sizeof(w->machine), "%s", u.machine);
	w->size = 1024;
	w->calls = calloc(w->size, sizeof(*w->calls));
	if (!w->calls) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void kt_watch_free(struct kt_watch *w)
{
	if (!w)
		return;
	free(w->calls);
	free(w);
}

static struct open_call *slot(struct open_call *calls, size_t size, int tid)
{
	size_t i = ((unsigned int)tid * 2654435761u) & (size - 1);

	while (calls[i].tid && calls[i].tid != tid)
		i = (i + 1) & (size - 1);
	return &calls[i];
}

/* Twice the slots, the open calls moved over; on ENOMEM the table stays. */
static void grow(struct kt_watch *w)
{
	struct open_call *calls = calloc(w->size * 2, sizeof(*calls));
	size_t i;

	if (!calls)
		return;
	for (i = 0; i < w->size; i++)
		if (w->calls[i].tid)
			*slot(calls, w->size * 2, w->calls[i].tid) = w->calls[i];
	free(w->calls);
	w->calls = calls;
	w->size *= 2;
}

static long long field(struct tep_format_field *f, struct tep_record *rec)
{
	unsigned long long v = 0;

	if (f && !tep_read_number_field(f, rec->data, &v))
		return f->size == 4 ? (long long)(int)v : (long long)v;
	return -1;
}

static int call_exit(struct kt_watch *w, struct tep_record *rec, int tid,
		   struct kt_fire *f)
{
	struct open_call *c = slot(w->calls, w->size, tid);
	long nr = field(w->exit_nr, rec);
	const char *name;
	char num[32];
	uint64_t took;
	int i, nargs;

	if (!c->tid || c->nr != nr || rec->ts < c->ts) {
		if (c->tid)
			c->nr = -2;	/* the enter was missed: forget it */
		return 0;
	}
	took = rec->ts - c->ts;
	c->nr = -2;
	for (i = 0; i < w->n; i++) {
		const struct kt_cond *k = &w->conds[i];

		if (k->kind != KT_COND_SYSCALL || took <= k->ns ||
		    (k->nr >= 0 && k->nr != nr))
			continue;
		f->cond = i;
		f->ts = rec->ts;
		f->cpu = rec->cpu;
		f->pid = tid;
		f->since = c->ts;
		name = kt_syscall_name(w->machine, nr, &nargs);
		if (!name) {
			snprintf(num, sizeof(num), "syscall %ld", nr);
			name = num;
		}
		snprintf(f->what, sizeof(f->what),
			 "raw_syscalls:sys_exit pid %d: %s = %lld after %llu.%06llu ms",
			 tid, name, field(w->exit_ret, rec),
			 (unsigned long long)took / 1000000,
			 (unsigned long long)took % 1000000);
		return 1;
	}
	return 0;
}

int kt_watch_record(struct kt_watch *w, struct tep_record *rec, struct kt_fire *f)
{
	int type = tep_data_type(w->tep, rec), tid;
	struct open_call *c;

	if (type != w->enter_id && type != w->exit_id)
		return 0;
	tid = tep_data_pid(w->tep, rec);
	if (tid <= 0)
		return 0;
	if (type == w->exit_id)
		return call_exit(w, rec, tid, f);
	if (w->used * 2 >= w->size)
		grow(w);
	c = slot(w->calls, w->size, tid);
	if (!c->tid) {
		c->tid = tid;
		w->used++;
	}
	c->nr = field(w->enter_nr, rec);
	c->ts = rec->ts;
	return 0;
}
