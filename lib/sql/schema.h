/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables a recording offers and their columns: the schema of
 * `ktrace sql` (db.h lists it, man/ktrace-sql.1 documents it), which
 * `ktrace push` (lib/push/) gives its ClickHouse tables too.  The names,
 * the kind of each column and how a column's value is read from a record
 * are made here only; each engine picks its own types.
 */
#ifndef KT_SQL_SCHEMA_H
#define KT_SQL_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tep_record;

enum kt_col_kind {
	KT_COL_NUM,		/* a number field (i64; a u64 above 2^63 reads negative) */
	KT_COL_STR,		/* a string field */
	KT_COL_ARRAY,		/* an array field, as text "[n,n,...]" */
	KT_COL_SYSCALL,		/* the names report's JSON adds beside numbers */
	KT_COL_ERRNO,
	KT_COL_STATE,
	KT_COL_VEC,
};

/*
 * KT_TAB_WAKEUPS, _SLICES and _OFFCPU are sql's alone (lib/sql/db.c):
 * derived by analyze sched, cpu and offcpu, not the schema's tables,
 * not pushed.
 */
enum kt_tab_kind {
	KT_TAB_EVENT, KT_TAB_EVENTS, KT_TAB_TASKS, KT_TAB_LOSSES, KT_TAB_META,
	KT_TAB_WAKEUPS, KT_TAB_SLICES, KT_TAB_OFFCPU,
};

/* A column; f is the field it reads (NULL for the fixed tables' and ts, cpu, pid, comm). */
struct kt_schema_col {
	char *name;
	enum kt_col_kind kind;
	struct tep_format_field *f;
	bool swap;			/* f's file is of the other byte order */
};

/* A table; ev is KT_TAB_EVENT's event.  Event tables start ts, cpu, pid, comm. */
struct kt_schema_table {
	char *name;
	enum kt_tab_kind kind;
	struct tep_event *ev;
	struct kt_schema_col *cols;
	int ncols;
};

struct kt_schema;

/* The tables of the events tep knows, then events, tasks, losses, meta.
 * NULL and errno on failure. */
struct kt_schema *kt_schema_new(struct tep_handle *tep);
void kt_schema_free(struct kt_schema *s);
size_t kt_schema_ntables(const struct kt_schema *s);
const struct kt_schema_table *kt_schema_table(const struct kt_schema *s, size_t i);
/* The index of the table of event id, or -1 when it has none. */
long kt_schema_event_table(const struct kt_schema *s, int id);

/*
 * Column c's number field of rec, bounds checked, sign-extended where
 * signed; read in place in the file's byte order, not through
 * libtraceevent's calls: a loading pass reads a few a record.
 */
bool kt_schema_col_num(const struct kt_schema_col *c, const struct tep_record *rec, long long *v);
/*
 * A KT_COL_ARRAY column's elements from the first-th (each read as
 * unsigned), up to max of them, into v: their number, or -1 when the
 * record's field is unreadable.
 */
int kt_schema_array(const struct kt_schema_col *c, const struct tep_record *rec,
		    int first, unsigned long long *v, int max);
/*
 * A text column's value (KT_COL_STR and after): either a name that lives
 * as long as the process, or buf (len bytes, reused by the next call);
 * NULL when the record has none (an unreadable field, no error).
 * machine is the traced machine (syscall names), or NULL.
 */
const char *kt_schema_text(const char *machine, const struct kt_schema_col *c,
			   struct tep_record *rec, char *buf, size_t len);

#endif
