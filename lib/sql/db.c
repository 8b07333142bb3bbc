// SPDX-License-Identifier: GPL-2.0
/*
 * A recording as an SQLite database.  See db.h.
 */
#include <ctype.h>
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "analyze/cpu.h"
#include "analyze/offcpu.h"
#include "analyze/pidmap.h"
#include "analyze/rows.h"
#include "analyze/sched.h"
#include "analyze/taskstate.h"
#include "file/tgidmap.h"
#include "base/log.h"
#include "base/tmpfile.h"
#include "decode/decoder.h"
#include "decode/hosts.h"
#include "file/reader.h"
#include "file/wallclock.h"
#include "sql/db.h"
#include "sql/sqlitefns.h"
#include "sql/schema.h"
#include "views/summary.h"

/* A table of the schema (name, kind, ev, cols: the schema's) and its SQLite state. */
struct table {
	const char *name;
	enum kt_tab_kind kind;
	struct tep_event *ev;		/* KT_TAB_EVENT's */
	const struct kt_schema_col *cols;
	int ncols;
	struct kt_schema_col *own_cols;	/* tasks': the schema's, then sql's own */
	char *create;
	bool want, loaded;
	sqlite3_stmt *ins;		/* one row */
	sqlite3_stmt *batch;		/* nbatch rows: the records' tables */
	int nbatch, filled;
	/*
	 * The text columns made for the rows bound and not yet stepped,
	 * which SQLite need not copy at the bind (malloc, copy and free
	 * per column were a tenth of a syscall table's load).
	 */
	char *text;
	size_t text_at, text_cap;
	struct held *held;		/* the batch's parameters, by number - 1 */
	/*
	 * Each host's table of this name (NULL: it has none, or one of
	 * other columns); ev and cols are the host's being loaded.
	 */
	const struct kt_schema_table **of;
	const char *host_col;		/* "host", or "ktrace_host" beside a field of that name */
};

/*
 * What a parameter of a batch holds: SQLite keeps bindings across
 * SQ(reset)(), so an equal value need not be bound again (most of
 * a row's cpu, pid, comm, system and name are the row's 64 before:
 * binding was two fifths of SQLite's cost of a row).
 */
struct held {
	enum { H_NONE, H_INT, H_NAME, H_NULL } kind;
	long long v;			/* H_INT's value; H_NAME's length */
	const char *s;			/* H_NAME's: a text that never changes */
};

/* The longest text column made, with its NUL. */
#define TEXT_MAX 8192

/*
 * A pid's comm, as libtraceevent gives it (a bsearch of the file's
 * comms: a twentieth of a load when done for each record).
 */
struct comm {
	const char *s;			/* NULL: empty */
	int pid;
	int len;
};

#define NCOMMS 1024

/* A task's row of the tasks table, by pid (analyze/pidmap.h). */
struct task {
	int pid;
	unsigned long long events, first, last;
};

/* A recording of one host: its file, its events' tables, its loss. */
struct src {
	struct kt_reader *r;
	struct tep_handle *tep;
	const char *machine;
	const char *name;		/* its rows' host (kt_hosts's name of it) */
	struct kt_schema *schema;
	struct table **by_id;		/* event id -> its table, ids < nid */
	int nid;
	bool loss_counted;		/* lost and present are known */
	unsigned long long lost;
	bool lost_unknown;
	bool *present;			/* by event id < nid: records of it */
};

struct kt_sqldb {
	struct src *src;		/* the hosts, in the order given */
	int nsrc;
	struct src *cur;		/* the one a pass reads */
	struct kt_hosts *hosts;		/* their names and clock offsets */
	sqlite3 *h;
	struct table *t;
	size_t nt;
	struct kt_pidmap tasks;		/* struct task, while tasks loads */
	struct comm comms[NCOMMS];	/* by pid % NCOMMS, cur's */
	char buf[TEXT_MAX];		/* a text column made, no room in text */
};

sqlite3 *kt_sqldb_handle(struct kt_sqldb *db)
{
	return db->h;
}

size_t kt_sqldb_ntables(const struct kt_sqldb *db)
{
	return db->nt;
}

const char *kt_sqldb_table(const struct kt_sqldb *db, size_t i)
{
	return i < db->nt ? db->t[i].name : NULL;
}

static struct table *find(struct kt_sqldb *db, const char *name)
{
	size_t i;

	for (i = 0; i < db->nt; i++)
		if (!strcasecmp(db->t[i].name, name))
			return &db->t[i];
	return NULL;
}

/* "CREATE TABLE name(ts INTEGER, ...)" for t. */
static int make_create(struct table *t)
{
	static const char *const types[] = {
		[KT_COL_NUM] = "INTEGER", [KT_COL_STR] = "TEXT", [KT_COL_ARRAY] = "TEXT",
		[KT_COL_SYSCALL] = "TEXT", [KT_COL_ERRNO] = "TEXT", [KT_COL_STATE] = "TEXT",
		[KT_COL_VEC] = "TEXT",
	};
	size_t cap = 256, at;
	char *s = malloc(cap), *n;
	int i;

	if (!s)
		return -ENOMEM;
	at = (size_t)snprintf(s, cap, "CREATE TABLE \"%s\" (", t->name);
	for (i = 0; i < t->ncols; i++) {
		size_t need = strlen(t->cols[i].name) + 64;

		if (at + need >= cap) {
			cap = (at + need) * 2;
			n = realloc(s, cap);
			if (!n) {
				free(s);
				return -ENOMEM;
			}
			s = n;
		}
		at += (size_t)snprintf(s + at, cap - at, "%s\"%s\" %s", i ? ", " : "",
				       t->cols[i].name, types[t->cols[i].kind]);
	}
	snprintf(s + at, cap - at, "%s\"%s\" TEXT)", t->ncols ? ", " : "", t->host_col);
	t->create = s;
	return 0;
}

/*
 * sql's own table, after the schema's: each wakeup with its latency, as
 * analyze sched counts it (sched.h), so that a query of it gives
 * analyze's figures.
 */
static char c_ts[] = "ts", c_cpu[] = "cpu", c_pid[] = "pid", c_comm[] = "comm",
	    c_lat[] = "latency_ns", c_run[] = "run_ts";
static const struct kt_schema_col wakeup_cols[] = {
	{ c_ts, KT_COL_NUM, NULL, false }, { c_cpu, KT_COL_NUM, NULL, false },
	{ c_pid, KT_COL_NUM, NULL, false }, { c_comm, KT_COL_STR, NULL, false },
	{ c_lat, KT_COL_NUM, NULL, false }, { c_run, KT_COL_NUM, NULL, false },
};

/*
 * And the task model's intervals (taskstate.h), so that a sum of them
 * gives analyze's figures: each run of a task on a CPU, as analyze cpu
 * adds it up (the idle task's, pid 0, too), and each stretch a task spent
 * off the CPUs blocked, as analyze offcpu adds it up, with its reason
 * and who woke it.  Their columns begin as the records' tables' do.
 */
static char c_end[] = "end_ts", c_dur[] = "dur_ns", c_state[] = "state",
	    c_reason[] = "reason", c_waker[] = "waker_pid", c_wake[] = "wake_ts";
static const struct kt_schema_col slice_cols[] = {
	{ c_ts, KT_COL_NUM, NULL, false }, { c_cpu, KT_COL_NUM, NULL, false },
	{ c_pid, KT_COL_NUM, NULL, false }, { c_comm, KT_COL_STR, NULL, false },
	{ c_end, KT_COL_NUM, NULL, false }, { c_dur, KT_COL_NUM, NULL, false },
};
static const struct kt_schema_col offcpu_cols[] = {
	{ c_ts, KT_COL_NUM, NULL, false }, { c_cpu, KT_COL_NUM, NULL, false },
	{ c_pid, KT_COL_NUM, NULL, false }, { c_comm, KT_COL_STR, NULL, false },
	{ c_end, KT_COL_NUM, NULL, false }, { c_dur, KT_COL_NUM, NULL, false },
	{ c_state, KT_COL_STR, NULL, false }, { c_reason, KT_COL_STR, NULL, false },
	{ c_waker, KT_COL_NUM, NULL, false }, { c_wake, KT_COL_NUM, NULL, false },
};

#define NCOLS(v) ((int)(sizeof(v) / sizeof((v)[0])))

/*
 * tasks: the schema's columns (push's too), then each task's run time,
 * switches and missing switches as analyze cpu and sched count them,
 * sql's own (NULL in a file without sched_switch records).
 */
static char c_run_ns[] = "run_ns", c_switches[] = "switches", c_missing[] = "missing_switches";
static const struct kt_schema_col task_cols[] = {
	{ c_run_ns, KT_COL_NUM, NULL, false }, { c_switches, KT_COL_NUM, NULL, false },
	{ c_missing, KT_COL_NUM, NULL, false },
};

/* How many columns of sql's own follow the schema's in t. */
static int own_ncols(enum kt_tab_kind kind)
{
	return kind == KT_TAB_TASKS ? NCOLS(task_cols) : 0;
}

/* Whether another host's table of t's name has t's columns. */
static bool same_cols(const struct table *t, const struct kt_schema_table *b)
{
	int i;

	if (t->kind != b->kind || t->ncols != b->ncols + own_ncols(b->kind))
		return false;
	for (i = 0; i < b->ncols; i++)
		if (t->cols[i].kind != b->cols[i].kind || strcmp(t->cols[i].name, b->cols[i].name))
			return false;
	return true;
}

/* A new table of the db, its columns st's: its CREATE TABLE made. */
static int add_table(struct kt_sqldb *db, const char *name, enum kt_tab_kind kind,
		     const struct kt_schema_col *cols, int ncols, struct tep_event *ev)
{
	struct table *t = &db->t[db->nt++];
	int i;

	t->name = name;
	t->kind = kind;
	t->ev = ev;
	t->cols = cols;
	t->ncols = ncols;
	if (own_ncols(kind)) {
		t->own_cols = malloc((size_t)(ncols + own_ncols(kind)) * sizeof(*cols));
		if (!t->own_cols)
			return -ENOMEM;
		memcpy(t->own_cols, cols, (size_t)ncols * sizeof(*cols));
		memcpy(t->own_cols + ncols, task_cols, sizeof(task_cols));
		t->cols = t->own_cols;
		t->ncols += own_ncols(kind);
	}
	t->host_col = "host";
	for (i = 0; i < ncols; i++)
		if (!strcasecmp(cols[i].name, "host"))
			t->host_col = "ktrace_host";
	t->of = calloc((size_t)db->nsrc, sizeof(*t->of));
	return t->of ? make_create(t) : -ENOMEM;
}

/*
 * Host k's tables: each into the db's table of its name (a new one when
 * no host before had it); one of other columns than the first host's
 * (another kernel's event) is left out, said once.  map[i] is the db
 * table of its schema's i-th, or -1.
 */
static int take_tables(struct kt_sqldb *db, int k)
{
	struct src *x = &db->src[k];
	size_t i, n = kt_schema_ntables(x->schema);
	long *map = calloc(n + 1, sizeof(*map)), j;
	struct table *t;
	int id, err = 0;

	if (!map)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct kt_schema_table *st = kt_schema_table(x->schema, i);

		map[i] = -1;
		t = find(db, st->name);
		if (!t) {
			err = add_table(db, st->name, st->kind, st->cols, st->ncols, st->ev);
			t = &db->t[db->nt - 1];
		} else if (!same_cols(t, st)) {
			kt_warn("table '%s' of host '%s' has other columns than another host's: its rows are left out",
				st->name, x->name);
			continue;
		}
		t->of[k] = st;
		map[i] = t - db->t;
		if (st->ev && st->ev->id >= x->nid)
			x->nid = st->ev->id + 1;
	}
	if (err || !x->nid)
		goto out;
	x->by_id = calloc((size_t)x->nid, sizeof(*x->by_id));
	x->present = calloc((size_t)x->nid, sizeof(*x->present));
	if (!x->by_id || !x->present) {
		err = -ENOMEM;
		goto out;
	}
	for (id = 0; id < x->nid; id++) {
		j = kt_schema_event_table(x->schema, id);
		if (j >= 0 && map[j] >= 0)
			x->by_id[id] = &db->t[map[j]];
	}
out:
	free(map);
	return err;
}

/* The hosts' tables (schema.h), each with its CREATE TABLE, then sql's own. */
static int make_tables(struct kt_sqldb *db)
{
	size_t n = 3;
	int k, err = 0;

	for (k = 0; k < db->nsrc; k++)
		n += kt_schema_ntables(db->src[k].schema);
	db->t = calloc(n, sizeof(*db->t));
	if (!db->t)
		return -ENOMEM;
	for (k = 0; k < db->nsrc && !err; k++)
		err = take_tables(db, k);
	err = err ?: add_table(db, "wakeups", KT_TAB_WAKEUPS, wakeup_cols, NCOLS(wakeup_cols),
			       NULL);
	err = err ?: add_table(db, "sched_slices", KT_TAB_SLICES, slice_cols, NCOLS(slice_cols),
			       NULL);
	return err ?: add_table(db, "offcpu_slices", KT_TAB_OFFCPU, offcpu_cols,
				NCOLS(offcpu_cols), NULL);
}

/* sql's own tables, derived from the task model: none of a host's schema. */
static bool derived(const struct table *t)
{
	return t->kind == KT_TAB_WAKEUPS || t->kind == KT_TAB_SLICES || t->kind == KT_TAB_OFFCPU;
}

struct kt_sqldb *kt_sqldb_open_hosts(struct kt_reader **rs, int n)
{
	struct kt_sqldb *db;
	struct kt_host_info hi;
	int err = 0, k;

	/* SQLite is loaded here, before anything may call it (sqlitefns.h). */
	if (!kt_sqlite_get()) {
		kt_err("cannot start SQLite: %s; install libsqlite3-0", kt_sqlite_error());
		errno = EIO;
		return NULL;
	}
	db = calloc(1, sizeof(*db));
	if (!db)
		return NULL;
	db->tasks.size = sizeof(struct task);
	db->hosts = kt_hosts_new();
	db->src = calloc((size_t)n, sizeof(*db->src));
	if (!db->hosts || !db->src) {
		kt_sqldb_close(db);
		errno = ENOMEM;
		return NULL;
	}
	db->nsrc = n;
	for (k = 0; k < n && !err; k++) {
		struct src *x = &db->src[k];

		x->r = rs[k];
		x->tep = kt_reader_tep(rs[k]);
		x->machine = kt_reader_machine(rs[k]);
		err = kt_hosts_add(db->hosts, rs[k], NULL, kt_reader_path(rs[k]));
	}
	/* Each its name once all are in: two of one host name go by their files'. */
	for (k = 0; k < n && !err; k++) {
		kt_hosts_info(db->hosts, k, &hi);
		db->src[k].name = hi.name;
		db->src[k].schema = kt_schema_new(db->src[k].tep);
		if (!db->src[k].schema)
			err = -errno;
	}
	if (err) {
		kt_sqldb_close(db);
		errno = -err;
		return NULL;
	}
	/*
	 * One thread uses the database: no SQLite mutexes, no memory
	 * statistics (a mutex per allocation); they were a tenth of a load.
	 */
	SQ(config)(SQLITE_CONFIG_SINGLETHREAD);
	SQ(config)(SQLITE_CONFIG_MEMSTATUS, 0);
	if (SQ(open_v2)(":memory:", &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		kt_err("cannot start SQLite: %s", db->h ? SQ(errmsg)(db->h) : "out of memory");
		kt_sqldb_close(db);
		errno = EIO;
		return NULL;
	}
	SQ(exec)(db->h, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; "
		     "PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576", NULL, NULL, NULL);
	err = make_tables(db);
	if (err) {
		kt_sqldb_close(db);
		errno = -err;
		return NULL;
	}
	db->cur = &db->src[0];
	return db;
}

struct kt_sqldb *kt_sqldb_open(struct kt_reader *r)
{
	return kt_sqldb_open_hosts(&r, 1);
}

const char *kt_sqldb_create(struct kt_sqldb *db, const char *table)
{
	struct table *t = find(db, table);

	return t ? t->create : NULL;
}

/*
 * report --stat's total: the marks and the record-time counters; and
 * which events have records, the tables the file has.
 */
static void take_loss(struct src *x, struct kt_summary *s)
{
	int i;

	x->lost = kt_summary_total_lost(s);
	for (i = 0; i < kt_summary_cpus(s); i++)
		if (kt_summary_cpu_at(s, i)->unknown_marks)
			x->lost_unknown = true;
	x->loss_counted = true;
}

/*
 * Counted by the first load's pass (present marked as it goes), or else
 * by a pass of its own.
 */
static void count_once(struct src *x)
{
	const struct kt_summary_event *e;
	struct kt_summary *s;
	int i;

	if (x->loss_counted)
		return;
	s = kt_summary_new(x->r);
	if (s)
		take_loss(x, s);
	for (i = 0; s && x->present && i < kt_summary_events(s); i++) {
		e = kt_summary_event_at(s, i);
		if (e->total && e->event && e->event->id >= 0 && e->event->id < x->nid)
			x->present[e->event->id] = true;
	}
	kt_summary_free(s);
	x->loss_counted = true;
}

unsigned long long kt_sqldb_lost(struct kt_sqldb *db, bool *unknown)
{
	unsigned long long lost = 0;
	int k;

	*unknown = false;
	for (k = 0; k < db->nsrc; k++) {
		count_once(&db->src[k]);
		lost += db->src[k].lost;
		*unknown |= db->src[k].lost_unknown;
	}
	return lost;
}

bool kt_sqldb_has(struct kt_sqldb *db, size_t i)
{
	struct table *t = i < db->nt ? &db->t[i] : NULL;

	size_t k;

	if (!t)
		return false;
	if (derived(t)) {
		/* With sched_switch records: the model's switches. */
		for (k = 0; k < db->nt; k++)
			if (db->t[k].ev && !strcmp(db->t[k].ev->name, "sched_switch") &&
			    db->t[k].ev->system && !strcmp(db->t[k].ev->system, "sched"))
				return kt_sqldb_has(db, k);
		return false;
	}
	if (t->kind != KT_TAB_EVENT)
		return true;
	/* Some host's records of its event. */
	for (k = 0; k < (size_t)db->nsrc; k++) {
		struct src *x = &db->src[k];
		const struct kt_schema_table *st = t->of[k];

		count_once(x);
		if (st && st->ev && x->present && st->ev->id >= 0 && st->ev->id < x->nid &&
		    x->present[st->ev->id])
			return true;
	}
	return false;
}

/*
 * ---- loading ----
 *
 * Chosen by measurement on bench/analyze-speed's file (4.8 M records;
 * BENCHMARKS.md, "analyze"): tables in SQLite's memory, loaded by one
 * pass over the file in one transaction, 64 rows to a prepared INSERT
 * (the pragmas above: no journal, no sync, 64 KB pages).  SQLite's
 * inserts are about 60% of loading the events table.  What the pass
 * did besides was cut: a second pass to count the loss (a seventh),
 * libtraceevent's comm lookup per record (a twentieth), malloc, copy
 * and free of each made text column (a tenth of sys_enter's load) and
 * clearing the bindings: loading the events table went from 1.7 to 2.4
 * M records a second of CPU (sys_enter's from 1.7 to 2.7 M), the least
 * of 5 interleaved runs each on a host shared at load 6 to 10.  Then
 * binding only what a parameter does not hold already (struct held):
 * 2.4 to 2.8 M (sys_enter 2.4 to 2.7 M; at load 3 to 5).  Within
 * the noise, so left: 256 rows to a statement, 4 or 16 KB pages, INSERT
 * ... SELECT from a virtual table over the rows.  Not taken: virtual
 * tables reading the file as the tables themselves, a scan per query,
 * so a join or a correlated subquery (README's worst wakeup) would
 * decode the file again for each outer row.  (journal_mode=OFF and
 * synchronous=OFF were set before; locking_mode=EXCLUSIVE changes
 * nothing for a database in memory.)
 */

/*
 * s lives until the row is stepped (a name of libtraceevent's or of a
 * table of ours): SQLite need not copy it.
 */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		SQ(bind_text)(st, i, s, -1, SQLITE_STATIC);
	else
		SQ(bind_null)(st, i);
}

/* s is a buffer the next use reuses: SQLite copies it. */
static void bind_copy(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		SQ(bind_text)(st, i, s, -1, SQLITE_TRANSIENT);
	else
		SQ(bind_null)(st, i);
}

static struct held *held_at(struct table *t, int i)
{
	return t->held ? &t->held[i - 1] : NULL;
}

/* An integer of a record's row: bound unless parameter i holds it. */
static void row_int(struct table *t, sqlite3_stmt *st, int i, long long v)
{
	struct held *h = held_at(t, i);

	if (h && h->kind == H_INT && h->v == v)
		return;
	SQ(bind_int64)(st, i, v);
	if (h)
		*h = (struct held){ .kind = H_INT, .v = v };
}

/*
 * A text of a record's row that never changes (a comm of libtraceevent's,
 * an event's name, a name of a table of ours), n bytes (-1: to its NUL),
 * NULL for NULL: bound unless parameter i holds it.
 */
static void row_name(struct table *t, sqlite3_stmt *st, int i, const char *s, int n)
{
	struct held *h = held_at(t, i);

	if (h && (s ? h->kind == H_NAME && h->s == s && h->v == n : h->kind == H_NULL))
		return;
	if (s)
		SQ(bind_text)(st, i, s, n, SQLITE_STATIC);
	else
		SQ(bind_null)(st, i);
	if (h)
		*h = (struct held){ .kind = s ? H_NAME : H_NULL, .v = n, .s = s };
}

/* Where the next text column of t is made: its arena, or db->buf. */
static char *text_room(struct kt_sqldb *db, struct table *t)
{
	return t->text && t->text_cap - t->text_at >= TEXT_MAX ? t->text + t->text_at : db->buf;
}

/*
 * Bind the text made at s (text_room()), n bytes (< 0: NULL): in the
 * arena it lives until the step; db->buf the next column reuses, so
 * SQLite copies that.
 */
static void bind_made(struct table *t, sqlite3_stmt *st, int i, const char *s, int n)
{
	struct held *h = held_at(t, i);

	/* Made anew for each row, perhaps where the last was: always bound. */
	if (h)
		h->kind = H_NONE;
	if (n < 0) {
		SQ(bind_null)(st, i);
	} else if (t->text && s == t->text + t->text_at) {
		t->text_at += (size_t)n + 1;
		SQ(bind_text)(st, i, s, n, SQLITE_STATIC);
	} else {
		SQ(bind_text)(st, i, s, n, SQLITE_TRANSIENT);
	}
}

static void bind_col(struct kt_sqldb *db, struct table *t, sqlite3_stmt *st, int i,
		     const struct kt_schema_col *c, struct tep_record *rec)
{
	char *out = text_room(db, t);
	const char *text;
	long long v;

	if (c->kind == KT_COL_NUM) {
		if (kt_schema_col_num(c, rec, &v))
			row_int(t, st, i, v);
		else
			row_name(t, st, i, NULL, 0);
		return;
	}
	/* Made into out, or a name that lives on (the schema's choice). */
	text = kt_schema_text(db->cur->machine, c, rec, out, TEXT_MAX);
	if (text == out)
		bind_made(t, st, i, out, (int)strlen(out));
	else
		row_name(t, st, i, text, -1);
}

static int step(struct kt_sqldb *db, sqlite3_stmt *st)
{
	int rc = SQ(step)(st);

	SQ(reset)(st);
	if (rc != SQLITE_DONE) {
		kt_err("cannot load the database: %s", SQ(errmsg)(db->h));
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	return 0;
}

/* "INSERT INTO t VALUES (?,...),..." of rows rows into *st. */
static int prepare_rows(struct kt_sqldb *db, struct table *t, int rows,
			sqlite3_stmt **st)
{
	size_t len = strlen(t->name) + 32 + (size_t)rows * ((size_t)(t->ncols + 1) * 2 + 4);
	char *sql = malloc(len);
	int i, r, rc;
	size_t at;

	if (!sql)
		return -ENOMEM;
	at = (size_t)snprintf(sql, len, "INSERT INTO \"%s\" VALUES ", t->name);
	for (r = 0; r < rows; r++) {
		sql[at++] = r ? ',' : '(';
		if (r)
			sql[at++] = '(';
		/* Its columns, then host. */
		for (i = 0; i <= t->ncols; i++) {
			if (i)
				sql[at++] = ',';
			sql[at++] = '?';
		}
		sql[at++] = ')';
	}
	sql[at] = '\0';
	rc = SQ(prepare_v3)(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		kt_err("cannot load table '%s': %s", t->name, SQ(errmsg)(db->h));
		return -EIO;
	}
	return 0;
}

/*
 * The records' tables take their rows 64 at a time (one statement of many
 * rows costs SQLite less per row than a statement a row: a third of a
 * load); the others one at a time.
 */
static int prepare_insert(struct kt_sqldb *db, struct table *t)
{
	int ret = prepare_rows(db, t, 1, &t->ins);

	if (ret || (t->kind != KT_TAB_EVENT && t->kind != KT_TAB_EVENTS &&
		    t->kind != KT_TAB_SLICES && t->kind != KT_TAB_OFFCPU))
		return ret;
	t->nbatch = 32000 / (t->ncols + 1) < 64 ? 32000 / (t->ncols + 1) : 64;
	t->filled = 0;
	if (t->kind == KT_TAB_EVENT) {
		/* 256 bytes a row: a syscall's six arguments take 120. */
		t->text_cap = (size_t)t->nbatch * 256 + TEXT_MAX;
		t->text_at = 0;
		t->text = malloc(t->text_cap);
		if (!t->text)
			return -ENOMEM;
	}
	if (t->nbatch <= 1)
		return 0;
	t->held = calloc((size_t)t->nbatch * (size_t)(t->ncols + 1), sizeof(*t->held));
	if (!t->held)
		return -ENOMEM;
	return prepare_rows(db, t, t->nbatch, &t->batch);
}

/* The first parameter of the next row of t's batch (1-based). */
static int row_begin(struct table *t)
{
	return t->batch ? t->filled * (t->ncols + 1) + 1 : 1;
}

/* The row is bound: insert it, or the batch when that is full. */
static int row_end(struct kt_sqldb *db, struct table *t)
{
	if (t->batch && ++t->filled < t->nbatch)
		return 0;
	t->filled = 0;
	t->text_at = 0;
	if (!t->batch)
		return step(db, t->ins);
	/* No SQ(clear_bindings)(): each parameter holds its row's value. */
	return step(db, t->batch);
}

/*
 * The rows of a batch not full at the end: it goes in with the rest of
 * its rows NULL, which are deleted again (rowids run in insert order).
 */
static int rows_flush(struct kt_sqldb *db, struct table *t)
{
	char *sql;
	int ret, k = t->filled;

	if (!t->batch || !k)
		return 0;
	t->filled = 0;
	ret = step(db, t->batch);
	if (ret)
		return ret;
	sql = SQ(mprintf)("DELETE FROM \"%w\" WHERE rowid > (SELECT max(rowid) FROM \"%w\") - %d",
			      t->name, t->name, t->nbatch - k);
	if (!sql)
		return -ENOMEM;
	if (SQ(exec)(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		ret = -EIO;
	SQ(free)(sql);
	return ret;
}

/* What one pass over the file fills. */
struct pass {
	struct kt_sqldb *db;
	struct table *events, *tasks, *losses, *wakeups, *slices, *offcpu;
	struct kt_taskstate *model;	/* the one task model the three below share */
	struct kt_sched *sched;		/* wakeups' */
	struct kt_cpu *cpu;		/* slices' */
	struct kt_offcpu *off;		/* offcpu's */
	struct kt_percpu last;		/* unsigned long long: a stream's last ts */
	struct kt_summary *sum;		/* the loss, on the first pass */
};

/*
 * pid's comm and its length: libtraceevent's, which stays put as long as
 * no comm is registered (the reader registers them all at its open).
 */
static const char *comm_of(struct kt_sqldb *db, int pid, int *len)
{
	struct comm *c = &db->comms[(unsigned int)pid % NCOMMS];

	if (!c->s || c->pid != pid) {
		c->s = tep_data_comm_from_pid(db->cur->tep, pid);
		if (!c->s)
			c->s = "<...>";
		c->len = (int)strlen(c->s);
		c->pid = pid;
	}
	*len = c->len;
	return c->s;
}

/*
 * Begin a row of t with the columns every record's table starts with:
 * ts, cpu, pid, comm, and its last, the host.  Returns the row's first
 * parameter.
 */
static int row_common(struct kt_sqldb *db, struct table *t, sqlite3_stmt *st,
		      const struct kt_event *ev, int pid, const char *comm, int clen)
{
	int b = row_begin(t);

	row_name(t, st, b + t->ncols, db->cur->name, -1);
	row_int(t, st, b, (long long)ev->record->ts);
	row_int(t, st, b + 1, ev->cpu);
	row_int(t, st, b + 2, pid);
	row_name(t, st, b + 3, comm, clen);
	return b;
}

static int load_record(const struct kt_event *ev0, void *arg)
{
	struct pass *p = arg;
	struct kt_sqldb *db = p->db;
	struct src *x = db->cur;
	struct tep_record *rec = ev0->record, moved;
	const struct kt_event *ev = ev0;
	struct kt_event mev;
	struct table *t = NULL;
	const char *comm = NULL;
	int pid, clen = 0, i, ret;
	struct task *tk;

	/*
	 * Several hosts: the record's time on the controller's clock, as
	 * report -i A -i B gives it (a copy: the decoder's stays its own).
	 */
	if (db->nsrc > 1) {
		moved = *rec;
		moved.ts = kt_hosts_time(db->hosts, (int)(x - db->src), rec->ts);
		mev = *ev0;
		mev.record = rec = &moved;
		ev = &mev;
	}
	/*
	 * Only the loss is read of sum: the records that mark one.  The
	 * pass that counts it sees every record: which events have any.
	 */
	if (p->sum) {
		if (x->present && ev->event->id >= 0 && ev->event->id < x->nid)
			x->present[ev->event->id] = true;
		if (rec->missed_events) {
			ret = kt_summary_add(p->sum, ev);
			if (ret)
				return ret;
		}
	}
	if (p->losses) {
		/* Each stream's last ts: where a gap after it begins. */
		unsigned long long *last = kt_percpu_at(&p->last, ev->buffer * 1024 + ev->cpu);
		sqlite3_stmt *st = p->losses->ins;

		if (!last)
			return -ENOMEM;
		if (rec->missed_events) {
			SQ(bind_int)(st, 1, ev->buffer);
			SQ(bind_int)(st, 2, ev->cpu);
			if (*last)
				SQ(bind_int64)(st, 3, (long long)*last);
			else
				SQ(bind_null)(st, 3);
			SQ(bind_int64)(st, 4, (long long)rec->ts);
			if (rec->missed_events > 0)
				SQ(bind_int64)(st, 5, (long long)rec->missed_events);
			else
				SQ(bind_null)(st, 5);
			bind_text(st, 6, x->name);
			ret = step(db, st);
			if (ret)
				return ret;
		}
		*last = rec->ts;
	}
	/* The task model, and the analyses on it that the derived tables take. */
	ret = p->model ? kt_taskstate_add(p->model, ev) : 0;
	if (ret)
		return ret;
	if (ev->event->id >= 0 && ev->event->id < x->nid)
		t = x->by_id[ev->event->id];
	if (t && !t->ins)
		t = NULL;
	/* The pid and comm only for a table that has them. */
	if (!t && !p->events && !p->tasks)
		return 0;
	pid = tep_data_pid(x->tep, rec);
	if (t || p->events)
		comm = comm_of(db, pid, &clen);
	if (p->events) {
		struct table *e = p->events;
		sqlite3_stmt *st = e->batch ? e->batch : e->ins;
		int b = row_common(db, e, st, ev, pid, comm, clen);

		row_name(e, st, b + 4, ev->event->system, -1);
		row_name(e, st, b + 5, ev->event->name, -1);
		ret = row_end(db, e);
		if (ret)
			return ret;
	}
	if (p->tasks) {
		tk = kt_pidmap_get(&db->tasks, pid);
		if (!tk)
			return -ENOMEM;
		if (!tk->events++)
			tk->first = rec->ts;
		tk->last = rec->ts;
	}
	if (!t)
		return 0;
	{
		sqlite3_stmt *st = t->batch ? t->batch : t->ins;
		int b = row_common(db, t, st, ev, pid, comm, clen);

		/* Host x's columns: its fields (same_cols() made them the table's). */
		const struct kt_schema_col *cols = t->of[x - db->src]->cols;

		for (i = 4; i < t->ncols; i++)
			bind_col(db, t, st, b + i, &cols[i], rec);
	}
	return row_end(db, t);
}

/* A row of wakeups, from analyze sched. */
static int insert_wakeup(const struct kt_sched_wakeup *w, void *arg)
{
	struct pass *p = arg;
	sqlite3_stmt *st = p->wakeups->ins;

	SQ(bind_int64)(st, 1, (long long)w->wake_ts);
	SQ(bind_int)(st, 2, w->cpu);
	SQ(bind_int)(st, 3, w->pid);
	bind_copy(st, 4, w->comm);
	SQ(bind_int64)(st, 5, (long long)(w->run_ts - w->wake_ts));
	SQ(bind_int64)(st, 6, (long long)w->run_ts);
	bind_text(st, 7, p->db->cur->name);
	return step(p->db, st);
}

/*
 * A text made for one row (SQLite copies it), or NULL: NULL, bound by a
 * batch's parameter that may hold a name.
 */
static void row_text(struct table *t, sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		bind_made(t, st, i, s, (int)strlen(s));
	else
		row_name(t, st, i, NULL, 0);
}

/*
 * Begin a row of an interval's table: ts, cpu, pid, comm, end_ts,
 * dur_ns, and its last, the host.  Returns the row's first parameter.
 */
static int row_interval(struct pass *p, struct table *t, sqlite3_stmt *st, int cpu, int pid,
			const char *comm, unsigned long long start, unsigned long long end)
{
	int b = row_begin(t);

	row_int(t, st, b, (long long)start);
	row_int(t, st, b + 1, cpu);
	row_int(t, st, b + 2, pid);
	row_text(t, st, b + 3, comm);
	row_int(t, st, b + 4, (long long)end);
	row_int(t, st, b + 5, (long long)(end > start ? end - start : 0));
	row_name(t, st, b + t->ncols, p->db->cur->name, -1);
	return b;
}

/* A row of sched_slices, from analyze cpu. */
static int insert_slice(const struct kt_cpu_run *r, void *arg)
{
	struct pass *p = arg;
	struct table *t = p->slices;

	row_interval(p, t, t->batch ? t->batch : t->ins, r->cpu, r->pid, r->comm, r->start,
		     r->end);
	return row_end(p->db, t);
}

/* A row of offcpu_slices, from analyze offcpu. */
static int insert_stretch(const struct kt_off_stretch *s, void *arg)
{
	static const char *const states[] = { "S", "D", "other" };
	struct pass *p = arg;
	struct table *t = p->offcpu;
	sqlite3_stmt *st = t->batch ? t->batch : t->ins;
	int b = row_interval(p, t, st, s->cpu, s->pid, s->comm, s->start, s->end);

	row_name(t, st, b + 6, states[s->state == 'S' ? 0 : s->state == 'D' ? 1 : 2], -1);
	row_text(t, st, b + 7, s->reason);
	if (s->waker >= 0) {
		row_int(t, st, b + 8, s->waker);
		row_int(t, st, b + 9, (long long)s->wake_ts);
	} else {
		row_name(t, st, b + 8, NULL, 0);
		row_name(t, st, b + 9, NULL, 0);
	}
	return row_end(p->db, t);
}

/*
 * Each wakeup's comm as analyze sched's row of its task has it (the
 * task's last, after an exec too), so that a query by comm gives
 * analyze sched --by comm's figures.  A task analyze shows no row of
 * (no record of its own in the file) has none here either.
 */
static int wakeup_comms(struct kt_sqldb *db, struct table *t, struct kt_sched *s)
{
	struct kt_sched_row **rows;
	sqlite3_stmt *st = NULL;
	char *sql;
	size_t i, n;
	int ret;

	ret = kt_sched_rows(s, "run", &rows, &n);
	if (ret)
		return ret;
	if (SQ(exec)(db->h, "CREATE TEMP TABLE wcomm (pid INTEGER PRIMARY KEY, comm TEXT)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    SQ(prepare_v2)(db->h, "INSERT INTO wcomm VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		ret = -EIO;
	for (i = 0; !ret && i < n; i++) {
		SQ(bind_int)(st, 1, rows[i]->pid);
		bind_copy(st, 2, rows[i]->comm);
		ret = step(db, st);
	}
	SQ(finalize)(st);
	/* This host's wakeups: the others' are done. */
	sql = SQ(mprintf)("UPDATE wakeups SET comm = (SELECT w.comm FROM wcomm w "
			      "WHERE w.pid = wakeups.pid) WHERE \"%w\" = %Q; "
			      "DELETE FROM wakeups WHERE comm IS NULL AND \"%w\" = %Q",
			      t->host_col, db->cur->name, t->host_col, db->cur->name);
	if (!sql)
		ret = ret ?: -ENOMEM;
	if (!ret && SQ(exec)(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		ret = -EIO;
	SQ(free)(sql);
	SQ(exec)(db->h, "DROP TABLE IF EXISTS temp.wcomm", NULL, NULL, NULL);
	return ret;
}

struct task_ins {
	struct kt_sqldb *db;
	sqlite3_stmt *st;
	int ncols;
	struct kt_tgidmap tgids;	/* record's thread -> process map */
	struct kt_cpu *cpu;		/* run time, switches and missing ones */
	bool has_switch;
	int err;
};

static void insert_task(const void *node, VISIT which, void *arg)
{
	const struct task *tk = *(const struct task *const *)node;
	struct task_ins *ti = arg;
	const char *comm;

	if ((which != postorder && which != leaf) || ti->err)
		return;
	comm = tep_data_comm_from_pid(ti->db->cur->tep, tk->pid);
	SQ(bind_int)(ti->st, 1, tk->pid);
	SQ(bind_int)(ti->st, 2, kt_tgidmap_of(&ti->tgids, tk->pid));
	bind_text(ti->st, 3, comm ? comm : "<...>");
	SQ(bind_int64)(ti->st, 4, (long long)tk->events);
	SQ(bind_int64)(ti->st, 5, (long long)tk->first);
	SQ(bind_int64)(ti->st, 6, (long long)tk->last);
	if (ti->has_switch) {
		const struct kt_cpu_task *c = kt_cpu_task_of(ti->cpu, tk->pid);

		SQ(bind_int64)(ti->st, 7, c ? (long long)c->ns : 0);
		SQ(bind_int64)(ti->st, 8, c ? (long long)c->switches : 0);
		SQ(bind_int64)(ti->st, 9, c ? (long long)c->missing : 0);
	} else {
		SQ(bind_null)(ti->st, 7);
		SQ(bind_null)(ti->st, 8);
		SQ(bind_null)(ti->st, 9);
	}
	bind_text(ti->st, ti->ncols + 1, ti->db->cur->name);
	ti->err = step(ti->db, ti->st);
}

/* The tasks' rows, once the pass has read the file. */
static int load_tasks(struct kt_sqldb *db, struct pass *p)
{
	struct task_ins ti = { .db = db, .st = p->tasks->ins, .ncols = p->tasks->ncols,
			       .cpu = p->cpu };
	struct kt_cpu_totals ct;
	int ret;

	kt_cpu_totals(p->cpu, &ct);
	ti.has_switch = ct.has_switch;
	/* A file without the map: each task its own process. */
	ret = kt_tgidmap_load(&ti.tgids, kt_reader_tgids(db->cur->r));
	if (!ret)
		twalk_r(db->tasks.tree, insert_task, &ti);
	kt_tgidmap_free(&ti.tgids);
	return ret ?: ti.err;
}

/*
 * What record measured of its clock against realtime: realtime minus
 * trace time in ns at the start and at the end, and the boot's id.
 */
static int load_wall(struct kt_sqldb *db, sqlite3_stmt *st)
{
	struct kt_wallclock w;
	const struct kt_wallpoint *p[2] = { &w.start, &w.end };
	static const char *const keys[2] = { "realtime_offset_start", "realtime_offset_end" };
	char v[32];
	int i, ret = 0;

	if (kt_wallclock_parse(kt_reader_wall_clock(db->cur->r), &w) || !kt_wallclock_known(&w))
		return 0;
	if (w.boot_id[0]) {
		bind_text(st, 1, "boot_id");
		bind_copy(st, 2, w.boot_id);
		ret = step(db, st);
	}
	for (i = 0; i < 2 && !ret; i++) {
		if (!p[i]->known)
			continue;
		snprintf(v, sizeof(v), "%lld", p[i]->real - (long long)p[i]->trace);
		bind_text(st, 1, keys[i]);
		bind_copy(st, 2, v);
		ret = step(db, st);
	}
	return ret;
}

static int load_meta(struct kt_sqldb *db, sqlite3_stmt *st)
{
	const char *kv[][2] = {
		{ "file", kt_reader_path(db->cur->r) },
		{ "clock", kt_reader_clock(db->cur->r) },
		{ "uname", kt_reader_uname(db->cur->r) },
		{ "machine", kt_reader_machine(db->cur->r) },
		{ "compression", kt_reader_compression(db->cur->r) },
	};
	char v[32], c[32];
	size_t i;
	int ret = 0;

	snprintf(v, sizeof(v), "%d", kt_reader_version(db->cur->r));
	snprintf(c, sizeof(c), "%d", kt_reader_cpus(db->cur->r));
	/* Every row this host's (its parameter kept across the steps). */
	bind_text(st, 3, db->cur->name);
	for (i = 0; i < sizeof(kv) / sizeof(kv[0]) && !ret; i++) {
		bind_text(st, 1, kv[i][0]);
		bind_text(st, 2, kv[i][1]);
		ret = step(db, st);
	}
	bind_text(st, 1, "version");
	bind_text(st, 2, v);
	ret = ret ?: step(db, st);
	bind_text(st, 1, "cpus");
	bind_text(st, 2, c);
	ret = ret ?: step(db, st);
	return ret ?: load_wall(db, st);
}

/*
 * The pass: every record to load_record().  The first pass also counts
 * the loss, as it sees every record: kt_sqldb_lost() then needs no pass
 * of its own (a seventh of loading the events table).
 */
static int run_pass(struct kt_sqldb *db, struct pass *p)
{
	struct kt_decoder *d;
	int ret;

	if (!db->cur->loss_counted) {
		p->sum = kt_summary_begin(db->cur->r, NULL);
		if (!p->sum)
			return -ENOMEM;
	}
	p->last.size = sizeof(unsigned long long);
	/*
	 * One task model for the file, fed once: the wakeups, the slices,
	 * the tasks' run time and the stretches off count the same tasks
	 * and switches (taskstate.h).
	 */
	if (p->wakeups || p->slices || p->tasks || p->offcpu) {
		p->model = kt_taskstate_new(db->cur->tep, NULL);
		if (!p->model)
			goto err_models;
	}
	if (p->wakeups) {
		p->sched = kt_sched_join(p->model, KT_SCHED_BY_TASK, NULL);
		if (!p->sched)
			goto err_models;
		kt_sched_on_wakeup(p->sched, insert_wakeup, p);
	}
	if (p->slices || p->tasks) {
		p->cpu = kt_cpu_join(db->cur->tep, p->model);
		if (!p->cpu)
			goto err_models;
		if (p->slices)
			kt_cpu_on_run(p->cpu, insert_slice, p);
	}
	if (p->offcpu) {
		p->off = kt_offcpu_join(db->cur->tep, p->model, db->cur->machine, false);
		if (!p->off)
			goto err_models;
		kt_offcpu_on_stretch(p->off, insert_stretch, p);
	}
	d = kt_decoder_new(db->cur->r, &(struct kt_decoder_opts){ 0 });
	ret = !d ? (errno ? -errno : -ENOMEM) : kt_decoder_run(d, load_record, p);
	kt_decoder_free(d);
	if (!ret && p->sched)
		ret = wakeup_comms(db, p->wakeups, p->sched);
	if (!ret && p->tasks)
		ret = load_tasks(db, p);
	kt_offcpu_free(p->off);
	kt_cpu_free(p->cpu);
	kt_sched_free(p->sched);
	kt_taskstate_free(p->model);
	free(p->last.v);
	if (!ret && p->sum) {
		kt_summary_end(p->sum);
		take_loss(db->cur, p->sum);
	}
	kt_summary_free(p->sum);
	return ret;

err_models:
	kt_cpu_free(p->cpu);
	kt_sched_free(p->sched);
	kt_taskstate_free(p->model);
	kt_summary_free(p->sum);
	return -ENOMEM;
}

/* Host k's rows of the tables wanted: one pass over its file. */
static int load_host(struct kt_sqldb *db, int k)
{
	struct pass p = { .db = db };
	bool pass = false;
	size_t i;
	int ret = 0;

	db->cur = &db->src[k];
	memset(db->comms, 0, sizeof(db->comms));
	for (i = 0; i < db->nt && !ret; i++) {
		struct table *t = &db->t[i];

		/* A table this host has none of (another kernel's event). */
		if (!t->want || t->loaded || (!derived(t) && !t->of[k]))
			continue;
		ret = prepare_insert(db, t);
		if (ret)
			break;
		if (t->kind == KT_TAB_META) {
			ret = load_meta(db, t->ins);
			continue;
		}
		pass = true;
		if (t->kind == KT_TAB_EVENTS)
			p.events = t;
		else if (t->kind == KT_TAB_TASKS)
			p.tasks = t;
		else if (t->kind == KT_TAB_LOSSES)
			p.losses = t;
		else if (t->kind == KT_TAB_WAKEUPS)
			p.wakeups = t;
		else if (t->kind == KT_TAB_SLICES)
			p.slices = t;
		else if (t->kind == KT_TAB_OFFCPU)
			p.offcpu = t;
	}
	if (!ret && pass) {
		ret = run_pass(db, &p);
		for (i = 0; !ret && i < db->nt; i++)
			if (db->t[i].batch)
				ret = rows_flush(db, &db->t[i]);
		kt_pidmap_free(&db->tasks, NULL);
	}
	for (i = 0; i < db->nt; i++) {
		struct table *t = &db->t[i];

		if (t->batch) {
			SQ(finalize)(t->batch);
			t->batch = NULL;
		}
		if (t->ins) {
			SQ(finalize)(t->ins);
			t->ins = NULL;
		}
		free(t->text);
		t->text = NULL;
		free(t->held);
		t->held = NULL;
	}
	return ret;
}

/*
 * Every table wanted and not loaded: made, then filled with each host's
 * rows in turn (one pass over each file).
 */
static int load_wanted(struct kt_sqldb *db)
{
	size_t i;
	int ret = 0, k;
	bool any = false;

	for (i = 0; i < db->nt; i++)
		any |= db->t[i].want && !db->t[i].loaded;
	if (!any)
		return 0;
	if (SQ(exec)(db->h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	for (i = 0; i < db->nt && !ret; i++) {
		struct table *t = &db->t[i];

		if (!t->want || t->loaded)
			continue;
		if (SQ(exec)(db->h, t->create, NULL, NULL, NULL) != SQLITE_OK) {
			kt_err("cannot make table '%s': %s", t->name, SQ(errmsg)(db->h));
			ret = -EIO;
		}
	}
	for (k = 0; k < db->nsrc && !ret; k++)
		ret = load_host(db, k);
	for (i = 0; i < db->nt; i++) {
		if (!ret && db->t[i].want)
			db->t[i].loaded = true;
		db->t[i].want = false;
	}
	if (SQ(exec)(db->h, ret ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL) != SQLITE_OK && !ret)
		ret = -EIO;
	return ret;
}

int kt_sqldb_load(struct kt_sqldb *db, const char *const *tables, size_t n)
{
	struct table *t;
	size_t i;

	for (i = 0; tables && i < n; i++) {
		t = find(db, tables[i]);
		if (!t)
			return -ENOENT;
		t->want = !t->loaded;
	}
	for (i = 0; !tables && i < db->nt; i++)
		db->t[i].want = !db->t[i].loaded;
	return load_wanted(db);
}

/* The schema's own table lists the tables the file has: load them. */
static void want_present(struct kt_sqldb *db)
{
	size_t i;

	for (i = 0; i < db->nt; i++)
		if (!db->t[i].loaded && kt_sqldb_has(db, i))
			db->t[i].want = true;
}

/* Mark each table whose name appears in sql as a word: loaded in one pass. */
static void want_named(struct kt_sqldb *db, const char *sql)
{
	const char *p = sql, *w;
	char word[300];
	size_t n;
	struct table *t;

	while (*p) {
		if (!isalnum((unsigned char)*p) && *p != '_') {
			p++;
			continue;
		}
		for (w = p; isalnum((unsigned char)*p) || *p == '_'; p++)
			;
		n = (size_t)(p - w);
		if (n >= sizeof(word))
			continue;
		memcpy(word, w, n);
		word[n] = '\0';
		if (!strcasecmp(word, "sqlite_master") ||
		    !strcasecmp(word, "sqlite_schema")) {
			want_present(db);
			continue;
		}
		t = find(db, word);
		if (t && !t->loaded)
			t->want = true;
	}
}

int kt_sqldb_prepare(struct kt_sqldb *db, const char *sql, sqlite3_stmt **st,
		     const char **tail, char *msg, size_t len, int *at)
{
	const char *m;
	struct table *t;
	int ret;

	*at = -1;
	want_named(db, sql);
	ret = load_wanted(db);
	if (ret)
		return ret;
	for (;;) {
		if (SQ(prepare_v2)(db->h, sql, -1, st, tail) == SQLITE_OK)
			return 0;
		m = SQ(errmsg)(db->h);
		/* A table named in a way the scan missed ("sched_switch"). */
		if (!strncmp(m, "no such table: ", 15) && (t = find(db, m + 15)) && !t->loaded) {
			t->want = true;
			ret = load_wanted(db);
			if (ret)
				return ret;
			continue;
		}
		snprintf(msg, len, "%s", m);
		*at = SQ(error_offset)(db->h);
		return -EINVAL;
	}
}

int kt_sqldb_save(struct kt_sqldb *db, const char *path, char *msg, size_t len)
{
	char *tmp = NULL, *sql;
	int fd, ret;

	ret = kt_sqldb_load(db, NULL, 0);
	if (ret)
		return ret;
	fd = kt_tmpfile_open(path, &tmp);
	if (fd < 0)
		return fd;
	/* VACUUM INTO fills an empty file: no moment the name is free. */
	close(fd);
	sql = SQ(mprintf)("VACUUM INTO %Q", tmp);
	if (!sql) {
		ret = -ENOMEM;
		goto err_tmp;
	}
	if (SQ(exec)(db->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(msg, len, "%s", SQ(errmsg)(db->h));
		ret = -EIO;
		goto err_sql;
	}
	ret = kt_tmpfile_commit(tmp, path);
	if (ret)
		snprintf(msg, len, "%s", strerror(-ret));
	SQ(free)(sql);
	free(tmp);
	return ret;

err_sql:
	SQ(free)(sql);
err_tmp:
	kt_tmpfile_discard(tmp);
	free(tmp);
	return ret;
}

void kt_sqldb_close(struct kt_sqldb *db)
{
	size_t i;
	int k;

	if (!db)
		return;
	for (i = 0; i < db->nt; i++) {
		free(db->t[i].create);
		free(db->t[i].of);
		free(db->t[i].own_cols);
		if (db->t[i].ins)
			SQ(finalize)(db->t[i].ins);
		if (db->t[i].batch)
			SQ(finalize)(db->t[i].batch);
		free(db->t[i].text);
		free(db->t[i].held);
	}
	free(db->t);
	for (k = 0; k < db->nsrc; k++) {
		free(db->src[k].by_id);
		free(db->src[k].present);
		kt_schema_free(db->src[k].schema);
	}
	free(db->src);
	kt_hosts_free(db->hosts);
	kt_pidmap_free(&db->tasks, NULL);
	if (db->h)
		SQ(close)(db->h);
	free(db);
}
