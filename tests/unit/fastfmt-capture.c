// SPDX-License-Identifier: GPL-2.0
/* Live capture for tests/unit/fastfmt-check and bench/fastfmt-speed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "fastfmt-capture.h"
#include "live/tracefs/localtep.h"

static int keep(struct tep_event *ev, struct tep_record *rec, int cpu,
		void *ctx)
{
	struct capture *cap = ctx;
	struct cap_rec *cr;

	(void)ev;
	if (cap->nrecs >= cap->max)
		return 0;
	if (cap->nrecs == cap->cap) {
		size_t n = cap->cap ? cap->cap * 2 : 65536;
		struct cap_rec *nr = realloc(cap->recs, n * sizeof(*nr));

		if (!nr)
			return -1;
		cap->recs = nr;
		cap->cap = n;
	}
	cr = &cap->recs[cap->nrecs];
	cr->data = malloc((size_t)rec->size ? (size_t)rec->size : 1);
	if (!cr->data)
		return -1;
	memcpy(cr->data, rec->data, (size_t)rec->size);
	cr->size = rec->size;
	cr->cpu = cpu;
	cr->ts = rec->ts;
	cap->nrecs++;
	return 0;
}

/*
 * What tracefs_local_events() gives, then libtraceevent's plugins, each
 * file read whole (lib/live/tracefs/localtep.h says why: under ASan
 * libtracefs's way took 15 s a tep here, and a check makes three).
 */
struct tep_handle *capture_new_tep(struct tep_plugin_list **plugins)
{
	struct tep_handle *tep = kt_local_tep_systems(NULL);

	if (!tep)
		return NULL;
	*plugins = tep_load_plugins(tep);
	return tep;
}

int capture_run(struct capture *cap, const char *name, const char **systems,
		size_t buffer_kb, char **argv)
{
	struct tracefs_instance *inst;
	const char *tracing = tracefs_tracing_dir();
	int ret = -1, status, i;
	char kb[32];
	pid_t pid;

	if (!tracing) {
		fprintf(stderr, "capture: no tracefs\n");
		return -1;
	}
	inst = tracefs_instance_create(name);
	if (!inst) {
		fprintf(stderr, "capture: cannot create instance '%s': %s\n",
			name, strerror(errno));
		return -1;
	}
	snprintf(kb, sizeof(kb), "%zu", buffer_kb);
	tracefs_instance_file_write(inst, "buffer_size_kb", kb);
	tracefs_trace_off(inst);
	if (cap->stacks && tracefs_option_enable(inst, TRACEFS_OPTION_STACKTRACE))
		fprintf(stderr, "capture: no stacktrace option here\n");
	for (i = 0; systems[i]; i++) {
		char sys[128], *ev;

		snprintf(sys, sizeof(sys), "%s", systems[i]);
		ev = strchr(sys, ':');
		if (ev)
			*ev++ = 0;
		if (tracefs_event_enable(inst, sys, ev) < 0)
			fprintf(stderr, "capture: no events '%s' here\n", systems[i]);
	}
	tracefs_trace_on(inst);

	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		goto out;
	tracefs_trace_off(inst);
	tracefs_event_disable(inst, NULL, NULL);

	cap->tep = capture_new_tep(&cap->plugins);
	if (!cap->tep) {
		fprintf(stderr, "capture: cannot read event formats\n");
		goto out;
	}
	if (!cap->max)
		cap->max = 4000000;
	if (tracefs_iterate_raw_events(cap->tep, inst, NULL, 0, keep, cap) < 0) {
		fprintf(stderr, "capture: cannot read the events\n");
		goto out;
	}
	ret = 0;
out:
	tracefs_trace_off(inst);
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return ret;
}

void capture_free(struct capture *cap)
{
	size_t i;

	for (i = 0; i < cap->nrecs; i++)
		free(cap->recs[i].data);
	free(cap->recs);
	if (cap->plugins)
		tep_unload_plugins(cap->plugins, cap->tep);
	if (cap->tep)
		tep_free(cap->tep);
	memset(cap, 0, sizeof(*cap));
}

void capture_record(const struct cap_rec *cr, struct tep_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->ts = cr->ts;
	rec->cpu = cr->cpu;
	rec->size = cr->size;
	rec->data = cr->data;
}
