// SPDX-License-Identifier: GPL-2.0
/*
 * Trace-event JSON for Perfetto and chrome://tracing.  See perfetto.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/symbols.h"
#include "views/perfetto.h"

struct run {
	bool on;		/* a task is running (not idle) */
	unsigned long long since;
	int pid;
	char comm[17];
};

struct task {
	int pid;
	char comm[17];
};

/* An interrupt begun on a CPU and not yet ended. */
struct irq_open {
	bool on;
	unsigned long long nr;	/* irq number or softirq vector */
};

/* Per CPU: the task run, and the hard and soft interrupt in progress. */
struct cpu_state {
	struct irq_open hard, soft;
	bool irq_track;		/* a slice went on "CPU N irq": name it */
};

/* A task inside a system call: open addressing on pid. */
struct sys_open {
	int pid;		/* 0: a free slot */
	long long nr;
};

/* Which events pair into slices, by event id (-1: not in the file). */
struct pairs {
	int sys_enter, sys_exit;	/* raw_syscalls */
	int hard_entry, hard_exit, soft_entry, soft_exit;
	struct tep_format_field *enter_id, *exit_id, *exit_ret;
	struct tep_format_field *hard_irq, *hard_name, *hard_ret;
	struct tep_format_field *soft_vec, *soft_exit_vec;
};

struct kt_perfetto {
	struct tep_handle *tep;
	FILE *out;
	bool any;		/* an event was written: commas */
	unsigned long long last_ts;
	struct run *runs;	/* per CPU */
	int ncpus;
	struct task *tasks;	/* named, for the metadata */
	size_t ntasks, cap;
	int switch_id;
	struct tep_format_field *prev_pid, *next_pid, *next_comm, *next_prio;
	struct pairs pr;
	struct cpu_state *cs;	/* per CPU, ncpus long */
	struct sys_open *sys;	/* tasks in a system call */
	size_t sys_cap, sys_used;
	const char *machine;
	unsigned char *kind;	/* per event id: enum kind, KIND_UNSEEN first */
	int nkind;
};

/* What an event is to the slices, found once per event id. */
enum kind {
	KIND_UNSEEN,
	KIND_OTHER,
	KIND_SYS_ENTER,		/* raw_syscalls:sys_enter, syscalls:sys_enter_* */
	KIND_SYS_EXIT,
	KIND_IRQ,		/* irq:irq_handler_* and softirq_entry/_exit */
};

/* The pid of the interrupt track of a CPU: "CPU N irq", beside "CPU N". */
#define IRQ_TID(cpu) (KT_PERFETTO_IRQ_TID + (cpu))

/* ev's id when it has every field named (NULL ends), else -1. */
static int event_with(struct tep_handle *tep, const char *sys, const char *name,
		      struct tep_format_field **f1, const char *n1,
		      struct tep_format_field **f2, const char *n2)
{
	struct tep_event *e = tep_find_event_by_name(tep, sys, name);

	if (!e)
		return -1;
	*f1 = tep_find_field(e, n1);
	if (!*f1)
		return -1;
	if (f2) {
		*f2 = tep_find_field(e, n2);
		if (!*f2)
			return -1;
	}
	return e->id;
}

static void find_pairs(struct kt_perfetto *pf)
{
	struct pairs *p = &pf->pr;
	struct tep_format_field *unused;

	p->sys_enter = event_with(pf->tep, "raw_syscalls", "sys_enter",
				  &p->enter_id, "id", NULL, NULL);
	p->sys_exit = event_with(pf->tep, "raw_syscalls", "sys_exit",
				 &p->exit_id, "id", &p->exit_ret, "ret");
	p->hard_entry = event_with(pf->tep, "irq", "irq_handler_entry",
				   &p->hard_irq, "irq", &p->hard_name, "name");
	p->hard_exit = event_with(pf->tep, "irq", "irq_handler_exit",
				  &unused, "irq", &p->hard_ret, "ret");
	p->soft_entry = event_with(pf->tep, "irq", "softirq_entry",
				   &p->soft_vec, "vec", NULL, NULL);
	p->soft_exit = event_with(pf->tep, "irq", "softirq_exit",
				  &p->soft_exit_vec, "vec", NULL, NULL);
	/* A pair needs both ends. */
	if (p->sys_enter < 0 || p->sys_exit < 0)
		p->sys_enter = p->sys_exit = -1;
	if (p->hard_entry < 0 || p->hard_exit < 0)
		p->hard_entry = p->hard_exit = -1;
	if (p->soft_entry < 0 || p->soft_exit < 0)
		p->soft_entry = p->soft_exit = -1;
}

struct kt_perfetto *kt_perfetto_new(struct tep_handle *tep, const char *machine,
				    FILE *out)
{
	struct kt_perfetto *pf = calloc(1, sizeof(*pf));
	struct tep_event *sw;

	if (!pf)
		return NULL;
	pf->tep = tep;
	pf->out = out;
	pf->machine = machine;
	pf->switch_id = -1;
	sw = tep_find_event_by_name(tep, "sched", "sched_switch");
	if (sw) {
		pf->prev_pid = tep_find_field(sw, "prev_pid");
		pf->next_pid = tep_find_field(sw, "next_pid");
		pf->next_comm = tep_find_field(sw, "next_comm");
		pf->next_prio = tep_find_field(sw, "next_prio");
		if (pf->next_pid && pf->next_comm)
			pf->switch_id = sw->id;
	}
	find_pairs(pf);
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	return pf;
}

void kt_perfetto_free(struct kt_perfetto *pf)
{
	if (!pf)
		return;
	free(pf->runs);
	free(pf->cs);
	free(pf->sys);
	free(pf->kind);
	free(pf->tasks);
	free(pf);
}

static void put_str(FILE *out, const char *s, size_t max)
{
	const unsigned char *c = (const unsigned char *)s;
	size_t i;

	putc('"', out);
	for (i = 0; i < max && c[i]; i++) {
		if (c[i] == '"' || c[i] == '\\')
			fprintf(out, "\\%c", c[i]);
		else if (c[i] < 0x20 || c[i] >= 0x7f)
			fprintf(out, "\\u%04x", c[i]);
		else
			putc(c[i], out);
	}
	putc('"', out);
}

/* "ts" in microseconds, exact to the nanosecond. */
static void put_us(FILE *out, const char *key, unsigned long long ns)
{
	fprintf(out, ",\"%s\":%llu.%03llu", key, ns / 1000, ns % 1000);
}

static void begin(struct kt_perfetto *pf)
{
	if (pf->any)
		fputs(",\n", pf->out);
	pf->any = true;
}

static int grow_cpus(struct kt_perfetto *pf, int cpu)
{
	struct cpu_state *c;
	struct run *r;

	if (cpu < pf->ncpus)
		return 0;
	if (cpu < 0 || cpu >= 65536)
		return -EINVAL;
	r = realloc(pf->runs, (size_t)(cpu + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	memset(r + pf->ncpus, 0, (size_t)(cpu + 1 - pf->ncpus) * sizeof(*r));
	pf->runs = r;
	c = realloc(pf->cs, (size_t)(cpu + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + pf->ncpus, 0, (size_t)(cpu + 1 - pf->ncpus) * sizeof(*c));
	pf->cs = c;
	pf->ncpus = cpu + 1;
	return 0;
}

/* Remember a task's latest name for the thread_name metadata. */
static void name_task(struct kt_perfetto *pf, int pid, const char *comm)
{
	size_t i;

	for (i = 0; i < pf->ntasks; i++)
		if (pf->tasks[i].pid == pid)
			break;
	if (i == pf->ntasks) {
		if (pf->ntasks == pf->cap) {
			size_t cap = pf->cap ? pf->cap * 2 : 256;
			struct task *t = realloc(pf->tasks, cap * sizeof(*t));

			if (!t)
				return;
			pf->tasks = t;
			pf->cap = cap;
		}
		pf->ntasks++;
		pf->tasks[i].pid = pid;
	}
	snprintf(pf->tasks[i].comm, sizeof(pf->tasks[i].comm), "%s", comm);
}

static void end_run(struct kt_perfetto *pf, int cpu, unsigned long long ts)
{
	struct run *r = &pf->runs[cpu];

	if (!r->on)
		return;
	begin(pf);
	fputs("{\"ph\":\"X\",\"cat\":\"sched\",\"name\":", pf->out);
	{
		char name[40];

		snprintf(name, sizeof(name), "%s:%d", r->comm, r->pid);
		put_str(pf->out, name, sizeof(name));
	}
	fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", KT_PERFETTO_CPU_PID, cpu);
	put_us(pf->out, "ts", r->since);
	put_us(pf->out, "dur", ts - r->since);
	fprintf(pf->out, ",\"args\":{\"pid\":%d,\"comm\":", r->pid);
	put_str(pf->out, r->comm, sizeof(r->comm));
	fputs("}}", pf->out);
	r->on = false;
}

static void on_switch(struct kt_perfetto *pf, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct run *r = &pf->runs[ev->cpu];
	unsigned long long pid = 0;
	const char *comm;
	int len;

	end_run(pf, ev->cpu, rec->ts);
	if (tep_read_number_field(pf->next_pid, rec->data, &pid))
		return;
	if (pid == 0)
		return;		/* idle: no slice */
	comm = tep_get_field_raw(NULL, ev->event, "next_comm", rec, &len, 0);
	r->on = true;
	r->since = rec->ts;
	r->pid = (int)pid;
	snprintf(r->comm, sizeof(r->comm), "%.*s", comm ? (len < 16 ? len : 16) : 0,
		 comm ? comm : "");
	name_task(pf, r->pid, r->comm);
}

/* An event's fields as JSON args: numbers, text for char arrays. */
static void put_fields(struct kt_perfetto *pf, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct tep_format_field *f;
	bool first = true;

	fputs(",\"args\":{", pf->out);
	for (f = ev->event->format.fields; f; f = f->next) {
		unsigned long long v;

		fprintf(pf->out, "%s\"%s\":", first ? "" : ",", f->name);
		first = false;
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) {
			int len = 0;
			const char *p = tep_get_field_raw(NULL, ev->event, f->name,
							  rec, &len, 0);

			if (p && f->type && strstr(f->type, "char")) {
				if (!len && (f->flags & TEP_FIELD_IS_ARRAY))
					len = rec->size - f->offset;
				put_str(pf->out, p, len > 0 ? (size_t)len : 0);
			} else {
				fputs(p ? "\"(array)\"" : "null", pf->out);
			}
		} else if (tep_read_number_field(f, rec->data, &v) == 0) {
			if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
			    (v >> (f->size * 8 - 1)) & 1)
				fprintf(pf->out, "%lld", (long long)(v | (~0ULL << (f->size * 8))));
			else if (f->flags & TEP_FIELD_IS_SIGNED)
				fprintf(pf->out, "%lld", (long long)v);
			else
				fprintf(pf->out, "%llu", v);
		} else {
			fputs("null", pf->out);
		}
	}
	putc('}', pf->out);
}

/* ---- system calls and interrupts as slices: "B" at the entry, "E" at the exit ---- */

static struct sys_open *sys_slot(struct kt_perfetto *pf, int pid)
{
	size_t i;

	if (!pf->sys_cap)
		return NULL;
	for (i = ((unsigned int)pid * 2654435761u) & (pf->sys_cap - 1);;
	     i = (i + 1) & (pf->sys_cap - 1))
		if (pf->sys[i].pid == pid || !pf->sys[i].pid)
			return &pf->sys[i];
}

/* Linear probing with backward-shift deletion keeps every chain whole. */
static void sys_del(struct kt_perfetto *pf, struct sys_open *e)
{
	size_t i = (size_t)(e - pf->sys), j = i, home;

	for (;;) {
		j = (j + 1) & (pf->sys_cap - 1);
		if (!pf->sys[j].pid)
			break;
		home = ((unsigned int)pf->sys[j].pid * 2654435761u) & (pf->sys_cap - 1);
		/* Move j back to i when i lies on j's chain from home. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			pf->sys[i] = pf->sys[j];
			i = j;
		}
	}
	pf->sys[i].pid = 0;
	pf->sys_used--;
}

static int sys_grow(struct kt_perfetto *pf)
{
	struct sys_open *old = pf->sys;
	size_t cap = pf->sys_cap, i;

	if ((pf->sys_used + 1) * 2 <= pf->sys_cap)
		return 0;
	pf->sys_cap = cap ? cap * 2 : 256;
	pf->sys = calloc(pf->sys_cap, sizeof(*pf->sys));
	if (!pf->sys) {
		pf->sys = old;
		pf->sys_cap = cap;
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		if (old[i].pid)
			*sys_slot(pf, old[i].pid) = old[i];
	free(old);
	return 0;
}

static void slice_head(struct kt_perfetto *pf, char ph, const char *cat,
		       const char *name, int pid, int tid, unsigned long long ts)
{
	begin(pf);
	fprintf(pf->out, "{\"ph\":\"%c\",\"cat\":\"%s\"", ph, cat);
	if (name) {
		fputs(",\"name\":", pf->out);
		put_str(pf->out, name, 64);
	}
	fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", pid, tid);
	put_us(pf->out, "ts", ts);
}

static long long field_num(struct tep_format_field *f, const struct tep_record *rec)
{
	unsigned long long v = 0;

	tep_read_number_field(f, rec->data, &v);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
	    (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	return (long long)v;
}

static const char *sys_name(struct kt_perfetto *pf, long long nr, char *buf, size_t len)
{
	int nargs;
	const char *n = kt_syscall_name(pf->machine, (long)nr, &nargs);

	if (n)
		return n;
	snprintf(buf, len, "syscall %lld", nr);
	return buf;
}

/*
 * The call number of a system call event: raw_syscalls' id, or
 * syscalls:sys_*_NAME's __syscall_nr.  -1 when the record has none.
 */
static long long sys_nr(struct kt_perfetto *pf, const struct kt_event *ev)
{
	struct tep_format_field *f;

	if (ev->event->id == pf->pr.sys_enter)
		f = pf->pr.enter_id;
	else if (ev->event->id == pf->pr.sys_exit)
		f = pf->pr.exit_id;
	else
		f = tep_find_field(ev->event, "__syscall_nr");
	return f ? field_num(f, ev->record) : -1;
}

/* sys_enter: a "B" on the task's track, the slice named for the call. */
static int on_sys_enter(struct kt_perfetto *pf, const struct kt_event *ev, int pid)
{
	const struct tep_record *rec = ev->record;
	long long nr = sys_nr(pf, ev);
	struct sys_open *o;
	char buf[32];
	int ret;

	if (pid <= 0)
		return 1;	/* the idle task makes no calls: an instant */
	ret = sys_grow(pf);
	if (ret)
		return ret;
	o = sys_slot(pf, pid);
	if (o->pid) {
		/* An enter with no exit (lost, or the task died): end it here. */
		slice_head(pf, 'E', "syscall", NULL, pid, pid, rec->ts);
		fputs(",\"args\":{\"unfinished\":true}}", pf->out);
	} else {
		pf->sys_used++;
	}
	o->pid = pid;
	o->nr = nr;
	slice_head(pf, 'B', "syscall", sys_name(pf, nr, buf, sizeof(buf)), pid, pid, rec->ts);
	/* The entry's fields (id, or __syscall_nr and the named arguments). */
	put_fields(pf, ev);
	putc('}', pf->out);
	name_task(pf, pid, tep_data_comm_from_pid(pf->tep, pid));
	return 0;
}

/* sys_exit: the "E" of the task's open call; 1 when there is none. */
static int on_sys_exit(struct kt_perfetto *pf, const struct kt_event *ev, int pid)
{
	const struct tep_record *rec = ev->record;
	long long nr = sys_nr(pf, ev), ret;
	struct sys_open *o = pid > 0 ? sys_slot(pf, pid) : NULL;
	struct tep_format_field *rf;
	const char *err;

	if (!o || !o->pid || o->nr != nr)
		return 1;
	rf = ev->event->id == pf->pr.sys_exit ? pf->pr.exit_ret
					      : tep_find_field(ev->event, "ret");
	ret = rf ? field_num(rf, rec) : 0;
	sys_del(pf, o);
	slice_head(pf, 'E', "syscall", NULL, pid, pid, rec->ts);
	fprintf(pf->out, ",\"args\":{\"ret\":%lld", ret);
	err = ret < 0 ? kt_errno_name(-ret) : NULL;
	if (err)
		fprintf(pf->out, ",\"errno\":\"%s\"", err);
	fputs("}}", pf->out);
	return 0;
}

/*
 * Interrupts go on a track of their own per CPU, so that their slices
 * nest only with each other (a softirq may take a hard irq) and never
 * cut across a task's run.  Returns 1 for an exit with no entry.
 */
static int on_irq(struct kt_perfetto *pf, const struct kt_event *ev)
{
	const struct tep_record *rec = ev->record;
	struct cpu_state *c = &pf->cs[ev->cpu];
	int id = ev->event->id, tid = IRQ_TID(ev->cpu);
	char name[48];

	c->irq_track = true;
	if (id == pf->pr.hard_entry) {
		const char *n;
		int len = 0;

		if (c->hard.on) {
			slice_head(pf, 'E', "irq", NULL, KT_PERFETTO_CPU_PID, tid, rec->ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
		c->hard.on = true;
		c->hard.nr = (unsigned long long)field_num(pf->pr.hard_irq, rec);
		n = tep_get_field_raw(NULL, ev->event, "name", (struct tep_record *)rec, &len, 0);
		snprintf(name, sizeof(name), "irq %llu %.*s", c->hard.nr,
			 n ? (int)strnlen(n, len > 0 ? (size_t)len : 0) : 0, n ? n : "");
		slice_head(pf, 'B', "irq", name, KT_PERFETTO_CPU_PID, tid, rec->ts);
		fprintf(pf->out, ",\"args\":{\"irq\":%llu}}", c->hard.nr);
		return 0;
	}
	if (id == pf->pr.hard_exit) {
		if (!c->hard.on)
			return 1;
		c->hard.on = false;
		slice_head(pf, 'E', "irq", NULL, KT_PERFETTO_CPU_PID, tid, rec->ts);
		fprintf(pf->out, ",\"args\":{\"ret\":\"%s\"}}",
			field_num(pf->pr.hard_ret, rec) ? "handled" : "unhandled");
		return 0;
	}
	if (id == pf->pr.soft_entry) {
		unsigned long long vec = (unsigned long long)field_num(pf->pr.soft_vec, rec);
		const char *vn = kt_softirq_name(vec);

		if (c->soft.on) {
			slice_head(pf, 'E', "softirq", NULL, KT_PERFETTO_CPU_PID, tid, rec->ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
		c->soft.on = true;
		c->soft.nr = vec;
		if (vn)
			snprintf(name, sizeof(name), "softirq %s", vn);
		else
			snprintf(name, sizeof(name), "softirq %llu", vec);
		slice_head(pf, 'B', "softirq", name, KT_PERFETTO_CPU_PID, tid, rec->ts);
		fprintf(pf->out, ",\"args\":{\"vec\":%llu}}", vec);
		return 0;
	}
	/* softirq_exit */
	if (!c->soft.on ||
	    c->soft.nr != (unsigned long long)field_num(pf->pr.soft_exit_vec, rec))
		return 1;
	c->soft.on = false;
	slice_head(pf, 'E', "softirq", NULL, KT_PERFETTO_CPU_PID, tid, rec->ts);
	fprintf(pf->out, ",\"args\":{\"vec\":%llu}}", c->soft.nr);
	return 0;
}

static enum kind kind_of(struct kt_perfetto *pf, const struct tep_event *e)
{
	if (e->id == pf->pr.sys_enter)
		return KIND_SYS_ENTER;
	if (e->id == pf->pr.sys_exit)
		return KIND_SYS_EXIT;
	if (e->id == pf->pr.hard_entry || e->id == pf->pr.hard_exit ||
	    e->id == pf->pr.soft_entry || e->id == pf->pr.soft_exit)
		return KIND_IRQ;
	if (!strcmp(e->system, "syscalls")) {
		if (!strncmp(e->name, "sys_enter_", 10) && tep_find_field((struct tep_event *)e, "__syscall_nr"))
			return KIND_SYS_ENTER;
		if (!strncmp(e->name, "sys_exit_", 9) && tep_find_field((struct tep_event *)e, "__syscall_nr") &&
		    tep_find_field((struct tep_event *)e, "ret"))
			return KIND_SYS_EXIT;
	}
	return KIND_OTHER;
}

/* A record that is one end of a slice: 0 done, 1 an instant after all. */
static int on_pair(struct kt_perfetto *pf, const struct kt_event *ev, int pid)
{
	int id = ev->event->id;

	if (id < 0 || id > 65535)
		return 1;
	if (id >= pf->nkind) {
		int n = id + 1 > 2 * pf->nkind ? id + 1 : 2 * pf->nkind;
		unsigned char *k = realloc(pf->kind, (size_t)n);

		if (!k)
			return -ENOMEM;
		memset(k + pf->nkind, KIND_UNSEEN, (size_t)(n - pf->nkind));
		pf->kind = k;
		pf->nkind = n;
	}
	if (pf->kind[id] == KIND_UNSEEN)
		pf->kind[id] = kind_of(pf, ev->event);
	switch (pf->kind[id]) {
	case KIND_SYS_ENTER:
		return on_sys_enter(pf, ev, pid);
	case KIND_SYS_EXIT:
		return on_sys_exit(pf, ev, pid);
	case KIND_IRQ:
		return on_irq(pf, ev);
	default:
		return 1;
	}
}

int kt_perfetto_add(const struct kt_event *ev, void *arg)
{
	struct kt_perfetto *pf = arg;
	struct tep_record *rec = ev->record;
	int pid, ret;

	ret = grow_cpus(pf, ev->cpu);
	if (ret)
		return ret;
	if (rec->ts > pf->last_ts)
		pf->last_ts = rec->ts;
	if (rec->missed_events) {
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"lost\",\"name\":\"events lost\",\"pid\":%d,\"tid\":%d",
			KT_PERFETTO_CPU_PID, ev->cpu);
		put_us(pf->out, "ts", rec->ts);
		if (rec->missed_events > 0)
			fprintf(pf->out, ",\"args\":{\"lost\":%lld}}", rec->missed_events);
		else
			fputs(",\"args\":{\"lost\":null}}", pf->out);
	}
	if (!ev->selected)
		return ferror(pf->out) ? -EIO : 0;
	if (ev->event->id == pf->switch_id) {
		on_switch(pf, ev);
		return ferror(pf->out) ? -EIO : 0;
	}
	pid = tep_data_pid(pf->tep, rec);
	ret = on_pair(pf, ev, pid);
	if (ret <= 0)
		return ret ? ret : ferror(pf->out) ? -EIO : 0;
	begin(pf);
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":", pf->out);
	put_str(pf->out, ev->event->system, 64);
	fputs(",\"name\":", pf->out);
	put_str(pf->out, ev->event->name, 128);
	if (pid > 0) {
		fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", pid, pid);
		name_task(pf, pid, tep_data_comm_from_pid(pf->tep, pid));
	} else {
		fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", KT_PERFETTO_CPU_PID, ev->cpu);
	}
	put_us(pf->out, "ts", rec->ts);
	put_fields(pf, ev);
	putc('}', pf->out);
	return ferror(pf->out) ? -EIO : 0;
}

static void meta(struct kt_perfetto *pf, const char *what, int pid, int tid,
		 const char *name)
{
	begin(pf);
	fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		what, pid, tid);
	put_str(pf->out, name, 64);
	fputs("}}", pf->out);
}

int kt_perfetto_finish(struct kt_perfetto *pf)
{
	char name[32];
	size_t i;
	int cpu;

	for (cpu = 0; cpu < pf->ncpus; cpu++)
		end_run(pf, cpu, pf->last_ts);
	/* Slices still open at the end close there, marked unfinished. */
	for (i = 0; i < pf->sys_cap; i++) {
		if (!pf->sys[i].pid)
			continue;
		slice_head(pf, 'E', "syscall", NULL, pf->sys[i].pid, pf->sys[i].pid, pf->last_ts);
		fputs(",\"args\":{\"unfinished\":true}}", pf->out);
	}
	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		if (pf->cs[cpu].hard.on) {
			slice_head(pf, 'E', "irq", NULL, KT_PERFETTO_CPU_PID, IRQ_TID(cpu), pf->last_ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
		if (pf->cs[cpu].soft.on) {
			slice_head(pf, 'E', "softirq", NULL, KT_PERFETTO_CPU_PID, IRQ_TID(cpu), pf->last_ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
	}
	meta(pf, "process_name", KT_PERFETTO_CPU_PID, 0, "CPUs");
	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		snprintf(name, sizeof(name), "CPU %d", cpu);
		meta(pf, "thread_name", KT_PERFETTO_CPU_PID, cpu, name);
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			KT_PERFETTO_CPU_PID, cpu, 2 * cpu);
		if (!pf->cs[cpu].irq_track)
			continue;
		snprintf(name, sizeof(name), "CPU %d irq", cpu);
		meta(pf, "thread_name", KT_PERFETTO_CPU_PID, IRQ_TID(cpu), name);
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			KT_PERFETTO_CPU_PID, IRQ_TID(cpu), 2 * cpu + 1);
	}
	for (i = 0; i < pf->ntasks; i++) {
		meta(pf, "process_name", pf->tasks[i].pid, pf->tasks[i].pid,
		     pf->tasks[i].comm);
		meta(pf, "thread_name", pf->tasks[i].pid, pf->tasks[i].pid,
		     pf->tasks[i].comm);
	}
	fputs("\n]}\n", pf->out);
	return ferror(pf->out) ? -EIO : 0;
}
