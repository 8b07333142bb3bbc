// SPDX-License-Identifier: GPL-2.0
/*
 * analyze cpu.  See cpu.h.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/cpu.h"
#include "analyze/evcache.h"
#include "analyze/rows.h"
#include "analyze/taskstate.h"
#include "base/collect.h"
#include "decode/symbols.h"

enum kind { K_OTHER, K_IRQ_IN, K_IRQ_OUT, K_SOFT_IN, K_SOFT_OUT };

struct evinfo {
	int id;
	enum kind kind;
	struct tep_format_field *irq, *name, *vec;
};

/* One CPU's times, and the interrupt it is in (who runs: the model's). */
struct percpu {
	bool seen;			/* a switch was seen */
	struct kt_cpu_cpu out;
	unsigned long long irq_since, soft_since;
	struct kt_cpu_irq *irq_in, *soft_in;	/* NULL: not in one */
};

struct kt_cpu {
	struct tep_handle *tep;
	struct kt_evcache evs;
	/* Switches and loss, each task's struct kt_cpu_task (pid 0: in no switch) */
	struct kt_taskstate *model;	/* ... at off in each task */
	size_t off;
	bool shared;			/* model is another's (kt_cpu_join()) */
	void *irqs;			/* tsearch: struct kt_cpu_irq */
	size_t nirqs;
	struct kt_percpu cpus;		/* struct percpu */
	struct kt_cpu_task **tv;
	struct kt_cpu_irq **iv;
	struct kt_cpu_cpu *cv;
	struct kt_cpu_totals t;
	int (*on_run)(const struct kt_cpu_run *r, void *arg);
	void *run_arg;
};

static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;

	if (e->system && !strcmp(e->system, "irq")) {
		in->irq = tep_find_field(e, "irq");
		in->name = tep_find_field(e, "name");
		in->vec = tep_find_field(e, "vec");
		if (!strcmp(e->name, "irq_handler_entry") && in->irq && in->name)
			in->kind = K_IRQ_IN;
		else if (!strcmp(e->name, "irq_handler_exit") && in->irq)
			in->kind = K_IRQ_OUT;
		else if (!strcmp(e->name, "softirq_entry") && in->vec)
			in->kind = K_SOFT_IN;
		else if (!strcmp(e->name, "softirq_exit") && in->vec)
			in->kind = K_SOFT_OUT;
	}
}

static int cmp_irq(const void *a, const void *b)
{
	const struct kt_cpu_irq *x = a, *y = b;

	if (x->irq != y->irq)
		return (x->irq > y->irq) - (x->irq < y->irq);
	return strcmp(x->name, y->name);
}

static struct percpu *cpu_of(struct kt_cpu *c, int cpu)
{
	return kt_percpu_at(&c->cpus, cpu);
}

static struct kt_cpu_irq *irq_of(struct kt_cpu *c, int irq, const char *name)
{
	struct kt_cpu_irq probe = { .irq = irq, .name = name }, *q, **found;

	found = tfind(&probe, &c->irqs, cmp_irq);
	if (found)
		return *found;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->irq = irq;
	q->name = strdup(name);
	if (!q->name || !tsearch(q, &c->irqs, cmp_irq)) {
		free((char *)q->name);
		free(q);
		return NULL;
	}
	c->nirqs++;
	return q;
}

static struct kt_cpu_task *own(const struct kt_cpu *c, struct kt_task *t)
{
	return kt_task_part(t, c->off);
}

/*
 * The model's transitions: each switch's run (runs.h) to its CPU and to
 * the task it takes off; the comm each names.
 */
static int change(const struct kt_ts_change *c, void *arg)
{
	const struct kt_run *run = c->run;
	struct kt_cpu *cpu = arg;
	unsigned long long d;
	struct kt_cpu_task *t;
	struct percpu *p;
	char comm[32];

	if (c->what != KT_TS_SWITCH && c->what != KT_TS_OUT && c->what != KT_TS_IN)
		return 0;
	d = run->end > run->start ? run->end - run->start : 0;
	if (c->what == KT_TS_SWITCH) {
		p = cpu_of(cpu, c->cpu);
		if (!p)
			return -ENOMEM;
		p->seen = true;
		/* Who ran since the last switch is not known: a gap. */
		if (run->kind == KT_RUN_MISSING)
			p->out.gap_ns += d;
		else if (run->kind == KT_RUN_RAN && !run->prev)
			p->out.idle_ns += d;
		else if (run->kind == KT_RUN_RAN)
			p->out.busy_ns += d;
		if (run->kind != KT_RUN_RAN || !cpu->on_run)
			return 0;
		kt_field_str(c->comm, c->rec, comm, sizeof(comm));
		return cpu->on_run(&(struct kt_cpu_run){ c->cpu, run->prev, comm, run->start,
							 run->end }, cpu->run_arg);
	}
	t = c->own;
	t->pid = c->t->pid;
	kt_field_str(c->comm, c->rec, t->comm, sizeof(t->comm));
	if (c->what == KT_TS_IN)
		return 0;
	t->switches++;
	if (run->kind == KT_RUN_MISSING)
		t->missing++;
	else if (run->kind == KT_RUN_RAN)
		t->ns += d;
	return 0;
}

static int after(const struct kt_event *ev, void *arg);

/* c on model (NULL: a model of its own, on tep's events). */
static struct kt_cpu *make(struct tep_handle *tep, struct kt_taskstate *model)
{
	struct kt_cpu *c = calloc(1, sizeof(*c));
	struct kt_taskstate_ops ops = {
		.size = sizeof(struct kt_cpu_task), .switches = true, .change = change,
		.after = after, .arg = c,
	};

	if (!c)
		return NULL;
	c->model = kt_taskstate_use(tep, model, &ops, &c->off);
	if (!c->model) {
		free(c);
		return NULL;
	}
	c->shared = model != NULL;
	c->tep = tep;
	c->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	c->cpus.size = sizeof(struct percpu);
	return c;
}

struct kt_cpu *kt_cpu_new(struct tep_handle *tep)
{
	return make(tep, NULL);
}

struct kt_cpu *kt_cpu_join(struct tep_handle *tep, struct kt_taskstate *model)
{
	return make(tep, model);
}

void kt_cpu_on_run(struct kt_cpu *c, int (*fn)(const struct kt_cpu_run *r, void *arg),
		   void *arg)
{
	c->on_run = fn;
	c->run_arg = arg;
}

static int on_irq(struct kt_cpu *c, struct evinfo *in, struct tep_record *rec,
		  struct percpu *p)
{
	unsigned long long v, d;
	char name[64] = "";
	struct kt_cpu_irq **slot, *q;
	unsigned long long *since;
	bool soft = in->kind == K_SOFT_IN || in->kind == K_SOFT_OUT;

	slot = soft ? &p->soft_in : &p->irq_in;
	since = soft ? &p->soft_since : &p->irq_since;
	if (tep_read_number_field(soft ? in->vec : in->irq, rec->data, &v))
		return 0;
	if (in->kind == K_IRQ_IN || in->kind == K_SOFT_IN) {
		if (soft) {
			const char *n = kt_softirq_name(v);

			snprintf(name, sizeof(name), "%s", n ? n : "?");
		} else {
			kt_field_str(in->name, rec, name, sizeof(name));
		}
		q = irq_of(c, soft ? -1 : (int)v, name);
		if (!q)
			return -ENOMEM;
		*slot = q;
		*since = rec->ts;
		return 0;
	}
	/* An exit: of the entry this CPU is in, when it is that one. */
	q = *slot;
	*slot = NULL;
	if (!q || (!soft && q->irq != (int)v))
		return 0;
	d = rec->ts > *since ? rec->ts - *since : 0;
	q->count++;
	q->ns += d;
	if (d > q->max_ns)
		q->max_ns = d;
	return 0;
}

/* Who runs, the switches and the loss: the model's (change()). */
int kt_cpu_add(const struct kt_event *ev, void *arg)
{
	return kt_taskstate_add(((struct kt_cpu *)arg)->model, ev);
}

/* The interrupts: after the model's handling of each record. */
static int after(const struct kt_event *ev, void *arg)
{
	struct kt_cpu *c = arg;
	struct tep_record *rec = ev->record;
	struct evinfo *in;
	struct percpu *p;

	in = kt_evcache_get(&c->evs, ev->event);
	if (!in)
		return -ENOMEM;
	if (in->kind == K_OTHER && !rec->missed_events)
		return 0;
	p = cpu_of(c, ev->cpu);
	if (!p)
		return -ENOMEM;
	/* What this CPU did in the loss is not known. */
	if (rec->missed_events)
		p->irq_in = p->soft_in = NULL;
	if (in->kind == K_OTHER)
		return 0;
	if (in->kind == K_IRQ_IN || in->kind == K_IRQ_OUT)
		c->t.has_irq = true;
	else
		c->t.has_softirq = true;
	return on_irq(c, in, rec, p);
}

static int cmp_tasks(const void *a, const void *b, void *arg)
{
	const struct kt_cpu_task *x = *(struct kt_cpu_task *const *)a;
	const struct kt_cpu_task *y = *(struct kt_cpu_task *const *)b;

	(void)arg;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_irqs(const void *a, const void *b, void *arg)
{
	const struct kt_cpu_irq *x = *(struct kt_cpu_irq *const *)a;
	const struct kt_cpu_irq *y = *(struct kt_cpu_irq *const *)b;

	(void)arg;
	/* Hard irqs first. */
	if ((x->irq < 0) != (y->irq < 0))
		return x->irq < 0 ? 1 : -1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return cmp_irq(x, y);
}

/* A task a switch names (not one only woken or seen). */
static bool keep_task(void *item, void *arg)
{
	return own(arg, item)->pid;
}

static void *task_row(void *item, void *arg)
{
	return own(arg, item);
}

const struct kt_cpu_task *kt_cpu_task_of(struct kt_cpu *c, int pid)
{
	struct kt_task *t = kt_taskstate_find(c->model, pid);

	return t && own(c, t)->pid == pid ? own(c, t) : NULL;
}

int kt_cpu_tasks(struct kt_cpu *c, struct kt_cpu_task ***v, size_t *n)
{
	const struct kt_pidmap *tasks = kt_taskstate_tasks(c->model);
	struct kt_collect how = {
		.keep = keep_task, .row = task_row, .cmp = cmp_tasks, .arg = c,
	};
	void **rows;
	int ret;

	free(c->tv);
	ret = kt_collect_rows(tasks->tree, tasks->n, &how, &rows, n);
	c->tv = (struct kt_cpu_task **)rows;
	*v = c->tv;
	return ret;
}

int kt_cpu_irqs(struct kt_cpu *c, struct kt_cpu_irq ***v, size_t *n)
{
	void **rows;
	int ret;

	free(c->iv);
	ret = kt_collect_rows(c->irqs, c->nirqs, &(struct kt_collect){ .cmp = cmp_irqs },
			      &rows, n);
	c->iv = (struct kt_cpu_irq **)rows;
	*v = c->iv;
	return ret;
}

int kt_cpu_cpus(struct kt_cpu *c, struct kt_cpu_cpu **v, size_t *n)
{
	struct percpu *pc = c->cpus.v;
	size_t k = 0;
	int i;

	free(c->cv);
	c->cv = calloc(c->cpus.n ? (size_t)c->cpus.n : 1, sizeof(*c->cv));
	if (!c->cv)
		return -ENOMEM;
	for (i = 0; i < c->cpus.n; i++) {
		if (!pc[i].seen && !pc[i].out.busy_ns &&
		    !pc[i].out.idle_ns && !pc[i].out.gap_ns)
			continue;
		c->cv[k] = pc[i].out;
		c->cv[k].cpu = i;
		k++;
	}
	*v = c->cv;
	*n = k;
	return 0;
}

void kt_cpu_totals(const struct kt_cpu *c, struct kt_cpu_totals *t)
{
	struct kt_taskstate_totals m;

	kt_taskstate_totals(c->model, &m);
	*t = c->t;
	t->gaps = m.missing;
	t->lost = m.lost;
	t->lost_unknown = m.lost_unknown;
	t->has_switch = m.has_switch;
}

static void free_irq(void *p)
{
	struct kt_cpu_irq *q = p;

	free((char *)q->name);
	free(q);
}

void kt_cpu_free(struct kt_cpu *c)
{
	if (!c)
		return;
	kt_evcache_free(&c->evs);
	if (!c->shared)
		kt_taskstate_free(c->model);
	tdestroy(c->irqs, free_irq);
	free(c->cpus.v);
	free(c->tv);
	free(c->iv);
	free(c->cv);
	free(c);
}
