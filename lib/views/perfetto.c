// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto's protobuf trace of a recording.  See perfetto.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/ustack.h"
#include "file/reader.h"
#include "file/tgidmap.h"
#include "file/wallclock.h"
#include "views/pfarena.h"
#include "views/pfbundle.h"
#include "views/pfevent.h"
#include "views/pfstack.h"
#include "views/perfetto.h"

/* A task the events name: open addressing on pid (0: a free slot). */
struct task {
	int pid;
	char comm[17];		/* from a switch or waking; "" not seen */
};

/* Per CPU: its bundle, and what its stats say. */
struct cpu {
	struct kt_pfbundle *b;
	unsigned long long events, lost;
	bool last_sel;		/* its last record was selected: a stack after is its */
};

/* The fields of an event that name tasks (pid, child_pid...), by event id. */
struct task_fields {
	bool seen;
	struct tep_format_field *f[3];
};

/* The fields the compact form takes. */
struct sched_fields {
	int id;			/* -1: not in the file */
	struct tep_format_field *pid, *comm, *prio, *a, *b;
};

struct kt_perfetto {
	struct tep_handle *tep;
	char sysname[32], release[128], machine[32];
	int ncpus_file;
	FILE *out;
	bool compact;
	struct kt_tgidmap tg;
	struct kt_wallclock wall;
	struct kt_pfevent *ev;
	struct kt_ustack *ustack;	/* user stacks' maps, or NULL */
	struct kt_pfstack *stacks;
	struct cpu *cpus;
	int ncpus;
	struct task *tasks;
	size_t ntasks, tasks_cap;
	bool any;
	unsigned long long first_ts, last_ts;
	/* sched_switch: next_pid, next_comm, next_prio, prev_state;
	 * sched_waking: pid, comm, prio, target_cpu; sched_wakeup*: pid, comm */
	struct sched_fields sw, wk, wu, wn;
	struct tep_format_field *wk_flags;	/* sched_waking's common_flags */
	struct task_fields *tf;		/* by event id */
	int ntf;
};

static void find_sched(struct tep_handle *tep, const char *name, const char *pid,
		       const char *comm, const char *prio, const char *a,
		       struct sched_fields *s)
{
	struct tep_event *e = tep_find_event_by_name(tep, "sched", name);

	s->id = -1;
	if (!e)
		return;
	s->pid = tep_find_field(e, pid);
	s->comm = tep_find_field(e, comm);
	s->prio = prio ? tep_find_field(e, prio) : NULL;
	s->a = a ? tep_find_field(e, a) : NULL;
	if (s->pid && s->comm && (!prio || s->prio) && (!a || s->a))
		s->id = e->id;
}

/* The system's name and release: uname's "Linux HOST RELEASE ... MACHINE". */
static void uname_words(const char *u, char *sys, size_t slen, char *rel, size_t rlen)
{
	const char *host, *r;

	*sys = *rel = 0;
	if (!u)
		return;
	snprintf(sys, slen, "%.*s", (int)strcspn(u, " "), u);
	host = u + strcspn(u, " ");
	host += strspn(host, " ");
	r = host + strcspn(host, " ");
	r += strspn(r, " ");
	snprintf(rel, rlen, "%.*s", (int)strcspn(r, " "), r);
}

static int write_system(struct kt_perfetto *pf);

struct kt_perfetto *kt_perfetto_new(struct kt_reader *r, bool compact, FILE *out)
{
	struct kt_perfetto *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pf->tep = kt_reader_tep(r);
	pf->out = out;
	uname_words(kt_reader_uname(r), pf->sysname, sizeof(pf->sysname),
		    pf->release, sizeof(pf->release));
	snprintf(pf->machine, sizeof(pf->machine), "%s",
		 kt_reader_machine(r) ? kt_reader_machine(r) : "");
	pf->ncpus_file = kt_reader_cpus(r);
	pf->compact = compact;
	if (kt_wallclock_parse(kt_reader_wall_clock(r), &pf->wall))
		memset(&pf->wall, 0, sizeof(pf->wall));
	if (kt_tgidmap_load(&pf->tg, kt_reader_tgids(r)))
		goto err;
	pf->ev = kt_pfevent_new(pf->tep, pf->machine[0] ? pf->machine : NULL);
	if (!pf->ev)
		goto err;
	if (tep_find_event_by_name(pf->tep, "ftrace", "user_stack")) {
		pf->ustack = kt_ustack_new(r);
		if (!pf->ustack && errno != ENOENT)
			goto err;
	}
	pf->stacks = kt_pfstack_new(pf->tep, pf->ustack);
	if (!pf->stacks)
		goto err;
	find_sched(pf->tep, "sched_switch", "next_pid", "next_comm", "next_prio",
		   "prev_state", &pf->sw);
	find_sched(pf->tep, "sched_waking", "pid", "comm", "prio", "target_cpu", &pf->wk);
	if (pf->wk.id >= 0)
		pf->wk_flags = tep_find_common_field(tep_find_event(pf->tep, pf->wk.id),
						     "common_flags");
	find_sched(pf->tep, "sched_wakeup", "pid", "comm", NULL, NULL, &pf->wu);
	find_sched(pf->tep, "sched_wakeup_new", "pid", "comm", NULL, NULL, &pf->wn);
	/* The kernel first: Perfetto reads the switches after by it. */
	if (write_system(pf)) {
		kt_perfetto_free(pf);
		errno = EIO;
		return NULL;
	}
	return pf;
err:
	kt_perfetto_free(pf);
	errno = ENOMEM;
	return NULL;
}

void kt_perfetto_free(struct kt_perfetto *pf)
{
	int i;

	if (!pf)
		return;
	for (i = 0; i < pf->ncpus; i++)
		kt_pfbundle_free(pf->cpus[i].b);
	free(pf->cpus);
	free(pf->tasks);
	free(pf->tf);
	kt_pfevent_free(pf->ev);
	kt_pfstack_free(pf->stacks);
	kt_ustack_free(pf->ustack);
	kt_tgidmap_free(&pf->tg);
	free(pf);
}

static struct cpu *cpu_of(struct kt_perfetto *pf, int cpu)
{
	struct cpu *c;

	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if (cpu >= pf->ncpus) {
		c = realloc(pf->cpus, (size_t)(cpu + 1) * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + pf->ncpus, 0, (size_t)(cpu + 1 - pf->ncpus) * sizeof(*c));
		pf->cpus = c;
		pf->ncpus = cpu + 1;
	}
	c = &pf->cpus[cpu];
	if (!c->b)
		c->b = kt_pfbundle_new((unsigned int)cpu);
	return c->b ? c : NULL;
}

static size_t task_slot(const struct kt_perfetto *pf, int pid)
{
	size_t i;

	for (i = ((unsigned int)pid * 2654435761u) & (pf->tasks_cap - 1);
	     pf->tasks[i].pid && pf->tasks[i].pid != pid; i = (i + 1) & (pf->tasks_cap - 1))
		;
	return i;
}

/* Remember a task for the process tree, with its comm when given. */
static int note_task(struct kt_perfetto *pf, int pid, const char *comm, int len)
{
	size_t i;

	if (pid <= 0)
		return 0;
	if ((pf->ntasks + 1) * 2 > pf->tasks_cap) {
		struct task *old = pf->tasks;
		size_t cap = pf->tasks_cap, k;

		pf->tasks_cap = cap ? cap * 2 : 1024;
		pf->tasks = calloc(pf->tasks_cap, sizeof(*pf->tasks));
		if (!pf->tasks) {
			pf->tasks = old;
			pf->tasks_cap = cap;
			return -ENOMEM;
		}
		for (k = 0; k < cap; k++)
			if (old[k].pid)
				pf->tasks[task_slot(pf, old[k].pid)] = old[k];
		free(old);
	}
	i = task_slot(pf, pid);
	if (!pf->tasks[i].pid) {
		pf->tasks[i].pid = pid;
		pf->ntasks++;
	}
	if (comm && len > 0)
		snprintf(pf->tasks[i].comm, sizeof(pf->tasks[i].comm), "%.*s",
			 (int)strnlen(comm, (size_t)len), comm);
	return 0;
}

static long long field(const struct tep_format_field *f, const struct tep_record *rec)
{
	unsigned long long v = 0;

	tep_read_number_field((struct tep_format_field *)f, rec->data, &v);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
	    (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	return (long long)v;
}

/* A wakee or the next task, remembered with its comm; the comm's text. */
static const char *sched_task(struct kt_perfetto *pf, const struct sched_fields *s,
			      const struct kt_event *ev, char comm[17], int *ret)
{
	int len = 0;
	const char *c = tep_get_field_raw(NULL, ev->event, s->comm->name, ev->record, &len, 0);

	snprintf(comm, 17, "%.*s", c ? (int)strnlen(c, len > 0 ? (size_t)len : 0) : 0,
		 c ? c : "");
	*ret = note_task(pf, (int)field(s->pid, ev->record), comm, 16);
	return comm;
}

/*
 * Every task a scheduler, task or signal event names (a wakee, a child,
 * a task waited for) goes in the process tree, as well as the tasks
 * that emit events.
 */
static int note_named(struct kt_perfetto *pf, const struct kt_event *ev)
{
	static const char *const names[] = {
		"pid", "next_pid", "prev_pid", "child_pid", "parent_pid",
	};
	struct tep_event *e = ev->event;
	struct task_fields *t;
	size_t i, n = 0;
	int ret = 0;

	if (e->id < 0 || e->id > 65535)
		return 0;
	if (e->id >= pf->ntf) {
		int cap = e->id + 1 > 2 * pf->ntf ? e->id + 1 : 2 * pf->ntf;
		struct task_fields *v = realloc(pf->tf, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + pf->ntf, 0, (size_t)(cap - pf->ntf) * sizeof(*v));
		pf->tf = v;
		pf->ntf = cap;
	}
	t = &pf->tf[e->id];
	if (!t->seen) {
		t->seen = true;
		if (!strcmp(e->system, "sched") || !strcmp(e->system, "task") ||
		    !strcmp(e->system, "signal"))
			for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < 3; i++) {
				struct tep_format_field *f = tep_find_field(e, names[i]);

				if (f && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)))
					t->f[n++] = f;
			}
	}
	for (i = 0; i < 3 && t->f[i] && !ret; i++)
		ret = note_task(pf, (int)field(t->f[i], ev->record), NULL, 0);
	return ret;
}

static int add_record(struct kt_perfetto *pf, struct cpu *c, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	int id = ev->event->id, ret = 0;
	char comm[17];

	ret = note_task(pf, tep_data_pid(pf->tep, rec), NULL, 0);
	if (!ret)
		ret = note_named(pf, ev);
	if (ret)
		return ret;
	if (pf->compact && id == pf->sw.id) {
		sched_task(pf, &pf->sw, ev, comm, &ret);
		if (ret)
			return ret;
		return kt_pfbundle_switch(c->b, rec->ts, field(pf->sw.a, rec),
					  (int32_t)field(pf->sw.pid, rec),
					  (int32_t)field(pf->sw.prio, rec), comm);
	}
	if (pf->compact && id == pf->wk.id) {
		struct tep_format_field *cf = pf->wk_flags;

		sched_task(pf, &pf->wk, ev, comm, &ret);
		if (ret)
			return ret;
		return kt_pfbundle_waking(c->b, rec->ts, (int32_t)field(pf->wk.pid, rec),
					  (int32_t)field(pf->wk.a, rec),
					  (int32_t)field(pf->wk.prio, rec), comm,
					  cf ? (uint32_t)field(cf, rec) : 0);
	}
	if (id == pf->sw.id || id == pf->wk.id || id == pf->wu.id || id == pf->wn.id) {
		const struct sched_fields *s = id == pf->sw.id ? &pf->sw : id == pf->wk.id ?
					       &pf->wk : id == pf->wu.id ? &pf->wu : &pf->wn;

		sched_task(pf, s, ev, comm, &ret);
		if (ret)
			return ret;
	}
	{
		Perfetto__Protos__FtraceEvent *fe = kt_pfbundle_event(c->b);
		const Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor *ged;

		if (!fe)
			return -ENOMEM;
		ret = kt_pfevent_fill(pf->ev, ev, fe, kt_pfbundle_arena(c->b), &ged);
		return ret || !ged ? ret : kt_pfbundle_describe(c->b, ged);
	}
}

int kt_perfetto_add(const struct kt_event *ev, void *arg)
{
	struct kt_perfetto *pf = arg;
	struct tep_record *rec = ev->record;
	struct cpu *c = cpu_of(pf, ev->cpu);
	int ret;

	if (!c)
		return ev->cpu < 0 || ev->cpu >= 65536 ? -EINVAL : -ENOMEM;
	if (rec->missed_events) {
		/* The loss is before this record: the bundle after it says so. */
		ret = kt_pfbundle_write(c->b, pf->out);
		if (ret)
			return ret;
		kt_pfbundle_lost(c->b);
		if (rec->missed_events > 0)
			c->lost += (unsigned long long)rec->missed_events;
	}
	if (kt_pfstack_is_stack(ev->event)) {
		/* The stack of the CPU's last record, when that is selected. */
		int pid = tep_data_pid(pf->tep, rec);

		if (!c->last_sel)
			return 0;
		ret = note_task(pf, pid, NULL, 0);
		return ret ? ret : kt_pfstack_write(pf->stacks, ev, kt_tgidmap_of(&pf->tg, pid),
						    pid, pf->out);
	}
	c->last_sel = ev->selected;
	if (!ev->selected)
		return 0;
	if (!pf->any)
		pf->first_ts = rec->ts;
	pf->any = true;
	if (rec->ts > pf->last_ts)
		pf->last_ts = rec->ts;
	ret = add_record(pf, c, ev);
	if (ret)
		return ret;
	c->events++;
	if (kt_pfbundle_count(c->b) >= KT_PFBUNDLE_EVENTS)
		return kt_pfbundle_write(c->b, pf->out);
	return 0;
}

/* ---- the packets at the end ---- */

static int by_pid(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const char *comm_of(struct kt_perfetto *pf, const struct task *t)
{
	const char *c = tep_data_comm_from_pid(pf->tep, t->pid);

	/* The file's saved comm, else the one an event gave, else "". */
	if (c && strcmp(c, "<...>"))
		return c;
	return t->comm;
}

static const struct task *find_task(const struct task *v, size_t n, int pid)
{
	struct task key = { .pid = pid };

	return bsearch(&key, v, n, sizeof(*v), by_pid);
}

/*
 * Every task as a thread of its process, every process once: its pid
 * the tgid, its command line its leader's comm (all a recording has).
 */
static int write_tree_packet(struct kt_perfetto *pf, struct kt_pfarena *a)
{
	Perfetto__Protos__ProcessTree tree = PERFETTO__PROTOS__PROCESS_TREE__INIT;
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	struct task *v;
	size_t n = 0, i;

	/* The tasks packed and sorted by pid. */
	v = kt_pfarena_alloc(a, (pf->ntasks ? pf->ntasks : 1) * sizeof(*v));
	tree.processes = kt_pfarena_alloc(a, (pf->ntasks ? pf->ntasks : 1) * sizeof(*tree.processes));
	tree.threads = kt_pfarena_alloc(a, (pf->ntasks ? pf->ntasks : 1) * sizeof(*tree.threads));
	if (!v || !tree.processes || !tree.threads)
		return -ENOMEM;
	for (i = 0; i < pf->tasks_cap; i++)
		if (pf->tasks[i].pid)
			v[n++] = pf->tasks[i];
	qsort(v, n, sizeof(*v), by_pid);
	for (i = 0; i < n; i++) {
		int tgid = kt_tgidmap_of(&pf->tg, v[i].pid);
		const struct task *leader;

		if (tgid != v[i].pid) {
			Perfetto__Protos__ProcessTree__Thread *t = kt_pfarena_alloc(a, sizeof(*t));

			if (!t)
				return -ENOMEM;
			perfetto__protos__process_tree__thread__init(t);
			t->has_tid = t->has_tgid = 1;
			t->tid = v[i].pid;
			t->tgid = tgid;
			t->name = *comm_of(pf, &v[i]) ? (char *)comm_of(pf, &v[i]) : NULL;
			tree.threads[tree.n_threads++] = t;
			/*
			 * Its process, when no event named the leader, or
			 * the map makes the leader's pid a thread of another
			 * process (a pid reused, a series of chunks): the
			 * leader's own turn writes it only as its own tgid.
			 */
			leader = find_task(v, n, tgid);
			if (leader && kt_tgidmap_of(&pf->tg, tgid) == tgid)
				continue;
		}
		{
			Perfetto__Protos__ProcessTree__Process *pr = kt_pfarena_alloc(a, sizeof(*pr));
			char **cmd = kt_pfarena_alloc(a, sizeof(*cmd));
			struct task lt = { .pid = tgid };
			size_t k;

			if (!pr || !cmd)
				return -ENOMEM;
			/* A process named by two of its threads: once. */
			for (k = 0; k < tree.n_processes; k++)
				if (tree.processes[k]->pid == tgid)
					break;
			if (k < tree.n_processes)
				continue;
			perfetto__protos__process_tree__process__init(pr);
			pr->has_pid = 1;
			pr->pid = tgid;
			*cmd = (char *)comm_of(pf, tgid == v[i].pid ? &v[i] : &lt);
			if (!**cmd)
				*cmd = (char *)comm_of(pf, &v[i]);
			/* A process no comm names has no command line. */
			pr->n_cmdline = **cmd ? 1 : 0;
			pr->cmdline = cmd;
			pr->has_cmdline_is_comm = 1;
			pr->cmdline_is_comm = 1;
			tree.processes[tree.n_processes++] = pr;
		}
	}
	p.has_timestamp = 1;
	p.timestamp = pf->first_ts;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE;
	p.process_tree = &tree;
	return kt_pfbundle_put_packet(&p, pf->out);
}

/* The stats at a phase: per CPU, events written and lost. */
static int write_stats(struct kt_perfetto *pf, struct kt_pfarena *a,
		       Perfetto__Protos__FtraceStats__Phase phase)
{
	Perfetto__Protos__FtraceStats st = PERFETTO__PROTOS__FTRACE_STATS__INIT;
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	bool end = phase == PERFETTO__PROTOS__FTRACE_STATS__PHASE__END_OF_TRACE;
	int i;

	st.has_phase = 1;
	st.phase = phase;
	st.cpu_stats = kt_pfarena_alloc(a, (pf->ncpus ? (size_t)pf->ncpus : 1) * sizeof(*st.cpu_stats));
	if (!st.cpu_stats)
		return -ENOMEM;
	for (i = 0; i < pf->ncpus; i++) {
		Perfetto__Protos__FtraceCpuStats *cs = kt_pfarena_alloc(a, sizeof(*cs));

		if (!cs)
			return -ENOMEM;
		perfetto__protos__ftrace_cpu_stats__init(cs);
		cs->has_cpu = cs->has_overrun = cs->has_read_events = 1;
		cs->cpu = (uint64_t)i;
		cs->overrun = end ? pf->cpus[i].lost : 0;
		cs->read_events = end ? pf->cpus[i].events : 0;
		st.cpu_stats[st.n_cpu_stats++] = cs;
	}
	p.has_timestamp = 1;
	p.timestamp = end ? pf->last_ts : pf->first_ts;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_STATS;
	p.ftrace_stats = &st;
	return kt_pfbundle_put_packet(&p, pf->out);
}

/*
 * The traced kernel: its release tells Perfetto how prev_state reads
 * (without one it takes a 4.4 kernel, and 6.x's preempted for waking).
 */
static int write_system(struct kt_perfetto *pf)
{
	Perfetto__Protos__SystemInfo si = PERFETTO__PROTOS__SYSTEM_INFO__INIT;
	Perfetto__Protos__Utsname un = PERFETTO__PROTOS__UTSNAME__INIT;
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	if (pf->release[0]) {
		un.sysname = pf->sysname;
		un.release = pf->release;
		if (pf->machine[0])
			un.machine = pf->machine;
		si.utsname = &un;
	}
	if (pf->ncpus_file > 0) {
		si.has_num_cpus = 1;
		si.num_cpus = (uint32_t)pf->ncpus_file;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO;
	p.system_info = &si;
	/* The sequence's start: the stacks' interned data comes after. */
	p.has_sequence_flags = 1;
	p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	return kt_pfbundle_put_packet(&p, pf->out);
}

/* The trace clock (BOOTTIME to Perfetto) against REALTIME, when known. */
static int write_clock(struct kt_perfetto *pf)
{
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock boot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock real = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[2] = { &boot, &real };
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	long long rt;

	if (!kt_wallclock_known(&pf->wall) || !pf->any)
		return 0;
	rt = kt_wallclock_at(&pf->wall, pf->first_ts);
	if (rt <= 0)
		return 0;
	boot.has_clock_id = boot.has_timestamp = 1;
	boot.clock_id = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__BUILTIN_CLOCKS__BOOTTIME;
	boot.timestamp = pf->first_ts;
	real.has_clock_id = real.has_timestamp = 1;
	real.clock_id = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__BUILTIN_CLOCKS__REALTIME;
	real.timestamp = (uint64_t)rt;
	cs.n_clocks = 2;
	cs.clocks = clocks;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &cs;
	return kt_pfbundle_put_packet(&p, pf->out);
}

int kt_perfetto_finish(struct kt_perfetto *pf)
{
	struct kt_pfarena *a;
	int i, ret = 0;

	for (i = 0; i < pf->ncpus && !ret; i++)
		if (pf->cpus[i].b)
			ret = kt_pfbundle_write(pf->cpus[i].b, pf->out);
	if (ret)
		return ret;
	a = kt_pfarena_new();
	if (!a)
		return -ENOMEM;
	ret = write_clock(pf);
	if (!ret)
		ret = write_tree_packet(pf, a);
	if (!ret)
		ret = write_stats(pf, a, PERFETTO__PROTOS__FTRACE_STATS__PHASE__START_OF_TRACE);
	if (!ret)
		ret = write_stats(pf, a, PERFETTO__PROTOS__FTRACE_STATS__PHASE__END_OF_TRACE);
	kt_pfarena_free(a);
	return ret;
}
