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

#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include "analyze/pidmap.h"
#include "analyze/rows.h"
#include "analyze/sched.h"
#include "file/tgidmap.h"
#include "base/log.h"
#include "base/tmpfile.h"
#include "decode/decoder.h"
#include "file/reader.h"
#include "file/wallclock.h"
#include "sql/db.h"
#include "sql/schema.h"
#include "views/summary.h"

/* A table of the schema (name, kind, ev, cols: the schema's) and its SQLite state. */
struct table {
	const char *name;
	enum kt_tab_kind kind;
	struct tep_event *ev;		/* KT_TAB_EVENT's */
	const struct kt_schema_col *cols;
	int ncols;
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
};

/*
 * What a parameter of a batch holds: SQLite keeps bindings across
 * sqlite3_reset(), so an equal value need not be bound again (most of
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

struct kt_sqldb {
	struct kt_reader *r;
	struct tep_handle *tep;
	const char *machine;
	sqlite3 *h;
	struct kt_schema *schema;
	struct table *t;
	size_t nt;
	struct table **by_id;		/* event id -> its table, ids < nid */
	int nid;
	struct kt_pidmap tasks;		/* struct task, while tasks loads */
	struct comm comms[NCOMMS];	/* by pid % NCOMMS */
	bool loss_counted;		/* lost and present are known */
	unsigned long long lost;
	bool lost_unknown;
	bool *present;			/* by event id < nid: records of it */
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
		size_t need = strlen(t->cols[i].name) + 32;

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
	snprintf(s + at, cap - at, ")");
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

/* The schema's tables (schema.h), each with its CREATE TABLE, then sql's own. */
static int make_tables(struct kt_sqldb *db)
{
	size_t i, n = kt_schema_ntables(db->schema);
	long k;
	int id, err = 0;

	db->t = calloc(n + 1, sizeof(*db->t));
	if (!db->t)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct kt_schema_table *st = kt_schema_table(db->schema, i);
		struct table *t = &db->t[i];

		t->name = st->name;
		t->kind = st->kind;
		t->ev = st->ev;
		t->cols = st->cols;
		t->ncols = st->ncols;
		db->nt++;
		err = make_create(t);
		if (t->ev && t->ev->id >= db->nid)
			db->nid = t->ev->id + 1;
	}
	if (!err) {
		struct table *t = &db->t[db->nt++];

		t->name = "wakeups";
		t->kind = KT_TAB_WAKEUPS;
		t->cols = wakeup_cols;
		t->ncols = (int)(sizeof(wakeup_cols) / sizeof(wakeup_cols[0]));
		err = make_create(t);
	}
	if (err || !db->nid)
		return err;
	db->by_id = calloc((size_t)db->nid, sizeof(*db->by_id));
	db->present = calloc((size_t)db->nid, sizeof(*db->present));
	if (!db->by_id || !db->present)
		return -ENOMEM;
	for (id = 0; id < db->nid; id++) {
		k = kt_schema_event_table(db->schema, id);
		if (k >= 0)
			db->by_id[id] = &db->t[k];
	}
	return 0;
}

struct kt_sqldb *kt_sqldb_open(struct kt_reader *r)
{
	struct kt_sqldb *db = calloc(1, sizeof(*db));
	int err;

	if (!db)
		return NULL;
	db->r = r;
	db->tep = kt_reader_tep(r);
	db->machine = kt_reader_machine(r);
	db->tasks.size = sizeof(struct task);
	/*
	 * One thread uses the database: no SQLite mutexes, no memory
	 * statistics (a mutex per allocation); they were a tenth of a load.
	 */
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(":memory:", &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		kt_err("cannot start SQLite: %s", db->h ? sqlite3_errmsg(db->h) : "out of memory");
		kt_sqldb_close(db);
		errno = EIO;
		return NULL;
	}
	sqlite3_exec(db->h, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; "
		     "PRAGMA synchronous=OFF; PRAGMA cache_size=-1048576", NULL, NULL, NULL);
	db->schema = kt_schema_new(db->tep);
	err = db->schema ? make_tables(db) : -errno;
	if (err) {
		kt_sqldb_close(db);
		errno = -err;
		return NULL;
	}
	return db;
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
static void take_loss(struct kt_sqldb *db, struct kt_summary *s)
{
	int i;

	db->lost = kt_summary_total_lost(s);
	for (i = 0; i < kt_summary_cpus(s); i++)
		if (kt_summary_cpu_at(s, i)->unknown_marks)
			db->lost_unknown = true;
	db->loss_counted = true;
}

/*
 * Counted by the first load's pass (present marked as it goes), or else
 * by a pass of its own.
 */
static void count_once(struct kt_sqldb *db)
{
	const struct kt_summary_event *e;
	struct kt_summary *s;
	int i;

	if (db->loss_counted)
		return;
	s = kt_summary_new(db->r);
	if (s)
		take_loss(db, s);
	for (i = 0; s && db->present && i < kt_summary_events(s); i++) {
		e = kt_summary_event_at(s, i);
		if (e->total && e->event && e->event->id >= 0 && e->event->id < db->nid)
			db->present[e->event->id] = true;
	}
	kt_summary_free(s);
	db->loss_counted = true;
}

unsigned long long kt_sqldb_lost(struct kt_sqldb *db, bool *unknown)
{
	count_once(db);
	*unknown = db->lost_unknown;
	return db->lost;
}

bool kt_sqldb_has(struct kt_sqldb *db, size_t i)
{
	struct table *t = i < db->nt ? &db->t[i] : NULL;

	size_t k;

	if (!t)
		return false;
	if (t->kind == KT_TAB_WAKEUPS) {
		/* With sched_switch records to end a wakeup at. */
		for (k = 0; k < db->nt; k++)
			if (db->t[k].ev && !strcmp(db->t[k].ev->name, "sched_switch") &&
			    db->t[k].ev->system && !strcmp(db->t[k].ev->system, "sched"))
				return kt_sqldb_has(db, k);
		return false;
	}
	if (t->kind != KT_TAB_EVENT)
		return true;
	count_once(db);
	return t->ev && db->present && db->present[t->ev->id];
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
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* s is a buffer the next use reuses: SQLite copies it. */
static void bind_copy(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
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
	sqlite3_bind_int64(st, i, v);
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
		sqlite3_bind_text(st, i, s, n, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
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
		sqlite3_bind_null(st, i);
	} else if (t->text && s == t->text + t->text_at) {
		t->text_at += (size_t)n + 1;
		sqlite3_bind_text(st, i, s, n, SQLITE_STATIC);
	} else {
		sqlite3_bind_text(st, i, s, n, SQLITE_TRANSIENT);
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
	text = kt_schema_text(db->machine, c, rec, out, TEXT_MAX);
	if (text == out)
		bind_made(t, st, i, out, (int)strlen(out));
	else
		row_name(t, st, i, text, -1);
}

static int step(struct kt_sqldb *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		kt_err("cannot load the database: %s", sqlite3_errmsg(db->h));
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	return 0;
}

/* "INSERT INTO t VALUES (?,...),..." of rows rows into *st. */
static int prepare_rows(struct kt_sqldb *db, struct table *t, int rows,
			sqlite3_stmt **st)
{
	size_t len = strlen(t->name) + 32 + (size_t)rows * ((size_t)t->ncols * 2 + 4);
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
		for (i = 0; i < t->ncols; i++) {
			if (i)
				sql[at++] = ',';
			sql[at++] = '?';
		}
		sql[at++] = ')';
	}
	sql[at] = '\0';
	rc = sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		kt_err("cannot load table '%s': %s", t->name, sqlite3_errmsg(db->h));
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

	if (ret || (t->kind != KT_TAB_EVENT && t->kind != KT_TAB_EVENTS))
		return ret;
	t->nbatch = 32000 / t->ncols < 64 ? 32000 / t->ncols : 64;
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
	t->held = calloc((size_t)t->nbatch * (size_t)t->ncols, sizeof(*t->held));
	if (!t->held)
		return -ENOMEM;
	return prepare_rows(db, t, t->nbatch, &t->batch);
}

/* The first parameter of the next row of t's batch (1-based). */
static int row_begin(struct table *t)
{
	return t->batch ? t->filled * t->ncols + 1 : 1;
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
	/* No sqlite3_clear_bindings(): each parameter holds its row's value. */
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
	sql = sqlite3_mprintf("DELETE FROM \"%w\" WHERE rowid > (SELECT max(rowid) FROM \"%w\") - %d",
			      t->name, t->name, t->nbatch - k);
	if (!sql)
		return -ENOMEM;
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		ret = -EIO;
	sqlite3_free(sql);
	return ret;
}

/* What one pass over the file fills. */
struct pass {
	struct kt_sqldb *db;
	struct table *events, *tasks, *losses, *wakeups;
	struct kt_sched *sched;		/* wakeups' */
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
		c->s = tep_data_comm_from_pid(db->tep, pid);
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
 * ts, cpu, pid, comm.  Returns the row's first parameter.
 */
static int row_common(struct table *t, sqlite3_stmt *st, const struct kt_event *ev,
		      int pid, const char *comm, int clen)
{
	int b = row_begin(t);

	row_int(t, st, b, (long long)ev->record->ts);
	row_int(t, st, b + 1, ev->cpu);
	row_int(t, st, b + 2, pid);
	row_name(t, st, b + 3, comm, clen);
	return b;
}

static int load_record(const struct kt_event *ev, void *arg)
{
	struct pass *p = arg;
	struct kt_sqldb *db = p->db;
	struct tep_record *rec = ev->record;
	struct table *t = NULL;
	const char *comm = NULL;
	int pid, clen = 0, i, ret;
	struct task *tk;

	/*
	 * Only the loss is read of sum: the records that mark one.  The
	 * pass that counts it sees every record: which events have any.
	 */
	if (p->sum) {
		if (db->present && ev->event->id >= 0 && ev->event->id < db->nid)
			db->present[ev->event->id] = true;
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
			sqlite3_bind_int(st, 1, ev->buffer);
			sqlite3_bind_int(st, 2, ev->cpu);
			if (*last)
				sqlite3_bind_int64(st, 3, (long long)*last);
			else
				sqlite3_bind_null(st, 3);
			sqlite3_bind_int64(st, 4, (long long)rec->ts);
			if (rec->missed_events > 0)
				sqlite3_bind_int64(st, 5, (long long)rec->missed_events);
			else
				sqlite3_bind_null(st, 5);
			ret = step(db, st);
			if (ret)
				return ret;
		}
		*last = rec->ts;
	}
	if (p->sched) {
		ret = kt_sched_add(ev, p->sched);
		if (ret)
			return ret;
	}
	if (ev->event->id >= 0 && ev->event->id < db->nid)
		t = db->by_id[ev->event->id];
	if (t && !t->ins)
		t = NULL;
	/* The pid and comm only for a table that has them. */
	if (!t && !p->events && !p->tasks)
		return 0;
	pid = tep_data_pid(db->tep, rec);
	if (t || p->events)
		comm = comm_of(db, pid, &clen);
	if (p->events) {
		struct table *e = p->events;
		sqlite3_stmt *st = e->batch ? e->batch : e->ins;
		int b = row_common(e, st, ev, pid, comm, clen);

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
		int b = row_common(t, st, ev, pid, comm, clen);

		for (i = 4; i < t->ncols; i++)
			bind_col(db, t, st, b + i, &t->cols[i], rec);
	}
	return row_end(db, t);
}

/* A row of wakeups, from analyze sched. */
static int insert_wakeup(const struct kt_sched_wakeup *w, void *arg)
{
	struct pass *p = arg;
	sqlite3_stmt *st = p->wakeups->ins;

	sqlite3_bind_int64(st, 1, (long long)w->wake_ts);
	sqlite3_bind_int(st, 2, w->cpu);
	sqlite3_bind_int(st, 3, w->pid);
	bind_copy(st, 4, w->comm);
	sqlite3_bind_int64(st, 5, (long long)(w->run_ts - w->wake_ts));
	sqlite3_bind_int64(st, 6, (long long)w->run_ts);
	return step(p->db, st);
}

/*
 * Each wakeup's comm as analyze sched's row of its task has it (the
 * task's last, after an exec too), so that a query by comm gives
 * analyze sched --by comm's figures.  A task analyze shows no row of
 * (no record of its own in the file) has none here either.
 */
static int wakeup_comms(struct kt_sqldb *db, struct kt_sched *s)
{
	struct kt_sched_row **rows;
	sqlite3_stmt *st = NULL;
	size_t i, n;
	int ret;

	ret = kt_sched_rows(s, "run", &rows, &n);
	if (ret)
		return ret;
	if (sqlite3_exec(db->h, "CREATE TEMP TABLE wcomm (pid INTEGER PRIMARY KEY, comm TEXT)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO wcomm VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		ret = -EIO;
	for (i = 0; !ret && i < n; i++) {
		sqlite3_bind_int(st, 1, rows[i]->pid);
		bind_copy(st, 2, rows[i]->comm);
		ret = step(db, st);
	}
	sqlite3_finalize(st);
	if (!ret && sqlite3_exec(db->h, "UPDATE wakeups SET comm = (SELECT w.comm FROM wcomm w "
				 "WHERE w.pid = wakeups.pid); DELETE FROM wakeups WHERE comm IS NULL",
				 NULL, NULL, NULL) != SQLITE_OK)
		ret = -EIO;
	sqlite3_exec(db->h, "DROP TABLE IF EXISTS temp.wcomm", NULL, NULL, NULL);
	return ret;
}

struct task_ins {
	struct kt_sqldb *db;
	sqlite3_stmt *st;
	struct kt_tgidmap tgids;	/* record's thread -> process map */
	int err;
};

static void insert_task(const void *node, VISIT which, void *arg)
{
	const struct task *tk = *(const struct task *const *)node;
	struct task_ins *ti = arg;
	const char *comm;

	if ((which != postorder && which != leaf) || ti->err)
		return;
	comm = tep_data_comm_from_pid(ti->db->tep, tk->pid);
	sqlite3_bind_int(ti->st, 1, tk->pid);
	sqlite3_bind_int(ti->st, 2, kt_tgidmap_of(&ti->tgids, tk->pid));
	bind_text(ti->st, 3, comm ? comm : "<...>");
	sqlite3_bind_int64(ti->st, 4, (long long)tk->events);
	sqlite3_bind_int64(ti->st, 5, (long long)tk->first);
	sqlite3_bind_int64(ti->st, 6, (long long)tk->last);
	ti->err = step(ti->db, ti->st);
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

	if (kt_wallclock_parse(kt_reader_wall_clock(db->r), &w) || !kt_wallclock_known(&w))
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
		{ "file", kt_reader_path(db->r) },
		{ "clock", kt_reader_clock(db->r) },
		{ "uname", kt_reader_uname(db->r) },
		{ "machine", kt_reader_machine(db->r) },
		{ "compression", kt_reader_compression(db->r) },
	};
	char v[32], c[32];
	size_t i;
	int ret = 0;

	snprintf(v, sizeof(v), "%d", kt_reader_version(db->r));
	snprintf(c, sizeof(c), "%d", kt_reader_cpus(db->r));
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

	if (!db->loss_counted) {
		p->sum = kt_summary_begin(db->r, NULL);
		if (!p->sum)
			return -ENOMEM;
	}
	p->last.size = sizeof(unsigned long long);
	if (p->wakeups) {
		p->sched = kt_sched_new(db->tep, KT_SCHED_BY_TASK, NULL);
		if (!p->sched) {
			kt_summary_free(p->sum);
			return -ENOMEM;
		}
		kt_sched_on_wakeup(p->sched, insert_wakeup, p);
	}
	d = kt_decoder_new(db->r, &(struct kt_decoder_opts){ 0 });
	ret = !d ? (errno ? -errno : -ENOMEM) : kt_decoder_run(d, load_record, p);
	kt_decoder_free(d);
	if (!ret && p->sched)
		ret = wakeup_comms(db, p->sched);
	kt_sched_free(p->sched);
	free(p->last.v);
	if (!ret && p->sum) {
		kt_summary_end(p->sum);
		take_loss(db, p->sum);
	}
	kt_summary_free(p->sum);
	return ret;
}

/* One pass over the file for every table wanted and not loaded. */
static int load_wanted(struct kt_sqldb *db)
{
	struct pass p = { .db = db };
	struct task_ins ti = { .db = db };
	bool pass = false;
	size_t i;
	int ret = 0;

	if (sqlite3_exec(db->h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	for (i = 0; i < db->nt && !ret; i++) {
		struct table *t = &db->t[i];

		if (!t->want || t->loaded)
			continue;
		if (sqlite3_exec(db->h, t->create, NULL, NULL, NULL) != SQLITE_OK) {
			kt_err("cannot make table '%s': %s", t->name, sqlite3_errmsg(db->h));
			ret = -EIO;
			break;
		}
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
	}
	if (!ret && pass) {
		ret = run_pass(db, &p);
		for (i = 0; !ret && i < db->nt; i++)
			if (db->t[i].batch)
				ret = rows_flush(db, &db->t[i]);
		if (!ret && p.tasks) {
			ti.st = p.tasks->ins;
			/* A file without the map: each task its own process. */
			ret = kt_tgidmap_load(&ti.tgids, kt_reader_tgids(db->r));
			if (!ret)
				twalk_r(db->tasks.tree, insert_task, &ti);
			ret = ret ?: ti.err;
			kt_tgidmap_free(&ti.tgids);
		}
		kt_pidmap_free(&db->tasks, NULL);
	}
	for (i = 0; i < db->nt; i++) {
		struct table *t = &db->t[i];

		if (t->batch) {
			sqlite3_finalize(t->batch);
			t->batch = NULL;
		}
		if (t->ins) {
			sqlite3_finalize(t->ins);
			t->ins = NULL;
			if (!ret)
				t->loaded = true;
			free(t->text);
			t->text = NULL;
			free(t->held);
			t->held = NULL;
		}
		t->want = false;
	}
	if (sqlite3_exec(db->h, ret ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL) != SQLITE_OK && !ret)
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
		if (sqlite3_prepare_v2(db->h, sql, -1, st, tail) == SQLITE_OK)
			return 0;
		m = sqlite3_errmsg(db->h);
		/* A table named in a way the scan missed ("sched_switch"). */
		if (!strncmp(m, "no such table: ", 15) && (t = find(db, m + 15)) && !t->loaded) {
			t->want = true;
			ret = load_wanted(db);
			if (ret)
				return ret;
			continue;
		}
		snprintf(msg, len, "%s", m);
		*at = sqlite3_error_offset(db->h);
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
	sql = sqlite3_mprintf("VACUUM INTO %Q", tmp);
	if (!sql) {
		ret = -ENOMEM;
		goto err_tmp;
	}
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(msg, len, "%s", sqlite3_errmsg(db->h));
		ret = -EIO;
		goto err_sql;
	}
	ret = kt_tmpfile_commit(tmp, path);
	if (ret)
		snprintf(msg, len, "%s", strerror(-ret));
	sqlite3_free(sql);
	free(tmp);
	return ret;

err_sql:
	sqlite3_free(sql);
err_tmp:
	kt_tmpfile_discard(tmp);
	free(tmp);
	return ret;
}

void kt_sqldb_close(struct kt_sqldb *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nt; i++) {
		free(db->t[i].create);
		if (db->t[i].ins)
			sqlite3_finalize(db->t[i].ins);
		if (db->t[i].batch)
			sqlite3_finalize(db->t[i].batch);
		free(db->t[i].text);
		free(db->t[i].held);
	}
	free(db->t);
	free(db->by_id);
	free(db->present);
	kt_schema_free(db->schema);
	kt_pidmap_free(&db->tasks, NULL);
	if (db->h)
		sqlite3_close(db->h);
	free(db);
}
