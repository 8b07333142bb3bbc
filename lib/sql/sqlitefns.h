/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SQLite functions ktrace sql uses, from Debian's libsqlite3.so.0
 * loaded on first use (base/dlfns.h) rather than linked: linked, its
 * 1,290 symbol relocations (the library is built to bind them all at
 * load) were 45% of the dynamic linker's work at every ktrace command's
 * start, 13% of the instructions of a report of a small file, where only
 * sql needs it.  The calls read SQ(prepare_v2)(...) for
 * sqlite3_prepare_v2(...).
 */
#ifndef KT_SQL_SQLITEFNS_H
#define KT_SQL_SQLITEFNS_H

#include <sqlite3.h>

#define KT_SQLITE_FNS(X) \
	X(bind_int) \
	X(bind_int64) \
	X(bind_null) \
	X(bind_text) \
	X(clear_bindings) \
	X(close) \
	X(column_count) \
	X(column_double) \
	X(column_int64) \
	X(column_name) \
	X(column_text) \
	X(column_type) \
	X(complete) \
	X(config) \
	X(errmsg) \
	X(error_offset) \
	X(exec) \
	X(finalize) \
	X(free) \
	X(mprintf) \
	X(open_v2) \
	X(prepare_v2) \
	X(prepare_v3) \
	X(reset) \
	X(step)

struct kt_sqlite {
	/* __typeof__ keeps each pointer's type the header's own. */
#define KT_SQLITE_PTR(f) __typeof__(sqlite3_##f) *f;
	KT_SQLITE_FNS(KT_SQLITE_PTR)
#undef KT_SQLITE_PTR
};

/*
 * SQLite's functions, loaded once for the process: NULL on failure, the
 * reason in kt_sqlite_error().
 */
const struct kt_sqlite *kt_sqlite_get(void);
/* Why kt_sqlite_get() failed: "libsqlite3.so.0: cannot open shared object file...". */
const char *kt_sqlite_error(void);

/*
 * sqlite3_fn, once kt_sqlite_get() has succeeded (kt_sqldb_open() calls
 * it first): a plain pointer, as the row loops bind millions of values.
 */
extern const struct kt_sqlite *kt_sqlite_fns;
#define SQ(fn)	(kt_sqlite_fns->fn)

#endif
