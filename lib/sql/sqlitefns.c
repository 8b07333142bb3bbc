// SPDX-License-Identifier: GPL-2.0
/*
 * libsqlite3 loaded on first use.  See sqlitefns.h.
 */
#include <dlfcn.h>
#include <pthread.h>

#include "base/dlfns.h"
#include "sql/sqlitefns.h"

/* The soname of Debian's libsqlite3-0. */
#define SONAME	"libsqlite3.so.0"

static struct kt_sqlite fns;
const struct kt_sqlite *kt_sqlite_fns;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define NAME(f) "sqlite3_" #f,
#define SLOT(f) &fns.f,

static void load(void)
{
	static const char *const names[] = { KT_SQLITE_FNS(NAME) };
	void *const slots[] = { KT_SQLITE_FNS(SLOT) };

	if (kt_dl_load(SONAME, RTLD_NOW | RTLD_LOCAL, names, slots,
		       sizeof(names) / sizeof(names[0]), why, sizeof(why)))
		kt_sqlite_fns = &fns;
}

const struct kt_sqlite *kt_sqlite_get(void)
{
	pthread_once(&once, load);
	return kt_sqlite_fns;
}

const char *kt_sqlite_error(void)
{
	return why;
}
