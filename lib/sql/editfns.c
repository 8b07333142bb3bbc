// SPDX-License-Identifier: GPL-2.0
/*
 * libedit loaded when sql's shell starts.  See editfns.h.
 */
#include <dlfcn.h>
#include <pthread.h>

#include "base/dlfns.h"
#include "sql/editfns.h"

/* The soname of Debian's libedit2. */
#define SONAME	"libedit.so.2"

static struct kt_editline fns;
static const struct kt_editline *loaded;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const char *const names[] = { "readline", "add_history", "using_history" };
	void *const slots[] = { &fns.readline, &fns.add_history, &fns.using_history };

	if (kt_dl_load(SONAME, RTLD_NOW | RTLD_LOCAL, names, slots,
		       sizeof(names) / sizeof(names[0]), why, sizeof(why)))
		loaded = &fns;
}

const struct kt_editline *kt_editline_get(void)
{
	pthread_once(&once, load);
	return loaded;
}

const char *kt_editline_error(void)
{
	return why;
}
