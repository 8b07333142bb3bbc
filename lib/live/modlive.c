// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace.ko for a live reader.  See modlive.h.  The set-up and the
 * putting back are the recording's module source's own, run with
 * mod_live so that it opens no readers of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "live/evhome.h"
#include "live/modlive.h"
#include "live/module.h"
#include "live/source.h"

struct kt_modlive {
	struct kt_session_config cfg;
	struct kt_source_env env;
	void *state;			/* the module source's */
	int cpus;
	bool started;
};

int kt_modlive_new(struct kt_tracing *t, const struct kt_trace_opts *o,
		   pid_t child, int ncpus, struct kt_modlive **out)
{
	struct kt_modlive *m;
	int ret;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = (struct kt_session_config){ .t = o, .comm = "" };
	m->env = (struct kt_source_env){ .cfg = &m->cfg, .t = t, .ncpus = ncpus,
					 .child = child, .mod_live = true };
	ret = kt_source_module.prepare(&m->env, &m->state);
	if (!m->state) {
		free(m);
		return ret;
	}
	*out = m;
	if (ret)
		return ret;
	m->cpus = kt_module_cpu_count();
	return m->cpus < 0 ? m->cpus : 0;
}

int kt_modlive_formats(struct kt_modlive *m, struct tep_handle *tep)
{
	const struct kt_event_list *events = kt_tracing_events(m->env.t);
	size_t i, n = kt_event_list_count(events), size;
	enum tep_errno err;
	char *text;

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!kt_is_module_event(r))
			continue;
		text = kt_event_format_read(NULL, r->system, r->name, &size);
		if (!text) {
			kt_err("cannot read the format of '%s:%s': %s", r->system,
			       r->name, strerror(errno));
			return -errno;
		}
		err = tep_parse_event(tep, text, size, r->system);
		free(text);
		if (err && err != TEP_ERRNO__MEM_ALLOC_FAILED) {
			kt_err("cannot parse the format of '%s:%s'", r->system, r->name);
			return -EINVAL;
		}
		if (err)
			return -ENOMEM;
	}
	return 0;
}

int kt_modlive_cpus(const struct kt_modlive *m)
{
	return m->cpus;
}

int kt_modlive_start(struct kt_modlive *m)
{
	int ret = kt_source_module.start(m->state);

	m->started = !ret;
	return ret;
}

int kt_modlive_stop(struct kt_modlive *m)
{
	if (!m->started)
		return 0;
	m->started = false;
	return kt_source_module.stop(m->state);
}

void kt_modlive_stats(struct kt_modlive *m, struct kt_cpu_stats *st)
{
	kt_source_module.collect(m->state, st, KT_SOURCE_END);
}

void kt_modlive_free(struct kt_modlive *m)
{
	if (!m)
		return;
	kt_modlive_stop(m);
	kt_source_module.restore(m->state);
	free(m);
}
