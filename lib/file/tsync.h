/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A remote recording's trace clock against its controller's: the text
 * of KT_OPT_KTRACE_TSYNC (file/tracedat.h) read, and a record's time on
 * the controller's clock.  lib/net/remote.c writes the text.
 */
#ifndef KT_FILE_TSYNC_H
#define KT_FILE_TSYNC_H

#include <stddef.h>

/* One round trip: at trace time ts the controller read ts + offset, +-bound. */
struct kt_tsync_measure {
	unsigned long long ts;
	long long offset;
	unsigned long long bound;
};

struct kt_tsync {
	char agent[64], agent_clock[32];	/* "" when not said */
	char controller[64], controller_clock[32];
	struct kt_tsync_measure *m;	/* in the order of ts */
	size_t n;
	unsigned long long bound;	/* the widest of the measures' */
};

/*
 * Parse text: 0, -ENOENT when it holds no measure, -ENOMEM.  Lines that
 * do not parse are skipped (a newer writer's).  Free with kt_tsync_free().
 */
int kt_tsync_parse(const char *text, struct kt_tsync *t);
void kt_tsync_free(struct kt_tsync *t);
/*
 * The offset to add to trace time ts for the controller's clock: the
 * measures' offsets interpolated linearly between the two around ts (a
 * clock that drifts), the nearest one's outside them.
 */
long long kt_tsync_offset(const struct kt_tsync *t, unsigned long long ts);

#endif
