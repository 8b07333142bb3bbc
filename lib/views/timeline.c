// SPDX-License-Identifier: GPL-2.0
/*
 * CPU occupancy as an SVG.  See timeline.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "views/timeline.h"

#define WIDTH		1200.0	/* px of time */
#define LEFT		70.0	/* lane labels */
#define TOP		30.0	/* title */
#define LANE_H		28.0
#define LANE_GAP	6.0
#define AXIS_H		40.0

struct span {
	unsigned long long start, end;
	int pid;
	char comm[16];
};

struct spans {
	struct span *v;
	size_t n, cap;
};

struct lane {
	struct spans runs, lost;
	bool on;			/* a task runs now */
	struct span cur;
	bool seen;
	unsigned long long last_ts;	/* of the CPU's last record */
};

struct kt_timeline {
	struct tep_handle *tep;
	struct lane *lanes;
	int ncpus;
	int switch_id;
	struct tep_format_field *next_pid;
	bool any;
	unsigned long long first, last;
	int err;
};

struct kt_timeline *kt_timeline_new(struct tep_handle *tep, int ncpus)
{
	struct kt_timeline *tl = calloc(1, sizeof(*tl));
	struct tep_event *sw;

	if (!tl)
		return NULL;
	if (ncpus < 1)
		ncpus = 1;
	tl->tep = tep;
	tl->ncpus = ncpus;
	tl->lanes = calloc(ncpus, sizeof(*tl->lanes));
	if (!tl->lanes) {
		free(tl);
		return NULL;
	}
	tl->switch_id = -1;
	sw = tep_find_event_by_name(tep, "sched", "sched_switch");
	if (sw && (tl->next_pid = tep_find_field(sw, "next_pid")))
		tl->switch_id = sw->id;
	return tl;
}

void kt_timeline_free(struct kt_timeline *tl)
{
	int i;

	if (!tl)
		return;
	for (i = 0; i < tl->ncpus; i++) {
		free(tl->lanes[i].runs.v);
		free(tl->lanes[i].lost.v);
	}
	free(tl->lanes);
	free(tl);
}

static int push(struct spans *s, const struct span *sp)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *sp;
	return 0;
}

static int end_run(struct lane *l, unsigned long long ts)
{
	if (!l->on)
		return 0;
	l->on = false;
	l->cur.end = ts;
	return push(&l->runs, &l->cur);
}

int kt_timeline_add(const struct kt_event *ev, void *arg)
{
	struct kt_timeline *tl = arg;
	struct tep_record *rec = ev->record;
	unsigned long long pid;
	struct lane *l;
	const char *comm;
	int len, ret = 0;

	if (ev->cpu < 0 || ev->cpu >= tl->ncpus)
		return 0;
	l = &tl->lanes[ev->cpu];
	if (!tl->any)
		tl->first = rec->ts;
	tl->any = true;
	if (rec->ts > tl->last)
		tl->last = rec->ts;
	if (rec->missed_events) {
		/* Unknown since this CPU's previous record (or the start). */
		struct span sp = { .start = l->seen ? l->last_ts : tl->first,
				   .end = rec->ts,
				   .pid = rec->missed_events > 0 ?
					  (int)(rec->missed_events > INT32_MAX ?
						INT32_MAX : rec->missed_events) : -1 };

		ret = push(&l->lost, &sp);
	}
	l->seen = true;
	l->last_ts = rec->ts;
	if (ret || !ev->selected || ev->event->id != tl->switch_id)
		return ret;
	ret = end_run(l, rec->ts);
	if (ret || tep_read_number_field(tl->next_pid, rec->data, &pid) || !pid)
		return ret;
	comm = tep_get_field_raw(NULL, ev->event, "next_comm", rec, &len, 0);
	memset(&l->cur, 0, sizeof(l->cur));
	l->on = true;
	l->cur.start = rec->ts;
	l->cur.pid = (int)pid;
	if (comm)
		snprintf(l->cur.comm, sizeof(l->cur.comm), "%.*s",
			 len < 15 ? len : 15, comm);
	return 0;
}

/* A task's colour: the same pid, the same hue, on every lane. */
static void colour(int pid, char *buf, size_t len)
{
	uint32_t h = (uint32_t)pid * 2654435761u;

	snprintf(buf, len, "hsl(%u,%u%%,%u%%)", (h >> 8) % 360,
		 55 + (h >> 20) % 30, 45 + (h >> 26) % 20);
}

static void put_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
				putc(*s, out);
			else
				putc('?', out);
		}
	}
}

/* A tick step of 1, 2 or 5 times a power of ten, ~10 ticks. */
static unsigned long long tick_step(unsigned long long span)
{
	unsigned long long step = 1;

	while (step * 10 < span / 10 + 1)
		step *= 10;
	if (step * 5 <= span / 8)
		return step * 5;
	if (step * 2 <= span / 8)
		return step * 2;
	return step;
}

static void tick_label(char *buf, size_t len, unsigned long long ns,
		       unsigned long long step)
{
	if (step >= 100000000ULL)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (step >= 1000000ULL)
		snprintf(buf, len, "%.0f ms", ns / 1e6);
	else if (step >= 100000ULL)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (step >= 1000ULL)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", ns);
}

int kt_timeline_write(struct kt_timeline *tl, FILE *out)
{
	unsigned long long span, step, t;
	double scale, h, y, x;
	char col[48], label[32];
	size_t i;
	int cpu, ret;

	for (cpu = 0; cpu < tl->ncpus; cpu++) {
		ret = end_run(&tl->lanes[cpu], tl->last);
		if (ret)
			return ret;
	}
	span = tl->last > tl->first ? tl->last - tl->first : 1;
	scale = WIDTH / (double)span;	/* px per ns */
	h = TOP + tl->ncpus * (LANE_H + LANE_GAP) + AXIS_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\" "
		"data-ns-per-px=\"%.9g\" data-first=\"%llu\" data-last=\"%llu\">\n",
		LEFT + WIDTH + 20, h, LEFT + WIDTH + 20, h, 1.0 / scale,
		tl->first, tl->last);
	fputs("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
	      "<rect width=\"6\" height=\"6\" fill=\"#fff0f0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d00\" stroke-width=\"3\"/>"
	      "</pattern></defs>\n", out);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%.0f\" y=\"18\" font-size=\"14\">CPU occupancy, %.6f s (hatched: events lost)</text>\n",
		LEFT, span / 1e9);
	for (cpu = 0; cpu < tl->ncpus; cpu++) {
		struct lane *l = &tl->lanes[cpu];

		y = TOP + cpu * (LANE_H + LANE_GAP);
		fprintf(out, "<g class=\"lane\" data-cpu=\"%d\">\n"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">CPU %d</text>\n"
			"<rect class=\"lane-bg\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\"/>\n",
			cpu, LEFT - 8, y + LANE_H / 2 + 4, cpu, LEFT, y, WIDTH, LANE_H);
		for (i = 0; i < l->runs.n; i++) {
			struct span *s = &l->runs.v[i];

			colour(s->pid, col, sizeof(col));
			x = LEFT + (double)(s->start - tl->first) * scale;
			fprintf(out, "<rect class=\"run\" data-pid=\"%d\" data-start=\"%llu\" data-end=\"%llu\" "
				"x=\"%.4f\" y=\"%.1f\" width=\"%.6f\" height=\"%.0f\" fill=\"%s\"><title>",
				s->pid, s->start, s->end, x, y, (double)(s->end - s->start) * scale,
				LANE_H, col);
			put_text(out, s->comm);
			fprintf(out, ":%d %.6f-%.6f s</title></rect>\n", s->pid,
				(s->start - tl->first) / 1e9, (s->end - tl->first) / 1e9);
		}
		for (i = 0; i < l->lost.n; i++) {
			struct span *s = &l->lost.v[i];

			x = LEFT + (double)(s->start - tl->first) * scale;
			fprintf(out, "<rect class=\"lost\" data-start=\"%llu\" data-end=\"%llu\" x=\"%.4f\" y=\"%.1f\" "
				"width=\"%.6f\" height=\"%.0f\" fill=\"url(#hatch)\"><title>",
				s->start, s->end, x, y,
				(double)(s->end - s->start) * scale < 2 ? 2 :
				(double)(s->end - s->start) * scale, LANE_H);
			if (s->pid >= 0)
				fprintf(out, "%d events lost", s->pid);
			else
				fputs("events lost", out);
			fputs("</title></rect>\n", out);
		}
		fputs("</g>\n", out);
	}
	y = TOP + tl->ncpus * (LANE_H + LANE_GAP);
	fprintf(out, "<g class=\"axis\"><line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		LEFT, y, LEFT + WIDTH, y);
	step = tick_step(span);
	for (t = 0; t <= span; t += step) {
		x = LEFT + (double)t * scale;
		tick_label(label, sizeof(label), t, step);
		fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#333\"/>"
			"<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, y, x, y + 5, x, y + 18, label);
	}
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
