// SPDX-License-Identifier: GPL-2.0
/*
 * analyze sched.  See sched.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"
#include "analyze/rows.h"
#include "analyze/sched.h"
#include "analyze/taskstate.h"
#include "file/tgidmap.h"
#include "base/collect.h"

/* A task's numbers, the model's task's own part. */
struct task {
	int tgid;			/* set for merge(), by keep_task() */
	struct kt_sched_row row;
};

struct kt_sched {
	enum kt_sched_by by;
	const struct kt_tgidmap *tg;
	struct kt_taskstate *model;	/* struct task in each task, at off */
	size_t off;
	bool shared;			/* model is another's (kt_sched_join()) */
	struct kt_sched_row **sorted;
	struct kt_sched_row *merged;	/* by comm's or process's rows */
	size_t nmerged;
	int (*on_wakeup)(const struct kt_sched_wakeup *w, void *arg);
	void *wakeup_arg;
};

static void free_own(void *p)
{
	kt_dist_free(&((struct task *)p)->row.lat);
}

const char *const kt_sched_sort_keys =
	"run, wait, sleep, switches, wakeups, mean, p99, max or comm";

static struct task *own(const struct kt_sched *s, struct kt_task *t)
{
	return kt_task_part(t, s->off);
}

/* Asleep since t's last change (own: its part), until ts. */
static void add_sleep(struct kt_task *t, struct task *own, unsigned long long ts)
{
	struct kt_sched_row *r = &own->row;
	unsigned long long d = ts > t->since ? ts - t->since : 0;

	if (t->sleep == 'S')
		r->sleep_s_ns += d;
	else if (t->sleep == 'D')
		r->sleep_d_ns += d;
	else
		r->sleep_other_ns += d;
}

/* A switch-in: the wait since a wakeup or a preemption ends. */
static int switched_in(struct kt_sched *s, const struct kt_ts_change *c)
{
	struct kt_task *t = c->t;
	struct kt_sched_row *r = &((struct task *)c->own)->row;
	unsigned long long ts = c->ts, d = ts > t->since ? ts - t->since : 0;

	r->wait_ns += d;
	if (!t->woken)
		return 0;
	if (kt_dist_add(&r->lat, d, ts, c->cpu))
		return -ENOMEM;
	if (!s->on_wakeup)
		return 0;
	return s->on_wakeup(&(struct kt_sched_wakeup){ t->pid, r->comm, t->since, ts, c->cpu },
			    s->wakeup_arg);
}

/* The model's transitions: the row's numbers. */
static int change(const struct kt_ts_change *c, void *arg)
{
	struct kt_sched_row *r = &((struct task *)c->own)->row;
	const struct kt_run *run = c->run;

	switch (c->what) {
	case KT_TS_OUT:
		kt_field_str(c->comm, c->rec, r->comm, sizeof(r->comm));
		/* The CPU's chain says how long it ran (runs.h). */
		if (run->kind == KT_RUN_RAN)
			r->run_ns += run->end > run->start ? run->end - run->start : 0;
		else if (run->kind == KT_RUN_MISSING)
			r->missing++;
		r->switches++;
		break;
	case KT_TS_IN:
		kt_field_str(c->comm, c->rec, r->comm, sizeof(r->comm));
		if (c->t->st == KT_TASK_RUNNABLE)
			return switched_in(arg, c);
		break;
	default:
		break;
	}
	/*
	 * A sleep ends at its wakeup, or where the task is seen running
	 * (its switch-in missing) at the latest, as analyze offcpu ends
	 * the stretch; where the file has no wakeups, sleep has no other
	 * end.
	 */
	if (c->t->st == KT_TASK_ASLEEP && c->what != KT_TS_GONE)
		add_sleep(c->t, c->own, c->ts);
	return 0;
}

/* s on model (NULL: a model of its own, on tep's events). */
static struct kt_sched *make(struct tep_handle *tep, struct kt_taskstate *model,
			     enum kt_sched_by by, const struct kt_tgidmap *tg)
{
	struct kt_sched *s = calloc(1, sizeof(*s));
	struct kt_taskstate_ops ops = {
		.size = sizeof(struct task), .wakeups = true, .change = change,
		.free_own = free_own, .arg = s,
	};

	if (!s)
		return NULL;
	s->by = by;
	s->tg = tg;
	s->model = kt_taskstate_use(tep, model, &ops, &s->off);
	if (!s->model) {
		free(s);
		return NULL;
	}
	s->shared = model != NULL;
	return s;
}

struct kt_sched *kt_sched_new(struct tep_handle *tep, enum kt_sched_by by,
			      const struct kt_tgidmap *tg)
{
	return make(tep, NULL, by, tg);
}

struct kt_sched *kt_sched_join(struct kt_taskstate *model, enum kt_sched_by by,
			       const struct kt_tgidmap *tg)
{
	return make(NULL, model, by, tg);
}

void kt_sched_on_wakeup(struct kt_sched *s,
			int (*fn)(const struct kt_sched_wakeup *w, void *arg), void *arg)
{
	s->on_wakeup = fn;
	s->wakeup_arg = arg;
}

int kt_sched_add(const struct kt_event *ev, void *arg)
{
	struct kt_sched *s = arg;

	return kt_taskstate_add(s->model, ev);
}

static unsigned long long key_of(const struct kt_sched_row *r, const char *key)
{
	struct kt_dist *lat = (struct kt_dist *)&r->lat;

	if (!strcmp(key, "wait"))
		return r->wait_ns;
	if (!strcmp(key, "sleep"))
		return r->sleep_s_ns + r->sleep_d_ns + r->sleep_other_ns;
	if (!strcmp(key, "switches"))
		return r->switches;
	if (!strcmp(key, "wakeups"))
		return r->lat.n;
	if (!strcmp(key, "mean"))
		return kt_dist_mean(lat);
	if (!strcmp(key, "p99"))
		return kt_dist_pct(lat, 99);
	if (!strcmp(key, "max"))
		return r->lat.max;
	return r->run_ns;
}

static unsigned long long row_value(const void *row, const char *key)
{
	return key_of(row, key);
}

static const char *row_comm(const void *row)
{
	return ((const struct kt_sched_row *)row)->comm;
}

static int row_pid(const void *row)
{
	return ((const struct kt_sched_row *)row)->pid;
}

/* A task with an event of its own selected; its tgid noted for merging. */
static bool keep_task(void *item, void *arg)
{
	struct kt_sched *s = arg;
	struct kt_task *t = item;

	if (!t->selected)
		return false;
	own(s, t)->row.pid = t->pid;
	if (s->by != KT_SCHED_BY_TASK)
		own(s, t)->tgid = s->tg ? kt_tgidmap_of(s->tg, t->pid) : t->pid;
	return true;
}

static void *task_row(void *item, void *arg)
{
	return &own(arg, item)->row;
}

/* Fold row b into a (by comm or process).  0 or -ENOMEM. */
static int fold(struct kt_sched_row *a, const struct kt_sched_row *b)
{
	size_t i;

	a->switches += b->switches;
	a->missing += b->missing;
	a->run_ns += b->run_ns;
	a->wait_ns += b->wait_ns;
	a->sleep_s_ns += b->sleep_s_ns;
	a->sleep_d_ns += b->sleep_d_ns;
	a->sleep_other_ns += b->sleep_other_ns;
	for (i = 0; i < b->lat.n; i++)
		if (kt_dist_add(&a->lat, b->lat.v[i], 0, 0))
			return -ENOMEM;
	/* Where the largest was, as the task's own dist had it. */
	if (b->lat.n && b->lat.max >= a->lat.max) {
		a->lat.max_ts = b->lat.max_ts;
		a->lat.max_cpu = b->lat.max_cpu;
	}
	return 0;
}

static int cmp_comm(const void *a, const void *b, void *arg)
{
	return strcmp(own(arg, *(struct kt_task *const *)a)->row.comm,
		      own(arg, *(struct kt_task *const *)b)->row.comm);
}

static int cmp_tgid(const void *a, const void *b, void *arg)
{
	int x = own(arg, *(struct kt_task *const *)a)->tgid;
	int y = own(arg, *(struct kt_task *const *)b)->tgid;

	return (x > y) - (x < y);
}

/*
 * The rows by comm (pid -1) or by process (pid the tgid, comm the
 * leader's where the leader has a row, else the first thread's): task t
 * into m, a new row when m is NULL.
 */
static void *merge(void *m, void *item, void *arg)
{
	struct kt_sched *s = arg;
	struct task *t = own(s, item);
	struct kt_sched_row *r = &t->row, *into = m;

	if (!into) {
		into = &s->merged[s->nmerged++];
		memcpy(into->comm, r->comm, sizeof(r->comm));
		into->pid = s->by == KT_SCHED_BY_COMM ? -1 : t->tgid;
	}
	if (r->pid == into->pid)
		memcpy(into->comm, r->comm, sizeof(r->comm));
	into->threads++;
	return fold(into, r) ? NULL : into;
}

static void free_merged(struct kt_sched *s)
{
	size_t i;

	for (i = 0; i < s->nmerged; i++)
		kt_dist_free(&s->merged[i].lat);
	free(s->merged);
	s->merged = NULL;
	s->nmerged = 0;
}

int kt_sched_rows(struct kt_sched *s, const char *sort,
		  struct kt_sched_row ***rows, size_t *n)
{
	static const char *const keys[] = {
		"run", "wait", "sleep", "switches", "wakeups", "mean", "p99", "max", "comm",
	};
	struct kt_collect how = { .keep = keep_task, .row = task_row, .arg = s };
	const struct kt_pidmap *tasks = kt_taskstate_tasks(s->model);
	void **v;
	size_t nv;
	int ret;

	if (!sort)
		sort = "run";
	if (!kt_rows_key_known(keys, sizeof(keys) / sizeof(keys[0]), sort))
		return -EINVAL;
	free(s->sorted);
	s->sorted = NULL;
	free_merged(s);
	if (s->by != KT_SCHED_BY_TASK) {
		s->merged = calloc(tasks->n ? tasks->n : 1, sizeof(*s->merged));
		if (!s->merged)
			return -ENOMEM;
		how.group = s->by == KT_SCHED_BY_COMM ? cmp_comm : cmp_tgid;
		how.fold = merge;
	}
	ret = kt_collect_rows(tasks->tree, tasks->n, &how, &v, &nv);
	if (ret)
		return ret;
	kt_rows_sort(v, nv, &(struct kt_rowsort){ sort, row_value, row_comm, row_pid });
	s->sorted = (struct kt_sched_row **)v;
	*rows = s->sorted;
	*n = nv;
	return 0;
}

void kt_sched_totals(const struct kt_sched *s, struct kt_taskstate_totals *t)
{
	kt_taskstate_totals(s->model, t);
}


void kt_sched_free(struct kt_sched *s)
{
	if (!s)
		return;
	if (!s->shared)
		kt_taskstate_free(s->model);
	free(s->sorted);
	free_merged(s);
	free(s);
}
