// SPDX-License-Identifier: GPL-2.0
/*
 * The evaluation of trigger conditions on records (watch.h): each
 * thread's open system call, and each task's state for the waits, in
 * tables by tid (open addressing); the waits' records held in a queue
 * per CPU and taken oldest first; the event ids and field offsets
 * looked up once.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "decode/symbols.h"
#include "file/tepcheck.h"
#include "live/trigger/watch.h"

/* How long the waits' records are held for a later CPU's older ones. */
#define HOLD_NS		1000000000ULL

/* A table by tid: its entries begin with an int tid (0: a free slot). */
struct table {
	void *e;
	size_t esz, size, used;		/* size: a power of two */
};

struct open_call {
	int tid;
	long nr;
	uint64_t ts;
};

enum item_kind { I_OWN, I_SWITCH, I_WAKE, I_WAKE_NEW };

/* What the waits read of a record: a switch, a wakeup, an own event. */
struct item {
	uint64_t ts;
	int kind;
	int cpu;
	int pid;			/* own: the task; switch: prev; wake: the woken */
	int other;			/* switch: next; wake: the waker */
	unsigned long long state;	/* switch: prev_state */
	char comm[16], comm2[16];	/* switch: prev's, next's; wake: the woken's */
};

/* A CPU's held items, oldest first: a ring. */
struct queue {
	struct item *it;
	size_t head, n, size;
};

enum tstate { T_UNKNOWN, T_RUNNING, T_RUNNABLE, T_ASLEEP };

/* A task the waits follow. */
struct task {
	int tid;
	int st;				/* enum tstate */
	int waker;
	char sleep;			/* the state it blocked in: S, D, ... */
	uint64_t woken;			/* runnable since its wakeup at, or 0 */
	uint64_t out;			/* blocked since (switched out asleep), or 0 */
	char comm[16];
};

/* An event condition: its id and its filter (NULL: every one). */
struct event_cond {
	int id;
	struct tep_event_filter *filter;
};

struct kt_watch {
	struct tep_handle *tep;
	const struct kt_cond *conds;
	int n;
	struct event_cond *ev;		/* per condition */
	int enter_id, exit_id;
	struct tep_format_field *enter_nr, *exit_nr, *exit_ret;
	struct table calls;		/* struct open_call */
	char machine[65];
	/* The waits (wakeup>, offcpu>), when a condition is one. */
	bool waits;
	int switch_id, waking_id, wakeup_id, wakeup_new_id;
	int kstack_id, ustack_id;	/* ftrace's, or -1: unknown types skipped */
	struct tep_format_field *prev_pid, *prev_state, *next_pid, *prev_comm, *next_comm;
	struct tep_format_field *waking_pid, *wakeup_pid, *new_pid;
	struct tep_format_field *waking_comm, *wakeup_comm, *new_comm;
	struct table tasks;		/* struct task */
	struct queue *q;		/* per CPU */
	int nq;
	uint64_t newest;		/* the newest record's time fed */
	uint64_t oldest;		/* no held item is older (none: UINT64_MAX) */
	struct kt_fire *fires;		/* a ring of the waits' firings */
	size_t fhead, fn, fsize;
};

static struct tep_event *find(struct tep_handle *tep, const char *sys,
			      const char *name, int *id)
{
	struct tep_event *e = tep_find_event_by_name(tep, sys, name);

	*id = e ? e->id : -1;
	return e;
}

/*
 * The decoder's trial of a filter (decode/decoder.h), in a child: the
 * parser can crash, and what it parsed is not freed.  0, or -1 with the
 * reason in msg.
 */
static int filter_trial(struct tep_handle *tep, const char *filter,
			char *msg, size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	*msg = '\0';
	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		int ret = kt_decoder_filter_try(tep, filter, msg, len);

		close(fds[0]);
		if (ret && write(fds[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(ret ? 1 : 0);
	}
	close(fds[1]);
	n = read(fds[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

/* Condition c's event and filter, checked as the decoder checks -F. */
static int event_cond(struct kt_watch *w, const struct kt_cond *c,
		      struct event_cond *e, char *why, size_t len)
{
	char sys[64], *f, msg[256];
	struct tep_event *ev;
	const char *bad;
	int ret;

	snprintf(sys, sizeof(sys), "%.*s", (int)strcspn(c->spec, ":"), c->spec);
	ev = tep_find_event_by_name(w->tep, sys, strchr(c->spec, ':') + 1);
	if (!ev) {
		snprintf(why, len, "no event '%s' in the recording's formats", c->spec);
		return -EINVAL;
	}
	e->id = ev->id;
	if (!c->filter)
		return 0;
	if (asprintf(&f, "%s/%s: %s", ev->system, ev->name, c->filter) < 0)
		return -ENOMEM;
	bad = kt_filter_problem(f);
	ret = bad ? -1 : filter_trial(w->tep, f, msg, sizeof(msg));
	if (!bad && ret)
		bad = *msg ? msg : "it does not parse";
	if (bad) {
		snprintf(why, len, "bad filter '%s' of %s: %s", c->filter, c->spec, bad);
		free(f);
		return -EINVAL;
	}
	e->filter = tep_filter_alloc(w->tep);
	ret = e->filter ? tep_filter_add_filter_str(e->filter, f) : -1;
	free(f);
	if (ret < 0) {
		snprintf(why, len, "bad filter '%s' of %s", c->filter, c->spec);
		return -EINVAL;
	}
	return 0;
}

/* ---- the tables by tid ---- */

static void *slot(const struct table *t, void *e, size_t size, int tid)
{
	size_t i = ((unsigned int)tid * 2654435761u) & (size - 1);
	char *base = e;

	while (*(int *)(base + i * t->esz) && *(int *)(base + i * t->esz) != tid)
		i = (i + 1) & (size - 1);
	return base + i * t->esz;
}

static int table_init(struct table *t, size_t esz)
{
	t->esz = esz;
	t->size = 1024;
	t->e = calloc(t->size, esz);
	return t->e ? 0 : -ENOMEM;
}

/* Twice the slots, the entries moved over; on ENOMEM the table stays. */
static void table_grow(struct table *t)
{
	char *e = calloc(t->size * 2, t->esz), *from = t->e;
	size_t i;

	if (!e)
		return;
	for (i = 0; i < t->size; i++, from += t->esz)
		if (*(int *)from)
			memcpy(slot(t, e, t->size * 2, *(int *)from), from, t->esz);
	free(t->e);
	t->e = e;
	t->size *= 2;
}

/* tid's entry; a new one (zeroed but for tid) when add, else NULL. */
static void *table_get(struct table *t, int tid, bool add)
{
	int *e;

	if (add && t->used * 2 >= t->size)
		table_grow(t);
	e = slot(t, t->e, t->size, tid);
	if (*e || !add)
		return *e ? e : NULL;
	if (t->used + 1 >= t->size)
		return NULL;		/* full, and it could not grow */
	*e = tid;
	t->used++;
	return e;
}

/* ---- the conditions' events ---- */

static void wait_fields(struct kt_watch *w)
{
	struct tep_event *e;

	e = find(w->tep, "sched", "sched_switch", &w->switch_id);
	if (e) {
		w->prev_pid = tep_find_field(e, "prev_pid");
		w->prev_state = tep_find_field(e, "prev_state");
		w->next_pid = tep_find_field(e, "next_pid");
		w->prev_comm = tep_find_field(e, "prev_comm");
		w->next_comm = tep_find_field(e, "next_comm");
		if (!w->prev_pid || !w->prev_state || !w->next_pid)
			w->switch_id = -1;
	}
	e = find(w->tep, "sched", "sched_waking", &w->waking_id);
	if (e) {
		w->waking_pid = tep_find_field(e, "pid");
		w->waking_comm = tep_find_field(e, "comm");
	}
	e = find(w->tep, "sched", "sched_wakeup", &w->wakeup_id);
	if (e) {
		w->wakeup_pid = tep_find_field(e, "pid");
		w->wakeup_comm = tep_find_field(e, "comm");
	}
	e = find(w->tep, "sched", "sched_wakeup_new", &w->wakeup_new_id);
	if (e) {
		w->new_pid = tep_find_field(e, "pid");
		w->new_comm = tep_find_field(e, "comm");
	}
	/* Written after their event, in its task's name: not its own. */
	find(w->tep, "ftrace", "kernel_stack", &w->kstack_id);
	find(w->tep, "ftrace", "user_stack", &w->ustack_id);
}

struct kt_watch *kt_watch_new(struct tep_handle *tep, const struct kt_cond *conds,
			      int n, char *why, size_t len)
{
	struct kt_watch *w = calloc(1, sizeof(*w));
	struct tep_event *en, *ex;
	struct utsname u;
	int i, ret;

	if (!w)
		return NULL;
	w->tep = tep;
	w->conds = conds;
	w->n = n;
	w->ev = calloc(n, sizeof(*w->ev));
	if (!w->ev) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		w->ev[i].id = -1;
		if (conds[i].kind == KT_COND_WAKEUP || conds[i].kind == KT_COND_OFFCPU)
			w->waits = true;
		if (conds[i].kind != KT_COND_EVENT)
			continue;
		ret = event_cond(w, &conds[i], &w->ev[i], why, len);
		if (ret) {
			kt_watch_free(w);
			errno = -ret;
			return NULL;
		}
	}
	en = find(tep, "raw_syscalls", "sys_enter", &w->enter_id);
	ex = find(tep, "raw_syscalls", "sys_exit", &w->exit_id);
	if (en)
		w->enter_nr = tep_find_field(en, "id");
	if (ex) {
		w->exit_nr = tep_find_field(ex, "id");
		w->exit_ret = tep_find_field(ex, "ret");
	}
	wait_fields(w);
	w->oldest = UINT64_MAX;
	if (!uname(&u))
		snprintf(w->machine, sizeof(w->machine), "%s", u.machine);
	if (table_init(&w->calls, sizeof(struct open_call)) ||
	    table_init(&w->tasks, sizeof(struct task))) {
		kt_watch_free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void kt_watch_free(struct kt_watch *w)
{
	int i;

	if (!w)
		return;
	for (i = 0; w->ev && i < w->n; i++)
		if (w->ev[i].filter)
			tep_filter_free(w->ev[i].filter);
	for (i = 0; i < w->nq; i++)
		free(w->q[i].it);
	free(w->q);
	free(w->fires);
	free(w->ev);
	free(w->calls.e);
	free(w->tasks.e);
	free(w);
}

/*
 * The firing event in words: its name, its task and its own text, as
 * report prints it (the engineer reads it in the snapshot's line and in
 * the hook's KTRACE_EVENT; it is data, never run), on one line.
 */
static void describe(struct kt_watch *w, struct tep_record *rec, int i,
		     struct kt_fire *f)
{
	struct trace_seq seq;
	char *nl;

	trace_seq_init(&seq);
	tep_print_event(w->tep, &seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	while ((nl = strchr(seq.buffer, '\n')))
		*nl = ' ';
	for (nl = seq.buffer + strlen(seq.buffer); nl > seq.buffer && nl[-1] == ' ';)
		*--nl = '\0';
	snprintf(f->what, sizeof(f->what), "%s pid %d: %s", w->conds[i].spec,
		 f->pid, seq.state == TRACE_SEQ__GOOD ? seq.buffer : "?");
	trace_seq_destroy(&seq);
}

/* An event condition's event: 1 with *f when it passes its filter. */
static int event_record(struct kt_watch *w, struct tep_record *rec, int type,
			struct kt_fire *f)
{
	int i;

	for (i = 0; i < w->n; i++) {
		if (w->conds[i].kind != KT_COND_EVENT || w->ev[i].id != type)
			continue;
		if (w->ev[i].filter &&
		    tep_filter_match(w->ev[i].filter, rec) != TEP_ERRNO__FILTER_MATCH)
			continue;
		f->cond = i;
		f->ts = f->since = rec->ts;
		f->cpu = rec->cpu;
		f->pid = tep_data_pid(w->tep, rec);
		describe(w, rec, i, f);
		return 1;
	}
	return 0;
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
	struct open_call *c = table_get(&w->calls, tid, false);
	long nr = field(w->exit_nr, rec);
	const char *name;
	char num[32];
	uint64_t took;
	int i, nargs;

	if (!c || c->nr != nr || rec->ts < c->ts) {
		if (c)
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


/* ---- the waits: wakeup>, offcpu> ---- */

static void comm_of(struct tep_format_field *f, struct tep_record *rec, char *out)
{
	size_t n;

	out[0] = '\0';
	if (!f || f->size <= 0 || (long)f->offset + f->size > (long)rec->size)
		return;
	n = f->size < 15 ? (size_t)f->size : 15;
	memcpy(out, (char *)rec->data + f->offset, n);
	out[n] = '\0';
}

static void push_fire(struct kt_watch *w, const struct kt_fire *f)
{
	struct kt_fire *fires;
	size_t i, size;

	if (w->fn == w->fsize) {
		size = w->fsize ? w->fsize * 2 : 16;
		fires = malloc(size * sizeof(*fires));
		if (!fires)
			return;		/* lost, as the kernel loses records */
		for (i = 0; i < w->fn; i++)
			fires[i] = w->fires[(w->fhead + i) % w->fsize];
		free(w->fires);
		w->fires = fires;
		w->fsize = size;
		w->fhead = 0;
	}
	w->fires[(w->fhead + w->fn++) % w->fsize] = *f;
}

int kt_watch_next(struct kt_watch *w, struct kt_fire *f)
{
	if (!w->fn)
		return 0;
	*f = w->fires[w->fhead];
	w->fhead = (w->fhead + 1) % w->fsize;
	w->fn--;
	return 1;
}

static const char *comm_or(const char *comm)
{
	return *comm ? comm : "?";
}

/* t is switched in at it: the first wait condition it held longer. */
static void switched_in(struct kt_watch *w, struct task *t, const struct item *it)
{
	const struct task *waker;
	struct kt_fire f;
	uint64_t d;
	int i;

	for (i = 0; i < w->n; i++) {
		const struct kt_cond *k = &w->conds[i];

		if (k->kind == KT_COND_WAKEUP && t->woken && it->ts - t->woken > k->ns)
			d = it->ts - t->woken;
		else if (k->kind == KT_COND_OFFCPU && t->out && it->ts - t->out > k->ns)
			d = it->ts - t->out;
		else
			continue;
		memset(&f, 0, sizeof(f));
		f.cond = i;
		f.ts = it->ts;
		f.cpu = it->cpu;
		f.pid = t->tid;
		f.since = it->ts - d;
		waker = t->woken ? table_get(&w->tasks, t->waker, false) : NULL;
		if (k->kind == KT_COND_WAKEUP)
			snprintf(f.what, sizeof(f.what),
				 "sched:sched_switch pid %d: %s woken by pid %d (%s) waited %llu.%06llu ms for cpu %d",
				 t->tid, comm_or(t->comm), t->waker,
				 comm_or(waker ? waker->comm : ""),
				 (unsigned long long)d / 1000000,
				 (unsigned long long)d % 1000000, it->cpu);
		else if (t->woken)
			snprintf(f.what, sizeof(f.what),
				 "sched:sched_switch pid %d: %s blocked (%c) %llu.%06llu ms, woken by pid %d (%s), on cpu %d",
				 t->tid, comm_or(t->comm), t->sleep,
				 (unsigned long long)d / 1000000,
				 (unsigned long long)d % 1000000, t->waker,
				 comm_or(waker ? waker->comm : ""), it->cpu);
		else
			snprintf(f.what, sizeof(f.what),
				 "sched:sched_switch pid %d: %s blocked (%c) %llu.%06llu ms, on cpu %d",
				 t->tid, comm_or(t->comm), t->sleep,
				 (unsigned long long)d / 1000000,
				 (unsigned long long)d % 1000000, it->cpu);
		push_fire(w, &f);
		return;
	}
}

/* A task's own event: it is on a CPU, whatever the waits thought. */
static void own(struct kt_watch *w, int pid)
{
	struct task *t = table_get(&w->tasks, pid, false);

	/* A wait whose switch in was dropped: forgotten (runs.h's rule). */
	if (t && (t->st == T_RUNNABLE || t->st == T_ASLEEP)) {
		t->st = T_RUNNING;
		t->woken = t->out = 0;
	}
}

static char sleep_letter(unsigned long long state)
{
	static const char letters[] = "SDTtXZPI";
	int i;

	for (i = 0; i < 8; i++)
		if (state & (1ULL << i))
			return letters[i];
	return '?';
}

/* One held item, in time order: analyze sched's and offcpu's states. */
static void take(struct kt_watch *w, const struct item *it)
{
	struct task *t;

	switch (it->kind) {
	case I_OWN:
		own(w, it->pid);
		return;
	case I_WAKE:
	case I_WAKE_NEW:
		own(w, it->other);
		t = table_get(&w->tasks, it->pid, true);
		if (!t)
			return;
		if (it->comm[0])
			memcpy(t->comm, it->comm, sizeof(t->comm));
		if (it->kind == I_WAKE_NEW)
			t->out = 0;	/* a new task (maybe a tid again): not blocked */
		/* Running (a wakeup that raced its sleep) or woken already. */
		if (t->st == T_RUNNING || t->st == T_RUNNABLE)
			return;
		t->st = T_RUNNABLE;
		t->woken = it->ts;
		t->waker = it->other;
		return;
	case I_SWITCH:
		if (it->pid > 0 && (t = table_get(&w->tasks, it->pid, true))) {
			if (it->comm[0])
				memcpy(t->comm, it->comm, sizeof(t->comm));
			t->woken = t->out = 0;
			/* R (0) or R+ (preempted): runnable; else blocked. */
			if (it->state & 0xff) {
				t->st = T_ASLEEP;
				t->out = it->ts;
				t->sleep = sleep_letter(it->state);
			} else {
				t->st = T_RUNNABLE;
			}
		}
		if (it->other > 0 && (t = table_get(&w->tasks, it->other, true))) {
			if (it->comm2[0])
				memcpy(t->comm, it->comm2, sizeof(t->comm));
			if (t->st == T_RUNNABLE || t->st == T_ASLEEP)
				switched_in(w, t, it);
			t->st = T_RUNNING;
			t->woken = t->out = 0;
		}
		return;
	}
}

/* The held items up to limit, oldest first across the CPUs. */
static void release(struct kt_watch *w, uint64_t limit)
{
	struct queue *q, *pick;
	uint64_t ts;
	int i;

	/* Most records release nothing: no scan of the CPUs then. */
	if (w->oldest > limit)
		return;
	for (;;) {
		pick = NULL;
		w->oldest = UINT64_MAX;
		for (i = 0; i < w->nq; i++) {
			q = &w->q[i];
			if (!q->n)
				continue;
			ts = q->it[q->head].ts;
			if (ts < w->oldest)
				w->oldest = ts;
			if (ts <= limit && (!pick || ts < pick->it[pick->head].ts))
				pick = q;
		}
		if (!pick)
			return;
		take(w, &pick->it[pick->head]);
		pick->head = (pick->head + 1) % pick->size;
		pick->n--;
	}
}

void kt_watch_now(struct kt_watch *w, uint64_t now)
{
	if (now > HOLD_NS)
		release(w, now - HOLD_NS);
}

void kt_watch_end(struct kt_watch *w)
{
	release(w, UINT64_MAX);
}

/* A place for cpu's next item, or NULL (it is taken at once). */
static struct item *hold(struct kt_watch *w, int cpu)
{
	struct queue *q;
	struct item *it;
	size_t i, size;

	if (cpu < 0 || cpu >= 4096)
		return NULL;
	if (cpu >= w->nq) {
		q = realloc(w->q, (cpu + 1) * sizeof(*q));
		if (!q)
			return NULL;
		memset(q + w->nq, 0, (cpu + 1 - w->nq) * sizeof(*q));
		w->q = q;
		w->nq = cpu + 1;
	}
	q = &w->q[cpu];
	if (q->n == q->size) {
		size = q->size ? q->size * 2 : 256;
		it = malloc(size * sizeof(*it));
		if (!it)
			return NULL;
		for (i = 0; i < q->n; i++)
			it[i] = q->it[(q->head + i) % q->size];
		free(q->it);
		q->it = it;
		q->size = size;
		q->head = 0;
	}
	return &q->it[(q->head + q->n) % q->size];
}

/* The record as the waits read it, held (or taken at once: ENOMEM). */
static void wait_record(struct kt_watch *w, struct tep_record *rec, int type, int pid)
{
	struct item one, *it = hold(w, rec->cpu);
	struct tep_format_field *pf = NULL, *cf = NULL;
	struct queue *q;

	if (!it)
		it = &one;
	memset(it, 0, sizeof(*it));
	it->ts = rec->ts;
	it->cpu = rec->cpu;
	if (type == w->switch_id) {
		it->kind = I_SWITCH;
		it->pid = (int)field(w->prev_pid, rec);
		it->other = (int)field(w->next_pid, rec);
		it->state = (unsigned long long)field(w->prev_state, rec);
		comm_of(w->prev_comm, rec, it->comm);
		comm_of(w->next_comm, rec, it->comm2);
	} else if (type == w->waking_id || type == w->wakeup_id ||
		   type == w->wakeup_new_id) {
		it->kind = type == w->wakeup_new_id ? I_WAKE_NEW : I_WAKE;
		pf = type == w->waking_id ? w->waking_pid :
		     type == w->wakeup_id ? w->wakeup_pid : w->new_pid;
		cf = type == w->waking_id ? w->waking_comm :
		     type == w->wakeup_id ? w->wakeup_comm : w->new_comm;
		it->pid = (int)field(pf, rec);
		it->other = pid;
		comm_of(cf, rec, it->comm);
		if (it->pid <= 0)
			return;
	} else {
		if (pid <= 0 || type == w->kstack_id || type == w->ustack_id)
			return;
		/* Unknown to the formats: it may be a stack, not evidence. */
		if ((w->kstack_id < 0 || w->ustack_id < 0) && !tep_find_event(w->tep, type))
			return;
		q = it == &one ? NULL : &w->q[rec->cpu];
		/* The same task's own again on this CPU: it says no more. */
		if (q && q->n) {
			struct item *last = &q->it[(q->head + q->n - 1) % q->size];

			if (last->kind == I_OWN && last->pid == pid)
				return;
		}
		it->kind = I_OWN;
		it->pid = pid;
	}
	if (it == &one) {
		release(w, rec->ts);
		take(w, it);
		return;
	}
	w->q[rec->cpu].n++;
	if (it->ts < w->oldest)
		w->oldest = it->ts;
}

int kt_watch_record(struct kt_watch *w, struct tep_record *rec, struct kt_fire *f)
{
	int type = tep_data_type(w->tep, rec), tid;
	struct open_call *c;

	tid = w->waits || type == w->enter_id || type == w->exit_id ?
	      tep_data_pid(w->tep, rec) : 0;
	if (w->waits) {
		wait_record(w, rec, type, tid);
		if (rec->ts > w->newest)
			w->newest = rec->ts;
		if (w->newest > HOLD_NS)
			release(w, w->newest - HOLD_NS);
	}
	if (event_record(w, rec, type, f))
		return 1;
	if (type != w->enter_id && type != w->exit_id)
		return 0;
	if (tid <= 0)
		return 0;
	if (type == w->exit_id)
		return call_exit(w, rec, tid, f);
	c = table_get(&w->calls, tid, true);
	if (!c)
		return 0;
	c->nr = field(w->enter_nr, rec);
	c->ts = rec->ts;
	return 0;
}
