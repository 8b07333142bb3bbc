// SPDX-License-Identifier: GPL-2.0
/*
 * Each task's state over time.  See taskstate.h.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"
#include "analyze/rows.h"
#include "analyze/taskstate.h"

enum kind { K_OTHER, K_SWITCH, K_WAKE, K_AFTER };

struct evinfo {
	int id;
	enum kind kind;
	struct kt_switch_fields sw;
	struct tep_format_field *pid, *comm;
};

/*
 * A CPU's task last looked up: a CPU's records are mostly one task's in
 * a row, so most lookups need no walk of the tree (two walks a record
 * were a fifth of analyze cpu's time).  A task, once made, stays.
 */
struct last {
	int pid;
	struct kt_task *t;		/* NULL: none yet */
};

/* An analysis on the model, and where its part of each task is. */
struct user {
	struct kt_taskstate_ops ops;
	size_t off;
};

struct kt_taskstate {
	struct tep_handle *tep;
	struct user users[KT_TASKSTATE_USERS];
	int nusers;
	bool wakeups;			/* some user's ops.wakeups */
	bool switches;			/* some user's ops.switches */
	struct kt_evcache evs;		/* struct evinfo by event id */
	struct kt_pidmap tasks;		/* struct kt_task and its own part */
	struct kt_runs *runs;		/* run time and missing switches */
	struct kt_percpu last;		/* struct last */
	struct kt_taskstate_totals t;
};

bool kt_taskstate_is_after(struct tep_event *e)
{
	return e->system && !strcmp(e->system, "ftrace") &&
	       (!strcmp(e->name, "kernel_stack") || !strcmp(e->name, "user_stack"));
}

static bool is_wakeup(struct tep_event *e)
{
	return e->system && !strcmp(e->system, "sched") &&
	       (!strcmp(e->name, "sched_waking") || !strcmp(e->name, "sched_wakeup") ||
		!strcmp(e->name, "sched_wakeup_new"));
}

/* What the event is to the model (the cache's fill). */
static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;

	if (kt_switch_fields_find(e, &in->sw)) {
		in->kind = K_SWITCH;
	} else if (is_wakeup(e)) {
		in->pid = tep_find_field(e, "pid");
		in->comm = tep_find_field(e, "comm");
		if (in->pid)
			in->kind = K_WAKE;
	} else if (kt_taskstate_is_after(e)) {
		/* Written after their event, with its task: no evidence. */
		in->kind = K_AFTER;
	}
}

struct kt_taskstate *kt_taskstate_new(struct tep_handle *tep,
				      const struct kt_taskstate_ops *ops)
{
	struct kt_taskstate *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->runs = kt_runs_new();
	if (!m->runs) {
		free(m);
		return NULL;
	}
	m->tep = tep;
	m->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	m->tasks.size = sizeof(struct kt_task);
	m->last.size = sizeof(struct last);
	if (ops && kt_taskstate_join(m, ops, &(size_t){ 0 })) {
		kt_taskstate_free(m);
		return NULL;
	}
	return m;
}

int kt_taskstate_join(struct kt_taskstate *m, const struct kt_taskstate_ops *ops,
		      size_t *off)
{
	const size_t align = alignof(max_align_t);
	size_t at = m->tasks.size - sizeof(struct kt_task);
	struct user *u;

	if (m->tasks.n)
		return -EBUSY;
	if (m->nusers == KT_TASKSTATE_USERS)
		return -E2BIG;
	at = (at + align - 1) / align * align;
	u = &m->users[m->nusers++];
	u->ops = *ops;
	u->off = at;
	m->wakeups |= ops->wakeups;
	m->switches |= ops->switches;
	m->tasks.size = sizeof(struct kt_task) + at + ops->size;
	*off = at;
	return 0;
}

struct kt_taskstate *kt_taskstate_use(struct tep_handle *tep, struct kt_taskstate *shared,
				      const struct kt_taskstate_ops *ops, size_t *off)
{
	int ret;

	*off = 0;
	if (!shared)
		return kt_taskstate_new(tep, ops);
	ret = kt_taskstate_join(shared, ops, off);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return shared;
}

struct kt_task *kt_taskstate_get(struct kt_taskstate *m, int pid)
{
	return kt_pidmap_get(&m->tasks, pid);
}

struct kt_task *kt_taskstate_find(struct kt_taskstate *m, int pid)
{
	return kt_pidmap_find(&m->tasks, pid);
}

const struct kt_pidmap *kt_taskstate_tasks(const struct kt_taskstate *m)
{
	return &m->tasks;
}

/* kt_taskstate_get() (make) or _find() of pid, by way of cpu's last. */
static struct kt_task *lookup(struct kt_taskstate *m, int cpu, int pid, bool make)
{
	struct last *l = kt_percpu_at(&m->last, cpu);
	struct kt_task *t;

	if (l && l->t && l->pid == pid)
		return l->t;
	t = make ? kt_taskstate_get(m, pid) : kt_taskstate_find(m, pid);
	if (t && l)
		*l = (struct last){ pid, t };
	return t;
}

/* Transition c to each user that asks for its kind. */
static int change(struct kt_taskstate *m, struct kt_ts_change *c)
{
	struct user *u;
	int ret;

	for (u = m->users; u < m->users + m->nusers; u++) {
		if (!u->ops.change || (c->what == KT_TS_WAKE && !u->ops.wakeups) ||
		    (c->what == KT_TS_SWITCH && !u->ops.switches))
			continue;
		c->own = c->t ? kt_task_part(c->t, u->off) : NULL;
		ret = u->ops.change(c, u->ops.arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int on_switch(struct kt_taskstate *m, struct evinfo *in, struct tep_record *rec,
		     int cpu)
{
	unsigned long long prev, state, next, ts = rec->ts;
	struct kt_ts_change c = { .ts = ts, .cpu = cpu, .rec = rec };
	struct kt_task *t;
	struct kt_run run;
	int ret;

	if (tep_read_number_field(in->sw.prev_pid, rec->data, &prev) ||
	    tep_read_number_field(in->sw.prev_state, rec->data, &state) ||
	    tep_read_number_field(in->sw.next_pid, rec->data, &next))
		return 0;
	m->t.switches++;
	ret = kt_runs_switch(m->runs, cpu, ts, (int)prev, (int)next, &run);
	if (ret)
		return ret;
	c.run = &run;
	c.state = state;
	if (m->switches) {
		c.what = KT_TS_SWITCH;
		c.comm = in->sw.prev_comm;
		ret = change(m, &c);
		if (ret)
			return ret;
		c.comm = NULL;
	}
	if (run.kind == KT_RUN_MISSING) {
		m->t.missing++;
		/* Who the chain had here left at a time not known. */
		t = run.cur > 0 ? lookup(m, cpu, run.cur, false) : NULL;
		if (t) {
			c.what = KT_TS_GONE;
			c.t = t;
			ret = change(m, &c);
			if (ret)
				return ret;
		}
	}
	if (prev) {
		t = lookup(m, cpu, (int)prev, true);
		if (!t)
			return -ENOMEM;
		c.what = KT_TS_OUT;
		c.t = t;
		c.comm = in->sw.prev_comm;
		ret = change(m, &c);
		if (ret)
			return ret;
		if (t->st == KT_TASK_RUNNABLE || t->st == KT_TASK_ASLEEP)
			m->t.missed_ins++;	/* out again, never seen in */
		t->since = ts;
		/* R (0) or R+ (preempted): still runnable; else asleep. */
		if (!(state & 0xff)) {
			t->st = KT_TASK_RUNNABLE;
			t->woken = false;
		} else {
			t->st = KT_TASK_ASLEEP;
			t->sleep = state & 1 ? 'S' : state & 2 ? 'D' : 'O';
		}
	}
	if (next) {
		t = lookup(m, cpu, (int)next, true);
		if (!t)
			return -ENOMEM;
		c.what = KT_TS_IN;
		c.t = t;
		c.comm = in->sw.next_comm;
		ret = change(m, &c);
		if (ret)
			return ret;
		t->st = KT_TASK_RUNNING;
		t->since = ts;
	}
	return 0;
}

static int on_wake(struct kt_taskstate *m, struct evinfo *in, struct tep_record *rec,
		   int cpu, int waker)
{
	unsigned long long pid;
	struct kt_task *t;
	int ret;

	if (tep_read_number_field(in->pid, rec->data, &pid) || !pid)
		return 0;
	t = kt_taskstate_get(m, (int)pid);
	if (!t)
		return -ENOMEM;
	ret = change(m, &(struct kt_ts_change){ .what = KT_TS_WAKE, .t = t, .ts = rec->ts,
			.cpu = cpu, .rec = rec, .comm = in->comm, .waker = waker });
	if (ret)
		return ret;
	/* Running (a wakeup that raced its sleep) or already woken: no change. */
	if (t->st == KT_TASK_ASLEEP || t->st == KT_TASK_UNKNOWN) {
		t->st = KT_TASK_RUNNABLE;
		t->woken = true;
		t->since = rec->ts;
	}
	return 0;
}

/* An event of task t's own: it is on a CPU now. */
static int on_evidence(struct kt_taskstate *m, struct tep_record *rec, int cpu,
		       struct kt_task *t)
{
	int ret;

	ret = change(m, &(struct kt_ts_change){ .what = KT_TS_SEEN, .t = t, .ts = rec->ts,
			.cpu = cpu, .rec = rec });
	if (ret)
		return ret;
	if (t->st == KT_TASK_RUNNABLE || t->st == KT_TASK_ASLEEP) {
		m->t.missed_ins++;
		t->st = KT_TASK_RUNNING;
		t->since = rec->ts;
	}
	return 0;
}

/* The model's own handling of a record (kt_taskstate_add()). */
static int apply(struct kt_taskstate *m, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct kt_task *t = NULL;
	struct evinfo *in;
	int pid, ret;

	if (kt_runs_record(m->runs, ev->cpu, rec->missed_events, &m->t.lost,
			   &m->t.lost_unknown))
		return -ENOMEM;
	in = kt_evcache_get(&m->evs, ev->event);
	if (!in)
		return -ENOMEM;
	if (in->kind == K_AFTER)
		return 0;
	pid = tep_data_pid(m->tep, rec);
	if (pid > 0 && (ev->selected || in->kind != K_SWITCH))
		t = lookup(m, ev->cpu, pid, ev->selected);
	if (pid > 0 && ev->selected) {
		if (!t)
			return -ENOMEM;
		t->selected = true;
	}
	/* The task running here, before the event changes anything. */
	if (t && in->kind != K_SWITCH) {
		ret = on_evidence(m, rec, ev->cpu, t);
		if (ret)
			return ret;
	}
	if (in->kind == K_SWITCH) {
		m->t.has_switch = true;
		return on_switch(m, in, rec, ev->cpu);
	}
	if (in->kind == K_WAKE && m->wakeups) {
		m->t.has_wakeup = true;
		return on_wake(m, in, rec, ev->cpu, pid);
	}
	return 0;
}

int kt_taskstate_add(struct kt_taskstate *m, const struct kt_event *ev)
{
	struct user *u;
	int ret;

	for (u = m->users; u < m->users + m->nusers; u++)
		if (u->ops.before && (ret = u->ops.before(ev, u->ops.arg)))
			return ret;
	ret = apply(m, ev);
	if (ret)
		return ret;
	for (u = m->users; u < m->users + m->nusers; u++)
		if (u->ops.after && (ret = u->ops.after(ev, u->ops.arg)))
			return ret;
	return 0;
}

void kt_taskstate_totals(const struct kt_taskstate *m, struct kt_taskstate_totals *t)
{
	*t = m->t;
}

static void free_own(const void *node, VISIT which, void *arg)
{
	struct kt_task *t = *(struct kt_task *const *)node;
	struct kt_taskstate *m = arg;

	const struct user *u;

	if (which != postorder && which != leaf)
		return;
	for (u = m->users; u < m->users + m->nusers; u++)
		if (u->ops.free_own)
			u->ops.free_own(kt_task_part(t, u->off));
}

void kt_taskstate_free(struct kt_taskstate *m)
{
	if (!m)
		return;
	twalk_r(m->tasks.tree, free_own, m);
	kt_pidmap_free(&m->tasks, NULL);
	kt_evcache_free(&m->evs);
	kt_runs_free(m->runs);
	free(m->last.v);
	free(m);
}
