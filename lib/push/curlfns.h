/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libcurl functions push uses, from Debian's libcurl.so.4 loaded on
 * first use rather than linked: linked, it and the 30 libraries it
 * brings (TLS, Kerberos, LDAP, SSH...) cost every ktrace command 6.5 ms
 * of its start (12 ms for `ktrace --version`, against 5 without), and
 * push loads it on a thread while the file is opened, not before.
 */
#ifndef KT_PUSH_CURLFNS_H
#define KT_PUSH_CURLFNS_H

#include <curl/curl.h>

struct kt_curl {
	/* __typeof__ keeps each pointer's type the header's own. */
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_escape) *easy_escape;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_free) *free;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
};

/*
 * Start loading libcurl on a thread of its own; nothing when it is loaded
 * or loading.  kt_curl_settle() must follow before the process exits.
 */
void kt_curl_preload(void);
/* Wait for a load kt_curl_preload() started (kt_ch_free() does). */
void kt_curl_settle(void);
/*
 * libcurl's functions, loaded and initialised once for the process (the
 * caller waits for a load under way): NULL on failure, the reason in
 * kt_curl_error().
 */
const struct kt_curl *kt_curl_get(void);
/* Why kt_curl_get() failed: "libcurl.so.4: cannot open shared object file...". */
const char *kt_curl_error(void);

#endif
