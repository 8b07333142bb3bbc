// SPDX-License-Identifier: GPL-2.0
/*
 * libxxhash loaded on first use.  See xxhfns.h.
 */
#include "base/dlfns.h"
#include "push/xxhfns.h"

static struct kt_xxh fns;

#define NAME(f, m) "XXH3_" #f,
#define SLOT(f, m) &fns.m,
static const char *const names[] = { KT_XXH_FNS(NAME) };
static void *const slots[] = { KT_XXH_FNS(SLOT) };

/* Debian's libxxhash0. */
static struct kt_dl_lib lib = {
	.soname = "libxxhash.so.0", .names = names, .slots = slots,
	.n = sizeof(names) / sizeof(names[0]),
};

const struct kt_xxh *kt_xxh_get(void)
{
	return kt_dl_once(&lib) ? &fns : NULL;
}

const char *kt_xxh_error(void)
{
	return lib.why;
}
