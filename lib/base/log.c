// SPDX-License-Identifier: GPL-2.0
/*
 * Diagnostics: "ktrace record: cannot open 'x': Permission denied".
 * Errors and warnings share one shape so scripts can grep them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

static const char *log_prog = "ktrace";
static enum kt_log_level log_max = KT_LOG_INFO;
static kt_log_fn log_handler;

void kt_log_set_prog(const char *prog)
{
	log_prog = prog ? prog : "ktrace";
}

const char *kt_log_prog(void)
{
	return log_prog;
}

void kt_log_set_level(enum kt_log_level max)
{
	log_max = max;
}

void kt_log_set_handler(kt_log_fn fn)
{
	log_handler = fn;
}

void kt_vlog(enum kt_log_level level, const char *fmt, va_list ap)
{
	char msg[1024];

	if (level > log_max)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_handler) {
		log_handler(level, msg);
		return;
	}
	/* One write per line, so lines from several processes never interleave. */
	fprintf(stderr, "%s: %s%s\n", log_prog,
		level == KT_LOG_WARN ? "warning: " : "", msg);
}

void kt_log(enum kt_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kt_vlog(level, fmt, ap);
	va_end(ap);
}
