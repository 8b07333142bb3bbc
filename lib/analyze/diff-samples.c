// SPDX-License-Identifier: GPL-2.0
/*
 * The durations ktrace diff compares.  See diff-samples.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/diff-samples.h"
#include "analyze/evcache.h"
#include "analyze/pidmap.h"
#include "analyze/rows.h"
#include "decode/kstack.h"
#include "decode/symbols.h"

enum kind {
	K_OTHER, K_SWITCH, K_STACK, K_AFTER, K_RAW_ENTER, K_RAW_EXIT,
	K_SYS_ENTER, K_SYS_EXIT, K_IRQ_IN, K_IRQ_OUT, K_SOFT_IN, K_SOFT_OUT,
};
enum tstate { T_UNKNOWN, T_RUNNING, T_RUNNABLE, T_OFF };

struct evinfo {
	int id;
	enum kind kind;
	struct kt_switch_fields sw;
	struct tep_format_field *f;	/* id, irq or vec */
	struct tep_format_field *name;	/* irq_handler_entry's */
	const char *call;		/* syscalls:sys_enter_NAME's NAME */
};

struct dtask {
	int pid;
	bool own;			/* an event of its own, not a switch */
	enum tstate st;
	unsigned long long since;	/* of the run or the stretch off */
	uint32_t off_key;		/* the stretch's reason */
	char state;			/* 'S', 'D' or 'O' while off */
	const char *call;		/* the system call it is in, or NULL */
	uint32_t call_key;		/* its key + 1, 0: none */
	unsigned long long call_since;
	unsigned long long call_dev;	/* its time off in D so far */
	uint32_t comm_key;		/* + 1, 0: none yet */
	char comm[16];
};

/* A CPU: its last switch (a stack after it is its), and interrupts in. */
struct dcpu {
	bool after_switch;
	int prev;
	uint32_t irq_key, soft_key;	/* + 1, 0: none in */
	unsigned long long irq_since, soft_since;
	unsigned long long irq;
};

struct sample {
	uint32_t key;
	int pid;
	unsigned long long ns, dev;
	unsigned long long end;		/* its time: the record's that ends it */
	bool late;			/* in the key's second half by time */
};

struct key {
	enum kt_diff_kind kind;
	char *name;
};

struct kt_samples {
	struct tep_handle *tep;
	const char *machine;
	struct kt_evcache evs;
	struct kt_pidmap tasks;		/* struct dtask */
	struct kt_percpu cpus;		/* struct dcpu */
	struct key *keys;
	size_t nkeys, capkeys;
	uint32_t *hash;			/* key + 1 by hash, 0: empty */
	size_t hsize;
	uint32_t *by_nr;		/* raw_syscalls: key + 1 by nr */
	size_t nby_nr;
	struct sample *v;
	size_t n, cap;
	bool own_only;			/* a recording of some tasks only */
	bool others;			/* events that are not switches */
	unsigned int has;
	unsigned long long lost;
	bool lost_unknown;
	struct kt_sample_set *sets;
	size_t nsets;
	unsigned long long *vals;	/* the sets' v, then their halves */
};

const char *kt_diff_kind_name(enum kt_diff_kind k)
{
	static const char *const names[] = { "task", "syscall", "offcpu", "irq", "softirq" };

	return k < KT_DIFF_NKINDS ? names[k] : "?";
}

static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;
	const char *sys = e->system, *name = e->name;

	if (!sys || !name)
		return;
	if (kt_switch_fields_find(e, &in->sw)) {
		in->kind = K_SWITCH;
	} else if (!strcmp(sys, "ftrace") && !strcmp(name, "kernel_stack")) {
		in->kind = K_STACK;
	} else if (!strcmp(sys, "ftrace") && !strcmp(name, "user_stack")) {
		in->kind = K_AFTER;
	} else if (!strcmp(sys, "raw_syscalls")) {
		in->f = tep_find_field(e, "id");
		if (in->f && !strcmp(name, "sys_enter"))
			in->kind = K_RAW_ENTER;
		else if (!strcmp(name, "sys_exit"))
			in->kind = K_RAW_EXIT;
	} else if (!strcmp(sys, "syscalls") && !strncmp(name, "sys_enter_", 10)) {
		in->kind = K_SYS_ENTER;
		in->call = name + 10;
	} else if (!strcmp(sys, "syscalls") && !strncmp(name, "sys_exit_", 9)) {
		in->kind = K_SYS_EXIT;
	} else if (!strcmp(sys, "irq")) {
		in->f = tep_find_field(e, !strncmp(name, "softirq", 7) ? "vec" : "irq");
		in->name = tep_find_field(e, "name");
		if (!in->f)
			return;
		if (!strcmp(name, "irq_handler_entry"))
			in->kind = K_IRQ_IN;
		else if (!strcmp(name, "irq_handler_exit"))
			in->kind = K_IRQ_OUT;
		else if (!strcmp(name, "softirq_entry"))
			in->kind = K_SOFT_IN;
		else if (!strcmp(name, "softirq_exit"))
			in->kind = K_SOFT_OUT;
	}
}

struct kt_samples *kt_samples_new(struct tep_handle *tep, const char *machine,
				  bool own_only)
{
	struct kt_samples *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tep = tep;
	s->machine = machine;
	s->own_only = own_only;
	s->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	s->tasks.size = sizeof(struct dtask);
	s->cpus.size = sizeof(struct dcpu);
	/* What the file recorded: its formats, whether or not a record came. */
	if (tep_find_event_by_name(tep, "sched", "sched_switch"))
		s->has |= KT_DIFF_HAS_SWITCH;
	if (tep_find_event_by_name(tep, "raw_syscalls", "sys_enter"))
		s->has |= KT_DIFF_HAS_SYSCALLS;
	if (tep_find_event_by_name(tep, "irq", "irq_handler_entry"))
		s->has |= KT_DIFF_HAS_IRQ;
	if (tep_find_event_by_name(tep, "irq", "softirq_entry"))
		s->has |= KT_DIFF_HAS_SOFTIRQ;
	return s;
}

static uint32_t hash_of(enum kt_diff_kind kind, const char *name)
{
	uint32_t h = 2166136261u ^ (uint32_t)kind;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static int grow_hash(struct kt_samples *s)
{
	size_t size = s->hsize ? 2 * s->hsize : 256, i, j;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < s->nkeys; i++) {
		j = hash_of(s->keys[i].kind, s->keys[i].name) & (size - 1);
		while (h[j])
			j = (j + 1) & (size - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(s->hash);
	s->hash = h;
	s->hsize = size;
	return 0;
}

/* The key of (kind, name), made the first time: its index, or -ENOMEM. */
static long key_of(struct kt_samples *s, enum kt_diff_kind kind, const char *name)
{
	struct key *k;
	size_t j;

	if (2 * (s->nkeys + 1) > s->hsize && grow_hash(s))
		return -ENOMEM;
	j = hash_of(kind, name) & (s->hsize - 1);
	for (; s->hash[j]; j = (j + 1) & (s->hsize - 1)) {
		k = &s->keys[s->hash[j] - 1];
		if (k->kind == kind && !strcmp(k->name, name))
			return (long)(s->hash[j] - 1);
	}
	if (s->nkeys == s->capkeys) {
		size_t cap = s->capkeys ? 2 * s->capkeys : 64;

		k = realloc(s->keys, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		s->keys = k;
		s->capkeys = cap;
	}
	k = &s->keys[s->nkeys];
	k->kind = kind;
	k->name = strdup(name);
	if (!k->name)
		return -ENOMEM;
	s->hash[j] = (uint32_t)++s->nkeys;
	return (long)(s->nkeys - 1);
}

static int sample(struct kt_samples *s, uint32_t key, int pid, unsigned long long ns,
		  unsigned long long dev, unsigned long long end)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct sample *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct sample){ key, pid, ns, dev, end, false };
	return 0;
}

static struct dtask *task_of(struct kt_samples *s, int pid)
{
	return kt_pidmap_get(&s->tasks, pid);
}

/* The stretch off's reason without a stack: the wait kind. */
static long wait_key(struct kt_samples *s, const struct dtask *t)
{
	char name[64];
	const char *st = t->state == 'S' ? "S" : t->state == 'D' ? "D" : "other";

	if (t->call)
		snprintf(name, sizeof(name), "%s %s", st, t->call);
	else
		snprintf(name, sizeof(name), "%s", st);
	return key_of(s, KT_DIFF_OFFCPU, name);
}

static int on_switch(struct kt_samples *s, struct evinfo *in, struct tep_record *rec,
		     struct dcpu *c)
{
	unsigned long long prev, state, next, ts = rec->ts;
	struct dtask *p, *n;
	long key;
	int ret;

	if (tep_read_number_field(in->sw.prev_pid, rec->data, &prev) ||
	    tep_read_number_field(in->sw.prev_state, rec->data, &state) ||
	    tep_read_number_field(in->sw.next_pid, rec->data, &next))
		return 0;
	c->after_switch = true;
	c->prev = (int)prev;
	if (prev) {
		p = task_of(s, (int)prev);
		if (!p)
			return -ENOMEM;
		if (p->st == T_RUNNING && ts >= p->since) {
			char comm[16];

			kt_field_str(in->sw.prev_comm, rec, comm, sizeof(comm));
			if (!p->comm_key || strcmp(comm, p->comm)) {
				memcpy(p->comm, comm, sizeof(comm));
				key = key_of(s, KT_DIFF_TASK, comm[0] ? comm : "-");
				if (key < 0)
					return (int)key;
				p->comm_key = (uint32_t)key + 1;
			}
			ret = sample(s, p->comm_key - 1, p->pid, ts - p->since, 0, ts);
			if (ret)
				return ret;
		}
		p->since = ts;
		if (state & 0xff) {
			p->st = T_OFF;
			p->state = state & 1 ? 'S' : state & 2 ? 'D' : 'O';
			key = wait_key(s, p);
			if (key < 0)
				return (int)key;
			p->off_key = (uint32_t)key;
		} else {
			p->st = T_RUNNABLE;
		}
	}
	if (next) {
		n = task_of(s, (int)next);
		if (!n)
			return -ENOMEM;
		if (n->st == T_OFF && ts >= n->since) {
			unsigned long long dev = n->state == 'D' ? ts - n->since : 0;

			if (n->call_key)
				n->call_dev += dev;
			ret = sample(s, n->off_key, n->pid, ts - n->since, dev, ts);
			if (ret)
				return ret;
		}
		n->st = T_RUNNING;
		n->since = ts;
	}
	return 0;
}

static int on_stack(struct kt_samples *s, const struct kt_event *ev, struct dcpu *c)
{
	const char *why;
	struct dtask *t;
	long key;

	if (!c->after_switch || c->prev <= 0)
		return 0;
	c->after_switch = false;
	s->has |= KT_DIFF_HAS_STACKS;
	t = kt_pidmap_find(&s->tasks, c->prev);
	if (!t || t->st != T_OFF)
		return 0;
	why = kt_kstack_reason(s->tep, ev->event, ev->record);
	if (!why)
		return 0;
	key = key_of(s, KT_DIFF_OFFCPU, why);
	if (key < 0)
		return (int)key;
	t->off_key = (uint32_t)key;
	return 0;
}

/* The key of raw system call nr, by a table. */
static long call_key(struct kt_samples *s, long nr, const char **name)
{
	char buf[32];
	int nargs;
	long key;

	*name = kt_syscall_name(s->machine, nr, &nargs);
	if (nr < 0 || nr > 65535)
		return key_of(s, KT_DIFF_SYSCALL, "syscall");
	if ((size_t)nr >= s->nby_nr) {
		size_t n = (size_t)nr + 64;
		uint32_t *v = realloc(s->by_nr, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + s->nby_nr, 0, (n - s->nby_nr) * sizeof(*v));
		s->by_nr = v;
		s->nby_nr = n;
	}
	if (s->by_nr[nr])
		return (long)s->by_nr[nr] - 1;
	if (!*name) {
		snprintf(buf, sizeof(buf), "syscall_%ld", nr);
		key = key_of(s, KT_DIFF_SYSCALL, buf);
	} else {
		key = key_of(s, KT_DIFF_SYSCALL, *name);
	}
	if (key >= 0)
		s->by_nr[nr] = (uint32_t)key + 1;
	return key;
}

static int on_call(struct kt_samples *s, struct evinfo *in, struct tep_record *rec,
		   struct dtask *t)
{
	unsigned long long nr;
	const char *name = in->call;
	int pid = t ? t->pid : -1;
	long key;

	s->has |= KT_DIFF_HAS_SYSCALLS;
	if (!t)
		return 0;
	if (in->kind == K_RAW_EXIT || in->kind == K_SYS_EXIT) {
		if (t->call_key && rec->ts >= t->call_since) {
			int ret = sample(s, t->call_key - 1, pid, rec->ts - t->call_since,
					 t->call_dev, rec->ts);

			if (ret)
				return ret;
		}
		t->call_key = 0;
		t->call = NULL;
		return 0;
	}
	if (in->kind == K_RAW_ENTER) {
		if (tep_read_number_field(in->f, rec->data, &nr))
			return 0;
		key = call_key(s, (long)nr, &name);
	} else {
		key = key_of(s, KT_DIFF_SYSCALL, name);
	}
	if (key < 0)
		return (int)key;
	t->call_key = (uint32_t)key + 1;
	t->call_since = rec->ts;
	t->call_dev = 0;
	t->call = s->keys[key].name;
	return 0;
}

static int on_irq(struct kt_samples *s, struct evinfo *in, struct tep_record *rec,
		  struct dcpu *c)
{
	bool soft = in->kind == K_SOFT_IN || in->kind == K_SOFT_OUT;
	unsigned long long v;
	char name[64];
	long key;

	s->has |= soft ? KT_DIFF_HAS_SOFTIRQ : KT_DIFF_HAS_IRQ;
	if (tep_read_number_field(in->f, rec->data, &v))
		return 0;
	if (in->kind == K_IRQ_IN || in->kind == K_SOFT_IN) {
		if (soft) {
			const char *n = kt_softirq_name(v);

			snprintf(name, sizeof(name), "%s", n ? n : "?");
		} else {
			kt_field_str(in->name, rec, name, sizeof(name));
			if (!name[0])
				snprintf(name, sizeof(name), "irq %llu", v);
		}
		key = key_of(s, soft ? KT_DIFF_SOFTIRQ : KT_DIFF_IRQ, name);
		if (key < 0)
			return (int)key;
		if (soft) {
			c->soft_key = (uint32_t)key + 1;
			c->soft_since = rec->ts;
		} else {
			c->irq_key = (uint32_t)key + 1;
			c->irq_since = rec->ts;
			c->irq = v;
		}
		return 0;
	}
	if (soft && c->soft_key) {
		key = (long)c->soft_key - 1;
		c->soft_key = 0;
		return rec->ts >= c->soft_since ?
			sample(s, (uint32_t)key, -1, rec->ts - c->soft_since, 0, rec->ts) : 0;
	}
	if (!soft && c->irq_key && c->irq == v) {
		key = (long)c->irq_key - 1;
		c->irq_key = 0;
		return rec->ts >= c->irq_since ?
			sample(s, (uint32_t)key, -1, rec->ts - c->irq_since, 0, rec->ts) : 0;
	}
	return 0;
}

/*
 * An event of the task's own: while it was thought off, a switch was
 * lost.  The task, or NULL (ENOMEM).
 */
static struct dtask *on_evidence(struct kt_samples *s, int pid, unsigned long long ts)
{
	struct dtask *t = task_of(s, pid);

	if (!t)
		return NULL;
	t->own = true;
	if (t->st == T_OFF || t->st == T_RUNNABLE) {
		/* Its stretch's end is not known: not counted; it runs now. */
		t->st = T_RUNNING;
		t->since = ts;
	}
	return t;
}

int kt_samples_add(const struct kt_event *ev, void *arg)
{
	struct kt_samples *s = arg;
	struct tep_record *rec = ev->record;
	struct dtask *t = NULL;
	struct evinfo *in;
	struct dcpu *c;
	int pid;

	in = kt_evcache_get(&s->evs, ev->event);
	c = kt_percpu_at(&s->cpus, ev->cpu);
	if (!in || !c)
		return -ENOMEM;
	if (rec->missed_events) {
		if (rec->missed_events > 0)
			s->lost += (unsigned long long)rec->missed_events;
		else
			s->lost_unknown = true;
		/* What this CPU did in the loss is not known. */
		c->irq_key = c->soft_key = 0;
		c->after_switch = false;
	}
	if (in->kind == K_AFTER)
		return 0;
	if (in->kind == K_STACK)
		return on_stack(s, ev, c);
	c->after_switch = false;
	if (in->kind == K_SWITCH) {
		s->has |= KT_DIFF_HAS_SWITCH;
		return on_switch(s, in, rec, c);
	}
	pid = tep_data_pid(s->tep, rec);
	if (pid > 0 && in->kind != K_IRQ_IN && in->kind != K_IRQ_OUT &&
	    in->kind != K_SOFT_IN && in->kind != K_SOFT_OUT) {
		s->others = true;
		t = on_evidence(s, pid, rec->ts);
		if (!t)
			return -ENOMEM;
	}
	switch (in->kind) {
	case K_RAW_ENTER:
	case K_RAW_EXIT:
	case K_SYS_ENTER:
	case K_SYS_EXIT:
		return on_call(s, in, rec, t);
	case K_IRQ_IN:
	case K_IRQ_OUT:
	case K_SOFT_IN:
	case K_SOFT_OUT:
		return on_irq(s, in, rec, c);
	default:
		return 0;
	}
}

/* By key, then half, then duration. */
static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->late != y->late)
		return x->late ? 1 : -1;
	return (x->ns > y->ns) - (x->ns < y->ns);
}

/*
 * Mark each key's second half by time.  Samples are made in time order
 * (each at its end's record), so the array's order is time's.
 */
static int mark_halves(struct kt_samples *s)
{
	size_t *count = calloc(s->nkeys ? s->nkeys : 1, 2 * sizeof(*count)), i;

	if (!count)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		count[2 * s->v[i].key]++;
	for (i = 0; i < s->n; i++) {
		size_t *k = &count[2 * s->v[i].key];

		s->v[i].late = k[1]++ >= k[0] / 2;
	}
	free(count);
	return 0;
}

/* The sixteenth of the file's span that end falls in. */
static size_t block_of(unsigned long long end, unsigned long long first,
		       unsigned long long span)
{
	double b = end > first ? (double)(end - first) / (double)span * KT_DIFF_BLOCKS : 0;

	return b < KT_DIFF_BLOCKS - 1 ? (size_t)b : KT_DIFF_BLOCKS - 1;
}

/* The set's whole, sorted: its two sorted halves merged. */
static void merge_halves(struct kt_sample_set *set, unsigned long long *to)
{
	const unsigned long long *x = set->half[0], *y = set->half[1];
	size_t i = 0, j = 0, k = 0;

	while (i < set->nhalf[0] || j < set->nhalf[1])
		to[k++] = j >= set->nhalf[1] || (i < set->nhalf[0] && x[i] <= y[j]) ?
			  x[i++] : y[j++];
}

static int cmp_set(const void *a, const void *b)
{
	const struct kt_sample_set *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether sample x is of a task with events of its own (see the header). */
static bool kept(struct kt_samples *s, const struct sample *x)
{
	struct dtask *t;

	if (x->pid < 0 || !s->own_only || !s->others)
		return true;
	t = kt_pidmap_find(&s->tasks, x->pid);
	return t && t->own;
}

int kt_samples_sets(struct kt_samples *s, const struct kt_sample_set **sets,
		    size_t *n)
{
	unsigned long long first = 0, span = 1;
	size_t i, k, m = 0;

	if (s->sets) {
		*sets = s->sets;
		*n = s->nsets;
		return 0;
	}
	for (i = 0; i < s->n; i++)
		if (kept(s, &s->v[i]))
			s->v[m++] = s->v[i];
	s->n = m;
	if (s->n) {
		/* In time order: the first and the last end. */
		first = s->v[0].end;
		if (s->v[s->n - 1].end > first)
			span = s->v[s->n - 1].end - first + 1;
	}
	if (mark_halves(s))
		return -ENOMEM;
	qsort(s->v, s->n, sizeof(*s->v), cmp_sample);
	s->vals = malloc((s->n ? 2 * s->n : 1) * sizeof(*s->vals));
	s->sets = calloc(s->nkeys ? s->nkeys : 1, sizeof(*s->sets));
	if (!s->vals || !s->sets)
		return -ENOMEM;
	for (i = 0; i < s->n; i = k) {
		struct kt_sample_set *set = &s->sets[s->nsets++];
		unsigned long long *halves = s->vals + s->n + i;

		set->kind = s->keys[s->v[i].key].kind;
		set->name = s->keys[s->v[i].key].name;
		set->v = s->vals + i;
		for (k = i; k < s->n && s->v[k].key == s->v[i].key; k++) {
			halves[k - i] = s->v[k].ns;
			set->sum += s->v[k].ns;
			set->dev += s->v[k].dev;
			set->nhalf[s->v[k].late]++;
			set->block[block_of(s->v[k].end, first, span)] += s->v[k].ns;
		}
		set->n = k - i;
		set->half[0] = halves;
		set->half[1] = halves + set->nhalf[0];
		merge_halves(set, s->vals + i);
	}
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
	qsort(s->sets, s->nsets, sizeof(*s->sets), cmp_set);
	*sets = s->sets;
	*n = s->nsets;
	return 0;
}

unsigned int kt_samples_has(const struct kt_samples *s)
{
	return s->has;
}

unsigned long long kt_samples_lost(const struct kt_samples *s, bool *unknown)
{
	*unknown = s->lost_unknown;
	return s->lost;
}

void kt_samples_free(struct kt_samples *s)
{
	size_t i;

	if (!s)
		return;
	kt_evcache_free(&s->evs);
	kt_pidmap_free(&s->tasks, NULL);
	free(s->cpus.v);
	for (i = 0; i < s->nkeys; i++)
		free(s->keys[i].name);
	free(s->keys);
	free(s->hash);
	free(s->by_nr);
	free(s->v);
	free(s->vals);
	free(s->sets);
	free(s);
}
