// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace top: live event rates, full screen, or as text for logs.
 *
 * Events are counted in a private instance (or one named with -B) by
 * reading whole ring-buffer pages and looking at nothing but each
 * record's type id, so watching a busy system stays cheap.
 */
#include <curses.h>
#include <term.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "live/tracefs.h"
#include "live/livebuf.h"
#include "base/log.h"

/* What runs on every machine and says what it is doing. */
static const char *const default_events[] = {
	"sched:*", "irq:*", "raw_syscalls:*",
};

/* The UI wakes this often to drain buffers and read keys. */
#define TICK_MS 100

enum { OPT_BATCH = 0x100 };
enum { SORT_RATE, SORT_NAME, SORT_TOTAL, NSORT };
static const char *const sort_names[NSORT] = { "rate", "name", "total" };

/* Column widths, shared by the screen and the text output. */
#define W_EVENT 30
#define W_BOX 4
#define W_RATE 11
#define W_TOTAL 12
#define W_CPU 10

struct top_opts {
	const char **events;
	size_t nevents;
	const char *instance;
	double interval;
	bool batch;
	long iterations;
	unsigned long buffer_kb;	/* 0: the kernel's default */
};

struct row {
	char *label;		/* "system:event" */
	char *system;
	char *name;
	bool on;
	bool can_toggle;	/* has an enable file */
	int was;		/* -B: enable state found (0/1), -1 untouched */
	uint64_t total;
	double rate;
};

struct top {
	const struct top_opts *o;
	struct tracefs_instance *inst;
	bool own_instance;
	char inst_name[64];
	int ncpu;
	struct kt_livebuf **lb;
	int nmapped;		/* CPUs whose buffer is read in place */
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
	size_t norder;
	double last_sample;
	long samples;
	bool tracing_off;	/* the instance's tracing_on reads 0 */
	int sort;
	size_t sel;		/* selected row (index into rows) */
	size_t first;		/* first visible position when scrolled */
	bool help;
	SCREEN *screen;
	bool curses;
	bool colors;
	char msg[160];
};

static volatile sig_atomic_t quit_sig;
static volatile sig_atomic_t cont_sig;

static void on_quit_signal(int sig)
{
	quit_sig = sig;
}

/* Whatever the terminal showed while we were stopped, repaint it all. */
static void on_cont_signal(int sig)
{
	cont_sig = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;
	const char **ev;
	char *end;

	switch (key) {
	case 'e':
		ev = realloc(o->events, (o->nevents + 1) * sizeof(*ev));
		if (!ev)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-e");
		ev[o->nevents++] = arg;
		o->events = ev;
		break;
	case 'B':
		if (!*arg)
			argp_error(state, "-B needs an instance name");
		o->instance = arg;
		break;
	case 'd':
		errno = 0;
		o->interval = strtod(arg, &end);
		if (errno || *end || end == arg || !(o->interval >= 0.05) ||
		    o->interval > 86400)
			argp_error(state, "bad interval '%s'; give seconds between 0.05 and 86400, e.g. -d 0.5",
				   arg);
		break;
	case 'n':
		errno = 0;
		o->iterations = strtol(arg, &end, 10);
		if (errno || *end || end == arg || o->iterations < 1)
			argp_error(state, "bad iteration count '%s'; give a positive number",
				   arg);
		break;
	case 'b':
		errno = 0;
		o->buffer_kb = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || arg[0] == '-' ||
		    o->buffer_kb < 8 || o->buffer_kb > 4UL * 1024 * 1024)
			argp_error(state, "bad buffer size '%s'; give KB per CPU between 8 and 4194304, e.g. -b 8192",
				   arg);
		break;
	case OPT_BATCH:
		o->batch = true;
		break;
	case ARGP_KEY_END:
		/* A borrowed instance is left as found, its size included. */
		if (o->instance && o->buffer_kb)
			argp_error(state, "-b resizes ktrace top's own buffer; with -B, set the size of '%s' itself",
				   o->instance);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'; name events with -e",
			   arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static struct argp_option options[] = {
	{ "event", 'e', "EVENT", 0,
	  "count EVENT (system:event, a glob or an alias); repeat for more; default: sched:*, irq:*, raw_syscalls:*", 0 },
	{ "instance", 'B', "INSTANCE", 0,
	  "watch the existing INSTANCE instead of a private one; this consumes its buffer", 0 },
	{ "delay", 'd', "SECONDS", 0, "refresh every SECONDS (default 1)", 0 },
	{ "buffer-size", 'b', "KB", 0,
	  "per-CPU ring buffer of KB kilobytes (default: the kernel's, 1410 KB)", 0 },
	{ "batch", OPT_BATCH, NULL, 0,
	  "print the table as text every interval, as when not on a terminal", 0 },
	{ "iterations", 'n', "ITERATIONS", 0, "stop after ITERATIONS intervals", 0 },
	{ 0 }
};

static const char doc[] =
	"Show live event rates: one row per event with events/s, the total "
	"and a per-CPU split, under a header of per-CPU buffer fill and lost "
	"events.  Keys: s sort, space toggle, j/k or arrows move, ? help, "
	"q quit.  Without a terminal, or with --batch, prints the table as "
	"text once per interval.";

static struct argp top_argp = { options, parse_opt, "", doc, 0, 0, 0 };

/* ---- events and instance ---------------------------------------------- */

static int add_row(struct top *t, const char *system, const char *name)
{
	struct row *rows, *r;

	if (t->nrows >= KT_RAWPAGE_IDS - 1)
		return -E2BIG;
	rows = realloc(t->rows, (t->nrows + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	r = &rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->was = -1;
	r->on = true;
	if (asprintf(&r->label, "%s:%s", system, name) < 0) {
		r->label = NULL;
		return -ENOMEM;
	}
	r->system = strndup(r->label, strlen(system));
	r->name = strdup(name);
	t->nrows++;
	if (!r->system || !r->name)
		return -ENOMEM;
	return 0;
}

static void free_rows(struct top *t)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		free(t->rows[i].label);
		free(t->rows[i].system);
		free(t->rows[i].name);
	}
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

/* Rows for -e (or the defaults), resolved against the live catalog. */
static int rows_from_specs(struct top *t)
{
	struct kt_catalog *cat;
	struct kt_event_list *list;
	const struct kt_event_ref *ev;
	int ret = KT_EXIT_FAIL;
	size_t i;

	cat = kt_catalog_load(NULL);
	if (!cat) {
		kt_err("cannot list the kernel's events: %s; check 'ktrace doctor'",
		       strerror(errno));
		return KT_EXIT_FAIL;
	}
	list = kt_event_list_new();
	if (!list)
		goto err_cat;
	if (t->o->nevents) {
		for (i = 0; i < t->o->nevents; i++)
			if (kt_resolve_event_spec(cat, t->o->events[i], list))
				goto err_list;
	} else {
		/* A kernel without one of the defaults still gets the rest. */
		for (i = 0; i < sizeof(default_events) / sizeof(*default_events); i++)
			kt_events_resolve(cat, default_events[i], list);
		if (!kt_event_list_count(list)) {
			kt_err("none of the default events exist here; name some with -e (see 'ktrace list')");
			goto err_list;
		}
	}
	for (i = 0; i < kt_event_list_count(list); i++) {
		ev = kt_event_list_at(list, i);
		if (add_row(t, ev->system, ev->name)) {
			kt_err("cannot add '%s:%s': %s", ev->system, ev->name,
			       strerror(ENOMEM));
			goto err_list;
		}
	}
	ret = KT_EXIT_OK;
err_list:
	kt_event_list_free(list);
err_cat:
	kt_catalog_free(cat);
	return ret;
}

/* -B without -e: whatever the instance already has enabled. */
static int rows_from_set_event(struct top *t)
{
	char *text, *line, *save = NULL, *colon;

	text = kt_tracefs_read(t->inst, "set_event");
	/* An empty file reads as nothing at all. */
	if (!text && tracefs_file_exists(t->inst, "set_event"))
		text = strdup("");
	if (!text) {
		kt_err("cannot read the events of instance '%s': %s",
		       t->inst_name, strerror(errno));
		return KT_EXIT_FAIL;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (add_row(t, line, colon + 1)) {
			free(text);
			kt_err("cannot add '%s:%s': %s", line, colon + 1,
			       strerror(ENOMEM));
			return KT_EXIT_FAIL;
		}
	}
	free(text);
	if (t->nrows == 1) {
		kt_err("instance '%s' has no events enabled; name some with -e",
		       t->inst_name);
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
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

/*
 * Map each row's event id to its row, find out whether it can be
 * switched, and switch it on.  With -B remember what we found so it can
 * be put back.
 */
static int setup_row(struct top *t, size_t i, bool enable)
{
	struct row *r = &t->rows[i];
	long long id, was;
	char *rel;
	int ret;

	rel = event_path(r, "id");
	if (!rel)
		return -ENOMEM;
	id = read_number(t->inst, rel);
	free(rel);
	if (id < 0 || id >= KT_RAWPAGE_IDS) {
		kt_err("cannot read the id of event '%s': %s", r->label,
		       strerror(id < 0 ? (int)-id : ERANGE));
		return -EINVAL;
	}
	t->slot[id] = (uint16_t)i;
	rel = event_path(r, "enable");
	if (!rel)
		return -ENOMEM;
	was = read_number(t->inst, rel);
	free(rel);
	/* ftrace:print and friends have no switch: always on. */
	r->can_toggle = was != -ENOENT;
	if (!r->can_toggle || !enable)
		return 0;
	if (!t->own_instance)
		r->was = was == 1;
	ret = kt_event_set_enable(t->inst, r->system, r->name, true);
	if (ret) {
		kt_err("cannot enable event '%s': %s; see 'ktrace doctor'",
		       r->label, strerror(-ret));
		return ret;
	}
	return 0;
}

/* Put every event we switched in a borrowed instance back as found. */
static void restore_rows(struct top *t)
{
	size_t i;
	int ret;

	for (i = 1; i < t->nrows; i++) {
		struct row *r = &t->rows[i];

		if (r->was < 0 || r->on == (r->was == 1))
			continue;
		ret = kt_event_set_enable(t->inst, r->system, r->name,
					  r->was == 1);
		if (ret)
			kt_warn("cannot restore event '%s' of instance '%s': %s",
				r->label, t->inst_name, strerror(-ret));
	}
}

/*
 * An existing instance, never created: one that vanishes between the
 * check and the use must not come back as an empty new instance.
 */
static int lookup_instance(const char *name, struct tracefs_instance **out)
{
	*out = NULL;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (!tracefs_instance_exists(name))
		return -ENOENT;
	*out = tracefs_instance_alloc(NULL, name);
	return *out ? 0 : (errno ? -errno : -ENOMEM);
}

static int open_instance(struct top *t)
{
	bool created = false;
	int ret;

	if (t->o->instance) {
		snprintf(t->inst_name, sizeof(t->inst_name), "%s",
			 t->o->instance);
		ret = lookup_instance(t->o->instance, &t->inst);
		if (ret == -ENOENT) {
			kt_err("no instance '%s'; see 'ls %s/instances'",
			       t->o->instance, tracefs_tracing_dir());
			return KT_EXIT_FAIL;
		}
		if (ret == -EINVAL) {
			kt_err("bad instance name '%s'; a name is not empty and has no '/'",
			       t->o->instance);
			return KT_EXIT_FAIL;
		}
	} else {
		snprintf(t->inst_name, sizeof(t->inst_name), "%s%d",
			 KT_INSTANCE_PREFIX, (int)getpid());
		ret = kt_instance_open(t->inst_name, true, &t->inst, &created);
		if (!ret && !created) {
			kt_err("instance '%s' already exists; remove it with 'rmdir %s/instances/%s'",
			       t->inst_name, tracefs_tracing_dir(),
			       t->inst_name);
			kt_instance_close(t->inst);
			t->inst = NULL;
			return KT_EXIT_FAIL;
		}
		t->own_instance = created;
	}
	if (ret) {
		kt_err("cannot open instance '%s': %s", t->inst_name,
		       strerror(-ret));
		return KT_EXIT_FAIL;
	}
	/* -B naming the top-level buffer ("") is refused above; be sure. */
	if (!t->inst)
		return KT_EXIT_FAIL;
	return KT_EXIT_OK;
}

static void close_instance(struct top *t)
{
	int ret;

	if (!t->inst)
		return;
	if (!t->own_instance) {
		restore_rows(t);
		kt_instance_close(t->inst);
	} else {
		ret = kt_instance_remove(t->inst);
		if (ret)
			kt_warn("cannot remove instance '%s': %s; remove it with 'rmdir %s/instances/%s'",
				t->inst_name, strerror(-ret),
				tracefs_tracing_dir(), t->inst_name);
	}
	t->inst = NULL;
}

static int alloc_tables(struct top *t)
{
	size_t cells = (size_t)t->ncpu * t->nrows;

	t->slot = calloc(KT_RAWPAGE_IDS, sizeof(*t->slot));
	t->counts = calloc(cells, sizeof(*t->counts));
	t->prev = calloc(cells, sizeof(*t->prev));
	t->cpu_rate = calloc(cells, sizeof(*t->cpu_rate));
	t->st0 = calloc(t->ncpu, sizeof(*t->st0));
	t->st = calloc(t->ncpu, sizeof(*t->st));
	t->buf_bytes = calloc(t->ncpu, sizeof(*t->buf_bytes));
	t->order = calloc(t->nrows, sizeof(*t->order));
	t->lb = calloc(t->ncpu, sizeof(*t->lb));
	if (!t->slot || !t->counts || !t->prev || !t->cpu_rate || !t->st0 ||
	    !t->st || !t->buf_bytes || !t->order || !t->lb)
		return -ENOMEM;
	return 0;
}

static void free_tables(struct top *t)
{
	free(t->slot);
	free(t->counts);
	free(t->prev);
	free(t->cpu_rate);
	free(t->st0);
	free(t->st);
	free(t->buf_bytes);
	free(t->order);
	free(t->lb);
}

static int open_buffers(struct top *t)
{
	unsigned int flags = 0;
	const char *env;
	char rel[64];
	long long kb;
	int cpu;

	/* Hidden switches: force the read() path / the kbuffer walker. */
	env = getenv("KTRACE_NO_MMAP");
	if (env && *env && strcmp(env, "0"))
		flags |= KT_LIVEBUF_NO_MMAP;
	env = getenv("KTRACE_TOP_KBUFFER");
	if (env && *env && strcmp(env, "0"))
		flags |= KT_LIVEBUF_KBUFFER;
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		t->lb[cpu] = kt_livebuf_open(t->inst, cpu, flags);
		if (!t->lb[cpu]) {
			kt_err("cannot open the buffer of cpu%d of instance '%s': %s",
			       cpu, t->inst_name, strerror(errno));
			return -1;
		}
		if (kt_livebuf_mapped(t->lb[cpu]))
			t->nmapped++;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/buffer_size_kb", cpu);
		kb = read_number(t->inst, rel);
		t->buf_bytes[cpu] = kb > 0 ? (unsigned long long)kb * 1024 : 0;
		if (kt_cpu_stats_read(t->inst, cpu, &t->st0[cpu]))
			memset(&t->st0[cpu], 0, sizeof(t->st0[cpu]));
		t->st[cpu] = t->st0[cpu];
	}
	return 0;
}

static void close_buffers(struct top *t)
{
	int cpu;

	if (!t->lb)
		return;
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		kt_livebuf_close(t->lb[cpu]);
		t->lb[cpu] = NULL;
	}
}

/* ---- counting ----------------------------------------------------------- */

static int drain(struct top *t)
{
	long n;
	int cpu;

	for (cpu = 0; cpu < t->ncpu; cpu++) {
		n = kt_livebuf_drain(t->lb[cpu], t->slot,
				     t->counts + (size_t)cpu * t->nrows);
		if (n < 0) {
			kt_err("cannot read the buffer of cpu%d: %s", cpu,
			       strerror((int)-n));
			return -1;
		}
	}
	return 0;
}

/* Close an interval: rates over it, totals, the per-CPU stats. */
static void sample(struct top *t)
{
	double now = now_s(), dt = now - t->last_sample;
	size_t i, k;
	int cpu;

	if (dt <= 0)
		dt = t->o->interval;
	for (i = 0; i < t->nrows; i++) {
		t->rows[i].total = 0;
		t->rows[i].rate = 0;
	}
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		for (i = 0; i < t->nrows; i++) {
			k = (size_t)cpu * t->nrows + i;
			t->cpu_rate[k] = (double)(t->counts[k] - t->prev[k]) / dt;
			t->prev[k] = t->counts[k];
			t->rows[i].total += t->counts[k];
			t->rows[i].rate += t->cpu_rate[k];
		}
		kt_cpu_stats_read(t->inst, cpu, &t->st[cpu]);
	}
	/* A borrowed instance may be paused: zero rates would puzzle. */
	t->tracing_off = read_number(t->inst, "tracing_on") == 0;
	t->last_sample = now;
	t->samples++;
}

struct loss {
	unsigned long long overrun, dropped, missed;
	bool unknown;
};

static void cpu_loss(const struct top *t, int cpu, struct loss *l)
{
	const struct kt_cpu_stats *a = &t->st0[cpu], *b = &t->st[cpu];

	l->overrun = kt_stat_delta(b->overrun, a->overrun);
	l->dropped = kt_stat_delta(b->dropped, a->dropped) +
		     kt_stat_delta(b->commit_overrun, a->commit_overrun);
	l->missed = kt_livebuf_missed(t->lb[cpu], &l->unknown);
}

static void total_loss(const struct top *t, struct loss *sum)
{
	struct loss l;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		cpu_loss(t, cpu, &l);
		sum->overrun += l.overrun;
		sum->dropped += l.dropped;
		sum->missed += l.missed;
		sum->unknown |= l.unknown;
	}
}

static bool lost_any(const struct loss *l)
{
	return l->overrun || l->dropped || l->missed || l->unknown;
}

static unsigned int fill_pct(const struct top *t, int cpu)
{
	unsigned long long size = t->buf_bytes[cpu], used = t->st[cpu].bytes;

	if (!size)
		return 0;
	return used >= size ? 100 : (unsigned int)(used * 100 / size);
}

/* ---- sorting ------------------------------------------------------------ */

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct top *t = arg;
	const struct row *a = &t->rows[*(const size_t *)pa];
	const struct row *b = &t->rows[*(const size_t *)pb];

	switch (t->sort) {
	case SORT_RATE:
		if (a->rate != b->rate)
			return a->rate < b->rate ? 1 : -1;
		/* Ties by total. */
		__attribute__((fallthrough));
	case SORT_TOTAL:
		if (a->total != b->total)
			return a->total < b->total ? 1 : -1;
		break;
	default:
		break;
	}
	return strcmp(a->label, b->label);
}

/* The rows to show, in order; "other" only once it has counted something. */
static void build_order(struct top *t)
{
	size_t i;

	t->norder = 0;
	for (i = 1; i < t->nrows; i++)
		t->order[t->norder++] = i;
	if (t->rows[0].total)
		t->order[t->norder++] = 0;
	qsort_r(t->order, t->norder, sizeof(*t->order), cmp_rows, t);
}

/* ---- one row of the table, shared by screen and text -------------------- */

/*
 * The column heads.  wlabel is the EVENT column's width: fixed on the
 * screen (names are cut), the longest name in text (never cut).
 */
static void format_header(char *buf, size_t len, int ncpu_cols, bool box,
			  int wlabel)
{
	size_t used;
	int cpu;

	used = (size_t)snprintf(buf, len, "%-*s%*s%*s", wlabel + (box ? W_BOX : 0),
				"EVENT", W_RATE, "RATE/s", W_TOTAL, "TOTAL");
	for (cpu = 0; cpu < ncpu_cols && used < len; cpu++) {
		char col[16];

		snprintf(col, sizeof(col), "cpu%d/s", cpu);
		used += (size_t)snprintf(buf + used, len - used, "%*s", W_CPU, col);
	}
}

static void format_row(const struct top *t, size_t ri, char *buf, size_t len,
		       int ncpu_cols, bool box, int wlabel)
{
	const struct row *r = &t->rows[ri];
	size_t used;
	int cpu;

	if (box)
		used = (size_t)snprintf(buf, len, "[%c] %-*.*s", r->on ? 'x' : ' ',
					wlabel, wlabel, r->label);
	else
		used = (size_t)snprintf(buf, len, "%-*s", wlabel, r->label);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, " %*.1f %*llu",
					 W_RATE - 1, r->rate, W_TOTAL - 1,
					 (unsigned long long)r->total);
	for (cpu = 0; cpu < ncpu_cols && used < len; cpu++)
		used += (size_t)snprintf(buf + used, len - used, " %*.1f",
					 W_CPU - 1,
					 t->cpu_rate[(size_t)cpu * t->nrows + ri]);
}

static void format_loss(const struct loss *l, char *buf, size_t len)
{
	snprintf(buf, len, "lost: overrun %llu  dropped %llu  missed %llu%s",
		 l->overrun, l->dropped, l->missed, l->unknown ? "+" : "");
}

struct summary {
	double rate;
	uint64_t total;
	struct loss lost;
};

/* What both views show above the table; also puts the rows in order. */
static void summarize(struct top *t, struct summary *sum)
{
	size_t i;

	build_order(t);
	sum->rate = 0;
	sum->total = 0;
	for (i = 0; i < t->nrows; i++) {
		sum->rate += t->rows[i].rate;
		sum->total += t->rows[i].total;
	}
	total_loss(t, &sum->lost);
}

/* ---- text output -------------------------------------------------------- */

/*
 * How the buffers are read: mapped, or by read() where the kernel would
 * not map them (before 6.10; a CPU never online has no buffer to map).
 */
static const char *how_read(const struct top *t)
{
	if (t->nmapped == t->ncpu)
		return "mmap";
	return t->nmapped ? "mmap+read" : "read";
}

/* Returns 0, or -errno when the output is gone (EPIPE: reader left). */
static int print_text(struct top *t)
{
	struct summary sum;
	int cpu, wlabel = W_EVENT;
	size_t i, len;
	struct loss l;
	char *line;

	summarize(t, &sum);
	for (i = 0; i < t->norder; i++)
		if ((int)strlen(t->rows[t->order[i]].label) > wlabel)
			wlabel = (int)strlen(t->rows[t->order[i]].label);
	/* Every CPU gets its column in text, however many there are. */
	len = (size_t)wlabel + W_RATE + W_TOTAL + 256 +
	      (size_t)t->ncpu * (W_CPU + 1);
	line = malloc(len);
	if (!line)
		return -ENOMEM;
	printf("ktrace top: instance %s (%s), %zu events, every %.2fs, sample %ld, sort %s%s\n",
	       t->inst_name, how_read(t), t->nrows - 1,
	       t->o->interval, t->samples, sort_names[t->sort],
	       t->tracing_off ? ", tracing off" : "");
	format_loss(&sum.lost, line, len);
	printf("rate %.1f/s  total %llu  %s\n", sum.rate,
	       (unsigned long long)sum.total, line);
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		cpu_loss(t, cpu, &l);
		format_loss(&l, line, len);
		printf("cpu%d fill %u%%  %s\n", cpu, fill_pct(t, cpu), line);
	}
	format_header(line, len, t->ncpu, false, wlabel);
	printf("%s\n", line);
	for (i = 0; i < t->norder; i++) {
		format_row(t, t->order[i], line, len, t->ncpu, false, wlabel);
		printf("%s\n", line);
	}
	printf("\n");
	free(line);
	if (fflush(stdout) || ferror(stdout))
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- the screen --------------------------------------------------------- */

enum { PAIR_LOST = 1 };

/* A terminal that cannot move its cursor (TERM=dumb) gets text. */
static bool terminal_can_draw(void)
{
	TERMINAL *term;
	char *cup;
	int err = 0;
	bool ok;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return false;
	cup = tigetstr("cup");
	ok = cup && cup != (char *)-1;
	term = set_curterm(NULL);
	del_curterm(term);
	return ok;
}

static int init_screen(struct top *t)
{
	if (!terminal_can_draw())
		return -1;
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen)
		return -1;
	t->curses = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(PAIR_LOST, COLOR_RED, -1);
		t->colors = true;
	}
	return 0;
}

static void end_screen(struct top *t)
{
	if (!t->curses)
		return;
	endwin();
	delscreen(t->screen);
	t->screen = NULL;
	t->curses = false;
}

static attr_t lost_attr(const struct top *t)
{
	return t->colors ? (COLOR_PAIR(PAIR_LOST) | A_BOLD) : (A_BOLD | A_REVERSE);
}

static void put_line(int y, const char *s, attr_t attr)
{
	if (y >= LINES)
		return;
	attron(attr);
	mvaddnstr(y, 0, s, COLS);
	attroff(attr);
}

static void draw_help(void)
{
	static const char *const help[] = {
		"ktrace top keys",
		"",
		"  j, Down       next row",
		"  k, Up         previous row",
		"  PgDn, PgUp    a page down, up",
		"  g, G          first, last row",
		"  space         switch the selected event off/on",
		"  s             sort by rate, name, total",
		"  Ctrl-L        redraw",
		"  ?             this help (any key closes it)",
		"  q             quit",
		"",
		"red: events were lost (buffer overrun/dropped,",
		"or missed between pages); see ktrace-top(1)",
	};
	int n = sizeof(help) / sizeof(*help), w = 54, y0, x0, i;
	char line[64];

	y0 = LINES > n + 2 ? (LINES - n - 2) / 2 : 0;
	x0 = COLS > w ? (COLS - w) / 2 : 0;
	attron(A_REVERSE);
	for (i = -1; i <= n && y0 + 1 + i < LINES; i++) {
		snprintf(line, sizeof(line), " %-*.*s ", w - 2, w - 2,
			 i >= 0 && i < n ? help[i] : "");
		/* Clipped, never wrapped, on a small terminal. */
		mvaddnstr(y0 + 1 + i, x0, line, COLS - x0);
	}
	attroff(A_REVERSE);
}

static size_t position_of(const struct top *t, size_t row)
{
	size_t i;

	for (i = 0; i < t->norder; i++)
		if (t->order[i] == row)
			return i;
	return 0;
}

/* 1234567 -> "1.2M": loss counts must fit a per-CPU cell. */
static void human(char *buf, size_t len, unsigned long long v)
{
	static const char units[] = "kMGTPE";
	double d = (double)v;
	int u = -1;

	if (v < 10000) {
		snprintf(buf, len, "%llu", v);
		return;
	}
	while (d >= 1000 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, "%.1f%c", d, units[u]);
}

/* One CPU's header cell: buffer fill and what it lost. */
static void format_cpu_cell(const struct top *t, int cpu, char *cell,
			    size_t len, struct loss *l)
{
	char ovr[16], drp[16], mis[16];

	cpu_loss(t, cpu, l);
	human(ovr, sizeof(ovr), l->overrun);
	human(drp, sizeof(drp), l->dropped);
	human(mis, sizeof(mis), l->missed);
	snprintf(cell, len, "cpu%-3d fill %3u%%  ovr %s drp %s mis %s%s",
		 cpu, fill_pct(t, cpu), ovr, drp, mis, l->unknown ? "+" : "");
}

static void draw(struct top *t)
{
	char line[1024], cell[128];
	int y = 0, cpu, per_line, cpu_lines, ncols, avail, i, cell_w;
	struct summary sum;
	size_t pos, p;
	struct loss l;
	attr_t attr;

	summarize(t, &sum);
	erase();

	snprintf(line, sizeof(line), " ktrace top  %s (%s)  %zu events  every %.1fs  sort: %s%s",
		 t->inst_name, how_read(t), t->nrows - 1,
		 t->o->interval, sort_names[t->sort],
		 t->tracing_off ? "  TRACING OFF" : "");
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, line, COLS);
	if (COLS > (int)strlen(line) + 8)
		mvaddstr(y, COLS - 8, "? help ");
	attroff(A_REVERSE);
	y++;

	snprintf(line, sizeof(line), "rate %.1f/s  total %llu  ", sum.rate,
		 (unsigned long long)sum.total);
	mvaddnstr(y, 0, line, COLS);
	format_loss(&sum.lost, cell, sizeof(cell));
	attr = lost_any(&sum.lost) ? lost_attr(t) : A_NORMAL;
	attron(attr);
	addnstr(cell, COLS > (int)strlen(line) ? COLS - (int)strlen(line) : 0);
	attroff(attr);
	y++;

	/*
	 * Per-CPU cells, as many a line as fit whole, on at most a quarter
	 * of the screen.  The cells are as wide as the widest needs: a
	 * loss of 31.1k in every column must not be cut to "mis 3".
	 */
	cell_w = 0;
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		format_cpu_cell(t, cpu, cell, sizeof(cell), &l);
		if ((int)strlen(cell) + 2 > cell_w)
			cell_w = (int)strlen(cell) + 2;
	}
	per_line = cell_w && COLS / cell_w > 0 ? COLS / cell_w : 1;
	cpu_lines = (t->ncpu + per_line - 1) / per_line;
	if (cpu_lines > LINES / 4)
		cpu_lines = LINES / 4 > 0 ? LINES / 4 : 1;
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		int cy = y + cpu / per_line, cx = (cpu % per_line) * cell_w;

		if (cpu / per_line >= cpu_lines) {
			mvprintw(y + cpu_lines - 1, COLS > 12 ? COLS - 12 : 0,
				 "+%d cpus", t->ncpu - cpu);
			break;
		}
		format_cpu_cell(t, cpu, cell, sizeof(cell), &l);
		attr = lost_any(&l) ? lost_attr(t) : A_NORMAL;
		attron(attr);
		mvaddnstr(cy, cx, cell, COLS - cx > 0 ? COLS - cx : 0);
		attroff(attr);
	}
	y += cpu_lines;

	ncols = (COLS - (W_BOX + W_EVENT + W_RATE + W_TOTAL)) / W_CPU;
	if (ncols < 0)
		ncols = 0;
	if (ncols > t->ncpu)
		ncols = t->ncpu;
	format_header(line, sizeof(line), ncols, true, W_EVENT);
	attron(A_BOLD | A_UNDERLINE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, line, COLS);
	attroff(A_BOLD | A_UNDERLINE);
	y++;

	/* Keep the selection on screen. */
	avail = LINES - 1 - y;
	if (avail < 1)
		avail = 1;
	pos = position_of(t, t->sel);
	if (pos < t->first)
		t->first = pos;
	if (pos >= t->first + (size_t)avail)
		t->first = pos - (size_t)avail + 1;
	for (i = 0, p = t->first; i < avail && p < t->norder; i++, p++) {
		size_t ri = t->order[p];

		format_row(t, ri, line, sizeof(line), ncols, true, W_EVENT);
		attr = ri == t->sel ? A_REVERSE : A_NORMAL;
		if (!t->rows[ri].on)
			attr |= A_DIM;
		if (ri == t->sel)
			mvhline(y + i, 0, ' ' | A_REVERSE, COLS);
		put_line(y + i, line, attr);
	}

	if (t->msg[0])
		put_line(LINES - 1, t->msg, A_BOLD);
	else
		put_line(LINES - 1, "q quit  s sort  space on/off  j/k move  ? help",
			 A_DIM);
	if (t->help)
		draw_help();
	refresh();
}

static void toggle(struct top *t)
{
	struct row *r = &t->rows[t->sel];
	int ret;

	if (!t->sel) {
		snprintf(t->msg, sizeof(t->msg), "(other) counts events no row names; it has no switch");
		return;
	}
	if (!r->can_toggle) {
		snprintf(t->msg, sizeof(t->msg), "'%s' has no switch: the kernel always records it",
			 r->label);
		return;
	}
	ret = kt_event_set_enable(t->inst, r->system, r->name, !r->on);
	if (ret) {
		snprintf(t->msg, sizeof(t->msg), "cannot switch '%s' %s: %s",
			 r->label, r->on ? "off" : "on", strerror(-ret));
		return;
	}
	r->on = !r->on;
	/* The first toggle of a borrowed instance's event: remember it. */
	if (!t->own_instance && r->was < 0)
		r->was = !r->on;
	snprintf(t->msg, sizeof(t->msg), "%s %s", r->label, r->on ? "on" : "off");
}

static void move_sel(struct top *t, long by)
{
	long pos = (long)position_of(t, t->sel) + by;

	if (!t->norder)
		return;
	if (pos < 0)
		pos = 0;
	if (pos >= (long)t->norder)
		pos = (long)t->norder - 1;
	t->sel = t->order[pos];
}

/* Returns true when the user asked to quit. */
static bool handle_key(struct top *t, int ch)
{
	long page = LINES > 8 ? LINES - 8 : 1;

	if (t->help && ch != 'q' && ch != KEY_RESIZE) {
		t->help = false;
		return false;
	}
	t->msg[0] = '\0';
	switch (ch) {
	case 'q':
	case 'Q':
		return true;
	case 's':
		t->sort = (t->sort + 1) % NSORT;
		snprintf(t->msg, sizeof(t->msg), "sorted by %s", sort_names[t->sort]);
		break;
	case ' ':
		toggle(t);
		break;
	case 'j':
	case KEY_DOWN:
		move_sel(t, 1);
		break;
	case 'k':
	case KEY_UP:
		move_sel(t, -1);
		break;
	case KEY_NPAGE:
		move_sel(t, page);
		break;
	case KEY_PPAGE:
		move_sel(t, -page);
		break;
	case 'g':
	case KEY_HOME:
		move_sel(t, -(long)t->norder);
		break;
	case 'G':
	case KEY_END:
		move_sel(t, (long)t->norder);
		break;
	case '?':
	case 'h':
		t->help = true;
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		break;
	case KEY_RESIZE:
	default:
		break;
	}
	return false;
}

/* ---- the loop ----------------------------------------------------------- */

/* Our nice value while counting, as record's recorder threads. */
#define TOP_NICE	(-20)

static int run(struct top *t)
{
	double next = now_s() + t->o->interval, now;
	struct pollfd *pfd;
	int timeout, ch, cpu, err, ret = KT_EXIT_OK;
	bool dirty;

	/*
	 * Counting a page is little work, but it must come soon after the
	 * buffer wakes us.  Beside dbench 2 on this 2-CPU machine, top at
	 * nice 0 woken at a quarter full lost 1-9% of 600k events/s to
	 * overruns; at -20 and woken at a tenth (below), none of 1.2-1.5M
	 * events/s in 3 of 3 runs.  Best effort (needs privilege, which
	 * tracing has anyway).
	 */
	setpriority(PRIO_PROCESS, 0, TOP_NICE);

	/* Keys, and each CPU's buffer waking us as it fills up. */
	pfd = calloc((size_t)t->ncpu + 1, sizeof(*pfd));
	if (!pfd) {
		kt_err("cannot start: %s", strerror(ENOMEM));
		return KT_EXIT_FAIL;
	}
	pfd[0].fd = t->curses ? STDIN_FILENO : -1;
	pfd[0].events = POLLIN;
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		pfd[cpu + 1].fd = kt_livebuf_fd(t->lb[cpu]);
		pfd[cpu + 1].events = POLLIN;
	}

	t->last_sample = now_s();
	if (t->curses) {
		build_order(t);
		t->sel = t->norder ? t->order[0] : 0;
		draw(t);
	}
	while (!quit_sig) {
		now = now_s();
		timeout = (int)((next - now) * 1000) + 1;
		if (timeout > TICK_MS)
			timeout = TICK_MS;
		if (timeout < 0)
			timeout = 0;
		if (poll(pfd, (nfds_t)t->ncpu + 1, timeout) < 0 && errno != EINTR) {
			kt_err("cannot wait for input: %s", strerror(errno));
			ret = KT_EXIT_FAIL;
			break;
		}
		if (drain(t)) {
			ret = KT_EXIT_FAIL;
			break;
		}
		dirty = false;
		if (t->curses && cont_sig) {
			cont_sig = 0;
			clearok(curscr, TRUE);
			dirty = true;
		}
		if (t->curses) {
			while ((ch = getch()) != ERR) {
				if (handle_key(t, ch))
					goto out;
				dirty = true;
			}
		}
		if (now_s() >= next) {
			sample(t);
			next += t->o->interval;
			if (next < now_s())
				next = now_s() + t->o->interval;
			if (t->curses)
				dirty = true;
			else if ((err = print_text(t))) {
				/* | head: the reader has seen enough. */
				if (err != -EPIPE) {
					kt_err("cannot write output: %s", strerror(-err));
					ret = KT_EXIT_FAIL;
				}
				break;
			}
			if (t->o->iterations && t->samples >= t->o->iterations) {
				if (t->curses)
					draw(t);
				break;
			}
		}
		if (dirty)
			draw(t);
	}
out:
	free(pfd);
	return ret;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() must return so the loop sees the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_cont_signal;
	sigaction(SIGCONT, &sa, NULL);
}

/* Loss is never silent: say it once more where it outlives the screen. */
static void report_loss(const struct top *t)
{
	char line[256];
	struct loss l;

	total_loss(t, &l);
	if (!lost_any(&l))
		return;
	format_loss(&l, line, sizeof(line));
	if (t->own_instance)
		kt_warn("events were %s; try fewer events or a larger buffer (-b, now %llu KB per CPU)",
			line, t->buf_bytes[0] / 1024);
	else
		kt_warn("events were %s; try fewer events or a larger buffer_size_kb for instance '%s'",
			line, t->inst_name);
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .interval = 1.0 };
	struct top t;
	int ret = KT_EXIT_FAIL;
	size_t i;

	if (kt_argp_parse(&top_argp, argc, argv, &o))
		return KT_EXIT_OK;
	/* top reads ftrace instances only: names are ftrace's. */
	kt_events_set_backend(KT_BACKEND_FTRACE);
	memset(&t, 0, sizeof(t));
	t.o = &o;
	install_signals();

	t.ncpu = kt_cpu_count();
	if (t.ncpu < 1) {
		kt_err("cannot find the per-CPU buffers in tracefs: %s",
		       strerror(-t.ncpu));
		goto err_opts;
	}
	/* Row 0 counts what no row names (and what -B's others enable). */
	if (add_row(&t, "", "(other)")) {
		kt_err("cannot start: %s", strerror(ENOMEM));
		goto err_rows;
	}
	free(t.rows[0].label);
	t.rows[0].label = strdup("(other)");
	if (!t.rows[0].label)
		goto err_rows;
	if (open_instance(&t))
		goto err_rows;
	if (o.instance && !o.nevents) {
		if (rows_from_set_event(&t))
			goto err_instance;
	} else if (rows_from_specs(&t)) {
		goto err_instance;
	}
	if (alloc_tables(&t)) {
		kt_err("cannot start: %s", strerror(ENOMEM));
		goto err_tables;
	}
	if (o.buffer_kb) {
		char kb[32];
		int err;

		snprintf(kb, sizeof(kb), "%lu", o.buffer_kb);
		err = kt_tracefs_write(t.inst, "buffer_size_kb", kb);
		if (err) {
			kt_err("cannot make the buffer %lu KB per CPU: %s; try a smaller -b",
			       o.buffer_kb, strerror(-err));
			goto err_tables;
		}
	}
	/* A private instance records only once everything is set up. */
	if (t.own_instance && kt_tracefs_write(t.inst, "tracing_on", "0"))
		kt_warn("cannot pause instance '%s' while setting it up",
			t.inst_name);
	for (i = 1; i < t.nrows; i++)
		if (setup_row(&t, i, !o.instance || o.nevents))
			goto err_tables;
	if (open_buffers(&t))
		goto err_buffers;
	/*
	 * Wake up at a tenth full (not the default half), as record's
	 * recorders do, so a burst between two wake-ups still fits.
	 */
	if (t.own_instance && kt_tracefs_write(t.inst, "buffer_percent", "10"))
		kt_debug("cannot set buffer_percent of instance '%s'",
			 t.inst_name);
	if (t.own_instance && kt_tracefs_write(t.inst, "tracing_on", "1")) {
		kt_err("cannot start tracing in instance '%s'", t.inst_name);
		goto err_buffers;
	}
	if (!o.batch && isatty(STDOUT_FILENO) && init_screen(&t))
		kt_warn("cannot use the terminal (TERM=%s); printing text",
			getenv("TERM") ? getenv("TERM") : "");
	ret = run(&t);
	end_screen(&t);
	report_loss(&t);
err_buffers:
	close_buffers(&t);
err_tables:
	free_tables(&t);
err_instance:
	close_instance(&t);
err_rows:
	free_rows(&t);
err_opts:
	free(o.events);
	return ret;
}
