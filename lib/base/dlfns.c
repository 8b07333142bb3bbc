// SPDX-License-Identifier: GPL-2.0
/*
 * Libraries loaded on first use: see dlfns.h.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "base/dlfns.h"

bool kt_dl_load(const char *soname, int flags, const char *const *names,
		void *const *slots, size_t n, char *why, size_t len)
{
	void *h = dlopen(soname, flags), *p;
	size_t i;

	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return false;
	}
	for (i = 0; i < n; i++) {
		p = dlsym(h, names[i]);
		if (!p) {
			snprintf(why, len, "%s has no %s", soname, names[i]);
			return false;
		}
		*(void **)slots[i] = p;
	}
	return true;
}
