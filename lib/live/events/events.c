// SPDX-License-Identifier: GPL-2.0
/*
 * Event specs on the running kernel.  The catalog is read once from
 * events/ with readdir (cheap: no format file is opened) and handed to
 * the one resolver (base/evspec.c); exact names are answered by stat(2)
 * on events/<system>/<event> without it.
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
#include "live/events/events.h"
#include "live/tracefs/kfunc.h"
#include "live/module/module.h"
#include "ktrace-abi.h"

/* ---- the catalog ---- */

/* Add every event directory of one system. */
static int catalog_add_events(struct kt_catalog *cat, const char *tracing_dir,
			      const char *system)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	/* The module's events live in debugfs, not under tracefs. */
	if (kt_event_system_dir(tracing_dir, system, path, sizeof(path)))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		ret = kt_catalog_add_event(cat, system, de->d_name);
		if (ret < 0)
			break;
	}
	closedir(d);
	return ret < 0 ? ret : 0;
}

/*
 * The catalog of every system, or of only the one named: "sched:*" and
 * "sched:sched_switch" need not read 100 other directories.
 */
static struct kt_catalog *catalog_read(const char *tracing_dir,
				       const char *only)
{
	enum kt_backend backend = kt_events_backend();
	const char *const *systems;
	char events_dir[4096];
	struct kt_catalog *cat;
	struct dirent *de;
	size_t i, n;
	DIR *d;
	int ret = -ENOMEM;

	if (!tracing_dir)
		tracing_dir = tracefs_tracing_dir();
	if (!tracing_dir && backend != KT_BACKEND_MODULE) {
		errno = ENODEV;
		return NULL;
	}
	if (!tracing_dir)
		tracing_dir = "";
	cat = kt_catalog_new();
	if (!cat)
		goto err;
	snprintf(events_dir, sizeof(events_dir), "%s/events", tracing_dir);
	d = backend == KT_BACKEND_MODULE ? NULL : opendir(events_dir);
	if (!d && backend != KT_BACKEND_MODULE) {
		ret = -errno;
		goto err_cat;
	}
	while (d && (de = readdir(d))) {
		/* Regular files here are enable, filter, header_page ... */
		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		if (only && strcmp(only, de->d_name))
			continue;
		if (kt_catalog_add_system(cat, de->d_name))
			goto err_dir;
	}
	if (d)
		closedir(d);
	d = NULL;
	/*
	 * The module's system (unless tracefs has one by that name), and
	 * its events first for a bare name: where kt_event_where() says.
	 */
	if (kt_events_use_module() &&
	    (!only || kt_event_where(only) == KT_EVENT_MODULE) &&
	    kt_module_present() &&
	    kt_catalog_add_system(cat, KTRACE_EVENT_SYSTEM))
		goto err_cat;
	if (kt_events_use_module() &&
	    kt_catalog_prefer(cat, KTRACE_EVENT_SYSTEM))
		goto err_cat;
	n = kt_catalog_systems(cat, &systems);
	for (i = 0; i < n; i++) {
		ret = catalog_add_events(cat, tracing_dir, systems[i]);
		if (ret < 0)
			goto err_cat;
	}
	kt_catalog_sort(cat);
	return cat;

err_dir:
	closedir(d);
err_cat:
	kt_catalog_free(cat);
err:
	errno = ret < 0 ? -ret : ENOMEM;
	return NULL;
}

struct kt_catalog *kt_catalog_load(const char *tracing_dir)
{
	return catalog_read(tracing_dir, NULL);
}

struct kt_catalog *kt_catalog_load_system(const char *tracing_dir,
					  const char *system)
{
	return catalog_read(tracing_dir, system);
}

/* ---- exact names without the catalog ---- */

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

/* ---- what to say ---- */

/* "ambiguous event 'x'; name one: 'a:x' or 'b:x'" */
static void ambiguous(const struct kt_catalog *cat, const char *spec)
{
	struct kt_event_list *all = kt_event_list_new();
	char names[512] = "";
	size_t i, used = 0, n;

	if (all)
		kt_evspec_resolve(cat, spec, KT_EVSPEC_EVERY_SYSTEM, all);
	n = kt_event_list_count(all);
	for (i = 0; i < n && used < sizeof(names); i++) {
		const struct kt_event_ref *r = kt_event_list_at(all, i);

		used += snprintf(names + used, sizeof(names) - used, "%s'%s:%s'",
				 i ? " or " : "", r->system, r->name);
	}
	kt_err("ambiguous event '%s'; name one: %s", spec, names);
	kt_event_list_free(all);
}

int kt_event_spec_resolve(const struct kt_catalog *cat, const char *spec,
			  unsigned int flags, struct kt_event_list *list)
{
	char hint[512];
	int ret = kt_evspec_resolve(cat, spec, flags, list);

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
	} else if (ret == -ENOENT && kt_evspec_has_glob(spec)) {
		/* Edit distance to a glob suggests nonsense. */
		kt_err("no event matches '%s'; see 'ktrace list events'", spec);
	} else if (ret == -ENOENT && !strchr(spec, ':') &&
		   kt_kernel_function_exists(spec)) {
		kt_err("'%s' is a kernel function, not an event: use --kprobe %s, or -p function -l %s (ktrace doctor says which this kernel allows)",
		       spec, spec, spec);
	} else if (ret == -ENOENT) {
		if (!kt_evspec_suggest(cat, spec, hint, sizeof(hint)))
			kt_err("unknown event '%s'; did you mean %s?", spec, hint);
		else
			kt_err("unknown event '%s'; see 'ktrace list'", spec);
	} else {
		kt_err("cannot resolve event '%s': %s", spec, strerror(-ret));
	}
	return ret < 0 ? ret : -ENOENT;
}
