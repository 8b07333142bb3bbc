// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic events: listed from tracefs, and ktrace's leftovers removed.
 * See dynevents.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "live/probes/dynevents.h"
#include "live/tracefs/reset.h"
#include "live/tracefs/tracefs.h"

/* The files that list them, the first one the kernel has wins. */
static const char *const lists[] = { "dynamic_events", "uprobe_events", "kprobe_events" };

/*
 * "p:group/name /bin/bash:0x4245c0 arg=..." (a uprobe), "r:group/name
 * do_sys_open" (a kretprobe), "e:", "s:", "f:", "t:" for eprobes,
 * synthetic events, fprobes and tracepoint probes.
 */
static int parse(const char *line, struct kt_dynevent *e)
{
	const char *p = line + 2, *sp, *slash, *target;
	size_t n;

	memset(e, 0, sizeof(*e));
	if (strlen(line) < 3 || line[1] != ':')
		return -EINVAL;
	sp = strchr(p, ' ');
	n = sp ? (size_t)(sp - p) : strlen(p);
	slash = memchr(p, '/', n);
	if (slash) {
		snprintf(e->group, sizeof(e->group), "%.*s", (int)(slash - p), p);
		snprintf(e->name, sizeof(e->name), "%.*s", (int)(n - (size_t)(slash - p) - 1),
			 slash + 1);
	} else {
		snprintf(e->name, sizeof(e->name), "%.*s", (int)n, p);
	}
	target = sp ? sp + 1 : "";
	/* A uprobe's target is a path and an offset; a kprobe's a symbol. */
	switch (line[0]) {
	case 'p': e->kind = *target == '/' ? "uprobe" : "kprobe"; break;
	case 'r': e->kind = *target == '/' ? "uretprobe" : "kretprobe"; break;
	case 'e': e->kind = "eprobe"; break;
	case 's': e->kind = "synthetic"; break;
	case 'f': e->kind = "fprobe"; break;
	case 't': e->kind = "tprobe"; break;
	default: e->kind = "dynamic"; break;
	}
	e->ours = !strncmp(e->group, KT_DYN_GROUP_PREFIX, strlen(KT_DYN_GROUP_PREFIX));
	if (e->ours) {
		char inst[80];

		/* ktrace_1234's maker is the ktrace whose instance is ktrace-1234. */
		snprintf(inst, sizeof(inst), "%s%s", KT_INSTANCE_PREFIX,
			 e->group + strlen(KT_DYN_GROUP_PREFIX));
		e->owner = kt_instance_owner(inst, NULL, 0);
	}
	e->def = strdup(line);
	return e->def ? 0 : -ENOMEM;
}

static int read_one(const char *file, struct kt_dynevent **out, size_t *n)
{
	char *text = kt_tracefs_read(NULL, file), *line, *save = NULL;
	struct kt_dynevent *v;
	int ret = 0;

	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		v = realloc(*out, (*n + 1) * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			break;
		}
		*out = v;
		if (!parse(line, &v[*n]))
			(*n)++;
	}
	free(text);
	return ret;
}

int kt_dynevents_read(struct kt_dynevent **out, size_t *n)
{
	int ret = -ENOENT;
	size_t i;

	*out = NULL;
	*n = 0;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		ret = read_one(lists[i], out, n);
		/* dynamic_events has them all; without it, both others. */
		if (!i && ret != -ENOENT)
			break;
		if (ret == -ENOENT)
			ret = 0;
		if (ret)
			break;
	}
	if (ret) {
		kt_dynevents_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void kt_dynevents_free(struct kt_dynevent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].def);
	free(v);
}

/* "-:group/name", in the file that lists it (appended: tracefs.h). */
static int remove_one(const struct kt_dynevent *e)
{
	const char *file = !strncmp(e->kind, "uprobe", 6) || !strncmp(e->kind, "uret", 4) ?
			   "uprobe_events" : "kprobe_events";
	char *path = tracefs_get_tracing_file("dynamic_events"), cmd[160];
	bool dyn = path && !access(path, F_OK);

	tracefs_put_tracing_file(path);
	snprintf(cmd, sizeof(cmd), "-:%s/%s\n", e->group, e->name);
	return kt_tracefs_append(NULL, dyn ? "dynamic_events" : file, cmd);
}

int kt_dynevents_remove_ours(void (*cb)(const struct kt_dynevent *e, int err,
					void *ctx),
			     void *ctx)
{
	struct kt_dynevent *v;
	int failed = 0, ret;
	size_t n, i;

	ret = kt_dynevents_read(&v, &n);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	for (i = 0; i < n; i++) {
		if (!v[i].ours || v[i].owner)
			continue;
		ret = remove_one(&v[i]);
		if (ret)
			failed++;
		cb(&v[i], ret, ctx);
	}
	kt_dynevents_free(v, n);
	return failed;
}
