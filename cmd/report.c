// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace report: decode a trace.dat file (v6/v7, as trace-cmd writes
 * them) into trace-cmd's text, field=value text or JSON lines; and the
 * --stat summary that `ktrace stat -i FILE` shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "views/filestat.h"
#include "decode/decoder.h"
#include "decode/printer.h"
#include "decode/threaded.h"
#include "base/log.h"
#include "views/procview.h"
#include "file/reader.h"
#include "file/tracedat.h"
#include "views/whole.h"

enum {
	OPT_CPU = 256,
	OPT_PID,
	OPT_COMM,
	OPT_FROM,
	OPT_TO,
	OPT_RAW,
	OPT_STAT,
	OPT_FORMAT,
	OPT_HEAD,
	OPT_TIMELINE,
};

struct report_opts {
	const char *input;
	const char *output;
	const char *cpus;
	const char *events[64];
	int nevents;
	const char *filters[64];
	int nfilters;
	int pids[64];
	int npids;
	const char *comms[64];
	int ncomms;
	const char *from, *to;
	bool nsec;
	bool raw;
	bool stat;
	bool json;
	bool perfetto;		/* --format perfetto */
	bool timeline;		/* --timeline */
	long long head;
	enum { VIEW_AUTO, VIEW_PROCESS, VIEW_TRACECMD } view;
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE", 0, "read FILE (default ktrace.dat)", 0 },
	{ "output", 'o', "OUT", 0, "write to OUT instead of standard output", 0 },
	{ "cpu", OPT_CPU, "LIST", 0, "only these CPUs, e.g. 0,2-3", 0 },
	{ "event", 'e', "EVENT", 0, "only this event (name, system:name, system, glob); repeatable", 0 },
	{ "filter", 'F', "FILTER", 0, "libtraceevent filter, e.g. 'sched_switch: next_pid == 1'; repeatable", 0 },
	{ "pid", OPT_PID, "PID", 0, "only events of this task; repeatable", 0 },
	{ "comm", OPT_COMM, "NAME", 0, "only events of tasks named NAME (glob); repeatable", 0 },
	{ "from", OPT_FROM, "T", 0, "start at T: seconds after the first event (5.0), or @T absolute as printed (@462.930127)", 0 },
	{ "to", OPT_TO, "T", 0, "stop after T (same forms as --from)", 0 },
	{ "nsec", 't', NULL, 0, "timestamps in nanoseconds", 0 },
	{ "raw", OPT_RAW, NULL, 0, "print every field as field=value", 0 },
	{ "stat", OPT_STAT, NULL, 0, "print record-time stats, lost events and event counts instead", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default: the process view for 'record --process' files, else trace-cmd's lines), process, trace-cmd, json (one object per line) or perfetto (Chrome/Perfetto trace JSON)", 0 },
	{ "timeline", OPT_TIMELINE, NULL, 0, "an SVG of CPU occupancy over time instead (with -o FILE.svg)", 0 },
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

static int add_str(struct argp_state *state, const char **v, int *n,
		   const char *s, const char *what)
{
	if (*n >= 64)
		argp_error(state, "too many %s (at most 64)", what);
	v[(*n)++] = s;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	char *end;

	switch (key) {
	case 'i': o->input = arg; break;
	case 'o': o->output = arg; break;
	case OPT_CPU: o->cpus = arg; break;
	case 'e': add_str(state, o->events, &o->nevents, arg, "-e"); break;
	case 'F': add_str(state, o->filters, &o->nfilters, arg, "-F"); break;
	case OPT_COMM: add_str(state, o->comms, &o->ncomms, arg, "--comm"); break;
	case OPT_PID: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 0 || v > INT_MAX)
			argp_error(state, "bad --pid '%s'; give a process id", arg);
		if (o->npids >= 64)
			argp_error(state, "too many --pid (at most 64)");
		o->pids[o->npids++] = (int)v;
		break;
	}
	case OPT_FROM: o->from = arg; break;
	case OPT_TO: o->to = arg; break;
	case 't': o->nsec = true; break;
	case OPT_RAW: o->raw = true; break;
	case OPT_STAT: o->stat = true; break;
	case OPT_FORMAT:
		if (!strcmp(arg, "json"))
			o->json = true;
		else if (!strcmp(arg, "perfetto"))
			o->perfetto = true;
		else if (!strcmp(arg, "process"))
			o->view = VIEW_PROCESS;
		else if (!strcmp(arg, "trace-cmd"))
			o->view = VIEW_TRACECMD;
		else if (strcmp(arg, "text"))
			argp_error(state, "bad --format '%s'; use text, process, trace-cmd, json or perfetto", arg);
		break;
	case OPT_TIMELINE: o->timeline = true; break;
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
		if (o->raw && o->json)
			argp_error(state, "--raw and --format json do not go together");
		if (o->raw && o->view == VIEW_PROCESS)
			argp_error(state, "--raw and --format process do not go together");
		if ((o->perfetto || o->timeline) &&
		    (o->raw || o->json || o->stat || o->nsec || o->view != VIEW_AUTO))
			argp_error(state, "--format perfetto and --timeline take no --raw, --stat, -t or other --format");
		if (o->perfetto && o->timeline)
			argp_error(state, "--format perfetto and --timeline do not go together; run report twice");
		if (o->stat && (o->raw || o->nevents || o->nfilters || o->npids ||
				o->ncomms || o->head >= 0 || o->from || o->to))
			argp_error(state, "--stat summarises the whole file; it takes no selection options");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* "0,2-3" -> cpus[]; returns 0 or -EINVAL. */
static int parse_cpu_list(const char *list, bool *cpus, int n)
{
	const char *p = list;
	char *end;
	long a, b;

	do {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a >= n)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= n)
				return -EINVAL;
			p = end;
		}
		for (; a <= b; a++)
			cpus[a] = true;
	} while (*p++ == ',');
	return p[-1] ? -EINVAL : 0;
}

/*
 * "5.0", "5", "250ms", "@462.930127": ns.  Exact decimal arithmetic, no
 * floating point, so @T matches the printed timestamp to the digit.
 */
static int parse_time(const char *s, bool *absolute, unsigned long long *ns,
		      unsigned long long *unit)
{
	static const struct { const char *sfx; unsigned long long mul; } units[] = {
		{ "ns", 1ULL }, { "us", 1000ULL }, { "ms", 1000000ULL },
		{ "s", 1000000000ULL }, { "", 1000000000ULL },
	};
	unsigned long long whole = 0, frac = 0, fdiv = 1, mul = 0;
	const char *p = s;
	size_t i;

	*absolute = *p == '@';
	if (*absolute)
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > ULLONG_MAX / 10 - 10)
			return -ERANGE;
		whole = whole * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (fdiv < 1000000000ULL) {
				frac = frac * 10 + (unsigned long long)(*p - '0');
				fdiv *= 10;
			}
		}
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].sfx)) {
			mul = units[i].mul;
			break;
		}
	if (!mul)
		return -EINVAL;
	if (whole > ULLONG_MAX / mul)
		return -ERANGE;
	*ns = whole * mul + frac * mul / fdiv;
	/* What the last digit given is worth: @1.000002 ends at ...002999. */
	*unit = mul / fdiv ? mul / fdiv : 1;
	return 0;
}

/* Timestamp of the first record of the whole file (0 when empty). */
static int first_ts_fn(const struct kt_event *ev, void *arg)
{
	*(unsigned long long *)arg = ev->record->ts;
	return -ECANCELED;
}

static int resolve_time(struct kt_reader *r, const char *arg, const char *opt,
			bool end, unsigned long long *out)
{
	unsigned long long unit;
	static unsigned long long first;
	static bool have_first;
	struct kt_decoder *d;
	bool absolute;
	int ret;

	ret = parse_time(arg, &absolute, out, &unit);
	if (ret) {
		kt_err("bad %s '%s'; give seconds from the first event (5.0, 250ms) or @T as printed (@462.930127)",
		       opt, arg);
		return KT_EXIT_USAGE;
	}
	if (!kt_reader_in_usecs(r)) {
		/* Raw clock counts: the number is a count, not seconds. */
		unsigned long long cnt;

		if (parse_time(arg, &absolute, &cnt, &unit) == 0)
			*out = cnt / 1000000000ULL;
		unit = 1;
	}
	/*
	 * @T takes in everything printed as T, and timestamps are printed
	 * rounded (libtraceevent adds half the divisor): @1.000002 covers
	 * 1.000001500 to 1.000002499.  A relative T is no printed stamp but
	 * a length of time: 2.0 is exactly 2.000000000 s after the first
	 * event, and --from 2 --to 3 is [2 s, 3 s] to the nanosecond.
	 */
	if (absolute) {
		if (end)
			*out += unit / 2 ? unit / 2 - 1 : 0;
		else
			*out = *out >= unit / 2 ? *out - unit / 2 : 0;
		return 0;
	}
	if (!have_first) {
		d = kt_decoder_new(r, NULL);
		if (!d)
			return KT_EXIT_FAIL;
		first = 0;
		kt_decoder_run(d, first_ts_fn, &first);
		kt_decoder_free(d);
		have_first = true;
	}
	*out += first;
	return 0;
}

struct run {
	struct kt_printer *p;
	long long left;		/* --head; -1: no limit */
	struct kt_procview *pv;	/* the process view, or NULL */
	struct tep_handle *tep;
	struct trace_seq scratch;
};

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
	if (ret)
		return ret;
	if (ev->selected && run->left > 0)
		run->left--;
	return 0;
}

/*
 * Decode in a thread of its own while this one formats and writes
 * (lib/decode/threaded.h): when the text goes to a file or a pipe, not
 * a terminal.  A terminal shows the lines as they come and is read by a
 * person; a file or a pipe takes the whole report, and that is where the
 * time goes.  The bytes are the same either way.  Not with selections
 * that look up pids and comms (-F, --pid, --comm), which formatting adds
 * to, nor the process view, which follows every record itself; not on
 * one CPU, where the two stages would only take turns.
 * KTRACE_NO_THREADS=1 keeps it serial (the tests compare the two).
 */
static bool decode_threaded(const struct report_opts *o, FILE *out, bool procview)
{
	const char *no = getenv("KTRACE_NO_THREADS");

	if (no && *no && strcmp(no, "0"))
		return false;
	if (procview || o->nfilters || o->npids || o->ncomms)
		return false;
	return !isatty(fileno(out)) && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

static int open_reader(const char *path, struct kt_reader **r)
{
	*r = kt_reader_open(path);
	if (*r)
		return 0;
	return errno == EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
}

static int setup_selection(struct kt_decoder *d, const struct report_opts *o)
{
	char hint[256];
	int i, ret;

	for (i = 0; i < o->nevents; i++) {
		ret = kt_decoder_add_event(d, o->events[i]);
		if (ret == -ENOENT && !strpbrk(o->events[i], "*?[") &&
		    !kt_decoder_suggest_event(d, o->events[i], hint, sizeof(hint))) {
			kt_err("no event '%s' in the file; did you mean '%s'?",
			       o->events[i], hint);
			return KT_EXIT_FAIL;
		}
		if (ret == -ENOENT) {
			kt_err("no event '%s' in the file; see the events it holds with 'ktrace report --stat'",
			       o->events[i]);
			return KT_EXIT_FAIL;
		}
		if (ret)
			return KT_EXIT_FAIL;
	}
	for (i = 0; i < o->nfilters; i++)
		if (kt_decoder_add_filter(d, o->filters[i]))
			return KT_EXIT_FAIL;
	for (i = 0; i < o->npids; i++)
		kt_decoder_add_pid(d, o->pids[i]);
	for (i = 0; i < o->ncomms; i++)
		if (kt_decoder_add_comm(d, o->comms[i]))
			return KT_EXIT_FAIL;
	return 0;
}

/* Output to OUT goes to a temporary file renamed into place at the end. */
static FILE *open_output(const char *path, char **tmp)
{
	FILE *f;
	int fd;

	*tmp = NULL;
	struct stat st;

	if (!path || !strcmp(path, "-"))
		return stdout;
	/* A device or a fifo (-o /dev/null) is written as it is. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			kt_err("cannot open '%s': %s", path, strerror(errno));
		return f;
	}
	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd < 0) {
		kt_err("cannot create '%s': %s; try -o in a writable directory",
		       path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/*
 * Put tmp in place of path.  An existing file is swapped out and then
 * deleted rather than renamed over: ext4 (auto_da_alloc) answers a
 * rename over a file by writing the whole new file out at once, in the
 * renaming process's time (0.8 s of system time for a 500 MB report);
 * the swap keeps the replacement atomic without it.  -1 and errno.
 */
static int replace_file(const char *tmp, const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && !S_ISDIR(st.st_mode) &&
	    !renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE)) {
		if (unlink(tmp) && errno != ENOENT)
			kt_warn("cannot remove the old '%s', now '%s': %s",
				path, tmp, strerror(errno));
		return 0;
	}
	return rename(tmp, path);
}

static int close_output(FILE *f, const char *path, char *tmp, int status)
{
	int ret = 0;

	if (f == stdout) {
		/* The dispatcher flushes and checks stdout. */
		return status;
	}
	if (!tmp) {
		if (fclose(f) && status == KT_EXIT_OK) {
			kt_err("cannot write '%s': %s", path, strerror(errno));
			status = KT_EXIT_FAIL;
		}
		return status;
	}
	if (fclose(f))
		ret = -errno;
	if (!ret && status != KT_EXIT_FAIL && replace_file(tmp, path))
		ret = -errno;
	if (ret) {
		kt_err("cannot write '%s': %s", path, strerror(-ret));
		unlink(tmp);
		status = KT_EXIT_FAIL;
	} else if (status == KT_EXIT_FAIL) {
		unlink(tmp);
	}
	free(tmp);
	return status;
}

static int report(const struct report_opts *o)
{
	struct kt_decoder_opts dopts = { 0 };
	struct kt_decoder *d = NULL;
	struct kt_printer *p = NULL;
	struct kt_reader *r;
	bool cpus[KT_DAT_MAX_CPUS] = { 0 };
	struct run run = { 0 };
	bool procview;
	char *tmp = NULL;
	FILE *out;
	int status, ret;

	status = open_reader(o->input, &r);
	if (status)
		return status;
	if (o->cpus) {
		if (parse_cpu_list(o->cpus, cpus, KT_DAT_MAX_CPUS)) {
			kt_err("bad --cpu '%s'; give a list like 0,2-3", o->cpus);
			status = KT_EXIT_USAGE;
			goto out_reader;
		}
		dopts.cpus = cpus;
		dopts.ncpus = KT_DAT_MAX_CPUS;
	}
	if (o->from) {
		status = resolve_time(r, o->from, "--from", false, &dopts.from);
		if (status)
			goto out_reader;
		dopts.has_from = true;
	}
	if (o->to) {
		status = resolve_time(r, o->to, "--to", true, &dopts.to);
		if (status)
			goto out_reader;
		dopts.has_to = true;
	}
	d = kt_decoder_new(r, &dopts);
	if (!d) {
		kt_err("cannot decode '%s': %s", o->input, strerror(errno));
		status = KT_EXIT_FAIL;
		goto out_reader;
	}
	status = setup_selection(d, o);
	if (status)
		goto out_decoder;
	out = open_output(o->output, &tmp);
	if (!out) {
		status = KT_EXIT_FAIL;
		goto out_decoder;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (o->perfetto || o->timeline) {
		/* The views: lib/views/perfetto.c, lib/views/timeline.c. */
		ret = kt_view_write(d, r, o->timeline ? KT_VIEW_TIMELINE : KT_VIEW_PERFETTO, out);
		goto view_done;
	}
	procview = !o->json && !o->raw && o->view != VIEW_TRACECMD &&
		   (o->view == VIEW_PROCESS ||
		    kt_procview_marked(kt_reader_tool_version(r)));
	p = kt_printer_new(r, o->json ? KT_PRINT_JSON : o->raw ? KT_PRINT_RAW : KT_PRINT_TEXT,
			   (o->nsec ? KT_PRINT_NSEC : 0) | KT_PRINT_BATCH |
			   (procview ? KT_PRINT_NO_NAME : KT_PRINT_COMPILED), out);
	if (!p) {
		status = KT_EXIT_FAIL;
		goto out_output;
	}
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
	run.p = p;
	run.left = o->head;
	ret = decode_threaded(o, out, procview) ?
	      kt_decoder_run_threaded(d, print_fn, &run) :
	      kt_decoder_run(d, print_fn, &run);
	if (!ret || ret == -ECANCELED) {
		int fret = kt_printer_flush(p);

		if (fret)
			ret = fret;
	}
view_done:
	if (!ret && fflush(out))
		ret = -errno;
	if (ret == -EPIPE) {
		/* The reader went away (| head): not an error. */
		status = KT_EXIT_OK;
	} else if (ret && ret != -ECANCELED) {
		kt_err("cannot write the report: %s", strerror(-ret));
		status = KT_EXIT_FAIL;
	} else if (kt_reader_damaged(r)) {
		kt_err("'%s' is damaged: the report above stops short where the warnings say", o->input);
		status = KT_EXIT_DAMAGED;
	}
out_printer:
	if (run.pv) {
		trace_seq_destroy(&run.scratch);
		kt_procview_free(run.pv);
	}
	kt_printer_free(p);
out_output:
	status = close_output(out, o->output, tmp, status);
out_decoder:
	kt_decoder_free(d);
out_reader:
	kt_reader_close(r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .input = "ktrace.dat", .head = -1 };
	int ret;

	if (kt_argp_parse(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	if (o.stat) {
		ret = kt_filestat_write(o.input, stdout, o.json);
		return ret == -EBADMSG ? KT_EXIT_DAMAGED : ret ? KT_EXIT_FAIL : KT_EXIT_OK;
	}
	return report(&o);
}
