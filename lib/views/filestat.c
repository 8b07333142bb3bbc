// SPDX-License-Identifier: GPL-2.0
/*
 * What `ktrace report --stat` and `ktrace stat -i FILE` print about a
 * recording: the per-CPU stats stored at record time, the lost-event
 * marks in the data, the event counts, and a one-line verdict on loss;
 * for a series, its chunks first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/human.h"
#include "base/json.h"
#include "base/log.h"
#include "decode/select.h"
#include "file/reader.h"
#include "file/trigopt.h"
#include "views/filestat.h"
#include "views/summary.h"

static double span_s(unsigned long long a, unsigned long long b)
{
	return b > a ? (double)(b - a) / 1e9 : 0.0;
}

static const char *buf_label(struct kt_reader *r, int b)
{
	const char *n = kt_reader_buffer_name(r, b);

	return *n ? n : "top";
}

static void verdict(struct kt_reader *r, const struct kt_summary *s, FILE *out,
		    bool json)
{
	uint64_t total = kt_summary_total_lost(s), worst = 0, unwritten = 0;
	bool window = kt_summary_window(s);
	const char *where = window ? " in the window" : "";
	int i, worst_cpu = -1, ncpu_lost = 0, unknown = 0, nostat = 0;

	for (i = 0; i < kt_summary_cpus(s); i++) {
		const struct kt_summary_cpu *c = kt_summary_cpu_at(s, i);
		uint64_t rec = c->st_overrun + c->st_dropped;
		uint64_t n = (c->lost > rec ? c->lost : rec) + c->st_unwritten;

		if (window)
			n = c->lost;
		unwritten += window ? 0 : c->st_unwritten;
		nostat += !c->has_stat && !window;

		if (n || c->unknown_marks)
			ncpu_lost++;
		unknown += c->unknown_marks ? 1 : 0;
		if (n > worst || (worst_cpu < 0 && c->unknown_marks)) {
			worst = n;
			worst_cpu = c->cpu;
		}
	}
	(void)r;
	/*
	 * Marks in the data show overwritten pages, but drops and what a
	 * killed recorder held are only in the record-time stats: without
	 * them, no marks does not mean no loss.
	 */
	if (json) {
		fprintf(out, "\"lost\":%llu,\"verdict\":", (unsigned long long)total);
		if (!ncpu_lost && nostat)
			kt_json_put_str(out, "loss unknown");
		else if (!ncpu_lost && window)
			kt_json_put_str(out, "no events lost in the window");
		else if (!ncpu_lost)
			kt_json_put_str(out, "no events lost");
		else
			fprintf(out, "\"events lost\"");
		return;
	}
	if (!ncpu_lost && nostat) {
		fprintf(out, "loss unknown: no lost-event marks in the data, but the file stores no record-time stats for %d CPU%s (a recovery without the instance, or a writer that keeps none)\n",
			nostat, nostat == 1 ? "" : "s");
		return;
	}
	if (!ncpu_lost) {
		fprintf(out, "no events lost%s\n", where);
		return;
	}
	/* Lost to a full disk alone: a bigger buffer would not have kept them. */
	if (unwritten && unwritten >= total && !unknown) {
		if (ncpu_lost == 1)
			fprintf(out, "%llu events lost%s on CPU %d, read but refused by the output (a full disk) — free space or record elsewhere (-o)\n",
				(unsigned long long)total, where, worst_cpu);
		else
			fprintf(out, "%llu events lost%s on %d CPUs (most on CPU %d), read but refused by the output (a full disk) — free space or record elsewhere (-o)\n",
				(unsigned long long)total, where, ncpu_lost, worst_cpu);
		return;
	}
	if (ncpu_lost == 1)
		fprintf(out, "%llu%s events lost%s on CPU %d — rerun with -b (a larger buffer per CPU, e.g. -b 8192) or fewer events\n",
			(unsigned long long)total, unknown ? "+" : "", where, worst_cpu);
	else
		fprintf(out, "%llu%s events lost%s on %d CPUs (most on CPU %d) — rerun with -b (a larger buffer per CPU, e.g. -b 8192) or fewer events\n",
			(unsigned long long)total, unknown ? "+" : "", where, ncpu_lost, worst_cpu);
	if (unwritten)
		fprintf(out, "%llu of them were read but refused by the output (a full disk) — free space or record elsewhere (-o)\n",
			(unsigned long long)unwritten);
}

/*
 * What a selection counts, and which losses apply: "selection: ...",
 * the window in timestamps, and the rule.
 */
static void selection_text(const struct kt_select *sel, FILE *out)
{
	unsigned long long from, to;
	bool has_from, has_to;
	char what[1024], a[32], b[32];

	kt_select_describe(sel, what, sizeof(what));
	fprintf(out, "selection: %s\n", what);
	kt_select_window(sel, &has_from, &from, &has_to, &to);
	if (has_from || has_to) {
		kt_human_ts(from, a, sizeof(a));
		kt_human_ts(to, b, sizeof(b));
		fprintf(out, "window: %s to %s\n", has_from ? a : "the start",
			has_to ? b : "the end");
		fprintf(out, "losses: the lost-event marks inside the window, on the CPUs shown; the record-time overrun and dropped columns cover the whole recording and are not added\n");
	} else {
		fprintf(out, "losses: those of the CPUs shown, over the whole recording\n");
	}
	if (kt_select_by_record(sel))
		fprintf(out, "events: those selected; a lost event has no name, so -e, -F, --pid and --comm leave every loss in\n");
}

/* A chunk of a series: what a single file's stat would say of it. */
struct chunk_row {
	struct kt_reader_chunk c;
	unsigned long long events, lost;
	bool unknown;
};

static int chunk_row(struct kt_reader *r, int k, struct chunk_row *row)
{
	unsigned long long marks;
	int ret;

	kt_reader_chunk(r, k, &row->c);
	ret = kt_reader_chunk_events(r, k, &row->events, &marks, &row->unknown);
	/* As a file's verdict: the marks, or the stats when they say more. */
	row->lost = marks > row->c.lost ? marks : row->c.lost;
	return ret == -EBADMSG ? 0 : ret;
}

/*
 * A series' chunks are listed unless a time window is asked for: then
 * those outside it are not to be read at all (report --from/--to).
 */
static bool list_chunks(struct kt_reader *r, const struct kt_select *sel)
{
	unsigned long long from, to;
	bool has_from = false, has_to = false;

	if (sel)
		kt_select_window(sel, &has_from, &from, &has_to, &to);
	return kt_reader_chunks(r) && !has_from && !has_to;
}

static int series_text(struct kt_reader *r, FILE *out)
{
	unsigned long long first = 0, last = 0;
	struct chunk_row row;
	char a[32], b[32], lost[32];
	int k, n = kt_reader_chunks(r), w = 5, ret;
	bool any = false;

	for (k = 0; k < n; k++) {
		kt_reader_chunk(r, k, &row.c);
		if ((int)strlen(row.c.path) > w)
			w = (int)strlen(row.c.path);
		if (!row.c.has_span)
			continue;
		if (!any || row.c.first < first)
			first = row.c.first;
		if (!any || row.c.last > last)
			last = row.c.last;
		any = true;
	}
	kt_human_ts(first, a, sizeof(a));
	kt_human_ts(last, b, sizeof(b));
	if (any)
		fprintf(out, "span: %s to %s (%.6f s)\n", a, b, span_s(first, last));
	fprintf(out, "\n%-*s %8s %17s %17s %12s %10s\n", w, "chunk", "format",
		"first", "last", "events", "lost");
	for (k = 0; k < n; k++) {
		char fmt[16];

		ret = chunk_row(r, k, &row);
		if (ret)
			return ret;
		snprintf(fmt, sizeof(fmt), "v%d%s%s", row.c.version,
			 strcmp(row.c.compression, "none") ? " " : "",
			 strcmp(row.c.compression, "none") ? row.c.compression : "");
		kt_human_ts(row.c.first, a, sizeof(a));
		kt_human_ts(row.c.last, b, sizeof(b));
		if (row.c.has_stat || row.lost || row.unknown)
			snprintf(lost, sizeof(lost), "%llu%s", row.lost,
				 row.unknown ? "+" : "");
		else
			snprintf(lost, sizeof(lost), "-");
		fprintf(out, "%-*s %8s %17s %17s %12llu %10s\n", w, row.c.path, fmt,
			row.c.has_span ? a : "-", row.c.has_span ? b : "-",
			row.events, lost);
	}
	return 0;
}

/* One clock measure of KT_OPT_KTRACE_TSYNC's text (file/tracedat.h). */
struct tsync_line {
	char when[8];
	unsigned long long ts, bound;
	long long offset;
};

static bool tsync_parse(const char *line, struct tsync_line *t)
{
	return sscanf(line, "%7s %llu %lld %llu", t->when, &t->ts, &t->offset,
		      &t->bound) == 4 &&
	       (!strcmp(t->when, "start") || !strcmp(t->when, "during") ||
		!strcmp(t->when, "end"));
}

/* "agent HOST CLOCK" or "controller HOST CLOCK": HOST (CLOCK). */
static void tsync_who(const char *text, const char *who, char *buf, size_t len)
{
	char host[128], clock[32];
	const char *p;

	snprintf(buf, len, "?");
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, who, strlen(who)) && p[strlen(who)] == ' ' &&
		    sscanf(p + strlen(who) + 1, "%127s %31s", host, clock) == 2) {
			snprintf(buf, len, "%s (clock %s)", host, clock);
			return;
		}
}

static void offset_text(const struct tsync_line *t, FILE *out)
{
	unsigned long long a = (unsigned long long)(t->offset < 0 ? -t->offset : t->offset);

	fprintf(out, "  %-6s at %llu.%06llu: %c%llu.%09llu s, within %llu.%09llu s\n",
		t->when, t->ts / 1000000000ULL, t->ts / 1000 % 1000000ULL,
		t->offset < 0 ? '-' : '+', a / 1000000000ULL, a % 1000000000ULL,
		t->bound / 1000000000ULL, t->bound % 1000000000ULL);
}

/*
 * A remote recording's clock offsets: the first and the last measure,
 * and how many were taken between.
 */
static void tsync_text(struct kt_reader *r, FILE *out)
{
	const char *text = kt_reader_tsync(r), *p;
	struct tsync_line t, first = { .when = "" }, last = { .when = "" };
	unsigned long long n = 0, worst = 0;
	char agent[192], ctl[192];

	if (!text)
		return;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!tsync_parse(p, &t))
			continue;
		if (!n++)
			first = t;
		last = t;
		if (t.bound > worst)
			worst = t.bound;
	}
	tsync_who(text, "agent", agent, sizeof(agent));
	tsync_who(text, "controller", ctl, sizeof(ctl));
	fprintf(out, "recorded by ktrace agent on %s for %s\n", agent, ctl);
	fprintf(out, "clock offsets (the controller's clock less this file's; %llu measures, the widest bound %llu.%09llu s):\n",
		n, worst / 1000000000ULL, worst % 1000000000ULL);
	if (n)
		offset_text(&first, out);
	if (n > 1)
		offset_text(&last, out);
}

static void tsync_json(struct kt_reader *r, FILE *out)
{
	const char *text = kt_reader_tsync(r), *p;
	struct tsync_line t;
	char who[192];
	int n = 0;

	if (!text)
		return;
	fprintf(out, "\"clock_offsets\":{\"agent\":");
	tsync_who(text, "agent", who, sizeof(who));
	kt_json_put_str(out, who);
	fprintf(out, ",\"controller\":");
	tsync_who(text, "controller", who, sizeof(who));
	kt_json_put_str(out, who);
	fprintf(out, ",\"measures\":[");
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (tsync_parse(p, &t))
			fprintf(out, "%s{\"when\":\"%s\",\"ts\":%llu,\"offset\":%lld,\"bound\":%llu}",
				n++ ? "," : "", t.when, t.ts, t.offset, t.bound);
	fprintf(out, "]},");
}

/* A trigger's snapshot: which condition fired, on what. */
static void trigger_text(struct kt_reader *r, FILE *out)
{
	const char *text = kt_reader_trigger(r);
	struct kt_trigopt t;

	if (!text || kt_trigopt_parse(text, &t))
		return;
	fprintf(out, "trigger: '%s' fired at %llu.%06llu on CPU %d (pid %d): %s\n",
		t.condition, (unsigned long long)t.ts / 1000000000ULL,
		(unsigned long long)t.ts / 1000 % 1000000ULL, t.cpu, t.pid, t.event);
	if (t.merged || t.suppressed)
		fprintf(out, "  %llu more firings inside this window, %llu suppressed before it\n",
			(unsigned long long)t.merged, (unsigned long long)t.suppressed);
	if (t.chained)
		fprintf(out, "  chained: begins at %llu.%06llu, where the previous snapshot ended (a page at the seam may be in both)\n",
			(unsigned long long)t.chained / 1000000000ULL,
			(unsigned long long)t.chained / 1000 % 1000000ULL);
}

static void trigger_json(struct kt_reader *r, FILE *out)
{
	const char *text = kt_reader_trigger(r);
	struct kt_trigopt t;

	if (!text || kt_trigopt_parse(text, &t))
		return;
	fprintf(out, "\"trigger\":{\"condition\":");
	kt_json_put_str(out, t.condition);
	fprintf(out, ",\"ts\":%llu,\"cpu\":%d,\"pid\":%d,\"event\":",
		(unsigned long long)t.ts, t.cpu, t.pid);
	kt_json_put_str(out, t.event);
	fprintf(out, ",\"merged\":%llu,\"suppressed\":%llu,\"chained\":%llu},",
		(unsigned long long)t.merged, (unsigned long long)t.suppressed,
		(unsigned long long)t.chained);
}

static void stat_text(struct kt_reader *r, const struct kt_summary *s,
		      const struct kt_select *sel, FILE *out)
{
	char a[32], b[32];
	int i, j, w = 6;

	if (kt_reader_chunks(r))
		fprintf(out, "series: %s (%d chunks; trace.dat v%d, compression %s, %d CPUs, clock %s)\n",
			kt_reader_path(r), kt_reader_chunks(r), kt_reader_version(r),
			kt_reader_compression(r), kt_reader_cpus(r),
			*kt_reader_clock(r) ? kt_reader_clock(r) : "unknown");
	else
		fprintf(out, "file: %s (trace.dat v%d, compression %s, %d CPUs, clock %s)\n",
			kt_reader_path(r), kt_reader_version(r), kt_reader_compression(r),
			kt_reader_cpus(r), *kt_reader_clock(r) ? kt_reader_clock(r) : "unknown");
	tsync_text(r, out);
	trigger_text(r, out);
	if (sel)
		selection_text(sel, out);
	if (list_chunks(r, sel) && series_text(r, out))
		kt_reader_set_damaged(r);
	fputc('\n', out);
	for (i = 0; i < kt_reader_buffers(r); i++)
		if ((int)strlen(buf_label(r, i)) > w)
			w = (int)strlen(buf_label(r, i));
	fprintf(out, "%-*s %4s %12s %12s %10s %10s %10s %12s\n", w, "buffer", "cpu",
		"events", "bytes", "lost", "overrun", "dropped", "entries-left");
	for (i = 0; i < kt_summary_cpus(s); i++) {
		const struct kt_summary_cpu *c = kt_summary_cpu_at(s, i);
		char lost[32];

		snprintf(lost, sizeof(lost), "%llu%s", (unsigned long long)c->lost,
			 c->unknown_marks ? "+" : "");
		if (c->has_stat)
			fprintf(out, "%-*s %4d %12llu %12llu %10s %10llu %10llu %12llu\n",
				w, buf_label(r, c->buffer), c->cpu,
				(unsigned long long)c->events, (unsigned long long)c->bytes,
				lost, (unsigned long long)c->st_overrun,
				(unsigned long long)c->st_dropped,
				(unsigned long long)c->st_entries);
		else
			fprintf(out, "%-*s %4d %12llu %12llu %10s %10s %10s %12s\n",
				w, buf_label(r, c->buffer), c->cpu,
				(unsigned long long)c->events, (unsigned long long)c->bytes,
				lost, "-", "-", "-");
	}
	if (kt_summary_marks(s)) {
		fprintf(out, "\nlost-event marks in the %s:\n",
			kt_summary_window(s) ? "window" : "data");
		for (i = 0; i < kt_summary_marks(s); i++) {
			const struct kt_summary_lost *m = kt_summary_mark_at(s, i);
			char n[32];

			kt_human_ts(m->before_ts, b, sizeof(b));
			if (m->count >= 0)
				snprintf(n, sizeof(n), "%lld", m->count);
			else
				snprintf(n, sizeof(n), "some");
			if (m->has_after) {
				kt_human_ts(m->after_ts, a, sizeof(a));
				fprintf(out, "  %s CPU %d: %s events lost between %s and %s\n",
					buf_label(r, m->buffer), m->cpu, n, a, b);
			} else {
				fprintf(out, "  %s CPU %d: %s events lost before %s\n",
					buf_label(r, m->buffer), m->cpu, n, b);
			}
		}
	}
	fprintf(out, "\n%-32s %10s", "event", "total");
	for (j = 0; j < kt_summary_cpus(s); j++) {
		const struct kt_summary_cpu *c = kt_summary_cpu_at(s, j);
		char h[32];

		if (c->buffer)
			snprintf(h, sizeof(h), "%s/cpu%d", buf_label(r, c->buffer), c->cpu);
		else
			snprintf(h, sizeof(h), "cpu%d", c->cpu);
		fprintf(out, " %10s", h);
	}
	fprintf(out, " %17s %17s %12s\n", "first", "last", "per-second");
	for (i = 0; i < kt_summary_events(s); i++) {
		const struct kt_summary_event *e = kt_summary_event_at(s, i);
		char name[300];
		double span = span_s(e->first_ts, e->last_ts);

		snprintf(name, sizeof(name), "%s:%s", e->event->system, e->event->name);
		fprintf(out, "%-32s %10llu", name, (unsigned long long)e->total);
		for (j = 0; j < kt_summary_cpus(s); j++)
			fprintf(out, " %10llu", (unsigned long long)e->per_cpu[j]);
		kt_human_ts(e->first_ts, a, sizeof(a));
		kt_human_ts(e->last_ts, b, sizeof(b));
		if (span > 0)
			fprintf(out, " %17s %17s %12.1f\n", a, b, (double)e->total / span);
		else
			fprintf(out, " %17s %17s %12s\n", a, b, "-");
	}
	fputc('\n', out);
	verdict(r, s, out, false);
}

static void stat_json(struct kt_reader *r, const struct kt_summary *s,
		      const struct kt_select *sel, FILE *out)
{
	int i, j;

	fprintf(out, "{\"file\":");
	kt_json_put_str(out, kt_reader_path(r));
	fprintf(out, ",\"version\":%d,", kt_reader_version(r));
	tsync_json(r, out);
	trigger_json(r, out);
	if (list_chunks(r, sel)) {
		struct chunk_row row;

		fprintf(out, "\"chunks\":[");
		for (i = 0; i < kt_reader_chunks(r) && !chunk_row(r, i, &row); i++) {
			fprintf(out, "%s{\"path\":", i ? "," : "");
			kt_json_put_str(out, row.c.path);
			fprintf(out, ",\"version\":%d,\"compression\":\"%s\",\"events\":%llu,\"lost\":%llu,\"unknown_marks\":%s",
				row.c.version, row.c.compression, row.events,
				row.lost, row.unknown ? "true" : "false");
			if (row.c.has_span)
				fprintf(out, ",\"first\":%llu,\"last\":%llu",
					row.c.first, row.c.last);
			fputc('}', out);
		}
		fprintf(out, "],");
	}
	if (sel) {
		unsigned long long from, to;
		bool has_from, has_to;
		char what[1024];

		kt_select_describe(sel, what, sizeof(what));
		fprintf(out, "\"selection\":");
		kt_json_put_str(out, what);
		kt_select_window(sel, &has_from, &from, &has_to, &to);
		if (has_from)
			fprintf(out, ",\"from\":%llu", from);
		if (has_to)
			fprintf(out, ",\"to\":%llu", to);
		fprintf(out, ",\"losses\":\"%s\",", has_from || has_to ?
			"window marks" : "selected cpus");
	}
	fprintf(out, "\"cpus\":[");
	for (i = 0; i < kt_summary_cpus(s); i++) {
		const struct kt_summary_cpu *c = kt_summary_cpu_at(s, i);

		fprintf(out, "%s{\"buffer\":", i ? "," : "");
		kt_json_put_str(out, kt_reader_buffer_name(r, c->buffer));
		fprintf(out, ",\"cpu\":%d,\"events\":%llu,\"bytes\":%llu,\"lost\":%llu,\"lost_marks\":%llu,\"unknown_marks\":%llu",
			c->cpu, (unsigned long long)c->events,
			(unsigned long long)c->bytes, (unsigned long long)c->lost,
			(unsigned long long)c->marks,
			(unsigned long long)c->unknown_marks);
		if (c->has_stat)
			fprintf(out, ",\"overrun\":%llu,\"dropped\":%llu,\"entries\":%llu,\"commit_overrun\":%llu",
				(unsigned long long)c->st_overrun,
				(unsigned long long)c->st_dropped,
				(unsigned long long)c->st_entries,
				(unsigned long long)c->st_commit_overrun);
		fputc('}', out);
	}
	fprintf(out, "],\"marks\":[");
	for (i = 0; i < kt_summary_marks(s); i++) {
		const struct kt_summary_lost *m = kt_summary_mark_at(s, i);

		fprintf(out, "%s{\"buffer\":", i ? "," : "");
		kt_json_put_str(out, kt_reader_buffer_name(r, m->buffer));
		fprintf(out, ",\"cpu\":%d,\"count\":", m->cpu);
		if (m->count >= 0)
			fprintf(out, "%lld", m->count);
		else
			fprintf(out, "null");
		if (m->has_after)
			fprintf(out, ",\"after\":%llu", m->after_ts);
		fprintf(out, ",\"before\":%llu}", m->before_ts);
	}
	fprintf(out, "],\"events\":[");
	for (i = 0; i < kt_summary_events(s); i++) {
		const struct kt_summary_event *e = kt_summary_event_at(s, i);

		fprintf(out, "%s{\"system\":", i ? "," : "");
		kt_json_put_str(out, e->event->system);
		fprintf(out, ",\"event\":");
		kt_json_put_str(out, e->event->name);
		fprintf(out, ",\"total\":%llu,\"per_cpu\":[", (unsigned long long)e->total);
		for (j = 0; j < kt_summary_cpus(s); j++)
			fprintf(out, "%s%llu", j ? "," : "", (unsigned long long)e->per_cpu[j]);
		fprintf(out, "],\"first\":%llu,\"last\":%llu}", e->first_ts, e->last_ts);
	}
	fprintf(out, "],");
	verdict(r, s, out, true);
	fprintf(out, "}\n");
}

int kt_filestat_write(const char *const *paths, int n, const char *path,
		      struct kt_select *sel, FILE *out, bool json)
{
	struct kt_summary *s;
	struct kt_reader *r;
	int ret = 0;

	if (sel && !kt_select_any(sel))
		sel = NULL;
	r = kt_reader_open_list(paths, n);
	if (!r)
		return errno ? -errno : -EIO;
	if (sel) {
		ret = kt_select_resolve(sel, r);
		if (ret == -EINVAL)
			ret = -EDOM;
		if (ret)
			goto err_reader;
	}
	s = kt_summary_new_sel(r, sel);
	if (!s) {
		ret = -errno;
		/* A selection that does not apply said why already. */
		if (!sel)
			kt_err("cannot summarise '%s': %s", path, strerror(-ret));
		goto err_reader;
	}
	if (json)
		stat_json(r, s, sel, out);
	else
		stat_text(r, s, sel, out);
	if (kt_reader_damaged(r)) {
		kt_err("'%s' is damaged: the counts above cover what could be read", path);
		ret = -EBADMSG;
	}
	kt_summary_free(s);
err_reader:
	kt_reader_close(r);
	return ret;
}
