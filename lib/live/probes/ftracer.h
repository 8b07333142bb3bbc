/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function tracers of `ktrace record -p function|function_graph`:
 * where the kernel lets one run (the private instance, or only the
 * top-level buffer: function_graph on older kernels, such as 6.1), and setting
 * it up with its filters (-l/-n/-g), depth and func_stack_trace, each
 * refusal said with the file and the reason.
 */
#ifndef KT_FTRACER_H
#define KT_FTRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tracefs_instance;

/* What record's options ask of the tracer. */
struct kt_ftrace_opts {
	const char *tracer;		/* -p: function, function_graph, or NULL */
	const char **filter;		/* -l FUNC: set_ftrace_filter */
	size_t nfilter;
	const char **notrace;		/* -n FUNC: set_ftrace_notrace */
	size_t nnotrace;
	const char **graph_funcs;	/* -g FUNC: set_graph_function */
	size_t ngraph_funcs;
	int max_graph_depth;		/* --max-graph-depth, or 0 */
	bool func_stack;		/* --func-stack: options/func_stack_trace */
};

/* Does inst's (NULL: the top level's) available_tracers offer tracer? */
bool kt_ftracer_offered(struct tracefs_instance *inst, const char *tracer);

/*
 * Does inst (NULL: the top level) run o's tracer with every file o's
 * options need (an instance may lack max_graph_depth, say, that only
 * the top level has)?
 */
bool kt_ftracer_fits(struct tracefs_instance *inst,
		     const struct kt_ftrace_opts *o);

/*
 * Write o's filters, options and then its tracer into inst (NULL: the
 * top level); pids (a space-separated list, or NULL) go to
 * set_ftrace_pid, with options/function-fork when children is set.
 * 0 or -errno, said through kt_log() with the file and the reason.
 */
int kt_ftracer_set(struct tracefs_instance *inst, const struct kt_ftrace_opts *o,
		   const char *pids, bool children);

/* Stop the tracer and clear what kt_ftracer_set() wrote. */
void kt_ftracer_clear(struct tracefs_instance *inst,
		      const struct kt_ftrace_opts *o);

#endif
