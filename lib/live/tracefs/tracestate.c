// SPDX-License-Identifier: GPL-2.0
/*
 * The live state of an instance, read from tracefs in one go for
 * ktrace stat: small files only, no event format is parsed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/tracefs/tracestate.h"

unsigned long long kt_cpu_stats_lost(const struct kt_cpu_stats *cs)
{
	return cs->overrun + cs->commit_overrun + cs->dropped;
}

/* The first line of a file, without its newline (NULL + errno). */
static char *read_line(struct tracefs_instance *inst, const char *file)
{
	char *text = kt_tracefs_read(inst, file);

	if (text)
		text[strcspn(text, "\n")] = '\0';
	return text;
}

static int read_events(struct tracefs_instance *inst,
		       struct kt_trace_state *st)
{
	char *text, *line, *save = NULL, *colon, *filter, rel[512];
	struct kt_trace_state_event *ev, *n;

	text = kt_tracefs_read(inst, "set_event");
	if (!text)
		return errno == ENOENT ? 0 : -errno;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		n = realloc(st->events, (st->nevents + 1) * sizeof(*n));
		if (!n)
			goto err_nomem;
		st->events = n;
		ev = &st->events[st->nevents];
		memset(ev, 0, sizeof(*ev));
		ev->system = strdup(line);
		ev->name = strdup(colon + 1);
		st->nevents++;
		if (!ev->system || !ev->name)
			goto err_nomem;
		snprintf(rel, sizeof(rel), "events/%s/%s/filter", line, colon + 1);
		filter = read_line(inst, rel);
		if (filter && strcmp(filter, "none"))
			ev->filter = filter;
		else
			free(filter);
	}
	free(text);
	return 0;

err_nomem:
	free(text);
	return -ENOMEM;
}

static int read_cpus(struct tracefs_instance *inst, struct kt_trace_state *st)
{
	char rel[64], *kb;
	int cpu;

	st->ncpus = kt_cpu_count();
	if (st->ncpus < 0)
		return st->ncpus;
	st->cpu = calloc(st->ncpus, sizeof(*st->cpu));
	st->buffer_kb = calloc(st->ncpus, sizeof(*st->buffer_kb));
	if (!st->cpu || !st->buffer_kb)
		return -ENOMEM;
	for (cpu = 0; cpu < st->ncpus; cpu++) {
		struct kt_cpu_stats *cs = &st->cpu[cpu];

		int ret = kt_cpu_stats_read(inst, cpu, cs);

		if (ret == -ENOENT && inst &&
		    !tracefs_instance_exists(tracefs_instance_get_name(inst)))
			return -ENOENT;
		/* Unreadable statistics must not pass for "nothing lost". */
		if (ret)
			return ret;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/buffer_size_kb", cpu);
		kb = kt_tracefs_read(inst, rel);
		/*
		 * Until first use the kernel keeps a minimal buffer and shows
		 * "7 (expanded: 1410)"; the size tracing will get is the second.
		 */
		if (kb && strstr(kb, "expanded:"))
			st->buffer_kb[cpu] = strtoull(strstr(kb, "expanded:") + 9, NULL, 10);
		else if (kb)
			st->buffer_kb[cpu] = strtoull(kb, NULL, 10);
		free(kb);
		st->total.entries += cs->entries;
		st->total.overrun += cs->overrun;
		st->total.commit_overrun += cs->commit_overrun;
		st->total.bytes += cs->bytes;
		st->total.dropped += cs->dropped;
		st->total.read += cs->read;
	}
	return 0;
}

int kt_trace_state_read(struct tracefs_instance *inst,
			struct kt_trace_state **out)
{
	struct kt_trace_state *st;
	const char *name = inst ? tracefs_instance_get_name(inst) : NULL;
	char *on;
	int ret;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if (name && !(st->name = strdup(name))) {
		ret = -ENOMEM;
		goto err_state;
	}
	on = read_line(inst, "tracing_on");
	if (!on && errno == ENOENT && name && !tracefs_instance_exists(name)) {
		ret = -ENOENT;
		goto err_state;
	}
	st->tracing_on = on ? atoi(on) != 0 : -1;
	free(on);
	st->tracer = read_line(inst, "current_tracer");
	st->clock = tracefs_get_clock(inst);
	ret = read_events(inst, st);
	if (ret)
		goto err_state;
	ret = read_cpus(inst, st);
	if (ret)
		goto err_state;
	*out = st;
	return 0;

err_state:
	kt_trace_state_free(st);
	return ret;
}

void kt_trace_state_free(struct kt_trace_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nevents; i++) {
		free(st->events[i].system);
		free(st->events[i].name);
		free(st->events[i].filter);
	}
	free(st->events);
	free(st->cpu);
	free(st->buffer_kb);
	free(st->tracer);
	free(st->clock);
	free(st->name);
	free(st);
}
