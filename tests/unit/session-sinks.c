// SPDX-License-Identifier: GPL-2.0
/*
 * session-sinks: kt_session_new() owns the sinks it is given from the
 * call on, even when it refuses them: one past KT_SESSION_SINKS is
 * refused with E2BIG, and a sink whose constructor failed (NULL state)
 * with ENOMEM, and in both cases every sink given is freed exactly once
 * (the session's "Adding a sink" rule, session.h).  No command attaches
 * that many sinks yet, so only this driver reaches the refusal.
 * Prints "ok".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "live/session/session.h"
#include "live/session/session-priv.h"
#include "live/session/sink.h"

#define GIVEN	(KT_SESSION_SINKS + 1)

static int freed[GIVEN];
static int failed;

static void count_free(void *state)
{
	freed[(int *)state - freed]++;
}

static const struct kt_sink_ops counted_ops = {
	.name = "counted",
	.free = count_free,
};

static void check(int line, size_t n, int null_at, int want_errno)
{
	struct kt_sink sinks[GIVEN];
	struct kt_session_config cfg;
	struct kt_session *s;
	size_t i;

	memset(freed, 0, sizeof(freed));
	memset(&cfg, 0, sizeof(cfg));
	for (i = 0; i < n; i++) {
		sinks[i].ops = &counted_ops;
		sinks[i].state = (int)i == null_at ? NULL : &freed[i];
	}
	cfg.sinks = sinks;
	cfg.nsinks = n;
	errno = 0;
	s = kt_session_new(&cfg);
	if (s || errno != want_errno) {
		fprintf(stderr, "session-sinks: line %d: session %p, errno %d (%s), want NULL, %d\n",
			line, (void *)s, errno, strerror(errno), want_errno);
		failed = 1;
		kt_session_free(s);
		return;
	}
	for (i = 0; i < n; i++) {
		if (freed[i] != ((int)i != null_at)) {
			fprintf(stderr, "session-sinks: line %d: sink %zu freed %d times\n",
				line, i, freed[i]);
			failed = 1;
		}
	}
}

int main(void)
{
	/* One past the limit: all freed, E2BIG. */
	check(__LINE__, GIVEN, -1, E2BIG);
	/* A failed constructor among them: the others freed, ENOMEM. */
	check(__LINE__, 3, 1, ENOMEM);
	check(__LINE__, 1, 0, ENOMEM);
	if (failed)
		return 1;
	puts("ok");
	return 0;
}
