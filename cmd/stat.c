// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace stat: the live tracing state at a glance, loss first.
 *
 * Live mode reads the top-level buffer (or -B INSTANCE) and every
 * ktrace-* instance, so a running `ktrace record` shows up with its own
 * overruns.  File mode (-i FILE) is stat_file(): report --stat's summary.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "views/filestat.h"
#include "live/probes/dynevents.h"
#include "live/tracefs/tracefs.h"
#include "base/log.h"
#include "live/module/module.h"
#include "live/tracefs/reset.h"
#include "live/tracefs/tracestate.h"

struct stat_opts {
	const char *instance;
	struct input_list in;	/* -i or FILE: a file, a directory of chunks, chunks */
	bool json;
};

static const struct argp_option options[] = {
	{ "instance", 'B', "INSTANCE", 0, "show only this tracefs instance", 0 },
	{ "input", 'i', "FILE|DIR", 0, "show the statistics of a recorded trace.dat file, or of the series of chunks in DIR (record --rotate's): its chunks, their spans, events and losses, then the whole; repeatable (chunks of one recording)", 0 },
	{ "json", 'j', NULL, 0, "print JSON for scripts", 0 },
	{ 0 }
};

static const char args_doc[] = "[FILE|DIR...]";
static const char doc[] =
	"Show the tracing state at a glance: tracing on or off, tracer, clock, "
	"enabled events and their filters, buffer size, and per CPU the entries, "
	"overruns, drops and reads, with any loss flagged LOST.  Every ktrace-* "
	"instance (a running ktrace record) is shown too.\v"
	"With FILE or -i FILE, the statistics stored in a recorded file; with "
	"a DIR of chunks, or several chunks, those of the series read as one.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct stat_opts *o = state->input;

	switch (key) {
	case 'B':
		o->instance = arg;
		break;
	case 'i':
	case ARGP_KEY_ARG:
		input_add(state, &o->in, arg);
		break;
	case 'j':
		o->json = true;
		break;
	case ARGP_KEY_END:
		if (o->in.n && o->instance)
			argp_error(state, "-B shows a live instance; a recorded file has none");
		if (o->in.n)
			input_done(state, &o->in);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- offline: a recorded file ---- */

/* The statistics a trace.dat stores: report --stat's summary, shared. */
static int stat_file(const struct input_list *in, bool json)
{
	int ret = kt_filestat_write(in->paths, in->n, in->name, NULL, stdout, json);

	return ret == -EBADMSG ? KT_EXIT_DAMAGED : ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

/* ---- live: text ---- */

static const char *red = "", *yellow = "", *bold = "", *plain = "";

static void use_colour(void)
{
	const char *nc = getenv("NO_COLOR");

	if (!isatty(STDOUT_FILENO) || (nc && *nc))
		return;
	red = "\033[1;31m";
	yellow = "\033[33m";
	bold = "\033[1m";
	plain = "\033[0m";
}

static unsigned long long uniform_kb(const struct kt_trace_state *st)
{
	int cpu;

	for (cpu = 1; cpu < st->ncpus; cpu++)
		if (st->buffer_kb[cpu] != st->buffer_kb[0])
			return 0;
	return st->ncpus ? st->buffer_kb[0] : 0;
}

static void print_cpu_row(const char *label, const struct kt_cpu_stats *cs,
			  const char *kb)
{
	bool lost = kt_cpu_stats_lost(cs) > 0;

	printf("  %-5s %12llu %s%12llu %14llu %12llu%s %12llu %9s%s%s%s\n",
	       label, cs->entries, lost ? red : "", cs->overrun,
	       cs->commit_overrun, cs->dropped, lost ? plain : "", cs->read,
	       kb, lost ? red : "", lost ? "  LOST" : "", lost ? plain : "");
}

/* Which CPUs lost events, as "0, 3". */
static void lost_cpus(const struct kt_trace_state *st, char *buf, size_t size)
{
	size_t len = 0;
	int cpu;

	buf[0] = '\0';
	for (cpu = 0; cpu < st->ncpus && len < size; cpu++)
		if (kt_cpu_stats_lost(&st->cpu[cpu]))
			len += snprintf(buf + len, size - len, "%s%d",
					len ? ", " : "", cpu);
}

static void print_lost(const struct kt_trace_state *st)
{
	const struct kt_cpu_stats *t = &st->total;
	char cpus[256];

	if (!kt_cpu_stats_lost(t))
		return;
	lost_cpus(st, cpus, sizeof(cpus));
	printf("  %sLOST%s  %llu events lost on cpu %s:", red, plain,
	       kt_cpu_stats_lost(t), cpus);
	if (t->overrun)
		printf(" %llu overwritten (buffer full)", t->overrun);
	if (t->commit_overrun)
		printf("%s %llu commit overruns", t->overrun ? "," : "",
		       t->commit_overrun);
	if (t->dropped)
		printf("%s %llu dropped", t->overrun || t->commit_overrun ? "," : "",
		       t->dropped);
	printf("; a bigger buffer (buffer_size_kb) or fewer events\n");
}

static void print_state(const struct kt_trace_state *st)
{
	unsigned long long kb = uniform_kb(st);
	char kbs[32], cmd[256];
	size_t i;
	int cpu;

	if (!st->name)
		printf("%stop-level buffer%s\n", bold, plain);
	else if (kt_instance_owner(st->name, cmd, sizeof(cmd)))
		printf("%sinstance %s%s (a running ktrace: %s)\n", bold,
		       st->name, plain, cmd);
	else if (kt_instance_name_is_ours(st->name))
		printf("%sinstance %s%s (left behind; 'ktrace reset -a' removes it)\n",
		       bold, st->name, plain);
	else
		printf("%sinstance %s%s\n", bold, st->name, plain);
	printf("  tracing  %s%s%s\n", st->tracing_on == 0 ? yellow : "",
	       st->tracing_on < 0 ? "?" : st->tracing_on ? "on" : "off",
	       st->tracing_on == 0 ? plain : "");
	printf("  tracer   %s\n", st->tracer ? st->tracer : "?");
	printf("  clock    %s\n", st->clock ? st->clock : "?");
	if (kb)
		printf("  buffer   %llu KB per CPU, %d CPUs\n", kb, st->ncpus);
	else
		printf("  buffer   differs per CPU (see below), %d CPUs\n", st->ncpus);
	printf("  events   %zu enabled\n", st->nevents);
	for (i = 0; i < st->nevents; i++) {
		printf("    %s:%s", st->events[i].system, st->events[i].name);
		if (st->events[i].filter)
			printf("  if %s", st->events[i].filter);
		putchar('\n');
	}
	printf("  %-5s %12s %12s %14s %12s %12s %9s\n", "cpu", "entries",
	       "overrun", "commit_overrun", "dropped", "read", "buffer_kb");
	for (cpu = 0; cpu < st->ncpus; cpu++) {
		char label[16];

		snprintf(label, sizeof(label), "%d", cpu);
		snprintf(kbs, sizeof(kbs), "%llu", st->buffer_kb[cpu]);
		print_cpu_row(label, &st->cpu[cpu], kbs);
	}
	snprintf(kbs, sizeof(kbs), "%llu", kb * st->ncpus);
	if (!kb) {
		unsigned long long sum = 0;

		for (cpu = 0; cpu < st->ncpus; cpu++)
			sum += st->buffer_kb[cpu];
		snprintf(kbs, sizeof(kbs), "%llu", sum);
	}
	print_cpu_row("all", &st->total, kbs);
	print_lost(st);
}

/* ---- live: JSON ---- */

static void json_cpu(const struct kt_cpu_stats *cs)
{
	printf("\"entries\":%llu,\"overrun\":%llu,\"commit_overrun\":%llu,"
	       "\"dropped\":%llu,\"read\":%llu,\"bytes\":%llu,\"lost\":%llu",
	       cs->entries, cs->overrun, cs->commit_overrun, cs->dropped,
	       cs->read, cs->bytes, kt_cpu_stats_lost(cs));
}

static void json_str_or_null(const char *s)
{
	if (s)
		kt_json_put_str(stdout, s);
	else
		fputs("null", stdout);
}

static void json_state(const struct kt_trace_state *st)
{
	unsigned long long kb = uniform_kb(st);
	char cmd[256];
	long owner;
	size_t i;
	int cpu;

	fputs("{\"name\":", stdout);
	json_str_or_null(st->name);
	printf(",\"ktrace\":%s", st->name && kt_instance_name_is_ours(st->name) ? "true" : "false");
	owner = kt_instance_owner(st->name, cmd, sizeof(cmd));
	printf(",\"owner_running\":%s,\"owner_pid\":", owner ? "true" : "false");
	if (owner)
		printf("%ld,\"owner_cmdline\":", owner);
	else
		fputs("null,\"owner_cmdline\":", stdout);
	json_str_or_null(owner ? cmd : NULL);
	printf(",\"tracing_on\":%s", st->tracing_on < 0 ? "null" :
	       st->tracing_on ? "true" : "false");
	fputs(",\"tracer\":", stdout);
	json_str_or_null(st->tracer);
	fputs(",\"clock\":", stdout);
	json_str_or_null(st->clock);
	if (kb)
		printf(",\"buffer_size_kb\":%llu", kb);
	else
		fputs(",\"buffer_size_kb\":null", stdout);
	fputs(",\"events\":[", stdout);
	for (i = 0; i < st->nevents; i++) {
		fputs(i ? ",{\"system\":" : "{\"system\":", stdout);
		kt_json_put_str(stdout, st->events[i].system);
		fputs(",\"name\":", stdout);
		kt_json_put_str(stdout, st->events[i].name);
		fputs(",\"filter\":", stdout);
		json_str_or_null(st->events[i].filter);
		putchar('}');
	}
	fputs("],\"cpus\":[", stdout);
	for (cpu = 0; cpu < st->ncpus; cpu++) {
		printf("%s{\"cpu\":%d,", cpu ? "," : "", cpu);
		json_cpu(&st->cpu[cpu]);
		printf(",\"buffer_size_kb\":%llu}", st->buffer_kb[cpu]);
	}
	fputs("],\"total\":{", stdout);
	json_cpu(&st->total);
	printf("},\"lost\":%llu}", kt_cpu_stats_lost(&st->total));
}

/* ---- live: ktrace.ko ---- */

/* The module's events that are switched on, as "a b c" (malloc'ed). */
static char *module_events_on(size_t *count)
{
	char dir[4096], *list = NULL;
	size_t len = 0;
	struct dirent **names;
	int i, n;

	*count = 0;
	if (kt_module_events_dir(dir, sizeof(dir)))
		return NULL;
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *e = names[i]->d_name;
		char *grown;

		if (e[0] != '.' && kt_module_event_enabled(e) == 1 &&
		    (grown = realloc(list, len + strlen(e) + 2))) {
			list = grown;
			len += sprintf(list + len, "%s%s", len ? " " : "", e);
			(*count)++;
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return list;
}

/* State, events and per-CPU loss of ktrace.ko, like an instance's. */
static int show_module(bool json)
{
	unsigned long long dropped = 0, overrun = 0, kb = 0, probes = 0;
	struct kt_cpu_stats cs, total = { 0 };
	int cpu, ncpus = kt_module_cpu_count(), running = kt_module_running();
	size_t nev;
	char *events, *tok, *save = NULL;

	if (ncpus < 0 || running < 0)
		return ncpus < 0 ? ncpus : running;
	kt_module_read_ull(KTRACE_FILE_DROPPED, &dropped);
	/* Only a flight-mode engine has an overrun file. */
	kt_module_read_ull(KTRACE_FILE_OVERRUN, &overrun);
	kt_module_read_ull(KTRACE_FILE_BUFFER_SIZE_KB, &kb);
	kt_module_read_ull(KTRACE_FILE_ENABLED, &probes);
	events = module_events_on(&nev);
	if (json) {
		printf(",\"module\":{\"running\":%s,\"probes\":%s,\"buffer_size_kb\":%llu,\"dropped\":%llu,\"overrun\":%llu,\"events\":[",
		       running ? "true" : "false", probes ? "true" : "false",
		       kb, dropped, overrun);
		for (tok = events ? strtok_r(events, " ", &save) : NULL; tok;
		     tok = strtok_r(NULL, " ", &save)) {
			if (tok != events)
				putchar(',');
			kt_json_put_str(stdout, tok);
		}
		fputs("],\"cpus\":[", stdout);
	} else {
		printf("\n%sktrace.ko%s (%s)\n", bold, plain, kt_module_dir());
		printf("  state    %s, probes %s\n", running ? "running" : "stopped",
		       probes ? "attached" : "detached");
		printf("  buffer   %llu KB per CPU, %d CPUs\n", kb, ncpus);
		printf("  events   %zu enabled\n", nev);
		for (tok = events ? strtok_r(events, " ", &save) : NULL; tok;
		     tok = strtok_r(NULL, " ", &save))
			printf("    %s:%s\n", KTRACE_EVENT_SYSTEM, tok);
		printf("  %-5s %12s %12s %14s %12s %12s\n", "cpu", "entries",
		       "overrun", "commit_overrun", "dropped", "read");
	}
	free(events);
	for (cpu = 0; cpu < ncpus; cpu++) {
		char label[16];

		if (kt_module_cpu_stats_read(cpu, &cs))
			memset(&cs, 0, sizeof(cs));
		total.entries += cs.entries;
		total.overrun += cs.overrun;
		total.commit_overrun += cs.commit_overrun;
		total.dropped += cs.dropped;
		total.read += cs.read;
		total.bytes += cs.bytes;
		if (json) {
			printf("%s{\"cpu\":%d,", cpu ? "," : "", cpu);
			json_cpu(&cs);
			putchar('}');
			continue;
		}
		snprintf(label, sizeof(label), "%d", cpu);
		print_cpu_row(label, &cs, "");
	}
	if (json) {
		fputs("],\"total\":{", stdout);
		json_cpu(&total);
		fputs("}}", stdout);
		return 0;
	}
	print_cpu_row("all", &total, "");
	if (dropped || overrun)
		printf("  %sLOST%s  %llu events not stored (buffer full), %llu overwritten; a bigger buffer (insmod ktrace.ko buf_kb=...) or fewer events\n",
		       red, plain, dropped, overrun);
	return 0;
}

/* ---- live ---- */

/* Read and show one instance; -ENOENT (vanished) is for the caller. */
static int show_instance(struct tracefs_instance *inst, bool json, bool first)
{
	struct kt_trace_state *st;
	int ret = kt_trace_state_read(inst, &st);

	if (ret)
		return ret;
	if (json) {
		if (!first)
			putchar(',');
		json_state(st);
	} else {
		if (!first)
			putchar('\n');
		print_state(st);
	}
	kt_trace_state_free(st);
	return 0;
}

/* Every ktrace-* instance, then a hint naming the others. */
static int show_all(bool json)
{
	struct tracefs_instance *inst;
	char **names = tracefs_instances(NULL);
	bool any_other = false;
	int i, ret = 0;

	for (i = 0; names && names[i]; i++) {
		if (!kt_instance_name_is_ours(names[i]))
			continue;
		if (kt_instance_lookup(names[i], &inst))
			continue;	/* gone since the listing */
		ret = show_instance(inst, json, false);
		kt_instance_close(inst);
		if (ret == -ENOENT)
			ret = 0;
		if (ret)
			break;
	}
	if (json) {
		fputs("],\"other_instances\":[", stdout);
		for (i = 0; names && names[i]; i++) {
			if (kt_instance_name_is_ours(names[i]))
				continue;
			if (any_other)
				putchar(',');
			kt_json_put_str(stdout, names[i]);
			any_other = true;
		}
		fputs("]", stdout);
	} else {
		for (i = 0; names && names[i]; i++) {
			if (kt_instance_name_is_ours(names[i]))
				continue;
			printf("%s%s", any_other ? " " : "\nother instances: ", names[i]);
			any_other = true;
		}
		if (any_other)
			printf(" ('ktrace stat -B NAME' shows one)\n");
	}
	tracefs_list_free(names);
	return ret;
}

/*
 * Every dynamic event of the kernel (they are global, not an instance's):
 * ktrace's own say whose they are, or that reset -a removes them.
 */
static int show_dynevents(bool json)
{
	struct kt_dynevent *v;
	size_t n, i;
	int ret = kt_dynevents_read(&v, &n);

	if (ret == -ENOENT) {
		/* No probes in this kernel: nothing to show. */
		n = 0;
		v = NULL;
	} else if (ret) {
		return ret;
	}
	if (json) {
		fputs(",\"dynamic_events\":[", stdout);
		for (i = 0; i < n; i++) {
			printf("%s{\"kind\":", i ? "," : "");
			kt_json_put_str(stdout, v[i].kind);
			fputs(",\"group\":", stdout);
			kt_json_put_str(stdout, v[i].group);
			fputs(",\"name\":", stdout);
			kt_json_put_str(stdout, v[i].name);
			fputs(",\"definition\":", stdout);
			kt_json_put_str(stdout, v[i].def);
			printf(",\"ktrace\":%s,\"owner\":%ld}", v[i].ours ? "true" : "false",
			       v[i].owner);
		}
		fputs("]", stdout);
	} else if (n) {
		printf("\n%sdynamic events%s (%zu)\n", bold, plain, n);
		for (i = 0; i < n; i++) {
			printf("  %-10s %s/%s  %s", v[i].kind, v[i].group, v[i].name, v[i].def);
			if (v[i].ours && v[i].owner)
				printf("  (ktrace %ld's)", v[i].owner);
			else if (v[i].ours)
				printf("  %s(left behind; 'ktrace reset -a' removes it)%s",
				       yellow, plain);
			putchar('\n');
		}
	}
	kt_dynevents_free(v, n);
	return 0;
}

static int stat_live(const struct stat_opts *o)
{
	struct tracefs_instance *inst = NULL;
	int ret;

	ret = need_tracefs();
	if (ret)
		return ret;
	if (instance_arg_lookup(o->instance, &inst))
		return KT_EXIT_FAIL;
	if (o->json)
		fputs("{\"instances\":[", stdout);
	ret = show_instance(inst, o->json, true);
	if (!ret && !o->instance)
		ret = show_all(o->json);
	else if (o->json)
		fputs("]", stdout);
	if (!ret && !o->instance && kt_events_use_module())
		ret = show_module(o->json);
	if (!ret && !o->instance) {
		ret = show_dynevents(o->json);
		if (ret) {
			kt_err("cannot read the dynamic events: %s", strerror(-ret));
			ret = 0;
		}
	}
	if (o->json)
		fputs("}\n", stdout);
	if (ret == -ENOENT)
		kt_err("instance '%s' went away while being read", o->instance);
	else if (ret)
		kt_err("cannot read the state of '%s': %s",
		       kt_instance_label(inst), strerror(-ret));
	kt_instance_close(inst);
	return ret ? KT_EXIT_FAIL : KT_EXIT_OK;
}

int cmd_stat(int argc, char **argv)
{
	static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	struct stat_opts o = { 0 };
	int ret;

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	if (o.in.n) {
		ret = stat_file(&o.in, o.json);
		input_free(&o.in);
		return ret;
	}
	if (!o.json)
		use_colour();
	return stat_live(&o);
}
