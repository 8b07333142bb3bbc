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
#include "analyze/cpu.h"
#include "analyze/critpath.h"
#include "analyze/offcpu.h"
#include "analyze/sched.h"
#include "analyze/syscalls.h"
#include "file/tgidmap.h"
#include "base/human.h"
#include "base/log.h"
#include "decode/decoder.h"
#include "decode/select.h"
#include "decode/symbols.h"
#include "file/reader.h"
#include "views/flamegraph.h"
#include "views/folded.h"
#include "decode/hosts.h"

enum {
	OPT_FORMAT = 256,
	OPT_SORT,
	OPT_TOP,
	OPT_BY,
	OPT_FLAMEGRAPH,
};

struct analyze_opts {
	const char *kind;
	struct input_list in;	/* -i: a file, a directory of chunks, chunks */
	const char *input;	/* what messages call it */
	struct kt_select *sel;
	bool json;
	bool folded;			/* offcpu's and critpath's --format folded */
	bool flame;			/* their --flamegraph, to output */
	const char *output;		/* -o FILE: the flame graph's SVG */
	bool targeted;			/* --pid or --comm: critpath's target */
	const char *sort;
	long top;			/* rows shown; 0: all */
	const char *by;			/* --by as given; checked per KIND */
	struct kt_tgidmap tg;		/* thread to process, for --by process */
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE|DIR", 0, "read FILE (default ktrace.dat), or the chunks in DIR (record --rotate's) as one trace; repeated, chunks of one recording, or recordings of several hosts (report -i's), each host's analysis under a line 'host NAME:'", 0 },
	KT_SELECT_OPTIONS,
	{ "format", OPT_FORMAT, "FMT", 0, "table (default) or json; offcpu and critpath also folded (stacks weighted by microseconds, for flame graphs: offcpu's kernel stacks blocked, critpath's target;waker;...;state)", 0 },
	{ "sort", OPT_SORT, "KEY", 0, "order rows by KEY, the largest first; syscalls: total (default), calls, errors, mean, p50, p99, max, name; sched: run (default), wait, sleep, switches, wakeups, mean, p99, max, comm; offcpu: blocked (default), S, D, times, comm", 0 },
	{ "top", OPT_TOP, "N", 0, "show the first N rows only", 0 },
	{ "by", OPT_BY, "WHAT", 0, "syscalls: call (default), task, process or comm; sched: task (default), process or comm; offcpu: task (default) or comm", 0 },
	{ "flamegraph", OPT_FLAMEGRAPH, NULL, 0, "offcpu and critpath: draw the folded stacks as a flame graph SVG instead (with -o FILE.svg): offcpu's time blocked by stack, critpath's time by target;waker;...;state", 0 },
	{ "output", 'o', "FILE", 0, "write --flamegraph's SVG to FILE (created whole or not at all)", 0 },
	{ 0 }
};

static const char args_doc[] = "KIND";
static const char doc[] =
	"Answer a question about a recording in one command.\v"
	"KIND is syscalls: each system call's count, errors by errno and "
	"duration (total, mean, p50, p99, max), from raw_syscalls or "
	"syscalls:* events (record them with 'ktrace record -e raw_syscalls'); "
	"or sched: per task its run, wait and sleep time, switches and wakeup "
	"latency (mean, p50, p90, p99, max), from sched_switch and "
	"sched_waking/sched_wakeup (record them with 'ktrace record -e "
	"sched_switch -e sched_waking'); or cpu: each task's CPU time and "
	"share, each CPU's busy and idle time, and hard-irq time per handler "
	"and softirq time per vector (record -e sched_switch -e irq); or "
	"offcpu: per task its time blocked (S, D, other) and why: the function "
	"that called the scheduler (with --stack sched_switch) or the syscall "
	"it was in (with -e raw_syscalls); or critpath: the critical path of "
	"the tasks given by --pid or --comm, each of their sleeps followed to "
	"the task that woke them and what it was doing until then (running, "
	"runnable, or asleep, then woken by whom, and so on), their time given "
	"to (task, state) pairs (record with 'ktrace record --for sched').  "
	"Exit status: 0 ok, 1 failure (or nothing to analyze), 2 damaged "
	"input file, 64 usage.";

static const char *const kinds[] = { "cpu", "critpath", "offcpu", "sched", "syscalls" };

static bool kind_known(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct analyze_opts *o = state->input;

	if (key == KT_OPT_SEL_PID || key == KT_OPT_SEL_COMM)
		o->targeted = true;
	if (select_opt(o->sel, key, arg, state) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case 'i': input_add(state, &o->in, arg); break;
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			o->json = true;
		else if (!strcmp(arg, "folded"))
			o->folded = true;
		else if (strcmp(arg, "table"))
			argp_error(state, "bad --format '%s'; use table, json or folded (offcpu, critpath)", arg);
		break;
	case OPT_SORT: o->sort = arg; break;
	case OPT_TOP:
		o->top = parse_top(state, arg);
		break;
	case OPT_BY: o->by = arg; break;
	case OPT_FLAMEGRAPH: o->flame = true; break;
	case 'o': o->output = arg; break;
	case ARGP_KEY_ARG:
		if (o->kind)
			argp_error(state, "unexpected argument '%s'; give one KIND and the file with -i", arg);
		if (!kind_known(arg))
			argp_error(state, "unknown KIND '%s'; use cpu, critpath, offcpu, sched or syscalls", arg);
		o->kind = arg;
		break;
	case ARGP_KEY_END:
		o->input = input_done(state, &o->in);
		if (!o->kind)
			argp_error(state, "give a KIND: cpu, critpath, offcpu, sched or syscalls");
		if (o->folded && strcmp(o->kind, "offcpu") && strcmp(o->kind, "critpath"))
			argp_error(state, "--format folded is analyze offcpu's and critpath's");
		if (o->flame && strcmp(o->kind, "offcpu") && strcmp(o->kind, "critpath"))
			argp_error(state, "--flamegraph is analyze offcpu's and critpath's");
		if (o->flame && !o->output)
			argp_error(state, "--flamegraph writes an SVG: give -o FILE.svg");
		if (o->flame && (o->json || o->folded))
			argp_error(state, "--flamegraph draws the folded stacks; give it without --format");
		if (o->output && !o->flame)
			argp_error(state, "-o FILE is where --flamegraph's SVG goes; the tables and --format go to standard output");
		if (!strcmp(o->kind, "critpath") && (o->by || o->sort))
			argp_error(state, "analyze critpath takes no --by or --sort: its rows are (task, state), the most time first");
		if (!strcmp(o->kind, "critpath") && !o->targeted)
			argp_error(state, "analyze critpath needs --pid or --comm: the task whose waits to follow");
		if (!strcmp(o->kind, "cpu") && (o->by || o->sort))
			argp_error(state, "analyze cpu takes no --by or --sort: its tables are by task, CPU and interrupt, the most time first");
		if (o->by && !strcmp(o->kind, "syscalls") && strcmp(o->by, "call") &&
		    strcmp(o->by, "task") && strcmp(o->by, "process") && strcmp(o->by, "comm"))
			argp_error(state, "bad --by '%s'; use call, task, process or comm", o->by);
		if (o->by && !strcmp(o->kind, "sched") && strcmp(o->by, "task") &&
		    strcmp(o->by, "process") && strcmp(o->by, "comm"))
			argp_error(state, "bad --by '%s'; use task, process or comm", o->by);
		if (o->by && !strcmp(o->kind, "offcpu") && strcmp(o->by, "task") &&
		    strcmp(o->by, "comm"))
			argp_error(state, "bad --by '%s'; use task or comm", o->by);
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

static enum kt_sys_by sys_by(const struct analyze_opts *o)
{
	if (o->by && !strcmp(o->by, "task"))
		return KT_SYS_BY_TASK;
	if (o->by && !strcmp(o->by, "comm"))
		return KT_SYS_BY_COMM;
	if (o->by && !strcmp(o->by, "process"))
		return KT_SYS_BY_PROCESS;
	return KT_SYS_BY_CALL;
}

static void print_table(const struct analyze_opts *o, struct kt_sys_row **rows,
			size_t n)
{
	enum kt_sys_by by = sys_by(o);
	size_t i;

	if (by == KT_SYS_BY_TASK || by == KT_SYS_BY_PROCESS)
		printf("%7s %-16s ", by == KT_SYS_BY_TASK ? "pid" : "tgid", "comm");
	else if (by == KT_SYS_BY_COMM)
		printf("%-16s ", "comm");
	printf("%-20s %10s %8s %12s %12s %12s %12s %12s  %s\n", "syscall", "calls",
	       "errors", "total us", "mean us", "p50 us", "p99 us", "max us", "errnos");
	for (i = 0; i < n; i++) {
		struct kt_sys_row *r = rows[i];

		if (by == KT_SYS_BY_TASK || by == KT_SYS_BY_PROCESS)
			printf("%7d %-16s ", r->pid, r->comm);
		else if (by == KT_SYS_BY_COMM)
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
	enum kt_sys_by by = sys_by(o);
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
		if (by == KT_SYS_BY_TASK || by == KT_SYS_BY_PROCESS)
			printf(",\"%s\":%d", by == KT_SYS_BY_TASK ? "pid" : "tgid", r->pid);
		if (by != KT_SYS_BY_CALL) {
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

/* The decoder's run: true when it went through, else said. */
static bool ran(const struct analyze_opts *o, int ret)
{
	if (ret)
		kt_err("cannot analyze '%s': %s", o->input, strerror(-ret));
	return !ret;
}

/* The rows' sort: KT_EXIT_OK to go on, else the status to end with. */
static int sorted(const struct analyze_opts *o, int ret, const char *keys)
{
	if (ret == -EINVAL) {
		kt_err("unknown --sort '%s'; use %s", o->sort, keys);
		return KT_EXIT_USAGE;
	}
	if (ret) {
		kt_err("cannot sort the rows: %s", strerror(-ret));
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}

/* A loss is said before the figures it may have cut short. */
static void warn_loss(const struct analyze_opts *o, unsigned long long lost,
		      bool unknown)
{
	if (lost || unknown)
		kt_warn("%s%llu events were lost in '%s' in the window; the figures below may be incomplete",
			unknown ? "at least " : "", lost, o->input);
}

static int run_syscalls(const struct analyze_opts *o, struct kt_reader *r,
			struct kt_decoder *d)
{
	struct kt_syscalls *s;
	struct kt_sys_totals t;
	struct kt_sys_row **rows;
	size_t n;
	int status = KT_EXIT_FAIL;

	s = kt_syscalls_new(kt_reader_tep(r), machine_of(r), sys_by(o), &o->tg);
	if (!s) {
		kt_err("cannot start the analysis: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	if (!ran(o, kt_decoder_run(d, kt_syscalls_add, s)))
		goto out;
	kt_syscalls_totals(s, &t);
	if (!t.has_input) {
		kt_err("'%s' holds no system call events (raw_syscalls, syscalls:sys_enter_NAME/sys_exit_NAME, or ktrace.ko's); record them with 'ktrace record --for syscalls'",
		       o->input);
		goto out;
	}
	status = sorted(o, kt_syscalls_rows(s, o->sort, &rows, &n), kt_syscalls_sort_keys);
	if (status)
		goto out;
	warn_loss(o, t.lost, t.lost_unknown);
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
	status = KT_EXIT_OK;
out:
	kt_syscalls_free(s);
	return status;
}

/*
 * The switches the file lacks, counted as every analysis counts them
 * (analyze/runs.h), and what this analysis does about them.
 */
static void warn_missing(const struct analyze_opts *o, unsigned long long n,
			 const char *then)
{
	if (n)
		kt_warn("%llu switch%s missing from '%s' (dropped uncounted, see 'ktrace doctor'); the time around each is unknown, given to no task%s",
			n, n == 1 ? " is" : "es are", o->input, then);
}

/* Milliseconds with three decimals, from nanoseconds. */
static void put_ms(unsigned long long ns)
{
	printf(" %9llu.%03llu", ns / 1000000, ns / 1000 % 1000);
}

/*
 * The table; lat false (the file has no wakeups): the wakeup columns
 * say '-', not 0.
 */
static void print_sched_table(const struct analyze_opts *o,
			      struct kt_sched_row **rows, size_t n, bool lat)
{
	bool by_comm = o->by && !strcmp(o->by, "comm");
	bool by_proc = o->by && !strcmp(o->by, "process");
	size_t i;

	if (!by_comm)
		printf("%7s ", by_proc ? "tgid" : "pid");
	if (by_proc)
		printf("%7s ", "threads");
	printf("%-16s %9s %13s %13s %13s %13s %13s %8s %12s %12s %12s %12s  %s\n",
	       "comm", "switches", "run ms", "wait ms", "sleep S ms", "sleep D ms",
	       "other ms", "wakeups", "lat mean us", "lat p50 us", "lat p99 us",
	       "lat max us", "max at");
	for (i = 0; i < n; i++) {
		struct kt_sched_row *r = rows[i];

		if (!by_comm)
			printf("%7d ", r->pid);
		if (by_proc)
			printf("%7d ", r->threads);
		printf("%-16s %9llu", r->comm, r->switches);
		put_ms(r->run_ns);
		put_ms(r->wait_ns);
		put_ms(r->sleep_s_ns);
		put_ms(r->sleep_d_ns);
		put_ms(r->sleep_other_ns);
		if (!lat) {
			printf(" %8s %12s %12s %12s %12s\n", "-", "-", "-", "-", "-");
			continue;
		}
		printf(" %8zu", r->lat.n);
		put_us(kt_dist_mean(&r->lat));
		put_us(kt_dist_pct(&r->lat, 50));
		put_us(kt_dist_pct(&r->lat, 99));
		put_us(r->lat.max);
		if (r->lat.n) {
			char at[32];

			kt_human_ts(r->lat.max_ts, at, sizeof(at));
			printf("  %s CPU %d", at, r->lat.max_cpu);
		}
		printf("\n");
	}
}

static void print_sched_json(const struct analyze_opts *o, struct kt_sched_row **rows,
			     size_t n, const struct kt_taskstate_totals *t)
{
	bool by_comm = o->by && !strcmp(o->by, "comm");
	bool by_proc = o->by && !strcmp(o->by, "process");
	size_t i;

	printf("{\"analysis\":\"sched\",\"file\":");
	kt_json_put_str(stdout, o->input);
	printf(",\"switches\":%llu,\"missing_switches\":%llu,\"lost\":%llu,\"lost_unknown\":%s,\"rows\":[",
	       t->switches, t->missing, t->lost, t->lost_unknown ? "true" : "false");
	for (i = 0; i < n; i++) {
		struct kt_sched_row *r = rows[i];

		printf("%s{", i ? "," : "");
		if (by_proc)
			printf("\"tgid\":%d,\"threads\":%d,", r->pid, r->threads);
		else if (!by_comm)
			printf("\"pid\":%d,", r->pid);
		printf("\"comm\":");
		kt_json_put_str(stdout, r->comm);
		printf(",\"switches\":%llu,\"missing_switches\":%llu,\"run_ns\":%llu,\"wait_ns\":%llu,\"sleep_s_ns\":%llu,\"sleep_d_ns\":%llu,\"sleep_other_ns\":%llu",
		       r->switches, r->missing, r->run_ns, r->wait_ns, r->sleep_s_ns, r->sleep_d_ns,
		       r->sleep_other_ns);
		if (!t->has_wakeup) {
			/* No wakeups in the file: nothing to say, not 0. */
			printf(",\"wakeups\":null,\"lat_mean_ns\":null,\"lat_p50_ns\":null,\"lat_p90_ns\":null,\"lat_p99_ns\":null,\"lat_max_ns\":null}");
			continue;
		}
		printf(",\"wakeups\":%zu,\"lat_mean_ns\":%llu,\"lat_p50_ns\":%llu,\"lat_p90_ns\":%llu,\"lat_p99_ns\":%llu,\"lat_max_ns\":%llu",
		       r->lat.n, kt_dist_mean(&r->lat), kt_dist_pct(&r->lat, 50),
		       kt_dist_pct(&r->lat, 90), kt_dist_pct(&r->lat, 99), r->lat.max);
		if (r->lat.n)
			printf(",\"lat_max_ts\":%llu,\"lat_max_cpu\":%d", r->lat.max_ts, r->lat.max_cpu);
		printf("}");
	}
	printf("]}\n");
}

static int run_sched(const struct analyze_opts *o, struct kt_reader *r,
		     struct kt_decoder *d)
{
	struct kt_sched *s;
	struct kt_taskstate_totals t;
	struct kt_sched_row **rows;
	size_t n;
	int status = KT_EXIT_FAIL;

	s = kt_sched_new(kt_reader_tep(r), !o->by || !strcmp(o->by, "task") ? KT_SCHED_BY_TASK :
			 !strcmp(o->by, "comm") ? KT_SCHED_BY_COMM : KT_SCHED_BY_PROCESS, &o->tg);
	if (!s) {
		kt_err("cannot start the analysis: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	if (!ran(o, kt_decoder_run(d, kt_sched_add, s)))
		goto out;
	kt_sched_totals(s, &t);
	if (!t.has_switch) {
		kt_err("'%s' holds no sched_switch events; record them with 'ktrace record --for sched' (sched_switch, sched_waking)",
		       o->input);
		goto out;
	}
	status = sorted(o, kt_sched_rows(s, o->sort, &rows, &n), kt_sched_sort_keys);
	if (status)
		goto out;
	warn_loss(o, t.lost, t.lost_unknown);
	if (!t.has_wakeup)
		kt_warn("'%s' holds no sched_waking or sched_wakeup: no wakeup latencies ('-'), and sleep time runs to the switch-in; record them with 'ktrace record --for sched'",
			o->input);
	warn_missing(o, t.missing, "; a wait they cut is not counted, a sleep ends at the task's next event");
	if (o->top && (size_t)o->top < n)
		n = (size_t)o->top;
	if (o->json)
		print_sched_json(o, rows, n, &t);
	else
		print_sched_table(o, rows, n, t.has_wakeup);
	status = KT_EXIT_OK;
out:
	kt_sched_free(s);
	return status;
}

static void print_cpu_table(const struct analyze_opts *o, struct kt_cpu_task **tv,
			    size_t nt, struct kt_cpu_cpu *cv, size_t nc,
			    struct kt_cpu_irq **iv, size_t ni)
{
	unsigned long long all = 0;
	size_t i;

	for (i = 0; i < nc; i++)
		all += cv[i].busy_ns + cv[i].idle_ns + cv[i].gap_ns;
	printf("%7s %-16s %13s %7s %9s\n", "pid", "comm", "cpu ms", "share", "switches");
	for (i = 0; i < nt && (!o->top || i < (size_t)o->top); i++) {
		printf("%7d %-16s", tv[i]->pid, tv[i]->comm);
		put_ms(tv[i]->ns);
		printf(" %6.2f%% %9llu\n", all ? 100.0 * (double)tv[i]->ns / (double)all : 0.0,
		       tv[i]->switches);
	}
	printf("\n%4s %13s %13s %13s %7s\n", "cpu", "busy ms", "idle ms", "unknown ms", "busy");
	for (i = 0; i < nc; i++) {
		unsigned long long t = cv[i].busy_ns + cv[i].idle_ns;

		printf("%4d", cv[i].cpu);
		put_ms(cv[i].busy_ns);
		put_ms(cv[i].idle_ns);
		put_ms(cv[i].gap_ns);
		printf(" %6.2f%%\n", t ? 100.0 * (double)cv[i].busy_ns / (double)t : 0.0);
	}
	if (!ni)
		return;
	printf("\n%-8s %-24s %10s %12s %12s %12s\n", "irq", "handler", "count", "total us",
	       "mean us", "max us");
	for (i = 0; i < ni; i++) {
		if (iv[i]->irq >= 0)
			printf("%-8d", iv[i]->irq);
		else
			printf("%-8s", "softirq");
		printf(" %-24s %10llu", iv[i]->name, iv[i]->count);
		put_us(iv[i]->ns);
		put_us(iv[i]->count ? iv[i]->ns / iv[i]->count : 0);
		put_us(iv[i]->max_ns);
		printf("\n");
	}
}

static void print_cpu_json(const struct analyze_opts *o, struct kt_cpu_task **tv,
			   size_t nt, struct kt_cpu_cpu *cv, size_t nc,
			   struct kt_cpu_irq **iv, size_t ni, const struct kt_cpu_totals *t)
{
	size_t i;
	bool first = true;

	printf("{\"analysis\":\"cpu\",\"file\":");
	kt_json_put_str(stdout, o->input);
	printf(",\"gaps\":%llu,\"missing_switches\":%llu,\"lost\":%llu,\"lost_unknown\":%s,\"tasks\":[",
	       t->gaps, t->gaps, t->lost, t->lost_unknown ? "true" : "false");
	for (i = 0; i < nt && (!o->top || i < (size_t)o->top); i++) {
		printf("%s{\"pid\":%d,\"comm\":", i ? "," : "", tv[i]->pid);
		kt_json_put_str(stdout, tv[i]->comm);
		printf(",\"cpu_ns\":%llu,\"switches\":%llu,\"missing_switches\":%llu}",
		       tv[i]->ns, tv[i]->switches, tv[i]->missing);
	}
	printf("],\"cpus\":[");
	for (i = 0; i < nc; i++)
		printf("%s{\"cpu\":%d,\"busy_ns\":%llu,\"idle_ns\":%llu,\"unknown_ns\":%llu}",
		       i ? "," : "", cv[i].cpu, cv[i].busy_ns, cv[i].idle_ns, cv[i].gap_ns);
	printf("],\"irqs\":[");
	for (i = 0; i < ni; i++) {
		if (iv[i]->irq < 0)
			continue;
		printf("%s{\"irq\":%d,\"name\":", first ? "" : ",", iv[i]->irq);
		kt_json_put_str(stdout, iv[i]->name);
		printf(",\"count\":%llu,\"total_ns\":%llu,\"max_ns\":%llu}",
		       iv[i]->count, iv[i]->ns, iv[i]->max_ns);
		first = false;
	}
	printf("],\"softirqs\":[");
	first = true;
	for (i = 0; i < ni; i++) {
		if (iv[i]->irq >= 0)
			continue;
		printf("%s{\"vec\":", first ? "" : ",");
		kt_json_put_str(stdout, iv[i]->name);
		printf(",\"count\":%llu,\"total_ns\":%llu,\"max_ns\":%llu}",
		       iv[i]->count, iv[i]->ns, iv[i]->max_ns);
		first = false;
	}
	printf("]}\n");
}

static int run_cpu(const struct analyze_opts *o, struct kt_reader *r,
		   struct kt_decoder *d)
{
	struct kt_cpu *c;
	struct kt_cpu_totals t;
	struct kt_cpu_task **tv;
	struct kt_cpu_cpu *cv;
	struct kt_cpu_irq **iv;
	size_t nt, nc, ni;
	int status = KT_EXIT_FAIL;

	c = kt_cpu_new(kt_reader_tep(r));
	if (!c) {
		kt_err("cannot start the analysis: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	if (!ran(o, kt_decoder_run(d, kt_cpu_add, c)))
		goto out;
	kt_cpu_totals(c, &t);
	if (!t.has_switch) {
		kt_err("'%s' holds no sched_switch events; record them with 'ktrace record --for cpu' (sched_switch, irq and softirq entry and exit)",
		       o->input);
		goto out;
	}
	if (kt_cpu_tasks(c, &tv, &nt) || kt_cpu_cpus(c, &cv, &nc) ||
	    kt_cpu_irqs(c, &iv, &ni)) {
		kt_err("cannot make the tables: %s", strerror(ENOMEM));
		goto out;
	}
	warn_loss(o, t.lost, t.lost_unknown);
	warn_missing(o, t.gaps, "");
	if (!t.has_irq && !t.has_softirq)
		kt_warn("'%s' holds no irq events: no interrupt times; record them with 'ktrace record --for cpu'", o->input);
	if (o->json)
		print_cpu_json(o, tv, nt, cv, nc, iv, ni, &t);
	else
		print_cpu_table(o, tv, nt, cv, nc, iv, ni);
	status = KT_EXIT_OK;
out:
	kt_cpu_free(c);
	return status;
}

static void print_off_table(const struct analyze_opts *o, struct kt_off_row **rows,
			    size_t n)
{
	bool by_comm = o->by && !strcmp(o->by, "comm");
	size_t i, k;

	if (!by_comm)
		printf("%7s ", "pid");
	printf("%-16s %13s %13s %13s %13s %8s  %s\n", "comm", "blocked ms", "S ms",
	       "D ms", "other ms", "times", "top reasons (ms)");
	for (i = 0; i < n; i++) {
		struct kt_off_row *r = rows[i];

		if (!by_comm)
			printf("%7d ", r->pid);
		printf("%-16s", r->comm);
		put_ms(r->s_ns + r->d_ns + r->other_ns);
		put_ms(r->s_ns);
		put_ms(r->d_ns);
		put_ms(r->other_ns);
		printf(" %8llu ", r->count);
		for (k = 0; k < r->nreasons && k < 3; k++)
			printf("%s %s %llu.%03llu", k ? "," : "", r->reasons[k].name,
			       r->reasons[k].ns / 1000000, r->reasons[k].ns / 1000 % 1000);
		printf("\n");
	}
}

static void print_off_json(const struct analyze_opts *o, struct kt_off_row **rows,
			   size_t n, const struct kt_off_totals *t)
{
	bool by_comm = o->by && !strcmp(o->by, "comm");
	size_t i, k;

	printf("{\"analysis\":\"offcpu\",\"file\":");
	kt_json_put_str(stdout, o->input);
	printf(",\"missing_switches\":%llu,\"lost\":%llu,\"lost_unknown\":%s,\"rows\":[",
	       t->missing, t->lost, t->lost_unknown ? "true" : "false");
	for (i = 0; i < n; i++) {
		struct kt_off_row *r = rows[i];

		printf("%s{", i ? "," : "");
		if (!by_comm)
			printf("\"pid\":%d,", r->pid);
		printf("\"comm\":");
		kt_json_put_str(stdout, r->comm);
		printf(",\"blocked_ns\":%llu,\"s_ns\":%llu,\"d_ns\":%llu,\"other_ns\":%llu,\"times\":%llu,\"reasons\":[",
		       r->s_ns + r->d_ns + r->other_ns, r->s_ns, r->d_ns, r->other_ns, r->count);
		for (k = 0; k < r->nreasons; k++) {
			printf("%s{\"reason\":", k ? "," : "");
			kt_json_put_str(stdout, r->reasons[k].name);
			printf(",\"ns\":%llu,\"times\":%llu}", r->reasons[k].ns, r->reasons[k].count);
		}
		printf("]}");
	}
	printf("]}\n");
}

/*
 * --flamegraph: f's stacks as an SVG in -o's file, titled what (of the
 * input and the selection), each count a unit.  The status to end with.
 */
static int flame_out(const struct analyze_opts *o, struct kt_folded *f,
		     const char *what, const char *unit)
{
	char sel[256], title[512];
	char *tmp;
	FILE *out;
	int ret;

	out = output_open(o->output, &tmp);
	if (!out)
		return KT_EXIT_FAIL;
	kt_select_describe(o->sel, sel, sizeof(sel));
	snprintf(title, sizeof(title), "%s of %s%s%s", what, o->input, *sel ? " " : "", sel);
	ret = kt_flamegraph_write(f, title, unit, out);
	if (ret)
		kt_err("cannot write '%s': %s", o->output, strerror(-ret));
	return output_close(out, o->output, tmp, ret ? KT_EXIT_FAIL : KT_EXIT_OK);
}

/* offcpu's run: the analysis, and the folded stacks beside it. */
struct off_run {
	struct kt_offcpu *an;
	struct kt_folded *f;
};

static int off_add(const struct kt_event *ev, void *arg)
{
	struct off_run *run = arg;
	int ret = kt_offcpu_add(ev, run->an);

	if (!ret && run->f)
		ret = kt_folded_add(ev, run->f);
	return ret;
}

static int run_offcpu(const struct analyze_opts *o, struct kt_reader *r,
		      struct kt_decoder *d)
{
	struct off_run run = { 0 };
	struct kt_off_totals t;
	struct kt_off_row **rows;
	size_t n;
	int status = KT_EXIT_FAIL, ret;

	run.an = kt_offcpu_new(kt_reader_tep(r), machine_of(r), o->by && !strcmp(o->by, "comm"),
				 false);
	if (run.an && (o->folded || o->flame))
		run.f = kt_folded_new(kt_reader_tep(r), KT_FOLDED_OFFCPU);
	if (run.f && kt_folded_name_users(run.f, r))
		kt_warn("cannot name the frames of user stacks: %s", strerror(errno));
	if (!run.an || ((o->folded || o->flame) && !run.f)) {
		kt_err("cannot start the analysis: %s", strerror(errno));
		goto out;
	}
	if (!ran(o, kt_decoder_run(d, off_add, &run)))
		goto out;
	kt_offcpu_totals(run.an, &t);
	if (!t.has_switch) {
		kt_err("'%s' holds no sched_switch events; record them with 'ktrace record --for offcpu' (sched_switch with a kernel stack, which says why each task blocked)",
		       o->input);
		goto out;
	}
	if ((o->folded || o->flame) && !t.has_stacks) {
		kt_err("'%s' holds no kernel stacks to fold; record them with 'ktrace record --for offcpu' (a stack on each sched_switch)",
		       o->input);
		goto out;
	}
	status = sorted(o, kt_offcpu_rows(run.an, o->sort, &rows, &n), kt_offcpu_sort_keys);
	if (status)
		goto out;
	warn_loss(o, t.lost, t.lost_unknown);
	warn_missing(o, t.missing, "; a time blocked they cut ends at the task's next event");
	if (!t.has_stacks && !t.has_syscalls)
		kt_warn("'%s' holds no kernel stacks or syscall events: no reasons; record with 'ktrace record --for offcpu'",
			o->input);
	if (o->top && (size_t)o->top < n)
		n = (size_t)o->top;
	if (o->flame) {
		status = flame_out(o, run.f, "Off-CPU time by stack", "us off-CPU");
	} else if (o->folded) {
		ret = kt_folded_write(run.f, stdout);
		if (ret) {
			kt_err("cannot write the stacks: %s", strerror(-ret));
			status = KT_EXIT_FAIL;
		}
	} else if (o->json) {
		print_off_json(o, rows, n, &t);
	} else {
		print_off_table(o, rows, n);
	}
out:
	kt_folded_free(run.f);
	kt_offcpu_free(run.an);
	return status;
}

static double share(unsigned long long ns, unsigned long long all)
{
	return all ? 100.0 * (double)ns / (double)all : 0.0;
}

static void print_cp_table(const struct analyze_opts *o, struct kt_critpath_target *tv,
			   size_t nt, struct kt_critpath_row **rows, size_t n,
			   const struct kt_critpath_totals *t)
{
	size_t i;

	(void)o;
	for (i = 0; i < nt; i++) {
		printf("critical path of %s (tid %d):", tv[i].comm, tv[i].pid);
		put_ms(tv[i].ns);
		printf(" ms, of which asleep until a task woke it");
		put_ms(tv[i].woken_ns);
		printf(" ms\n");
	}
	printf("%7s %-16s %-12s %13s %7s\n", "tid", "comm", "state", "time ms", "share");
	for (i = 0; i < n; i++) {
		printf("%7d %-16s %-12s", rows[i]->pid, rows[i]->comm,
		       kt_critpath_state_name(rows[i]->state));
		put_ms(rows[i]->ns);
		printf(" %6.2f%%\n", share(rows[i]->ns, t->ns));
	}
}

static void print_cp_json(const struct analyze_opts *o, struct kt_critpath_target *tv,
			  size_t nt, struct kt_critpath_row **rows, size_t n,
			  const struct kt_critpath_totals *t)
{
	size_t i;

	printf("{\"analysis\":\"critpath\",\"file\":");
	kt_json_put_str(stdout, o->input);
	printf(",\"ns\":%llu,\"missing_switches\":%llu,\"lost\":%llu,\"lost_unknown\":%s,\"targets\":[",
	       t->ns, t->missing, t->lost, t->lost_unknown ? "true" : "false");
	for (i = 0; i < nt; i++) {
		printf("%s{\"pid\":%d,\"comm\":", i ? "," : "", tv[i].pid);
		kt_json_put_str(stdout, tv[i].comm);
		printf(",\"ns\":%llu,\"woken_ns\":%llu}", tv[i].ns, tv[i].woken_ns);
	}
	printf("],\"rows\":[");
	for (i = 0; i < n; i++) {
		printf("%s{\"pid\":%d,\"comm\":", i ? "," : "", rows[i]->pid);
		kt_json_put_str(stdout, rows[i]->comm);
		printf(",\"state\":\"%s\",\"ns\":%llu,\"share\":%.4f}",
		       kt_critpath_state_name(rows[i]->state), rows[i]->ns,
		       share(rows[i]->ns, t->ns) / 100.0);
	}
	printf("]}\n");
}

/* A folded line: the path and its microseconds (none for less than 1). */
static int put_path(const char *path, unsigned long long ns, void *arg)
{
	(void)arg;
	if (ns >= 1000)
		printf("%s %llu\n", path, ns / 1000);
	return 0;
}

/* The same path into --flamegraph's stacks, in the same microseconds. */
static int fold_path(const char *path, unsigned long long ns, void *arg)
{
	return ns >= 1000 ? kt_folded_put(arg, path, ns / 1000) : 0;
}

/* critpath's paths as a flame graph.  The status to end with. */
static int cp_flame(const struct analyze_opts *o, struct kt_critpath *cp,
		    struct kt_reader *r)
{
	struct kt_folded *f = kt_folded_new(kt_reader_tep(r), KT_FOLDED_EVENTS);
	int ret, status;

	ret = f ? kt_critpath_each_path(cp, fold_path, f) : -ENOMEM;
	if (ret) {
		kt_err("cannot fold the critical path: %s", strerror(-ret));
		kt_folded_free(f);
		return KT_EXIT_FAIL;
	}
	status = flame_out(o, f, "Critical path (target;waker;...;state)", "us");
	kt_folded_free(f);
	return status;
}

static int run_critpath(const struct analyze_opts *o, struct kt_reader *r,
			struct kt_decoder *d)
{
	struct kt_critpath *cp;
	struct kt_critpath_totals t;
	struct kt_critpath_target *tv;
	struct kt_critpath_row **rows;
	size_t nt, n;
	int status = KT_EXIT_FAIL, ret;

	cp = kt_critpath_new(kt_reader_tep(r));
	if (!cp) {
		kt_err("cannot start the analysis: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	if (!ran(o, kt_decoder_run(d, kt_critpath_add, cp)))
		goto out;
	kt_critpath_totals(cp, &t);
	if (!t.has_switch || !t.has_wakeup) {
		kt_err("'%s' holds no %s; record them with 'ktrace record --for sched' (sched_switch, sched_waking)",
		       o->input, t.has_switch ? "sched_waking or sched_wakeup events (who woke whom)" :
		       "sched_switch events");
		goto out;
	}
	ret = kt_critpath_targets(cp, &tv, &nt);
	if (!ret)
		ret = kt_critpath_rows(cp, &rows, &n);
	if (ret) {
		kt_err("cannot follow the waits: %s", strerror(-ret));
		goto out;
	}
	if (!nt) {
		kt_err("no task of '%s' is selected by --pid or --comm with a switch or wakeup of its own",
		       o->input);
		goto out;
	}
	warn_loss(o, t.lost, t.lost_unknown);
	warn_missing(o, t.missing, "; 'unknown' rows say how much");
	if (o->top && (size_t)o->top < n)
		n = (size_t)o->top;
	if (o->flame) {
		status = cp_flame(o, cp, r);
		goto out;
	} else if (o->folded) {
		kt_critpath_each_path(cp, put_path, NULL);
	} else if (o->json) {
		print_cp_json(o, tv, nt, rows, n, &t);
	} else {
		print_cp_table(o, tv, nt, rows, n, &t);
	}
	status = KT_EXIT_OK;
out:
	kt_critpath_free(cp);
	return status;
}

/*
 * --by process: which process each thread is of, as record stored it.
 * KT_EXIT_OK (0) or KT_EXIT_FAIL.
 */
static int tgids_of(struct analyze_opts *o, struct kt_reader *r)
{
	int ret = kt_tgidmap_load(&o->tg, kt_reader_tgids(r));

	if (ret) {
		kt_err("cannot read the processes of '%s': %s", o->input, strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (!o->tg.stored)
		kt_warn("'%s' does not say which process each thread is of (it was not recorded by ktrace record): each thread is counted as a process of its own",
			o->input);
	return KT_EXIT_OK;
}

/* One recording's analysis; r stays open. */
static int analyze_one(struct analyze_opts *o, struct kt_reader *r)
{
	struct kt_decoder *d;
	int status = KT_EXIT_FAIL, ret;

	ret = kt_select_resolve(o->sel, r);
	if (ret)
		return ret == -EINVAL ? KT_EXIT_USAGE : KT_EXIT_FAIL;
	d = kt_select_decoder(o->sel, r);
	if (!d)
		return KT_EXIT_FAIL;
	if (o->by && !strcmp(o->by, "process") && tgids_of(o, r)) {
		kt_decoder_free(d);
		return KT_EXIT_FAIL;
	}
	status = !strcmp(o->kind, "sched") ? run_sched(o, r, d) :
		 !strcmp(o->kind, "cpu") ? run_cpu(o, r, d) :
		 !strcmp(o->kind, "offcpu") ? run_offcpu(o, r, d) :
		 !strcmp(o->kind, "critpath") ? run_critpath(o, r, d) : run_syscalls(o, r, d);
	if (status == KT_EXIT_OK && kt_reader_damaged(r)) {
		kt_err("'%s' is damaged: the figures above stop short where the warnings say", o->input);
		status = KT_EXIT_DAMAGED;
	}
	kt_decoder_free(d);
	kt_tgidmap_free(&o->tg);
	return status;
}

/*
 * analyze -i A -i B of several hosts (cmd.h's hosts_open()): each host's
 * analysis under a line "host NAME (FILE):" ("host FILE:" when it is
 * named by its file), NAME as report names its lines (decode/hosts.h).  The figures are each host's own: a host's
 * clock offset moves no duration.
 */
static int analyze_hosts(struct analyze_opts *o, struct kt_reader **rs)
{
	struct kt_hosts *h = kt_hosts_new();
	struct kt_host_info hi;
	const char *input = o->input;
	int i, st, status = KT_EXIT_OK;

	if (o->json || o->folded || o->flame) {
		kt_err("'%s' are recordings of several hosts: analyze gives each one's table; %s takes one file",
		       input, o->flame ? "--flamegraph" : o->json ? "--format json" : "--format folded");
		status = KT_EXIT_USAGE;
	}
	for (i = 0; status == KT_EXIT_OK && h && i < o->in.n; i++)
		if (kt_hosts_add(h, rs[i], NULL, o->in.paths[i]))
			status = KT_EXIT_FAIL;
	for (i = 0; status != KT_EXIT_USAGE && h && i < o->in.n; i++) {
		kt_hosts_info(h, i, &hi);
		if (strcmp(hi.name, hi.path))
			printf("%shost %s (%s):\n", i ? "\n" : "", hi.name, hi.path);
		else
			printf("%shost %s:\n", i ? "\n" : "", hi.name);
		fflush(stdout);
		o->input = o->in.paths[i];
		st = analyze_one(o, rs[i]);
		if (st && (!status || st == KT_EXIT_USAGE))
			status = st;
	}
	if (!h)
		status = KT_EXIT_FAIL;
	o->input = input;
	kt_hosts_free(h);
	for (i = 0; i < o->in.n; i++)
		kt_reader_close(rs[i]);
	return status;
}

static int analyze(struct analyze_opts *o)
{
	struct kt_reader *r;
	int status;

	if (o->in.n > 1) {
		struct kt_reader **rs = calloc((size_t)o->in.n, sizeof(*rs));

		if (rs && hosts_open(&o->in, rs)) {
			status = analyze_hosts(o, rs);
			free(rs);
			return status;
		}
		free(rs);
	}
	r = kt_reader_open_list(o->in.paths, o->in.n);
	if (!r)
		return errno == EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
	status = analyze_one(o, r);
	kt_reader_close(r);
	kt_tgidmap_free(&o->tg);
	return status;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { 0 };
	int ret;

	o.sel = kt_select_new();
	if (!o.sel) {
		kt_err("cannot start: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	ret = parse_args(&argp, argc, argv, &o) ? KT_EXIT_OK : analyze(&o);
	kt_select_free(o.sel);
	input_free(&o.in);
	return ret;
}
