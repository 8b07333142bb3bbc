// SPDX-License-Identifier: GPL-2.0
/*
 * libncursesw loaded on first use.  See cursesfns.h.
 */
#define KT_CURSES_LOADER
#include "base/cursesfns.h"
#include "base/dlfns.h"

static struct kt_curses fns;
const struct kt_curses *kt_curses_fns;

#define NAME(f) #f,
#define SLOT(f) &fns.f,
static const char *const names[] = { KT_CURSES_FNS(NAME) KT_CURSES_VARS(NAME) };
static void *const slots[] = { KT_CURSES_FNS(SLOT) KT_CURSES_VARS(SLOT) };

/* Debian's libncursesw6; it brings libtinfo.so.6. */
static struct kt_dl_lib lib = {
	.soname = "libncursesw.so.6", .names = names, .slots = slots,
	.n = sizeof(names) / sizeof(names[0]),
};

const struct kt_curses *kt_curses_get(void)
{
	if (kt_dl_once(&lib))
		kt_curses_fns = &fns;
	return kt_curses_fns;
}

const char *kt_curses_error(void)
{
	return lib.why;
}
