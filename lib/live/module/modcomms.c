// SPDX-License-Identifier: GPL-2.0
/*
 * The names of the tasks in the pages ktrace.ko's buffers gave
 * (kt_modrec_comms()): the process tracer's saved_cmdlines, from the
 * comm fields of its records.  See modrec.h.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbuffer.h>

#include "live/module/modrec-int.h"

/* pid -> name, open addressing; the newest name of a pid wins. */
struct comm_ent {
	int pid;		/* 0: free */
	unsigned long long ts;	/* of the record that named it */
	char comm[16];
};

struct comm_map {
	struct comm_ent *e;
	size_t cap, used;
};

static int comm_put(struct comm_map *m, int pid, unsigned long long ts,
		    const char *comm)
{
	size_t i;

	if (pid <= 0)
		return 0;
	if ((m->used + 1) * 2 > m->cap) {
		struct comm_map g = { .cap = m->cap ? m->cap * 2 : 256 };

		g.e = calloc(g.cap, sizeof(*g.e));
		if (!g.e)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->e[i].pid)
				comm_put(&g, m->e[i].pid, m->e[i].ts, m->e[i].comm);
		free(m->e);
		*m = g;
	}
	for (i = ((unsigned int)pid * 2654435761u) & (m->cap - 1);
	     m->e[i].pid && m->e[i].pid != pid; i = (i + 1) & (m->cap - 1))
		;
	if (!m->e[i].pid)
		m->used++;
	else if (m->e[i].ts > ts)
		return 0;	/* another CPU saw a newer name */
	m->e[i].pid = pid;
	m->e[i].ts = ts;
	memcpy(m->e[i].comm, comm, sizeof(m->e[i].comm));
	m->e[i].comm[sizeof(m->e[i].comm) - 1] = '\0';
	return 0;
}

/* The names in one CPU's pages. */
static int comms_of_cpu(const struct modrec_cpu *c, int page_size,
			const int *ids, const int *offsets, size_t n,
			struct comm_map *m)
{
	struct modrec_cpu *w = (struct modrec_cpu *)c;
	/* The current file's: a rotation's chunks named their own. */
	unsigned long long size = atomic_load(&w->bytes) - atomic_load(&w->base);
	struct kt_modrec_cursor cur = { .fd = c->out_fd, .size = size };
	int ret = -ENOMEM;

	cur.page = malloc(page_size);
	cur.kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
			       KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!cur.page || !cur.kb)
		goto out;
	for (ret = kt_modrec_cursor_load(&cur, page_size); !ret && cur.data;
	     ret = kt_modrec_cursor_next(&cur, page_size)) {
		unsigned int len = kbuffer_event_size(cur.kb);
		uint16_t type;
		int32_t pid;
		size_t i;

		if (len < 8)
			continue;
		memcpy(&type, cur.data, sizeof(type));
		memcpy(&pid, (char *)cur.data + 4, sizeof(pid));
		for (i = 0; i < n; i++)
			if (ids[i] == type && offsets[i] >= 8 &&
			    (unsigned int)offsets[i] + 16 <= len)
				break;
		if (i < n) {
			ret = comm_put(m, pid, cur.ts,
				       (char *)cur.data + offsets[i]);
			if (ret)
				break;
		}
	}
out:
	free(cur.page);
	if (cur.kb)
		kbuffer_free(cur.kb);
	return ret;
}

char *kt_modrec_comms(const struct kt_modrec *mr, const int *ids,
		      const int *offsets, size_t n)
{
	struct comm_map m = { 0 };
	char *text, *p;
	size_t i;
	int cpu, ret = 0;

	for (cpu = 0; !ret && cpu < mr->ncpus; cpu++)
		ret = comms_of_cpu(&mr->cpus[cpu], mr->page_size, ids, offsets,
				   n, &m);
	text = ret ? NULL : malloc(m.used * (24 + 16) + 1);
	if (!text) {
		free(m.e);
		errno = ret ? -ret : ENOMEM;
		return NULL;
	}
	p = text;
	*p = '\0';
	for (i = 0; i < m.cap; i++)
		if (m.e[i].pid && m.e[i].comm[0])
			p += sprintf(p, "%d %s\n", m.e[i].pid, m.e[i].comm);
	free(m.e);
	return text;
}
