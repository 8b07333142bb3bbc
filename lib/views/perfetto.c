// SPDX-License-Identifier: GPL-2.0
/*
 * Trace-event JSON for Perfetto and chrome://tracing.  See perfetto.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

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
};

struct kt_perfetto *kt_perfetto_new(struct tep_handle *tep, FILE *out)
{
	struct kt_perfetto *pf = calloc(1, sizeof(*pf));
	struct tep_event *sw;

	if (!pf)
		return NULL;
	pf->tep = tep;
	pf->out = out;
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
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	return pf;
}

void kt_perfetto_free(struct kt_perfetto *pf)
{
	if (!pf)
		return;
	free(pf->runs);
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
	meta(pf, "process_name", KT_PERFETTO_CPU_PID, 0, "CPUs");
	for (cpu = 0; cpu < pf->ncpus; cpu++) {
		snprintf(name, sizeof(name), "CPU %d", cpu);
		meta(pf, "thread_name", KT_PERFETTO_CPU_PID, cpu, name);
		begin(pf);
		fprintf(pf->out, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			KT_PERFETTO_CPU_PID, cpu, cpu);
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
