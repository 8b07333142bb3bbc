// SPDX-License-Identifier: GPL-2.0
/*
 * The sched_switch chain probe.  See switchgaps.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <event-parse.h>

#include "live/tracefs/localtep.h"
#include "live/tracefs/tracefs.h"
#include "live/tracefs/switchgaps.h"

struct chain {
	struct tep_format_field *prev, *next;
	int id;				/* sched_switch's */
	long long *last;		/* per CPU: the last next_pid, or -1 */
	int ncpus;
	struct kt_switch_gaps *out;
};

static int each_switch(struct tep_event *ev, struct tep_record *rec,
		       int cpu, void *arg)
{
	struct chain *c = arg;
	unsigned long long prev, next;

	if (!ev || ev->id != c->id || cpu < 0 || cpu >= c->ncpus ||
	    tep_read_number_field(c->prev, rec->data, &prev) ||
	    tep_read_number_field(c->next, rec->data, &next))
		return 0;
	c->out->switches++;
	if (c->last[cpu] >= 0 && (unsigned long long)c->last[cpu] != prev)
		c->out->gaps++;
	c->last[cpu] = (long long)next;
	return 0;
}

/* Sleep and wake: each wake-up from idle is the kind of switch at risk. */
static void nap(int ms_total)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < ms_total; i++)
		nanosleep(&ms, NULL);
}

int kt_switch_gaps_probe(struct tracefs_instance *inst, int ms_total,
			 struct kt_switch_gaps *out)
{
	struct tep_handle *tep;
	struct tep_event *ev;
	struct kt_cpu_stats cs;
	struct chain c = { .out = out };
	int cpu, ret;

	*out = (struct kt_switch_gaps){ 0 };
	/*
	 * The page header and sched_switch, nothing else: not every sched
	 * format, kallsyms, printk formats and cmdlines (localtep.h).
	 */
	tep = kt_local_tep_new();
	if (!tep)
		return errno ? -errno : -ENOENT;
	ret = kt_local_tep_add(tep, "sched", "sched_switch");
	if (ret)
		goto err_tep;
	ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	c.prev = ev ? tep_find_field(ev, "prev_pid") : NULL;
	c.next = ev ? tep_find_field(ev, "next_pid") : NULL;
	if (!c.prev || !c.next) {
		ret = -ENOENT;
		goto err_tep;
	}
	c.id = ev->id;
	c.ncpus = kt_cpu_count();
	c.last = malloc((size_t)c.ncpus * sizeof(*c.last));
	if (!c.last) {
		ret = -ENOMEM;
		goto err_tep;
	}
	for (cpu = 0; cpu < c.ncpus; cpu++)
		c.last[cpu] = -1;
	ret = kt_event_set_enable(inst, "sched", "sched_switch", true);
	if (ret)
		goto err_last;
	nap(ms_total);
	ret = kt_event_set_enable(inst, "sched", "sched_switch", false);
	if (ret)
		goto err_last;
	for (cpu = 0; cpu < c.ncpus; cpu++)
		if (!kt_cpu_stats_read(inst, cpu, &cs))
			out->counted += cs.overrun + cs.dropped;
	if (tracefs_iterate_raw_events(tep, inst, NULL, 0, each_switch, &c))
		ret = errno ? -errno : -EIO;
err_last:
	free(c.last);
err_tep:
	tep_free(tep);
	return ret;
}
