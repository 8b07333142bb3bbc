// SPDX-License-Identifier: GPL-2.0
/*
 * The evaluation of trigger conditions on records (watch.h): each
 * thread's open system call in a table by tid (open addressing), the
 * event ids and field offsets looked up once.  A record is dispatched
 * by its common_type, read at its offset, through one table of what
 * each event id is wanted for (want[]): a record no condition reads
 * costs that read and nothing else, and the fields of the rest are read
 * at their offsets, not through libtraceevent's lookups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "base/tidtab.h"
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

/* What a record of an event id is read for (want[id], bits). */
#define WANT_EVENT	1		/* an event condition's event */
#define WANT_SYSCALL	2		/* sys_enter or sys_exit */
#define WANT_IDS	65536		/* common_type is 16 bits */

/* A field's place in a record; size 0: absent (reads as -1). */
struct place {
	unsigned int off, size;
};

struct kt_watch {
	struct tep_handle *tep;
	const struct kt_cond *conds;
	int n;
	struct event_cond *ev;		/* per condition */
	unsigned char *want;		/* per event id: WANT_* */
	struct place type, pid;		/* common_type, common_pid */
	int enter_id, exit_id;
	struct place enter_nr, exit_nr, exit_ret;
	struct kt_tidtab calls;		/* struct open_call */
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

/* Field f's place, if it is a number read whole (1, 2, 4 or 8 bytes). */
static struct place place_of(const struct tep_format_field *f)
{
	struct place p = { 0, 0 };

	if (f && f->offset >= 0 && !(f->flags & TEP_FIELD_IS_ARRAY) &&
	    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
		p.off = (unsigned int)f->offset;
		p.size = (unsigned int)f->size;
	}
	return p;
}

/* The number at p in a record of size bytes, sign-extended; -1 if absent. */
static long long read_at(struct place p, const void *data, int size)
{
	const unsigned char *d = data;
	int8_t v1;
	int16_t v2;
	int32_t v4;
	int64_t v8;

	if (!p.size || p.off + p.size > (unsigned int)size)
		return -1;
	switch (p.size) {
	case 1:
		memcpy(&v1, d + p.off, 1);
		return v1;
	case 2:
		memcpy(&v2, d + p.off, 2);
		return v2;
	case 4:
		memcpy(&v4, d + p.off, 4);
		return v4;
	default:
		memcpy(&v8, d + p.off, 8);
		return v8;
	}
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

/*
 * Where every record has common_type and common_pid: as libtraceevent
 * reads them, from the first event's common fields.  Without them no
 * record is read (type 0 names no event).
 */
static void common(struct kt_watch *w)
{
	struct tep_event **evs = tep_list_events(w->tep, TEP_EVENT_SORT_ID);

	if (!evs || !evs[0])
		return;
	w->type = place_of(tep_find_common_field(evs[0], "common_type"));
	w->pid = place_of(tep_find_common_field(evs[0], "common_pid"));
	if (w->type.size > 2)
		w->type.size = 0;
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
	w->want = calloc(WANT_IDS, 1);
	if (!w->want) {
		kt_watch_free(w);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (w->ev[i].id >= 0 && w->ev[i].id < WANT_IDS)
			w->want[w->ev[i].id] |= WANT_EVENT;
	en = find(tep, "raw_syscalls", "sys_enter", &w->enter_id);
	ex = find(tep, "raw_syscalls", "sys_exit", &w->exit_id);
	if (en) {
		w->enter_nr = place_of(tep_find_field(en, "id"));
		if (en->id < WANT_IDS)
			w->want[en->id] |= WANT_SYSCALL;
	}
	if (ex) {
		w->exit_nr = place_of(tep_find_field(ex, "id"));
		w->exit_ret = place_of(tep_find_field(ex, "ret"));
		if (ex->id < WANT_IDS)
			w->want[ex->id] |= WANT_SYSCALL;
	}
	common(w);
	if (!uname(&u))
		snprintf(w->machine, sizeof(w->machine), "%s", u.machine);
	if (kt_tidtab_init(&w->calls, sizeof(struct open_call))) {
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
	free(w->want);
	kt_tidtab_fini(&w->calls);
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

static int call_exit(struct kt_watch *w, struct tep_record *rec, int tid,
		   struct kt_fire *f)
{
	struct open_call *c = kt_tidtab_find(&w->calls, tid);
	long nr = (long)read_at(w->exit_nr, rec->data, rec->size);
	const char *name;
	char num[32];
	uint64_t took;
	int i, nargs;

	/*
	 * The sink reads CPU by CPU: a task that moved leaves records on
	 * the CPU it left that may come after its newer ones here.  An
	 * exit older than the call open now is such a record: it says
	 * nothing of that call, which stays open for its own exit.
	 */
	if (!c->tid || rec->ts < c->ts)
		return 0;
	if (c->nr != nr) {
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
			 tid, name, read_at(w->exit_ret, rec->data, rec->size),
			 (unsigned long long)took / 1000000,
			 (unsigned long long)took % 1000000);
		return 1;
	}
	return 0;
}

int kt_watch_record(struct kt_watch *w, struct tep_record *rec, struct kt_fire *f)
{
	/* common_type is unsigned: 1 or 2 bytes read as such. */
	long long type = read_at(w->type, rec->data, rec->size) &
			 (w->type.size == 1 ? 0xff : 0xffff);
	struct open_call *c;
	unsigned char want;
	int tid;

	/* Every record: a record of a task's own shows it ran (waits.h). */
	if (w->waits)
		kt_waits_record(w->waits, type, rec);
	/* The dispatch: what this event id is wanted for, if anything. */
	want = w->type.size ? w->want[type] : 0;
	if (!want)
		return 0;
	if ((want & WANT_EVENT) && event_record(w, rec, (int)type, f))
		return 1;
	if (!(want & WANT_SYSCALL))
		return 0;
	tid = (int)read_at(w->pid, rec->data, rec->size);
	if (tid <= 0)
		return 0;
	if (type == w->exit_id)
		return call_exit(w, rec, tid, f);
	c = kt_tidtab_get(&w->calls, tid);
	if (!c)
		return 0;	/* no room (no memory to grow): the call is not timed */
	/*
	 * An enter older than the task's last one came late from the CPU
	 * it left (see call_exit): its call ended long since, and timed
	 * from it the next exit of that number would seem to take for ever.
	 */
	if (rec->ts < c->ts)
		return 0;
	c->nr = (long)read_at(w->enter_nr, rec->data, rec->size);
	c->ts = rec->ts;
	return 0;
}
