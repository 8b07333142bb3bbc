// SPDX-License-Identifier: GPL-2.0
/*
 * Libraries loaded on first use: see dlfns.h.
 */
#include <dlfcn.h>
#include <pthread.h>
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

/* One lock for every library's first load: each is loaded once, rarely. */
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

bool kt_dl_once(struct kt_dl_lib *lib)
{
	bool loaded;

	pthread_mutex_lock(&once_lock);
	if (!lib->tried) {
		lib->tried = true;
		lib->loaded = kt_dl_load(lib->soname, RTLD_NOW | RTLD_LOCAL,
					 lib->names, lib->slots, lib->n,
					 lib->why, sizeof(lib->why));
	}
	loaded = lib->loaded;
	pthread_mutex_unlock(&once_lock);
	return loaded;
}
