// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace sql: SQL over a recording, on SQLite in memory (lib/sql/db.c
 * loads the tables a query names), no server.  A query from the command
 * line, queries from standard input, or an interactive prompt with line
 * editing and history (libedit); the result as a table, CSV or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "cmd.h"
#include "base/log.h"
#include "file/reader.h"
#include "sql/db.h"
#include "sql/editfns.h"
#include "sql/sqlitefns.h"

enum {
	OPT_FORMAT = 256,
	OPT_SCHEMA,
	OPT_SAVE,
};

enum fmt { FMT_TABLE, FMT_CSV, FMT_JSON };

struct sql_opts {
	struct input_list in;	/* -i: a file, a directory of chunks, chunks */
	const char *input;	/* what messages call it */
	const char *query;
	enum fmt fmt;
	bool schema;
	const char *save;
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE|DIR", 0, "read FILE (default ktrace.dat), or the chunks in DIR (record --rotate's) as one trace; repeated, chunks of one recording, or recordings of several hosts (as report -i A -i B takes them) loaded together, their times on the controller's clock, each row's host in the column host", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "table (default), csv or json (one object per row)", 0 },
	{ "schema", OPT_SCHEMA, NULL, 0, "print the tables the file has (its events' and the others), as CREATE TABLE statements", 0 },
	{ "save", OPT_SAVE, "DB", 0, "write every table to the SQLite database DB (sqlite3, Datasette and DBeaver open it)", 0 },
	{ 0 }
};

static const char args_doc[] = "[QUERY]";
static const char doc[] =
	"SQL over a recording, on SQLite in memory: no server.\v"
	"Tables: one per event kind (sched_switch: ts, cpu, pid, comm and its "
	"fields), events, tasks (with run_ns, switches and missing_switches as "
	"analyze cpu and sched count them), losses, meta, and from the task "
	"model as analyze counts them: wakeups (each wakeup's latency), "
	"sched_slices (each run on a CPU) and offcpu_slices (each stretch "
	"blocked, its state, reason and waker); every table's last column, host, names "
	"whose row it is (report -i A -i B's name of the host); --schema, .tables and "
	"sqlite_master list those the file has.  A "
	"table is loaded from the file when a query first names it.  Without "
	"QUERY, the queries come from standard input, or from a prompt with "
	"line editing and history on a terminal (.tables, .schema [TABLE], "
	".quit; .tables and .schema also as QUERY).  Exit status: 0 ok, 1 failure (a bad query among them), 2 "
	"damaged input file, 64 usage.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct sql_opts *o = state->input;

	switch (key) {
	case 'i': input_add(state, &o->in, arg); break;
	case OPT_FORMAT:
		if (!strcmp(arg, "table"))
			o->fmt = FMT_TABLE;
		else if (!strcmp(arg, "csv"))
			o->fmt = FMT_CSV;
		else if (!strcmp(arg, "json"))
			o->fmt = FMT_JSON;
		else
			argp_error(state, "bad --format '%s'; use table, csv or json", arg);
		break;
	case OPT_SCHEMA: o->schema = true; break;
	case OPT_SAVE: o->save = arg; break;
	case ARGP_KEY_END:
		o->input = input_done(state, &o->in);
		break;
	case ARGP_KEY_ARG:
		if (o->query)
			argp_error(state, "unexpected argument '%s'; give the query as one argument (quote it)", arg);
		o->query = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* ---- printing a result ---- */

static void csv_cell(const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* A cell's text as the table and CSV show it; NULL reads "NULL". */
static const char *cell(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)SQ(column_text)(st, i);

	return SQ(column_type)(st, i) == SQLITE_NULL || !s ? "NULL" : s;
}

struct rows {
	char **v;			/* ncols per row, row after row */
	size_t n, cap;
};

static int keep_row(struct rows *r, sqlite3_stmt *st, int ncols)
{
	int i;

	if (r->n + (size_t)ncols > r->cap) {
		size_t cap = (r->n + (size_t)ncols) * 2;
		char **v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	for (i = 0; i < ncols; i++) {
		r->v[r->n] = strdup(cell(st, i));
		if (!r->v[r->n])
			return -ENOMEM;
		r->n++;
	}
	return 0;
}

static void print_table(sqlite3_stmt *st, struct rows *r, int ncols)
{
	size_t *w = calloc((size_t)ncols, sizeof(*w)), k;
	int i;

	if (!w)
		return;
	for (i = 0; i < ncols; i++)
		w[i] = strlen(SQ(column_name)(st, i));
	for (k = 0; k < r->n; k++)
		if (strlen(r->v[k]) > w[k % (size_t)ncols])
			w[k % (size_t)ncols] = strlen(r->v[k]);
	for (i = 0; i < ncols; i++)
		printf("%s%-*s", i ? "  " : "", i == ncols - 1 ? 0 : (int)w[i], SQ(column_name)(st, i));
	putchar('\n');
	for (k = 0; k < r->n; k++) {
		i = (int)(k % (size_t)ncols);
		printf("%s%-*s", i ? "  " : "", i == ncols - 1 ? 0 : (int)w[i], r->v[k]);
		if (i == ncols - 1)
			putchar('\n');
	}
	free(w);
}

static void json_row(sqlite3_stmt *st, int ncols)
{
	int i;

	putchar('{');
	for (i = 0; i < ncols; i++) {
		if (i)
			putchar(',');
		kt_json_put_str(stdout, SQ(column_name)(st, i));
		putchar(':');
		switch (SQ(column_type)(st, i)) {
		case SQLITE_INTEGER:
			printf("%lld", (long long)SQ(column_int64)(st, i));
			break;
		case SQLITE_FLOAT:
			printf("%.17g", SQ(column_double)(st, i));
			break;
		case SQLITE_NULL:
			fputs("null", stdout);
			break;
		default:
			kt_json_put_str(stdout, (const char *)SQ(column_text)(st, i));
			break;
		}
	}
	puts("}");
}

/* Run one prepared statement and print what it returns.  0 or -errno. */
static int run_stmt(sqlite3 *h, sqlite3_stmt *st, enum fmt fmt)
{
	int ncols = SQ(column_count)(st), rc, i, ret = 0;
	struct rows r = { 0 };
	size_t k;

	if (fmt == FMT_CSV && ncols) {
		for (i = 0; i < ncols; i++) {
			if (i)
				putchar(',');
			csv_cell(SQ(column_name)(st, i));
		}
		putchar('\n');
	}
	while ((rc = SQ(step)(st)) == SQLITE_ROW) {
		if (fmt == FMT_JSON) {
			json_row(st, ncols);
		} else if (fmt == FMT_CSV) {
			for (i = 0; i < ncols; i++) {
				if (i)
					putchar(',');
				csv_cell(cell(st, i));
			}
			putchar('\n');
		} else if (keep_row(&r, st, ncols)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE) {
		kt_err("%s", SQ(errmsg)(h));
		ret = -EINVAL;
	}
	if (!ret && fmt == FMT_TABLE && ncols)
		print_table(st, &r, ncols);
	for (k = 0; k < r.n; k++)
		free(r.v[k]);
	free(r.v);
	return ret;
}

/* ---- running queries ---- */

/* The tables the file has, "a, b, c". */
static void list_tables(struct kt_sqldb *db, char *out, size_t len)
{
	size_t i, at = 0;

	out[0] = '\0';
	for (i = 0; i < kt_sqldb_ntables(db) && at + 2 < len; i++)
		if (kt_sqldb_has(db, i))
			at += (size_t)snprintf(out + at, len - at, "%s%s",
					       at ? ", " : "", kt_sqldb_table(db, i));
}

/* One line for a query SQLite refused: its message and where. */
static void query_error(struct kt_sqldb *db, const char *sql, const char *msg, int at)
{
	char tables[4096];

	if (!strncmp(msg, "no such table: ", 15)) {
		list_tables(db, tables, sizeof(tables));
		kt_err("%s; the tables are: %s (--schema shows their columns)", msg, tables);
	} else if (!strncmp(msg, "no such column: ", 16)) {
		kt_err("%s; --schema (or .schema TABLE) shows each table's columns", msg);
	} else if (at >= 0 && (size_t)at <= strlen(sql)) {
		kt_err("%s, at character %d of the query: '%.40s'", msg, at + 1, sql + at);
	} else {
		kt_err("%s", msg);
	}
}

/* Every statement of sql in turn.  0, or -EINVAL at the first bad one. */
static int run_sql(struct kt_sqldb *db, const char *sql, enum fmt fmt)
{
	sqlite3_stmt *st;
	const char *tail;
	char msg[512];
	int at, ret;

	while (sql && *sql) {
		ret = kt_sqldb_prepare(db, sql, &st, &tail, msg, sizeof(msg), &at);
		if (ret == -EINVAL) {
			query_error(db, sql, msg, at);
			return ret;
		}
		if (ret) {
			kt_err("cannot load the tables: %s", strerror(-ret));
			return ret;
		}
		if (!st)
			break;
		ret = run_stmt(kt_sqldb_handle(db), st, fmt);
		SQ(finalize)(st);
		if (ret)
			return ret;
		sql = tail;
	}
	return 0;
}

static void print_schema(struct kt_sqldb *db, const char *only)
{
	size_t i;

	for (i = 0; i < kt_sqldb_ntables(db); i++)
		if (only ? !strcasecmp(only, kt_sqldb_table(db, i)) : kt_sqldb_has(db, i))
			printf("%s;\n", kt_sqldb_create(db, kt_sqldb_table(db, i)));
}

/*
 * A dot command, at the prompt or as the query: 1 when it was one, 0
 * when line is SQL, -EINVAL when it was a bad one (said).
 */
static int dot_command(struct kt_sqldb *db, const char *line, bool *quit)
{
	char tables[4096];

	while (*line == ' ')
		line++;
	if (*line != '.')
		return 0;
	if (!strncmp(line, ".quit", 5) || !strncmp(line, ".exit", 5)) {
		*quit = true;
	} else if (!strncmp(line, ".tables", 7)) {
		list_tables(db, tables, sizeof(tables));
		printf("%s\n", tables);
	} else if (!strncmp(line, ".schema", 7)) {
		line += 7;
		while (*line == ' ')
			line++;
		if (*line && !kt_sqldb_create(db, line)) {
			list_tables(db, tables, sizeof(tables));
			kt_err("no table '%s'; the tables are: %s", line, tables);
			return -EINVAL;
		}
		print_schema(db, *line ? line : NULL);
	} else {
		kt_err("unknown command '%s'; use .tables, .schema [TABLE] or .quit", line);
		return -EINVAL;
	}
	return 1;
}

/* Lines until a statement is complete (sqlite3_complete), then run it. */
static int prompt(struct kt_sqldb *db, enum fmt fmt)
{
	char *sql = NULL, *line, *n;
	size_t len = 0;
	bool quit = false;
	const struct kt_editline *el = kt_editline_get();

	if (!el) {
		kt_err("no line editor for the shell: %s; install libedit2, or give the queries on standard input or as arguments",
		       kt_editline_error());
		return -ENOENT;
	}
	el->using_history();
	while (!quit && (line = el->readline(len ? "   ...> " : "ktrace> "))) {
		if (!len && dot_command(db, line, &quit)) {
			el->add_history(line);
			free(line);
			continue;
		}
		n = realloc(sql, len + strlen(line) + 2);
		if (!n) {
			free(line);
			break;
		}
		sql = n;
		len += (size_t)sprintf(sql + len, "%s\n", line);
		free(line);
		if (!SQ(complete)(sql))
			continue;
		sql[len - 1] = '\0';
		el->add_history(sql);
		run_sql(db, sql, fmt);
		fflush(stdout);
		len = 0;
	}
	free(sql);
	return 0;
}

/* Standard input, not a terminal: all of it, as one script. */
static int script(struct kt_sqldb *db, enum fmt fmt)
{
	char *sql = NULL;
	size_t cap = 0, len = 0, got;
	int ret;

	do {
		if (len + 4096 + 1 > cap) {
			char *n = realloc(sql, cap = (len + 4096 + 1) * 2);

			if (!n) {
				free(sql);
				return -ENOMEM;
			}
			sql = n;
		}
		got = fread(sql + len, 1, cap - len - 1, stdin);
		len += got;
	} while (got);
	if (!sql)
		return 0;
	sql[len] = '\0';
	ret = run_sql(db, sql, fmt);
	free(sql);
	return ret;
}

/*
 * The recordings: one (a file, or a series' chunks), or those of several
 * hosts (hosts_open()), each its own reader.  Their number, or 0 (said).
 */
static int open_inputs(const struct sql_opts *o, struct kt_reader **rs, int *status)
{
	int n = 1, i;

	if (!hosts_open(&o->in, rs)) {
		rs[0] = kt_reader_open_list(o->in.paths, o->in.n);
		if (!rs[0]) {
			*status = errno == EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
			return 0;
		}
	} else {
		n = o->in.n;
	}
	for (i = 0; i < n; i++) {
		if (!kt_reader_latency(rs[i]))
			continue;
		kt_err("'%s' is a latency trace (the tracer's text, no records): nothing to query; 'ktrace report' prints it",
		       n > 1 ? o->in.paths[i] : o->input);
		while (n-- > 0)
			kt_reader_close(rs[n]);
		*status = KT_EXIT_FAIL;
		return 0;
	}
	return n;
}

static int sql(const struct sql_opts *o)
{
	struct kt_sqldb *db;
	struct kt_reader **rs = calloc((size_t)o->in.n, sizeof(*rs));
	unsigned long long lost;
	bool unknown;
	char msg[512] = "";
	int status = KT_EXIT_OK, ret = 0, n, i;

	if (!rs)
		return KT_EXIT_FAIL;
	n = open_inputs(o, rs, &status);
	if (!n) {
		free(rs);
		return status;
	}
	db = kt_sqldb_open_hosts(rs, n);
	if (!db) {
		while (n-- > 0)
			kt_reader_close(rs[n]);
		free(rs);
		return KT_EXIT_FAIL;
	}
	if (o->schema)
		print_schema(db, NULL);
	if (o->save) {
		ret = kt_sqldb_save(db, o->save, msg, sizeof(msg));
		if (ret)
			kt_err("cannot save '%s': %s", o->save, *msg ? msg : strerror(-ret));
	}
	/* ".tables" and ".schema" as the query, as at the prompt. */
	if (!ret && o->query && *o->query == '.') {
		bool quit;

		ret = dot_command(db, o->query, &quit) < 0 ? -EINVAL : 0;
	} else if (!ret && o->query)
		ret = run_sql(db, o->query, o->fmt);
	else if (!ret && !o->schema && !o->save)
		ret = isatty(STDIN_FILENO) ? prompt(db, o->fmt) : script(db, o->fmt);
	if (ret)
		status = KT_EXIT_FAIL;
	/* A loss is never silent: the tables lack what the kernel lost. */
	lost = kt_sqldb_lost(db, &unknown);
	if (lost || unknown)
		kt_warn("%s%llu events were lost in '%s'; the tables lack them (the losses table says where)",
			unknown ? "at least " : "", lost, o->input);
	for (i = 0; i < n; i++) {
		if (!kt_reader_damaged(rs[i]))
			continue;
		kt_err("'%s' is damaged: the tables hold what could be read",
		       n > 1 ? o->in.paths[i] : o->input);
		status = KT_EXIT_DAMAGED;
	}
	kt_sqldb_close(db);
	for (i = 0; i < n; i++)
		kt_reader_close(rs[i]);
	free(rs);
	return status;
}

int cmd_sql(int argc, char **argv)
{
	struct sql_opts o = { 0 };
	int ret;

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	ret = sql(&o);
	input_free(&o.in);
	return ret;
}
