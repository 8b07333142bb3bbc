// SPDX-License-Identifier: GPL-2.0
/*
 * libelf loaded on first use.  See elffns.h.
 */
#define KT_ELF_LOADER
#include "base/dlfns.h"
#include "decode/elffns.h"

static struct kt_elffns fns;
const struct kt_elffns *kt_elffns;

#define NAME(f) #f,
#define SLOT(f) &fns.f,
static const char *const names[] = { KT_ELF_FNS(NAME) };
static void *const slots[] = { KT_ELF_FNS(SLOT) };

/* Debian's libelf1; it brings libz.so.1. */
static struct kt_dl_lib lib = {
	.soname = "libelf.so.1", .names = names, .slots = slots,
	.n = sizeof(names) / sizeof(names[0]),
};

const struct kt_elffns *kt_elffns_get(void)
{
	if (kt_dl_once(&lib))
		kt_elffns = &fns;
	return kt_elffns;
}

const char *kt_elffns_error(void)
{
	return lib.why;
}
