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
#include "analyze/pidmap.h"
#include "analyze/rows.h"
#include "analyze/runs.h"
#include "analyze/sched.h"
#include "file/tgidmap.h"
#include "base/collect.h"

enum kind { K_OTHER, K_SWITCH, K_WAKE, K_AFTER };
enum tstate { T_UNKNOWN, T_RUNNING, T_RUNNABLE, T_ASLEEP };

struct evinfo {
	int id;
	enum kind kind;
	struct kt_switch_fields sw;
	struct tep_format_field *pid;
};

struct task {
	int pid;
	int tgid;			/* set for merge(), by keep_task() */
	enum tstate st;
	bool woken;			/* runnable since a wakeup */
	bool selected;			/* an event of its own was selected */
	char sleep;			/* 'S', 'D' or 'O' while asleep */
	unsigned long long since;
	struct kt_sched_row row;
};

struct kt_sched {
	struct tep_handle *tep;
	enum kt_sched_by by;
	const struct kt_tgidmap *tg;
	struct kt_evcache evs;		/* struct evinfo by event id */
	struct kt_pidmap tasks;		/* struct task */
	struct kt_runs *runs;		/* run time and missing switches */
	struct kt_sched_row **sorted;
	struct kt_sched_row *merged;	/* by comm's or process's rows */
	size_t nmerged;
	struct kt_sched_totals t;
	int (*on_wakeup)(const struct kt_sched_wakeup *w, void *arg);
	void *wakeup_arg;
};

const char *const kt_sched_sort_keys =
	"run, wait, sleep, switches, wakeups, mean, p99, max or comm";

/* What the event is to this analysis (the cache's fill). */
static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;

	if (kt_switch_fields_find(e, &in->sw)) {
		in->kind = K_SWITCH;
	} else if (e->system && !strcmp(e->system, "sched")) {
		if (!strcmp(e->name, "sched_waking") ||
			   !strcmp(e->name, "sched_wakeup") ||
			   !strcmp(e->name, "sched_wakeup_new")) {
			in->pid = tep_find_field(e, "pid");
			if (in->pid)
				in->kind = K_WAKE;
		}
	} else if (e->system && !strcmp(e->system, "ftrace") &&
		   (!strcmp(e->name, "kernel_stack") || !strcmp(e->name, "user_stack"))) {
		/* Written after their event, with its task: no evidence. */
		in->kind = K_AFTER;
	}
}

struct kt_sched *kt_sched_new(struct tep_handle *tep, enum kt_sched_by by,
			      const struct kt_tgidmap *tg)
{
	struct kt_sched *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->runs = kt_runs_new();
	if (!s->runs) {
		free(s);
		return NULL;
	}
	s->tep = tep;
	s->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	s->tasks.size = sizeof(struct task);
	s->by = by;
	s->tg = tg;
	return s;
}

static struct task *task_of(struct kt_sched *s, int pid)
{
	struct task *t = kt_pidmap_get(&s->tasks, pid);

	if (t)
		t->row.pid = pid;
	return t;
}

static char sleep_kind(unsigned long long state)
{
	if (state & 1)
		return 'S';
	if (state & 2)
		return 'D';
	return 'O';
}

static void add_sleep(struct task *t, unsigned long long ts)
{
	unsigned long long d = ts > t->since ? ts - t->since : 0;

	if (t->sleep == 'S')
		t->row.sleep_s_ns += d;
	else if (t->sleep == 'D')
		t->row.sleep_d_ns += d;
	else
		t->row.sleep_other_ns += d;
}

static int on_switch(struct kt_sched *s, struct evinfo *in, struct tep_record *rec,
		     int cpu)
{
	unsigned long long prev, state, next, ts = rec->ts;
	struct task *p, *n;
	struct kt_run run;
	int ret;

	if (tep_read_number_field(in->sw.prev_pid, rec->data, &prev) ||
	    tep_read_number_field(in->sw.prev_state, rec->data, &state) ||
	    tep_read_number_field(in->sw.next_pid, rec->data, &next))
		return 0;
	s->t.switches++;
	ret = kt_runs_switch(s->runs, cpu, ts, (int)prev, (int)next, &run);
	if (ret)
		return ret;
	if (run.kind == KT_RUN_MISSING)
		s->t.missing++;
	if (prev) {
		p = task_of(s, (int)prev);
		if (!p)
			return -ENOMEM;
		kt_field_str(in->sw.prev_comm, rec, p->row.comm, sizeof(p->row.comm));
		/* The CPU's chain says how long it ran (runs.h). */
		if (run.kind == KT_RUN_RAN)
			p->row.run_ns += run.end > run.start ? run.end - run.start : 0;
		else if (run.kind == KT_RUN_MISSING)
			p->row.missing++;
		if (p->st == T_RUNNABLE || p->st == T_ASLEEP)
			s->t.missed_ins++;	/* out again, never seen in */
		if (p->st == T_ASLEEP)
			add_sleep(p, ts);	/* ... asleep until then at most */
		p->row.switches++;
		p->since = ts;
		/* R (0) or R+ (preempted): still runnable; else asleep. */
		if (!(state & 0xff)) {
			p->st = T_RUNNABLE;
			p->woken = false;
		} else {
			p->st = T_ASLEEP;
			p->sleep = sleep_kind(state);
		}
	}
	if (next) {
		n = task_of(s, (int)next);
		if (!n)
			return -ENOMEM;
		kt_field_str(in->sw.next_comm, rec, n->row.comm, sizeof(n->row.comm));
		if (n->st == T_RUNNABLE) {
			n->row.wait_ns += ts > n->since ? ts - n->since : 0;
			if (n->woken && kt_dist_add(&n->row.lat, ts > n->since ? ts - n->since : 0, ts, cpu))
				return -ENOMEM;
			if (n->woken && s->on_wakeup) {
				ret = s->on_wakeup(&(struct kt_sched_wakeup){
					(int)next, n->row.comm, n->since, ts, cpu }, s->wakeup_arg);
				if (ret)
					return ret;
			}
		} else if (n->st == T_ASLEEP) {
			/* No wakeup in the file: asleep until now. */
			add_sleep(n, ts);
		}
		n->st = T_RUNNING;
		n->since = ts;
	}
	return 0;
}

static int on_wake(struct kt_sched *s, struct evinfo *in, struct tep_record *rec)
{
	unsigned long long pid;
	struct task *t;

	if (tep_read_number_field(in->pid, rec->data, &pid) || !pid)
		return 0;
	t = task_of(s, (int)pid);
	if (!t)
		return -ENOMEM;
	if (t->st == T_ASLEEP) {
		add_sleep(t, rec->ts);
	} else if (t->st != T_UNKNOWN) {
		/* Running (a wakeup that raced its sleep) or already woken. */
		return 0;
	}
	t->st = T_RUNNABLE;
	t->woken = true;
	t->since = rec->ts;
	return 0;
}

/* An event of the task's own: it is on a CPU now. */
static int on_evidence(struct kt_sched *s, int pid, unsigned long long ts)
{
	struct task *t = kt_pidmap_find(&s->tasks, pid);

	if (!t)
		return 0;
	if (t->st == T_RUNNABLE || t->st == T_ASLEEP) {
		s->t.missed_ins++;
		/*
		 * Asleep until now at the latest, as analyze offcpu ends
		 * the stretch; where the file has no wakeups, sleep has
		 * no other end.
		 */
		if (t->st == T_ASLEEP)
			add_sleep(t, ts);
		t->st = T_RUNNING;
		t->since = ts;
	}
	return 0;
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
	struct tep_record *rec = ev->record;
	struct evinfo *in;
	int pid, ret;

	if (kt_runs_record(s->runs, ev->cpu, rec->missed_events, &s->t.lost,
			   &s->t.lost_unknown))
		return -ENOMEM;
	in = kt_evcache_get(&s->evs, ev->event);
	if (!in)
		return -ENOMEM;
	if (in->kind == K_AFTER)
		return 0;
	pid = tep_data_pid(s->tep, rec);
	if (pid > 0 && ev->selected) {
		struct task *t = task_of(s, pid);

		if (!t)
			return -ENOMEM;
		t->selected = true;
	}
	/* The task running here, before the event changes anything. */
	if (pid > 0 && in->kind != K_SWITCH) {
		ret = on_evidence(s, pid, rec->ts);
		if (ret)
			return ret;
	}
	if (in->kind == K_SWITCH) {
		s->t.has_switch = true;
		return on_switch(s, in, rec, ev->cpu);
	}
	if (in->kind == K_WAKE) {
		s->t.has_wakeup = true;
		return on_wake(s, in, rec);
	}
	return 0;
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
	struct task *t = item;

	if (!t->selected)
		return false;
	if (s->by != KT_SCHED_BY_TASK)
		t->tgid = s->tg ? kt_tgidmap_of(s->tg, t->pid) : t->pid;
	return true;
}

static void *task_row(void *item)
{
	return &((struct task *)item)->row;
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

static int cmp_comm(const void *a, const void *b)
{
	return strcmp((*(struct task *const *)a)->row.comm,
		      (*(struct task *const *)b)->row.comm);
}

static int cmp_tgid(const void *a, const void *b)
{
	int x = (*(struct task *const *)a)->tgid;
	int y = (*(struct task *const *)b)->tgid;

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
	struct task *t = item;
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
		s->merged = calloc(s->tasks.n ? s->tasks.n : 1, sizeof(*s->merged));
		if (!s->merged)
			return -ENOMEM;
		how.group = s->by == KT_SCHED_BY_COMM ? cmp_comm : cmp_tgid;
		how.fold = merge;
	}
	ret = kt_collect_rows(s->tasks.tree, s->tasks.n, &how, &v, &nv);
	if (ret)
		return ret;
	kt_rows_sort(v, nv, &(struct kt_rowsort){ sort, row_value, row_comm, row_pid });
	s->sorted = (struct kt_sched_row **)v;
	*rows = s->sorted;
	*n = nv;
	return 0;
}

void kt_sched_totals(const struct kt_sched *s, struct kt_sched_totals *t)
{
	*t = s->t;
}

static void free_task(void *p)
{
	struct task *t = p;

	kt_dist_free(&t->row.lat);
	free(t);
}

void kt_sched_free(struct kt_sched *s)
{
	if (!s)
		return;
	kt_evcache_free(&s->evs);
	kt_runs_free(s->runs);
	kt_pidmap_free(&s->tasks, free_task);
	free(s->sorted);
	free_merged(s);
	free(s);
}
