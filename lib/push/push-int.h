/* SPDX-License-Identifier: GPL-2.0 */
/*
 * push's private header, shared by lib/push/push.c (the pass over the
 * file, the batches, the trace's identity) and lib/push/tables.c (the
 * ClickHouse tables) only; the public API is push.h.
 */
#ifndef KT_PUSH_INT_H
#define KT_PUSH_INT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "analyze/pidmap.h"
#include "file/wallclock.h"
#include "push/block.h"
#include "push/clickhouse.h"
#include "push/push.h"
#include "sql/schema.h"

/*
 * A table's batch ends at p->batch rows (push.c's DEFAULT_BATCH) or at
 * this many bytes: one in flight while the next is made.  Small
 * enough that the server works while push reads (16 MB left it much of
 * its work after the last record), big enough that its parts are few
 * (4 MB cost it merges: no faster).
 */
#define BATCH_BYTES	(8u << 20)

/*
 * The names a number column stands for (syscall, errno, state, vector),
 * as a block's Nullable(String), by the number, direct-mapped: a system
 * call table's rows name a few calls, made once each, not a row each.
 */
#define NAMES	64
struct name {
	long long v;
	bool valid, null;
	unsigned char n;
	unsigned char enc[62];
};

/* One table of the schema as ClickHouse has it, and its rows to send. */
#define BLK(pt)	(&(pt)->blk[(pt)->cur])
struct ptable {
	const struct kt_schema_table *st;	/* NULL: traces */
	const char *name;
	char *columns;			/* "(`host`, ...)" */
	char *create;
	/*
	 * Its rows by column, two blocks: one filled while the other is
	 * sent (a sender takes it as it is, then clears it; flush() waits
	 * for it before the rows after the next batch go in).
	 */
	struct kt_block blk[2];
	int cur;
	size_t nrows;
	unsigned long long sent;
	struct name (*names)[NAMES];	/* a column's names, by its index */
	struct push *push;
	pthread_mutex_t mu;		/* ready and made, for the senders */
	bool ready;			/* made or checked on the server */
	bool made;			/* an event's table this push made */
};

struct kt_taskstate;
struct kt_cpu;

struct task {
	int pid;
	const char *comm;		/* NULL: not looked up yet */
	unsigned char comm_enc[40];	/* comm as a block's String; */
	size_t comm_n;			/* its bytes, 0: too long */
	unsigned long long events, first, last;
};

struct hashing {
	pthread_t th;
	int fd;
	/* A series (-i DIR): its chunks' paths, hashed as one file; fd -1. */
	const char **paths;
	int npaths;
	unsigned long long id;
	int ret;
};

struct push {
	struct kt_ch *ch;
	struct kt_sender *senders;	/* the rows' batches */
	struct kt_arena *arena;		/* the blocks' memory past their first pieces */
	const struct kt_push_opts *o;
	struct kt_push_stats *st;
	char *msg;
	size_t len;
	struct kt_reader *r;
	struct tep_handle *tep;
	const char *machine;
	struct kt_schema *schema;
	struct ptable *t;		/* the schema's, then traces */
	size_t nt;
	struct ptable *events, *tasks, *losses, *traces;
	/*
	 * trace_id, the file's hash, made on a thread of its own while the
	 * file is opened and the decoding starts; the prologue waits for it
	 * (its queries name it), and the first batch for the prologue.
	 */
	struct hashing hash;
	bool hashing;			/* its thread not joined yet */
	unsigned long long id;
	unsigned char boot[16];		/* boot_id as a UUID goes */
	bool view_stale;		/* events is missing or misses a table made */
	struct kt_wallclock wall;
	bool has_wall;
	char *columns;			/* system.columns: "\ntable\tname\ttype" lines */
	struct kt_pidmap taskmap;
	struct task *last_tk;		/* the task of the record before (runs of one task are long) */
	struct kt_block_const *kc[3];	/* host, trace_id, boot_id: every block's */
	struct kt_summary *sum;		/* the loss, counted in the pass */
	/*
	 * The task model (analyze/taskstate.h) that tasks' run_ns, switches
	 * and missing_switches come from, as sql's do: built only when the
	 * file has sched_switch's format (none: those columns NULL).
	 */
	struct kt_taskstate *model;
	struct kt_cpu *cpu;
	/*
	 * The server's side of the start (the database, its columns, whether
	 * the trace is there, an interrupted push's rows deleted, the fixed
	 * tables) on a thread of its own while the file is decoded: waited
	 * for before the first batch goes.  1 from it: there already.
	 */
	pthread_t pro;
	bool pro_running;
	int pro_ret;
	unsigned long long *last;	/* per buffer*1024+cpu: its last ts */
	size_t nlast;
	unsigned long long first_ts, last_ts;
	unsigned long long lost;	/* as report --stat counts it */
	bool lost_unknown;
	size_t batch;
	struct timespec t0, shown;
	char buf[8192];			/* a text column being made */
	unsigned long long arr[4096];	/* an array column being read (a record is a page at most) */
	char q[2048];			/* a statement being made */
};

static inline void fail(struct push *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void fail(struct push *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, p->len, fmt, ap);
	va_end(ap);
}

/* s as a ClickHouse string literal into out. */
static inline void literal(char *out, size_t len, const char *s)
{
	size_t at = 0;

	if (len < 3)
		return;
	out[at++] = '\'';
	for (; *s && at + 3 < len; s++) {
		if (*s == '\'' || *s == '\\')
			out[at++] = '\\';
		out[at++] = *s;
	}
	out[at++] = '\'';
	out[at] = '\0';
}

/* Run a statement; on failure the server's reason in msg. */
static inline int query(struct push *p, const char *sql, const char **reply)
{
	int ret = kt_ch_query(p->ch, sql, NULL, 0, reply);

	if (ret)
		fail(p, "%s", kt_ch_error(p->ch));
	return ret;
}

/*
 * A connection and where its failure's reason goes: the push's own, or a
 * sender's (which makes or checks its tables before their first rows).
 */
struct conn {
	struct kt_ch *ch;
	char *msg;
	size_t len;
};

static inline int conn_query(struct conn *cn, const char *sql)
{
	int ret = kt_ch_query(cn->ch, sql, NULL, 0, NULL);

	if (ret)
		snprintf(cn->msg, cn->len, "%s", kt_ch_error(cn->ch));
	return ret;
}

/* A block to add pt's columns to, for tab_blk_col(). */
struct blk_arg {
	struct push *p;
	struct kt_block *b;
};

/* ---- tables.c ---- */

int tab_each_col(const struct ptable *pt, int (*fn)(void *, const char *, const char *),
		 void *arg);
int tab_blk_col(void *arg, const char *name, const char *type);
int tab_const_stores(struct push *p);
int tab_col_text(const struct ptable *pt, bool types, char **out);
bool tab_server_has(struct push *p, const char *table);
int tab_read_columns(struct push *p);
int tab_events_view(struct push *p);
int tab_ready(struct push *p, struct conn *cn, struct ptable *pt);
int tab_sender_prep(void *arg, struct kt_ch *ch, char *msg, size_t len);

#endif
