// SPDX-License-Identifier: GPL-2.0
/*
 * The wait conditions (waits.h): a table by tid (open addressing, as
 * watch.c's open calls) of each task's last wakeup, last switch out
 * asleep and the last time it was seen running; the waits that held,
 * held in a small array until the reader is past them.
 *
 * The wakeup is sched_waking's, where the wakeup begins (in the waker's
 * context: the wait includes the remote CPU's queueing, which
 * sched_wakeup, emitted where the task is queued, would leave out), and
 * sched_wakeup_new's for a new task (it has no sched_waking).  A kernel
 * without sched_waking (before 4.3): sched_wakeup's.
 *
 * Why a wait that held is true (this host drops some sched_switch
 * records without counting them, and a dropped switch in makes a wait
 * look longer than it was, up to the task's next switch in):
 *  - a wait is only one whose beginning was seen: no switch out asleep
 *    seen, no offcpu wait; no wakeup seen, no wakeup wait, nor one of a
 *    task whose switch out was not seen (last seen running);
 *  - a task that ran after its wait began has ended that wait: any
 *    record of its own (common_pid: it was current; any event, on any
 *    CPU), its own switch out, a switch in, or, for offcpu, a second
 *    wakeup (a task is woken again only once it ran and slept) with a
 *    time after the beginning discards the wait.  Records come CPU by
 *    CPU, so that proof may be read before the wait's beginning (the
 *    beginning is then dropped: 'run' is past it) or after its end (the
 *    wait is held until the reader has passed its end, and a proof
 *    between its beginning and its end kills it).
 * A wait can still be made up when the task's switch in and everything
 * it did up to its next wait were all dropped; it is never made up from
 * one dropped record.  A wait can be missed when its records come so
 * far out of order that a later run of the task is read before its
 * beginning: missing one is better than making one up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "base/tidtab.h"
#include "live/trigger/waits.h"

/* The state bits sched_switch's prev_state reports (S D T t X Z P I); R+ has none. */
#define STATE_MASK	0xff

struct task {
	int tid;			/* 0: a free slot */
	int scope;			/* 0: not looked up, 1: counts, -1: not */
	int held;			/* its waits held */
	int waker;
	int wakes;			/* wakeups since 'off' */
	char state;			/* 'off''s, a letter */
	uint64_t run;			/* last seen running */
	uint64_t out;			/* last switched out (any state) */
	uint64_t off;			/* switched out asleep (0: none open) */
	uint64_t wake;			/* woken (0: none open) */
};

/* A wait that held, until the reader is past its end. */
struct held {
	int tid;
	enum kt_cond_kind kind;
	int next;			/* the next condition to try */
	bool dead;			/* the task ran inside it */
	int cpu, waker;
	char state;
	char comm[16];
	uint64_t since, ts;
};

/* A field's offset and size, -1 when absent. */
struct fld {
	int off, size;
};

struct kt_waits {
	const struct kt_cond *conds;
	int n;
	uint64_t min[2];		/* the least DUR of wakeup, of offcpu (0: none) */
	int switch_id, waking_id, wakeup_id, new_id;
	struct fld pid, prev_pid, prev_state, next_pid, next_comm, woken;
	struct kt_tidtab tasks;		/* struct task */
	struct held *held;
	size_t nheld, maxheld;
	pid_t *roots;			/* NULL: every task counts */
	int nroots;
	bool children;
};

static struct fld field_of(struct tep_event *e, const char *name, bool common)
{
	struct tep_format_field *f = NULL;
	struct fld r = { -1, 0 };

	if (e)
		f = common ? tep_find_common_field(e, name) : tep_find_field(e, name);
	if (f && f->offset >= 0) {
		r.off = f->offset;
		r.size = f->size;
	}
	return r;
}

static int64_t num(const struct tep_record *rec, struct fld f)
{
	const unsigned char *p = (const unsigned char *)rec->data + f.off;
	int64_t v64;
	int32_t v32;

	if (f.off < 0 || f.off + f.size > rec->size)
		return -1;
	if (f.size == 4) {
		memcpy(&v32, p, 4);
		return v32;
	}
	if (f.size == 8) {
		memcpy(&v64, p, 8);
		return v64;
	}
	return -1;
}

static int id_of(struct tep_handle *tep, const char *name, struct tep_event **e)
{
	*e = tep_find_event_by_name(tep, "sched", name);
	return *e ? (*e)->id : -1;
}

struct kt_waits *kt_waits_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n)
{
	struct kt_waits *ws = calloc(1, sizeof(*ws));
	struct tep_event *sw, *wk, *e;
	int i, k;

	if (!ws)
		return NULL;
	ws->conds = conds;
	ws->n = n;
	for (i = 0; i < n; i++) {
		if (conds[i].kind != KT_COND_WAKEUP && conds[i].kind != KT_COND_OFFCPU)
			continue;
		k = conds[i].kind == KT_COND_OFFCPU;
		if (!ws->min[k] || conds[i].ns < ws->min[k])
			ws->min[k] = conds[i].ns;
	}
	ws->switch_id = id_of(tep, "sched_switch", &sw);
	ws->waking_id = id_of(tep, "sched_waking", &wk);
	if (ws->waking_id < 0)
		ws->wakeup_id = id_of(tep, "sched_wakeup", &wk);
	else
		ws->wakeup_id = -1;
	ws->new_id = id_of(tep, "sched_wakeup_new", &e);
	if (!wk)
		wk = e;
	ws->pid = field_of(sw, "common_pid", true);
	ws->prev_pid = field_of(sw, "prev_pid", false);
	ws->prev_state = field_of(sw, "prev_state", false);
	ws->next_pid = field_of(sw, "next_pid", false);
	ws->next_comm = field_of(sw, "next_comm", false);
	/* sched_waking, sched_wakeup and sched_wakeup_new share their layout. */
	ws->woken = field_of(wk, "pid", false);
	if (ws->switch_id < 0 || ws->pid.off < 0 || ws->prev_pid.off < 0 ||
	    ws->prev_state.off < 0 || ws->next_pid.off < 0) {
		free(ws);
		errno = EINVAL;
		return NULL;
	}
	if (kt_tidtab_init(&ws->tasks, sizeof(struct task))) {
		free(ws);
		errno = ENOMEM;
		return NULL;
	}
	return ws;
}

void kt_waits_free(struct kt_waits *ws)
{
	if (!ws)
		return;
	kt_tidtab_fini(&ws->tasks);
	free(ws->held);
	free(ws->roots);
	free(ws);
}

int kt_waits_scope(struct kt_waits *ws, const pid_t *roots, int n, bool children)
{
	pid_t *r = malloc((n > 0 ? n : 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	memcpy(r, roots, n * sizeof(*r));
	free(ws->roots);
	ws->roots = r;
	ws->nroots = n;
	ws->children = children;
	return 0;
}

/* tid's task, added when missing (NULL: no room). */
static struct task *task(struct kt_waits *ws, int tid)
{
	return kt_tidtab_get(&ws->tasks, tid);
}

/* A /proc/PID/status line's number ("Tgid:", "PPid:"), or -1. */
static long status_num(long pid, const char *key)
{
	char path[64], line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n)) {
			v = strtol(line + n, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static bool is_root(const struct kt_waits *ws, long pid)
{
	int i;

	for (i = 0; i < ws->nroots; i++)
		if (ws->roots[i] == pid)
			return true;
	return false;
}

/* Whether tid's waits count: its process is a root's (or forked by one). */
static bool in_scope(struct kt_waits *ws, struct task *t)
{
	long pid;
	int depth;

	if (!ws->roots)
		return true;
	if (!t->scope) {
		t->scope = -1;
		pid = is_root(ws, t->tid) ? t->tid : status_num(t->tid, "Tgid:");
		for (depth = 0; pid > 1 && depth < 64; depth++) {
			if (is_root(ws, pid)) {
				t->scope = 1;
				break;
			}
			if (!ws->children)
				break;
			pid = status_num(pid, "PPid:");
		}
	}
	return t->scope > 0;
}

/* The task ran at ts: the waits held that it was inside are dead. */
static void ran(struct kt_waits *ws, struct task *t, uint64_t ts)
{
	size_t i;

	if (ts > t->run)
		t->run = ts;
	for (i = 0; t->held && i < ws->nheld; i++)
		if (ws->held[i].tid == t->tid && ws->held[i].since < ts &&
		    ts < ws->held[i].ts)
			ws->held[i].dead = true;
}

static void hold(struct kt_waits *ws, struct task *t, enum kt_cond_kind kind,
		 uint64_t since, const struct tep_record *rec)
{
	struct held *h;
	size_t n;

	if (!in_scope(ws, t))
		return;
	if (ws->nheld == ws->maxheld) {
		n = ws->maxheld ? ws->maxheld * 2 : 16;
		h = realloc(ws->held, n * sizeof(*h));
		if (!h)
			return;
		ws->held = h;
		ws->maxheld = n;
	}
	h = &ws->held[ws->nheld++];
	memset(h, 0, sizeof(*h));
	h->tid = t->tid;
	h->kind = kind;
	h->cpu = rec->cpu;
	h->waker = t->waker;
	h->state = t->state;
	h->since = since;
	h->ts = rec->ts;
	if (ws->next_comm.off >= 0 && ws->next_comm.off + ws->next_comm.size <= rec->size)
		snprintf(h->comm, sizeof(h->comm), "%.*s", ws->next_comm.size,
			 (const char *)rec->data + ws->next_comm.off);
	t->held++;
}

static char state_letter(int64_t state)
{
	static const char letters[] = "SDTtXZPI";
	int i;

	for (i = 0; i < 8; i++)
		if (state & (1 << i))
			return letters[i];
	return '?';
}

static void switched(struct kt_waits *ws, const struct tep_record *rec)
{
	int prev = num(rec, ws->prev_pid), next = num(rec, ws->next_pid);
	int64_t state = num(rec, ws->prev_state);
	struct task *t;
	uint64_t ts = rec->ts;

	if (prev > 0 && (t = task(ws, prev))) {
		/* Seen running after this, it was not blocked from here. */
		if (t->run <= ts)
			t->out = ts;
		if ((state & STATE_MASK) && t->run <= ts) {
			t->off = ts;
			t->wakes = 0;
			t->state = state_letter(state);
		}
		ran(ws, t, ts);
	}
	if (next <= 0 || !(t = task(ws, next)))
		return;
	if (ws->min[1] && t->off && t->off < ts && t->run <= t->off && t->wakes <= 1 &&
	    ts - t->off > ws->min[1])
		hold(ws, t, KT_COND_OFFCPU, t->off, rec);
	if (ws->min[0] && t->wake && t->wake < ts && t->run <= t->wake &&
	    ts - t->wake > ws->min[0])
		hold(ws, t, KT_COND_WAKEUP, t->wake, rec);
	if (t->off < ts)
		t->off = 0;
	if (t->wake < ts)
		t->wake = 0;
	ran(ws, t, ts);
}

static void woken(struct kt_waits *ws, const struct tep_record *rec)
{
	int tid = num(rec, ws->woken);
	struct task *t;

	if (tid <= 0 || !(t = task(ws, tid)))
		return;
	if (t->off && t->off < rec->ts && ++t->wakes > 1)
		ran(ws, t, rec->ts);	/* woken twice: it ran between */
	/*
	 * The latest wakeup (an earlier one whose switch in was lost is
	 * over), of a task last seen switched out, or never seen (a new one):
	 * one seen running since had its switch out dropped.
	 */
	if (t->run <= rec->ts && (!t->run || t->out == t->run)) {
		t->wake = rec->ts;
		t->waker = num(rec, ws->pid);
	}
}

void kt_waits_record(struct kt_waits *ws, int type, const struct tep_record *rec)
{
	int pid = num(rec, ws->pid);
	struct task *t;

	if (type == ws->switch_id) {
		switched(ws, rec);
		return;
	}
	if (type == ws->waking_id || type == ws->wakeup_id || type == ws->new_id)
		woken(ws, rec);
	/* Any record of its own: it was running (the waker, for a wakeup). */
	if (pid > 0 && (t = task(ws, pid)))
		ran(ws, t, rec->ts);
}

/* The order firings are said in: by time, then task, then kind. */
static bool earlier(const struct held *a, const struct held *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->tid != b->tid)
		return a->tid < b->tid;
	return a->kind < b->kind;
}

int kt_waits_next(struct kt_waits *ws, uint64_t now, struct kt_fire *f)
{
	const struct kt_cond *c;
	struct held *h;
	struct task *t;
	size_t i, pick;
	uint64_t took;

	for (;;) {
		pick = ws->nheld;
		for (i = 0; i < ws->nheld; i++)
			if (ws->held[i].ts < now &&
			    (pick == ws->nheld || earlier(&ws->held[i], &ws->held[pick])))
				pick = i;
		if (pick == ws->nheld)
			return 0;
		h = &ws->held[pick];
		took = h->ts - h->since;
		for (; !h->dead && h->next < ws->n; h->next++) {
			c = &ws->conds[h->next];
			if (c->kind != h->kind || took <= c->ns)
				continue;
			f->cond = h->next++;
			f->ts = h->ts;
			f->since = h->since;
			f->cpu = h->cpu;
			f->pid = h->tid;
			if (h->kind == KT_COND_OFFCPU)
				snprintf(f->what, sizeof(f->what),
					 "sched:sched_switch pid %d: %s blocked (%c) %llu.%06llu ms",
					 h->tid, h->comm, h->state,
					 (unsigned long long)took / 1000000,
					 (unsigned long long)took % 1000000);
			else
				snprintf(f->what, sizeof(f->what),
					 "sched:sched_switch pid %d: %s woken by pid %d waited %llu.%06llu ms for cpu %d",
					 h->tid, h->comm, h->waker,
					 (unsigned long long)took / 1000000,
					 (unsigned long long)took % 1000000, h->cpu);
			return 1;
		}
		t = kt_tidtab_find(&ws->tasks, h->tid);
		if (t->tid == h->tid && t->held)
			t->held--;
		*h = ws->held[--ws->nheld];
	}
}
