// SPDX-License-Identifier: GPL-2.0
/*
 * A recording into ClickHouse.  See push.h.
 *
 * An interrupted push (killed, the server gone) leaves rows without the
 * trace's `traces` row.  The next push of that file finds them (one
 * query over the tables, each read by its (host, trace_id) key) and
 * deletes them with ALTER TABLE ... DELETE, and waits for those
 * mutations to finish before it sends a row, so the traces row it writes
 * last stands for one copy of each row (a mutation only touches the
 * parts older than itself: the rows sent after it stay).  ClickHouse
 * 18.16 (Debian 12's) has these mutations; ReplacingMergeTree would drop
 * duplicates only at some later merge, and staging tables would double
 * the writes.
 *
 * `events` is a view: the UNION ALL of the event tables' common columns,
 * each table naming its event in ALIAS columns (_system, _event) that
 * cost nothing to store.  Storing every record twice (in events and in
 * its event's table) was half of the server's work; the view is made
 * again, over every event table the server holds, at the end of a push
 * that made an event table.  trace_id (UInt64) and boot_id (UUID) are
 * numbers, not text, for the same reason: a string a row is parsed,
 * sorted and compressed row by row.
 *
 * The thread that decodes the file is push's critical path, so nothing
 * that waits on the server runs on it: the file is hashed on a thread
 * while it is opened and its first batch decoded (the prologue waits for
 * the id, which its queries and the trace_id column need); the server's
 * side of the start (the database, its columns, the trace there already
 * or left incomplete, the fixed tables) runs on a thread of its own while
 * the first batch is decoded, waited for before that batch goes; an
 * event's table is made or checked by the sender of its first batch; the
 * events view is made once every batch is in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <search.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "analyze/cpu.h"
#include "analyze/pidmap.h"
#include "analyze/taskstate.h"
#include "file/tgidmap.h"
#include "base/log.h"
#include "decode/decoder.h"
#include "file/reader.h"
#include "file/wallclock.h"
#include "push/arena.h"
#include "push/block.h"
#include "push/clickhouse.h"
#include "push/push.h"
#include "push/push-int.h"
#include "push/bytebuf.h"
#include "push/sender.h"
#include "push/traceid.h"
#include "push/xxhfns.h"
#include "sql/schema.h"
#include "views/summary.h"

#define DEFAULT_BATCH	(1u << 20)	/* rows per INSERT of a table */
/*
 * Sending threads, each a connection with one batch in flight: the
 * server parses and writes that many batches at once.
 */
#define NSENDERS	3

/* ---- sending rows ---- */

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The prologue's outcome (see struct push), waited for: 0, 1 or -errno. */
static int prologue_wait(struct push *p)
{
	if (p->pro_running) {
		pthread_join(p->pro, NULL);
		p->pro_running = false;
	}
	return p->pro_ret;
}

static int flush(struct push *p, struct ptable *pt, bool last)
{
	char *sql, what[300];
	size_t len;
	int ret;

	if (!pt->nrows)
		return 0;
	ret = prologue_wait(p);
	if (ret)
		return ret == 1 ? -ECANCELED : ret;
	if (kt_block_seal(BLK(pt)))
		return -ENOMEM;
	if (asprintf(&sql, "INSERT INTO `%s` %s FORMAT Native", pt->name, pt->columns) < 0)
		return -ENOMEM;
	snprintf(what, sizeof(what), "batch of %zu rows into '%s'", pt->nrows, pt->name);
	len = BLK(pt)->bytes;
	BLK(pt)->last = last;
	ret = kt_sender_send(p->senders, sql, BLK(pt), tab_sender_prep, pt, what, p->msg, p->len);
	free(sql);
	if (ret)
		return ret;
	pt->cur ^= 1;
	/* The next rows go to the other block, once its batch is in. */
	if (!last)
		ret = kt_sender_wait_block(p->senders, BLK(pt), p->msg, p->len);
	if (!pt->sent)
		p->st->tables++;
	pt->sent += pt->nrows;
	p->st->bytes += len;
	pt->nrows = 0;
	return ret;
}

/* Every batch sent: 0, or the first failure (its reason in msg). */
static int wait_all(struct push *p)
{
	return p->senders ? kt_sender_wait(p->senders, p->msg, p->len) : 0;
}

static int row_done(struct push *p, struct ptable *pt)
{
	kt_block_row_end(BLK(pt));
	if (++pt->nrows < p->batch && BLK(pt)->bytes < BATCH_BYTES)
		return 0;
	return flush(p, pt, false);
}

static void put_wall(struct push *p, struct kt_block *b, unsigned long long ts)
{
	kt_block_ni64(b, p->has_wall, p->has_wall ? kt_wallclock_at(&p->wall, ts) : 0);
}

static int loss_row(struct push *p, const struct kt_event *ev, unsigned long long *last)
{
	struct kt_block *b = BLK(p->losses);
	struct tep_record *rec = ev->record;

	kt_block_int(b, ev->buffer);
	kt_block_int(b, ev->cpu);
	kt_block_ni64(b, *last != 0, (int64_t)*last);
	kt_block_int(b, (int64_t)rec->ts);
	put_wall(p, b, rec->ts);
	kt_block_ni64(b, rec->missed_events > 0, rec->missed_events);
	return row_done(p, p->losses);
}

static unsigned long long *last_of(struct push *p, int buffer, int cpu)
{
	size_t i = (size_t)buffer * 1024 + (size_t)cpu, n;
	unsigned long long *v;

	if (i >= p->nlast) {
		n = i + 64;
		v = realloc(p->last, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + p->nlast, 0, (n - p->nlast) * sizeof(*v));
		p->last = v;
		p->nlast = n;
	}
	return &p->last[i];
}

static void show_progress(struct push *p, const char *path)
{
	if (!p->o->progress || since(&p->shown) < 0.2)
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->shown);
	p->o->progress(p->o->arg, path, p->st);
}

/* What every record's row starts with (after the constant host, trace_id, boot_id): ts, wall_ts, cpu, pid, comm. */
static void record_cols(struct push *p, struct kt_block *b, const struct kt_event *ev,
			const struct task *tk)
{
	kt_block_int(b, (int64_t)ev->record->ts);
	put_wall(p, b, ev->record->ts);
	kt_block_int(b, ev->cpu);
	kt_block_int(b, tk->pid);
	if (tk->comm_n)
		kt_block_str_enc(b, tk->comm_enc, tk->comm_n);
	else
		kt_block_str(b, tk->comm);
}

/* Column k of pt, a name for a number: from its cache, or made there. */
static int name_col(struct push *p, struct ptable *pt, int k, struct tep_record *rec)
{
	const struct kt_schema_col *c = &pt->st->cols[k];
	const char *text;
	struct name *nm;
	long long v;

	if (!kt_schema_col_num(c, rec, &v)) {
		kt_block_nstr_enc(BLK(pt), NULL, 0);
		return 0;
	}
	if (!pt->names) {
		pt->names = calloc((size_t)pt->st->ncols, sizeof(*pt->names));
		if (!pt->names)
			return -ENOMEM;
	}
	nm = &pt->names[k][(unsigned long long)v % NAMES];
	if (!nm->valid || nm->v != v) {
		text = kt_schema_text(p->machine, c, rec, p->buf, sizeof(p->buf));
		nm->n = text ? (unsigned char)kt_block_enc(nm->enc, sizeof(nm->enc), text) : 0;
		/* Too long for the cache: as it is. */
		if (text && !nm->n) {
			nm->valid = false;
			kt_block_nstr(BLK(pt), text);
			return 0;
		}
		nm->null = !text;
		nm->v = v;
		nm->valid = true;
	}
	kt_block_nstr_enc(BLK(pt), nm->null ? NULL : nm->enc, nm->n);
	return 0;
}

static int push_record(const struct kt_event *ev, void *arg)
{
	struct push *p = arg;
	struct tep_record *rec = ev->record;
	int pid = tep_data_pid(p->tep, rec), k, n, ret;
	unsigned long long *last = last_of(p, ev->buffer, ev->cpu);
	struct task *tk = p->last_tk && p->last_tk->pid == pid ? p->last_tk :
			  kt_pidmap_get(&p->taskmap, pid);
	long idx = kt_schema_event_table(p->schema, ev->event->id);
	struct ptable *pt = idx >= 0 ? &p->t[idx] : NULL;
	struct kt_block *b;
	long long v;

	if (!last || !tk)
		return -ENOMEM;
	p->last_tk = tk;
	if (p->sum && kt_summary_add(p->sum, ev))
		return -ENOMEM;
	if (p->model) {
		ret = kt_taskstate_add(p->model, ev);
		if (ret)
			return ret;
	}
	/* The file's pid -> comm map, looked up once a task. */
	if (!tk->comm) {
		tk->comm = tep_data_comm_from_pid(p->tep, pid) ?: "<...>";
		tk->comm_n = kt_block_enc(tk->comm_enc, sizeof(tk->comm_enc), tk->comm);
	}
	if (rec->missed_events) {
		ret = loss_row(p, ev, last);
		if (ret)
			return ret;
	}
	*last = rec->ts;
	if (!p->first_ts)
		p->first_ts = rec->ts;
	p->last_ts = rec->ts;

	if (!tk->events++)
		tk->first = rec->ts;
	tk->last = rec->ts;
	p->st->events++;

	if (pt) {
		b = BLK(pt);
		record_cols(p, b, ev, tk);
		/* The event's own columns, after ts, cpu, pid and comm. */
		for (k = 4; k < pt->st->ncols; k++) {
			const struct kt_schema_col *c = &pt->st->cols[k];

			if (c->kind == KT_COL_NUM) {
				kt_block_int(b, kt_schema_col_num(c, rec, &v) ? v : 0);
				continue;
			}
			if (c->kind == KT_COL_ARRAY) {
				n = kt_schema_array(c, rec, 0, p->arr, 4096);
				kt_block_u64s(b, p->arr, n > 0 ? (size_t)n : 0);
				continue;
			}
			if (c->kind == KT_COL_STR) {
				kt_block_str(b, kt_schema_text(p->machine, c, rec,
								p->buf, sizeof(p->buf)));
				continue;
			}
			ret = name_col(p, pt, k, rec);
			if (ret)
				return ret;
		}
		ret = row_done(p, pt);
		if (ret)
			return ret;
	}
	if (!(p->st->events & 0xfff))
		show_progress(p, kt_reader_path(p->r));
	return 0;
}

struct task_rows {
	struct push *p;
	struct kt_tgidmap tgids;	/* record's thread -> process map */
	bool has_switch;		/* run_ns, switches, missing_switches known */
	int err;
};

static void task_row(const void *node, VISIT which, void *arg)
{
	const struct task *tk = *(const struct task *const *)node;
	struct task_rows *tr = arg;
	struct push *p = tr->p;
	struct kt_block *b = BLK(p->tasks);
	const struct kt_cpu_task *c;
	const char *comm;

	if ((which != postorder && which != leaf) || tr->err)
		return;
	comm = tep_data_comm_from_pid(p->tep, tk->pid);
	kt_block_int(b, tk->pid);
	kt_block_int(b, kt_tgidmap_of(&tr->tgids, tk->pid));
	kt_block_str(b, comm ? comm : "<...>");
	kt_block_int(b, (int64_t)tk->events);
	kt_block_int(b, (int64_t)tk->first);
	kt_block_int(b, (int64_t)tk->last);
	c = tr->has_switch ? kt_cpu_task_of(p->cpu, tk->pid) : NULL;
	kt_block_ni64(b, tr->has_switch, c ? (int64_t)c->ns : 0);
	kt_block_ni64(b, tr->has_switch, c ? (int64_t)c->switches : 0);
	kt_block_ni64(b, tr->has_switch, c ? (int64_t)c->missing : 0);
	tr->err = row_done(p, p->tasks);
}

/* ---- identity ---- */

/* The file's id, hashed on a thread of its own while the file is opened. */
static void *hash_file(void *arg)
{
	struct hashing *h = arg;

	h->ret = h->paths ? kt_traceid_paths(h->paths, h->npaths, &h->id) :
		 kt_traceid_fd(h->fd, &h->id);
	return NULL;
}

/* A file that cannot be read is said so here, before the reader tries. */
static int trace_id_start(struct push *p, struct hashing *h, const char *path)
{
	int err;

	p->hashing = false;
	h->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0) {
		err = errno;
		fail(p, "cannot read '%s': %s", path, strerror(err));
		return -err;
	}
	err = pthread_create(&h->th, NULL, hash_file, h);
	if (err)
		close(h->fd);
	p->hashing = !err;
	return -err;
}

/* A series' id: its chunks, read once the reader has them in order. */
static int trace_id_start_series(struct push *p, struct hashing *h)
{
	struct kt_reader_chunk c;
	int k, err;

	p->hashing = false;
	h->fd = -1;
	h->npaths = kt_reader_chunks(p->r);
	h->paths = calloc((size_t)h->npaths, sizeof(*h->paths));
	if (!h->paths)
		return -ENOMEM;
	for (k = 0; k < h->npaths; k++) {
		kt_reader_chunk(p->r, k, &c);
		h->paths[k] = c.path;
	}
	err = pthread_create(&h->th, NULL, hash_file, h);
	if (err) {
		free(h->paths);
		h->paths = NULL;
	}
	p->hashing = !err;
	return -err;
}

/*
 * The hash, waited for; the trace_id store given its value (before any
 * block is sealed: the first batch waits for the prologue, which waits
 * here).  0, or -errno with the reason in msg.
 */
static int trace_id_wait(struct push *p, struct hashing *h, const char *path)
{
	unsigned char le[8];
	int i;

	if (!p->hashing)
		return 0;
	pthread_join(h->th, NULL);
	p->hashing = false;
	if (h->fd >= 0)
		close(h->fd);
	free(h->paths);
	h->paths = NULL;
	p->id = h->id;
	if (h->ret)
		fail(p, "cannot read '%s': %s", path, strerror(-h->ret));
	snprintf(p->st->trace_id, sizeof(p->st->trace_id), "%llu", p->id);
	for (i = 0; i < 8; i++)	/* little-endian, as Native has numbers */
		le[i] = (unsigned char)(p->id >> (8 * i));
	if (p->kc[1])
		kt_block_const_set(p->kc[1], le);
	return h->ret;
}

/* The n-th word (0-based) of uname's "Linux HOST RELEASE MACHINE". */
static void uname_word(const char *uname, int n, char *out, size_t len)
{
	const char *s = uname ? uname : "";
	size_t w;

	while (n-- > 0 && *s) {
		s += strcspn(s, " ");
		s += strspn(s, " ");
	}
	w = strcspn(s, " ");
	snprintf(out, len, "%.*s", (int)w, s);
}

/* ---- the trace ---- */

static int already_there(struct push *p)
{
	char h[600];
	const char *reply;
	int ret;

	if (!tab_server_has(p, "traces"))
		return 0;
	literal(h, sizeof(h), p->st->host);
	snprintf(p->q, sizeof(p->q), "SELECT count() FROM traces WHERE host = %s AND trace_id = %llu",
		 h, p->id);
	ret = query(p, p->q, &reply);
	if (ret)
		return ret;
	return atoll(reply) > 0;
}

/*
 * Rows an interrupted push of this trace left: deleted, and their
 * tables' mutations waited for before this push sends a row.
 */
static int delete_partial(struct push *p)
{
	char h[600], *n, *save;
	const char *reply, *line;
	struct kt_bytebuf sql = { 0 };
	size_t i;
	int ret = 0, k;

	literal(h, sizeof(h), p->st->host);
	for (i = 0; i < p->nt; i++) {
		/* Not the events view: its rows are the event tables'. */
		if (!p->t[i].st || p->t[i].st->kind == KT_TAB_EVENTS ||
		    !tab_server_has(p, p->t[i].name))
			continue;
		snprintf(p->q, sizeof(p->q), "%sSELECT '%s' AS t FROM `%s` WHERE host = %s AND trace_id = %llu LIMIT 1",
			 sql.len ? " UNION ALL " : "", p->t[i].name, p->t[i].name, h, p->id);
		kt_bytebuf_add(&sql, p->q, strlen(p->q));
	}
	if (!sql.len)
		return 0;
	ret = sql.failed ? -ENOMEM : query(p, kt_bytebuf_text(&sql), &reply);
	kt_bytebuf_free(&sql);
	if (ret)
		return ret;
	/* One table name a line. */
	n = strdup(reply);
	if (!n)
		return -ENOMEM;
	for (line = strtok_r(n, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		p->st->resumed = true;
		snprintf(p->q, sizeof(p->q), "ALTER TABLE `%s` DELETE WHERE host = %s AND trace_id = %llu",
			 line, h, p->id);
		ret = query(p, p->q, NULL);
	}
	free(n);
	/* Up to a minute, before this push sends a row. */
	for (k = 0; !ret && p->st->resumed; k++) {
		ret = query(p, "SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0",
			    &reply);
		if (ret || !atoll(reply))
			break;
		if (k == 600) {
			fail(p, "the deletion of an interrupted push's rows is not done after 60 s; push again later");
			return -ETIMEDOUT;
		}
		usleep(100000);
	}
	return ret;
}

/*
 * report --stat's loss (the marks and the record-time counters), and the
 * records the file holds, for the progress bar: from a summary fed by
 * the push's own pass (sum), or by one of its own before the push (a
 * progress bar needs the total first).
 */
static void count(struct push *p, struct kt_summary *sum)
{
	struct kt_summary *s = sum ? sum : kt_summary_new(p->r);
	int i;

	if (!s)
		return;
	p->lost = kt_summary_total_lost(s);
	p->lost_unknown = false;
	p->st->total = 0;
	for (i = 0; i < kt_summary_cpus(s); i++) {
		if (kt_summary_cpu_at(s, i)->unknown_marks)
			p->lost_unknown = true;
		p->st->total += kt_summary_cpu_at(s, i)->events;
	}
	if (!sum)
		kt_summary_free(s);
}

static int traces_row(struct push *p)
{
	struct kt_block *b = BLK(p->traces);
	char kernel[128], clock[64];

	uname_word(kt_reader_uname(p->r), 2, kernel, sizeof(kernel));
	snprintf(clock, sizeof(clock), "%s", kt_reader_clock(p->r));
	kt_block_str(b, kt_reader_path(p->r));
	kt_block_str(b, kernel);
	kt_block_str(b, p->machine ? p->machine : "");
	kt_block_int(b, kt_reader_cpus(p->r));
	kt_block_str(b, clock);
	kt_block_str(b, kt_reader_record_cmdline(p->r) ?: "");
	kt_block_int(b, (int64_t)p->first_ts);
	kt_block_int(b, (int64_t)p->last_ts);
	put_wall(p, b, p->first_ts);
	put_wall(p, b, p->last_ts);
	kt_block_int(b, (int64_t)p->st->events);
	kt_block_int(b, (int64_t)p->lost);
	kt_block_raw(b, &(unsigned char){ p->lost_unknown }, 1);
	kt_block_row_end(b);
	p->traces->nrows = 1;
	return flush(p, p->traces, true) ?: wait_all(p);
}

/*
 * A UUID ("8-4-4-4-12" hex digits; "" unknown: all zeros) as ClickHouse
 * sends it: its first 8 bytes as a little-endian UInt64, then its last 8.
 */
static void uuid_bytes(unsigned char *out, const char *text)
{
	unsigned long long half[2] = { 0, 0 };
	int i, n = 0, d;

	for (i = 0; text[i] && n < 32; i++) {
		if (text[i] == '-')
			continue;
		d = text[i] >= 'a' ? text[i] - 'a' + 10 : text[i] >= 'A' ? text[i] - 'A' + 10 :
		    text[i] - '0';
		if (d < 0 || d > 15)
			break;
		half[n / 16] = half[n / 16] << 4 | (unsigned)d;
		n++;
	}
	if (n != 32)
		half[0] = half[1] = 0;
	for (i = 0; i < 16; i++)
		out[i] = (unsigned char)(half[i / 8] >> (8 * (i % 8)));
}

static int setup(struct push *p)
{
	size_t i, n = kt_schema_ntables(p->schema);
	const char *uname = kt_reader_uname(p->r);
	int ret = 0;

	p->t = calloc(n + 1, sizeof(*p->t));
	if (!p->t)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p->t[i].st = kt_schema_table(p->schema, i);
		p->t[i].name = p->t[i].st->name;
		if (p->t[i].st->kind == KT_TAB_EVENTS)
			p->events = &p->t[i];
		else if (p->t[i].st->kind == KT_TAB_TASKS)
			p->tasks = &p->t[i];
		else if (p->t[i].st->kind == KT_TAB_LOSSES)
			p->losses = &p->t[i];
	}
	p->t[n].name = "traces";
	p->traces = &p->t[n];
	p->nt = n + 1;
	for (i = 0; i < p->nt; i++) {
		p->t[i].push = p;
		pthread_mutex_init(&p->t[i].mu, NULL);
	}
	if (!p->events || !p->tasks || !p->losses)
		return -EINVAL;
	if (p->o->host)
		snprintf(p->st->host, sizeof(p->st->host), "%s", p->o->host);
	else
		uname_word(uname, 1, p->st->host, sizeof(p->st->host));
	if (!p->st->host[0])
		snprintf(p->st->host, sizeof(p->st->host), "unknown");
	if (kt_wallclock_parse(kt_reader_wall_clock(p->r), &p->wall))
		kt_warn("'%s': its realtime offsets are damaged; wall_ts is unknown",
			kt_reader_path(p->r));
	p->has_wall = kt_wallclock_known(&p->wall);
	p->st->no_wall = !p->has_wall;
	uuid_bytes(p->boot, p->wall.boot_id);
	/* The blocks' columns, host and boot_id known. */
	ret = tab_const_stores(p);
	p->arena = kt_arena_new();
	if (!p->arena)
		ret = ret ?: -ENOMEM;
	for (i = 0; i < p->nt && !ret; i++)
		if (!p->t[i].st || p->t[i].st->kind != KT_TAB_META) {
			p->t[i].blk[0].arena = p->arena;
			p->t[i].blk[1].arena = p->arena;
			ret = tab_col_text(&p->t[i], false, &p->t[i].columns);
			ret = ret ?: tab_each_col(&p->t[i], tab_blk_col,
						  &(struct blk_arg){ p, &p->t[i].blk[0] });
			ret = ret ?: tab_each_col(&p->t[i], tab_blk_col,
						  &(struct blk_arg){ p, &p->t[i].blk[1] });
		}
	return ret;
}

/* The prologue (see struct push), on its thread. */
static void *prologue(void *arg)
{
	struct push *p = arg;
	struct conn cn = { p->ch, p->msg, p->len };
	int ret;

	ret = trace_id_wait(p, &p->hash, kt_reader_path(p->r));
	ret = ret ?: tab_read_columns(p);
	ret = ret ?: already_there(p);
	if (ret == 0)
		ret = delete_partial(p);
	/* The fixed tables are there even when empty: fleet queries name them. */
	ret = ret ?: tab_ready(p, &cn, p->events);
	ret = ret ?: tab_ready(p, &cn, p->tasks);
	ret = ret ?: tab_ready(p, &cn, p->losses);
	ret = ret ?: tab_ready(p, &cn, p->traces);
	p->pro_ret = ret;
	return NULL;
}

static int prologue_start(struct push *p)
{
	int err = pthread_create(&p->pro, NULL, prologue, p);

	if (err)
		return -err;
	p->pro_running = true;
	return 0;
}

/*
 * The task model and analyze cpu's figures on it, as sql's tasks table
 * has them: only for a file with sched_switch's format (a file without
 * it pays nothing; its tasks' run_ns, switches and missing_switches are
 * NULL, as sql's are).
 */
static int model_start(struct push *p)
{
	if (!tep_find_event_by_name(p->tep, "sched", "sched_switch"))
		return 0;
	p->model = kt_taskstate_new(p->tep, NULL);
	if (!p->model)
		return errno ? -errno : -ENOMEM;
	p->cpu = kt_cpu_join(p->tep, p->model);
	return p->cpu ? 0 : errno ? -errno : -ENOMEM;
}

static int push_all(struct push *p)
{
	struct kt_decoder *d;
	struct task_rows tr = { .p = p };
	size_t i;
	int ret, pro;

	/* With a progress bar the loss was counted before. */
	if (!p->o->progress) {
		p->sum = kt_summary_begin(p->r, NULL);
		if (!p->sum)
			return errno ? -errno : -ENOMEM;
	}
	ret = model_start(p);
	if (ret)
		return ret;
	d = kt_decoder_new(p->r, &(struct kt_decoder_opts){ 0 });
	if (!d)
		return errno ? -errno : -ENOMEM;
	ret = kt_decoder_run(d, push_record, p);
	kt_decoder_free(d);
	if (!ret && p->sum) {
		kt_summary_end(p->sum);
		count(p, p->sum);
	}
	if (!ret) {
		/* A file without the map: each task its own process. */
		ret = kt_tgidmap_load(&tr.tgids, kt_reader_tgids(p->r));
		if (p->cpu) {
			struct kt_cpu_totals ct;

			kt_cpu_totals(p->cpu, &ct);
			tr.has_switch = ct.has_switch;
		}
		if (!ret)
			twalk_r(p->taskmap.tree, task_row, &tr);
		ret = ret ?: tr.err;
		kt_tgidmap_free(&tr.tgids);
	}
	/*
	 * The last batches, each to the first idle sender.  Then the blocks'
	 * malloc memory goes as soon as each is idle (a last batch's, by its
	 * sender once sent), while the server writes its last parts; their
	 * pieces in the arena go with it at the end, in 2 MB pages (40 MB of
	 * 4 KB pages took 5% of push's CPU to free).
	 */
	for (i = 0; i < p->nt && !ret; i++)
		if (&p->t[i] != p->traces)
			ret = flush(p, &p->t[i], true);
	for (i = 0; i < p->nt && !ret; i++)
		if (&p->t[i] != p->traces) {
			ret = kt_sender_wait_block(p->senders, BLK(&p->t[i]), p->msg, p->len);
			kt_block_free(BLK(&p->t[i]));
		}
	/*
	 * The prologue's outcome, a batch sent or not (a file of no
	 * records sends none): there already (a batch found it so and
	 * stopped the decoding: -ECANCELED), or its failure.
	 */
	pro = prologue_wait(p);
	if (pro && (!ret || ret == -ECANCELED))
		return pro;
	/* Every row is in before the traces row says so. */
	ret = ret ?: wait_all(p);
	/*
	 * The events view over the tables this push made, which the senders
	 * made before their first batches (one cut short before this point
	 * leaves them out of it until it is run again, to complete).
	 */
	for (i = 0; i < p->nt; i++)
		p->view_stale |= p->t[i].made;
	if (!ret && p->view_stale)
		ret = tab_events_view(p);
	return ret;
}

int kt_push_file(struct kt_ch *ch, const char *path, const struct kt_push_opts *o,
		 struct kt_push_stats *st, char *msg, size_t len)
{
	struct push p = { .ch = ch, .o = o, .st = st, .msg = msg, .len = len };
	struct stat sb;
	bool series;
	size_t i;
	int ret, err;

	memset(st, 0, sizeof(*st));
	msg[0] = '\0';
	if (!kt_xxh_get()) {
		fail(&p, "cannot load libxxhash for the trace's id: %s; install libxxhash0",
		     kt_xxh_error());
		return -ELIBACC;
	}
	p.batch = o->batch ? o->batch : DEFAULT_BATCH;
	p.taskmap.size = sizeof(struct task);
	clock_gettime(CLOCK_MONOTONIC, &p.t0);
	/*
	 * The file hashed while it is opened and its first batch made; a
	 * series (a directory of chunks) once it is open, its chunks known.
	 */
	series = !stat(path, &sb) && S_ISDIR(sb.st_mode);
	ret = series ? 0 : trace_id_start(&p, &p.hash, path);
	if (ret)
		return ret;
	p.r = kt_reader_open(path);
	err = p.r ? 0 : errno ? errno : EIO;
	if (!err && series)
		err = -trace_id_start_series(&p, &p.hash);
	if (err) {
		ret = trace_id_wait(&p, &p.hash, path);
		kt_reader_close(p.r);
		return ret ?: -err;
	}
	if (kt_reader_latency(p.r)) {
		trace_id_wait(&p, &p.hash, path);
		fail(&p, "'%s' is a latency trace (the tracer's text, no records): nothing to push", path);
		kt_reader_close(p.r);
		return -EINVAL;
	}
	p.tep = kt_reader_tep(p.r);
	p.machine = kt_reader_machine(p.r);
	p.schema = kt_schema_new(p.tep);
	ret = p.schema ? setup(&p) : -errno;
	if (!ret) {
		p.senders = kt_sender_new(ch, NSENDERS);
		ret = p.senders ? 0 : -errno;
	}
	ret = ret ?: prologue_start(&p);
	/* The records the file holds, for the progress bar. */
	if (ret == 0 && p.o->progress)
		count(&p, NULL);
	if (ret == 0)
		ret = push_all(&p);
	if (ret == 0)
		ret = traces_row(&p);
	if (ret == 0 && kt_reader_damaged(p.r))
		ret = 2;
	if (p.o->progress && ret == 0)
		p.o->progress(p.o->arg, path, st);
	prologue_wait(&p);
	/* Not waited for by a prologue that did not start. */
	trace_id_wait(&p, &p.hash, path);
	kt_sender_free(p.senders);
	for (i = 0; i < p.nt; i++) {
		pthread_mutex_destroy(&p.t[i].mu);
		kt_block_free(&p.t[i].blk[0]);
		kt_block_free(&p.t[i].blk[1]);
		free(p.t[i].names);
		free(p.t[i].columns);
		free(p.t[i].create);
	}
	free(p.t);
	free(p.columns);
	free(p.last);
	kt_pidmap_free(&p.taskmap, NULL);
	for (i = 0; i < 3; i++)
		kt_block_const_free(p.kc[i]);
	kt_arena_free(p.arena);
	kt_summary_free(p.sum);
	kt_cpu_free(p.cpu);
	kt_taskstate_free(p.model);
	kt_schema_free(p.schema);
	kt_reader_close(p.r);
	return ret;
}
