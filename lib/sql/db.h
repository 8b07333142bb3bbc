/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording as an SQLite database in memory, its tables loaded when a
 * query first names them (one pass over the file loads every table that
 * pass was asked for).  The schema, the contract `ktrace push`'s tables
 * share (man/ktrace-sql.1):
 *
 *   one table per event kind of the file, named as the event
 *   (sched_switch), or system_event where two systems share the name:
 *     ts, cpu, pid, comm              every record's own
 *     one column per field            INTEGER for numbers (a u64 above
 *                                     2^63 reads negative), TEXT for
 *                                     strings, and for arrays a TEXT
 *                                     "[n,n,...]"; a field named ts, cpu,
 *                                     pid or comm is field_NAME
 *     syscall, errno, prev_state_name, vec_name
 *                                     the names report's JSON adds beside
 *                                     the numbers, where it adds them
 *   events(ts, cpu, pid, comm, system, event)    every record
 *   tasks(pid, comm, events, first_ts, last_ts)  every task seen
 *   losses(buffer, cpu, after_ts, before_ts, lost)
 *                                     each gap the data marks: the last
 *                                     record of that CPU before it (NULL:
 *                                     none), the first after, and how many
 *                                     (NULL: the kernel did not count)
 *   meta(key, value)                  file, version, clock, cpus, uname,
 *                                     machine, compression, and where
 *                                     record measured them, boot_id and
 *                                     realtime_offset_start/_end (ns)
 *   wakeups(ts, cpu, pid, comm, latency_ns, run_ts)
 *                                     sql's own, not the schema's: each
 *                                     wakeup latency as analyze sched
 *                                     counts it (analyze/sched.h)
 *   host                              sql's own, every table's last
 *                                     column: whose row (a table with a
 *                                     field named host: ktrace_host)
 */
#ifndef KT_SQL_DB_H
#define KT_SQL_DB_H

#include <stdbool.h>
#include <stddef.h>

struct kt_reader;
struct kt_sqldb;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

/* NULL and errno on failure (ENOMEM, or EIO when SQLite will not start). */
struct kt_sqldb *kt_sqldb_open(struct kt_reader *r);
/*
 * Recordings of n hosts in one database (sql -i A -i B): each table
 * holds every host's rows, each table's last column, host, naming whose
 * (decode/hosts.h's name, as report -i A -i B names its lines; a single
 * recording's rows are named so too); their times on the controller's
 * clock, each file's stored offsets applied, as report -i A -i B gives
 * them (one recording: its own times).  A table of one name with other
 * columns on a later host (another kernel's event) takes the first
 * host's rows only (warned).  The readers stay the caller's.
 */
struct kt_sqldb *kt_sqldb_open_hosts(struct kt_reader **rs, int n);
void kt_sqldb_close(struct kt_sqldb *db);
sqlite3 *kt_sqldb_handle(struct kt_sqldb *db);

/* The tables the file offers, in order (event tables, then the others). */
size_t kt_sqldb_ntables(const struct kt_sqldb *db);
const char *kt_sqldb_table(const struct kt_sqldb *db, size_t i);
/*
 * Whether table i is one the file has: an event table when the file
 * holds records of its event (the first call reads the file once, as
 * kt_sqldb_lost() does), the others always.
 */
bool kt_sqldb_has(struct kt_sqldb *db, size_t i);
/* Its CREATE TABLE statement (the db's); NULL when there is no such table. */
const char *kt_sqldb_create(struct kt_sqldb *db, const char *table);

/* Load these tables now (NULL: every one).  0, -ENOENT, or -errno. */
int kt_sqldb_load(struct kt_sqldb *db, const char *const *tables, size_t n);
/*
 * Events lost in the file, as report --stat counts them: the marks in
 * the data and the record-time counters (true: some uncounted).  The
 * first call reads the file once.
 */
unsigned long long kt_sqldb_lost(struct kt_sqldb *db, bool *unknown);

/*
 * Prepare sql, loading the tables it names that are not loaded yet.
 * 0 with *st (NULL for a blank statement) and *tail at what follows;
 * else -EINVAL with SQLite's message in msg and the byte offset of the
 * error in *at (-1: none), or another -errno from a load.
 */
int kt_sqldb_prepare(struct kt_sqldb *db, const char *sql, sqlite3_stmt **st,
		     const char **tail, char *msg, size_t len, int *at);

/* Write the whole database (every table loaded) to path.  0 or -errno. */
int kt_sqldb_save(struct kt_sqldb *db, const char *path, char *msg, size_t len);

#endif
