// SPDX-License-Identifier: GPL-2.0
/*
 * Exact event names by stat(2) on events/<system>/<event>.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracefs.h>

#include "base/aliases.h"
#include "live/evlookup.h"
#include "ktrace-abi.h"

static bool event_dir(const char *dir, const char *system, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/events/%s/%s", dir, system,
		     name) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* How many systems have an event called name; *system gets the last. */
static int count_systems(const char *dir, const char *name, char **system)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		if (!event_dir(dir, de->d_name, name))
			continue;
		n++;
		free(*system);
		*system = strdup(de->d_name);
		if (!*system) {
			n = -ENOMEM;
			break;
		}
	}
	closedir(d);
	return n;
}

int kt_event_lookup(const char *tracing_dir, const char *spec,
		    struct kt_event_list *out)
{
	const struct kt_alias *alias;
	const char *colon;
	char *system = NULL;
	int n, ret;

	/* The module's events and bare names it may own: the catalog decides. */
	if (kt_events_backend() == KT_BACKEND_MODULE ||
	    (kt_events_use_module() && (!strchr(spec, ':') ||
	     !strncmp(spec, KTRACE_EVENT_SYSTEM ":", strlen(KTRACE_EVENT_SYSTEM ":")))))
		return 0;
	if (!tracing_dir)
		tracing_dir = tracefs_tracing_dir();
	if (!tracing_dir)
		return -ENODEV;
	if (!*spec || strpbrk(spec, "*?[/") || !strcmp(spec, ".") ||
	    strstr(spec, ".."))
		return 0;
	colon = strchr(spec, ':');
	if (colon) {
		char *sys = strndup(spec, colon - spec);

		if (!sys)
			return -ENOMEM;
		ret = 0;
		if (*sys && colon[1] && !strchr(colon + 1, ':') &&
		    event_dir(tracing_dir, sys, colon + 1))
			ret = kt_event_list_add(out, sys, colon + 1) < 0 ?
			      -ENOMEM : 1;
		free(sys);
		return ret;
	}
	/* A bare name: a unique event, then a classic alias. */
	n = count_systems(tracing_dir, spec, &system);
	if (n == 1)
		ret = kt_event_list_add(out, system, spec) < 0 ? -ENOMEM : 1;
	else if (n < 0)
		ret = n;
	else
		ret = 0;
	free(system);
	if (n != 0)
		return ret;
	alias = kt_alias_find(spec);
	if (alias && event_dir(tracing_dir, alias->system, alias->event))
		return kt_event_list_add(out, alias->system, alias->event) < 0 ?
		       -ENOMEM : 1;
	return 0;
}
