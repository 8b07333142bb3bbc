// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace report: decode a trace.dat file (v6/v7, as trace-cmd writes
 * them) into trace-cmd's text, field=value text or JSON lines; and the
 * --stat summary that `ktrace stat -i FILE` shares.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "util-select-opts.h"
#include "views/filestat.h"
#include "decode/decoder.h"
#include "decode/fgraph.h"
#include "decode/hosts.h"
#include "decode/printer.h"
#include "file/trigopt.h"
#include "decode/select.h"
#include "decode/ustack.h"
#include "base/json.h"
#include "base/log.h"
#include "views/flamegraph.h"
#include "views/folded.h"
#include "views/procview.h"
#include "file/reader.h"
#include "file/tracedat.h"
#include "views/datout.h"
#include "views/whole.h"

enum {
	OPT_RAW = 256,
	OPT_STAT,
	OPT_FORMAT,
	OPT_HEAD,
	OPT_TIMELINE,
	OPT_STACKS,
	OPT_FLAMEGRAPH,
	OPT_FILE_VERSION,
	OPT_COMPRESSION,
};

struct report_opts {
	struct input_list in;	/* -i: a file, a directory of chunks, chunks */
	const char *input;	/* what messages call it */
	const char *output;
	struct kt_select *sel;	/* -e, -F, --pid, --comm, --cpu, --from, --to */
	bool nsec;
	bool raw;
	bool stat;
	bool json;
	const char *whole;	/* --format perfetto or chrome: its name */
	bool dat;		/* --format dat, or -o *.dat */
	int file_version;	/* its --file-version; 0: the input's */
	const char *compression;	/* its --compression; NULL: the input's */
	bool timeline;		/* --timeline */
	int stacks;		/* --stacks: 1 per event, 2 offcpu */
	bool flame;		/* --flamegraph: their SVG */
	long long head;
	enum { VIEW_AUTO, VIEW_PROCESS, VIEW_TRACECMD } view;
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE|DIR", 0, "read FILE (default ktrace.dat), or the chunks in DIR (record --rotate's) as one trace; repeated, chunks of one recording, or recordings of several hosts (a remote one among them, or their host names differ) merged on the controller's clock, each line after its host's name", 0 },
	{ "output", 'o', "OUT", 0, "write to OUT instead of standard output", 0 },
	KT_SELECT_OPTIONS,
	{ "nsec", 't', NULL, 0, "timestamps in nanoseconds", 0 },
	{ "raw", OPT_RAW, NULL, 0, "print every field as field=value", 0 },
	{ "stat", OPT_STAT, NULL, 0, "print record-time stats, lost events and event counts instead (of the selection, when one is given)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default: the process view for 'record --process' files, else trace-cmd's lines with user stacks' frames named), process, trace-cmd (its exact bytes), json (one object per line), perfetto (Perfetto's trace, for ui.perfetto.dev), chrome (Chrome's trace-event JSON, for chrome://tracing) or dat (the selected events as a trace.dat of the input's version and compression, with -o; the default for -o NAME.dat)", 0 },
	{ "file-version", OPT_FILE_VERSION, "6|7", 0, "the trace.dat version -o writes (default: the input's; 6 is never compressed)", 0 },
	{ "compression", OPT_COMPRESSION, "zstd|zlib|none", 0, "how -o packs a v7 trace.dat (default: as the input; zstd or zlib make it v7)", 0 },
	{ "timeline", OPT_TIMELINE, NULL, 0, "an SVG of CPU occupancy over time instead (with -o FILE.svg)", 0 },
	{ "stacks", OPT_STACKS, "offcpu", OPTION_ARG_OPTIONAL, "print folded kernel stacks (flame graph input: 'comm;outer;...;inner count') instead, one count per event; --stacks=offcpu: sched_switch stacks weighted by the microseconds the task then stayed off the CPU", 0 },
	{ "flamegraph", OPT_FLAMEGRAPH, NULL, 0, "draw those stacks as a flame graph SVG instead (with -o FILE.svg; with --stacks=offcpu, of the time off the CPU)", 0 },
	{ "head", OPT_HEAD, "N", 0, "stop after N events", 0 },
	{ 0 }
};

static const char args_doc[] = "";
static const char doc[] =
	"Decode a trace.dat file into text or JSON.\v"
	"Reads trace.dat v6 and v7 (also zstd/zlib compressed) as written by "
	"ktrace record and trace-cmd record.  The default text is what "
	"'trace-cmd report' prints.  Exit status: 0 ok, 1 failure, 2 damaged "
	"input file, 64 usage.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	char *end;

	if (select_opt(o->sel, key, arg, state) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case 'i': input_add(state, &o->in, arg); break;
	case 'o': o->output = arg; break;
	case 't': o->nsec = true; break;
	case OPT_FILE_VERSION:
		o->file_version = parse_file_version(state, arg);
		break;
	case OPT_COMPRESSION:
		o->compression = parse_compression(state, arg);
		break;
	case OPT_RAW: o->raw = true; break;
	case OPT_STAT: o->stat = true; break;
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			o->json = true;
		else if (!strcmp(arg, "perfetto") || !strcmp(arg, "chrome"))
			o->whole = arg;
		else if (!strcmp(arg, "dat"))
			o->dat = true;
		else if (!strcmp(arg, "process"))
			o->view = VIEW_PROCESS;
		else if (!strcmp(arg, "trace-cmd"))
			o->view = VIEW_TRACECMD;
		else if (strcmp(arg, "text"))
			argp_error(state, "bad --format '%s'; use text, process, trace-cmd, json, perfetto, chrome or dat", arg);
		break;
	case OPT_TIMELINE: o->timeline = true; break;
	case OPT_STACKS:
		if (arg && strcmp(arg, "offcpu"))
			argp_error(state, "bad --stacks='%s'; give --stacks or --stacks=offcpu", arg);
		o->stacks = arg ? 2 : 1;
		break;
	case OPT_FLAMEGRAPH: o->flame = true; break;
	case OPT_HEAD:
		errno = 0;
		o->head = strtoll(arg, &end, 10);
		if (errno || *end || end == arg || o->head < 0)
			argp_error(state, "bad --head '%s'; give a number of events", arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'; give the file with -i", arg);
		break;
	case ARGP_KEY_END:
		o->input = input_done(state, &o->in);
		/* -o out.dat writes a trace.dat unless another format is asked. */
		if (o->output && strlen(o->output) > 4 &&
		    !strcmp(o->output + strlen(o->output) - 4, ".dat") &&
		    !o->raw && !o->json && !o->whole && !o->timeline &&
		    !o->stat && !o->stacks && o->view == VIEW_AUTO)
			o->dat = true;
		if ((o->file_version || o->compression) && !o->dat)
			argp_error(state, "--file-version and --compression are for a trace.dat output; give it with -o OUT.dat");
		check_file_format(state, o->file_version, o->compression);
		if (o->dat && (!o->output || !strcmp(o->output, "-")))
			argp_error(state, "--format dat writes a file; give it with -o OUT.dat");
		if (o->dat && (o->raw || o->json || o->whole || o->timeline ||
			       o->stat || o->nsec || o->head >= 0 || o->view != VIEW_AUTO))
			argp_error(state, "--format dat takes the selection options only (no --raw, -t, --stat, --head, --timeline or other --format)");
		if (o->raw && o->json)
			argp_error(state, "--raw and --format json do not go together");
		if (o->raw && o->view == VIEW_PROCESS)
			argp_error(state, "--raw and --format process do not go together");
		if ((o->whole || o->timeline) &&
		    (o->raw || o->json || o->stat || o->nsec || o->view != VIEW_AUTO))
			argp_error(state, "--format %s takes no --raw, --stat, -t or other --format",
				   o->whole ? o->whole : "--timeline");
		if (o->whole && o->timeline)
			argp_error(state, "--format %s and --timeline do not go together; run report twice",
				   o->whole);
		if (o->flame && !o->stacks)
			o->stacks = 1;
		if (o->stacks && (o->raw || o->json || o->whole || o->timeline ||
				  o->stat || o->nsec || o->head >= 0 || o->dat ||
				  o->view != VIEW_AUTO))
			argp_error(state, "--stacks and --flamegraph take only the selection options and -o");
		if (o->stat && (o->raw || o->head >= 0))
			argp_error(state, "--stat counts the whole selection; it takes no --raw or --head");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

struct run {
	struct kt_printer *p;
	long long left;		/* --head; -1: no limit */
	struct kt_procview *pv;	/* the process view, or NULL */
	struct tep_handle *tep;
	struct trace_seq scratch;
	struct kt_fgraph *fg;	/* function_graph's text, or NULL */
	/* A trigger's snapshot: its firing event is marked (text only). */
	struct kt_trigopt trig;
	bool has_trig, marked;
	FILE *out;
};

/*
 * A trigger's snapshot (file/trigopt.h), in text: which condition
 * fired, when and on what, as the first line.
 */
static void trigger_head(struct run *run, struct kt_reader *r, FILE *out)
{
	const char *text = kt_reader_trigger(r);

	if (!text || kt_trigopt_parse(text, &run->trig))
		return;
	run->has_trig = true;
	run->out = out;
	fprintf(out, "# trigger '%s' fired at %llu.%06llu on CPU %d (pid %d): %s\n",
		run->trig.condition, (unsigned long long)run->trig.ts / 1000000000ULL,
		(unsigned long long)run->trig.ts / 1000 % 1000000ULL, run->trig.cpu,
		run->trig.pid, run->trig.event);
}

/* After the firing event's line, a line that points at it. */
static int trigger_mark(struct run *run, const struct kt_event *ev)
{
	int ret;

	if (!run->has_trig || run->marked || !ev->selected ||
	    ev->cpu != run->trig.cpu || ev->record->ts != run->trig.ts)
		return 0;
	run->marked = true;
	ret = kt_printer_flush(run->p);
	if (!ret)
		fprintf(run->out, "# ^ trigger '%s' fired here\n", run->trig.condition);
	return ret;
}

/*
 * The process view's text for its events; other events keep their name
 * (the column the view leaves out) and libtraceevent's text.
 */
static int procview_info(struct trace_seq *s, struct tep_event *event,
			 struct tep_record *record, void *priv)
{
	struct run *run = priv;

	if (kt_procview_format(run->pv, s, event, record) == KT_PROCVIEW_SHOWN)
		return 0;
	trace_seq_printf(s, "%s: ", event->name);
	tep_print_event(run->tep, s, record, "%s", TEP_PRINT_INFO);
	return 0;
}

static int print_fn(const struct kt_event *ev, void *arg)
{
	struct run *run = arg;
	int ret;

	/*
	 * The view follows every record in order, printed or not (exit
	 * codes come from calls before the exit); those that make no line
	 * may still carry a lost-events mark.
	 */
	if (run->pv && (!ev->selected || kt_procview_hides(run->pv, ev->event))) {
		struct kt_event mark = *ev;

		trace_seq_reset(&run->scratch);
		kt_procview_format(run->pv, &run->scratch, ev->event, ev->record);
		mark.selected = false;
		return kt_printer_print(run->p, &mark);
	}

	if (!run->left && ev->selected)
		return -ECANCELED;
	ret = kt_printer_print(run->p, ev);
	if (!ret)
		ret = trigger_mark(run, ev);
	if (ret)
		return ret;
	if (ev->selected && run->left > 0)
		run->left--;
	return 0;
}

/*
 * print_fn() without a process view, --head or a trigger: the printer
 * alone, in a tail call (most reports; a few dozen instructions a record).
 */
static int plain_fn(const struct kt_event *ev, void *arg)
{
	return kt_printer_print(((struct run *)arg)->p, ev);
}

/* function_graph's leaves need the next record: decode/fgraph.h. */
static int fgraph_fn(const struct kt_event *ev, void *arg)
{
	struct run *run = arg;

	return kt_fgraph_feed(run->fg, ev, print_fn, run);
}

static int fgraph_plain_fn(const struct kt_event *ev, void *arg)
{
	struct run *run = arg;

	return kt_fgraph_feed(run->fg, ev, plain_fn, run);
}

/*
 * Read (and unpack) each CPU's next pages in a second thread while this
 * one decodes, formats and writes the current ones (kt_reader_read_ahead()):
 * where it may pay (kt_reader_ahead_pays(): a file of some size, a second
 * CPU free), and then only if it earns its CPU on this machine and file
 * (kt_reader_try_read_ahead(): a trial over the file's first quarter).
 * The thread only reads the file, so the bytes are the same, with any
 * option.  KTRACE_NO_THREADS=1 keeps the report in one thread,
 * KTRACE_THREADS=1 reads ahead wherever it can, with no trial (the tests
 * compare the two), KTRACE_THREADS=trial tries it on any file and says
 * on stderr what the trial measured and chose.
 */
enum ahead_mode { AHEAD_NO, AHEAD_ALWAYS, AHEAD_TRY, AHEAD_TRY_SAY };

static enum ahead_mode ahead_mode(const struct kt_reader *r)
{
	const char *no = getenv("KTRACE_NO_THREADS"), *yes = getenv("KTRACE_THREADS");

	if (no && *no && strcmp(no, "0"))
		return AHEAD_NO;
	if (yes && !strcmp(yes, "trial"))
		return AHEAD_TRY_SAY;
	if (yes && *yes)
		return strcmp(yes, "0") ? AHEAD_ALWAYS : AHEAD_NO;
	return kt_reader_ahead_pays(r) ? AHEAD_TRY : AHEAD_NO;
}

static void read_ahead(struct kt_reader *r, enum ahead_mode mode)
{
	if (mode == AHEAD_ALWAYS)
		kt_reader_read_ahead(r);
	else if (mode != AHEAD_NO)
		kt_reader_try_read_ahead(r);
}

/* KTRACE_THREADS=trial: what the trial measured, one line on stderr. */
static void say_trial(const struct kt_reader *r)
{
	double cpu[2], wall[2];
	bool ahead;

	if (!kt_reader_ahead_tried(r, &ahead, cpu, wall)) {
		kt_info("read-ahead trial: not finished (the file ended first); serial");
		return;
	}
	kt_info("read-ahead trial: serial %.3f s CPU %.3f s wall, reading ahead %.3f s CPU %.3f s wall: %s",
		cpu[0], wall[0], cpu[1], wall[1], ahead ? "reading ahead" : "serial");
}

/* The report could not be written: where to, why, and what to do. */
static void say_write_error(const struct report_opts *o, int ret)
{
	bool full = ret == -ENOSPC || ret == -EDQUOT;

	if (o->output && strcmp(o->output, "-"))
		kt_err("cannot write '%s': %s%s", o->output, strerror(-ret),
		       full ? "; free some space, or give -o a path on another disk" : "");
	else
		kt_err("cannot write the report to standard output: %s%s", strerror(-ret),
		       full ? "; free some space, or send it to another disk" : "");
}

static int open_reader(const struct input_list *in, struct kt_reader **r)
{
	*r = kt_reader_open_list(in->paths, in->n);
	if (*r)
		return 0;
	return errno == EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
}

/*
 * A latency trace is the text of the tracer's trace file: printed as
 * stored, then a newline, as trace-cmd report prints it (with -R and -t
 * too).  Nothing in it can be selected or formatted otherwise.
 */
static int latency_report(struct kt_reader *r, const struct report_opts *o)
{
	char buf[65536], *tmp = NULL;
	uint64_t at = 0;
	ssize_t n;
	FILE *out;
	int status = KT_EXIT_OK;

	/* -t and --raw change no text of it, as in trace-cmd report. */
	if (kt_select_any(o->sel) || o->json || o->whole || o->timeline ||
	    o->dat || o->stat || o->head >= 0 || o->view != VIEW_AUTO) {
		kt_err("'%s' holds a latency trace (text): report prints it as stored; drop the selection and format options",
		       o->input);
		return KT_EXIT_FAIL;
	}
	out = output_open(o->output, &tmp);
	if (!out)
		return KT_EXIT_FAIL;
	while ((n = kt_reader_latency_read(r, at, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, (size_t)n, out);
		at += (uint64_t)n;
	}
	if (n < 0) {
		kt_err("cannot read '%s': %s", o->input, strerror((int)-n));
		status = KT_EXIT_FAIL;
	}
	fputc('\n', out);
	return output_close(out, o->output, tmp, status);
}

/*
 * report --stacks: the folded stacks to out; a loss in the window is
 * said on stderr (the counts may be short), a file with no stacks of
 * the selection is a failure with the way to record some.
 */
static int stacks_view(const struct report_opts *o, struct kt_decoder *d,
		       struct kt_reader *r, FILE *out, int *status)
{
	struct kt_folded *f;
	struct kt_folded_stats st;
	int ret;

	f = kt_folded_new(kt_reader_tep(r), o->stacks == 2 ? KT_FOLDED_OFFCPU : KT_FOLDED_EVENTS);
	if (!f)
		return -ENOMEM;
	ret = kt_folded_name_users(f, r);
	if (ret)
		kt_warn("cannot name the frames of user stacks: %s", strerror(-ret));
	ret = kt_decoder_run(d, kt_folded_add, f);
	if (!ret && o->flame) {
		char sel[256], title[512];

		/* What the file's stacks are: [0] as a title starts, [1] after "by". */
		static const char *const kinds[3][2] = {
			{ "Kernel stacks", "kernel stack" },
			{ "User stacks", "user stack" },
			{ "Kernel and user stacks", "kernel and user stack" },
		};
		const char *const *kind;

		kt_folded_stats(f, &st);
		kind = kinds[!st.ustacks ? 0 : !st.stacks ? 1 : 2];
		kt_select_describe(o->sel, sel, sizeof(sel));
		snprintf(title, sizeof(title), "%s%s of %s%s%s",
			 o->stacks == 2 ? "Off-CPU time by " : "", kind[o->stacks == 2],
			 o->input, *sel ? " " : "", sel);
		ret = kt_flamegraph_write(f, title, o->stacks == 2 ? "us off-CPU" : "events", out);
	} else if (!ret) {
		ret = kt_folded_write(f, out);
	}
	kt_folded_stats(f, &st);
	kt_folded_free(f);
	if (ret)
		return ret;
	if (st.lost || st.lost_unknown)
		kt_warn("%s%llu events were lost in '%s'; the stack counts may be short",
			st.lost_unknown ? "at least " : "", st.lost, o->input);
	if (st.missed_ins)
		kt_warn("%llu switch%s back onto a CPU %s missing from '%s' (dropped uncounted); each such time off ends at the task's next event",
			st.missed_ins, st.missed_ins == 1 ? "" : "es",
			st.missed_ins == 1 ? "is" : "are", o->input);
	if (!st.stacks && !st.ustacks) {
		kt_err("no kernel stacks %sin '%s'; record them with 'ktrace record -T' or '--stack EVENT'",
		       o->stacks == 2 ? "of sched_switch " :
		       kt_select_any(o->sel) ? "of the selection " : "", o->input);
		*status = KT_EXIT_FAIL;
	}
	return 0;
}

/*
 * The frames of user_stack records by name, from the memory maps record
 * --user-stack stored: the text line's info (kt_ustack_info) or JSON's
 * names.  NULL when the file has no user stacks or no maps: trace-cmd's
 * bare addresses then.
 */
static struct kt_ustack *name_user_stacks(struct kt_printer *p, struct kt_reader *r,
					  bool json)
{
	int id = kt_reader_event_id(r, "ftrace", "user_stack");
	struct kt_ustack *u;

	if (id < 0)
		return NULL;
	u = kt_ustack_new(r);
	if (!u) {
		if (errno != ENOENT)
			kt_warn("cannot name the frames of user stacks: %s", strerror(errno));
		return NULL;
	}
	if (json)
		kt_printer_set_ustack(p, u);
	else
		kt_printer_set_info(p, id, kt_ustack_info, u);
	return u;
}

/* ---- several hosts on one timeline (decode/hosts.h) ---- */

/*
 * One host's lines go through a stream that puts its name before each
 * line ("%*s: ", right-aligned to the longest name, as trace-cmd report
 * names the file of each line when given several), or "host" first in
 * each JSON object, on their way to the report's output.
 */
struct prefixer {
	FILE *out;
	const char *name;
	int width;
	bool json;
	bool bol;		/* the next byte starts a line */
};

static ssize_t prefix_write(void *cookie, const char *buf, size_t n)
{
	struct prefixer *p = cookie;
	const char *nl;
	size_t i = 0, len;

	while (i < n) {
		if (p->bol && p->json && buf[i] == '{') {
			fputs("{\"host\":", p->out);
			kt_json_put_str(p->out, p->name);
			fputc(',', p->out);
			i++;
		} else if (p->bol && !p->json) {
			fprintf(p->out, "%*s: ", p->width, p->name);
		}
		p->bol = false;
		nl = memchr(buf + i, '\n', n - i);
		len = nl ? (size_t)(nl - (buf + i)) + 1 : n - i;
		fwrite(buf + i, 1, len, p->out);
		if (nl)
			p->bol = true;
		i += len;
	}
	return ferror(p->out) ? -1 : (ssize_t)n;
}

struct hosts_run {
	struct kt_printer **p;
	FILE **pf;
	long long left;
};

static int hosts_fn(int host, const struct kt_event *ev, void *arg)
{
	struct hosts_run *hr = arg;
	int ret;

	if (!hr->left && ev->selected)
		return -ECANCELED;
	ret = kt_printer_print(hr->p[host], ev);
	if (!ret && fflush(hr->pf[host]))
		ret = -(errno ? errno : EIO);
	if (ret)
		return ret;
	if (ev->selected && hr->left > 0)
		hr->left--;
	return 0;
}

static void ns_text(long long ns, bool sign, char *buf, size_t len)
{
	unsigned long long a = (unsigned long long)(ns < 0 ? -ns : ns);

	snprintf(buf, len, "%s%llu.%09llu", sign ? (ns < 0 ? "-" : "+") : "",
		 a / 1000000000ULL, a % 1000000000ULL);
}

/*
 * The header: a line per host, "NAME: cpus=N clock=CLOCK" and how its
 * times were moved: "offset=0" (the controller's own clock), or the
 * offsets measured and their widest error bound.
 */
static void hosts_header(struct kt_hosts *h, struct kt_reader **rs, int width, FILE *out)
{
	struct kt_host_info hi;
	char a[32], b[32], e[32];
	int i;

	for (i = 0; i < kt_hosts_count(h); i++) {
		kt_hosts_info(h, i, &hi);
		fprintf(out, "%*s: cpus=%d clock=%s", width, hi.name, kt_reader_cpus(rs[i]),
			*kt_reader_clock(rs[i]) ? kt_reader_clock(rs[i]) : "unknown");
		if (!hi.remote) {
			fprintf(out, " offset=0\n");
			continue;
		}
		ns_text(hi.first, true, a, sizeof(a));
		ns_text(hi.last, true, b, sizeof(b));
		ns_text((long long)hi.bound, false, e, sizeof(e));
		fprintf(out, " offset=%s..%s s to %s's clock %s (%u measures), error bound %s s\n",
			a, b, *hi.controller ? hi.controller : "?",
			*hi.controller_clock ? hi.controller_clock : "?", hi.measures, e);
	}
}

/*
 * A text report learns comms from every record, as trace-cmd's whole
 * text does: the CPUs --cpu leaves out are read too, not shown.
 */
static void text_learns_comms(const struct report_opts *o)
{
	if (!o->json && !o->raw && !o->stat && !o->whole && !o->dat &&
	    !o->timeline && !o->stacks)
		kt_select_read_hidden(o->sel);
}

/* report -i A -i B of different hosts: their lines merged, each named. */
static int hosts_report(const struct report_opts *o, struct kt_reader **rs)
{
	int n = o->in.n, i, width = 0, status = KT_EXIT_OK, ret = 0;
	struct kt_decoder **ds = calloc((size_t)n, sizeof(*ds));
	struct prefixer *px = calloc((size_t)n, sizeof(*px));
	struct hosts_run hr = { .left = o->head };
	struct kt_host_info hi;
	struct kt_hosts *h = kt_hosts_new();
	cookie_io_functions_t io = { .write = prefix_write };
	char *tmp = NULL;
	FILE *out = NULL;

	hr.p = calloc((size_t)n, sizeof(*hr.p));
	hr.pf = calloc((size_t)n, sizeof(*hr.pf));
	if (!ds || !px || !h || !hr.p || !hr.pf) {
		kt_err("cannot report: %s", strerror(ENOMEM));
		status = KT_EXIT_FAIL;
		goto out;
	}
	if (o->dat || o->whole || o->timeline || o->stacks || o->view == VIEW_PROCESS ||
	    kt_select_has_window(o->sel)) {
		kt_err("'%s' are recordings of several hosts: report prints their lines (text, --raw or json) and takes -e, -F, --pid, --comm, --cpu, -t and --head; report each file alone for the rest",
		       o->input);
		status = KT_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (kt_reader_latency(rs[i])) {
			kt_err("'%s' holds a latency trace (text); it has no records to merge", o->in.paths[i]);
			status = KT_EXIT_FAIL;
			goto out;
		}
		text_learns_comms(o);
		ret = kt_select_resolve(o->sel, rs[i]);
		if (ret) {
			status = ret == -EINVAL ? KT_EXIT_USAGE : KT_EXIT_FAIL;
			goto out;
		}
		ds[i] = kt_select_decoder(o->sel, rs[i]);
		if (!ds[i]) {
			status = KT_EXIT_FAIL;
			goto out;
		}
		ret = kt_hosts_add(h, rs[i], ds[i], o->in.paths[i]);
		if (ret) {
			kt_err("cannot report: %s", strerror(-ret));
			status = KT_EXIT_FAIL;
			goto out;
		}
	}
	for (i = 0, ret = 0; i < n; i++) {
		kt_hosts_info(h, i, &hi);
		if ((int)strlen(hi.name) > width)
			width = (int)strlen(hi.name);
		ret |= hi.remote;
	}
	if (!ret)
		kt_warn("none of '%s' stores clock offsets ('record --remote' files do): each host's times are its own clock's, merged as they are",
			o->input);
	ret = 0;
	out = output_open(o->output, &tmp);
	if (!out) {
		status = KT_EXIT_FAIL;
		goto out;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (!o->json)
		hosts_header(h, rs, width, out);
	for (i = 0; i < n; i++) {
		kt_hosts_info(h, i, &hi);
		px[i] = (struct prefixer){ out, hi.name, width, o->json, true };
		hr.pf[i] = fopencookie(&px[i], "w", io);
		if (hr.pf[i])
			hr.p[i] = kt_printer_new(rs[i], o->json ? KT_PRINT_JSON :
						 o->raw ? KT_PRINT_RAW : KT_PRINT_TEXT,
						 (o->nsec ? KT_PRINT_NSEC : 0) | KT_PRINT_COMPILED,
						 hr.pf[i]);
		if (!hr.p[i]) {
			kt_err("cannot report: %s", strerror(errno));
			status = KT_EXIT_FAIL;
			goto out_output;
		}
	}
	ret = kt_hosts_run(h, hosts_fn, &hr);
	if (!ret || ret == -ECANCELED) {
		ret = fflush(out) ? -errno : 0;
	}
	if (ret == -EPIPE) {
		status = KT_EXIT_OK;
	} else if (ret && ret != -ECANCELED) {
		say_write_error(o, ret);
		status = KT_EXIT_FAIL;
	} else {
		for (i = 0; i < n; i++)
			if (kt_reader_damaged(rs[i])) {
				kt_err("'%s' is damaged: the report above stops short where the warnings say",
				       o->in.paths[i]);
				status = KT_EXIT_DAMAGED;
			}
	}
out_output:
	for (i = 0; i < n; i++) {
		kt_printer_free(hr.p[i]);
		if (hr.pf[i])
			fclose(hr.pf[i]);
	}
	status = output_close(out, o->output, tmp, status);
out:
	kt_hosts_free(h);
	for (i = 0; ds && i < n; i++)
		kt_decoder_free(ds[i]);
	for (i = 0; i < n; i++)
		kt_reader_close(rs[i]);
	free(ds);
	free(px);
	free(hr.p);
	free(hr.pf);
	return status;
}

static int report(const struct report_opts *o)
{
	struct kt_decoder *d = NULL;
	struct kt_printer *p = NULL;
	struct kt_reader *r;
	struct run run = { 0 };
	struct kt_ustack *ustack = NULL;
	enum ahead_mode mode;
	bool procview, plain;
	char *tmp = NULL;
	FILE *out;
	int status, ret;

	if (o->in.n > 1) {
		struct kt_reader **rs = calloc((size_t)o->in.n, sizeof(*rs));

		if (rs && hosts_open(&o->in, rs)) {
			status = hosts_report(o, rs);
			free(rs);
			return status;
		}
		free(rs);
	}
	status = open_reader(&o->in, &r);
	if (status)
		return status;
	if (kt_reader_latency(r)) {
		status = latency_report(r, o);
		goto out_reader;
	}
	text_learns_comms(o);
	ret = kt_select_resolve(o->sel, r);
	if (ret) {
		status = ret == -EINVAL ? KT_EXIT_USAGE : KT_EXIT_FAIL;
		goto out_reader;
	}
	d = kt_select_decoder(o->sel, r);
	if (!d) {
		status = KT_EXIT_FAIL;
		goto out_reader;
	}
	if (o->dat) {
		/* The selection as a trace.dat: lib/views/datout.c. */
		ret = kt_datout_write(r, d, o->sel, o->output, o->file_version,
				      o->compression);
		status = ret == -EBADMSG || kt_reader_damaged(r) ? KT_EXIT_DAMAGED :
			 ret ? KT_EXIT_FAIL : KT_EXIT_OK;
		if (!ret && status == KT_EXIT_DAMAGED)
			kt_err("'%s' is damaged: '%s' holds what could be read", o->input, o->output);
		goto out_decoder;
	}
	out = output_open(o->output, &tmp);
	if (!out) {
		status = KT_EXIT_FAIL;
		goto out_decoder;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (o->stacks) {
		/* Folded kernel stacks: lib/views/folded.c. */
		ret = stacks_view(o, d, r, out, &status);
		goto view_done;
	}
	if (o->whole || o->timeline) {
		/* The views: lib/views/perfetto.c, chrome.c, timeline.c. */
		ret = kt_whole_write(d, r, o->timeline ? KT_WHOLE_TIMELINE :
				     !strcmp(o->whole, "chrome") ? KT_WHOLE_CHROME : KT_WHOLE_PERFETTO,
				     kt_select_by_task(o->sel), out);
		goto view_done;
	}
	procview = !o->json && !o->raw && o->view != VIEW_TRACECMD &&
		   (o->view == VIEW_PROCESS ||
		    kt_procview_marked(kt_reader_tool_version(r)));
	if (!o->json)
		trigger_head(&run, r, out);
	p = kt_printer_new(r, o->json ? KT_PRINT_JSON : o->raw ? KT_PRINT_RAW : KT_PRINT_TEXT,
			   (o->nsec ? KT_PRINT_NSEC : 0) | KT_PRINT_BATCH |
			   (procview ? KT_PRINT_NO_NAME : KT_PRINT_COMPILED), out);
	if (!p) {
		status = KT_EXIT_FAIL;
		goto out_output;
	}
	/* A file (-o, or stdout sent to one): room is taken ahead on ext4. */
	kt_printer_own_file(p);
	/* The process view formats a --process recording. */
	if (procview) {
		const char *un = kt_reader_uname(r), *machine = NULL;

		/* "Linux host release x86_64": the machine is the last word. */
		if (un && *un)
			machine = strrchr(un, ' ') ? strrchr(un, ' ') + 1 : un;
		run.tep = kt_reader_tep(r);
		run.pv = kt_procview_new(run.tep, machine);
		if (!run.pv) {
			kt_err("cannot set up the process view: %s", strerror(errno));
			status = KT_EXIT_FAIL;
			goto out_printer;
		}
		trace_seq_init(&run.scratch);
		kt_printer_set_info_default(p, procview_info, &run);
	}
	/* User stacks by name, unless trace-cmd's own bytes are asked. */
	if (!procview && !o->raw && o->view != VIEW_TRACECMD)
		ustack = name_user_stacks(p, r, o->json);
	/* trace-cmd's text of function_graph, with its leaves. */
	if (!o->json && !o->raw && !procview) {
		/* Its two formats parsed when its first record comes. */
		run.fg = kt_fgraph_new(r);
		if (!run.fg && errno) {
			kt_err("cannot set up the function graph: %s", strerror(errno));
			status = KT_EXIT_FAIL;
			goto out_printer;
		}
		if (run.fg)
			kt_fgraph_hook(run.fg, p);
	}
	run.p = p;
	run.left = o->head;
	/* (no thread: the same report, in one) */
	mode = ahead_mode(r);
	read_ahead(r, mode);
	plain = !run.pv && run.left < 0 && !run.has_trig;
	ret = kt_decoder_run(d, run.fg ? (plain ? fgraph_plain_fn : fgraph_fn) :
			     (plain ? plain_fn : print_fn), &run);
	if (run.fg && !ret)
		ret = kt_fgraph_flush(run.fg, plain ? plain_fn : print_fn, &run);
	if (!ret || ret == -ECANCELED) {
		int fret = kt_printer_flush(p);

		if (fret)
			ret = fret;
	}
	if (mode == AHEAD_TRY_SAY)
		say_trial(r);
view_done:
	if (!ret && fflush(out))
		ret = -errno;
	if (ret == -EPIPE) {
		/* The reader went away (| head): not an error. */
		status = KT_EXIT_OK;
	} else if (ret && ret != -ECANCELED) {
		say_write_error(o, ret);
		status = KT_EXIT_FAIL;
	} else if (kt_reader_damaged(r)) {
		kt_err("'%s' is damaged: the report above stops short where the warnings say", o->input);
		status = KT_EXIT_DAMAGED;
	}
out_printer:
	kt_fgraph_free(run.fg);
	if (run.pv) {
		trace_seq_destroy(&run.scratch);
		kt_procview_free(run.pv);
	}
	kt_printer_free(p);
	kt_ustack_free(ustack);
out_output:
	status = output_close(out, o->output, tmp, status);
out_decoder:
	kt_decoder_free(d);
out_reader:
	kt_reader_close(r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .head = -1 };
	int ret;

	o.sel = kt_select_new();
	if (!o.sel) {
		kt_err("cannot start: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	if (parse_args(&argp, argc, argv, &o)) {
		ret = KT_EXIT_OK;
	} else if (o.stat && hosts_given(&o.in)) {
		kt_err("'%s' are recordings of several hosts: --stat takes one; run it on each file (ktrace stat -i FILE)",
		       o.input);
		ret = KT_EXIT_USAGE;
	} else if (o.stat) {
		ret = kt_filestat_write(o.in.paths, o.in.n, o.input, o.sel,
					stdout, o.json);
		ret = ret == -EBADMSG ? KT_EXIT_DAMAGED : ret == -EDOM ? KT_EXIT_USAGE :
		      ret ? KT_EXIT_FAIL : KT_EXIT_OK;
	} else {
		ret = report(&o);
	}
	kt_select_free(o.sel);
	input_free(&o.in);
	return ret;
}
