// SPDX-License-Identifier: GPL-2.0
/*
 * The per-event-id cache of the analyses.  See evcache.h.
 */
#include <search.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"

static int cmp_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Event ids are small (the kernel counts them up from 1): a table. */
#define DIRECT 65536

void *kt_evcache_get(struct kt_evcache *c, struct tep_event *e)
{
	int id = e->id;
	bool direct = id >= 0 && id < DIRECT;
	void **found;
	int *entry;

	if (direct && c->direct && c->direct[id])
		return c->direct[id];
	if (!direct) {
		found = tfind(&id, &c->tree, cmp_id);
		if (found)
			return *found;
	}
	if (direct && !c->direct) {
		c->direct = calloc(DIRECT, sizeof(*c->direct));
		if (!c->direct)
			return NULL;
	}
	entry = calloc(1, c->size);
	if (!entry)
		return NULL;
	*entry = id;
	c->fill(entry, e);
	if (direct) {
		c->direct[id] = entry;
	} else if (!tsearch(entry, &c->tree, cmp_id)) {
		free(entry);
		return NULL;
	}
	return entry;
}

void kt_evcache_free(struct kt_evcache *c)
{
	size_t i;

	if (c->direct)
		for (i = 0; i < DIRECT; i++)
			free(c->direct[i]);
	free(c->direct);
	c->direct = NULL;
	tdestroy(c->tree, free);
	c->tree = NULL;
}

bool kt_switch_fields_find(struct tep_event *e, struct kt_switch_fields *f)
{
	if (!e->system || strcmp(e->system, "sched") || strcmp(e->name, "sched_switch"))
		return false;
	f->prev_pid = tep_find_field(e, "prev_pid");
	f->prev_state = tep_find_field(e, "prev_state");
	f->next_pid = tep_find_field(e, "next_pid");
	f->prev_comm = tep_find_field(e, "prev_comm");
	f->next_comm = tep_find_field(e, "next_comm");
	return f->prev_pid && f->prev_state && f->next_pid;
}

void kt_field_str(struct tep_format_field *f, struct tep_record *rec,
		  char *out, size_t len)
{
	unsigned long long v;
	const char *s;
	int off, size;
	size_t n = 0;
	bool tail;

	if (!len)
		return;
	out[0] = '\0';
	if (!f)
		return;
	off = f->offset;
	size = f->size;
	/* A __string: its place and length are in the field. */
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (tep_read_number_field(f, rec->data, &v))
			return;
		off = (int)(v & 0xffff);
		size = (int)(v >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	/*
	 * A char x[] of size 0 (ftrace:print's buf): the rest of the record,
	 * its newline left out as report leaves it out.
	 */
	tail = size == 0 && !(f->flags & TEP_FIELD_IS_DYNAMIC);
	if (tail)
		size = rec->size - off;
	if (off < 0 || size <= 0 || off + size > rec->size)
		return;
	s = (const char *)rec->data + off;
	while (n + 1 < len && n < (size_t)size && s[n])
		n++;
	while (tail && n && s[n - 1] == '\n')
		n--;
	memcpy(out, s, n);
	out[n] = '\0';
}
