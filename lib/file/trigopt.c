// SPDX-License-Identifier: GPL-2.0
/* The text of a trigger's snapshot's option: see trigopt.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/trigopt.h"

char *kt_trigopt_format(const struct kt_trigopt *t)
{
	char *text;

	if (asprintf(&text, "condition %s\nts %llu\ncpu %d\npid %d\nevent %s\nsuppressed %llu\nmerged %llu\nchained %llu\n",
		     t->condition, (unsigned long long)t->ts, t->cpu, t->pid,
		     t->event, (unsigned long long)t->suppressed,
		     (unsigned long long)t->merged, (unsigned long long)t->chained) < 0)
		return NULL;
	return text;
}

/* The value of line p (after "key "), up to its end, into buf. */
static void value(const char *p, size_t klen, char *buf, size_t len)
{
	size_t n = strcspn(p + klen, "\n");

	snprintf(buf, len, "%.*s", (int)n, p + klen);
}

int kt_trigopt_parse(const char *text, struct kt_trigopt *t)
{
	const char *p;
	char num[32];

	memset(t, 0, sizeof(*t));
	t->cpu = -1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "condition ", 10)) {
			value(p, 10, t->condition, sizeof(t->condition));
		} else if (!strncmp(p, "event ", 6)) {
			value(p, 6, t->event, sizeof(t->event));
		} else if (!strncmp(p, "ts ", 3)) {
			value(p, 3, num, sizeof(num));
			t->ts = strtoull(num, NULL, 10);
		} else if (!strncmp(p, "cpu ", 4)) {
			value(p, 4, num, sizeof(num));
			t->cpu = atoi(num);
		} else if (!strncmp(p, "pid ", 4)) {
			value(p, 4, num, sizeof(num));
			t->pid = atoi(num);
		} else if (!strncmp(p, "suppressed ", 11)) {
			value(p, 11, num, sizeof(num));
			t->suppressed = strtoull(num, NULL, 10);
		} else if (!strncmp(p, "chained ", 8)) {
			value(p, 8, num, sizeof(num));
			t->chained = strtoull(num, NULL, 10);
		} else if (!strncmp(p, "merged ", 7)) {
			value(p, 7, num, sizeof(num));
			t->merged = strtoull(num, NULL, 10);
		}
	}
	return *t->condition ? 0 : -EINVAL;
}
