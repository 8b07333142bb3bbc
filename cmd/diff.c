// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace diff A B: what changed between two recordings of the same
 * workload, per task, system call, off-CPU reason, irq and softirq,
 * ranked by impact with a significance test (lib/analyze/diff.h).  This
 * file parses the options, runs each file through the collector and
 * prints the rows, or the differential flame graph.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "analyze/diff.h"
#include "base/log.h"
#include "decode/decoder.h"
#include "file/reader.h"
#include "views/flamegraph.h"
#include "views/folded.h"

enum {
	OPT_FORMAT = 256,
	OPT_TOP,
	OPT_RANK,
	OPT_ALPHA,
	OPT_SIGNIFICANT,
	OPT_FLAMEGRAPH,
};

struct diff_opts {
	const char *path[2];
	bool json;
	bool flame;
	bool only_sig;
	bool by_impact;
	double alpha;
	long top;
	const char *output;
};

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "FMT", 0, "table (default) or json", 0 },
	{ "top", OPT_TOP, "N", 0, "show the first N rows only", 0 },
	{ "significant", OPT_SIGNIFICANT, NULL, 0, "show the significant rows only", 0 },
	{ "rank", OPT_RANK, "HOW", 0, "significant (default: the significant rows first, each part by impact) or impact (by the change in total time alone)", 0 },
	{ "alpha", OPT_ALPHA, "P", 0, "the significance level, after the correction for the number of rows (default 0.01)", 0 },
	{ "flamegraph", OPT_FLAMEGRAPH, NULL, 0, "draw a differential flame graph of the time off the CPU by kernel stack instead (with -o FILE.svg): B's stacks, red where they grew from A, blue where they shrank", 0 },
	{ "output", 'o', "FILE", 0, "write to FILE instead of standard output", 0 },
	{ 0 }
};

static const char args_doc[] = "A B";
static const char doc[] =
	"Show what changed between two recordings of the same workload.\v"
	"A and B are trace.dat files or directories of chunks (record --rotate's); "
	"A is the baseline.  Each row is a task (by comm: its runs on a CPU), a "
	"system call, an off-CPU reason (the kernel stack's first function out "
	"of the scheduler where the files hold stacks, else the wait kind: the "
	"state and the system call), an irq handler or a softirq, with its "
	"count, total time, p50 and p99 in A and in B, and whether it "
	"changed: Mann-Whitney U tests of its durations and of its totals in "
	"24 stretches of each run's time, corrected for the number of rows, "
	"an effect (Cliff's delta) of at least 0.4 (0.9 for a row mostly "
	"blocked on a device) and larger than between each run's halves, a "
	"change of at least 1% of the largest total of any row, and medians "
	"(or totals) 10% apart.  Rows are ranked "
	"by impact, the change in total time, the significant ones first.  "
	"Record both alike, e.g. 'ktrace record -c --for offcpu --for cpu "
	"--for syscalls -- CMD'.  "
	"Exit status: 0 ok, 1 failure (or files that cannot be compared), "
	"2 damaged input file, 64 usage.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct diff_opts *o = state->input;
	char *end;

	switch (key) {
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			o->json = true;
		else if (strcmp(arg, "table"))
			argp_error(state, "bad --format '%s'; use table or json", arg);
		break;
	case OPT_TOP:
		o->top = parse_top(state, arg);
		break;
	case OPT_SIGNIFICANT: o->only_sig = true; break;
	case OPT_RANK:
		if (!strcmp(arg, "impact"))
			o->by_impact = true;
		else if (strcmp(arg, "significant"))
			argp_error(state, "bad --rank '%s'; use significant or impact", arg);
		break;
	case OPT_ALPHA:
		errno = 0;
		o->alpha = strtod(arg, &end);
		if (errno || *end || end == arg || !(o->alpha > 0 && o->alpha < 1))
			argp_error(state, "bad --alpha '%s'; give a probability between 0 and 1, e.g. 0.01", arg);
		break;
	case OPT_FLAMEGRAPH: o->flame = true; break;
	case 'o': o->output = arg; break;
	case ARGP_KEY_ARG:
		if (state->arg_num >= 2)
			argp_error(state, "unexpected argument '%s'; give two recordings, A and B", arg);
		o->path[state->arg_num] = arg;
		break;
	case ARGP_KEY_END:
		if (!o->path[1])
			argp_error(state, "give two recordings to compare, A (the baseline) and B");
		if (o->flame && !o->output)
			argp_error(state, "--flamegraph writes an SVG: give -o FILE.svg");
		if (o->flame && (o->json || o->top || o->only_sig || o->by_impact))
			argp_error(state, "--flamegraph takes only -o");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* One recording's pass. */
struct side {
	const char *path;
	struct kt_reader *r;
	struct kt_samples *s;
	struct kt_folded *f;		/* --flamegraph's */
};

static int side_add(const struct kt_event *ev, void *arg)
{
	struct side *sd = arg;
	int ret = kt_samples_add(ev, sd->s);

	if (!ret && sd->f)
		ret = kt_folded_add(ev, sd->f);
	return ret;
}

static const char *machine_of(struct kt_reader *r)
{
	const char *un = kt_reader_uname(r);

	if (!un || !*un)
		return NULL;
	return strrchr(un, ' ') ? strrchr(un, ' ') + 1 : un;
}

/*
 * Whether record traced some tasks only (-c, -F, -P, by its command line
 * in the file): then the tasks its switches name besides are seen only
 * in part.  A short option among several ("-qc") counts too.
 */
static bool some_tasks(struct kt_reader *r)
{
	const char *cmd = kt_reader_record_cmdline(r), *p;
	size_t len;

	for (p = cmd; p && *p; p += len) {
		p += strspn(p, " ");
		len = strcspn(p, " ");
		if (!len || (len == 2 && !strncmp(p, "--", 2)))
			break;		/* the end, or the command's own */
		if (!strncmp(p, "--", 2)) {
			if (!strncmp(p, "--pid", 5) || !strncmp(p, "--children", 10) ||
			    !strncmp(p, "--command-only", 14))
				return true;
		} else if (p[0] == '-' && strcspn(p, "cFP") < len) {
			return true;
		}
	}
	return false;
}

/* Read one file through: KT_EXIT_OK or the status to end with. */
static int read_side(struct side *sd, bool flame)
{
	struct kt_decoder *d;
	bool unknown;
	unsigned long long lost;
	int ret;

	if (access(sd->path, R_OK)) {
		kt_err("cannot open '%s': %s; give two recordings, A and B ('ktrace record -o FILE' writes one)",
		       sd->path, strerror(errno));
		return KT_EXIT_FAIL;
	}
	sd->r = kt_reader_open_list(&sd->path, 1);
	if (!sd->r)
		return errno == EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
	sd->s = kt_samples_new(kt_reader_tep(sd->r), machine_of(sd->r), some_tasks(sd->r));
	if (sd->s && flame)
		sd->f = kt_folded_new(kt_reader_tep(sd->r), KT_FOLDED_OFFCPU);
	if (sd->f && kt_folded_name_users(sd->f, sd->r))
		kt_warn("cannot name the frames of user stacks in '%s': %s", sd->path,
			strerror(errno));
	d = kt_decoder_new(sd->r, NULL);
	if (!sd->s || (flame && !sd->f) || !d) {
		kt_decoder_free(d);
		kt_err("cannot read '%s': %s", sd->path, strerror(errno));
		return KT_EXIT_FAIL;
	}
	ret = kt_decoder_run(d, side_add, sd);
	kt_decoder_free(d);
	if (ret) {
		kt_err("cannot read '%s': %s", sd->path, strerror(-ret));
		return KT_EXIT_FAIL;
	}
	if (kt_reader_damaged(sd->r)) {
		kt_err("'%s' is damaged; the figures would stop short where the warnings say: nothing compared",
		       sd->path);
		return KT_EXIT_DAMAGED;
	}
	lost = kt_samples_lost(sd->s, &unknown);
	if (lost || unknown)
		kt_warn("%s%llu events were lost in '%s'; its figures may be short",
			unknown ? "at least " : "", lost, sd->path);
	return KT_EXIT_OK;
}

/*
 * The two files hold the same kinds of input, or the one line that says
 * what cannot be compared and how to record it.
 */
static int comparable(const struct side *a, const struct side *b, bool flame)
{
	static const struct {
		unsigned int bit;
		const char *what, *record;
	} inputs[] = {
		{ KT_DIFF_HAS_SWITCH, "sched_switch events (tasks' runs and off-CPU time)", "--for offcpu" },
		{ KT_DIFF_HAS_STACKS, "kernel stacks on sched_switch (off-CPU reasons by stack)", "--for offcpu" },
		{ KT_DIFF_HAS_SYSCALLS, "system call events", "--for syscalls" },
		{ KT_DIFF_HAS_IRQ, "irq handler events", "--for cpu" },
		{ KT_DIFF_HAS_SOFTIRQ, "softirq events", "--for cpu" },
	};
	unsigned int ha = kt_samples_has(a->s), hb = kt_samples_has(b->s);
	const struct kt_sample_set *sets;
	size_t i, na = 0, nb = 0;

	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		unsigned int bit = inputs[i].bit;

		if ((ha & bit) == (hb & bit))
			continue;
		kt_err("cannot compare '%s' and '%s': only '%s' holds %s; record both with the same events (e.g. 'ktrace record %s')",
		       a->path, b->path, ha & bit ? a->path : b->path, inputs[i].what,
		       inputs[i].record);
		return KT_EXIT_FAIL;
	}
	if (kt_samples_sets(a->s, &sets, &na) || kt_samples_sets(b->s, &sets, &nb)) {
		kt_err("cannot compare '%s' and '%s': %s", a->path, b->path, strerror(ENOMEM));
		return KT_EXIT_FAIL;
	}
	if (!na && !nb) {
		kt_err("nothing to compare in '%s' and '%s': no sched_switch, system call or irq records; record them with 'ktrace record --for offcpu --for syscalls --for cpu'",
		       a->path, b->path);
		return KT_EXIT_FAIL;
	}
	if (flame && !(ha & KT_DIFF_HAS_STACKS)) {
		kt_err("'%s' and '%s' hold no kernel stacks of sched_switch for a flame graph; record them with 'ktrace record --for offcpu'",
		       a->path, b->path);
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}

/* The output's end, after writing it returned ret (0 or -errno). */
static int written(FILE *out, const char *path, char *tmp, int ret)
{
	if (ret)
		kt_err("cannot write '%s': %s", path ? path : "the output", strerror(-ret));
	return output_close(out, path, tmp, ret ? KT_EXIT_FAIL : KT_EXIT_OK);
}

/* Milliseconds with three decimals, signed. */
static void put_ms(FILE *out, long long ns, bool sign)
{
	unsigned long long a = ns < 0 ? (unsigned long long)-ns : (unsigned long long)ns;

	fprintf(out, " %s%*llu.%03llu", sign ? (ns < 0 ? "-" : "+") : "",
	       sign ? 8 : 9, a / 1000000, a / 1000 % 1000);
}

static void put_us(FILE *out, unsigned long long ns)
{
	fprintf(out, " %9llu.%03llu", ns / 1000, ns % 1000);
}

static long long delta(unsigned long long a, unsigned long long b)
{
	return (long long)b - (long long)a;
}

static void print_table(FILE *out, const struct kt_diff_row *v, size_t n)
{
	size_t i;

	fprintf(out, "%-4s %-8s %-24s %8s %8s %13s %13s %13s %13s %13s %13s %13s %9s %7s\n",
	       "sig", "kind", "name", "count A", "count B", "total A ms", "total B ms",
	       "delta ms", "p50 A us", "p50 B us", "p99 A us", "p99 B us", "p", "effect");
	for (i = 0; i < n; i++) {
		const struct kt_diff_row *r = &v[i];

		fprintf(out, "%-4s %-8s %-24.24s %8llu %8llu", r->significant ? "*" : "",
		       kt_diff_kind_name(r->kind), r->name, r->a.count, r->b.count);
		put_ms(out, (long long)r->a.total, false);
		put_ms(out, (long long)r->b.total, false);
		put_ms(out, delta(r->a.total, r->b.total), true);
		put_us(out, r->a.p50);
		put_us(out, r->b.p50);
		put_us(out, r->a.p99);
		put_us(out, r->b.p99);
		if (r->by_blocks)
			fprintf(out, " %9.2g %+7.2f\n", r->block_p, r->block_effect);
		else if (r->tested)
			fprintf(out, " %9.2g %+7.2f\n", r->p, r->effect);
		else
			fprintf(out, " %9s %7s\n", "-", "-");
	}
}

static void put_side(FILE *out, const char *name, const struct kt_diff_side *s)
{
	fprintf(out, ",\"%s\":{\"count\":%llu,\"total_ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu}",
	       name, s->count, s->total, s->p50, s->p99);
}

static void print_json(FILE *out, const struct side *sd, const struct kt_diff_row *v,
		       size_t n)
{
	size_t i;

	fprintf(out, "{\"a\":");
	kt_json_put_str(out, sd[0].path);
	fprintf(out, ",\"b\":");
	kt_json_put_str(out, sd[1].path);
	fprintf(out, ",\"rows\":[");
	for (i = 0; i < n; i++) {
		const struct kt_diff_row *r = &v[i];

		fprintf(out, "%s{\"rank\":%zu,\"kind\":\"%s\",\"name\":", i ? "," : "", i + 1,
		       kt_diff_kind_name(r->kind));
		kt_json_put_str(out, r->name);
		fprintf(out, ",\"significant\":%s,\"tested\":%s,\"test\":%s",
			r->significant ? "true" : "false", r->tested ? "true" : "false",
			!r->significant ? "null" : r->by_blocks ? "\"blocks\"" : "\"durations\"");
		if (r->tested)
			fprintf(out, ",\"p\":%.6g,\"effect\":%.4f,\"within\":%.4f,\"device\":%.4f"
				",\"block_p\":%.6g,\"block_effect\":%.4f,\"block_within\":%.4f",
				r->p, r->effect, r->within, r->device, r->block_p, r->block_effect,
				r->block_within);
		else
			fprintf(out, ",\"p\":null,\"effect\":null,\"within\":null,\"device\":null");
		put_side(out, "a", &r->a);
		put_side(out, "b", &r->b);
		fprintf(out, ",\"delta\":{\"count\":%lld,\"total_ns\":%lld,\"p50_ns\":%lld,\"p99_ns\":%lld}}",
		       delta(r->a.count, r->b.count), delta(r->a.total, r->b.total),
		       delta(r->a.p50, r->b.p50), delta(r->a.p99, r->b.p99));
	}
	fprintf(out, "]}\n");
}

static int diff(const struct diff_opts *o)
{
	struct side sd[2] = { { .path = o->path[0] }, { .path = o->path[1] } };
	struct kt_diff_opts how = { .alpha = o->alpha, .sig_first = !o->by_impact };
	struct kt_diff_row *rows = NULL;
	char *tmp = NULL;
	size_t n, i, k;
	int status, ret;
	FILE *out;

	status = read_side(&sd[0], o->flame);
	if (!status)
		status = read_side(&sd[1], o->flame);
	if (!status)
		status = comparable(&sd[0], &sd[1], o->flame);
	if (status)
		goto out;
	out = output_open(o->output, &tmp);
	if (!out) {
		status = KT_EXIT_FAIL;
		goto out;
	}
	if (o->flame) {
		char title[512];

		snprintf(title, sizeof(title), "Off-CPU time by kernel stack: %s against %s",
			 sd[1].path, sd[0].path);
		ret = kt_flamegraph_write_diff(sd[0].f, sd[1].f, title, "us off-CPU", out);
		status = written(out, o->output, tmp, ret);
		goto out;
	}
	ret = kt_diff_compare(sd[0].s, sd[1].s, &how, &rows, &n);
	if (ret) {
		kt_err("cannot compare '%s' and '%s': %s", sd[0].path, sd[1].path, strerror(-ret));
		output_close(out, o->output, tmp, KT_EXIT_FAIL);
		status = KT_EXIT_FAIL;
		goto out;
	}
	if (o->only_sig) {
		for (i = k = 0; i < n; i++)
			if (rows[i].significant)
				rows[k++] = rows[i];
		n = k;
	}
	if (o->top && (size_t)o->top < n)
		n = (size_t)o->top;
	if (o->json)
		print_json(out, sd, rows, n);
	else
		print_table(out, rows, n);
	status = written(out, o->output, tmp, ferror(out) ? -EIO : 0);
out:
	free(rows);
	for (i = 0; i < 2; i++) {
		kt_folded_free(sd[i].f);
		kt_samples_free(sd[i].s);
		if (sd[i].r)
			kt_reader_close(sd[i].r);
	}
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { 0 };

	return parse_args(&argp, argc, argv, &o) ? KT_EXIT_OK : diff(&o);
}
