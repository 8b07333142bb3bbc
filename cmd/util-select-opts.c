// SPDX-License-Identifier: GPL-2.0
/*
 * The selection options of report and analyze.  See util-select-opts.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cmd.h"
#include "util-select-opts.h"

/* Add to the selection; argp_error() when there are too many. */
static void add_sel(struct argp_state *state, int ret, const char *what)
{
	if (ret == -E2BIG)
		argp_error(state, "too many %s (at most %d)", what, KT_SELECT_MAX);
	if (ret)
		argp_failure(state, KT_EXIT_FAIL, -ret, "cannot add %s", what);
}

error_t select_opt(struct kt_select *sel, int key, char *arg,
		   struct argp_state *state)
{
	char *end;
	long v;

	switch (key) {
	case KT_OPT_SEL_CPU: kt_select_set_cpus(sel, arg); break;
	case 'e': add_sel(state, kt_select_add_event(sel, arg), "-e"); break;
	case 'F': add_sel(state, kt_select_add_filter(sel, arg), "-F"); break;
	case KT_OPT_SEL_COMM: add_sel(state, kt_select_add_comm(sel, arg), "--comm"); break;
	case KT_OPT_SEL_PID:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 0 || v > INT_MAX)
			argp_error(state, "bad --pid '%s'; give a process id", arg);
		add_sel(state, kt_select_add_pid(sel, (int)v), "--pid");
		break;
	case KT_OPT_SEL_FROM: kt_select_set_from(sel, arg); break;
	case KT_OPT_SEL_TO: kt_select_set_to(sel, arg); break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}
