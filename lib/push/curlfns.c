// SPDX-License-Identifier: GPL-2.0
/*
 * libcurl loaded on first use.  See curlfns.h.
 *
 * The library is opened once and never closed: curl_global_cleanup is
 * left to the process's exit, as it was when linked.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "push/curlfns.h"

/* The soname of Debian's libcurl4 (and of libcurl everywhere since 7.16). */
#define SONAME	"libcurl.so.4"

static struct kt_curl fns;
static bool loaded;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;
/*
 * The preloading thread, joined before the process may exit: a process
 * that exits while another thread is inside dlopen() or a library's
 * initialisation corrupts its heap (a push of a latency trace, refused
 * at once, did).
 */
static pthread_mutex_t pre_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t pre_th;
static bool pre_running;

/* sym of h into *slot: false (why set) when it is missing. */
static bool take(void *h, const char *sym, void *slot)
{
	void *p = dlsym(h, sym);

	if (!p) {
		snprintf(why, sizeof(why), "%s has no %s", SONAME, sym);
		return false;
	}
	*(void **)slot = p;
	return true;
}

static void load(void)
{
	__typeof__(curl_global_init) *global_init;
	/*
	 * Lazy: the functions of libcurl's 30 libraries that push never
	 * calls (TLS, Kerberos, LDAP...) are not bound (1-1.5 ms less CPU
	 * than RTLD_NOW, timed alone).
	 */
	void *h = dlopen(SONAME, RTLD_LAZY | RTLD_LOCAL);

	if (!h) {
		snprintf(why, sizeof(why), "%s", dlerror());
		return;
	}
	if (!take(h, "curl_global_init", &global_init) ||
	    !take(h, "curl_easy_init", &fns.easy_init) ||
	    !take(h, "curl_easy_setopt", &fns.easy_setopt) ||
	    !take(h, "curl_easy_perform", &fns.easy_perform) ||
	    !take(h, "curl_easy_getinfo", &fns.easy_getinfo) ||
	    !take(h, "curl_easy_cleanup", &fns.easy_cleanup) ||
	    !take(h, "curl_easy_escape", &fns.easy_escape) ||
	    !take(h, "curl_easy_strerror", &fns.easy_strerror) ||
	    !take(h, "curl_free", &fns.free) ||
	    !take(h, "curl_slist_append", &fns.slist_append) ||
	    !take(h, "curl_slist_free_all", &fns.slist_free_all))
		return;
	/* Once for the process, before any thread makes a handle. */
	if (global_init(CURL_GLOBAL_DEFAULT)) {
		snprintf(why, sizeof(why), "curl_global_init failed");
		return;
	}
	loaded = true;
}

const struct kt_curl *kt_curl_get(void)
{
	pthread_once(&once, load);
	return loaded ? &fns : NULL;
}

const char *kt_curl_error(void)
{
	return why;
}

static void *preload(void *arg)
{
	(void)arg;
	kt_curl_get();
	return NULL;
}

void kt_curl_preload(void)
{
	static bool started;

	pthread_mutex_lock(&pre_mu);
	if (!started) {
		started = true;
		pre_running = !pthread_create(&pre_th, NULL, preload, NULL);
	}
	pthread_mutex_unlock(&pre_mu);
}

void kt_curl_settle(void)
{
	pthread_mutex_lock(&pre_mu);
	if (pre_running) {
		pthread_join(pre_th, NULL);
		pre_running = false;
	}
	pthread_mutex_unlock(&pre_mu);
}
