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
#include "base/log.h"
#include "live/evlookup.h"
#include "live/kfunc.h"
#include "live/module.h"
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

/* "ambiguous event 'x'; name one: 'a:x' or 'b:x'" */
static void ambiguous(const struct kt_catalog *cat, const char *spec)
{
	struct kt_event_list *all = kt_event_list_new();
	char names[512] = "", *any = NULL;
	size_t i, used = 0, n;

	if (all && asprintf(&any, "*:%s", spec) >= 0)
		kt_events_resolve(cat, any, all);
	n = kt_event_list_count(all);
	for (i = 0; i < n && used < sizeof(names); i++) {
		const struct kt_event_ref *r = kt_event_list_at(all, i);

		used += snprintf(names + used, sizeof(names) - used, "%s'%s:%s'",
				 i ? " or " : "", r->system, r->name);
	}
	kt_err("ambiguous event '%s'; name one: %s", spec, names);
	free(any);
	kt_event_list_free(all);
}

int kt_event_spec_resolve(const struct kt_catalog *cat, const char *spec,
			  struct kt_event_list *list)
{
	char hint[512];
	int ret = kt_events_resolve(cat, spec, list);

	if (ret > 0)
		return 0;
	if (ret == -ENOENT && !strncmp(spec, KTRACE_EVENT_SYSTEM ":",
				       strlen(KTRACE_EVENT_SYSTEM ":")) &&
	    !kt_events_use_module()) {
		if (kt_events_backend() == KT_BACKEND_FTRACE)
			kt_err("'%s' is an event of ktrace.ko, and --backend ftrace leaves it out; drop --backend or the event",
			       spec);
		else
			kt_err("'%s' is an event of ktrace.ko, which is not loaded; %s",
			       spec, KT_MODULE_LOAD_HINT);
	} else if (ret == -EEXIST) {
		ambiguous(cat, spec);
	} else if (ret == -ENOENT && strpbrk(spec, "*?[")) {
		/* Edit distance to a glob suggests nonsense. */
		kt_err("no event matches '%s'; see 'ktrace list events'", spec);
	} else if (ret == -ENOENT && !strchr(spec, ':') &&
		   kt_kernel_function_exists(spec)) {
		kt_err("'%s' is a kernel function, not an event: use --kprobe %s, or -p function -l %s (ktrace doctor says which this kernel allows)",
		       spec, spec, spec);
	} else if (ret == -ENOENT) {
		if (!kt_events_suggest(cat, spec, hint, sizeof(hint)))
			kt_err("unknown event '%s'; did you mean %s?", spec, hint);
		else
			kt_err("unknown event '%s'; see 'ktrace list'", spec);
	} else {
		kt_err("cannot resolve event '%s': %s", spec, strerror(-ret));
	}
	return ret < 0 ? ret : -ENOENT;
}
