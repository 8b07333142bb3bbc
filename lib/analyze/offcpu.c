// SPDX-License-Identifier: GPL-2.0
/*
 * analyze offcpu.  See offcpu.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"
#include "analyze/offcpu.h"
#include "analyze/pidmap.h"
#include "analyze/rows.h"
#include "analyze/runs.h"
#include "base/collect.h"
#include "decode/kstack.h"
#include "decode/symbols.h"

enum kind { K_OTHER, K_SWITCH, K_STACK, K_AFTER, K_SYS_ENTER, K_SYS_EXIT };
enum tstate { T_UNKNOWN, T_RUNNING, T_RUNNABLE, T_OFF };

struct evinfo {
	int id;
	enum kind kind;
	struct kt_switch_fields sw;
	struct tep_format_field *nr;
};

struct otask {
	int pid;
	bool selected;
	enum tstate st;
	char state;			/* 'S', 'D' or 'O' while off */
	unsigned long long since;
	const char *reason;		/* of the stretch off */
	long nr;			/* the syscall it is in, or -1 */
	struct kt_off_row row;
};

/* A CPU's last record: a stack that follows belongs to it. */
struct last {
	bool is_switch;
	int prev;
};

struct kt_offcpu {
	struct tep_handle *tep;
	const char *machine;
	bool by_comm;
	struct kt_evcache evs;
	struct kt_pidmap tasks;		/* struct otask */
	struct kt_percpu last;		/* struct last */
	struct kt_runs *runs;		/* missing switches */
	struct kt_off_row **sorted;
	struct kt_off_row *merged;
	size_t nmerged;
	struct kt_off_totals t;
};

const char *const kt_offcpu_sort_keys = "blocked, S, D, times or comm";

static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;

	if (!e->system)
		return;
	if (kt_switch_fields_find(e, &in->sw)) {
		in->kind = K_SWITCH;
	} else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "kernel_stack")) {
		in->kind = K_STACK;
	} else if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "user_stack")) {
		in->kind = K_AFTER;
	} else if (!strcmp(e->system, "raw_syscalls")) {
		in->nr = tep_find_field(e, "id");
		if (in->nr && !strcmp(e->name, "sys_enter"))
			in->kind = K_SYS_ENTER;
		else if (in->nr && !strcmp(e->name, "sys_exit"))
			in->kind = K_SYS_EXIT;
	}
}

struct kt_offcpu *kt_offcpu_new(struct tep_handle *tep, const char *machine,
				bool by_comm)
{
	struct kt_offcpu *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->runs = kt_runs_new();
	if (!o->runs) {
		free(o);
		return NULL;
	}
	o->tep = tep;
	o->machine = machine;
	o->by_comm = by_comm;
	o->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	o->tasks.size = sizeof(struct otask);
	o->last.size = sizeof(struct last);
	return o;
}

static struct otask *task_of(struct kt_offcpu *o, int pid)
{
	struct otask *t = kt_pidmap_get(&o->tasks, pid);

	if (t && !t->row.pid) {
		t->row.pid = pid;
		t->nr = -1;
	}
	return t;
}

static struct last *last_of(struct kt_offcpu *o, int cpu)
{
	return kt_percpu_at(&o->last, cpu);
}

static int add_reason(struct kt_off_row *r, const char *name,
		      unsigned long long ns, unsigned long long count)
{
	struct kt_off_reason *v;
	size_t i;

	for (i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i].name, name)) {
			r->reasons[i].ns += ns;
			r->reasons[i].count += count;
			return 0;
		}
	v = realloc(r->reasons, (r->nreasons + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->reasons = v;
	r->reasons[r->nreasons++] = (struct kt_off_reason){ name, ns, count };
	return 0;
}

/* The stretch off ends at ts: its time goes to its state and reason. */
static int back_on(struct otask *t, unsigned long long ts)
{
	unsigned long long d = ts > t->since ? ts - t->since : 0;

	if (t->state == 'S')
		t->row.s_ns += d;
	else if (t->state == 'D')
		t->row.d_ns += d;
	else
		t->row.other_ns += d;
	t->row.count++;
	return add_reason(&t->row, t->reason ? t->reason : "-", d, 1);
}

static const char *syscall_reason(struct kt_offcpu *o, long nr)
{
	int nargs;
	const char *name;

	if (nr < 0)
		return NULL;
	name = kt_syscall_name(o->machine, nr, &nargs);
	return name ? name : "syscall";
}

static int on_switch(struct kt_offcpu *o, struct evinfo *in, struct tep_record *rec,
		     int cpu, struct last *l)
{
	unsigned long long prev, state, next, ts = rec->ts;
	struct otask *p, *n;
	struct kt_run run;
	int ret;

	if (tep_read_number_field(in->sw.prev_pid, rec->data, &prev) ||
	    tep_read_number_field(in->sw.prev_state, rec->data, &state) ||
	    tep_read_number_field(in->sw.next_pid, rec->data, &next))
		return 0;
	ret = kt_runs_switch(o->runs, cpu, ts, (int)prev, (int)next, &run);
	if (ret)
		return ret;
	if (run.kind == KT_RUN_MISSING)
		o->t.missing++;
	l->is_switch = true;
	l->prev = (int)prev;
	if (prev) {
		p = task_of(o, (int)prev);
		if (!p)
			return -ENOMEM;
		if (p->st == T_OFF || p->st == T_RUNNABLE)
			o->t.missed_ins++;	/* out again, never seen in */
		if (p->st == T_OFF) {
			ret = back_on(p, ts);
			if (ret)
				return ret;
		}
		kt_field_str(in->sw.prev_comm, rec, p->row.comm, sizeof(p->row.comm));
		p->since = ts;
		if (state & 0xff) {
			p->st = T_OFF;
			p->state = state & 1 ? 'S' : state & 2 ? 'D' : 'O';
			p->reason = syscall_reason(o, p->nr);
		} else {
			p->st = T_RUNNABLE;
		}
	}
	if (next) {
		n = task_of(o, (int)next);
		if (!n)
			return -ENOMEM;
		if (n->st == T_OFF) {
			ret = back_on(n, ts);
			if (ret)
				return ret;
		}
		n->st = T_RUNNING;
	}
	return 0;
}

/* An event of the task's own: it is on a CPU now. */
static int on_evidence(struct kt_offcpu *o, int pid, unsigned long long ts)
{
	struct otask *t = kt_pidmap_find(&o->tasks, pid);
	int ret = 0;

	if (!t || (t->st != T_OFF && t->st != T_RUNNABLE))
		return 0;
	o->t.missed_ins++;
	if (t->st == T_OFF)
		ret = back_on(t, ts);
	t->st = T_RUNNING;
	return ret;
}

int kt_offcpu_add(const struct kt_event *ev, void *arg)
{
	struct kt_offcpu *o = arg;
	struct tep_record *rec = ev->record;
	unsigned long long nr;
	struct evinfo *in;
	struct last *l;
	struct otask *t;
	int pid, ret;

	if (kt_runs_record(o->runs, ev->cpu, rec->missed_events, &o->t.lost,
			   &o->t.lost_unknown))
		return -ENOMEM;
	in = kt_evcache_get(&o->evs, ev->event);
	l = last_of(o, ev->cpu);
	if (!in || !l)
		return -ENOMEM;
	if (in->kind == K_AFTER)
		return 0;
	if (in->kind == K_STACK) {
		o->t.has_stacks = true;
		/* The stack of the switch just before it on this CPU. */
		if (l->is_switch && l->prev > 0) {
			t = kt_pidmap_find(&o->tasks, l->prev);
			if (t && t->st == T_OFF) {
				const char *why = kt_kstack_reason(o->tep, ev->event,
								   ev->record);

				if (why)
					t->reason = why;
			}
		}
		l->is_switch = false;
		return 0;
	}
	l->is_switch = false;
	pid = tep_data_pid(o->tep, rec);
	if (pid > 0 && ev->selected) {
		t = task_of(o, pid);
		if (!t)
			return -ENOMEM;
		t->selected = true;
	}
	if (pid > 0 && in->kind != K_SWITCH) {
		ret = on_evidence(o, pid, rec->ts);
		if (ret)
			return ret;
	}
	switch (in->kind) {
	case K_SWITCH:
		o->t.has_switch = true;
		return on_switch(o, in, rec, ev->cpu, l);
	case K_SYS_ENTER:
	case K_SYS_EXIT:
		o->t.has_syscalls = true;
		if (pid <= 0 || tep_read_number_field(in->nr, rec->data, &nr))
			return 0;
		t = task_of(o, pid);
		if (!t)
			return -ENOMEM;
		t->nr = in->kind == K_SYS_ENTER ? (long)nr : -1;
		return 0;
	default:
		return 0;
	}
}

static unsigned long long key_of(const struct kt_off_row *r, const char *key)
{
	if (!strcmp(key, "S"))
		return r->s_ns;
	if (!strcmp(key, "D"))
		return r->d_ns;
	if (!strcmp(key, "times"))
		return r->count;
	return r->s_ns + r->d_ns + r->other_ns;
}

static unsigned long long row_value(const void *row, const char *key)
{
	return key_of(row, key);
}

static const char *row_comm(const void *row)
{
	return ((const struct kt_off_row *)row)->comm;
}

static int row_pid(const void *row)
{
	return ((const struct kt_off_row *)row)->pid;
}

static int cmp_reasons(const void *a, const void *b)
{
	const struct kt_off_reason *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* A task with an event of its own selected and a stretch off. */
static bool keep_task(void *item, void *arg)
{
	struct otask *t = item;

	(void)arg;
	return t->selected && t->row.count;
}

static void *task_row(void *item)
{
	return &((struct otask *)item)->row;
}

static int cmp_comm(const void *a, const void *b)
{
	return strcmp((*(struct otask *const *)a)->row.comm,
		      (*(struct otask *const *)b)->row.comm);
}

static void free_merged(struct kt_offcpu *o)
{
	size_t i;

	for (i = 0; i < o->nmerged; i++)
		free(o->merged[i].reasons);
	free(o->merged);
	o->merged = NULL;
	o->nmerged = 0;
}

/*
 * One row per comm: the tasks' times and reasons added up; task t into
 * m, a new row when m is NULL.
 */
static void *by_comm(void *m, void *item, void *arg)
{
	struct kt_offcpu *o = arg;
	struct kt_off_row *r = &((struct otask *)item)->row, *into = m;
	size_t k;

	if (!into) {
		into = &o->merged[o->nmerged++];
		memcpy(into->comm, r->comm, sizeof(r->comm));
		into->pid = -1;
	}
	into->s_ns += r->s_ns;
	into->d_ns += r->d_ns;
	into->other_ns += r->other_ns;
	into->count += r->count;
	for (k = 0; k < r->nreasons; k++)
		if (add_reason(into, r->reasons[k].name, r->reasons[k].ns,
			       r->reasons[k].count))
			return NULL;
	return into;
}

int kt_offcpu_rows(struct kt_offcpu *o, const char *sort,
		   struct kt_off_row ***rows, size_t *n)
{
	static const char *const keys[] = { "blocked", "S", "D", "times", "comm" };
	struct kt_collect how = { .keep = keep_task, .row = task_row, .arg = o };
	struct kt_off_row **v;
	void **all;
	size_t i, nv;
	int ret;

	if (!sort)
		sort = "blocked";
	if (!kt_rows_key_known(keys, sizeof(keys) / sizeof(keys[0]), sort))
		return -EINVAL;
	free(o->sorted);
	o->sorted = NULL;
	free_merged(o);
	if (o->by_comm) {
		o->merged = calloc(o->tasks.n ? o->tasks.n : 1, sizeof(*o->merged));
		if (!o->merged)
			return -ENOMEM;
		how.group = cmp_comm;
		how.fold = by_comm;
	}
	ret = kt_collect_rows(o->tasks.tree, o->tasks.n, &how, &all, &nv);
	if (ret)
		return ret;
	v = (struct kt_off_row **)all;
	for (i = 0; i < nv; i++)
		if (v[i]->nreasons > 1)
			qsort(v[i]->reasons, v[i]->nreasons, sizeof(*v[i]->reasons), cmp_reasons);
	kt_rows_sort((void **)v, nv, &(struct kt_rowsort){ sort, row_value, row_comm, row_pid });
	o->sorted = v;
	*rows = v;
	*n = nv;
	return 0;
}

void kt_offcpu_totals(const struct kt_offcpu *o, struct kt_off_totals *t)
{
	*t = o->t;
}

static void free_task(void *p)
{
	struct otask *t = p;

	free(t->row.reasons);
	free(t);
}

void kt_offcpu_free(struct kt_offcpu *o)
{
	if (!o)
		return;
	kt_evcache_free(&o->evs);
	kt_runs_free(o->runs);
	kt_pidmap_free(&o->tasks, free_task);
	free(o->last.v);
	free(o->sorted);
	free_merged(o);
	free(o);
}
