// SPDX-License-Identifier: GPL-2.0
/*
 * Each CPU's chain of switches.  See runs.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/rows.h"
#include "analyze/runs.h"

struct chain {
	bool seen;			/* a switch since the start or a loss */
	int pid;			/* who the last switch put here */
	unsigned long long since;
};

struct kt_runs {
	struct kt_percpu cpus;		/* struct chain */
};

struct kt_runs *kt_runs_new(void)
{
	struct kt_runs *r = calloc(1, sizeof(*r));

	if (r)
		r->cpus.size = sizeof(struct chain);
	return r;
}

int kt_runs_loss(struct kt_runs *r, int cpu)
{
	struct chain *c = kt_percpu_at(&r->cpus, cpu);

	if (!c)
		return -ENOMEM;
	c->seen = false;
	return 0;
}

int kt_runs_record(struct kt_runs *r, int cpu, long long missed,
		   unsigned long long *lost, bool *lost_unknown)
{
	if (!missed)
		return 0;
	if (missed > 0)
		*lost += (unsigned long long)missed;
	else
		*lost_unknown = true;
	return kt_runs_loss(r, cpu);
}

int kt_runs_switch(struct kt_runs *r, int cpu, unsigned long long ts, int prev,
		   int next, struct kt_run *out)
{
	struct chain *c = kt_percpu_at(&r->cpus, cpu);

	if (!c)
		return -ENOMEM;
	*out = (struct kt_run){ .prev = prev, .cur = -1, .end = ts };
	if (c->seen) {
		out->cur = c->pid;
		out->start = c->since;
		out->kind = c->pid == prev ? KT_RUN_RAN : KT_RUN_MISSING;
	}
	c->seen = true;
	c->pid = next;
	c->since = ts;
	return 0;
}

void kt_runs_free(struct kt_runs *r)
{
	if (!r)
		return;
	free(r->cpus.v);
	free(r);
}
