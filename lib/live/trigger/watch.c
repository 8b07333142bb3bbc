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
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "decode/symbols.h"
#include "file/tepcheck.h"
#include "live/trigger/waits.h"
#include "live/trigger/watch.h"

struct open_call {
	int tid;			/* 0: a free slot */
	long nr;
	uint64_t ts;
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
	struct open_call *calls;
	size_t size, used;		/* size: a power of two */
	char machine[65];
	struct kt_waits *waits;		/* wakeup>, offcpu> (NULL: none) */
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
		if ((conds[i].kind == KT_COND_WAKEUP || conds[i].kind == KT_COND_OFFCPU) &&
		    !w->waits && !(w->waits = kt_waits_new(tep, conds, n))) {
			if (errno == EINVAL)
				snprintf(why, len, "no sched:sched_switch in the recording's formats for '%s'",
					 conds[i].text);
			ret = errno;
			kt_watch_free(w);
			errno = ret;
			return NULL;
		}
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
	if (!uname(&u))
		snprintf(w->machine, sizeof(w->machine), "%s", u.machine);
	w->size = 1024;
	w->calls = calloc(w->size, sizeof(*w->calls));
	if (!w->calls) {
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
	free(w->ev);
	free(w->calls);
	kt_waits_free(w->waits);
	free(w);
}

int kt_watch_scope(struct kt_watch *w, const pid_t *roots, int n, bool children)
{
	return w->waits ? kt_waits_scope(w->waits, roots, n, children) : 0;
}

int kt_watch_next(struct kt_watch *w, uint64_t now, struct kt_fire *f)
{
	return w->waits ? kt_waits_next(w->waits, now, f) : 0;
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

	if (w->waits)
		kt_waits_record(w->waits, type, rec);
	if (event_record(w, rec, type, f))
		return 1;
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
