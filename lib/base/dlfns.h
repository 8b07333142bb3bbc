/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A library loaded on first use rather than linked, for the commands that
 * alone need it (push's libcurl, sql's SQLite and line editor): linked,
 * each library's symbol binding is paid at every ktrace command's start.
 */
#ifndef KT_BASE_DLFNS_H
#define KT_BASE_DLFNS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * dlopen soname with flags, then each names[i] (n of them) into the
 * function pointer *slots[i].  false, the reason in why (len bytes), when
 * the library or one of its functions is missing.  The library is never
 * closed, as when it was linked.
 */
bool kt_dl_load(const char *soname, int flags, const char *const *names,
		void *const *slots, size_t n, char *why, size_t len);

/* A library loaded once for the process (kt_dl_once()). */
struct kt_dl_lib {
	const char *soname;
	const char *const *names;	/* n functions or variables */
	void *const *slots;		/* where each goes */
	size_t n;
	bool tried, loaded;
	char why[256];			/* why it did not load */
};

/*
 * lib loaded (RTLD_NOW | RTLD_LOCAL), its names into its slots, the first
 * time any thread asks: whether it loaded (the reason in lib->why).
 */
bool kt_dl_once(struct kt_dl_lib *lib);

#endif
