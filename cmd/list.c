// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace list: what this kernel offers, as text for people and the
 * completion scripts (one name a line first) or as JSON for programs.
 *
 * Everything but --fields works from directory names and a few small
 * control files: listing 2000+ events is ~100 readdir calls, no format
 * file is opened (list.bats checks with strace).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "cmd.h"
#include "base/aliases.h"
#include "base/editdist.h"
#include "live/events/evformat.h"
#include "live/tracefs/kfunc.h"
#include "live/tracefs/tracefs.h"
#include "base/log.h"

enum list_kind { LIST_EVENTS, LIST_SYSTEMS, LIST_TRACERS, LIST_OPTIONS,
		 LIST_ALIASES, LIST_FUNCTIONS };

static const char *const kind_names[] = {
	[LIST_EVENTS] = "events",
	[LIST_SYSTEMS] = "systems",
	[LIST_TRACERS] = "tracers",
	[LIST_OPTIONS] = "options",
	[LIST_ALIASES] = "aliases",
	[LIST_FUNCTIONS] = "functions",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

struct list_opts {
	enum list_kind kind;
	bool kind_given;
	const char *glob;
	const char *fields;
	bool json;
};

enum { OPT_JSON = 256, OPT_FIELDS, OPT_BACKEND };

static const struct argp_option options[] = {
	{ "fields", OPT_FIELDS, "EVENT", 0,
	  "show the fields and print format of EVENT (a name or glob)", 0 },
	{ "json", OPT_JSON, NULL, 0, "print JSON instead of text", 0 },
	{ "backend", OPT_BACKEND, "ftrace|module", 0,
	  "only ftrace's events, or only ktrace.ko's (system ktrace)", 0 },
	{ 0 }
};

static const char args_doc[] =
	"[events|systems|tracers|options|aliases|functions] [GLOB]\n--fields EVENT";

static const char doc[] =
	"List what this kernel can trace."
	"\vWith no arguments, lists every event as system:event.  GLOB "
	"filters the list; for events it works as an -e spec does "
	"('sched:*', '*wakeup*', 'sched', a classic alias).  "
	"See ktrace-list(1).";

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The list kind a word names, or -1. */
static int kind_of(const char *word)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (!strcmp(word, kind_names[i]))
			return (int)i;
	return -1;
}

/* A word that is not a kind but looks like a misspelt one. */
static const char *kind_like(const char *word)
{
	size_t i;

	if (strchr(word, ':') || has_glob(word))
		return NULL;
	for (i = 0; i < NKINDS; i++)
		if (kt_edit_distance(word, kind_names[i]) <= 2)
			return kind_names[i];
	return NULL;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct list_opts *o = state->input;
	const char *like;
	int kind;

	switch (key) {
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_FIELDS:
		o->fields = arg;
		break;
	case OPT_BACKEND:
		backend_option(state, arg);
		break;
	case ARGP_KEY_ARG:
		kind = kind_of(arg);
		if (state->arg_num == 0 && kind >= 0) {
			o->kind = kind;
			o->kind_given = true;
		} else if (!o->glob) {
			/* "ktrace list sched:*" means events. */
			if (state->arg_num == 0 && (like = kind_like(arg)))
				argp_error(state, "unknown list '%s'; did you mean '%s'?",
					   arg, like);
			o->glob = arg;
		} else {
			argp_error(state, "too many arguments: '%s'; give one GLOB", arg);
		}
		break;
	case ARGP_KEY_END:
		if (o->fields && (o->kind_given || o->glob))
			argp_error(state, "--fields takes an event and no list name or GLOB");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc,
				  NULL, NULL, NULL };

static bool glob_ok(const char *glob, const char *name)
{
	return !glob || !fnmatch(glob, name, 0);
}

/*
 * JSON output is an array of flat objects, one a line: item() opens the
 * nth with its first key, str() adds a string member.
 */
static void item(size_t nth, const char *key, const char *val)
{
	printf("%s\n {\"%s\":", nth ? "," : "", key);
	kt_json_put_str(stdout, val);
}

static void str(const char *key, const char *val)
{
	printf(",\"%s\":", key);
	kt_json_put_str(stdout, val);
}

/* Close the JSON array; a GLOB that matched nothing is an error. */
static int list_end(const struct list_opts *o, size_t shown,
		    const char *what)
{
	if (o->json)
		puts(shown ? "\n]" : "]");
	if (!shown && o->glob) {
		kt_err("no %s matches '%s'; see 'ktrace list %s'", what,
		       o->glob, kind_names[o->kind]);
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}

/* ---- events and systems ---- */

static struct kt_catalog *load_catalog(void)
{
	struct kt_catalog *cat = kt_catalog_load(NULL);

	if (!cat)
		kt_err("cannot read the event list of tracefs: %s", strerror(errno));
	return cat;
}

/*
 * "sched:..." needs only sched's directory; a miss reads them all, to
 * say what is wrong and what is close.  NULL when it does not apply.
 */
static struct kt_event_list *select_in_system(const char *glob)
{
	const char *colon = strchr(glob, ':');
	struct kt_event_list *sel = NULL;
	struct kt_catalog *cat;
	char *sys;

	if (!colon || colon == glob)
		return NULL;
	sys = strndup(glob, colon - glob);
	if (!sys || has_glob(sys)) {
		free(sys);
		return NULL;
	}
	cat = kt_catalog_load_system(NULL, sys);
	free(sys);
	if (cat && (sel = kt_event_list_new()) &&
	    kt_evspec_resolve(cat, glob, 0, sel) <= 0) {
		kt_event_list_free(sel);
		sel = NULL;
	}
	kt_catalog_free(cat);
	return sel;
}

/*
 * The events a GLOB names, by -e rules; a bare name in several systems
 * lists them all rather than being ambiguous.  NULL once the reason is
 * printed.
 */
static struct kt_event_list *select_events(const char *glob)
{
	struct kt_event_list *sel;
	struct kt_catalog *cat;

	sel = select_in_system(glob);
	if (sel)
		return sel;
	cat = load_catalog();
	if (!cat)
		return NULL;
	sel = kt_event_list_new();
	if (!sel)
		kt_err("cannot list events: %s", strerror(ENOMEM));
	else if (kt_event_spec_resolve(cat, glob, KT_EVSPEC_EVERY_SYSTEM, sel)) {
		kt_event_list_free(sel);
		sel = NULL;
	}
	kt_catalog_free(cat);
	return sel;
}

static void print_event(const struct list_opts *o, size_t nth,
			const struct kt_event_ref *r)
{
	if (!o->json) {
		fputs(r->system, stdout);
		putchar(':');
		fputs(r->name, stdout);
		putchar('\n');
		return;
	}
	item(nth, "system", r->system);
	str("event", r->name);
	putchar('}');
}

static int list_events(const struct list_opts *o)
{
	struct kt_event_list *sel = NULL;
	struct kt_catalog *cat = NULL;
	size_t i, n;
	int status;

	/* Everything: straight from the catalog, no copy to filter into. */
	if (o->glob)
		sel = select_events(o->glob);
	else
		cat = load_catalog();
	if (!sel && !cat)
		return KT_EXIT_FAIL;
	n = sel ? kt_event_list_count(sel) : kt_catalog_count(cat);
	if (o->json)
		putchar('[');
	for (i = 0; i < n; i++)
		print_event(o, i, sel ? kt_event_list_at(sel, i) : kt_catalog_at(cat, i));
	status = list_end(o, n, "event");
	kt_event_list_free(sel);
	kt_catalog_free(cat);
	return status;
}

static int list_systems(const struct list_opts *o)
{
	const char *const *sys;
	struct kt_catalog *cat;
	size_t i, j, n, nev, shown = 0;

	cat = load_catalog();
	if (!cat)
		return KT_EXIT_FAIL;
	n = kt_catalog_systems(cat, &sys);
	nev = kt_catalog_count(cat);
	if (o->json)
		putchar('[');
	/* The catalog is sorted by system, so one pass counts them all. */
	for (i = 0, j = 0; i < n; i++) {
		size_t count = 0;

		while (j < nev && strcmp(kt_catalog_at(cat, j)->system, sys[i]) < 0)
			j++;
		while (j < nev && !strcmp(kt_catalog_at(cat, j)->system, sys[i])) {
			count++;
			j++;
		}
		if (!glob_ok(o->glob, sys[i]))
			continue;
		if (!o->json) {
			printf("%s\n", sys[i]);
		} else {
			item(shown, "system", sys[i]);
			printf(",\"events\":%zu}", count);
		}
		shown++;
	}
	kt_catalog_free(cat);
	return list_end(o, shown, "system");
}

/* ---- tracers and options ---- */

static int list_tracers(const struct list_opts *o)
{
	char *avail, *current, *tok, *save = NULL, *nl;
	size_t shown = 0;

	avail = kt_tracefs_read(NULL, "available_tracers");
	if (!avail) {
		kt_err("cannot read 'available_tracers': %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	current = kt_tracefs_read(NULL, "current_tracer");
	if (current && (nl = strchr(current, '\n')))
		*nl = '\0';
	if (o->json)
		putchar('[');
	for (tok = strtok_r(avail, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (!glob_ok(o->glob, tok))
			continue;
		if (!o->json) {
			printf("%s\n", tok);
		} else {
			item(shown, "tracer", tok);
			printf(",\"current\":%s}",
			       current && !strcmp(current, tok) ? "true" : "false");
		}
		shown++;
	}
	free(current);
	free(avail);
	return list_end(o, shown, "tracer");
}

struct option_state {
	char *name;
	bool on;
};

static int cmp_option(const void *a, const void *b)
{
	return strcmp(((const struct option_state *)a)->name,
		      ((const struct option_state *)b)->name);
}

static void free_options(struct option_state *opt, size_t n)
{
	while (n--)
		free(opt[n].name);
	free(opt);
}

/*
 * options/ has one 0/1 file per option, the tracer's own options
 * included; trace_options says the same as "name" / "noname" lines and
 * is the fallback for kernels without options/.
 */
static int read_options(struct option_state **out, size_t *count)
{
	struct option_state *opt = NULL, *grown;
	char *text, *line, *save = NULL, *path;
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	path = tracefs_get_tracing_file("options");
	d = path ? opendir(path) : NULL;
	tracefs_put_tracing_file(path);
	while (d && (de = readdir(d))) {
		char rel[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "options/%s", de->d_name);
		text = kt_tracefs_read(NULL, rel);
		if (!text)
			continue;
		grown = realloc(opt, (n + 1) * sizeof(*opt));
		if (!grown || !(grown[n].name = strdup(de->d_name))) {
			free(text);
			opt = grown ? grown : opt;
			goto nomem;
		}
		opt = grown;
		opt[n++].on = text[0] == '1';
		free(text);
	}
	if (d) {
		closedir(d);
		goto done;
	}
	text = kt_tracefs_read(NULL, "trace_options");
	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool on = strncmp(line, "no", 2) != 0;

		grown = realloc(opt, (n + 1) * sizeof(*opt));
		if (!grown || !(grown[n].name = strdup(on ? line : line + 2))) {
			free(text);
			opt = grown ? grown : opt;
			goto nomem;
		}
		opt = grown;
		opt[n++].on = on;
	}
	free(text);
done:
	if (n > 1)
		qsort(opt, n, sizeof(*opt), cmp_option);
	*out = opt;
	*count = n;
	return 0;
nomem:
	if (d)
		closedir(d);
	free_options(opt, n);
	return -ENOMEM;
}

static int list_options(const struct list_opts *o)
{
	struct option_state *opt;
	size_t i, n, shown = 0;
	int width = 0, ret;

	ret = read_options(&opt, &n);
	if (ret) {
		kt_err("cannot read the trace options: %s", strerror(-ret));
		return KT_EXIT_FAIL;
	}
	for (i = 0; i < n; i++)
		if (glob_ok(o->glob, opt[i].name) && (int)strlen(opt[i].name) > width)
			width = strlen(opt[i].name);
	if (o->json)
		putchar('[');
	for (i = 0; i < n; i++) {
		if (!glob_ok(o->glob, opt[i].name))
			continue;
		if (!o->json) {
			printf("%-*s  %s\n", width, opt[i].name, opt[i].on ? "on" : "off");
		} else {
			item(shown, "option", opt[i].name);
			printf(",\"enabled\":%s}", opt[i].on ? "true" : "false");
		}
		shown++;
	}
	free_options(opt, n);
	return list_end(o, shown, "option");
}

/* ---- kernel functions ---- */

struct fn_walk {
	const struct list_opts *o;
	size_t shown;
};

static int list_one_function(const char *name, const char *module, void *arg)
{
	struct fn_walk *w = arg;

	/* Static functions of one name in several files: each, as listed. */
	if (!glob_ok(w->o->glob, name))
		return 0;
	if (!w->o->json) {
		printf(module ? "%s [%s]\n" : "%s\n", name, module);
	} else {
		item(w->shown, "function", name);
		if (module)
			str("module", module);
		putchar('}');
	}
	w->shown++;
	return 0;
}

static int list_functions(const struct list_opts *o)
{
	struct fn_walk w = { .o = o };
	enum kt_kfunc_source src;
	int ret, first;

	if (o->json)
		putchar('[');
	ret = kt_kernel_functions(list_one_function, &w, &src, &first);
	if (ret) {
		if (o->json)
			puts("]");
		kt_err("cannot read the kernel's functions: available_filter_functions: %s; /proc/kallsyms: %s",
		       strerror(first), strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (src == KT_KFUNC_KALLSYMS)
		kt_warn("available_filter_functions: %s; listed instead: /proc/kallsyms' functions, which kprobes can probe (the function tracer may not trace them all)",
			strerror(first));
	return list_end(o, w.shown, "function");
}

/* ---- aliases ---- */

static bool event_exists(const struct kt_catalog *cat, const char *system,
			 const char *event)
{
	size_t i, n = kt_catalog_count(cat);

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_catalog_at(cat, i);

		if (!strcmp(r->system, system) && !strcmp(r->name, event))
			return true;
	}
	return false;
}

static bool alias_matches(const char *glob, const struct kt_alias *a)
{
	char full[256];

	if (glob_ok(glob, a->classic))
		return true;
	snprintf(full, sizeof(full), "%s:%s", a->system, a->event);
	return !fnmatch(glob, full, 0);
}

static int list_aliases(const struct list_opts *o)
{
	const struct kt_alias *a;
	struct kt_catalog *cat;
	size_t i, n, shown = 0;
	int w1 = 0, w2 = 0;

	cat = load_catalog();
	if (!cat)
		return KT_EXIT_FAIL;
	a = kt_alias_table(&n);
	for (i = 0; i < n; i++) {
		int l2 = strlen(a[i].system) + 1 + strlen(a[i].event);

		if ((int)strlen(a[i].classic) > w1)
			w1 = strlen(a[i].classic);
		if (l2 > w2)
			w2 = l2;
	}
	if (o->json)
		putchar('[');
	for (i = 0; i < n; i++) {
		bool here = event_exists(cat, a[i].system, a[i].event);

		if (!alias_matches(o->glob, &a[i]))
			continue;
		if (!o->json) {
			printf("%-*s  %s:%-*s  %s%s\n", w1, a[i].classic,
			       a[i].system, w2 - (int)strlen(a[i].system) - 1,
			       a[i].event, a[i].what,
			       here ? "" : " (not in this kernel)");
			shown++;
			continue;
		}
		item(shown, "alias", a[i].classic);
		str("system", a[i].system);
		str("event", a[i].event);
		str("description", a[i].what);
		printf(",\"available\":%s}", here ? "true" : "false");
		shown++;
	}
	kt_catalog_free(cat);
	return list_end(o, shown, "alias");
}

/* ---- fields ---- */

static void print_fields_text(const struct kt_event_ref *r,
			      const struct kt_event_format *fmt, bool first)
{
	const struct kt_field *f;
	size_t i, n = kt_event_format_fields(fmt, &f);
	int wn = 5, wt = 4;

	for (i = 0; i < n; i++) {
		if ((int)strlen(f[i].name) > wn)
			wn = strlen(f[i].name);
		if ((int)strlen(f[i].type) > wt)
			wt = strlen(f[i].type);
	}
	printf("%s%s:%s (id %d)\n", first ? "" : "\n", r->system, r->name,
	       kt_event_format_id(fmt));
	printf("  %-*s  %-*s  %6s  %4s  %s\n", wn, "field", wt, "type",
	       "offset", "size", "signed");
	for (i = 0; i < n; i++)
		printf("  %-*s  %-*s  %6d  %4d  %s\n", wn, f[i].name, wt,
		       f[i].type, f[i].offset, f[i].size,
		       f[i].is_signed ? "yes" : "no");
	printf("  print fmt: %s\n", kt_event_format_print(fmt));
}

static void print_fields_json(const struct kt_event_ref *r,
			      const struct kt_event_format *fmt, bool first)
{
	const struct kt_field *f;
	size_t i, n = kt_event_format_fields(fmt, &f);

	item(!first, "system", r->system);
	str("event", r->name);
	printf(",\"id\":%d,\"fields\":[", kt_event_format_id(fmt));
	for (i = 0; i < n; i++) {
		item(i, "name", f[i].name);
		str("type", f[i].type);
		printf(",\"offset\":%d,\"size\":%d,\"signed\":%s,\"common\":%s}",
		       f[i].offset, f[i].size, f[i].is_signed ? "true" : "false",
		       f[i].common ? "true" : "false");
	}
	putchar(']');
	str("print_fmt", kt_event_format_print(fmt));
	putchar('}');
}

static int list_fields(const struct list_opts *o)
{
	struct kt_event_list *sel = select_events(o->fields);
	struct kt_event_format *fmt;
	size_t i, n, shown = 0;
	int status = KT_EXIT_OK;

	if (!sel)
		return KT_EXIT_FAIL;
	/* libtraceevent's complaints about exotic print formats are noise here. */
	tep_set_loglevel(TEP_LOG_NONE);
	n = kt_event_list_count(sel);
	if (o->json)
		putchar('[');
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(sel, i);

		fmt = kt_event_format_open(r->system, r->name);
		if (!fmt) {
			kt_err("cannot read the format of '%s:%s': %s",
			       r->system, r->name, strerror(errno));
			status = KT_EXIT_FAIL;
			continue;
		}
		if (o->json)
			print_fields_json(r, fmt, !shown);
		else
			print_fields_text(r, fmt, !shown);
		shown++;
		kt_event_format_close(fmt);
	}
	if (o->json)
		puts(shown ? "\n]" : "]");
	kt_event_list_free(sel);
	return status;
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { .kind = LIST_EVENTS };

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	if (need_backend())
		return KT_EXIT_FAIL;
	if (o.fields)
		return list_fields(&o);
	switch (o.kind) {
	case LIST_SYSTEMS:
		return list_systems(&o);
	case LIST_TRACERS:
		return list_tracers(&o);
	case LIST_OPTIONS:
		return list_options(&o);
	case LIST_ALIASES:
		return list_aliases(&o);
	case LIST_FUNCTIONS:
		return list_functions(&o);
	case LIST_EVENTS:
	default:
		return list_events(&o);
	}
}
