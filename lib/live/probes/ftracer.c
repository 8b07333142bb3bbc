// SPDX-License-Identifier: GPL-2.0
/*
 * The function tracers: their set-up in an instance or the top level,
 * and clearing it again.  See ftracer.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "live/probes/ftracer.h"
#include "live/tracefs/tracefs.h"

bool kt_ftracer_offered(struct tracefs_instance *inst, const char *tracer)
{
	char *text = kt_tracefs_read(inst, "available_tracers");
	size_t len = strlen(tracer);
	bool found = false;
	char *p;

	for (p = text; p && (p = strstr(p, tracer)); p += len)
		if ((p == text || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\n' || !p[len]))
			found = true;
	free(text);
	return found;
}

bool kt_ftracer_fits(struct tracefs_instance *inst,
		     const struct kt_ftrace_opts *o)
{
	if (!kt_ftracer_offered(inst, o->tracer))
		return false;
	if ((o->nfilter && !tracefs_file_exists(inst, "set_ftrace_filter")) ||
	    (o->nnotrace && !tracefs_file_exists(inst, "set_ftrace_notrace")) ||
	    (o->ngraph_funcs && !tracefs_file_exists(inst, "set_graph_function")) ||
	    (o->max_graph_depth && !tracefs_file_exists(inst, "max_graph_depth")))
		return false;
	return true;
}

/* Where the refusals come from, said once and alike for every file. */
static void refused(const char *file, const char *what, int err)
{
	if (err == -EPERM || err == -EACCES)
		kt_err("cannot %s: %s: %s; this kernel refuses the function tracer's files (see 'ktrace doctor')",
		       what, file, strerror(-err));
	else if (err == -ENOENT)
		kt_err("cannot %s: %s: no such file; this kernel lacks it (see 'ktrace doctor')",
		       what, file);
	else
		kt_err("cannot %s: %s: %s", what, file, strerror(-err));
}

/*
 * One glob list into file, each glob a write of its own, so that the
 * one the kernel matches to nothing (-EINVAL) is the one named.
 */
static int write_globs(struct tracefs_instance *inst, const char *file,
		       const char *opt, const char **globs, size_t n)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		char *word;

		/*
		 * Ended by a newline: the kernel matches a word when it ends,
		 * and one left for close() fails there unseen.
		 */
		if (asprintf(&word, "%s\n", globs[i]) < 0)
			return -ENOMEM;
		ret = i ? kt_tracefs_append(inst, file, word) :
			  kt_tracefs_write(inst, file, word);
		free(word);
		if (ret == -EINVAL) {
			kt_err("no kernel function matches '%s' (%s %s: %s); see 'ktrace list functions GLOB'",
			       globs[i], opt, file, strerror(-ret));
			return ret;
		}
		if (ret) {
			char what[64];

			snprintf(what, sizeof(what), "set %s '%s'", opt, globs[i]);
			refused(file, what, ret);
			return ret;
		}
	}
	return 0;
}

int kt_ftracer_set(struct tracefs_instance *inst, const struct kt_ftrace_opts *o,
		   const char *pids, bool children)
{
	char num[24];
	int ret;

	ret = write_globs(inst, "set_ftrace_filter", "-l", o->filter,
			  o->nfilter);
	if (!ret)
		ret = write_globs(inst, "set_ftrace_notrace", "-n",
				  o->notrace, o->nnotrace);
	if (!ret)
		ret = write_globs(inst, "set_graph_function", "-g",
				  o->graph_funcs, o->ngraph_funcs);
	if (ret)
		return ret;
	if (o->max_graph_depth) {
		snprintf(num, sizeof(num), "%d", o->max_graph_depth);
		ret = kt_tracefs_write(inst, "max_graph_depth", num);
		if (ret) {
			refused("max_graph_depth", "set --max-graph-depth", ret);
			return ret;
		}
	}
	if (o->func_stack) {
		ret = kt_tracefs_write(inst, "options/func_stack_trace", "1");
		if (ret) {
			refused("options/func_stack_trace", "record a stack with each function (--func-stack)", ret);
			return ret;
		}
	}
	if (pids && *pids) {
		if (children) {
			ret = kt_tracefs_write(inst, "options/function-fork", "1");
			if (ret) {
				refused("options/function-fork", "follow children in the function tracer", ret);
				return ret;
			}
		}
		ret = kt_tracefs_write(inst, "set_ftrace_pid", pids);
		if (ret) {
			refused("set_ftrace_pid", "limit the function tracer to pids", ret);
			return ret;
		}
	}
	ret = kt_tracefs_write(inst, "current_tracer", o->tracer);
	if (ret) {
		char what[64];

		snprintf(what, sizeof(what), "start the %s tracer", o->tracer);
		refused("current_tracer", what, ret);
	}
	return ret;
}

void kt_ftracer_clear(struct tracefs_instance *inst,
		      const struct kt_ftrace_opts *o)
{
	if (!o->tracer)
		return;
	kt_tracefs_write(inst, "current_tracer", "nop");
	kt_tracefs_write(inst, "set_ftrace_filter", "");
	kt_tracefs_write(inst, "set_ftrace_notrace", "");
	kt_tracefs_write(inst, "set_graph_function", "");
	kt_tracefs_write(inst, "set_ftrace_pid", "");
	kt_tracefs_write(inst, "set_ftrace_notrace_pid", "");
	if (o->max_graph_depth)
		kt_tracefs_write(inst, "max_graph_depth", "0");
	if (o->func_stack)
		kt_tracefs_write(inst, "options/func_stack_trace", "0");
}
