// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace analyze KIND: answers from a recording in one command, a table
 * for people or JSON for scripts.  The analyses are lib/analyze/'s; this
 * file parses the options, runs the file through one and prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "util-select-opts.h"
#include "analyze/syscalls.h"
#include "base/log.h"
#include "decode/decoder.h"
#include "decode/select.h"
#include "decode/symbols.h"
#include "file/reader.h"

enum {
	OPT_FORMAT = 256,
	OPT_SORT,
	OPT_TOP,
	OPT_BY,
};

struct analyze_opts {
	const char *kind;
	const char *input;
	struct kt_select *sel;
	bool json;
	const char *sort;
	long top;			/* rows shown; 0: all */
	enum kt_sys_by by;
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "read FILE (default ktrace.dat)", 0 },
	KT_SELECT_OPTIONS,
	{ "format", OPT_FORMAT, "FMT", 0, "table (default) or json", 0 },
	{ "sort", OPT_SORT, "KEY", 0, "order rows by KEY, the largest first: total (default), calls, errors, mean, p50, p99, max, or name", 0 },
	{ "top", OPT_TOP, "N", 0, "show the first N rows only", 0 },
	{ "by", OPT_BY, "WHAT", 0, "one row per call (default), per call and task, or per call and comm: call, task or comm", 0 },
	{ 0 }
};

static const char args_doc[] = "KIND";
static const char doc[] =
	"Answer a question about a recording in one command.\v"
	"KIND is syscalls: each system call's count, errors by errno and "
	"duration (total, mean, p50, p99, max), from raw_syscalls or "
	"syscalls:* events (record them with 'ktrace record -e raw_syscalls').  "
	"Exit status: 0 ok, 1 failure (or nothing to analyze), 2 damaged "
	"input file, 64 usage.";

static const char *const kinds[] = { "syscalls" };

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct analyze_opts *o = state->input;
	char *end;

	if (kt_select_opt(o->sel, key, arg, state) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case 'i': o->input = arg; break;
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			o->json = true;
		else if (strcmp(arg, "table"))
			argp_error(state, "bad --format '%s'; use table or json", arg);
		break;
	case OPT_SORT: o->sort = arg; break;
	case OPT_TOP:
		errno = 0;
		o->top = strtol(arg, &end, 10);
		if (errno || *end || end == arg || o->top < 1)
			argp_error(state, "bad --top '%s'; give a number of rows", arg);
		break;
	case OPT_BY:
		if (!strcmp(arg, "call"))
			o->by = KT_SYS_BY_CALL;
		else if (!strcmp(arg, "task"))
			o->by = KT_SYS_BY_TASK;
		else if (!strcmp(arg, "comm"))
			o->by = KT_SYS_BY_COMM;
		else
			argp_error(state, "bad --by '%s'; use call, task or comm", arg);
		break;
	case ARGP_KEY_ARG:
		if (o->kind)
			argp_error(state, "unexpected argument '%s'; give one KIND and the file with -i", arg);
		if (strcmp(arg, kinds[0]))
			argp_error(state, "unknown KIND '%s'; use syscalls", arg);
		o->kind = arg;
		break;
	case ARGP_KEY_END:
		if (!o->kind)
			argp_error(state, "give a KIND: syscalls");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* Microseconds with three decimals, from nanoseconds. */
static void put_us(unsigned long long ns)
{
	printf(" %8llu.%03llu", ns / 1000, ns % 1000);
}

static void put_errnos(const struct kt_sys_row *r, bool json)
{
	const char *name;
	int i;

	for (i = 0; i < r->nerrs; i++) {
		name = kt_errno_name(r->errs[i].err);
		if (json) {
			printf("%s", i ? "," : "");
			if (name)
				kt_json_put_str(stdout, name);
			else
				printf("\"%lld\"", r->errs[i].err);
			printf(":%llu", r->errs[i].count);
		} else if (name) {
			printf(" %s:%llu", name, r->errs[i].count);
		} else {
			printf(" errno%lld:%llu", r->errs[i].err, r->errs[i].count);
		}
	}
}

static void print_table(const struct analyze_opts *o, struct kt_sys_row **rows,
			size_t n)
{
	size_t i;

	if (o->by == KT_SYS_BY_TASK)
		printf("%7s %-16s ", "pid", "comm");
	else if (o->by == KT_SYS_BY_COMM)
		printf("%-16s ", "comm");
	printf("%-20s %10s %8s %12s %12s %12s %12s %12s  %s\n", "syscall", "calls",
	       "errors", "total us", "mean us", "p50 us", "p99 us", "max us", "errnos");
	for (i = 0; i < n; i++) {
		struct kt_sys_row *r = rows[i];

		if (o->by == KT_SYS_BY_TASK)
			printf("%7d %-16s ", r->pid, r->comm);
		else if (o->by == KT_SYS_BY_COMM)
			printf("%-16s ", r->comm);
		printf("%-20s %10zu %8llu", r->name, r->dist.n, r->errors);
		put_us(r->dist.sum);
		put_us(kt_dist_mean(&r->dist));
		put_us(kt_dist_pct(&r->dist, 50));
		put_us(kt_dist_pct(&r->dist, 99));
		put_us(r->dist.max);
		printf(" ");
		put_errnos(r, false);
		printf("\n");
	}
}

static void print_json(const struct analyze_opts *o, struct kt_sys_row **rows,
		       size_t n, const struct kt_sys_totals *t)
{
	size_t i;

	printf("{\"analysis\":\"syscalls\",\"file\":");
	kt_json_put_str(stdout, o->input);
	printf(",\"calls\":%llu,\"unpaired\":%llu,\"in_flight\":%llu,\"lost\":%llu,\"lost_unknown\":%s,\"rows\":[",
	       t->calls, t->unpaired, t->in_flight, t->lost, t->lost_unknown ? "true" : "false");
	for (i = 0; i < n; i++) {
		struct kt_sys_row *r = rows[i];

		printf("%s{\"syscall\":", i ? "," : "");
		kt_json_put_str(stdout, r->name);
		printf(",\"nr\":%ld", r->nr);
		if (o->by == KT_SYS_BY_TASK)
			printf(",\"pid\":%d", r->pid);
		if (o->by != KT_SYS_BY_CALL) {
			printf(",\"comm\":");
			kt_json_put_str(stdout, r->comm);
		}
		printf(",\"calls\":%zu,\"errors\":%llu,\"errnos\":{", r->dist.n, r->errors);
		put_errnos(r, true);
		printf("},\"total_ns\":%llu,\"mean_ns\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,\"max_ts\":%llu,\"max_cpu\":%d}",
		       r->dist.sum, kt_dist_mean(&r->dist), kt_dist_pct(&r->dist, 50),
		       kt_dist_pct(&r->dist, 90), kt_dist_pct(&r->dist, 99),
		       r->dist.max, r->dist.max_ts, r->dist.max_cpu);
	}
	printf("]}\n");
}

/* "Linux host release x86_64": the machine is the last word. */
static const char *machine_of(struct kt_reader *r)
{
	const char *un = kt_reader_uname(r);

	if (!un || !*un)
		return NULL;
	return strrchr(un, ' ') ? strrchr(un, ' ') + 1 : un;
}

static int analyze(const struct analyze_opts *o)
{
	struct kt_sys_totals t;
	struct kt_sys_row **rows;
	struct kt_syscalls *s = NULL;
	struct kt_decoder *d = NULL;
	struct kt_reader *r;
	size_t n;
	int status = KT_EXIT_FAIL, ret;

	r = kt_reader_open(o->input);
	if (!r)
		return errno == EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
	ret = kt_select_resolve(o->sel, r);
	if (ret) {
		status = ret == -EINVAL ? KT_EXIT_USAGE : KT_EXIT_FAIL;
		goto out_reader;
	}
	d = kt_select_decoder(o->sel, r);
	if (!d)
		goto out_reader;
	s = kt_syscalls_new(kt_reader_tep(r), machine_of(r), o->by);
	if (!s) {
		kt_err("cannot start the analysis: %s", strerror(errno));
		goto out_decoder;
	}
	ret = kt_decoder_run(d, kt_syscalls_add, s);
	if (ret) {
		kt_err("cannot analyze '%s': %s", o->input, strerror(-ret));
		goto out_analysis;
	}
	kt_syscalls_totals(s, &t);
	if (!t.has_input) {
		kt_err("'%s' holds no system call events; record them with 'ktrace record -e raw_syscalls' (or -e 'syscalls:sys_*_NAME')",
		       o->input);
		goto out_analysis;
	}
	ret = kt_syscalls_rows(s, o->sort, &rows, &n);
	if (ret == -EINVAL) {
		kt_err("unknown --sort '%s'; use %s", o->sort, kt_syscalls_sort_keys);
		status = KT_EXIT_USAGE;
		goto out_analysis;
	} else if (ret) {
		kt_err("cannot sort the rows: %s", strerror(-ret));
		goto out_analysis;
	}
	/* A loss is said before the figures it may have cut short. */
	if (t.lost || t.lost_unknown)
		kt_warn("%s%llu events were lost in '%s' in the window; the figures below may be incomplete",
			t.lost_unknown ? "at least " : "", t.lost, o->input);
	if (o->top && (size_t)o->top < n)
		n = (size_t)o->top;
	if (o->json) {
		print_json(o, rows, n, &t);
	} else {
		print_table(o, rows, n);
		if (t.unpaired || t.in_flight)
			printf("not counted: %llu exits whose entry is not in the window, %llu calls still in progress at the end\n",
			       t.unpaired, t.in_flight);
	}
	status = kt_reader_damaged(r) ? KT_EXIT_DAMAGED : KT_EXIT_OK;
	if (status == KT_EXIT_DAMAGED)
		kt_err("'%s' is damaged: the figures above stop short where the warnings say", o->input);
out_analysis:
	kt_syscalls_free(s);
out_decoder:
	kt_decoder_free(d);
out_reader:
	kt_reader_close(r);
	return status;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { .input = "ktrace.dat" };
	int ret;

	o.sel = kt_select_new();
	if (!o.sel) {
		kt_err("cannot start: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	ret = kt_argp_parse(&argp, argc, argv, &o) ? KT_EXIT_OK : analyze(&o);
	kt_select_free(o.sel);
	return ret;
}
