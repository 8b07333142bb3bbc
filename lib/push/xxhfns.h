/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libxxhash functions a trace's id is hashed with (traceid.h), from
 * Debian's libxxhash.so.0 loaded on first use (base/dlfns.h) rather than
 * linked: linked, its mapping and page faults were a part of every
 * ktrace command's start, where only push needs it.
 */
#ifndef KT_PUSH_XXHFNS_H
#define KT_PUSH_XXHFNS_H

#include <xxhash.h>

/* XXH3_<name>, and the member that holds it. */
#define KT_XXH_FNS(X) \
	X(createState, create) \
	X(freeState, destroy) \
	X(64bits_reset, reset) \
	X(64bits_update, update) \
	X(64bits_digest, digest)

struct kt_xxh {
	/* __typeof__ keeps each pointer's type the header's own. */
#define KT_XXH_PTR(f, m) __typeof__(XXH3_##f) *m;
	KT_XXH_FNS(KT_XXH_PTR)
#undef KT_XXH_PTR
};

/*
 * libxxhash's functions, loaded once for the process: NULL on failure,
 * the reason in kt_xxh_error().
 */
const struct kt_xxh *kt_xxh_get(void);
/* Why kt_xxh_get() failed: "libxxhash.so.0: cannot open shared object file...". */
const char *kt_xxh_error(void);

#endif
