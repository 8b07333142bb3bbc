// SPDX-License-Identifier: GPL-2.0
/*
 * The trace clock against realtime.  See wallclock.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file/wallclock.h"

size_t kt_wallclock_format(const struct kt_wallclock *w, char *buf, size_t len)
{
	const struct kt_wallpoint *p[2] = { &w->start, &w->end };
	static const char *const names[2] = { "start", "end" };
	size_t at = 0;
	int i, n;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (w->boot_id[0]) {
		n = snprintf(buf, len, "boot_id %s\n", w->boot_id);
		at = n > 0 && (size_t)n < len ? (size_t)n : 0;
	}
	for (i = 0; i < 2; i++) {
		if (!p[i]->known)
			continue;
		n = snprintf(buf + at, len - at, "%s %llu %lld %llu\n", names[i],
			     p[i]->trace, p[i]->real, p[i]->window);
		if (n > 0 && (size_t)n < len - at)
			at += (size_t)n;
		else
			buf[at] = '\0';
	}
	return at;
}

int kt_wallclock_parse(const char *text, struct kt_wallclock *w)
{
	const char *line;
	struct kt_wallpoint *p;
	char word[16];
	int ret = 0;

	memset(w, 0, sizeof(*w));
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (sscanf(line, "%15s", word) != 1)
			continue;
		if (!strcmp(word, "boot_id")) {
			if (sscanf(line, "boot_id %39[-0-9a-fA-F]", w->boot_id) != 1)
				ret = -EINVAL;
			continue;
		}
		p = !strcmp(word, "start") ? &w->start : !strcmp(word, "end") ? &w->end : NULL;
		if (!p)
			continue;	/* a line a newer ktrace added */
		if (sscanf(line + strlen(word), "%llu %lld %llu", &p->trace, &p->real,
			   &p->window) == 3)
			p->known = true;
		else
			ret = -EINVAL;
	}
	return ret;
}

bool kt_wallclock_known(const struct kt_wallclock *w)
{
	return w->start.known || w->end.known;
}

long long kt_wallclock_at(const struct kt_wallclock *w, unsigned long long ts)
{
	const struct kt_wallpoint *a = &w->start, *b = &w->end;
	long long off_a, off_b;
	double f;

	if (!a->known)
		a = b;
	if (!b->known)
		b = a;
	off_a = a->real - (long long)a->trace;
	off_b = b->real - (long long)b->trace;
	if (b->trace <= a->trace || ts <= a->trace)
		return (long long)ts + off_a;
	if (ts >= b->trace)
		return (long long)ts + off_b;
	f = (double)(ts - a->trace) / (double)(b->trace - a->trace);
	return (long long)ts + off_a + (long long)(f * (double)(off_b - off_a));
}
