// SPDX-License-Identifier: GPL-2.0
/*
 * The ClickHouse tables of a push: each schema table's columns and their
 * types (and those of traces), its CREATE statement, the check of a table
 * the server has already against them, the constant columns' stores, and
 * the events view over every event table.  See push-int.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "push/block.h"
#include "push/bytebuf.h"
#include "push/clickhouse.h"
#include "push/push-int.h"
#include "sql/schema.h"

static bool nullable_num(const struct ptable *pt, const char *col)
{
	return pt->st && pt->st->kind == KT_TAB_LOSSES &&
	       (!strcmp(col, "after_ts") || !strcmp(col, "lost"));
}

/*
 * A number: Int64, as sql reads it, but for the record's cpu (UInt32) and
 * a task's pid and tgid (Int32), the kernel's own types: 8 bytes less a
 * row for the server to take, parse, copy and write (7% of a system
 * call table's).  An event's fields stay Int64 whatever their size: a
 * field's type may differ between kernels, and a fleet's traces of
 * several kernels share a table.
 */
static const char *num_type(const struct ptable *pt, const struct kt_schema_col *c)
{
	if (nullable_num(pt, c->name))
		return "Nullable(Int64)";
	if (c->f)
		return "Int64";
	if (!strcmp(c->name, "cpu"))
		return "UInt32";
	return !strcmp(c->name, "pid") || !strcmp(c->name, "tgid") ? "Int32" : "Int64";
}

static const char *col_type(const struct ptable *pt, const struct kt_schema_col *c)
{
	if (c->kind == KT_COL_NUM)
		return num_type(pt, c);
	/* An array of numbers, not sql's text: [] when unreadable. */
	if (c->kind == KT_COL_ARRAY)
		return "Array(UInt64)";
	return c->kind == KT_COL_STR ? "String" : "Nullable(String)";
}

/* The column after which wall_ts goes: the row's time. */
static const char *time_col(const struct ptable *pt)
{
	if (!pt->st)
		return NULL;
	if (pt->st->kind == KT_TAB_LOSSES)
		return "before_ts";
	return pt->st->kind == KT_TAB_TASKS ? NULL : "ts";
}

static const char *order_by(const struct ptable *pt)
{
	if (!pt->st)
		return "host, trace_id";
	if (pt->st->kind == KT_TAB_TASKS)
		return "host, trace_id, pid";
	return pt->st->kind == KT_TAB_LOSSES ? "host, trace_id, before_ts" : "host, trace_id, ts";
}

/* traces: one row per pushed file, written last. */
static const char *const traces_cols[][2] = {
	{ "host", "String" }, { "trace_id", "UInt64" }, { "boot_id", "UUID" },
	{ "file", "String" }, { "kernel", "String" }, { "machine", "String" },
	{ "cpus", "Int64" }, { "clock", "String" }, { "command", "String" },
	{ "first_ts", "Int64" }, { "last_ts", "Int64" },
	{ "wall_first", "Nullable(Int64)" }, { "wall_last", "Nullable(Int64)" },
	{ "events", "Int64" }, { "lost", "Int64" }, { "lost_unknown", "UInt8" },
};
#define NTRACES_COLS (sizeof(traces_cols) / sizeof(traces_cols[0]))

/* tasks' after the schema's: sql's own (lib/sql/db.c), from the task model. */
static const char *const task_cols[] = { "run_ns", "switches", "missing_switches" };
#define NTASK_COLS (sizeof(task_cols) / sizeof(task_cols[0]))

/* Append "`name` TYPE" (types) or "`name`" to *s at *at. */
static int append(char **s, size_t *cap, size_t *at, const char *name, const char *type)
{
	size_t need = strlen(name) + (type ? strlen(type) : 0) + 8;
	char *n;

	if (*at + need >= *cap) {
		*cap = (*at + need) * 2;
		n = realloc(*s, *cap);
		if (!n)
			return -ENOMEM;
		*s = n;
	}
	*at += (size_t)snprintf(*s + *at, *cap - *at, "%s`%s`%s%s", *at > 1 ? ", " : "",
				name, type ? " " : "", type ? type : "");
	return 0;
}

/* An ALIAS column (computed when read, never sent): "TYPE ALIAS expr". */
static const char *alias_of(const char *type)
{
	return strstr(type, " ALIAS ");
}

/* Each column of pt in order, as fn(name, type). */
int tab_each_col(const struct ptable *pt, int (*fn)(void *, const char *, const char *),
		 void *arg)
{
	static const char *const prefix[][2] = {
		{ "host", "String" }, { "trace_id", "UInt64" }, { "boot_id", "UUID" },
	};
	const char *tc = time_col(pt);
	char type[300], lit[256];
	size_t i;
	int k, ret = 0;

	if (!pt->st) {
		for (i = 0; i < NTRACES_COLS && !ret; i++)
			ret = fn(arg, traces_cols[i][0], traces_cols[i][1]);
		return ret;
	}
	for (i = 0; i < 3 && !ret; i++)
		ret = fn(arg, prefix[i][0], prefix[i][1]);
	for (k = 0; k < pt->st->ncols && !ret; k++) {
		ret = fn(arg, pt->st->cols[k].name, col_type(pt, &pt->st->cols[k]));
		if (!ret && tc && !strcmp(pt->st->cols[k].name, tc))
			ret = fn(arg, "wall_ts", "Nullable(Int64)");
	}
	/*
	 * tasks: each task's run time, switches and missing switches, as
	 * sql's tasks has them (NULL: the file has no sched_switch).
	 */
	for (i = 0; pt->st->kind == KT_TAB_TASKS && i < NTASK_COLS && !ret; i++)
		ret = fn(arg, task_cols[i], "Nullable(Int64)");
	/* An event's table names its event, for the events view. */
	if (!ret && pt->st->kind == KT_TAB_EVENT) {
		literal(lit, sizeof(lit), pt->st->ev->system ? pt->st->ev->system : "");
		snprintf(type, sizeof(type), "String ALIAS %s", lit);
		ret = fn(arg, "_system", type);
		literal(lit, sizeof(lit), pt->st->ev->name ? pt->st->ev->name : "");
		snprintf(type, sizeof(type), "String ALIAS %s", lit);
		ret = ret ?: fn(arg, "_event", type);
	}
	return ret;
}

struct textacc {
	char *s;
	size_t cap, at;
	bool types;
};

/*
 * A column of pt's rows (not an ALIAS); host, trace_id and boot_id are
 * the push's, the same in every row.
 */
int tab_blk_col(void *arg, const char *name, const char *type)
{
	struct blk_arg *a = arg;
	struct push *p = a->p;

	if (alias_of(type))
		return 0;
	if (!strcmp(name, "host"))
		return kt_block_add_const(a->b, name, type, p->kc[0]);
	if (!strcmp(name, "trace_id"))
		return kt_block_add_const(a->b, name, type, p->kc[1]);
	if (!strcmp(name, "boot_id"))
		return kt_block_add_const(a->b, name, type, p->kc[2]);
	return kt_block_add_col(a->b, name, type);
}

/*
 * The constant columns' stores, shared by every block: host (a String:
 * its LEB128 length, under 2^14, then its bytes), trace_id (UInt64,
 * little-endian as Native has numbers) and boot_id (a UUID's 16 bytes).
 * A block flushes at BATCH_BYTES, of which each row has their bytes, or
 * at p->batch rows: no block holds more rows than that.  trace_id's
 * value is set when the hash is in (trace_id_wait).
 */
int tab_const_stores(struct push *p)
{
	unsigned char host[sizeof(p->st->host) + 2], id[8] = { 0 };
	size_t hn = kt_block_enc(host, sizeof(host), p->st->host), cap;

	if (!hn)
		return -EINVAL;
	cap = BATCH_BYTES / (hn + sizeof(id) + sizeof(p->boot)) + 2;
	if (cap > p->batch)
		cap = p->batch;
	p->kc[0] = kt_block_const_new(host, hn, cap);
	p->kc[1] = kt_block_const_new(id, sizeof(id), cap);
	p->kc[2] = kt_block_const_new(p->boot, sizeof(p->boot), cap);
	return p->kc[0] && p->kc[1] && p->kc[2] ? 0 : -ENOMEM;
}

static int acc_col(void *arg, const char *name, const char *type)
{
	struct textacc *a = arg;

	if (!a->types && alias_of(type))
		return 0;		/* not sent */
	return append(&a->s, &a->cap, &a->at, name, a->types ? type : NULL);
}

/* "(`a`, `b`, ...)", or with types "(`a` T, `b` U, ...)", into *out. */
int tab_col_text(const struct ptable *pt, bool types, char **out)
{
	struct textacc a = { .types = types };
	int ret;

	a.s = malloc(a.cap = 256);
	if (!a.s)
		return -ENOMEM;
	a.s[a.at++] = '(';
	a.s[a.at] = '\0';
	ret = tab_each_col(pt, acc_col, &a);
	if (ret || asprintf(out, "%s)", a.s) < 0) {
		*out = NULL;
		free(a.s);
		return -ENOMEM;
	}
	free(a.s);
	return 0;
}

static int make_create(struct ptable *pt)
{
	char *cols;

	if (tab_col_text(pt, true, &cols))
		return -ENOMEM;
	if (asprintf(&pt->create, "CREATE TABLE IF NOT EXISTS `%s` %s ENGINE = MergeTree() ORDER BY (%s)",
		     pt->name, cols, order_by(pt)) < 0) {
		pt->create = NULL;
		free(cols);
		return -ENOMEM;
	}
	free(cols);
	return 0;
}

/* The type of table.col on the server, from system.columns; NULL: none. */
static const char *server_type(struct push *p, const char *table, const char *col, char *buf,
			       size_t len)
{
	char key[600];
	const char *at, *end;

	snprintf(key, sizeof(key), "\n%s\t%s\t", table, col);
	at = strstr(p->columns, key);
	if (!at)
		return NULL;
	at += strlen(key);
	end = at + strcspn(at, "\n");
	snprintf(buf, len, "%.*s", (int)(end - at), at);
	return buf;
}

bool tab_server_has(struct push *p, const char *table)
{
	char key[300];

	snprintf(key, sizeof(key), "\n%s\t", table);
	return strstr(p->columns, key) != NULL;
}

int tab_read_columns(struct push *p)
{
	const char *reply;
	int ret;

	/* The database the URL names, made when missing (the first time). */
	if (!p->columns) {
		ret = kt_ch_create_database(p->ch);
		if (ret) {
			fail(p, "%s", kt_ch_error(p->ch));
			return ret;
		}
	}
	ret = query(p, "SELECT table, name, type FROM system.columns "
			"WHERE database = currentDatabase() FORMAT TabSeparated", &reply);

	if (ret)
		return ret;
	free(p->columns);
	if (asprintf(&p->columns, "\n%s", reply) < 0) {
		p->columns = NULL;
		return -ENOMEM;
	}
	return 0;
}

struct check {
	struct push *p;
	struct conn *cn;
	const struct ptable *pt;
	bool add;			/* the second pass: add what is missing */
};

/*
 * A table of another schema (a column of another type, or none of ours
 * that every row has) is refused before anything is changed; then a
 * column the table lacks (a newer kernel's field) is added.
 */
static int check_col(void *arg, const char *name, const char *type)
{
	struct check *c = arg;
	struct push *p = c->p;
	const char *alias = alias_of(type);
	size_t tlen = alias ? (size_t)(alias - type) : strlen(type);
	char have[128], *sql;
	int ret;

	if (server_type(p, c->pt->name, name, have, sizeof(have))) {
		if (!c->add && (strlen(have) != tlen || strncmp(have, type, tlen))) {
			snprintf(c->cn->msg, c->cn->len,
				 "table '%s' is of another schema: its column '%s' is %s, not %.*s",
				 c->pt->name, name, have, (int)tlen, type);
			return -EPROTO;
		}
		return 0;
	}
	if (!c->add) {
		if (strcmp(name, "host") && strcmp(name, "trace_id") && strcmp(name, "ts"))
			return 0;
		snprintf(c->cn->msg, c->cn->len, "table '%s' is of another schema: it has no column '%s'",
			 c->pt->name, name);
		return -EPROTO;
	}
	if (asprintf(&sql, "ALTER TABLE `%s` ADD COLUMN `%s` %s", c->pt->name, name, type) < 0)
		return -ENOMEM;
	ret = conn_query(c->cn, sql);
	free(sql);
	return ret;
}

/* The events view's columns, as each event table gives them. */
#define VIEW_COLS "host, trace_id, boot_id, ts, wall_ts, cpu, pid, comm, _system AS system, _event AS event"

/*
 * (Re)make the events view over every event table the server holds (its
 * MergeTree tables with an _event column: not a Distributed one made AS
 * it), those of other pushes and files too.  Made anew under another
 * name and renamed over the old one, so a query sees one or the other.
 */
int tab_events_view(struct push *p)
{
	struct kt_bytebuf sql = { 0 };
	const char *reply, *line;
	char *names, *end, tmp[64];
	int ret;

	ret = query(p, "SELECT table FROM system.columns WHERE database = currentDatabase() AND name = '_event' "
		       "AND table IN (SELECT name FROM system.tables WHERE database = currentDatabase() "
		       "AND engine = 'MergeTree') ORDER BY table", &reply);
	if (ret)
		return ret;
	names = strdup(reply);
	if (!names)
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), "events_new_%d", (int)getpid());
	snprintf(p->q, sizeof(p->q), "DROP TABLE IF EXISTS `%s`", tmp);
	ret = query(p, p->q, NULL);
	snprintf(p->q, sizeof(p->q), "CREATE VIEW `%s` AS ", tmp);
	kt_bytebuf_add(&sql, p->q, strlen(p->q));
	for (line = names; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n') ?: (char *)line + strlen(line);
		snprintf(p->q, sizeof(p->q), "%sSELECT " VIEW_COLS " FROM `%.*s`",
			 line == names ? "" : " UNION ALL ", (int)(end - line), line);
		kt_bytebuf_add(&sql, p->q, strlen(p->q));
	}
	/* No event table yet: the view's columns, no rows. */
	if (!*names) {
		snprintf(p->q, sizeof(p->q), "SELECT '' AS host, toUInt64(0) AS trace_id, "
			 "toUUID('00000000-0000-0000-0000-000000000000') AS boot_id, toInt64(0) AS ts, "
			 "CAST(NULL AS Nullable(Int64)) AS wall_ts, toInt64(0) AS cpu, toInt64(0) AS pid, "
			 "'' AS comm, '' AS system, '' AS event FROM system.one WHERE 0");
		kt_bytebuf_add(&sql, p->q, strlen(p->q));
	}
	free(names);
	ret = ret ?: sql.failed ? -ENOMEM : query(p, kt_bytebuf_text(&sql), NULL);
	kt_bytebuf_free(&sql);
	if (ret)
		return ret;
	/* The first view; or another push made one meanwhile: over it. */
	if (!tab_server_has(p, "events")) {
		snprintf(p->q, sizeof(p->q), "RENAME TABLE `%s` TO `events`", tmp);
		if (!kt_ch_query(p->ch, p->q, NULL, 0, NULL))
			return 0;
	}
	snprintf(p->q, sizeof(p->q), "RENAME TABLE `events` TO `%s_old`, `%s` TO `events`", tmp, tmp);
	ret = query(p, p->q, NULL);
	snprintf(p->q, sizeof(p->q), "DROP TABLE IF EXISTS `%s_old`", tmp);
	return ret ?: query(p, p->q, NULL);
}

/* events is push's view, or of another schema (refused). */
static int events_ready(struct push *p, struct ptable *pt)
{
	struct conn cn = { p->ch, p->msg, p->len };
	struct check c = { .p = p, .cn = &cn, .pt = pt };
	const char *reply;
	int ret;

	if (!tab_server_has(p, pt->name)) {
		p->view_stale = true;
		return 0;
	}
	ret = tab_each_col(pt, check_col, &c);
	ret = ret ?: query(p, "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'events'",
			   &reply);
	if (ret)
		return ret;
	if (strcmp(reply, "View\n")) {
		fail(p, "table 'events' is of another schema: a %.*s table, not push's view",
		     (int)strcspn(reply, "\n"), reply);
		return -EPROTO;
	}
	return 0;
}

/*
 * Make the table, or check the one there, before its first rows, on cn:
 * the push's connection for the tables every push has, at its start; a
 * sender's for an event's table, before its first batch, so that the
 * decoding never waits on a server that is busy with the rows before.
 * Two senders may hold batches of one table: they call it under pt->mu.
 */
int tab_ready(struct push *p, struct conn *cn, struct ptable *pt)
{
	struct check c = { .p = p, .cn = cn, .pt = pt };
	int ret;

	if (pt->ready)
		return 0;
	if (pt == p->events) {
		ret = events_ready(p, pt);
		pt->ready = !ret;
		return ret;
	}
	/*
	 * Made here: its columns are ours (not read back: a statement less a
	 * table, which is a round trip to a server that may be busy).
	 */
	if (!tab_server_has(p, pt->name)) {
		ret = pt->create ? 0 : make_create(pt);
		ret = ret ?: conn_query(cn, pt->create);
		pt->made = !ret && pt->st && pt->st->kind == KT_TAB_EVENT;
		pt->ready = !ret;
		return ret;
	}
	ret = tab_each_col(pt, check_col, &c);
	c.add = true;
	ret = ret ?: tab_each_col(pt, check_col, &c);
	if (!ret)
		pt->ready = true;
	return ret;
}

/* On the sender's thread: pt's table before its batch. */
int tab_sender_prep(void *arg, struct kt_ch *ch, char *msg, size_t len)
{
	struct ptable *pt = arg;
	struct conn cn = { ch, msg, len };
	int ret;

	pthread_mutex_lock(&pt->mu);
	ret = tab_ready(pt->push, &cn, pt);
	pthread_mutex_unlock(&pt->mu);
	return ret;
}
