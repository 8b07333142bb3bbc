// SPDX-License-Identifier: GPL-2.0
/* Recordings of several hosts merged on the controller's clock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "decode/decoder.h"
#include "decode/hosts.h"
#include "file/reader.h"
#include "file/tsync.h"

struct host {
	struct kt_reader *r;
	struct kt_decoder *d;
	const char *path;
	char stored[256];	/* its host name, or its path */
	char name[256];		/* its lines' */
	bool remote;
	struct kt_tsync ts;
	struct kt_event ev;
	unsigned long long at;	/* ev's time on the controller's clock */
	bool has;		/* ev holds a record */
};

struct kt_hosts {
	struct host *h;
	int n;
};

bool kt_hosts_is_remote(const struct kt_reader *r)
{
	return kt_reader_tsync(r) != NULL;
}

const char *kt_hosts_stored_name(const struct kt_reader *r, char *buf, int len)
{
	const char *un = kt_reader_uname(r), *a, *b;

	/* "Linux NODENAME release machine", as trace-cmd stores it. */
	if (!un || !(a = strchr(un, ' ')))
		return NULL;
	a++;
	b = strchr(a, ' ');
	if (!b)
		b = a + strlen(a);
	if (b == a || b - a >= len)
		return NULL;
	snprintf(buf, (size_t)len, "%.*s", (int)(b - a), a);
	return buf;
}

struct kt_hosts *kt_hosts_new(void)
{
	return calloc(1, sizeof(struct kt_hosts));
}

void kt_hosts_free(struct kt_hosts *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		kt_tsync_free(&h->h[i].ts);
	free(h->h);
	free(h);
}

int kt_hosts_add(struct kt_hosts *h, struct kt_reader *r, struct kt_decoder *d,
		 const char *path)
{
	struct host *v = realloc(h->h, sizeof(*v) * (size_t)(h->n + 1)), *x;
	const char *text = kt_reader_tsync(r);
	int i, j, ret;

	if (!v)
		return -ENOMEM;
	h->h = v;
	x = &v[h->n];
	memset(x, 0, sizeof(*x));
	x->r = r;
	x->d = d;
	x->path = path;
	if (text) {
		ret = kt_tsync_parse(text, &x->ts);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			kt_warn("'%s' is a remote recording without clock offsets: its times are taken as they are",
				path);
		x->remote = !ret;
	}
	if (!kt_hosts_stored_name(r, x->stored, sizeof(x->stored)))
		snprintf(x->stored, sizeof(x->stored), "%s", path);
	h->n++;
	/* Each by its stored name, unless another has it: then by its file's. */
	for (i = 0; i < h->n; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "%s", v[i].stored);
		for (j = 0; j < h->n; j++)
			if (j != i && !strcmp(v[i].stored, v[j].stored))
				snprintf(v[i].name, sizeof(v[i].name), "%s", v[i].path);
	}
	return 0;
}

int kt_hosts_count(const struct kt_hosts *h)
{
	return h->n;
}

void kt_hosts_info(const struct kt_hosts *h, int i, struct kt_host_info *info)
{
	const struct host *x = &h->h[i];

	memset(info, 0, sizeof(*info));
	info->name = x->name;
	info->path = x->path;
	info->remote = x->remote;
	info->controller = x->remote ? x->ts.controller : "";
	info->controller_clock = x->remote ? x->ts.controller_clock : "";
	if (!x->remote)
		return;
	info->first = x->ts.m[0].offset;
	info->last = x->ts.m[x->ts.n - 1].offset;
	info->measures = (unsigned int)x->ts.n;
	info->bound = x->ts.bound;
}

static unsigned long long host_time(const struct host *x, unsigned long long ts)
{
	long long off = x->remote ? kt_tsync_offset(&x->ts, ts) : 0;

	return off < 0 && (unsigned long long)-off > ts ? 0 : ts + (unsigned long long)off;
}

unsigned long long kt_hosts_time(const struct kt_hosts *h, int i, unsigned long long ts)
{
	return host_time(&h->h[i], ts);
}

/* The host's next record, its time moved; false at its end. */
static bool host_next(struct host *x)
{
	x->has = kt_decoder_next(x->d, &x->ev) > 0;
	if (!x->has)
		return false;
	x->at = host_time(x, x->ev.record->ts);
	return true;
}

int kt_hosts_run(struct kt_hosts *h, kt_host_event_fn fn, void *arg)
{
	int i, best, ret;

	for (i = 0; i < h->n; i++)
		host_next(&h->h[i]);
	for (;;) {
		best = -1;
		for (i = 0; i < h->n; i++)
			if (h->h[i].has && (best < 0 || h->h[i].at < h->h[best].at))
				best = i;
		if (best < 0)
			return 0;
		h->h[best].ev.record->ts = h->h[best].at;
		ret = fn(best, &h->h[best].ev, arg);
		if (ret < 0)
			return ret;
		host_next(&h->h[best]);
	}
}
