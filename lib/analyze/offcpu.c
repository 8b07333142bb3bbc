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
#include "analyze/rows.h"
#include "analyze/taskstate.h"
#include "base/collect.h"
#include "decode/kstack.h"
#include "decode/symbols.h"

enum kind { K_OTHER, K_STACK, K_AFTER, K_SYS_ENTER, K_SYS_EXIT };

struct evinfo {
	int id;
	enum kind kind;
	struct tep_format_field *nr;
};

/* A task's numbers, the model's task's own part. */
struct otask {
	/*
	 * In a stretch off, since start on cpu: the model's own state says
	 * runnable once a wakeup names the task, and the stretch goes on.
	 */
	bool off;
	int cpu;
	int waker;			/* its first wakeup's task, or -1 */
	unsigned long long start, wake_ts;
	const char *reason;		/* of the stretch off */
	bool in_syscall;
	long nr;			/* the syscall it is in */
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
	struct kt_evcache evs;		/* struct evinfo: the events besides the model's */
	struct kt_taskstate *model;	/* struct otask in each task, at off */
	size_t off;
	bool shared;			/* model is another's (kt_offcpu_join()) */
	struct kt_percpu last;		/* struct last */
	struct kt_off_row **sorted;
	struct kt_off_row *merged;
	size_t nmerged;
	struct kt_off_totals t;
	int (*on_stretch)(const struct kt_off_stretch *s, void *arg);
	void *stretch_arg;
};

const char *const kt_offcpu_sort_keys = "blocked, S, D, times or comm";

static struct otask *own(const struct kt_offcpu *o, struct kt_task *t)
{
	return kt_task_part(t, o->off);
}

static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;

	if (!e->system)
		return;
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "kernel_stack")) {
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
static int back_on(struct kt_offcpu *off, struct kt_task *t, unsigned long long ts)
{
	struct otask *o = own(off, t);
	unsigned long long d = ts > o->start ? ts - o->start : 0;
	int ret;

	o->off = false;
	if (t->sleep == 'S')
		o->row.s_ns += d;
	else if (t->sleep == 'D')
		o->row.d_ns += d;
	else
		o->row.other_ns += d;
	o->row.count++;
	ret = add_reason(&o->row, o->reason ? o->reason : "-", d, 1);
	if (ret || !off->on_stretch)
		return ret;
	return off->on_stretch(&(struct kt_off_stretch){
			.pid = t->pid, .cpu = o->cpu, .comm = o->row.comm, .state = t->sleep,
			.reason = o->reason, .waker = o->waker, .start = o->start, .end = ts,
			.wake_ts = o->wake_ts }, off->stretch_arg);
}

static const char *syscall_reason(struct kt_offcpu *o, const struct otask *t)
{
	int nargs;
	const char *name;

	if (!t->in_syscall || t->nr < 0)
		return NULL;
	name = kt_syscall_name(o->machine, t->nr, &nargs);
	return name ? name : "syscall";
}

/*
 * The model's transitions: a stretch off ends where the task is on a
 * CPU again, switched in or seen (a wakeup only names its waker).
 */
static int change(const struct kt_ts_change *c, void *arg)
{
	struct kt_offcpu *o = arg;
	struct otask *t = c->own;
	struct last *l;
	int ret = 0;

	if (c->what == KT_TS_GONE)
		return 0;
	if (c->what == KT_TS_WAKE) {
		if (t->off && t->waker < 0) {
			t->waker = c->waker;
			t->wake_ts = c->ts;
		}
		return 0;
	}
	if (t->off)
		ret = back_on(o, c->t, c->ts);
	if (ret || c->what != KT_TS_OUT)
		return ret;
	l = last_of(o, c->cpu);
	if (!l)
		return -ENOMEM;
	l->is_switch = true;
	l->prev = c->t->pid;
	kt_field_str(c->comm, c->rec, t->row.comm, sizeof(t->row.comm));
	if (!(c->state & 0xff))
		return 0;
	/* Asleep (the model's t->sleep says how, from now on): a stretch off begins. */
	t->off = true;
	t->cpu = c->cpu;
	t->start = c->ts;
	t->waker = -1;
	t->wake_ts = 0;
	t->reason = syscall_reason(o, t);
	return 0;
}

static void free_own(void *p)
{
	free(((struct otask *)p)->row.reasons);
}

static int before(const struct kt_event *ev, void *arg);
static int after(const struct kt_event *ev, void *arg);

/* o on model (NULL: a model of its own, on tep's events). */
static struct kt_offcpu *make(struct tep_handle *tep, struct kt_taskstate *model,
			      const char *machine, bool by_comm, bool wakers)
{
	struct kt_offcpu *o = calloc(1, sizeof(*o));
	struct kt_taskstate_ops ops = {
		.size = sizeof(struct otask), .wakeups = wakers, .change = change,
		.free_own = free_own, .before = before, .after = after, .arg = o,
	};

	if (!o)
		return NULL;
	o->model = kt_taskstate_use(tep, model, &ops, &o->off);
	if (!o->model) {
		free(o);
		return NULL;
	}
	o->shared = model != NULL;
	o->tep = tep;
	o->machine = machine;
	o->by_comm = by_comm;
	o->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	o->last.size = sizeof(struct last);
	return o;
}

struct kt_offcpu *kt_offcpu_new(struct tep_handle *tep, const char *machine,
				bool by_comm, bool wakers)
{
	return make(tep, NULL, machine, by_comm, wakers);
}

struct kt_offcpu *kt_offcpu_join(struct tep_handle *tep, struct kt_taskstate *model,
				 const char *machine, bool by_comm)
{
	return make(tep, model, machine, by_comm, true);
}

void kt_offcpu_on_stretch(struct kt_offcpu *o,
			  int (*fn)(const struct kt_off_stretch *s, void *arg), void *arg)
{
	o->on_stretch = fn;
	o->stretch_arg = arg;
}

/* A kernel stack: the reason of the switch just before it on its CPU. */
static void on_stack(struct kt_offcpu *o, const struct kt_event *ev, struct last *l)
{
	struct kt_task *t;
	const char *why;

	o->t.has_stacks = true;
	if (l->is_switch && l->prev > 0) {
		t = kt_taskstate_find(o->model, l->prev);
		if (t && own(o, t)->off) {
			why = kt_kstack_reason(o->tep, ev->event, ev->record);
			if (why)
				own(o, t)->reason = why;
		}
	}
}

int kt_offcpu_add(const struct kt_event *ev, void *arg)
{
	return kt_taskstate_add(((struct kt_offcpu *)arg)->model, ev);
}

/* Before the model's switch-out: a stack names the last switch's reason. */
static int before(const struct kt_event *ev, void *arg)
{
	struct kt_offcpu *o = arg;
	struct evinfo *in;
	struct last *l;

	in = kt_evcache_get(&o->evs, ev->event);
	l = last_of(o, ev->cpu);
	if (!in || !l)
		return -ENOMEM;
	if (in->kind == K_STACK)
		on_stack(o, ev, l);
	if (in->kind != K_AFTER)
		l->is_switch = false;	/* until the model's switch-out says */
	return 0;
}

/* After it: the system call each task is in, for the next stretch's reason. */
static int after(const struct kt_event *ev, void *arg)
{
	struct kt_offcpu *o = arg;
	unsigned long long nr;
	struct evinfo *in;
	struct kt_task *t;
	int pid;

	in = kt_evcache_get(&o->evs, ev->event);
	if (!in)
		return -ENOMEM;
	if (in->kind != K_SYS_ENTER && in->kind != K_SYS_EXIT)
		return 0;
	o->t.has_syscalls = true;
	pid = tep_data_pid(o->tep, ev->record);
	if (pid <= 0 || tep_read_number_field(in->nr, ev->record->data, &nr))
		return 0;
	t = kt_taskstate_get(o->model, pid);
	if (!t)
		return -ENOMEM;
	own(o, t)->in_syscall = in->kind == K_SYS_ENTER;
	own(o, t)->nr = (long)nr;
	return 0;
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
	struct kt_task *t = item;

	own(arg, t)->row.pid = t->pid;
	return t->selected && own(arg, t)->row.count;
}

static void *task_row(void *item, void *arg)
{
	return &own(arg, item)->row;
}

static int cmp_comm(const void *a, const void *b, void *arg)
{
	return strcmp(own(arg, *(struct kt_task *const *)a)->row.comm,
		      own(arg, *(struct kt_task *const *)b)->row.comm);
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
	struct kt_off_row *r = &own(o, item)->row, *into = m;
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
	const struct kt_pidmap *tasks = kt_taskstate_tasks(o->model);
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
		o->merged = calloc(tasks->n ? tasks->n : 1, sizeof(*o->merged));
		if (!o->merged)
			return -ENOMEM;
		how.group = cmp_comm;
		how.fold = by_comm;
	}
	ret = kt_collect_rows(tasks->tree, tasks->n, &how, &all, &nv);
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
	struct kt_taskstate_totals m;

	kt_taskstate_totals(o->model, &m);
	*t = o->t;
	t->missing = m.missing;
	t->missed_ins = m.missed_ins;
	t->lost = m.lost;
	t->lost_unknown = m.lost_unknown;
	t->has_switch = m.has_switch;
}

void kt_offcpu_free(struct kt_offcpu *o)
{
	if (!o)
		return;
	kt_evcache_free(&o->evs);
	if (!o->shared)
		kt_taskstate_free(o->model);
	free(o->last.v);
	free(o->sorted);
	free_merged(o);
	free(o);
}
