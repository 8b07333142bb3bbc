// SPDX-License-Identifier: GPL-2.0
/*
 * analyze syscalls.  See syscalls.h.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"
#include "analyze/rows.h"
#include "analyze/syscalls.h"
#include "file/tgidmap.h"
#include "base/collect.h"
#include "decode/symbols.h"

enum kind { K_OTHER, K_ENTER, K_EXIT };

/* What an event id is to this analysis, looked up once. */
struct evinfo {
	int id;
	enum kind kind;
	struct tep_format_field *nr, *ret;
};

/* A task inside a call. */
struct pend {
	int pid;
	int cpu;			/* where it entered */
	long nr;
	unsigned long long ts;
};

struct kt_syscalls {
	struct tep_handle *tep;
	const char *machine;
	enum kt_sys_by by;
	const struct kt_tgidmap *tg;
	struct kt_evcache evs;		/* struct evinfo by event id */
	void *pends;			/* tsearch: struct pend by pid */
	void *rows;			/* tsearch: struct kt_sys_row */
	size_t nrows;
	struct kt_sys_row **sorted;
	struct kt_sys_totals t;
	char names[64][24];		/* "syscall_N" for unknown numbers */
	int nnames;
};

const char *const kt_syscalls_sort_keys = "total, calls, errors, mean, p50, p99, max or name";

static int cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_row(const void *a, const void *b)
{
	const struct kt_sys_row *x = a, *y = b;

	if (x->nr != y->nr)
		return (x->nr > y->nr) - (x->nr < y->nr);
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return strcmp(x->comm, y->comm);
}

/* What the event is to this analysis (the cache's fill). */
static void fill_info(void *entry, struct tep_event *e)
{
	struct evinfo *in = entry;

	if (e->system && !strcmp(e->system, "raw_syscalls")) {
		in->kind = !strcmp(e->name, "sys_enter") ? K_ENTER :
			   !strcmp(e->name, "sys_exit") ? K_EXIT : K_OTHER;
		in->nr = tep_find_field(e, "id");
	} else if (e->system && !strcmp(e->system, "syscalls")) {
		in->kind = !strncmp(e->name, "sys_enter_", 10) ? K_ENTER :
			   !strncmp(e->name, "sys_exit_", 9) ? K_EXIT : K_OTHER;
		in->nr = tep_find_field(e, "__syscall_nr");
	} else if (e->system && !strcmp(e->system, "ktrace")) {
		/* ktrace.ko's: the engine's events and the process tracer's. */
		in->kind = !strcmp(e->name, "syscall_entry") ||
			   !strcmp(e->name, "process_syscall_entry") ? K_ENTER :
			   !strcmp(e->name, "syscall_exit") ||
			   !strcmp(e->name, "process_syscall_exit") ? K_EXIT : K_OTHER;
		in->nr = tep_find_field(e, "nr");
	}
	in->ret = tep_find_field(e, "ret");
	if (!in->nr || (in->kind == K_EXIT && !in->ret))
		in->kind = K_OTHER;
}

struct kt_syscalls *kt_syscalls_new(struct tep_handle *tep, const char *machine,
				    enum kt_sys_by by, const struct kt_tgidmap *tg)
{
	struct kt_syscalls *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tep = tep;
	s->evs = (struct kt_evcache){ .size = sizeof(struct evinfo), .fill = fill_info };
	s->machine = machine;
	s->by = by;
	s->tg = tg;
	return s;
}

static const char *call_name(struct kt_syscalls *s, long nr)
{
	int nargs;
	const char *name = kt_syscall_name(s->machine, nr, &nargs);
	int i;

	if (name)
		return name;
	for (i = 0; i < s->nnames; i++)
		if (atol(s->names[i] + 8) == nr)
			return s->names[i];
	if (s->nnames == 64)
		return "syscall_?";
	snprintf(s->names[s->nnames], sizeof(s->names[0]), "syscall_%ld", nr);
	return s->names[s->nnames++];
}

static struct kt_sys_row *row_of(struct kt_syscalls *s, long nr, int pid)
{
	struct kt_sys_row *probe, *r, **found;
	const char *comm;

	probe = calloc(1, sizeof(*probe));
	if (!probe)
		return NULL;
	probe->nr = nr;
	/* A process's row is named after its leader, whichever thread called. */
	if (s->by == KT_SYS_BY_PROCESS && s->tg)
		pid = kt_tgidmap_of(s->tg, pid);
	if (s->by != KT_SYS_BY_CALL) {
		comm = tep_data_comm_from_pid(s->tep, pid);
		snprintf(probe->comm, sizeof(probe->comm), "%s", comm ? comm : "<...>");
		if (s->by != KT_SYS_BY_COMM)
			probe->pid = pid;
	}
	found = tsearch(probe, &s->rows, cmp_row);
	if (!found) {
		free(probe);
		return NULL;
	}
	r = *found;
	if (r != probe) {
		free(probe);
		return r;
	}
	r->name = call_name(s, nr);
	s->nrows++;
	return r;
}

static int add_errno(struct kt_sys_row *r, long long err)
{
	struct kt_sys_errno *e;
	int i;

	r->errors++;
	for (i = 0; i < r->nerrs; i++)
		if (r->errs[i].err == err) {
			r->errs[i].count++;
			return 0;
		}
	e = realloc(r->errs, (size_t)(r->nerrs + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->errs = e;
	r->errs[r->nerrs++] = (struct kt_sys_errno){ err, 1 };
	return 0;
}

static int on_enter(struct kt_syscalls *s, int pid, long nr, unsigned long long ts,
		    int cpu)
{
	struct pend probe = { .pid = pid }, *p, **found;

	found = tfind(&probe, &s->pends, cmp_pend);
	if (found) {
		/* A call with no exit (lost, or the task exec'd): replaced. */
		s->t.unpaired++;
		(*found)->nr = nr;
		(*found)->ts = ts;
		(*found)->cpu = cpu;
		return 0;
	}
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct pend){ .pid = pid, .cpu = cpu, .nr = nr, .ts = ts };
	if (!tsearch(p, &s->pends, cmp_pend)) {
		free(p);
		return -ENOMEM;
	}
	return 0;
}

static int on_exit_(struct kt_syscalls *s, int pid, long nr, long long ret,
		    unsigned long long ts, int cpu)
{
	struct pend probe = { .pid = pid }, *p, **found;
	struct kt_sys_row *r;
	unsigned long long start;

	found = tfind(&probe, &s->pends, cmp_pend);
	if (!found) {
		s->t.unpaired++;
		return 0;
	}
	p = *found;
	start = p->ts;
	tdelete(&probe, &s->pends, cmp_pend);
	if (p->nr != nr) {
		free(p);
		s->t.unpaired++;
		return 0;
	}
	free(p);
	r = row_of(s, nr, pid);
	if (!r)
		return -ENOMEM;
	s->t.calls++;
	if (ret < 0 && ret >= -4095 && add_errno(r, -ret))
		return -ENOMEM;
	return kt_dist_add(&r->dist, ts >= start ? ts - start : 0, ts, cpu);
}

struct forget {
	int cpu;
	int *pids;
	size_t n, cap;
};

static void find_on_cpu(const void *node, VISIT which, void *arg)
{
	const struct pend *p = *(const struct pend *const *)node;
	struct forget *f = arg;
	int *v;

	if ((which != postorder && which != leaf) || p->cpu != f->cpu)
		return;
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		v = realloc(f->pids, f->cap * sizeof(*v));
		if (!v) {
			f->cap = (size_t)-1;	/* marks the failure */
			return;
		}
		f->pids = v;
	}
	if (f->cap != (size_t)-1)
		f->pids[f->n++] = p->pid;
}

/*
 * Events were lost on cpu: the exits of the calls that entered there may
 * be among them, and pairing a later exit with such an entry would make
 * one call of the gap.  Those entries are dropped, counted as unpaired.
 */
static int forget_cpu(struct kt_syscalls *s, int cpu)
{
	struct forget f = { .cpu = cpu };
	struct pend probe, **found;
	size_t i;

	twalk_r(s->pends, find_on_cpu, &f);
	if (f.cap == (size_t)-1) {
		free(f.pids);
		return -ENOMEM;
	}
	for (i = 0; i < f.n; i++) {
		probe.pid = f.pids[i];
		found = tfind(&probe, &s->pends, cmp_pend);
		if (found) {
			struct pend *p = *found;

			tdelete(&probe, &s->pends, cmp_pend);
			free(p);
			s->t.unpaired++;
		}
	}
	free(f.pids);
	return 0;
}

int kt_syscalls_add(const struct kt_event *ev, void *arg)
{
	struct kt_syscalls *s = arg;
	struct tep_record *rec = ev->record;
	unsigned long long nr, ret;
	struct evinfo *in;
	int pid;

	if (rec->missed_events > 0)
		s->t.lost += (unsigned long long)rec->missed_events;
	else if (rec->missed_events < 0)
		s->t.lost_unknown = true;
	if (rec->missed_events && forget_cpu(s, ev->cpu))
		return -ENOMEM;
	in = kt_evcache_get(&s->evs, ev->event);
	if (!in)
		return -ENOMEM;
	if (in->kind == K_OTHER)
		return 0;
	s->t.has_input = true;
	if (!ev->selected || tep_read_number_field(in->nr, rec->data, &nr))
		return 0;
	pid = tep_data_pid(s->tep, rec);
	if (in->kind == K_ENTER)
		return on_enter(s, pid, (long)nr, rec->ts, ev->cpu);
	if (tep_read_number_field(in->ret, rec->data, &ret))
		return 0;
	/* ret is a long: sign-extend what a narrower field holds. */
	if (in->ret->size == 4)
		ret = (unsigned long long)(long long)(int)ret;
	return on_exit_(s, pid, (long)nr, (long long)ret, rec->ts, ev->cpu);
}

static unsigned long long key_of(struct kt_sys_row *r, const char *sort_key)
{
	if (!strcmp(sort_key, "calls"))
		return r->dist.n;
	if (!strcmp(sort_key, "errors"))
		return r->errors;
	if (!strcmp(sort_key, "mean"))
		return kt_dist_mean(&r->dist);
	if (!strcmp(sort_key, "p50"))
		return kt_dist_pct(&r->dist, 50);
	if (!strcmp(sort_key, "p99"))
		return kt_dist_pct(&r->dist, 99);
	if (!strcmp(sort_key, "max"))
		return r->dist.max;
	return r->dist.sum;
}

static int cmp_sorted(const void *a, const void *b, void *arg)
{
	struct kt_sys_row *x = *(struct kt_sys_row *const *)a;
	struct kt_sys_row *y = *(struct kt_sys_row *const *)b;
	const char *sort_key = arg;
	unsigned long long kx, ky;
	int c;

	if (strcmp(sort_key, "name")) {
		kx = key_of(x, sort_key);
		ky = key_of(y, sort_key);
		if (kx != ky)
			return kx < ky ? 1 : -1;
	}
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return cmp_row(x, y);
}

static int cmp_errs(const void *a, const void *b)
{
	const struct kt_sys_errno *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->err > y->err) - (x->err < y->err);
}

int kt_syscalls_rows(struct kt_syscalls *s, const char *sort,
		     struct kt_sys_row ***rows, size_t *n)
{
	static const char *const keys[] = {
		"total", "calls", "errors", "mean", "p50", "p99", "max", "name",
	};
	struct kt_sys_row **v;
	void **all;
	size_t i;
	int ret;

	if (!sort)
		sort = "total";
	if (!kt_rows_key_known(keys, sizeof(keys) / sizeof(keys[0]), sort))
		return -EINVAL;
	free(s->sorted);
	s->sorted = NULL;
	ret = kt_collect_rows(s->rows, s->nrows, &(struct kt_collect){
				      .cmp = cmp_sorted, .arg = (void *)sort }, &all, n);
	if (ret)
		return ret;
	v = (struct kt_sys_row **)all;
	for (i = 0; i < *n; i++)
		if (v[i]->nerrs > 1)
			qsort(v[i]->errs, (size_t)v[i]->nerrs, sizeof(*v[i]->errs), cmp_errs);
	s->sorted = v;
	*rows = v;
	return 0;
}

static void count_pend(const void *node, VISIT which, void *arg)
{
	(void)node;
	if (which == postorder || which == leaf)
		++*(size_t *)arg;
}

void kt_syscalls_totals(const struct kt_syscalls *s, struct kt_sys_totals *t)
{
	size_t n = 0;

	*t = s->t;
	twalk_r(s->pends, count_pend, &n);
	t->in_flight = n;
}

static void free_row(void *p)
{
	struct kt_sys_row *r = p;

	kt_dist_free(&r->dist);
	free(r->errs);
	free(r);
}

void kt_syscalls_free(struct kt_syscalls *s)
{
	if (!s)
		return;
	kt_evcache_free(&s->evs);
	tdestroy(s->pends, free);
	tdestroy(s->rows, free_row);
	free(s->sorted);
	free(s);
}
