// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace reset: return tracing to a clean state.  The work is in
 * lib/live/tracefs/reset.c; this file parses options and reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "live/probes/dynevents.h"
#include "live/tracefs/tracefs.h"
#include "base/log.h"
#include "live/module/module.h"
#include "live/tracefs/reset.h"

struct reset_opts {
	const char *instance;
	bool all;
};

static const struct argp_option options[] = {
	{ "instance", 'B', "INSTANCE", 0, "reset this tracefs instance instead of the top-level buffer", 0 },
	{ "all", 'a', NULL, 0, "also remove every ktrace-* instance and ktrace_* probe not in use (left by record, top, stream)", 0 },
	{ 0 }
};

static const char args_doc[] = "";
static const char doc[] =
	"Return tracing to a clean state: events off, filters, triggers and pid "
	"filters cleared, current_tracer nop, buffer emptied, tracing on.  "
	"Without -B, ktrace.ko too when it is loaded: stopped, events off, "
	"pid filter cleared, buffers emptied.\v"
	"Files the kernel refuses to let anyone write (the function-tracer "
	"filters on a locked-down kernel) are named in one warning and left "
	"alone; everything else is still reset.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct reset_opts *o = state->input;

	switch (key) {
	case 'B':
		o->instance = arg;
		break;
	case 'a':
		o->all = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void report_refused(char **refused)
{
	char list[1024] = "";
	size_t len = 0;
	char **p;

	if (!refused || !*refused)
		return;
	for (p = refused; *p; p++)
		len += snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
				"%s%s", p == refused ? "" : ", ", *p);
	kt_warn("the kernel refuses to let us write %s; left as they are "
		"(function tracing is locked on this kernel, event tracing is not affected; see 'ktrace doctor')",
		list);
}

static void removed(const char *name, int err, void *ctx)
{
	int *failed = ctx;

	if (!err) {
		printf("removed instance '%s'\n", name);
	} else if (err == -EBUSY) {
		kt_warn("instance '%s' is in use (a ktrace still running?); not removed", name);
	} else {
		kt_err("cannot remove instance '%s': %s", name, strerror(-err));
		*failed = 1;
	}
}

static void removed_probe(const struct kt_dynevent *e, int err, void *ctx)
{
	int *failed = ctx;

	if (!err) {
		printf("removed %s '%s/%s'\n", e->kind, e->group, e->name);
	} else if (err == -EBUSY) {
		kt_warn("%s '%s/%s' is in use (enabled somewhere); not removed", e->kind,
			e->group, e->name);
	} else {
		kt_err("cannot remove %s '%s/%s': %s", e->kind, e->group, e->name,
		       strerror(-err));
		*failed = 1;
	}
}

int cmd_reset(int argc, char **argv)
{
	static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	struct reset_opts o = { 0 };
	struct tracefs_instance *inst = NULL;
	char **refused = NULL;
	int ret, failed = 0;

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	if (instance_arg_lookup(o.instance, &inst))
		return KT_EXIT_FAIL;

	ret = kt_instance_reset(inst, &refused);
	report_refused(refused);
	kt_reset_refused_free(refused);
	kt_instance_close(inst);
	if (ret)
		failed = 1;
	/* The top level's reset covers ktrace.ko too: it has no instances. */
	if (!o.instance && kt_events_use_module()) {
		ret = kt_module_reset();
		if (ret) {
			kt_err("cannot reset ktrace.ko: %s; see 'ktrace stat'",
			       strerror(-ret));
			failed = 1;
		}
	}

	if (o.all) {
		ret = kt_instances_remove_ours(removed, &failed);
		if (ret < 0) {
			kt_err("cannot list the tracefs instances: %s", strerror(-ret));
			failed = 1;
		}
		/* After the instances: a probe enabled in one is busy till then. */
		ret = kt_dynevents_remove_ours(removed_probe, &failed);
		if (ret < 0) {
			kt_err("cannot read the dynamic events: %s", strerror(-ret));
			failed = 1;
		}
	}
	return failed ? KT_EXIT_FAIL : KT_EXIT_OK;
}
