// SPDX-License-Identifier: GPL-2.0
/*
 * libsqlite3 loaded on first use.  See sqlitefns.h.
 */
#include "base/dlfns.h"
#include "sql/sqlitefns.h"

static struct kt_sqlite fns;
const struct kt_sqlite *kt_sqlite_fns;

#define NAME(f) "sqlite3_" #f,
#define SLOT(f) &fns.f,
static const char *const names[] = { KT_SQLITE_FNS(NAME) };
static void *const slots[] = { KT_SQLITE_FNS(SLOT) };

/* Debian's libsqlite3-0. */
static struct kt_dl_lib lib = {
	.soname = "libsqlite3.so.0", .names = names, .slots = slots,
	.n = sizeof(names) / sizeof(names[0]),
};

const struct kt_sqlite *kt_sqlite_get(void)
{
	if (kt_dl_once(&lib))
		kt_sqlite_fns = &fns;
	return kt_sqlite_fns;
}

const char *kt_sqlite_error(void)
{
	return lib.why;
}
