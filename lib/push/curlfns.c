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

#include "base/dlfns.h"
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

static void load(void)
{
	static const char *const names[] = {
		"curl_global_init", "curl_easy_init", "curl_easy_setopt",
		"curl_easy_perform", "curl_easy_getinfo", "curl_easy_cleanup",
		"curl_easy_escape", "curl_easy_strerror", "curl_free",
		"curl_slist_append", "curl_slist_free_all",
	};
	__typeof__(curl_global_init) *global_init;
	void *const slots[] = {
		&global_init, &fns.easy_init, &fns.easy_setopt,
		&fns.easy_perform, &fns.easy_getinfo, &fns.easy_cleanup,
		&fns.easy_escape, &fns.easy_strerror, &fns.free,
		&fns.slist_append, &fns.slist_free_all,
	};

	/*
	 * Lazy: the functions of libcurl's 30 libraries that push never
	 * calls (TLS, Kerberos, LDAP...) are not bound (1-1.5 ms less CPU
	 * than RTLD_NOW, timed alone).
	 */
	if (!kt_dl_load(SONAME, RTLD_LAZY | RTLD_LOCAL, names, slots,
			sizeof(names) / sizeof(names[0]), why, sizeof(why)))
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
