// SPDX-License-Identifier: GPL-2.0
/* A remote recording's clock offsets, KT_OPT_KTRACE_TSYNC's text, read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/tsync.h"

static int by_ts(const void *a, const void *b)
{
	const struct kt_tsync_measure *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* "agent HOST CLOCK" or "controller HOST CLOCK". */
static void who(const char *line, const char *name, char *host, size_t hlen,
		char *clock, size_t clen)
{
	char h[64], c[32];
	size_t n = strlen(name);

	if (strncmp(line, name, n) || line[n] != ' ' ||
	    sscanf(line + n + 1, "%63s %31s", h, c) != 2)
		return;
	snprintf(host, hlen, "%s", h);
	snprintf(clock, clen, "%s", c);
}

int kt_tsync_parse(const char *text, struct kt_tsync *t)
{
	struct kt_tsync_measure m, *v;
	const char *p;
	size_t cap = 0;
	char when[8];

	memset(t, 0, sizeof(*t));
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		who(p, "agent", t->agent, sizeof(t->agent), t->agent_clock,
		    sizeof(t->agent_clock));
		who(p, "controller", t->controller, sizeof(t->controller),
		    t->controller_clock, sizeof(t->controller_clock));
		if (sscanf(p, "%7s %llu %lld %llu", when, &m.ts, &m.offset, &m.bound) != 4 ||
		    (strcmp(when, "start") && strcmp(when, "during") && strcmp(when, "end")))
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(t->m, cap * sizeof(*v));
			if (!v) {
				kt_tsync_free(t);
				return -ENOMEM;
			}
			t->m = v;
		}
		t->m[t->n++] = m;
		if (m.bound > t->bound)
			t->bound = m.bound;
	}
	if (!t->n) {
		kt_tsync_free(t);
		return -ENOENT;
	}
	qsort(t->m, t->n, sizeof(*t->m), by_ts);
	return 0;
}

void kt_tsync_free(struct kt_tsync *t)
{
	free(t->m);
	t->m = NULL;
	t->n = 0;
}

long long kt_tsync_offset(const struct kt_tsync *t, unsigned long long ts)
{
	const struct kt_tsync_measure *a, *b;
	size_t lo = 0, hi;
	long double f;

	if (!t->n)
		return 0;
	if (ts <= t->m[0].ts)
		return t->m[0].offset;
	if (ts >= t->m[t->n - 1].ts)
		return t->m[t->n - 1].offset;
	/* The last measure at or before ts: m[lo].ts <= ts < m[hi].ts. */
	hi = t->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->m[mid].ts <= ts)
			lo = mid;
		else
			hi = mid;
	}
	a = &t->m[lo];
	b = &t->m[hi];
	f = (long double)(ts - a->ts) / (long double)(b->ts - a->ts);
	return a->offset + (long long)(f * (long double)(b->offset - a->offset));
}
