// SPDX-License-Identifier: GPL-2.0
/*
 * Saving and restoring one event's enable/filter pair.  A filter the
 * kernel rejected reads back as the expression plus a "parse_error:"
 * report and is not in force, so it saves as no filter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/events/evstate.h"
#include "live/events/evhome.h"
#include "live/tracefs/tracefs.h"

struct kt_event_state {
	struct tracefs_instance *inst;	/* borrowed */
	char *system;
	char *event;
	bool enabled;
	char *filter;
};

static char *read_event_file(struct tracefs_instance *inst,
			     const char *system, const char *event,
			     const char *file)
{
	char *rel, *text;

	if (asprintf(&rel, "events/%s/%s/%s", system, event, file) < 0)
		return NULL;
	text = kt_tracefs_read(inst, rel);
	free(rel);
	return text;
}

/* "none" and rejected filters are no filter; else the expression. */
static char *filter_of(char *text)
{
	size_t len;

	if (!strcmp(text, "none\n") || !strcmp(text, "none") ||
	    strstr(text, "parse_error:")) {
		free(text);
		return NULL;
	}
	len = strlen(text);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	return text;
}

struct kt_event_state *kt_event_state_save(struct tracefs_instance *inst,
					   const char *system,
					   const char *event)
{
	struct kt_event_state *st;
	char *text;
	int ret = -ENOMEM;

	st = calloc(1, sizeof(*st));
	if (!st)
		goto err;
	st->inst = inst;
	st->system = strdup(system);
	st->event = strdup(event);
	if (!st->system || !st->event)
		goto err_st;
	ret = kt_event_switch_get(inst, system, event);
	if (ret < 0)
		goto err_st;
	st->enabled = ret;
	/* ktrace.ko's events have a switch and no filter. */
	if (kt_event_where(system) == KT_EVENT_MODULE)
		return st;
	text = read_event_file(inst, system, event, "filter");
	if (!text) {
		ret = -errno;
		goto err_st;
	}
	st->filter = filter_of(text);
	return st;

err_st:
	kt_event_state_free(st);
err:
	errno = -ret;
	return NULL;
}

int kt_event_state_restore(const struct kt_event_state *st)
{
	int ret = 0, ret2;

	/* ktrace.ko's events have a switch and no filter. */
	if (kt_event_where(st->system) == KT_EVENT_FTRACE)
		ret = kt_event_set_filter(st->inst, st->system, st->event,
					  st->filter, NULL);
	ret2 = kt_event_switch_set(st->inst, st->system, st->event,
				   st->enabled);
	return ret ? ret : ret2;
}

void kt_event_state_free(struct kt_event_state *st)
{
	if (!st)
		return;
	free(st->system);
	free(st->event);
	free(st->filter);
	free(st);
}

bool kt_event_state_enabled(const struct kt_event_state *st)
{
	return st->enabled;
}

const char *kt_event_state_filter(const struct kt_event_state *st)
{
	return st->filter;
}
