/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One place every diagnostic goes through.  lib/ never prints to stdout;
 * it reports through kt_log(), which a program (or a test) can redirect.
 */
#ifndef KT_LOG_H
#define KT_LOG_H

#include <stdarg.h>

enum kt_log_level {
	KT_LOG_ERROR,
	KT_LOG_WARN,
	KT_LOG_INFO,
	KT_LOG_DEBUG,
};

typedef void (*kt_log_fn)(enum kt_log_level level, const char *msg);

/* "ktrace record": the subject every message starts with. */
void kt_log_set_prog(const char *prog);
const char *kt_log_prog(void);
/* Messages above this level are dropped (default KT_LOG_INFO). */
void kt_log_set_level(enum kt_log_level max);
/* Replace the default stderr writer; NULL restores it. */
void kt_log_set_handler(kt_log_fn fn);

void kt_log(enum kt_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kt_vlog(enum kt_log_level level, const char *fmt, va_list ap);

#define kt_err(...)   kt_log(KT_LOG_ERROR, __VA_ARGS__)
#define kt_warn(...)  kt_log(KT_LOG_WARN, __VA_ARGS__)
#define kt_info(...)  kt_log(KT_LOG_INFO, __VA_ARGS__)
#define kt_debug(...) kt_log(KT_LOG_DEBUG, __VA_ARGS__)

#endif
