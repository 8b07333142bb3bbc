// SPDX-License-Identifier: GPL-2.0
/*
 * Event formats parsed when their events are first wanted.
 *
 * libtraceevent's parse of a format is the bulk of opening a small file
 * (a tokeniser that allocates every token: 200-300 k instructions a
 * format), and a file holds formats of events it has no records of:
 * trace-cmd stores every event of the kernel (about 2,000), ktrace and
 * trace-cmd the ftrace system's own (18 on 6.18) whatever was recorded.
 * So the reader keeps each format's text with its name and ID
 * (kt_lazyfmt_add) and parses it when:
 *   - a record of its ID comes (the decoder: kt_reader_event_want());
 *   - it is asked for by name (kt_reader_event_named());
 *   - anything takes the whole tep (kt_reader_tep(): every format, so
 *     every caller that lists or searches the events sees them all).
 * A format whose text does not begin "name: N\nID: I\n" is parsed at the
 * open, as before.  One that fails to parse when it is wanted costs its
 * records (the decoder reports them as of an unknown event) with one
 * warning, not the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/log.h"
#include "file/reader-int.h"

struct deferred {
	char *system;
	char *buf;		/* the text, NUL after it; NULL once parsed */
	uint64_t size;
	int id;
	char name[MAX_NAME];
};

struct kt_lazyfmt {
	struct kt_reader *r;
	struct deferred *d;
	size_t n, cap;
	size_t left;		/* how many are not parsed yet */
	unsigned int gen;	/* bumped at each parse */
};

/* "name: N\nID: I\n" at the start of buf: 0, or -1 for another shape. */
static int format_head(const char *buf, char *name, size_t len, int *id)
{
	const char *nl;
	char *end;
	long v;

	if (strncmp(buf, "name: ", 6))
		return -1;
	buf += 6;
	nl = strchr(buf, '\n');
	if (!nl || nl == buf || (size_t)(nl - buf) >= len || strncmp(nl + 1, "ID: ", 4))
		return -1;
	memcpy(name, buf, (size_t)(nl - buf));
	name[nl - buf] = '\0';
	v = strtol(nl + 5, &end, 10);
	if (end == nl + 5 || *end != '\n' || v < 0 || v > 65535)
		return -1;
	*id = (int)v;
	return 0;
}

int kt_lazyfmt_add(struct kt_reader *r, const char *system, char *buf, uint64_t size)
{
	struct kt_lazyfmt *l = r->lazy;
	struct deferred *d;
	char name[MAX_NAME];
	int id;

	if (format_head(buf, name, sizeof(name), &id))
		return 1;
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
		l->r = r;
		r->lazy = l;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;

		d = realloc(l->d, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		l->d = d;
		l->cap = cap;
	}
	d = &l->d[l->n];
	d->system = strdup(system);
	if (!d->system)
		return -ENOMEM;
	d->buf = buf;
	d->size = size;
	d->id = id;
	memcpy(d->name, name, sizeof(name));
	l->n++;
	l->left++;
	return 0;
}

/* Parse d (once): a warning when its text gives no event. */
static void parse(struct kt_lazyfmt *l, struct deferred *d)
{
	const char *why;
	int ret;

	if (!d->buf)
		return;
	ret = kt_format_parse(l->r, d->system, d->buf, d->size, &why);
	if (ret)
		kt_log(l->r->quiet ? KT_LOG_DEBUG : KT_LOG_WARN,
		       "'%s': the format of event %s:%s (id %d) does not parse (%s); its records are left out",
		       l->r->path, d->system, d->name, d->id,
		       why ? why : "libtraceevent rejects it");
	free(d->buf);
	d->buf = NULL;
	l->left--;
	l->gen++;
}

void kt_lazyfmt_all(struct kt_lazyfmt *l)
{
	size_t i;

	for (i = 0; l && l->left && i < l->n; i++)
		parse(l, &l->d[i]);
}

void kt_lazyfmt_free(struct kt_lazyfmt *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->d[i].system);
		free(l->d[i].buf);
	}
	free(l->d);
	free(l);
}

int kt_reader_event_want(const struct kt_reader *r, int id)
{
	struct kt_lazyfmt *l = r->lazy;
	unsigned int gen = l ? l->gen : 0;
	size_t i;

	for (i = 0; l && l->left && i < l->n; i++)
		if (l->d[i].id == id)
			parse(l, &l->d[i]);
	return l ? (int)(l->gen - gen) : 0;
}

struct tep_event *kt_reader_event_named(const struct kt_reader *r, const char *system,
					const char *name)
{
	struct kt_lazyfmt *l = r->lazy;
	size_t i;

	for (i = 0; l && l->left && i < l->n; i++)
		if (!strcmp(l->d[i].name, name) && !strcmp(l->d[i].system, system))
			parse(l, &l->d[i]);
	return tep_find_event_by_name(r->tep, system, name);
}

int kt_reader_event_id(const struct kt_reader *r, const char *system, const char *name)
{
	struct kt_lazyfmt *l = r->lazy;
	struct tep_event *e = tep_find_event_by_name(r->tep, system, name);
	size_t i;

	if (e)
		return e->id;
	for (i = 0; l && l->left && i < l->n; i++)
		if (l->d[i].buf && !strcmp(l->d[i].name, name) &&
		    !strcmp(l->d[i].system, system))
			return l->d[i].id;
	return -1;
}

void kt_reader_events_some(const struct kt_reader *r)
{
	struct kt_lazyfmt *l = r->lazy;
	size_t i;

	if (tep_get_events_count(r->tep) > 0)
		return;
	for (i = 0; l && l->left && i < l->n && !tep_get_events_count(r->tep); i++)
		parse(l, &l->d[i]);
}

unsigned int kt_reader_formats_gen(const struct kt_reader *r)
{
	return r->lazy ? r->lazy->gen : 0;
}
