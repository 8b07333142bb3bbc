// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace doctor: before recording, what will and will not work here, and
 * why.  Every check is a real attempt where one is possible (lib/live/tracefs/caps.c);
 * the results are gathered first and printed as one line each, or JSON.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "live/tracefs/tracefs.h"
#include "base/log.h"
#include "live/tracefs/caps.h"
#include "live/probes/ftracer.h"
#include "live/tracefs/switchgaps.h"

struct doctor_opts {
	bool json;
};

static const struct argp_option options[] = {
	{ "json", 'j', NULL, 0, "print JSON for scripts", 0 },
	{ 0 }
};

static const char args_doc[] = "";
static const char doc[] =
	"Check what tracing will and will not work here, and why: tracefs, "
	"refused control files, lockdown, kernel features, clocks, the ktrace "
	"module and the event formats.  One line per check: ok, warn or fail, "
	"and for warn and fail the fix.\v"
	"Exit status 0 when recording events will work.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct doctor_opts *o = state->input;

	switch (key) {
	case 'j':
		o->json = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- results ---- */

enum status { ST_OK, ST_WARN, ST_FAIL };
static const char *const status_name[] = { "ok", "warn", "fail" };

struct check {
	const char *id;		/* stable name for scripts */
	enum status status;
	char *text;		/* "tracefs: mounted at /sys/kernel/tracing" */
	char *fix;		/* NULL when there is nothing to do */
	char **items;		/* the files, events, clocks it is about */
	size_t nitems;
};

#define MAX_CHECKS 32
static struct check checks[MAX_CHECKS];
static size_t nchecks;

static struct check *add(const char *id, enum status st, const char *fix,
			 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct check *add(const char *id, enum status st, const char *fix,
			 const char *fmt, ...)
{
	struct check *c = &checks[nchecks < MAX_CHECKS ? nchecks++ : MAX_CHECKS - 1];
	va_list ap;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->status = st;
	va_start(ap, fmt);
	if (vasprintf(&c->text, fmt, ap) < 0)
		c->text = NULL;
	va_end(ap);
	c->fix = fix ? strdup(fix) : NULL;
	return c;
}

static void add_item(struct check *c, const char *item)
{
	char **n = realloc(c->items, (c->nitems + 1) * sizeof(*n));

	if (!n)
		return;
	c->items = n;
	if ((n[c->nitems] = strdup(item)))
		c->nitems++;
}

/* "a, b, c" of a check's items, into buf. */
static const char *items_joined(const struct check *c, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < c->nitems && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				c->items[i]);
	return buf;
}

static void free_checks(void)
{
	size_t i, k;

	for (i = 0; i < nchecks; i++) {
		free(checks[i].text);
		free(checks[i].fix);
		for (k = 0; k < checks[i].nitems; k++)
			free(checks[i].items[k]);
		free(checks[i].items);
	}
	nchecks = 0;
}

/* ---- the checks ---- */

struct doctor {
	const char *dir;	/* tracing directory, NULL without access */
	struct kt_kconfig *kc;	/* NULL when the config cannot be found */
	struct tracefs_instance *scratch;
	bool function_refused;
	bool recording_works;
};

static bool exists_in(const char *dir, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return access(path, F_OK) == 0;
}

/* tracefs mounted and writable; fills d->dir when it is. */
static void check_tracefs(struct doctor *d)
{
	const char *dir = NULL;
	char mnt[4096];
	bool was_mounted = !kt_tracefs_mount_point(mnt, sizeof(mnt));
	int ret;

	ret = kt_tracefs_open(&dir);
	if (!ret) {
		add("tracefs", ST_OK, NULL, "tracefs: mounted at %s%s", dir,
		    was_mounted ? "" : " (ktrace mounted it)");
		add("tracefs_access", ST_OK, NULL, "tracefs access: writable");
		d->dir = dir;
		return;
	}
	if (ret == -EACCES && was_mounted) {
		add("tracefs", ST_OK, NULL, "tracefs: mounted at %s", mnt);
		add("tracefs_access", ST_FAIL,
		    "run as root (or with CAP_SYS_ADMIN and write access to tracefs)",
		    "tracefs access: cannot write %s/tracing_on: Permission denied; no tracefs check below can run",
		    mnt);
	} else if (ret == -EACCES) {
		add("tracefs", ST_FAIL, "run as root: ktrace mounts it itself",
		    "tracefs: not mounted, and only root can mount it");
		add("tracefs_access", ST_FAIL, "run as root",
		    "tracefs access: none; no tracefs check below can run");
	} else {
		add("tracefs", ST_FAIL,
		    "mount -t tracefs nodev /sys/kernel/tracing, on a kernel built with CONFIG_FTRACE=y",
		    "tracefs: not available and could not be mounted: %s",
		    strerror(-ret));
	}
}

/* The control files recording needs, probed in the scratch instance. */
static void check_control_files(struct doctor *d)
{
	static const struct {
		const char *file;
		bool essential;
	} files[] = {
		{ "tracing_on", true }, { "buffer_size_kb", true },
		{ "events/enable", true }, { "set_event", true },
		{ "trace", true }, { "current_tracer", false },
		{ "trace_clock", false }, { "set_event_pid", false },
		{ "set_event_notrace_pid", false }, { "trace_marker", false },
	};
	struct check *c;
	char path[4096], list[1024];
	enum status st = ST_OK;
	char *dir = tracefs_instance_get_dir(d->scratch);
	size_t i;
	int ret;

	c = add("control_files", ST_OK, NULL, "control files: ");
	for (i = 0; dir && i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].file);
		ret = kt_caps_open_write(path);
		if (ret == -EPERM || ret == -EACCES) {
			add_item(c, files[i].file);
			if (files[i].essential)
				st = ST_FAIL;
			else if (st == ST_OK)
				st = ST_WARN;
		}
	}
	free(dir);
	free(c->text);
	c->status = st;
	if (st == ST_OK) {
		c->text = strdup("control files: tracing_on, buffer_size_kb, set_event, events/enable, trace_marker and the rest are writable");
		return;
	}
	if (asprintf(&c->text, "control files: the kernel refuses %s%s",
		     items_joined(c, list, sizeof(list)),
		     st == ST_FAIL ? "; events cannot be recorded" : "") < 0)
		c->text = NULL;
	c->fix = strdup("see the lockdown line; a security module or container may forbid tracefs writes");
}

/*
 * Does the kernel keep every sched_switch record?  A gap in a CPU's chain
 * of switches is a record lost with no counter showing it.
 */
static void check_switch_chain(struct doctor *d)
{
	struct kt_switch_gaps g;
	int ret = kt_switch_gaps_probe(d->scratch, 200, &g);

	if (ret) {
		add("switch_records", ST_WARN, "none; see the event recording line",
		    "sched_switch records: cannot record them to check: %s", strerror(-ret));
	} else if (!g.switches) {
		add("switch_records", ST_WARN, "check tracing_cpumask",
		    "sched_switch records: none recorded in 0.2 s of sleeps");
	} else if (!g.gaps) {
		add("switch_records", ST_OK, NULL,
		    "sched_switch records: complete (%lu switches in 0.2 s of sleeps, no gap)",
		    g.switches);
	} else {
		add("switch_records", ST_WARN,
		    "none in ktrace; report --stacks=offcpu ends a time off at the task's next event where its switch is missing, and says so",
		    "sched_switch records: %lu gaps in %lu switches recorded in 0.2 s of sleeps: the kernel dropped records%s",
		    g.gaps, g.switches, g.counted ? "" : " without counting them (its loss counters read 0)");
	}
}

/* Enable an event in the scratch instance and see it recorded. */
static void check_recording(struct doctor *d)
{
	const char *event = NULL;
	long n = kt_caps_record(d->scratch, &event);

	if (n > 0) {
		add("event_recording", ST_OK, NULL,
		    "event recording: %s enabled in a scratch instance recorded %ld events",
		    event, n);
		d->recording_works = true;
	} else if (n == 0) {
		add("event_recording", ST_FAIL,
		    "check tracing_cpumask and the tracing_on of the top-level buffer",
		    "event recording: %s was enabled but nothing was recorded", event);
	} else {
		add("event_recording", ST_FAIL,
		    "see the control files and lockdown lines",
		    "event recording: no event can be enabled: %s", strerror(-n));
	}
}

/*
 * The function-tracer files, ftrace_enabled, and starting the function
 * tracer in the scratch instance.
 */
static void check_function_files(struct doctor *d)
{
	static const char *const files[] = {
		"set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid",
		"set_ftrace_notrace_pid", "set_graph_function", "set_graph_notrace",
	};
	struct check *c;
	char path[4096], list[1024];
	size_t i;
	int ret;

	c = add("function_files", ST_OK, NULL, "function-tracer files: ");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", d->dir, files[i]);
		ret = kt_caps_open_write(path);
		if (ret == -EPERM || ret == -EACCES)
			add_item(c, files[i]);
	}
	ret = kt_caps_sysctl_write("/proc/sys/kernel/ftrace_enabled");
	if (ret == -EPERM || ret == -EACCES)
		add_item(c, "/proc/sys/kernel/ftrace_enabled");
	free(c->text);
	if (!c->nitems) {
		c->text = strdup("function-tracer files: writable");
		return;
	}
	d->function_refused = true;
	c->status = ST_WARN;
	if (asprintf(&c->text, "function-tracer files: the kernel refuses %s: the function tracers and pid-based function filtering will not work; event tracing still works",
		     items_joined(c, list, sizeof(list))) < 0)
		c->text = NULL;
	c->fix = strdup("nothing for event tracing; for function tracing, a kernel or sandbox that allows dynamic ftrace (see the lockdown line)");
}

static void check_lockdown(struct doctor *d)
{
	const char *force = NULL;
	char mode[64];
	int ret = kt_lockdown_read(mode, sizeof(mode));

	if (d->kc) {
		if (kt_kconfig_get(d->kc, "CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY"))
			force = "confidentiality";
		else if (kt_kconfig_get(d->kc, "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY"))
			force = "integrity";
	}
	if (!ret && !strcmp(mode, "confidentiality"))
		add("lockdown", ST_FAIL, "boot with lockdown=integrity or lockdown=none",
		    "lockdown: confidentiality: tracefs and kprobes are locked");
	else if (!ret && !strcmp(mode, "integrity"))
		add("lockdown", ST_OK, NULL,
		    "lockdown: integrity: tracing allowed, but not kprobes on raw addresses");
	else if (!ret)
		add("lockdown", ST_OK, NULL, "lockdown: %s", mode);
	else if (d->kc && !kt_kconfig_get(d->kc, "CONFIG_SECURITY_LOCKDOWN_LSM"))
		add("lockdown", ST_OK, NULL,
		    "lockdown: none (no lockdown LSM in this kernel)");
	else if (ret == -ENOENT && access("/sys/kernel/security/lsm", F_OK))
		add("lockdown", ST_WARN,
		    "mount -t securityfs securityfs /sys/kernel/security",
		    "lockdown: unknown, securityfs is not mounted%s%s%s",
		    force ? " (the kernel config forces " : "",
		    force ? force : "", force ? " mode)" : "");
	else
		add("lockdown", ST_OK, NULL, "lockdown: none (no lockdown LSM active)");
}

static void check_config(struct doctor *d)
{
	int ret = kt_kconfig_open(&d->kc);

	if (!ret)
		add("kernel_config", ST_OK, NULL, "kernel config: %s",
		    kt_kconfig_source(d->kc));
	else
		add("kernel_config", ST_WARN,
		    "modprobe configs (for /proc/config.gz), or install the kernel's config in /boot",
		    "kernel config: %s; the features below are found by probing tracefs only",
		    getenv("KTRACE_KCONFIG") ? "KTRACE_KCONFIG names no readable file"
		    : "neither /proc/config.gz nor /boot/config-$(uname -r) is there");
}

/* One kernel feature: found by probing tracefs, explained by the config. */
static void feature(struct doctor *d, const char *id, const char *what,
		    const char *sym, int present)
{
	const char *val = d->kc && sym ? kt_kconfig_get(d->kc, sym) : NULL;
	char fix[160];

	snprintf(fix, sizeof(fix), "a kernel built with %s=y", sym ? sym : "the feature");

	if (present < 0) {	/* no tracefs: the config is all we have */
		if (val && (!strcmp(val, "y") || !strcmp(val, "m")))
			add(id, ST_OK, NULL, "%s: built in, per the kernel config (%s=%s)",
			    what, sym, val);
		else
			add(id, ST_WARN, fix, "%s: not built in, per the kernel config",
			    what);
		return;
	}
	if (present) {
		add(id, ST_OK, NULL, "%s: available%s%s%s%s%s", what,
		    val ? " (" : "", val ? sym : "", val ? "=" : "",
		    val ? val : "", val ? ")" : "");
		return;
	}
	if (val)
		add(id, ST_WARN, fix, "%s: built in (%s=%s) but not offered by tracefs",
		    what, sym, val);
	else if (d->kc && sym)
		add(id, ST_WARN, fix, "%s: not in this kernel (%s is not set)", what, sym);
	else
		add(id, ST_WARN, fix, "%s: not in this kernel", what);
}

/*
 * A function tracer (record -p TRACER): in instances (started in the
 * scratch one, then stopped), only at the top level (which is not
 * touched: record borrows it and puts it back), or refused.
 */
static void check_tracer(struct doctor *d, const char *id, const char *tracer,
			 const char *sym)
{
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "%s tracer (record -p %s)", tracer, tracer);
	if (!d->dir || !kt_ftracer_offered(NULL, tracer)) {
		feature(d, id, what, sym, d->dir ? 0 : -1);
		return;
	}
	if (d->scratch && kt_ftracer_offered(d->scratch, tracer)) {
		ret = kt_tracefs_write(d->scratch, "current_tracer", tracer);
		kt_tracefs_write(d->scratch, "current_tracer", "nop");
		if (ret == -EPERM || ret == -EACCES)
			add(id, ST_WARN,
			    "none for event tracing; see the function-tracer files line",
			    "%s: built in, but refused: the kernel will not start it (current_tracer: %s)",
			    what, strerror(-ret));
		else if (ret)
			add(id, ST_WARN, NULL, "%s: in instances, but it does not start (current_tracer: %s)",
			    what, strerror(-ret));
		else
			add(id, ST_OK, NULL, "%s: available in instances (runs in record's private instance)",
			    what);
		return;
	}
	if (d->function_refused)
		add(id, ST_WARN,
		    "none for event tracing; see the function-tracer files line",
		    "%s: only at the top level, and refused: the kernel refuses the function tracer's files",
		    what);
	else
		add(id, ST_OK, NULL, "%s: available only at the top level (record borrows the top-level buffer and puts its settings back after)",
		    what);
}

static void check_features(struct doctor *d)
{
	const char *dir = d->dir;
	int ret;

	feature(d, "syscall_events", "syscall events", "CONFIG_FTRACE_SYSCALLS",
		dir ? exists_in(dir, "events/syscalls") : -1);
	feature(d, "kprobe_events", "kprobe events", "CONFIG_KPROBE_EVENTS",
		dir ? exists_in(dir, "kprobe_events") : -1);
	feature(d, "uprobe_events", "uprobe events", "CONFIG_UPROBE_EVENTS",
		dir ? exists_in(dir, "uprobe_events") : -1);
	/* record -T, --stack EVENT (a trigger) and user stacks. */
	feature(d, "kernel_stacks", "kernel stacks (record -T)", "CONFIG_STACKTRACE",
		dir ? exists_in(dir, "options/stacktrace") : -1);
	feature(d, "stack_triggers", "stacktrace triggers (record --stack EVENT)",
		"CONFIG_STACKTRACE",
		dir ? exists_in(dir, "options/stacktrace") &&
		      exists_in(dir, "events/sched/sched_switch/trigger") : -1);
	feature(d, "user_stacks", "user stacks (options/userstacktrace)",
		"CONFIG_USER_STACKTRACE_SUPPORT",
		dir ? exists_in(dir, "options/userstacktrace") : -1);
	feature(d, "hist_triggers", "hist triggers", "CONFIG_HIST_TRIGGERS",
		dir ? exists_in(dir, "events/sched/sched_switch/hist") : -1);
	check_tracer(d, "function_tracer", "function", "CONFIG_FUNCTION_TRACER");
	check_tracer(d, "function_graph_tracer", "function_graph",
		     "CONFIG_FUNCTION_GRAPH_TRACER");

	/* Mapping the ring buffer (6.10+) lets a reader skip the copies. */
	if (!kt_kernel_at_least(6, 10)) {
		add("buffer_mmap", ST_WARN, "a kernel 6.10 or newer",
		    "ring-buffer mmap: needs kernel 6.10; ktrace reads with splice instead");
	} else if (d->scratch) {
		ret = kt_caps_buffer_mmap(d->scratch);
		if (!ret)
			add("buffer_mmap", ST_OK, NULL,
			    "ring-buffer mmap: trace_pipe_raw maps");
		else
			add("buffer_mmap", ST_WARN, "none; ktrace reads with splice instead",
			    "ring-buffer mmap: trace_pipe_raw does not map: %s",
			    strerror(-ret));
	}
}

static void check_clocks(void)
{
	char *text = kt_tracefs_read(NULL, "trace_clock"), *tok, *save = NULL;
	char list[512], in_use[64] = "?";
	struct check *c;

	if (!text) {
		add("clocks", ST_WARN, "none", "trace clocks: cannot read trace_clock: %s",
		    strerror(errno));
		return;
	}
	c = add("clocks", ST_OK, NULL, "trace clocks: ");
	for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (*tok == '[') {
			/* "[local]": the one in use. */
			tok[strlen(tok) - 1] = '\0';
			tok++;
			snprintf(in_use, sizeof(in_use), "%s", tok);
		}
		add_item(c, tok);
	}
	free(text);
	free(c->text);
	if (asprintf(&c->text, "trace clocks: %s (in use: %s)",
		     items_joined(c, list, sizeof(list)), in_use) < 0)
		c->text = NULL;
}

static void check_module(void)
{
	if (!access("/sys/module/ktrace", F_OK))
		add("module", ST_OK, NULL, "ktrace module: loaded");
	else if (!access("/sys/kernel/debug/ktrace", F_OK))
		add("module", ST_OK, NULL, "ktrace module: loaded (debugfs ktrace/)");
	else
		add("module", ST_WARN,
		    "insmod kernel/ktrace.ko; only --backend module needs it",
		    "ktrace module: not loaded");
}

struct formats_ctx {
	struct check *c;
};

static void format_failed(const char *system, const char *event,
			  const char *why, void *ctx)
{
	struct formats_ctx *f = ctx;
	char item[512];

	snprintf(item, sizeof(item), "%s:%s (%s)", system, event, why);
	add_item(f->c, item);
}

static void check_formats(struct doctor *d)
{
	struct formats_ctx f;
	char list[2048];
	int total;

	/* KTRACE_FORMATS_DIR: the formats of a tracing directory copied from elsewhere. */
	const char *dir = getenv("KTRACE_FORMATS_DIR") ? getenv("KTRACE_FORMATS_DIR") : d->dir;

	f.c = add("event_formats", ST_OK, NULL, "event formats: ");
	total = kt_formats_check(dir, format_failed, &f);
	free(f.c->text);
	f.c->text = NULL;
	if (total < 0) {
		f.c->status = ST_WARN;
		if (asprintf(&f.c->text, "event formats: cannot read: %s", strerror(-total)) < 0)
			f.c->text = NULL;
		return;
	}
	if (!f.c->nitems) {
		if (asprintf(&f.c->text, "event formats: all %d parse", total) < 0)
			f.c->text = NULL;
		return;
	}
	f.c->status = ST_WARN;
	f.c->fix = strdup("nothing for recording: these events are recorded whole, but text output may show their raw fields (a newer libtraceevent may parse them)");
	if (asprintf(&f.c->text, "event formats: %zu of %d do not parse: %s",
		     f.c->nitems, total, items_joined(f.c, list, sizeof(list))) < 0)
		f.c->text = NULL;
}

/* ---- output ---- */

static void print_text(void)
{
	const char *colour[] = { "\033[32m", "\033[33m", "\033[1;31m" };
	const char *nc = getenv("NO_COLOR");
	bool tty = isatty(STDOUT_FILENO) && !(nc && *nc);
	size_t i;

	for (i = 0; i < nchecks; i++) {
		const struct check *c = &checks[i];

		printf("%s%-4s%s  %s", tty ? colour[c->status] : "",
		       status_name[c->status], tty ? "\033[0m" : "",
		       c->text ? c->text : c->id);
		if (c->fix && c->status != ST_OK)
			printf("; fix: %s", c->fix);
		putchar('\n');
	}
}

static void print_json(bool ok)
{
	size_t i, k;

	printf("{\"ok\":%s,\"checks\":[", ok ? "true" : "false");
	for (i = 0; i < nchecks; i++) {
		const struct check *c = &checks[i];

		printf("%s{\"id\":\"%s\",\"status\":\"%s\",\"message\":",
		       i ? "," : "", c->id, status_name[c->status]);
		kt_json_put_str(stdout, c->text ? c->text : c->id);
		fputs(",\"fix\":", stdout);
		if (c->fix && c->status != ST_OK)
			kt_json_put_str(stdout, c->fix);
		else
			fputs("null", stdout);
		fputs(",\"items\":[", stdout);
		for (k = 0; k < c->nitems; k++) {
			if (k)
				putchar(',');
			kt_json_put_str(stdout, c->items[k]);
		}
		fputs("]}", stdout);
	}
	fputs("]}\n", stdout);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	struct doctor_opts o = { 0 };
	struct doctor d = { 0 };
	int ret;

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;

	check_tracefs(&d);
	if (d.dir) {
		ret = kt_scratch_open(&d.scratch);
		if (ret) {
			add("control_files", ST_FAIL,
			    "run as root; remove a stale instance with 'ktrace reset -a'",
			    "scratch instance: cannot create one to probe in: %s",
			    strerror(-ret));
		} else {
			check_control_files(&d);
			check_recording(&d);
			if (d.recording_works)
				check_switch_chain(&d);
		}
		check_function_files(&d);
	}
	check_config(&d);
	check_lockdown(&d);
	check_features(&d);
	if (d.scratch && kt_scratch_close(d.scratch))
		kt_warn("cannot remove the scratch instance; 'ktrace reset -a' removes it");
	d.scratch = NULL;
	if (d.dir) {
		check_clocks();
		check_formats(&d);
	}
	check_module();

	if (o.json)
		print_json(d.recording_works);
	else
		print_text();
	free_checks();
	kt_kconfig_close(d.kc);
	return d.recording_works ? KT_EXIT_OK : KT_EXIT_FAIL;
}
