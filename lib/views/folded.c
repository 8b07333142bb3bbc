// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks of the file's kernel_stack and user_stack records.  See
 * folded.h.
 */
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/collect.h"
#include "file/reader.h"
#include "decode/kstack.h"
#include "decode/ustack.h"
#include "views/folded.h"

/* One distinct stack (its text, "comm;outer;...;inner") and its count. */
struct stack {
	char *key;
	unsigned long long count;
};

/* A task switched out with its stack, waiting to be switched back in. */
struct off {
	int pid;
	unsigned long long ts;
	struct stack *st;
};

/* A stack's frames as text, ";outer;...;inner". */
struct part {
	char *s;
	size_t len, cap;
};

/*
 * The last event on a CPU: the one the kernel_stack and user_stack that
 * follow belong to, and what they have given so far.
 */
struct last {
	bool valid;
	bool selected;
	bool is_switch;
	bool has_k, has_u;		/* its kernel, its user stack seen */
	int pid;			/* the event's task; prev_pid for a switch */
	unsigned long long ts;
	char comm[32];			/* prev_comm for a switch */
	struct part k, u;		/* their frames */
	struct stack *st;		/* where the event counts so far */
};

struct kt_folded {
	struct tep_handle *tep;
	enum kt_folded_mode mode;
	struct kt_ustack *ustack;	/* names user frames; NULL: addresses */
	void *stacks;			/* tsearch tree of struct stack */
	size_t nstacks;
	void *offs;			/* tsearch tree of struct off, by pid */
	struct last **last;		/* per buffer, per CPU */
	int *ncpus;			/* of each buffer's */
	int nbufs;
	struct kt_folded_stats st;
	char *buf;			/* the key being built */
	size_t cap;
};

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->key, ((const struct stack *)b)->key);
}

static int cmp_off(const void *a, const void *b)
{
	const struct off *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

struct kt_folded *kt_folded_new(struct tep_handle *tep, enum kt_folded_mode mode)
{
	struct kt_folded *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->tep = tep;
	f->mode = mode;
	return f;
}

int kt_folded_name_users(struct kt_folded *f, struct kt_reader *r)
{
	if (!tep_find_event_by_name(f->tep, "ftrace", "user_stack"))
		return 0;
	kt_ustack_free(f->ustack);
	f->ustack = kt_ustack_new(r);
	return f->ustack || errno == ENOENT ? 0 : -errno;
}

/* Buffer b's CPU cpu: a stack follows its event in the same buffer. */
static struct last *last_of(struct kt_folded *f, int b, int cpu)
{
	struct last **lb, *l;
	int *nc;

	if (cpu < 0 || cpu > 65535 || b < 0 || b > 65535)
		return NULL;
	if (b >= f->nbufs) {
		lb = realloc(f->last, (size_t)(b + 1) * sizeof(*lb));
		if (!lb)
			return NULL;
		f->last = lb;
		nc = realloc(f->ncpus, (size_t)(b + 1) * sizeof(*nc));
		if (!nc)
			return NULL;
		f->ncpus = nc;
		memset(lb + f->nbufs, 0, (size_t)(b + 1 - f->nbufs) * sizeof(*lb));
		memset(nc + f->nbufs, 0, (size_t)(b + 1 - f->nbufs) * sizeof(*nc));
		f->nbufs = b + 1;
	}
	if (cpu >= f->ncpus[b]) {
		l = realloc(f->last[b], (size_t)(cpu + 1) * sizeof(*l));
		if (!l)
			return NULL;
		memset(l + f->ncpus[b], 0, (size_t)(cpu + 1 - f->ncpus[b]) * sizeof(*l));
		f->last[b] = l;
		f->ncpus[b] = cpu + 1;
	}
	return &f->last[b][cpu];
}

static bool field_num(struct tep_event *e, struct tep_record *rec,
		      const char *name, unsigned long long *v)
{
	struct tep_format_field *fld = tep_find_field(e, name);

	return fld && !tep_read_number_field(fld, rec->data, v);
}

static void field_str(struct tep_event *e, struct tep_record *rec,
		      const char *name, char *out, size_t len)
{
	struct tep_format_field *fld = tep_find_field(e, name);
	size_t n = 0;

	if (fld && fld->offset >= 0 && fld->size > 0 &&
	    fld->offset + fld->size <= rec->size) {
		const char *s = (const char *)rec->data + fld->offset;

		while (n + 1 < len && n < (size_t)fld->size && s[n])
			n++;
		memcpy(out, s, n);
	}
	out[n] = '\0';
}

/* Remember ev as the event a following kernel_stack belongs to. */
static void note_event(struct kt_folded *f, const struct kt_event *ev, struct last *l)
{
	struct tep_record *rec = ev->record;
	unsigned long long v;
	const char *comm;

	l->valid = true;
	l->has_k = l->has_u = false;
	l->k.len = l->u.len = 0;
	l->st = NULL;
	l->selected = ev->selected;
	l->ts = rec->ts;
	l->is_switch = !strcmp(ev->event->name, "sched_switch");
	if (l->is_switch && field_num(ev->event, rec, "prev_pid", &v)) {
		l->pid = (int)v;
		field_str(ev->event, rec, "prev_comm", l->comm, sizeof(l->comm));
		return;
	}
	l->is_switch = false;
	l->pid = tep_data_pid(f->tep, rec);
	comm = tep_data_comm_from_pid(f->tep, l->pid);
	snprintf(l->comm, sizeof(l->comm), "%s", comm ? comm : "<...>");
}

/* The tracing machinery's own frames, at the inner end of every stack. */
static bool tracing_frame(const char *name)
{
	static const char *const prefixes[] = {
		"trace_event_raw_event_", "__traceiter_", "perf_trace_",
		"__bpf_trace_", "trace_call_bpf",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Append s to p, with ';' and ' ' (which would cut a line) as '_'. */
static int put(struct part *p, const char *s, bool clean)
{
	size_t n = strlen(s), i;

	if (p->len + n + 2 > p->cap) {
		size_t cap = (p->len + n + 2) * 2;
		char *b = realloc(p->s, cap);

		if (!b)
			return -ENOMEM;
		p->s = b;
		p->cap = cap;
	}
	memcpy(p->s + p->len, s, n + 1);
	for (i = 0; clean && i < n; i++)
		if (p->s[p->len + i] == ';' || p->s[p->len + i] == ' ')
			p->s[p->len + i] = '_';
	p->len += n;
	return 0;
}

static int put_frame(struct part *p, const char *name)
{
	int ret = put(p, ";", false);

	return ret ? ret : put(p, name, true);
}

/*
 * p = ";outer;...;inner" of a kernel_stack record: its caller array holds
 * the frames the kernel had, innermost first, up to the record's end or
 * a -1 (ULONG_MAX) end mark, as libtraceevent reads it.
 */
static int kernel_part(struct kt_folded *f, const struct kt_event *ev, struct part *p)
{
	unsigned long long v[KT_KSTACK_MAX];
	int i, n, first, ret = 0;
	char hex[24];

	n = kt_kstack_read(f->tep, ev->event, ev->record, v, KT_KSTACK_MAX, true);
	if (n < 0)
		return n;
	/* Past the tracing machinery's frames, at the inner end. */
	for (first = 0; first < n; first++) {
		const char *name = tep_find_function(f->tep, v[first]);

		if (!name || !tracing_frame(name))
			break;
	}
	p->len = 0;
	/* Outermost first, as flame graph tools read them. */
	for (i = n - 1; !ret && i >= first; i--) {
		const char *name = tep_find_function(f->tep, v[i]);

		if (!name) {
			snprintf(hex, sizeof(hex), "0x%llx", v[i]);
			name = hex;
		}
		ret = put_frame(p, name);
	}
	return ret;
}

/*
 * p = ";outer;...;inner" of a user_stack record: its caller array, the
 * innermost first, ends at the first 0 (the kernel zeroes what the walk
 * did not reach).  A frame is named by its function; without one, by
 * its file's base name and the offset there ("libc.so.6+0x29d90");
 * outside every mapping the file knows (or with no maps), by its
 * address ("0x7f0a12345678").
 */
static int user_part(struct kt_folded *f, const struct kt_event *ev, struct part *p)
{
	unsigned long long v[KT_USTACK_MAX], tgid;
	struct tep_format_field *ft;
	char name[64];
	int i, n, ret = 0;

	n = kt_kstack_read(f->tep, ev->event, ev->record, v, KT_USTACK_MAX, true);
	if (n < 0)
		return n;
	for (i = 0; i < n && v[i]; i++)
		;
	n = i;
	ft = tep_find_field(ev->event, "tgid");
	if (!ft || tep_read_number_field(ft, ev->record->data, &tgid))
		tgid = (unsigned long long)tep_data_pid(f->tep, ev->record);
	p->len = 0;
	for (i = n - 1; !ret && i >= 0; i--) {
		struct kt_uframe u = { 0 };
		const char *base;

		if (f->ustack)
			kt_ustack_frame(f->ustack, (int)tgid, ev->record->ts, v[i], &u);
		if (u.sym) {
			ret = put_frame(p, u.sym);
			continue;
		}
		if (u.path) {
			base = strrchr(u.path, '/');
			snprintf(name, sizeof(name), "%s+0x%llx", base ? base + 1 : u.path,
				 (unsigned long long)u.off);
		} else {
			snprintf(name, sizeof(name), "0x%llx", v[i]);
		}
		ret = put_frame(p, name);
	}
	return ret;
}

/* Room for need bytes in f->buf.  0 or -ENOMEM. */
static int key_room(struct kt_folded *f, size_t need)
{
	char *b;

	if (need <= f->cap)
		return 0;
	b = realloc(f->buf, need * 2);
	if (!b)
		return -ENOMEM;
	f->buf = b;
	f->cap = need * 2;
	return 0;
}

/* f->buf = "comm;user frames;kernel frames", outer to inner. */
static int stack_key(struct kt_folded *f, const struct last *l)
{
	const char *comm = *l->comm ? l->comm : "<...>";
	size_t n = strlen(comm), need = n + l->u.len + l->k.len + 1;

	if (key_room(f, need))
		return -ENOMEM;
	memcpy(f->buf, comm, n);
	if (l->u.len)
		memcpy(f->buf + n, l->u.s, l->u.len);
	if (l->k.len)
		memcpy(f->buf + n + l->u.len, l->k.s, l->k.len);
	f->buf[need - 1] = '\0';
	return 0;
}

/* The entry of f->buf's stack, made with count 0 when new. */
static struct stack *stack_get(struct kt_folded *f)
{
	struct stack probe = { .key = f->buf }, *s, **found;

	found = tfind(&probe, &f->stacks, cmp_stack);
	if (found)
		return *found;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->key = strdup(f->buf);
	found = s->key ? tsearch(s, &f->stacks, cmp_stack) : NULL;
	if (!found) {
		free(s->key);
		free(s);
		return NULL;
	}
	f->nstacks++;
	return s;
}

int kt_folded_put(struct kt_folded *f, const char *key, unsigned long long count)
{
	size_t need = strlen(key) + 1;
	struct stack *s;

	if (key_room(f, need))
		return -ENOMEM;
	memcpy(f->buf, key, need);
	s = stack_get(f);
	if (!s)
		return -ENOMEM;
	s->count += count;
	return 0;
}

/*
 * The task is back on a CPU: its stack gets the time it was off.
 * Returns whether it was off.
 */
static bool switched_in(struct kt_folded *f, int pid, unsigned long long ts)
{
	struct off probe = { .pid = pid }, **found, *o;

	found = tfind(&probe, &f->offs, cmp_off);
	if (!found)
		return false;
	o = *found;
	if (ts > o->ts)
		o->st->count += (ts - o->ts) / 1000;
	tdelete(&probe, &f->offs, cmp_off);
	free(o);
	return true;
}

static int switched_out(struct kt_folded *f, int pid, unsigned long long ts,
			struct stack *st)
{
	struct off probe = { .pid = pid }, **found, *o;

	found = tfind(&probe, &f->offs, cmp_off);
	if (found) {
		/* Out again with no event of its own between: the newer. */
		(*found)->ts = ts;
		(*found)->st = st;
		return 0;
	}
	o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	*o = (struct off){ .pid = pid, .ts = ts, .st = st };
	if (!tsearch(o, &f->offs, cmp_off)) {
		free(o);
		return -ENOMEM;
	}
	return 0;
}

/* The task off since its switch with stack was: now with st. */
static int repoint(struct kt_folded *f, int pid, struct stack *was, struct stack *st)
{
	struct off probe = { .pid = pid }, **found;

	found = tfind(&probe, &f->offs, cmp_off);
	if (found && (*found)->st == was)
		(*found)->st = st;
	return 0;
}

/* Stacks are written after their event, for the same task. */
static bool after_the_fact(const struct kt_event *ev)
{
	return !strcmp(ev->event->system, "ftrace") &&
	       (!strcmp(ev->event->name, "user_stack") ||
		!strcmp(ev->event->name, "kernel_stack"));
}

int kt_folded_add(const struct kt_event *ev, void *arg)
{
	struct kt_folded *f = arg;
	struct tep_record *rec = ev->record;
	struct last *l = last_of(f, ev->buffer, ev->cpu);
	struct stack *st, *was;
	unsigned long long v;
	bool user;
	int ret;

	if (!l)
		return -ENOMEM;
	if (rec->missed_events > 0)
		f->st.lost += (unsigned long long)rec->missed_events;
	else if (rec->missed_events < 0)
		f->st.lost_unknown = true;
	if (!after_the_fact(ev)) {
		/* A switch puts next_pid back: its time off ends here. */
		if (f->mode == KT_FOLDED_OFFCPU &&
		    !strcmp(ev->event->name, "sched_switch") &&
		    field_num(ev->event, rec, "next_pid", &v))
			switched_in(f, (int)v, rec->ts);
		/*
		 * An event of a task still off runs on its behalf: the switch
		 * that put it back is missing.  Some kernels drop records
		 * around idle without counting them (seen on 6.18 guests);
		 * its time off ends here, at the latest it can have, and the
		 * miss is counted so that report says so.
		 */
		if (f->mode == KT_FOLDED_OFFCPU) {
			int pid = tep_data_pid(f->tep, rec);

			if (pid > 0 && switched_in(f, pid, rec->ts))
				f->st.missed_ins++;
		}
		note_event(f, ev, l);
		return 0;
	}
	/*
	 * A stack: of the last event on this CPU, one of each kind.  Its
	 * kernel and user stacks follow it in either order (-T writes the
	 * kernel's first, --stack EVENT's trigger after --user-stack's), so
	 * the event counts as soon as one is seen and moves to the joined
	 * stack when the other comes.
	 */
	user = !strcmp(ev->event->name, "user_stack");
	if (!l->valid || !l->selected ||
	    (f->mode == KT_FOLDED_OFFCPU && !l->is_switch) ||
	    (user ? l->has_u : l->has_k))
		return 0;
	ret = user ? user_part(f, ev, &l->u) : kernel_part(f, ev, &l->k);
	if (ret == -EINVAL)
		return 0;
	if (ret)
		return ret;
	if (user) {
		l->has_u = true;
		f->st.ustacks++;
	} else {
		l->has_k = true;
		f->st.stacks++;
	}
	ret = stack_key(f, l);
	if (ret)
		return ret;
	st = stack_get(f);
	if (!st)
		return -ENOMEM;
	was = l->st;
	l->st = st;
	if (f->mode == KT_FOLDED_EVENTS) {
		if (was)
			was->count--;
		st->count++;
		return 0;
	}
	/* The idle task is never "off": pid 0 is every CPU's. */
	if (!l->pid)
		return 0;
	return was ? repoint(f, l->pid, was, st) : switched_out(f, l->pid, l->ts, st);
}

static int cmp_count(const void *a, const void *b, void *arg)
{
	const struct stack *x = *(struct stack *const *)a, *y = *(struct stack *const *)b;

	(void)arg;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

int kt_folded_each(struct kt_folded *f, kt_folded_fn fn, void *arg)
{
	struct stack **v;
	void **rows;
	size_t i, n;
	int ret;

	ret = kt_collect_rows(f->stacks, f->nstacks, &(struct kt_collect){ .cmp = cmp_count },
			      &rows, &n);
	if (ret)
		return ret;
	v = (struct stack **)rows;
	for (i = 0; !ret && i < n; i++)
		if (v[i]->count)
			ret = fn(v[i]->key, v[i]->count, arg);
	free(v);
	return ret;
}

static int write_line(const char *key, unsigned long long count, void *arg)
{
	fprintf(arg, "%s %llu\n", key, count);
	return 0;
}

int kt_folded_write(struct kt_folded *f, FILE *out)
{
	int ret = kt_folded_each(f, write_line, out);

	return ret ? ret : ferror(out) ? -EIO : 0;
}

void kt_folded_stats(const struct kt_folded *f, struct kt_folded_stats *st)
{
	*st = f->st;
}

static void free_stack(void *p)
{
	struct stack *s = p;

	free(s->key);
	free(s);
}

void kt_folded_free(struct kt_folded *f)
{
	int i, c;

	if (!f)
		return;
	kt_ustack_free(f->ustack);
	tdestroy(f->stacks, free_stack);
	tdestroy(f->offs, free);
	for (i = 0; i < f->nbufs; i++) {
		for (c = 0; c < f->ncpus[i]; c++) {
			free(f->last[i][c].k.s);
			free(f->last[i][c].u.s);
		}
		free(f->last[i]);
	}
	free(f->last);
	free(f->ncpus);
	free(f->buf);
	free(f);
}
