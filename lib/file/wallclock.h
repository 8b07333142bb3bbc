/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's trace clock against CLOCK_REALTIME: the text of
 * KT_OPT_KTRACE_CLOCK (file/tracedat.h), made and read here only, and
 * the wall-clock time of a record's timestamp.
 */
#ifndef KT_FILE_WALLCLOCK_H
#define KT_FILE_WALLCLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* One measurement: the trace clock and realtime (ns) at one moment. */
struct kt_wallpoint {
	bool known;
	unsigned long long trace;
	long long real;
	unsigned long long window;	/* how wide the realtime reads were */
};

struct kt_wallclock {
	char boot_id[40];		/* "" when unknown */
	struct kt_wallpoint start, end;
};

/* The option's text of w into buf.  The bytes written, without the NUL. */
size_t kt_wallclock_format(const struct kt_wallclock *w, char *buf, size_t len);
/* Parse text (NULL: nothing known).  0, or -EINVAL for a damaged text. */
int kt_wallclock_parse(const char *text, struct kt_wallclock *w);
/* Whether any measurement is known. */
bool kt_wallclock_known(const struct kt_wallclock *w);
/*
 * The realtime (ns since the epoch) of trace time ts: the start's offset,
 * drifting linearly to the end's between the two (a clock that ran at a
 * slightly different rate), the nearer one's outside them.
 */
long long kt_wallclock_at(const struct kt_wallclock *w, unsigned long long ts);

#endif
