// SPDX-License-Identifier: GPL-2.0
/*
 * Saving the top level's settings and putting them back.  See topsave.h.
 * Each file is written back only when it reads differently at the end,
 * so what the recording did not change is not touched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "live/events/evstate.h"
#include "live/tracefs/tracefs.h"
#include "live/session/topsave.h"

/* What a recording at the top level may write. */
static const char *const files[] = {
	"tracing_on", "buffer_size_kb", "buffer_percent", "trace_clock",
	"current_tracer", "set_event_pid", "set_event_notrace_pid", "set_ftrace_filter",
	"set_ftrace_notrace", "set_graph_function", "set_ftrace_pid",
	"set_ftrace_notrace_pid",
	"max_graph_depth", "options/event-fork", "options/function-fork",
	"options/func_stack_trace", "options/stacktrace",
	"options/userstacktrace",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

struct kt_topsave {
	char *text[NFILES];		/* as read, NULL: absent */
	struct kt_event_state **ev;
	size_t nev;
};

/* A file's text; "" for an empty one (set_event_pid), NULL when absent. */
static char *read_file(const char *file)
{
	char *text = kt_tracefs_read(NULL, file);

	if (!text && tracefs_file_exists(NULL, file))
		text = strdup("");
	return text;
}

struct kt_topsave *kt_topsave_new(const struct kt_event_list *events)
{
	struct kt_topsave *ts = calloc(1, sizeof(*ts));
	size_t i, n = kt_event_list_count(events);

	if (!ts)
		return NULL;
	for (i = 0; i < NFILES; i++)
		ts->text[i] = read_file(files[i]);
	ts->ev = calloc(n ? n : 1, sizeof(*ts->ev));
	if (!ts->ev)
		goto err;
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!strcmp(r->system, "ftrace"))
			continue;
		ts->ev[ts->nev] = kt_event_state_save(NULL, r->system, r->name);
		if (!ts->ev[ts->nev])
			goto err;
		ts->nev++;
	}
	return ts;
err:
	kt_topsave_free(ts);
	errno = ENOMEM;
	return NULL;
}

/*
 * What to write to put a file back from the text it read: the tracer
 * or clock in use, the number of a size, the lists as words; NULL to
 * leave it (a size the kernel has not expanded yet).
 */
static char *value_of(const char *file, const char *text)
{
	const char *b, *e;
	char *v, *p;

	if (!strcmp(file, "trace_clock")) {
		b = strchr(text, '[');
		e = b ? strchr(b, ']') : NULL;
		return b && e ? strndup(b + 1, e - b - 1) : NULL;
	}
	if (!strcmp(file, "buffer_size_kb"))
		return strstr(text, "expanded") ? NULL : strndup(text, strspn(text, "0123456789"));
	/* "#### all functions enabled ####", "no pid": the empty list. */
	v = strdup(text);
	if (!v)
		return NULL;
	if (!strncmp(v, "####", 4) || !strncmp(v, "no pid", 6))
		*v = '\0';
	for (p = v; *p; p++)
		if (*p == '\n')
			*p = ' ';
	/* "1\n" is written back as "1": a number's file refuses "1 ". */
	while (p > v && p[-1] == ' ')
		*--p = '\0';
	return v;
}

static int restore_file(size_t i, const char *saved)
{
	char *now = read_file(files[i]), *v;
	int ret = 0;

	if (now && !strcmp(now, saved)) {
		free(now);
		return 0;
	}
	free(now);
	v = value_of(files[i], saved);
	/* An empty list is written as O_TRUNC alone. */
	if (v)
		ret = kt_tracefs_write(NULL, files[i], v);
	if (ret)
		kt_err("cannot put back the top level's %s ('%s'): %s",
		       files[i], v, strerror(-ret));
	free(v);
	return ret;
}

int kt_topsave_restore(struct kt_topsave *ts)
{
	int ret, first = 0;
	size_t i;

	if (!ts)
		return 0;
	/* The tracer first: filters of a tracer that runs are slow to change. */
	for (i = 0; i < NFILES; i++) {
		if (!ts->text[i] || !strcmp(files[i], "tracing_on"))
			continue;
		ret = restore_file(i, ts->text[i]);
		if (ret && !first)
			first = ret;
	}
	for (i = 0; i < ts->nev; i++) {
		ret = kt_event_state_restore(ts->ev[i]);
		if (ret && !first)
			first = ret;
	}
	/* tracing_on last: nothing of ours reaches the buffer after it. */
	for (i = 0; i < NFILES; i++)
		if (ts->text[i] && !strcmp(files[i], "tracing_on")) {
			ret = restore_file(i, ts->text[i]);
			if (ret && !first)
				first = ret;
		}
	return first;
}

void kt_topsave_free(struct kt_topsave *ts)
{
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < NFILES; i++)
		free(ts->text[i]);
	for (i = 0; i < ts->nev; i++)
		kt_event_state_free(ts->ev[i]);
	free(ts->ev);
	free(ts);
}
