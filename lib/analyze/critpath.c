// SPDX-License-Identifier: GPL-2.0
/*
 * analyze critpath.  See critpath.h.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/critpath.h"
#include "analyze/evcache.h"
#include "analyze/taskstate.h"

/* A task's state as the records go: the known ones, then asleep. */
enum { S_BLOCKED = KT_CP_NSTATES };

/* prev_state's X and Z: the task exited. */
#define EXIT_DEAD 0x10
#define EXIT_ZOMBIE 0x20

/* Interrupt context in common_flags: hardirq, softirq, NMI. */
#define IRQ_FLAGS (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ | 0x40)

/* A stretch of one state; a sleep says who ended it (0: no task). */
struct ival {
	unsigned long long start, end;
	int waker;
	unsigned char state;		/* enum kt_cp_state */
};

/*
 * A task's stretches, the model's task's own part: the model's states
 * as this analysis reads them (a task woken while still running is
 * runnable from its switch out; one switched out in X or Z exited; where
 * records are missing, unknown), each one's time.
 */
struct task {
	int pid;			/* the model's, set by own() */
	bool known;			/* st is: the task was seen */
	bool waking;			/* woken while still running: not asleep */
	int st;				/* enum kt_cp_state, or S_BLOCKED */
	unsigned char sleep;		/* KT_CP_SLEEP_* while S_BLOCKED */
	unsigned long long since;
	char comm[32];
	struct ival *v;
	size_t n, cap;
};

/* A (task, state) row or a path, summed in a tsearch tree. */
struct sum {
	struct kt_critpath_row row;
	char *path;			/* paths only */
};

struct kt_critpath {
	struct tep_handle *tep;
	struct kt_taskstate *model;	/* struct task in each task */
	unsigned long long last_ts;
	struct kt_critpath_totals t;
	bool done;			/* the sums below are made */
	void *rowtree, *pathtree;
	size_t nrows, npaths;
	struct kt_critpath_row **rows;
	struct sum **paths;
	struct kt_critpath_target *targets;
	size_t ntargets;
	char path[4096];		/* the walk's, "a-1;b-2" */
	int err;
};

static const char *const state_names[] = {
	"running", "runnable", "sleep-S", "sleep-D", "sleep-other", "unknown",
};

const char *kt_critpath_state_name(enum kt_cp_state st)
{
	return st < KT_CP_NSTATES ? state_names[st] : "?";
}

static struct task *own(struct kt_task *t)
{
	struct task *o = (struct task *)t->own;

	o->pid = t->pid;
	return o;
}

/* The stretch since t's last change, as st (a sleep: its waker), ends at ts. */
static int close_as(struct task *t, int st, int waker, unsigned long long ts)
{
	struct ival *v;

	if (!t->known || ts <= t->since)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;

		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	v = &t->v[t->n];
	/* One state on: the same stretch, longer. */
	if (t->n && v[-1].end == t->since && v[-1].state == st && v[-1].waker == waker &&
	    st != KT_CP_SLEEP_S && st != KT_CP_SLEEP_D && st != KT_CP_SLEEP_OTHER) {
		v[-1].end = ts;
		return 0;
	}
	*v = (struct ival){ .start = t->since, .end = ts, .waker = waker, .state = (unsigned char)st };
	t->n++;
	return 0;
}

/* t is now in state st, from ts. */
static void now(struct task *t, int st, unsigned long long ts)
{
	t->known = true;
	t->st = st;
	t->since = ts;
	t->waking = false;
}

static unsigned char sleep_of(unsigned long long state)
{
	if (state & 1)
		return KT_CP_SLEEP_S;
	if (state & 2)
		return KT_CP_SLEEP_D;
	return KT_CP_SLEEP_OTHER;
}

/* A switch takes t off its CPU (c->run: whether it ran, runs.h). */
static int switched_out(struct task *t, const struct kt_ts_change *c)
{
	const struct kt_run *run = c->run;
	unsigned long long state = c->state;
	int ret;

	kt_field_str(c->comm, c->rec, t->comm, sizeof(t->comm));
	/* The CPU's chain says whether it ran (runs.h). */
	ret = close_as(t, run->kind == KT_RUN_RAN && t->st == KT_CP_RUNNING ?
		       KT_CP_RUNNING : KT_CP_UNKNOWN, 0, c->ts);
	if (ret)
		return ret;
	/* R (0) or R+ (preempted), or woken before it was off: runnable. */
	if (state & (EXIT_DEAD | EXIT_ZOMBIE)) {
		t->known = false;	/* it exited: its time ends */
	} else if (!(state & 0xff) || t->waking) {
		now(t, KT_CP_RUNNABLE, c->ts);
	} else {
		now(t, S_BLOCKED, c->ts);
		t->sleep = sleep_of(state);
	}
	return 0;
}

/* A wakeup names t: a sleep ends, its waker the record's task. */
static int woken(struct kt_critpath *cp, struct task *t, const struct kt_ts_change *c)
{
	int flags, waker = c->waker, ret;

	if (c->comm && !t->comm[0])
		kt_field_str(c->comm, c->rec, t->comm, sizeof(t->comm));
	switch (t->known ? t->st : -1) {
	case S_BLOCKED:
		flags = tep_data_flags(cp->tep, c->rec);
		if (flags < 0 || (flags & IRQ_FLAGS) || waker <= 0 || waker == t->pid)
			waker = 0;
		ret = close_as(t, t->sleep, waker, c->ts);
		if (ret)
			return ret;
		break;
	case KT_CP_RUNNING:
		/* Woken as it went to sleep: its switch-out comes next. */
		t->waking = true;
		return 0;
	case KT_CP_RUNNABLE:
		return 0;		/* woken already (sched_waking, then sched_wakeup) */
	default:
		ret = close_as(t, KT_CP_UNKNOWN, 0, c->ts);
		if (ret)
			return ret;
	}
	now(t, KT_CP_RUNNABLE, c->ts);
	return 0;
}

/* The model's transitions: each task's stretches. */
static int change(const struct kt_ts_change *c, void *arg)
{
	struct task *t = own(c->t);
	int ret;

	switch (c->what) {
	case KT_TS_GONE:
		/* Who the chain had here left at a time not known. */
		if (t->known && t->st == KT_CP_RUNNING && t->since == c->run->start)
			t->st = KT_CP_UNKNOWN;
		return 0;
	case KT_TS_OUT:
		return switched_out(t, c);
	case KT_TS_IN:
		kt_field_str(c->comm, c->rec, t->comm, sizeof(t->comm));
		/* Runnable until now; else its wakeup or switch-out is missing. */
		ret = close_as(t, t->st == KT_CP_RUNNABLE ? KT_CP_RUNNABLE : KT_CP_UNKNOWN,
			       0, c->ts);
		break;
	case KT_TS_WAKE:
		return woken(arg, t, c);
	case KT_TS_SEEN:
		/* An event of its own: on a CPU, its switch-in missing. */
		if (!t->known || t->st == KT_CP_RUNNING)
			return 0;
		ret = close_as(t, KT_CP_UNKNOWN, 0, c->ts);
		break;
	default:
		return 0;
	}
	if (!ret)
		now(t, KT_CP_RUNNING, c->ts);
	return ret;
}

static void free_own(void *p)
{
	free(((struct task *)p)->v);
}

struct kt_critpath *kt_critpath_new(struct tep_handle *tep)
{
	struct kt_critpath *cp = calloc(1, sizeof(*cp));
	struct kt_taskstate_ops ops = {
		.size = sizeof(struct task), .wakeups = true, .change = change,
		.free_own = free_own, .arg = cp,
	};

	if (!cp)
		return NULL;
	cp->model = kt_taskstate_new(tep, &ops);
	if (!cp->model) {
		free(cp);
		return NULL;
	}
	cp->tep = tep;
	return cp;
}

int kt_critpath_add(const struct kt_event *ev, void *arg)
{
	struct kt_critpath *cp = arg;

	if (ev->record->ts > cp->last_ts)
		cp->last_ts = ev->record->ts;
	return kt_taskstate_add(cp->model, ev);
}

/* The sums: rows by (pid, state), paths by their text. */
static int row_cmp(const void *a, const void *b)
{
	const struct sum *x = a, *y = b;

	if (x->row.pid != y->row.pid)
		return x->row.pid < y->row.pid ? -1 : 1;
	return (int)x->row.state - (int)y->row.state;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sum *)a)->path, ((const struct sum *)b)->path);
}

/* ns of t in state st, along the walk's path (cp->path, len long). */
static void give(struct kt_critpath *cp, const struct task *t, int st,
		 unsigned long long ns, size_t len)
{
	struct sum key = { .row = { .pid = t->pid, .state = st } }, *s, **found;
	int n;

	if (!ns || cp->err)
		return;
	found = tfind(&key, &cp->rowtree, row_cmp);
	if (!found) {
		s = calloc(1, sizeof(*s));
		if (s) {
			s->row = key.row;
			memcpy(s->row.comm, t->comm, sizeof(s->row.comm));
		}
		if (!s || !tsearch(s, &cp->rowtree, row_cmp)) {
			free(s);
			cp->err = -ENOMEM;
			return;
		}
		cp->nrows++;
		found = &s;
	}
	(*found)->row.ns += ns;

	n = snprintf(cp->path + len, sizeof(cp->path) - len, ";%s", state_names[st]);
	if (n < 0 || (size_t)n >= sizeof(cp->path) - len)
		return;			/* too deep to say: in the rows only */
	key.path = cp->path;
	found = tfind(&key, &cp->pathtree, path_cmp);
	if (!found) {
		s = calloc(1, sizeof(*s));
		if (s)
			s->path = strdup(cp->path);
		if (!s || !s->path || !tsearch(s, &cp->pathtree, path_cmp)) {
			if (s)
				free(s->path);
			free(s);
			cp->err = -ENOMEM;
			cp->path[len] = '\0';
			return;
		}
		cp->npaths++;
		found = &s;
	}
	(*found)->row.ns += ns;
	cp->path[len] = '\0';
}

/* Append "comm-pid" of t to the path: its new length, or 0 when full. */
static size_t push(struct kt_critpath *cp, const struct task *t, size_t len)
{
	int n = snprintf(cp->path + len, sizeof(cp->path) - len, "%s%s-%d",
			 len ? ";" : "", t->comm[0] ? t->comm : "?", t->pid);

	if (n < 0 || (size_t)n >= sizeof(cp->path) - len) {
		cp->path[len] = '\0';
		return 0;
	}
	return len + (size_t)n;
}

/* The first stretch of t that ends after ts. */
static size_t first_after(const struct task *t, unsigned long long ts)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].end <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void walk(struct kt_critpath *cp, struct task *w, unsigned long long a,
		 unsigned long long b, int depth, size_t len);

/* One stretch of t, clipped to [a, b): given, or followed to its waker. */
static void stretch(struct kt_critpath *cp, struct task *t, const struct ival *v,
		    unsigned long long a, unsigned long long b, int depth, size_t len)
{
	struct kt_task *w = NULL;
	size_t wlen;

	if (v->waker > 0 && depth < KT_CRITPATH_DEPTH)
		w = kt_taskstate_find(cp->model, v->waker);
	wlen = w ? push(cp, own(w), len) : 0;
	if (!wlen) {
		give(cp, t, v->state, b - a, len);
		return;
	}
	walk(cp, own(w), a, b, depth + 1, wlen);
	cp->path[len] = '\0';
}

/* What w did over [a, b), along the path so far (len long). */
static void walk(struct kt_critpath *cp, struct task *w, unsigned long long a,
		 unsigned long long b, int depth, size_t len)
{
	unsigned long long at = a;
	size_t i;

	for (i = first_after(w, a); i < w->n && w->v[i].start < b && !cp->err; i++) {
		unsigned long long x = w->v[i].start > a ? w->v[i].start : a;
		unsigned long long y = w->v[i].end < b ? w->v[i].end : b;

		if (y <= x || y <= at)
			continue;	/* out of order (a damaged file's times) */
		if (x < at)
			x = at;
		if (x > at)
			give(cp, w, KT_CP_UNKNOWN, x - at, len);	/* not seen then */
		stretch(cp, w, &w->v[i], x, y, depth, len);
		at = y;
	}
	if (b > at)
		give(cp, w, KT_CP_UNKNOWN, b - at, len);
}

/* tsearch walks: end the tasks, follow the targets, collect the sums. */
static void end_task(const void *node, VISIT which, void *arg)
{
	struct task *t = own(*(struct kt_task *const *)node);
	struct kt_critpath *cp = arg;
	int ret;

	if ((which != postorder && which != leaf) || cp->err)
		return;
	/* Open at the end: in that state until the last record. */
	ret = close_as(t, t->st == S_BLOCKED ? t->sleep : t->st, 0, cp->last_ts);
	if (ret)
		cp->err = ret;
	t->known = false;
}

static void add_target(const void *node, VISIT which, void *arg)
{
	struct kt_task *mt = *(struct kt_task *const *)node;
	struct task *t = own(mt);
	struct kt_critpath *cp = arg;
	struct kt_critpath_target *g;
	size_t i, len;

	if ((which != postorder && which != leaf) || cp->err || !mt->selected || !t->n)
		return;
	g = &cp->targets[cp->ntargets++];
	*g = (struct kt_critpath_target){ .pid = t->pid };
	memcpy(g->comm, t->comm, sizeof(g->comm));
	len = push(cp, t, 0);
	for (i = 0; i < t->n && !cp->err; i++) {
		g->ns += t->v[i].end - t->v[i].start;
		if (t->v[i].waker > 0)
			g->woken_ns += t->v[i].end - t->v[i].start;
		stretch(cp, t, &t->v[i], t->v[i].start, t->v[i].end, 1, len);
	}
	cp->path[0] = '\0';
	cp->t.ns += g->ns;
}

struct gather {
	void **v;
	size_t n;
	bool rows;			/* the rows (else the paths) */
};

static void gather(const void *node, VISIT which, void *arg)
{
	struct sum *s = *(struct sum *const *)node;
	struct gather *g = arg;

	if (which == postorder || which == leaf)
		g->v[g->n++] = g->rows ? (void *)&s->row : (void *)s;
}

static int by_ns(const void *a, const void *b)
{
	const struct kt_critpath_row *x = *(struct kt_critpath_row *const *)a;
	const struct kt_critpath_row *y = *(struct kt_critpath_row *const *)b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (int)x->state - (int)y->state;
}

static int path_by_ns(const void *a, const void *b)
{
	const struct sum *x = *(struct sum *const *)a, *y = *(struct sum *const *)b;

	if (x->row.ns != y->row.ns)
		return x->row.ns > y->row.ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int make(struct kt_critpath *cp)
{
	const struct kt_pidmap *tasks = kt_taskstate_tasks(cp->model);

	if (cp->done)
		return cp->err;
	cp->done = true;
	twalk_r(tasks->tree, end_task, cp);
	cp->targets = calloc(tasks->n ? tasks->n : 1, sizeof(*cp->targets));
	if (!cp->targets)
		cp->err = -ENOMEM;
	if (!cp->err)
		twalk_r(tasks->tree, add_target, cp);
	if (!cp->err) {
		cp->rows = calloc(cp->nrows ? cp->nrows : 1, sizeof(*cp->rows));
		cp->paths = calloc(cp->npaths ? cp->npaths : 1, sizeof(*cp->paths));
		if (!cp->rows || !cp->paths)
			cp->err = -ENOMEM;
	}
	if (!cp->err) {
		struct gather g = { (void **)cp->rows, 0, true };

		twalk_r(cp->rowtree, gather, &g);
		qsort(cp->rows, cp->nrows, sizeof(*cp->rows), by_ns);
		g = (struct gather){ (void **)cp->paths, 0, false };
		twalk_r(cp->pathtree, gather, &g);
		qsort(cp->paths, cp->npaths, sizeof(*cp->paths), path_by_ns);
	}
	return cp->err;
}

int kt_critpath_rows(struct kt_critpath *cp, struct kt_critpath_row ***rows,
		     size_t *n)
{
	int ret = make(cp);

	if (ret)
		return ret;
	*rows = cp->rows;
	*n = cp->nrows;
	return 0;
}

int kt_critpath_targets(struct kt_critpath *cp, struct kt_critpath_target **t,
			size_t *n)
{
	int ret = make(cp);

	if (ret)
		return ret;
	*t = cp->targets;
	*n = cp->ntargets;
	return 0;
}

int kt_critpath_each_path(struct kt_critpath *cp,
			  int (*fn)(const char *path, unsigned long long ns, void *arg),
			  void *arg)
{
	size_t i;
	int ret = make(cp);

	for (i = 0; !ret && i < cp->npaths; i++)
		ret = fn(cp->paths[i]->path, cp->paths[i]->row.ns, arg);
	return ret;
}

void kt_critpath_totals(struct kt_critpath *cp, struct kt_critpath_totals *t)
{
	struct kt_taskstate_totals m;

	make(cp);
	kt_taskstate_totals(cp->model, &m);
	*t = cp->t;
	t->switches = m.switches;
	t->missing = m.missing;
	t->lost = m.lost;
	t->lost_unknown = m.lost_unknown;
	t->has_switch = m.has_switch;
	t->has_wakeup = m.has_wakeup;
}

static void free_sum(void *p)
{
	struct sum *s = p;

	free(s->path);
	free(s);
}

void kt_critpath_free(struct kt_critpath *cp)
{
	if (!cp)
		return;
	tdestroy(cp->rowtree, free_sum);
	tdestroy(cp->pathtree, free_sum);
	free(cp->rows);
	free(cp->paths);
	free(cp->targets);
	kt_taskstate_free(cp->model);
	free(cp);
}
