// SPDX-License-Identifier: GPL-2.0
/*
 * libtraceevent's plugins loaded as formats need them: see plugins.h.
 * libtraceevent finds the files (tep_load_plugins_hook(): its system
 * directory, $TRACEEVENT_PLUGIN_DIR, then $HOME's, as tep_load_plugins()
 * looks); a plugin is loaded as libtraceevent loads one (dlopen with
 * RTLD_NOW | RTLD_GLOBAL, then its loader) and unloaded as it unloads
 * one.  ktrace sets no plugin options, so there are none to apply.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/log.h"
#include "file/plugins.h"

/* What a plugin of libtraceevent 1.7 can change: systems, print functions. */
struct known {
	const char *file;
	const char *systems[3];
	const char *funcs[3];
};

static const struct known known[] = {
	{ "plugin_sched_switch.so", { "sched" }, { NULL } },
	{ "plugin_kmem.so", { "kmem" }, { NULL } },
	{ "plugin_hrtimer.so", { "timer" }, { NULL } },
	{ "plugin_tlb.so", { "tlb" }, { NULL } },
	{ "plugin_function.so", { "ftrace" }, { NULL } },
	{ "plugin_futex.so", { "syscalls" }, { NULL } },
	{ "plugin_mac80211.so", { "mac80211" }, { NULL } },
	{ "plugin_kvm.so", { "kvm", "kvmmmu" }, { "is_writable_pte" } },
	{ "plugin_cfg80211.so", { "cfg80211" }, { "__le16_to_cpup" } },
	{ "plugin_jbd2.so", { "jbd2" }, { "jbd2_dev_to_name", "jiffies_to_msecs" } },
	{ "plugin_scsi.so", { "scsi" }, { "scsi_trace_parse_cdb" } },
	{ "plugin_xen.so", { "xen" }, { "xen_hypercall_name" } },
};

struct plugin {
	char *path;
	const struct known *k;	/* NULL: not known */
	void *handle;		/* loaded */
	bool tried;
	int seq;		/* its place in the loading order */
};

struct kt_plugins {
	struct tep_handle *tep;
	struct plugin *v;
	int n, cap;
	int loaded;
	bool all;		/* one is not known: all of them, in order */
	int err;		/* no memory while listing */
};

static const struct known *known_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].file, name))
			return &known[i];
	return NULL;
}

/* tep_load_plugins_hook()'s callback: one plugin file, listed only. */
static void list_one(struct tep_handle *tep, const char *dir, const char *name,
		     void *data)
{
	struct kt_plugins *p = data;
	struct plugin *v;

	(void)tep;
	if (p->err)
		return;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;

		v = realloc(p->v, (size_t)cap * sizeof(*v));
		if (!v) {
			p->err = -ENOMEM;
			return;
		}
		p->v = v;
		p->cap = cap;
	}
	v = &p->v[p->n];
	memset(v, 0, sizeof(*v));
	if (asprintf(&v->path, "%s/%s", dir, name) < 0) {
		p->err = -ENOMEM;
		return;
	}
	v->k = known_of(name);
	if (!v->k)
		p->all = true;
	p->n++;
}

struct kt_plugins *kt_plugins_new(struct tep_handle *tep)
{
	struct kt_plugins *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->tep = tep;
	tep_load_plugins_hook(tep, ".so", list_one, p);
	if (p->err) {
		kt_plugins_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

static void load(struct kt_plugins *p, struct plugin *v)
{
	tep_plugin_load_func fn;

	v->tried = true;
	v->handle = dlopen(v->path, RTLD_NOW | RTLD_GLOBAL);
	if (!v->handle) {
		kt_debug("plugin '%s' not loaded: %s", v->path, dlerror());
		return;
	}
	fn = (tep_plugin_load_func)dlsym(v->handle, TEP_PLUGIN_LOADER_NAME);
	if (!fn) {
		kt_debug("plugin '%s' has no %s", v->path, TEP_PLUGIN_LOADER_NAME);
		dlclose(v->handle);
		v->handle = NULL;
		return;
	}
	v->seq = p->loaded++;
	fn(p->tep);
}

/* Whether a known plugin can change a format of system, text fmt. */
static bool wanted(const struct known *k, const char *system, const char *fmt)
{
	int i;

	for (i = 0; i < 3 && k->systems[i]; i++)
		if (!strcmp(k->systems[i], system))
			return true;
	for (i = 0; i < 3 && k->funcs[i]; i++)
		if (strstr(fmt, k->funcs[i]))
			return true;
	return false;
}

void kt_plugins_want(struct kt_plugins *p, const char *system, const char *fmt)
{
	struct plugin *v;
	int i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		v = &p->v[i];
		if (v->tried)
			continue;
		if (p->all || wanted(v->k, system ? system : "", fmt))
			load(p, v);
	}
}

void kt_plugins_free(struct kt_plugins *p)
{
	tep_plugin_unload_func fn;
	int seq, i;

	if (!p)
		return;
	/* The last loaded first, as tep_unload_plugins() goes. */
	for (seq = p->loaded - 1; seq >= 0; seq--)
		for (i = 0; i < p->n; i++) {
			if (!p->v[i].handle || p->v[i].seq != seq)
				continue;
			fn = (tep_plugin_unload_func)dlsym(p->v[i].handle,
							   TEP_PLUGIN_UNLOADER_NAME);
			if (fn)
				fn(p->tep);
			dlclose(p->v[i].handle);
		}
	for (i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	free(p);
}
