// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace enable: switch events on (with a filter) or off, in the
 * top-level buffer or a named instance.
 *
 * All or nothing: every spec is resolved before anything is touched, each
 * event's enable/filter pair is saved before it is changed, and the first
 * failure puts back every pair changed so far and removes an instance
 * this run created.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "live/tracefs/errlog.h"
#include "live/events/evstate.h"
#include "live/tracefs/tracefs.h"
#include "base/log.h"
#include "live/events/evhome.h"

struct enable_opts {
	const char *instance;
	const char *filter;
	bool disable;
	char **specs;
	int nspecs;
};

enum { OPT_BACKEND = 256 };

static const struct argp_option options[] = {
	{ "instance", 'B', "NAME", 0,
	  "work in tracefs instance NAME, creating it if needed", 0 },
	{ "filter", 'f', "FILTER", 0,
	  "set this ftrace filter expression on every EVENT ('' clears it)", 0 },
	{ "disable", 'd', NULL, 0,
	  "turn the events off and clear their filters", 0 },
	{ "backend", OPT_BACKEND, "ftrace|module", 0,
	  "names mean ftrace's events, or ktrace.ko's (default: a bare name ktrace.ko offers is its own)", 0 },
	{ 0 }
};

static const char args_doc[] = "EVENT...";

static const char doc[] =
	"Turn events on or off, with filters."
	"\vEVENT is system:event, a bare event name, a classic alias or a "
	"glob ('sched:*', '*wakeup*'); see 'ktrace list'.  Nothing changes "
	"unless every EVENT is known and every filter is accepted.  "
	"See ktrace-enable(1).";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct enable_opts *o = state->input;

	switch (key) {
	case 'B':
		if (!*arg)
			argp_error(state, "-B needs an instance name");
		o->instance = arg;
		break;
	case 'f':
		o->filter = arg;
		break;
	case 'd':
		o->disable = true;
		break;
	case OPT_BACKEND:
		backend_option(state, arg);
		break;
	case ARGP_KEY_ARGS:
		o->specs = state->argv + state->next;
		o->nspecs = state->argc - state->next;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "name at least one EVENT (see 'ktrace list')");
		break;
	case ARGP_KEY_END:
		if (o->disable && o->filter)
			argp_error(state, "-d and -f conflict: -d already clears the filter");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc,
				  NULL, NULL, NULL };

/* An event of ktrace.ko rather than of ftrace. */
static bool is_module(const struct kt_event_ref *r)
{
	return kt_event_where(r->system) == KT_EVENT_MODULE;
}

/* Events of the ftrace system are written by tracers and have no switch. */
static bool can_enable(const char *tracing_dir, const struct kt_event_ref *r)
{
	return kt_event_has_switch(tracing_dir, r->system, r->name);
}

/*
 * Resolve one spec into out.  A glob quietly leaves out events that
 * cannot be switched (ftrace:*); a spec naming only such events fails.
 */
static int resolve_spec(const struct kt_catalog *cat, const char *dir,
			const char *spec, struct kt_event_list *out)
{
	struct kt_event_list *found = kt_event_list_new();
	const struct kt_event_ref *r, *first = NULL;
	size_t i, n, added = 0;
	int status = KT_EXIT_FAIL;

	if (!found) {
		kt_err("cannot resolve '%s': %s", spec, strerror(ENOMEM));
		return KT_EXIT_FAIL;
	}
	if (kt_event_spec_resolve(cat, spec, 0, found))
		goto out;
	n = kt_event_list_count(found);
	for (i = 0; i < n; i++) {
		r = kt_event_list_at(found, i);
		if (!can_enable(dir, r)) {
			if (!first)
				first = r;
			continue;
		}
		if (kt_event_list_add(out, r->system, r->name) < 0) {
			kt_err("cannot resolve '%s': %s", spec, strerror(ENOMEM));
			goto out;
		}
		added++;
	}
	if (!added && n == 1) {
		kt_err("'%s:%s' cannot be switched on: a tracer writes it; see 'ktrace list tracers'",
		       first->system, first->name);
		goto out;
	}
	if (!added) {
		kt_err("'%s' names no event that can be switched on ('%s:%s' and the others are written by tracers); see 'ktrace list tracers'",
		       spec, first->system, first->name);
		goto out;
	}
	status = KT_EXIT_OK;
out:
	kt_event_list_free(found);
	return status;
}

/* ktrace.ko's events have neither filters nor instances. */
static int check_module_events(const struct enable_opts *o,
			       const struct kt_event_list *events)
{
	size_t i, n = kt_event_list_count(events);

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!is_module(r))
			continue;
		if (o->filter) {
			kt_err("'%s:%s' is ktrace.ko's and takes no filter; drop -f or use ftrace's event (see 'ktrace list aliases')",
			       r->system, r->name);
			return KT_EXIT_FAIL;
		}
		if (o->instance) {
			kt_err("'%s:%s' is ktrace.ko's, which has no instances; drop -B",
			       r->system, r->name);
			return KT_EXIT_FAIL;
		}
	}
	return KT_EXIT_OK;
}

/* Every spec, all reported before giving up; the union, de-duplicated. */
static struct kt_event_list *resolve_all(const struct enable_opts *o)
{
	struct kt_event_list *events;
	struct kt_catalog *cat;
	const char *dir = tracefs_tracing_dir();
	int i, bad = 0;

	cat = dir ? kt_catalog_load(dir) : NULL;
	if (!cat) {
		kt_err("cannot read the event list of tracefs: %s",
		       strerror(dir ? errno : ENODEV));
		return NULL;
	}
	events = kt_event_list_new();
	for (i = 0; events && i < o->nspecs; i++)
		bad |= resolve_spec(cat, dir, o->specs[i], events);
	if (!events)
		kt_err("cannot resolve events: %s", strerror(ENOMEM));
	kt_catalog_free(cat);
	if (bad) {
		kt_event_list_free(events);
		return NULL;
	}
	return events;
}

/*
 * The kernel's error_log entry, in one line (live/tracefs/errlog.h): "Field not
 * found (column 11)".  Without an error_log, the rejected filter file
 * itself says "parse_error: Field not found".
 */
static void filter_reason(const char *why, const char *filter_text,
			  char *buf, size_t len)
{
	const char *msg, *eol;
	struct kt_errlog e;

	if (!kt_errlog_parse(why, &e) && *e.reason) {
		if (e.column > 0)
			snprintf(buf, len, "%s (column %ld)", e.reason, e.column);
		else
			snprintf(buf, len, "%s", e.reason);
	} else if (filter_text && (msg = strstr(filter_text, "parse_error: "))) {
		msg += strlen("parse_error: ");
		eol = strchrnul(msg, '\n');
		snprintf(buf, len, "%.*s", (int)(eol - msg), msg);
	} else {
		snprintf(buf, len, "%s", strerror(EINVAL));
	}
}

/* Say why the kernel refused a filter, in one line. */
static void bad_filter(const struct enable_opts *o,
		       struct tracefs_instance *inst,
		       const struct kt_event_ref *r, const char *why)
{
	char reason[512], *rel = NULL, *text = NULL;

	if (!why && asprintf(&rel, "events/%s/%s/filter", r->system, r->name) >= 0)
		text = kt_tracefs_read(inst, rel);
	filter_reason(why, text, reason, sizeof(reason));
	kt_err("the kernel rejects filter '%s' for '%s:%s': %s; nothing was changed; see 'ktrace list --fields %s:%s'",
	       o->filter, r->system, r->name, reason, r->system, r->name);
	free(text);
	free(rel);
}

/* Change one event; 0 or KT_EXIT_FAIL with the reason printed. */
static int apply(const struct enable_opts *o, struct tracefs_instance *inst,
		 const struct kt_event_ref *r)
{
	char *why = NULL;
	int ret;

	if (is_module(r)) {
		/* ktrace.ko's events have no filters and no instances. */
		ret = kt_event_switch_set(NULL, r->system, r->name, !o->disable);
	} else if (o->disable) {
		ret = kt_event_switch_set(inst, r->system, r->name, false);
		if (!ret)
			ret = kt_event_set_filter(inst, r->system, r->name,
						  NULL, NULL);
	} else {
		/* The filter first, so no unfiltered event slips through. */
		if (o->filter) {
			ret = kt_event_set_filter(inst, r->system, r->name,
						  o->filter, &why);
			if (ret == -EINVAL) {
				bad_filter(o, inst, r, why);
				free(why);
				return KT_EXIT_FAIL;
			}
			free(why);
			if (ret)
				goto fail;
		}
		ret = kt_event_switch_set(inst, r->system, r->name, true);
	}
	if (!ret)
		return KT_EXIT_OK;
fail:
	kt_err("cannot %s '%s:%s' in %s: %s; nothing was changed",
	       o->disable ? "disable" : "enable", r->system, r->name,
	       kt_instance_label(inst), strerror(-ret));
	return KT_EXIT_FAIL;
}

static int open_instance(const struct enable_opts *o,
			 struct tracefs_instance **inst, bool *created)
{
	/* Switching off never creates an instance just to find it empty. */
	int ret = kt_instance_open(o->instance, !o->disable, inst, created);

	return kt_instance_explain(o->instance, ret) ? KT_EXIT_FAIL : KT_EXIT_OK;
}

static bool interrupted(const sigset_t *held)
{
	sigset_t pending;
	int sig;

	if (sigpending(&pending))
		return false;
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(held, sig) == 1 && sigismember(&pending, sig) == 1)
			return true;
	return false;
}

/* "enabled sched:sched_switch, sched:sched_wakeup in instance 'x'" */
static void summary(const struct enable_opts *o,
		    struct tracefs_instance *inst, bool created,
		    const struct kt_event_list *events)
{
	size_t i, n = kt_event_list_count(events);

	printf("%s ", o->disable ? "disabled" : "enabled");
	if (n > 4) {
		printf("%zu events", n);
	} else {
		for (i = 0; i < n; i++) {
			const struct kt_event_ref *r = kt_event_list_at(events, i);

			printf("%s%s:%s", i ? ", " : "", r->system, r->name);
		}
	}
	if (o->filter && *o->filter)
		printf(" with filter '%s'", o->filter);
	for (i = 0; i < n && is_module(kt_event_list_at(events, i)); i++)
		;
	if (n && i == n)
		printf(" in ktrace.ko\n");
	else if (inst)
		printf(" in %sinstance '%s'\n", created ? "new " : "",
		       kt_instance_label(inst));
	else
		printf(" in the top-level buffer\n");
}

int cmd_enable(int argc, char **argv)
{
	struct enable_opts o = { 0 };
	struct kt_event_state **saved;
	struct kt_event_list *events;
	struct tracefs_instance *inst;
	size_t i, n, done = 0;
	sigset_t hold, was;
	bool created;
	int status = KT_EXIT_FAIL;

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	if (need_backend())
		goto err;
	events = resolve_all(&o);
	if (!events)
		goto err;
	n = kt_event_list_count(events);
	if (check_module_events(&o, events))
		goto err_events;
	saved = calloc(n, sizeof(*saved));
	if (!saved) {
		kt_err("cannot change events: %s", strerror(ENOMEM));
		goto err_events;
	}
	/*
	 * Ctrl-C halfway through 2000 events must not leave half of them
	 * on: hold the usual signals, and undo everything when one comes.
	 */
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	sigprocmask(SIG_BLOCK, &hold, &was);
	inst = NULL;
	created = false;
	if (open_instance(&o, &inst, &created))
		goto out;
	for (done = 0; done < n; done++) {
		const struct kt_event_ref *r = kt_event_list_at(events, done);

		if (interrupted(&hold)) {
			kt_err("interrupted; nothing was changed");
			goto err_undo;
		}

		saved[done] = kt_event_state_save(inst, r->system, r->name);
		if (!saved[done]) {
			kt_err("cannot read the state of '%s:%s' in %s: %s; nothing was changed",
			       r->system, r->name, kt_instance_label(inst),
			       strerror(errno));
			goto err_undo;
		}
		if (apply(&o, inst, r)) {
			done++;
			goto err_undo;
		}
	}
	summary(&o, inst, created, events);
	status = KT_EXIT_OK;
	goto out;

err_undo:
	while (done--) {
		if (saved[done] && kt_event_state_restore(saved[done]))
			kt_warn("could not restore '%s:%s' in %s; check it with 'ktrace stat'",
				kt_event_list_at(events, done)->system,
				kt_event_list_at(events, done)->name,
				kt_instance_label(inst));
	}
	if (created) {
		kt_instance_remove(inst);
		inst = NULL;
	}
out:
	kt_instance_close(inst);
	/* A signal held until now ends the process here, as it meant to. */
	fflush(stdout);
	sigprocmask(SIG_SETMASK, &was, NULL);
	for (i = 0; i < n; i++)
		kt_event_state_free(saved[i]);
	free(saved);
err_events:
	kt_event_list_free(events);
err:
	return status;
}
