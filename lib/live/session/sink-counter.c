// SPDX-License-Identifier: GPL-2.0
/* Live event counts, as ktrace top shows them: see sink-counter.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/log.h"
#include "live/events/events.h"
#include "live/session/sink-counter.h"
#include "live/events/evhome.h"
#include "live/buffers/livebuf.h"
#include "live/module/module.h"
#include "live/tracefs/tracefs.h"
#include "live/session/session.h"
#include "live/session/sink.h"
#include "live/session/tracing.h"

/* Our nice value while counting, as record's recorder threads. */
#define COUNTER_NICE	(-20)

struct row {
	struct kt_counter_row pub;
	char *label;		/* pub.label */
	char *system;
	char *name;
	bool module;		/* ktrace.ko's event (ktrace:NAME) */
	int was;		/* -B or ktrace.ko: switch found (0/1), -1 untouched */
};

struct kt_counter {
	struct kt_counter_opts o;
	struct kt_session *s;
	struct tracefs_instance *inst;	/* the session's, taken or borrowed */
	bool own_instance;
	int ncpu;
	struct kt_livebuf **lb;
	int nmapped;		/* CPUs whose buffer is read in place */
	/*
	 * ktrace.ko, when a row is its event: the session's module source
	 * runs it (source-module.c), the counter reads its traceN.
	 */
	size_t nmod;
	struct kt_livebuf **mlb;
	int nmcpu;
	int nmmapped;		/* of them, read in place */
	int nmringless;		/* of them, no ring yet (a CPU never up) */
	uint16_t *slot;		/* event id -> row; row 0 is "other" */
	struct row *rows;
	size_t nrows;
	uint64_t *counts;	/* [cpu][row], since start */
	uint64_t *prev;		/* counts at the last sample */
	double *cpu_rate;	/* [cpu][row], over the last interval */
	struct kt_cpu_stats *st0;	/* at start */
	struct kt_cpu_stats *st;	/* at the last sample */
	unsigned long long *buf_bytes;	/* per-CPU buffer size */
	size_t *order;		/* visible rows, sorted */
	enum kt_counter_sort sort_by;
	long samples;
	bool tracing_off;	/* the instance's tracing_on reads 0 */
};

/* ---- events and instance ---------------------------------------------- */

static int add_row(struct kt_counter *c, const char *system, const char *name)
{
	struct row *rows, *r;

	if (c->nrows >= KT_RAWPAGE_IDS - 1)
		return -E2BIG;
	rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	c->rows = rows;
	r = &rows[c->nrows];
	memset(r, 0, sizeof(*r));
	r->was = -1;
	r->pub.on = true;
	if (asprintf(&r->label, "%s:%s", system, name) < 0) {
		r->label = NULL;
		return -ENOMEM;
	}
	r->pub.label = r->label;
	r->system = strndup(r->label, strlen(system));
	r->name = strdup(name);
	r->module = *system && kt_event_where(system) == KT_EVENT_MODULE;
	c->nmod += r->module;
	c->nrows++;
	if (!r->system || !r->name)
		return -ENOMEM;
	return 0;
}

static void free_rows(struct kt_counter *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		free(c->rows[i].label);
		free(c->rows[i].system);
		free(c->rows[i].name);
	}
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}

static int add_event(struct kt_counter *c, const char *system,
		     const char *name)
{
	int ret = add_row(c, system, name);

	/* The sources (ktrace.ko's) see the rows as the instance's events. */
	if (!ret)
		ret = kt_session_add_event(c->s, system, name);
	if (ret)
		kt_err("cannot add '%s:%s': %s", system, name, strerror(-ret));
	return ret;
}

/*
 * -B without -e: whatever the instance already has enabled.  0, -ENODATA
 * when it has none (not said), or -errno (said).
 */
static int add_enabled(struct kt_counter *c)
{
	char *text, *line, *save = NULL, *colon;
	int ret;

	text = kt_tracefs_read(c->inst, "set_event");
	/* An empty file reads as nothing at all. */
	if (!text && tracefs_file_exists(c->inst, "set_event"))
		text = strdup("");
	if (!text) {
		ret = -errno;
		kt_err("cannot read the events of instance '%s': %s",
		       kt_session_instance(c->s), strerror(errno));
		return ret;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		ret = add_event(c, line, colon + 1);
		if (ret) {
			free(text);
			return ret;
		}
	}
	free(text);
	return c->nrows == 1 ? -ENODATA : 0;
}

/* Rows for -e (or the defaults), resolved against the live catalog. */
static int rows_from_specs(struct kt_counter *c)
{
	struct kt_catalog *cat;
	struct kt_event_list *list;
	const struct kt_event_ref *ev;
	int ret = -EINVAL;
	size_t i;

	cat = kt_catalog_load(NULL);
	if (!cat) {
		ret = -errno;
		kt_err("cannot list the kernel's events: %s; check 'ktrace doctor'",
		       strerror(errno));
		return ret;
	}
	list = kt_event_list_new();
	if (!list)
		goto err_cat;
	if (c->o.nevents) {
		for (i = 0; i < c->o.nevents; i++)
			if (kt_event_spec_resolve(cat, c->o.events[i], 0, list))
				goto err_list;
	} else {
		/* A kernel without one of the defaults still gets the rest. */
		for (i = 0; i < c->o.ndefaults; i++)
			kt_evspec_resolve(cat, c->o.defaults[i], 0, list);
		if (!kt_event_list_count(list)) {
			kt_err("none of the default events exist here; name some with -e (see 'ktrace list')");
			goto err_list;
		}
	}
	for (i = 0; i < kt_event_list_count(list); i++) {
		ev = kt_event_list_at(list, i);
		ret = add_event(c, ev->system, ev->name);
		if (ret)
			goto err_list;
	}
	ret = 0;
err_list:
	kt_event_list_free(list);
err_cat:
	kt_catalog_free(cat);
	return ret;
}

/* The rows: -e's, the defaults, or (-B without -e) the instance's. */
static int add_rows(struct kt_counter *c)
{
	int ret;

	if (c->own_instance || c->o.nevents)
		return rows_from_specs(c);
	ret = add_enabled(c);
	if (ret == -ENODATA)
		kt_err("instance '%s' has no events enabled; name some with -e",
		       kt_session_instance(c->s));
	return ret;
}

static char *event_path(const struct row *r, const char *file)
{
	char *rel;

	if (asprintf(&rel, "events/%s/%s/%s", r->system, r->name, file) < 0)
		return NULL;
	return rel;
}

/* Read a small instance file as a number; -errno. */
static long long read_number(struct tracefs_instance *inst, const char *rel)
{
	char *text = kt_tracefs_read(inst, rel);
	long long v;

	if (!text)
		return -errno;
	v = strtoll(text, NULL, 10);
	free(text);
	return v;
}

/* A row of ktrace.ko's: its id from its format, its switch remembered. */
static int setup_module_row(struct kt_counter *c, size_t i, bool enable)
{
	struct row *r = &c->rows[i];
	int id, off, size, ret;

	ret = kt_module_event_field(r->name, "common_type", &id, &off, &size);
	if (ret || id < 0 || id >= KT_RAWPAGE_IDS) {
		kt_err("cannot read the id of event '%s': %s", r->label,
		       strerror(ret ? -ret : ERANGE));
		return ret ? ret : -EINVAL;
	}
	c->slot[id] = (uint16_t)i;
	r->pub.can_toggle = true;
	if (!enable)
		return 0;
	ret = kt_module_event_enabled(r->name);
	if (ret < 0) {
		kt_err("cannot read the switch of '%s': %s", r->label, strerror(-ret));
		return ret;
	}
	r->was = ret;
	ret = kt_module_event_set_enable(r->name, true);
	if (ret)
		kt_err("cannot enable event '%s': %s", r->label, strerror(-ret));
	return ret;
}

/*
 * Map each row's event id to its row, find out whether it can be
 * switched, and switch it on.  With -B remember what we found so it can
 * be put back.
 */
static int setup_row(struct kt_counter *c, size_t i, bool enable)
{
	struct row *r = &c->rows[i];
	long long id, was;
	char *rel;
	int ret;

	if (r->module)
		return setup_module_row(c, i, enable);
	rel = event_path(r, "id");
	if (!rel)
		return -ENOMEM;
	id = read_number(c->inst, rel);
	free(rel);
	if (id < 0 || id >= KT_RAWPAGE_IDS) {
		kt_err("cannot read the id of event '%s': %s", r->label,
		       strerror(id < 0 ? (int)-id : ERANGE));
		return -EINVAL;
	}
	c->slot[id] = (uint16_t)i;
	rel = event_path(r, "enable");
	if (!rel)
		return -ENOMEM;
	was = read_number(c->inst, rel);
	free(rel);
	/* ftrace:print and friends have no switch: always on. */
	r->pub.can_toggle = was != -ENOENT;
	if (!r->pub.can_toggle || !enable)
		return 0;
	if (!c->own_instance)
		r->was = was == 1;
	ret = kt_event_set_enable(c->inst, r->system, r->name, true);
	if (ret) {
		kt_err("cannot enable event '%s': %s; see 'ktrace doctor'",
		       r->label, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Put every event we switched in a borrowed instance back as found, and
 * ktrace.ko's (module true) in any.
 */
static void restore_rows(struct kt_counter *c, bool module)
{
	size_t i;
	int ret;

	for (i = 1; i < c->nrows; i++) {
		struct row *r = &c->rows[i];

		if (r->module != module || r->was < 0 || r->pub.on == (r->was == 1))
			continue;
		ret = module ? kt_module_event_set_enable(r->name, r->was == 1) :
			       kt_event_set_enable(c->inst, r->system, r->name,
						   r->was == 1);
		if (ret)
			kt_warn("cannot restore event '%s' of instance '%s': %s",
				r->label, kt_session_instance(c->s), strerror(-ret));
	}
}

int kt_counter_set_enable(struct kt_counter *c, size_t i, bool on)
{
	struct row *r;
	int ret;

	if (!i || i >= c->nrows || !c->rows[i].pub.can_toggle)
		return -EINVAL;
	r = &c->rows[i];
	ret = r->module ? kt_module_event_set_enable(r->name, on) :
			  kt_event_set_enable(c->inst, r->system, r->name, on);
	if (ret)
		return ret;
	r->pub.on = on;
	/* The first toggle of a borrowed instance's event: remember it. */
	if (!c->own_instance && r->was < 0)
		r->was = !on;
	return 0;
}

struct kt_counter *kt_counter_new(const struct kt_counter_opts *o)
{
	struct kt_counter *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		kt_err("cannot start: %s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	c->o = *o;
	/* Row 0 counts what no row names (and what -B's others enable). */
	ret = add_row(c, "", "(other)");
	if (!ret) {
		free(c->rows[0].label);
		c->rows[0].label = strdup("(other)");
		c->rows[0].pub.label = c->rows[0].label;
		ret = c->rows[0].label ? 0 : -ENOMEM;
	}
	if (ret) {
		kt_err("cannot start: %s", strerror(ENOMEM));
		free_rows(c);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

/* ---- buffers ------------------------------------------------------------ */

static int alloc_tables(struct kt_counter *c)
{
	size_t cells = (size_t)c->ncpu * c->nrows;

	c->slot = calloc(KT_RAWPAGE_IDS, sizeof(*c->slot));
	c->counts = calloc(cells, sizeof(*c->counts));
	c->prev = calloc(cells, sizeof(*c->prev));
	c->cpu_rate = calloc(cells, sizeof(*c->cpu_rate));
	c->st0 = calloc(c->ncpu, sizeof(*c->st0));
	c->st = calloc(c->ncpu, sizeof(*c->st));
	c->buf_bytes = calloc(c->ncpu, sizeof(*c->buf_bytes));
	c->order = calloc(c->nrows, sizeof(*c->order));
	c->lb = calloc(c->ncpu, sizeof(*c->lb));
	if (!c->slot || !c->counts || !c->prev || !c->cpu_rate || !c->st0 ||
	    !c->st || !c->buf_bytes || !c->order || !c->lb)
		return -ENOMEM;
	return 0;
}

static void free_tables(struct kt_counter *c)
{
	free(c->slot);
	free(c->counts);
	free(c->prev);
	free(c->cpu_rate);
	free(c->st0);
	free(c->st);
	free(c->buf_bytes);
	free(c->order);
	free(c->lb);
}

static int open_buffers(struct kt_counter *c, unsigned int flags)
{
	char rel[64];
	long long kb;
	int cpu, ret;

	for (cpu = 0; cpu < c->ncpu; cpu++) {
		c->lb[cpu] = kt_livebuf_open(c->inst, cpu, flags);
		if (!c->lb[cpu]) {
			ret = -errno;
			kt_err("cannot open the buffer of cpu%d of instance '%s': %s",
			       cpu, kt_session_instance(c->s), strerror(errno));
			return ret;
		}
		if (kt_livebuf_mapped(c->lb[cpu]))
			c->nmapped++;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/buffer_size_kb", cpu);
		kb = read_number(c->inst, rel);
		c->buf_bytes[cpu] = kb > 0 ? (unsigned long long)kb * 1024 : 0;
		if (kt_cpu_stats_read(c->inst, cpu, &c->st0[cpu]))
			memset(&c->st0[cpu], 0, sizeof(c->st0[cpu]));
		c->st[cpu] = c->st0[cpu];
	}
	return 0;
}

static void close_buffers(struct kt_counter *c)
{
	int cpu;

	for (cpu = 0; c->mlb && cpu < c->nmcpu; cpu++) {
		kt_livebuf_close(c->mlb[cpu]);
		c->mlb[cpu] = NULL;
	}
	free(c->mlb);
	c->mlb = NULL;
	if (!c->lb)
		return;
	for (cpu = 0; cpu < c->ncpu; cpu++) {
		kt_livebuf_close(c->lb[cpu]);
		c->lb[cpu] = NULL;
	}
}

/*
 * ktrace.ko, when a row is its event: claimed (no recording using it)
 * and emptied by the session's module source, its traceN opened here;
 * the source starts it.  Its buffers are counted with the instance's.
 * Rows' switches are set by setup_row() before.
 */
static int open_module(struct kt_counter *c, unsigned int flags)
{
	struct kt_page_file pf;
	int ret;

	if (!c->nmod)
		return 0;
	/* Claimed: at most as many CPUs as the instance's. */
	c->mlb = calloc((size_t)c->ncpu, sizeof(*c->mlb));
	if (!c->mlb)
		return -ENOMEM;
	for (;;) {
		ret = kt_session_page_file(c->s, c->nmcpu, &pf);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		if (c->nmcpu == c->ncpu) {
			kt_err("cannot start ktrace.ko: %s", strerror(E2BIG));
			return -E2BIG;
		}
		c->mlb[c->nmcpu] = kt_livebuf_open_pages(pf.path, pf.cpu, flags);
		if (!c->mlb[c->nmcpu]) {
			ret = -errno;
			kt_err("cannot start ktrace.ko: %s", strerror(-ret));
			return ret;
		}
		if (kt_livebuf_mapped(c->mlb[c->nmcpu]))
			c->nmmapped++;
		if (kt_livebuf_ringless(c->mlb[c->nmcpu]))
			c->nmringless++;
		c->nmcpu++;
	}
}

/* ---- counting ----------------------------------------------------------- */

int kt_counter_cpus(const struct kt_counter *c)
{
	return c->ncpu;
}

/* Count what the buffers hold so far; 0 or -errno, said. */
static int drain(struct kt_counter *c)
{
	long n;
	int cpu;

	for (cpu = 0; cpu < c->ncpu; cpu++) {
		n = kt_livebuf_drain(c->lb[cpu], c->slot,
				     c->counts + (size_t)cpu * c->nrows);
		if (n >= 0 && cpu < c->nmcpu)
			n = kt_livebuf_drain(c->mlb[cpu], c->slot,
					     c->counts + (size_t)cpu * c->nrows);
		if (n < 0) {
			kt_err("cannot read the buffer of cpu%d: %s", cpu,
			       strerror((int)-n));
			return (int)n;
		}
	}
	return 0;
}

/* ktrace.ko's losses (emptied at the start) count with the instance's. */
static void add_module_stats(struct kt_counter *c, int cpu)
{
	struct kt_cpu_stats m;

	if (cpu >= c->nmcpu || kt_module_cpu_stats_read(cpu, &m))
		return;
	c->st[cpu].overrun += m.overrun;
	c->st[cpu].commit_overrun += m.commit_overrun;
	c->st[cpu].dropped += m.dropped;
}

void kt_counter_sample(struct kt_counter *c, double dt)
{
	size_t i, k;
	int cpu;

	for (i = 0; i < c->nrows; i++) {
		c->rows[i].pub.total = 0;
		c->rows[i].pub.rate = 0;
	}
	for (cpu = 0; cpu < c->ncpu; cpu++) {
		for (i = 0; i < c->nrows; i++) {
			k = (size_t)cpu * c->nrows + i;
			c->cpu_rate[k] = (double)(c->counts[k] - c->prev[k]) / dt;
			c->prev[k] = c->counts[k];
			c->rows[i].pub.total += c->counts[k];
			c->rows[i].pub.rate += c->cpu_rate[k];
		}
		kt_cpu_stats_read(c->inst, cpu, &c->st[cpu]);
		add_module_stats(c, cpu);
	}
	/* A borrowed instance may be paused: zero rates would puzzle. */
	c->tracing_off = read_number(c->inst, "tracing_on") == 0;
	c->samples++;
}

size_t kt_counter_rows(const struct kt_counter *c)
{
	return c->nrows;
}

const struct kt_counter_row *kt_counter_row_at(const struct kt_counter *c,
					       size_t i)
{
	return &c->rows[i].pub;
}

double kt_counter_cpu_rate(const struct kt_counter *c, int cpu, size_t i)
{
	return c->cpu_rate[(size_t)cpu * c->nrows + i];
}

void kt_counter_sum(const struct kt_counter *c, double *rate,
		    uint64_t *total)
{
	size_t i;

	*rate = 0;
	*total = 0;
	for (i = 0; i < c->nrows; i++) {
		*rate += c->rows[i].pub.rate;
		*total += c->rows[i].pub.total;
	}
}

/* ---- loss --------------------------------------------------------------- */

void kt_counter_cpu_loss(const struct kt_counter *c, int cpu,
			 struct kt_counter_loss *l)
{
	const struct kt_cpu_stats *a = &c->st0[cpu], *b = &c->st[cpu];

	l->overrun = kt_stat_delta(b->overrun, a->overrun);
	l->dropped = kt_stat_delta(b->dropped, a->dropped) +
		     kt_stat_delta(b->commit_overrun, a->commit_overrun);
	l->missed = kt_livebuf_missed(c->lb[cpu], &l->unknown);
	if (cpu < c->nmcpu) {
		bool u;

		l->missed += kt_livebuf_missed(c->mlb[cpu], &u);
		l->unknown |= u;
	}
}

void kt_counter_total_loss(const struct kt_counter *c,
			   struct kt_counter_loss *sum)
{
	struct kt_counter_loss l;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < c->ncpu; cpu++) {
		kt_counter_cpu_loss(c, cpu, &l);
		sum->overrun += l.overrun;
		sum->dropped += l.dropped;
		sum->missed += l.missed;
		sum->unknown |= l.unknown;
	}
}

bool kt_counter_loss_any(const struct kt_counter_loss *l)
{
	return l->overrun || l->dropped || l->missed || l->unknown;
}

unsigned int kt_counter_fill_pct(const struct kt_counter *c, int cpu)
{
	unsigned long long size = c->buf_bytes[cpu], used = c->st[cpu].bytes;

	if (!size)
		return 0;
	return used >= size ? 100 : (unsigned int)(used * 100 / size);
}

unsigned long long kt_counter_buffer_kb(const struct kt_counter *c)
{
	return c->buf_bytes[0] / 1024;
}

/* ---- sorting ------------------------------------------------------------ */

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct kt_counter *c = arg;
	const struct row *a = &c->rows[*(const size_t *)pa];
	const struct row *b = &c->rows[*(const size_t *)pb];

	switch (c->sort_by) {
	case KT_COUNTER_BY_RATE:
		if (a->pub.rate != b->pub.rate)
			return a->pub.rate < b->pub.rate ? 1 : -1;
		/* Ties by total. */
		__attribute__((fallthrough));
	case KT_COUNTER_BY_TOTAL:
		if (a->pub.total != b->pub.total)
			return a->pub.total < b->pub.total ? 1 : -1;
		break;
	default:
		break;
	}
	return strcmp(a->label, b->label);
}

const size_t *kt_counter_sort(struct kt_counter *c, enum kt_counter_sort by,
			      size_t *n)
{
	size_t i;

	*n = 0;
	for (i = 1; i < c->nrows; i++)
		c->order[(*n)++] = i;
	if (c->rows[0].pub.total)
		c->order[(*n)++] = 0;
	c->sort_by = by;
	qsort_r(c->order, *n, sizeof(*c->order), cmp_rows, c);
	return c->order;
}

/* ---- what the instance is ----------------------------------------------- */

const char *kt_counter_instance(const struct kt_counter *c)
{
	return kt_session_instance(c->s);
}

bool kt_counter_own_instance(const struct kt_counter *c)
{
	return c->own_instance;
}

/*
 * How the buffers are read: mapped, or by read() where the kernel would
 * not map them (before 6.10; a CPU never online has no buffer to map).
 */
const char *kt_counter_read_mode(const struct kt_counter *c)
{
	if (c->nmapped == c->ncpu)
		return "mmap";
	return c->nmapped ? "mmap+read" : "read";
}

const char *kt_counter_module_read_mode(const struct kt_counter *c)
{
	if (!c->mlb)
		return NULL;
	if (c->nmmapped && c->nmmapped == c->nmcpu - c->nmringless)
		return "mmap";
	return c->nmmapped ? "mmap+read" : "read";
}

long kt_counter_samples(const struct kt_counter *c)
{
	return c->samples;
}

bool kt_counter_tracing_off(const struct kt_counter *c)
{
	return c->tracing_off;
}

/* ---- the sink ------------------------------------------------------------ */

/* -b: the per-CPU buffer size of a private instance. */
static int resize(struct kt_counter *c)
{
	char val[32];
	int ret;

	if (!c->o.buffer_kb)
		return 0;
	snprintf(val, sizeof(val), "%lu", c->o.buffer_kb);
	ret = kt_tracefs_write(c->inst, "buffer_size_kb", val);
	if (ret)
		kt_err("cannot make the buffer %lu KB per CPU: %s; try a smaller -b",
		       c->o.buffer_kb, strerror(-ret));
	return ret;
}

/*
 * The instance taken: the rows and -b, the event ids mapped to rows,
 * the rows' events enabled (unless -B without -e: the instance's own),
 * the per-CPU buffers opened.
 */
static int counter_instance(struct kt_counter *c)
{
	size_t i;
	int ret;

	c->inst = kt_session_inst(c->s);
	c->own_instance = !kt_session_cfg(c->s)->borrow;
	c->ncpu = kt_session_ncpus(c->s);
	ret = add_rows(c);
	if (!ret)
		ret = resize(c);
	if (ret)
		return ret;
	ret = alloc_tables(c);
	if (ret) {
		kt_err("cannot start: %s", strerror(-ret));
		return ret;
	}
	/* A private instance records only once everything is set up. */
	if (c->own_instance && kt_tracefs_write(c->inst, "tracing_on", "0"))
		kt_warn("cannot pause instance '%s' while setting it up",
			kt_session_instance(c->s));
	for (i = 1; i < c->nrows; i++) {
		ret = setup_row(c, i, c->own_instance || c->o.nevents);
		if (ret)
			return ret;
	}
	return open_buffers(c, c->o.read_flags | kt_session_read_flags(c->s));
}

/* ktrace.ko started: a private instance starts recording. */
static int counter_started(struct kt_counter *c)
{
	int ret;

	/*
	 * Wake up at a tenth full (not the default half), as record's
	 * recorders do, so a burst between two wake-ups still fits.
	 */
	if (c->own_instance && kt_tracefs_write(c->inst, "buffer_percent", "10"))
		kt_debug("cannot set buffer_percent of instance '%s'",
			 kt_session_instance(c->s));
	if (c->own_instance) {
		ret = kt_tracefs_write(c->inst, "tracing_on", "1");
		if (ret) {
			kt_err("cannot start tracing in instance '%s'",
			       kt_session_instance(c->s));
			return ret;
		}
	}
	/*
	 * Counting a page is little work, but it must come soon after the
	 * buffer wakes us.  Beside dbench 2 on a 2-CPU machine, top at
	 * nice 0 woken at a quarter full lost 1-9% of 600k events/s to
	 * overruns; at -20 and woken at a tenth, none of 1.2-1.5M events/s
	 * in 3 of 3 runs.  Best effort (needs privilege, which tracing has
	 * anyway).
	 */
	setpriority(PRIO_PROCESS, 0, COUNTER_NICE);
	return 0;
}

static int counter_begin(void *state, struct kt_session *s,
			 enum kt_sink_step step)
{
	struct kt_counter *c = state;

	switch (step) {
	case KT_SINK_NEW:
		c->s = s;
		return 0;
	case KT_SINK_INSTANCE:
		return counter_instance(c);
	case KT_SINK_ARMED:
		return open_module(c, kt_session_read_flags(s) & KT_LIVEBUF_NO_MMAP);
	case KT_SINK_STARTED:
		return counter_started(c);
	default:
		return 0;
	}
}

/* Each CPU's buffer waking us as it fills up: the instance's, then traceN. */
static int counter_poll_fds(void *state, struct pollfd *fds, int max)
{
	struct kt_counter *c = state;
	int n = c->ncpu + c->nmcpu, i;

	if (!fds || max < n)
		return n;
	for (i = 0; i < n; i++) {
		fds[i].fd = kt_livebuf_fd(i < c->ncpu ? c->lb[i] : c->mlb[i - c->ncpu]);
		fds[i].events = POLLIN;
	}
	return n;
}

/* After each wait (whatever woke it): count what the buffers hold. */
static int counter_pages(void *state, const struct pollfd *fds)
{
	return fds ? drain(state) : 0;
}

/*
 * The buffers closed; the switches the counter changed put back
 * (ktrace.ko's in any case, a borrowed instance's); the session lets
 * the instance go after.
 */
static void counter_free(void *state)
{
	struct kt_counter *c = state;

	close_buffers(c);
	restore_rows(c, true);
	if (!c->own_instance)
		restore_rows(c, false);
	free_tables(c);
	free_rows(c);
	free(c);
}

const struct kt_sink_ops kt_counter_sink_ops = {
	.name = "top",
	.flags = KT_SINK_LIVE,
	.begin = counter_begin,
	.poll_fds = counter_poll_fds,
	.pages = counter_pages,
	.free = counter_free,
};
