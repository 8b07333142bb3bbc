// SPDX-License-Identifier: GPL-2.0
/*
 * Thread to process.  See tgidmap.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file/tgidmap.h"

static int cmp_pid(const void *a, const void *b)
{
	const struct kt_tgid_pair *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int kt_tgidmap_load(struct kt_tgidmap *m, const char *text)
{
	const char *p = text;
	size_t cap = 0;
	char *end;
	long pid, tgid;

	*m = (struct kt_tgidmap){ .stored = text != NULL };
	while (p && *p) {
		pid = strtol(p, &end, 10);
		tgid = end != p ? strtol(end, &end, 10) : 0;
		if (pid > 0 && tgid > 0 && pid <= 0x7fffffff && tgid <= 0x7fffffff) {
			if (m->n == cap) {
				struct kt_tgid_pair *v;

				cap = cap ? 2 * cap : 256;
				v = realloc(m->v, cap * sizeof(*v));
				if (!v) {
					kt_tgidmap_free(m);
					return -ENOMEM;
				}
				m->v = v;
			}
			m->v[m->n++] = (struct kt_tgid_pair){ (int)pid, (int)tgid };
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_pid);
	return 0;
}

int kt_tgidmap_of(const struct kt_tgidmap *m, int pid)
{
	struct kt_tgid_pair key = { .pid = pid }, *hit;

	if (!m->n)
		return pid;
	hit = bsearch(&key, m->v, m->n, sizeof(*m->v), cmp_pid);
	return hit ? hit->tgid : pid;
}

void kt_tgidmap_free(struct kt_tgidmap *m)
{
	free(m->v);
	*m = (struct kt_tgidmap){ 0 };
}
