// SPDX-License-Identifier: GPL-2.0
/*
 * Where an event lives: the backend choice (--backend) and what it
 * makes of each event.  See evhome.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "base/fileio.h"
#include "file/writer.h"
#include "live/events/evhome.h"
#include "live/module/module.h"
#include "live/tracefs/tracefs.h"

static enum kt_backend backend = KT_BACKEND_AUTO;

void kt_events_set_backend(enum kt_backend b)
{
	backend = b;
}

enum kt_backend kt_events_backend(void)
{
	return backend;
}

int kt_backend_parse(const char *name, enum kt_backend *out)
{
	if (!strcmp(name, "ftrace"))
		*out = KT_BACKEND_FTRACE;
	else if (!strcmp(name, "module"))
		*out = KT_BACKEND_MODULE;
	else
		return -EINVAL;
	return 0;
}

bool kt_events_use_module(void)
{
	return backend == KT_BACKEND_MODULE ||
	       (backend == KT_BACKEND_AUTO && kt_module_present());
}

int kt_backend_check(void)
{
	if (backend == KT_BACKEND_MODULE && !kt_module_present())
		return -ENOENT;
	return 0;
}

enum kt_event_home kt_event_where(const char *system)
{
	if (!strcmp(system, KTRACE_EVENT_SYSTEM) && kt_events_use_module())
		return KT_EVENT_MODULE;
	return KT_EVENT_FTRACE;
}

/* A path under the module's events/, or under tracing_dir's events/. */
static int home_path(const char *tracing_dir, const char *system,
		     const char *rest, char *buf, size_t len)
{
	int n;

	if (kt_event_where(system) == KT_EVENT_MODULE) {
		const char *dir = kt_module_dir();

		if (!dir)
			return -ENOENT;
		n = snprintf(buf, len, "%s/%s%s", dir, KTRACE_DIR_EVENTS, rest);
	} else {
		if (!tracing_dir)
			tracing_dir = tracefs_tracing_dir();
		if (!tracing_dir)
			return -ENODEV;
		n = snprintf(buf, len, "%s/events/%s%s", tracing_dir, system,
			     rest);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int kt_event_system_dir(const char *tracing_dir, const char *system,
			char *buf, size_t len)
{
	return home_path(tracing_dir, system, "", buf, len);
}

int kt_event_dir(const char *tracing_dir, const char *system,
		 const char *event, char *buf, size_t len)
{
	char rest[NAME_MAX + 2];

	if (snprintf(rest, sizeof(rest), "/%s", event) >= (int)sizeof(rest))
		return -ENAMETOOLONG;
	return home_path(tracing_dir, system, rest, buf, len);
}

/* An event's file: ftrace's name for it, or the module's. */
static int event_file(const char *tracing_dir, const char *system,
		      const char *event, const char *ftrace_name,
		      const char *module_name, char *buf, size_t len)
{
	const char *name = kt_event_where(system) == KT_EVENT_MODULE ?
			   module_name : ftrace_name;
	int ret = kt_event_dir(tracing_dir, system, event, buf, len);
	size_t used;

	if (ret)
		return ret;
	used = strlen(buf);
	if (snprintf(buf + used, len - used, "/%s", name) >= (int)(len - used))
		return -ENAMETOOLONG;
	return 0;
}

int kt_event_format_path(const char *tracing_dir, const char *system,
			 const char *event, char *buf, size_t len)
{
	return event_file(tracing_dir, system, event, "format",
			  KTRACE_FILE_FORMAT, buf, len);
}

char *kt_event_format_read(const char *tracing_dir, const char *system,
			   const char *event, size_t *size)
{
	char path[PATH_MAX], *text = NULL;
	int ret;

	ret = kt_event_format_path(tracing_dir, system, event, path,
				   sizeof(path));
	if (!ret)
		ret = kt_file_slurp(path, &text, size);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return text;
}

bool kt_event_has_switch(const char *tracing_dir, const char *system,
			 const char *event)
{
	char path[PATH_MAX];

	return !event_file(tracing_dir, system, event, "enable",
			   KTRACE_FILE_ENABLE, path, sizeof(path)) &&
	       access(path, F_OK) == 0;
}

int kt_event_switch_get(struct tracefs_instance *inst, const char *system,
			const char *event)
{
	char *rel, *text;
	bool on;

	if (kt_event_where(system) == KT_EVENT_MODULE)
		return kt_module_event_enabled(event);
	if (asprintf(&rel, "events/%s/%s/enable", system, event) < 0)
		return -ENOMEM;
	text = kt_tracefs_read(inst, rel);
	free(rel);
	if (!text)
		return -errno;
	/* "1*" is on with a soft-disable trigger attached: still on. */
	on = text[0] == '1';
	free(text);
	return on;
}

int kt_event_switch_set(struct tracefs_instance *inst, const char *system,
			const char *event, bool on)
{
	if (kt_event_where(system) == KT_EVENT_MODULE)
		return kt_module_event_set_enable(event, on);
	return kt_event_set_enable(inst, system, event, on);
}
