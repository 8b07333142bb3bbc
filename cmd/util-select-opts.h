/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selection options of the commands that read a recording (report,
 * analyze): -e, -F, --pid, --comm, --cpu, --from and --to, argp's side of
 * struct kt_select (decode/select.h).
 */
#ifndef KT_SELECT_OPTS_H
#define KT_SELECT_OPTS_H

#include <argp.h>

#include "decode/select.h"

enum {
	KT_OPT_SEL_CPU = 200,
	KT_OPT_SEL_PID,
	KT_OPT_SEL_COMM,
	KT_OPT_SEL_FROM,
	KT_OPT_SEL_TO,
};

/* The argp entries, for a command's options[]. */
#define KT_SELECT_OPTIONS \
	{ "cpu", KT_OPT_SEL_CPU, "LIST", 0, "only these CPUs, e.g. 0,2-3", 0 }, \
	{ "event", 'e', "EVENT", 0, "only this event (name, system:name, system, glob); repeatable", 0 }, \
	{ "filter", 'F', "FILTER", 0, "libtraceevent filter, e.g. 'sched_switch: next_pid == 1'; repeatable", 0 }, \
	{ "pid", KT_OPT_SEL_PID, "PID", 0, "only events of this task; repeatable", 0 }, \
	{ "comm", KT_OPT_SEL_COMM, "NAME", 0, "only events of tasks named NAME (glob); repeatable", 0 }, \
	{ "from", KT_OPT_SEL_FROM, "T", 0, "start at T: seconds after the first event (5.0), or @T absolute as printed (@462.930127)", 0 }, \
	{ "to", KT_OPT_SEL_TO, "T", 0, "stop after T (same forms as --from)", 0 }

/*
 * parse_opt() for those: handles its keys into sel and returns
 * ARGP_ERR_UNKNOWN for the rest.  Bad values are argp usage errors.
 */
error_t select_opt(struct kt_select *sel, int key, char *arg,
		   struct argp_state *state);

#endif
