// SPDX-License-Identifier: GPL-2.0
/*
 * Trace-event JSON for chrome://tracing and Perfetto.  See chrome.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/kstack.h"
#include "decode/symbols.h"
#include "decode/ustack.h"
#include "file/reader.h"
#include "file/tgidmap.h"
#include "views/chrome.h"

struct run {
	bool on;		/* a task is running (not idle) */
	unsigned long long since;
	int pid;
	char comm[17];
};

struct task {
	int pid, tgid;
	char comm[17];
};

/*
 * What a CPU's last record wrote, held until the CPU's next record
 * shows whether stacks follow it (they are written after their event,
 * on its CPU); then written, with the stack's frame.
 */
struct pend {
	FILE *ms;		/* the objects (open_memstream) */
	char *buf;
	size_t len;
	bool esf;		/* the last is a run's slice: its end stack */
	bool sel;		/* the last record was selected */
	int cpu;
	int pid;		/* its task, and time */
	unsigned long long ts;
	bool stack;		/* a stack followed */
	int nk;			/* its kernel frames, innermost first */
	unsigned long long kst[KT_KSTACK_MAX];
	unsigned int uleaf;	/* its user stack's innermost frame, or 0 */
};

/* A frame of "stackFrames": its name under its parent (0: a root). */
struct frame {
	unsigned int parent;
	const char *cat;
	char *name;
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

struct kt_chrome {
	struct tep_handle *tep;
	FILE *out;		/* where objects go now: a CPU's pend, or real */
	FILE *real;		/* the caller's */
	bool esf;		/* the object begun last is a run's slice */
	unsigned long long last_ts;
	struct pend **pend;	/* per CPU */
	struct kt_tgidmap tg;
	struct kt_ustack *ustack;	/* user stacks' maps, or NULL */
	struct tep_format_field *utgid;	/* user_stack's tgid */
	struct frame *frames;	/* by id; 0 unused */
	unsigned int nframes, frames_cap;
	unsigned int *fhash;	/* ids, open addressing */
	size_t fhash_cap;
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

/* The process of a thread, as the recording stored it. */
#define TGID(pf, pid) kt_tgidmap_of(&(pf)->tg, (pid))

/* The pid of the interrupt track of a CPU: "CPU N irq", beside "CPU N". */
#define IRQ_TID(cpu) (KT_CHROME_IRQ_TID + (cpu))

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

static void find_pairs(struct kt_chrome *pf)
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

struct kt_chrome *kt_chrome_new(struct kt_reader *r, FILE *out)
{
	struct kt_chrome *pf = calloc(1, sizeof(*pf));
	struct tep_handle *tep = kt_reader_tep(r);
	struct tep_event *sw, *us;

	if (!pf)
		return NULL;
	pf->tep = tep;
	pf->out = pf->real = out;
	pf->machine = kt_reader_machine(r);
	pf->switch_id = -1;
	if (kt_tgidmap_load(&pf->tg, kt_reader_tgids(r))) {
		errno = ENOMEM;
		goto err;
	}
	us = tep_find_event_by_name(tep, "ftrace", "user_stack");
	if (us) {
		pf->utgid = tep_find_field(us, "tgid");
		pf->ustack = kt_ustack_new(r);
		if (!pf->ustack && errno != ENOENT)
			goto err;
	}
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
	/* The first object, so that every other begins with its comma. */
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"CPUs\"}}",
		KT_CHROME_CPU_PID);
	return pf;
err:
	kt_chrome_free(pf);
	return NULL;
}

void kt_chrome_free(struct kt_chrome *pf)
{
	int cpu;
	unsigned int i;

	if (!pf)
		return;
	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		if (pf->pend[cpu] && pf->pend[cpu]->ms)
			fclose(pf->pend[cpu]->ms);
		if (pf->pend[cpu])
			free(pf->pend[cpu]->buf);
		free(pf->pend[cpu]);
	}
	free(pf->pend);
	for (i = 1; i <= pf->nframes; i++)
		free(pf->frames[i].name);
	free(pf->frames);
	free(pf->fhash);
	kt_ustack_free(pf->ustack);
	kt_tgidmap_free(&pf->tg);
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

static void begin(struct kt_chrome *pf)
{
	fputs(",\n", pf->out);
	pf->esf = false;
}

static int grow_cpus(struct kt_chrome *pf, int cpu)
{
	struct cpu_state *c;
	struct pend **p;
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
	p = realloc(pf->pend, (size_t)(cpu + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + pf->ncpus, 0, (size_t)(cpu + 1 - pf->ncpus) * sizeof(*p));
	pf->pend = p;
	pf->ncpus = cpu + 1;
	return 0;
}

/* Remember a task's latest name for the thread_name metadata. */
static void name_task(struct kt_chrome *pf, int pid, const char *comm)
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
		pf->tasks[i].tgid = kt_tgidmap_of(&pf->tg, pid);
	}
	snprintf(pf->tasks[i].comm, sizeof(pf->tasks[i].comm), "%s", comm);
}

static void end_run(struct kt_chrome *pf, int cpu, unsigned long long ts)
{
	struct run *r = &pf->runs[cpu];

	if (!r->on)
		return;
	begin(pf);
	pf->esf = true;
	fputs("{\"ph\":\"X\",\"cat\":\"sched\",\"name\":", pf->out);
	{
		char name[40];

		snprintf(name, sizeof(name), "%s:%d", r->comm, r->pid);
		put_str(pf->out, name, sizeof(name));
	}
	fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", KT_CHROME_CPU_PID, cpu);
	put_us(pf->out, "ts", r->since);
	put_us(pf->out, "dur", ts - r->since);
	fprintf(pf->out, ",\"args\":{\"pid\":%d,\"tgid\":%d,\"comm\":", r->pid,
		kt_tgidmap_of(&pf->tg, r->pid));
	put_str(pf->out, r->comm, sizeof(r->comm));
	fputs("}}", pf->out);
	r->on = false;
}

static void on_switch(struct kt_chrome *pf, const struct kt_event *ev)
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

/* An array field's elements as numbers (null when they are not). */
static void put_array(struct kt_chrome *pf, const struct tep_format_field *f,
		      const char *p, int len)
{
	int es = f->elementsize, i;

	if (!p || len <= 0 || (es != 1 && es != 2 && es != 4 && es != 8)) {
		fputs("null", pf->out);
		return;
	}
	putc('[', pf->out);
	for (i = 0; i + es <= len; i += es)
		fprintf(pf->out, "%s%llu", i ? "," : "",
			tep_read_number(pf->tep, p + i, es));
	putc(']', pf->out);
}

/* An event's fields as JSON args: numbers, text for char arrays. */
static void put_fields(struct kt_chrome *pf, const struct kt_event *ev)
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
				put_array(pf, f, p, len);
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

static struct sys_open *sys_slot(struct kt_chrome *pf, int pid)
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
static void sys_del(struct kt_chrome *pf, struct sys_open *e)
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

static int sys_grow(struct kt_chrome *pf)
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

static void slice_head(struct kt_chrome *pf, char ph, const char *cat,
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

static const char *sys_name(struct kt_chrome *pf, long long nr, char *buf, size_t len)
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
static long long sys_nr(struct kt_chrome *pf, const struct kt_event *ev)
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
static int on_sys_enter(struct kt_chrome *pf, const struct kt_event *ev, int pid)
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
		slice_head(pf, 'E', "syscall", NULL, TGID(pf, pid), pid, rec->ts);
		fputs(",\"args\":{\"unfinished\":true}}", pf->out);
	} else {
		pf->sys_used++;
	}
	o->pid = pid;
	o->nr = nr;
	slice_head(pf, 'B', "syscall", sys_name(pf, nr, buf, sizeof(buf)), TGID(pf, pid),
		   pid, rec->ts);
	/* The entry's fields (id, or __syscall_nr and the named arguments). */
	put_fields(pf, ev);
	putc('}', pf->out);
	name_task(pf, pid, tep_data_comm_from_pid(pf->tep, pid));
	return 0;
}

/* sys_exit: the "E" of the task's open call; 1 when there is none. */
static int on_sys_exit(struct kt_chrome *pf, const struct kt_event *ev, int pid)
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
	slice_head(pf, 'E', "syscall", NULL, TGID(pf, pid), pid, rec->ts);
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
static int on_irq(struct kt_chrome *pf, const struct kt_event *ev)
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
			slice_head(pf, 'E', "irq", NULL, KT_CHROME_CPU_PID, tid, rec->ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
		c->hard.on = true;
		c->hard.nr = (unsigned long long)field_num(pf->pr.hard_irq, rec);
		n = tep_get_field_raw(NULL, ev->event, "name", (struct tep_record *)rec, &len, 0);
		snprintf(name, sizeof(name), "irq %llu %.*s", c->hard.nr,
			 n ? (int)strnlen(n, len > 0 ? (size_t)len : 0) : 0, n ? n : "");
		slice_head(pf, 'B', "irq", name, KT_CHROME_CPU_PID, tid, rec->ts);
		fprintf(pf->out, ",\"args\":{\"irq\":%llu}}", c->hard.nr);
		return 0;
	}
	if (id == pf->pr.hard_exit) {
		if (!c->hard.on)
			return 1;
		c->hard.on = false;
		slice_head(pf, 'E', "irq", NULL, KT_CHROME_CPU_PID, tid, rec->ts);
		fprintf(pf->out, ",\"args\":{\"ret\":\"%s\"}}",
			field_num(pf->pr.hard_ret, rec) ? "handled" : "unhandled");
		return 0;
	}
	if (id == pf->pr.soft_entry) {
		unsigned long long vec = (unsigned long long)field_num(pf->pr.soft_vec, rec);
		const char *vn = kt_softirq_name(vec);

		if (c->soft.on) {
			slice_head(pf, 'E', "softirq", NULL, KT_CHROME_CPU_PID, tid, rec->ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
		c->soft.on = true;
		c->soft.nr = vec;
		if (vn)
			snprintf(name, sizeof(name), "softirq %s", vn);
		else
			snprintf(name, sizeof(name), "softirq %llu", vec);
		slice_head(pf, 'B', "softirq", name, KT_CHROME_CPU_PID, tid, rec->ts);
		fprintf(pf->out, ",\"args\":{\"vec\":%llu}}", vec);
		return 0;
	}
	/* softirq_exit */
	if (!c->soft.on ||
	    c->soft.nr != (unsigned long long)field_num(pf->pr.soft_exit_vec, rec))
		return 1;
	c->soft.on = false;
	slice_head(pf, 'E', "softirq", NULL, KT_CHROME_CPU_PID, tid, rec->ts);
	fprintf(pf->out, ",\"args\":{\"vec\":%llu}}", c->soft.nr);
	return 0;
}

static enum kind kind_of(struct kt_chrome *pf, const struct tep_event *e)
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
static int on_pair(struct kt_chrome *pf, const struct kt_event *ev, int pid)
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

/* ---- stacks: frames interned, given to the event they follow ---- */

static size_t frame_hash(unsigned int parent, const char *name)
{
	size_t h = parent * 2654435761u;

	while (*name)
		h = h * 31 + (unsigned char)*name++;
	return h;
}

static int fhash_grow(struct kt_chrome *pf)
{
	size_t cap = pf->fhash_cap ? pf->fhash_cap * 2 : 1024, i, j;
	unsigned int *h;

	if ((pf->nframes + 1) * 2 <= pf->fhash_cap)
		return 0;
	h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < pf->fhash_cap; i++) {
		unsigned int id = pf->fhash[i];

		if (!id)
			continue;
		j = frame_hash(pf->frames[id].parent, pf->frames[id].name) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = id;
	}
	free(pf->fhash);
	pf->fhash = h;
	pf->fhash_cap = cap;
	return 0;
}

/* The id of frame name (of category cat) under parent: 0 when out of memory. */
static unsigned int frame_id(struct kt_chrome *pf, unsigned int parent,
			     const char *name, const char *cat)
{
	size_t j;
	unsigned int id;

	if (fhash_grow(pf))
		return 0;
	j = frame_hash(parent, name) & (pf->fhash_cap - 1);
	for (; (id = pf->fhash[j]); j = (j + 1) & (pf->fhash_cap - 1))
		if (pf->frames[id].parent == parent && !strcmp(pf->frames[id].name, name))
			return id;
	if (pf->nframes + 2 > pf->frames_cap) {
		unsigned int cap = pf->frames_cap ? pf->frames_cap * 2 : 1024;
		struct frame *f = realloc(pf->frames, cap * sizeof(*f));

		if (!f)
			return 0;
		pf->frames = f;
		pf->frames_cap = cap;
	}
	id = pf->nframes + 1;
	pf->frames[id].name = strdup(name);
	if (!pf->frames[id].name)
		return 0;
	pf->frames[id].parent = parent;
	pf->frames[id].cat = cat;
	pf->nframes = id;
	pf->fhash[j] = id;
	return id;
}

static bool is_stack(const struct tep_event *e, const char *name)
{
	return !strcmp(e->system, "ftrace") && !strcmp(e->name, name);
}

/*
 * A user_stack record: its frames, outermost first, interned as the
 * CPU's held user stack.  The frame named for its function (or
 * PATH+0xOFF, or its address), of category "user".
 */
static int on_user_stack(struct kt_chrome *pf, const struct kt_event *ev,
			 struct pend *p)
{
	unsigned long long a[KT_USTACK_MAX], tgid = 0;
	unsigned int id = 0;
	char name[512];
	int n, i;

	n = kt_kstack_read(pf->tep, ev->event, ev->record, a, KT_USTACK_MAX, true);
	if (n <= 0)
		return 0;
	if (pf->utgid)
		tep_read_number_field(pf->utgid, ev->record->data, &tgid);
	for (i = n - 1; i >= 0; i--) {
		struct kt_uframe f = { 0 };

		if (!a[i])
			continue;
		if (pf->ustack)
			kt_ustack_frame(pf->ustack, (int)tgid, ev->record->ts, a[i], &f);
		if (f.sym)
			snprintf(name, sizeof(name), "%s", f.sym);
		else if (f.path)
			snprintf(name, sizeof(name), "%s+0x%llx", f.path, (unsigned long long)f.off);
		else
			snprintf(name, sizeof(name), "0x%llx", a[i]);
		id = frame_id(pf, id, name, "user");
		if (!id)
			return -ENOMEM;
	}
	if (id) {
		p->uleaf = id;
		p->stack = true;
	}
	return 0;
}

/* A stack record: held with the CPU's last record, to go with it. */
static int on_stack(struct kt_chrome *pf, const struct kt_event *ev, struct pend *p)
{
	int n;

	if (is_stack(ev->event, "user_stack"))
		return on_user_stack(pf, ev, p);
	n = kt_kstack_read(pf->tep, ev->event, ev->record, p->kst, KT_KSTACK_MAX, true);
	if (n <= 0)
		return 0;	/* no frames: nothing to name */
	p->nk = n;
	p->stack = true;
	return 0;
}

/* The innermost frame of the held stacks: the user's, the kernel's on top. */
static unsigned int held_leaf(struct kt_chrome *pf, struct pend *p)
{
	unsigned int id = p->uleaf;
	char hex[24];
	int i;

	for (i = p->nk - 1; i >= 0; i--) {
		const char *name = tep_find_function(pf->tep, p->kst[i]);

		if (!name) {
			snprintf(hex, sizeof(hex), "0x%llx", p->kst[i]);
			name = hex;
		}
		id = frame_id(pf, id, name, "kernel");
		if (!id)
			return 0;
	}
	return id;
}

/* Write what a CPU holds, with its stack; 0 or -errno. */
static int flush_pend(struct kt_chrome *pf, struct pend *p)
{
	unsigned int leaf = 0;

	if (!p->ms)
		return 0;
	if (fflush(p->ms))
		return -ENOMEM;
	if (p->stack) {
		leaf = held_leaf(pf, p);
		if (!leaf)
			return -ENOMEM;
	}
	if (leaf && p->len && p->buf[p->len - 1] == '}') {
		fwrite(p->buf, 1, p->len - 1, pf->real);
		fprintf(pf->real, ",\"%s\":\"%u\"}", p->esf ? "esf" : "sf", leaf);
	} else {
		fwrite(p->buf, 1, p->len, pf->real);
		if (leaf && p->sel) {
			/* Its event made no trace event: the stack on its own. */
			fprintf(pf->real, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"stack\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d",
				p->nk ? "kernel_stack" : "user_stack",
				p->pid > 0 ? TGID(pf, p->pid) : KT_CHROME_CPU_PID,
				p->pid > 0 ? p->pid : p->cpu);
			put_us(pf->real, "ts", p->ts);
			fprintf(pf->real, ",\"sf\":\"%u\"}", leaf);
		}
	}
	rewind(p->ms);
	p->len = 0;
	p->stack = false;
	p->nk = 0;
	p->uleaf = 0;
	return ferror(pf->real) ? -EIO : 0;
}

/* A probe's system is ktrace_PID, a new one each recording: one name for all. */
static const char *category(const char *sys)
{
	if (!strncmp(sys, "ktrace_", 7) && sys[7] &&
	    strspn(sys + 7, "0123456789") == strlen(sys + 7))
		return "probe";
	return sys;
}

/* A record that is not a stack: its objects, to the CPU's pend. */
static int add_record(struct kt_chrome *pf, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	int pid, ret;

	if (rec->missed_events) {
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"lost\",\"name\":\"events lost\",\"pid\":%d,\"tid\":%d",
			KT_CHROME_CPU_PID, ev->cpu);
		put_us(pf->out, "ts", rec->ts);
		if (rec->missed_events > 0)
			fprintf(pf->out, ",\"args\":{\"lost\":%lld}}", rec->missed_events);
		else
			fputs(",\"args\":{\"lost\":null}}", pf->out);
	}
	if (!ev->selected)
		return 0;
	if (ev->event->id == pf->switch_id) {
		on_switch(pf, ev);
		return 0;
	}
	pid = tep_data_pid(pf->tep, rec);
	ret = on_pair(pf, ev, pid);
	if (ret <= 0)
		return ret;
	begin(pf);
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":", pf->out);
	put_str(pf->out, category(ev->event->system), 64);
	fputs(",\"name\":", pf->out);
	put_str(pf->out, ev->event->name, 128);
	if (pid > 0) {
		fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", TGID(pf, pid), pid);
		name_task(pf, pid, tep_data_comm_from_pid(pf->tep, pid));
	} else {
		fprintf(pf->out, ",\"pid\":%d,\"tid\":%d", KT_CHROME_CPU_PID, ev->cpu);
	}
	put_us(pf->out, "ts", rec->ts);
	put_fields(pf, ev);
	putc('}', pf->out);
	return 0;
}

int kt_chrome_add(const struct kt_event *ev, void *arg)
{
	struct kt_chrome *pf = arg;
	struct tep_record *rec = ev->record;
	struct pend *p;
	int ret;

	ret = grow_cpus(pf, ev->cpu);
	if (ret)
		return ret;
	if (rec->ts > pf->last_ts)
		pf->last_ts = rec->ts;
	p = pf->pend[ev->cpu];
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		pf->pend[ev->cpu] = p;
		p->cpu = ev->cpu;
		p->ms = open_memstream(&p->buf, &p->len);
		if (!p->ms)
			return -ENOMEM;
	}
	if (is_stack(ev->event, "kernel_stack") || is_stack(ev->event, "user_stack"))
		return on_stack(pf, ev, p);
	ret = flush_pend(pf, p);
	if (ret)
		return ret;
	p->sel = ev->selected;
	p->pid = tep_data_pid(pf->tep, rec);
	p->ts = rec->ts;
	pf->out = p->ms;
	ret = add_record(pf, ev);
	pf->out = pf->real;
	p->esf = pf->esf;
	if (ret)
		return ret;
	return ferror(p->ms) ? -ENOMEM : 0;
}

static void meta(struct kt_chrome *pf, const char *what, int pid, int tid,
		 const char *name)
{
	begin(pf);
	fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		what, pid, tid);
	put_str(pf->out, name, 64);
	fputs("}}", pf->out);
}

static int by_tgid(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	if (x->tgid != y->tgid)
		return (x->tgid > y->tgid) - (x->tgid < y->tgid);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* "stackFrames": every frame by id, its parent named. */
static void put_frames(struct kt_chrome *pf)
{
	unsigned int i;

	fputs(",\n\"stackFrames\":{", pf->out);
	for (i = 1; i <= pf->nframes; i++) {
		fprintf(pf->out, "%s\n\"%u\":{\"category\":\"%s\",\"name\":", i > 1 ? "," : "",
			i, pf->frames[i].cat);
		put_str(pf->out, pf->frames[i].name, 512);
		if (pf->frames[i].parent)
			fprintf(pf->out, ",\"parent\":\"%u\"", pf->frames[i].parent);
		putc('}', pf->out);
	}
	fputs("}", pf->out);
}

/* A process's name: its leader's comm, else the first thread's. */
static const char *process_name(struct kt_chrome *pf, size_t first, size_t end)
{
	size_t i;

	for (i = first; i < end; i++)
		if (pf->tasks[i].pid == pf->tasks[i].tgid)
			return pf->tasks[i].comm;
	return tep_data_comm_from_pid(pf->tep, pf->tasks[first].tgid);
}

int kt_chrome_finish(struct kt_chrome *pf)
{
	char name[32];
	size_t i, j;
	int cpu, ret;

	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		ret = pf->pend[cpu] ? flush_pend(pf, pf->pend[cpu]) : 0;
		if (ret)
			return ret;
	}
	for (cpu = 0; cpu < pf->ncpus; cpu++)
		end_run(pf, cpu, pf->last_ts);
	/* Slices still open at the end close there, marked unfinished. */
	for (i = 0; i < pf->sys_cap; i++) {
		if (!pf->sys[i].pid)
			continue;
		slice_head(pf, 'E', "syscall", NULL, TGID(pf, pf->sys[i].pid), pf->sys[i].pid,
			   pf->last_ts);
		fputs(",\"args\":{\"unfinished\":true}}", pf->out);
	}
	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		if (pf->cs[cpu].hard.on) {
			slice_head(pf, 'E', "irq", NULL, KT_CHROME_CPU_PID, IRQ_TID(cpu), pf->last_ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
		if (pf->cs[cpu].soft.on) {
			slice_head(pf, 'E', "softirq", NULL, KT_CHROME_CPU_PID, IRQ_TID(cpu), pf->last_ts);
			fputs(",\"args\":{\"unfinished\":true}}", pf->out);
		}
	}
	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		snprintf(name, sizeof(name), "CPU %d", cpu);
		meta(pf, "thread_name", KT_CHROME_CPU_PID, cpu, name);
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			KT_CHROME_CPU_PID, cpu, 2 * cpu);
		if (!pf->cs[cpu].irq_track)
			continue;
		snprintf(name, sizeof(name), "CPU %d irq", cpu);
		meta(pf, "thread_name", KT_CHROME_CPU_PID, IRQ_TID(cpu), name);
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			KT_CHROME_CPU_PID, IRQ_TID(cpu), 2 * cpu + 1);
	}
	/* Threads under their process: a process_name per tgid. */
	if (pf->ntasks)
		qsort(pf->tasks, pf->ntasks, sizeof(*pf->tasks), by_tgid);
	for (i = 0; i < pf->ntasks; i = j) {
		const char *pn;

		for (j = i; j < pf->ntasks && pf->tasks[j].tgid == pf->tasks[i].tgid; j++)
			;
		pn = process_name(pf, i, j);
		meta(pf, "process_name", pf->tasks[i].tgid, pf->tasks[i].tgid,
		     pn ? pn : pf->tasks[i].comm);
		for (; i < j; i++)
			meta(pf, "thread_name", pf->tasks[i].tgid, pf->tasks[i].pid,
			     pf->tasks[i].comm);
	}
	fputs("\n]", pf->out);
	put_frames(pf);
	fputs("}\n", pf->out);
	return ferror(pf->out) ? -EIO : 0;
}
