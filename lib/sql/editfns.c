// SPDX-License-Identifier: GPL-2.0
/*
 * libedit loaded when sql's shell starts.  See editfns.h.
 */
#include "base/dlfns.h"
#include "sql/editfns.h"

static struct kt_editline fns;

static const char *const names[] = { "readline", "add_history", "using_history" };
static void *const slots[] = { &fns.readline, &fns.add_history, &fns.using_history };

/* Debian's libedit2. */
static struct kt_dl_lib lib = {
	.soname = "libedit.so.2", .names = names, .slots = slots,
	.n = sizeof(names) / sizeof(names[0]),
};

const struct kt_editline *kt_editline_get(void)
{
	return kt_dl_once(&lib) ? &fns : NULL;
}

const char *kt_editline_error(void)
{
	return lib.why;
}
