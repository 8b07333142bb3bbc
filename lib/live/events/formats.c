// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the format sections of a recording for the writer.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "base/fileio.h"
#include "live/events/evhome.h"
#include "live/events/formats.h"

/* Append system:name's format to f. */
static int add_format(struct kt_formats *f, size_t *cap,
		      const char *tracing_dir, const char *system,
		      const char *name)
{
	struct kt_format *ev;

	if (f->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;

		ev = realloc(f->ev, ncap * sizeof(*ev));
		if (!ev)
			return -ENOMEM;
		f->ev = ev;
		*cap = ncap;
	}
	ev = &f->ev[f->n];
	ev->text = kt_event_format_read(tracing_dir, system, name, &ev->len);
	if (!ev->text)
		return -errno;
	ev->system = strdup(system);
	ev->name = strdup(name);
	f->n++;
	return ev->system && ev->name ? 0 : -ENOMEM;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every events/ftrace/<name>: print, bprint, function ..., by name. */
static int add_ftrace_formats(struct kt_formats *f, size_t *cap,
			      const char *tracing_dir)
{
	char path[PATH_MAX], **names = NULL, **nn;
	size_t n = 0, i;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/events/ftrace", tracing_dir);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' || de->d_type == DT_REG)
				continue;
			nn = realloc(names, (n + 1) * sizeof(*names));
			if (!nn) {
				ret = -ENOMEM;
				break;
			}
			names = nn;
			names[n] = strdup(de->d_name);
			if (!names[n]) {
				ret = -ENOMEM;
				break;
			}
			n++;
		}
		closedir(d);
	}
	if (!ret && n > 1)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; !ret && i < n; i++)
		ret = add_format(f, cap, tracing_dir, "ftrace", names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int read_header(const char *tracing_dir, const char *name,
		       char **text, size_t *len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s", tracing_dir, name);
	return kt_file_slurp(path, text, len);
}

struct kt_formats *kt_formats_collect(const char *tracing_dir,
				      const struct kt_event_list *events)
{
	size_t i, n = kt_event_list_count(events), cap = 0;
	struct kt_formats *f;
	int ret = -ENODEV;

	if (!tracing_dir)
		tracing_dir = tracefs_tracing_dir();
	if (!tracing_dir)
		goto err;
	ret = -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto err;
	ret = read_header(tracing_dir, "header_page", &f->header_page,
			  &f->header_page_len);
	if (!ret)
		ret = read_header(tracing_dir, "header_event", &f->header_event,
				  &f->header_event_len);
	if (!ret)
		ret = add_ftrace_formats(f, &cap, tracing_dir);
	/* The list's own ftrace events are in the ftrace section already. */
	for (i = 0; !ret && i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (strcmp(r->system, "ftrace"))
			ret = add_format(f, &cap, tracing_dir, r->system,
					 r->name);
	}
	if (ret)
		goto err_f;
	return f;

err_f:
	kt_formats_free(f);
err:
	errno = -ret;
	return NULL;
}

void kt_formats_free(struct kt_formats *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		free(f->ev[i].system);
		free(f->ev[i].name);
		free(f->ev[i].text);
	}
	free(f->ev);
	free(f->header_page);
	free(f->header_event);
	free(f);
}

int kt_formats_write(struct kt_writer *w, const char *tracing_dir,
		     const struct kt_event_list *events)
{
	struct kt_formats *f = kt_formats_collect(tracing_dir, events);
	int ret;

	if (!f)
		return -errno;
	ret = kt_writer_headers(w, f);
	kt_formats_free(f);
	return ret;
}
