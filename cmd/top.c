// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace top: live event rates, full screen, or as text for logs.  The
 * counting is a sink of the live session (lib/live/session/sink-counter.h),
 * which takes the instance and runs ktrace.ko; this file parses the
 * options, draws the screen, reads the keys and prints the text.
 */
#include <curses.h>
#include <term.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "base/cursesfns.h"
#include "base/log.h"
#include "live/session/sink-counter.h"
#include "live/buffers/livebuf.h"
#include "live/session/session.h"

/* What runs on every machine and says what it is doing. */
static const char *const default_events[] = {
	"sched:*", "irq:*", "raw_syscalls:*",
};

/* The UI wakes this often to drain buffers and read keys. */
#define TICK_MS 100

enum { OPT_BATCH = 0x100 };
/* Indexed by enum kt_counter_sort. */
static const char *const sort_names[] = { "rate", "name", "total" };
#define NSORT ((int)(sizeof(sort_names) / sizeof(*sort_names)))

/* Column widths, shared by the screen and the text output. */
#define W_EVENT 30
#define W_BOX 4
#define W_RATE 11
#define W_TOTAL 12
#define W_CPU 10

struct top_opts {
	const char **events;
	size_t nevents;
	const char *instance;
	double interval;
	bool batch;
	long iterations;
	unsigned long buffer_kb;	/* 0: the kernel's default */
};

struct top {
	const struct top_opts *o;
	struct kt_session *s;
	struct kt_counter *c;
	const size_t *order;	/* visible rows, sorted */
	size_t norder;
	double last_sample;
	int sort;		/* enum kt_counter_sort */
	size_t sel;		/* selected row (index into rows) */
	size_t first;		/* first visible position when scrolled */
	bool help;
	SCREEN *screen;
	bool curses;
	bool colors;
	char msg[160];
};

static volatile sig_atomic_t cont_sig;

/* Whatever the terminal showed while we were stopped, repaint it all. */
static void on_cont_signal(int sig)
{
	cont_sig = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;
	const char **ev;
	char *end;

	switch (key) {
	case 'e':
		ev = realloc(o->events, (o->nevents + 1) * sizeof(*ev));
		if (!ev)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-e");
		ev[o->nevents++] = arg;
		o->events = ev;
		break;
	case 'B':
		if (!*arg)
			argp_error(state, "-B needs an instance name");
		o->instance = arg;
		break;
	case 'd':
		errno = 0;
		o->interval = strtod(arg, &end);
		if (errno || *end || end == arg || !(o->interval >= 0.05) ||
		    o->interval > 86400)
			argp_error(state, "bad interval '%s'; give seconds between 0.05 and 86400, e.g. -d 0.5",
				   arg);
		break;
	case 'n':
		errno = 0;
		o->iterations = strtol(arg, &end, 10);
		if (errno || *end || end == arg || o->iterations < 1)
			argp_error(state, "bad iteration count '%s'; give a positive number",
				   arg);
		break;
	case 'b':
		errno = 0;
		o->buffer_kb = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || arg[0] == '-' ||
		    o->buffer_kb < 8 || o->buffer_kb > 4UL * 1024 * 1024)
			argp_error(state, "bad buffer size '%s'; give KB per CPU between 8 and 4194304, e.g. -b 8192",
				   arg);
		break;
	case OPT_BATCH:
		o->batch = true;
		break;
	case ARGP_KEY_END:
		/* A borrowed instance is left as found, its size included. */
		if (o->instance && o->buffer_kb)
			argp_error(state, "-b resizes ktrace top's own buffer; with -B, set the size of '%s' itself",
				   o->instance);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'; name events with -e",
			   arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static struct argp_option options[] = {
	{ "event", 'e', "EVENT", 0,
	  "count EVENT (system:event, a glob or an alias); repeat for more; default: sched:*, irq:*, raw_syscalls:*", 0 },
	{ "instance", 'B', "INSTANCE", 0,
	  "watch the existing INSTANCE instead of a private one; this consumes its buffer", 0 },
	{ "delay", 'd', "SECONDS", 0, "refresh every SECONDS (default 1)", 0 },
	{ "buffer-size", 'b', "KB", 0,
	  "per-CPU ring buffer of KB kilobytes (default: the kernel's, 1410 KB)", 0 },
	{ "batch", OPT_BATCH, NULL, 0,
	  "print the table as text every interval, as when not on a terminal", 0 },
	{ "iterations", 'n', "ITERATIONS", 0, "stop after ITERATIONS intervals", 0 },
	{ 0 }
};

static const char doc[] =
	"Show live event rates: one row per event with events/s, the total "
	"and a per-CPU split, under a header of per-CPU buffer fill and lost "
	"events.  Keys: s sort, space toggle, j/k or arrows move, ? help, "
	"q quit.  Without a terminal, or with --batch, prints the table as "
	"text once per interval.";

static struct argp top_argp = { options, parse_opt, "", doc, 0, 0, 0 };

/* ---- events ----------------------------------------------------------- */

/* How ktrace.ko's buffers are read, when a row is its event; else NULL. */
static const char *module_mode(const struct top *t)
{
	return kt_counter_module_read_mode(t->c);
}

/* A hidden switch: the kbuffer walker (KTRACE_NO_MMAP: livebuf.h). */
static unsigned int livebuf_flags(void)
{
	unsigned int flags = 0;
	const char *env;

	env = getenv("KTRACE_TOP_KBUFFER");
	if (env && *env && strcmp(env, "0"))
		flags |= KT_LIVEBUF_KBUFFER;
	return flags;
}

/* ---- one table, shared by screen and text ----------------------------- */

/* The rows to show, in order. */
static void build_order(struct top *t)
{
	t->order = kt_counter_sort(t->c, (enum kt_counter_sort)t->sort,
				   &t->norder);
}

/*
 * The column heads.  wlabel is the EVENT column's width: fixed on the
 * screen (names are cut), the longest name in text (never cut).
 */
static void format_header(char *buf, size_t len, int ncpu_cols, bool box,
			  int wlabel)
{
	size_t used;
	int cpu;

	used = (size_t)snprintf(buf, len, "%-*s%*s%*s", wlabel + (box ? W_BOX : 0),
				"EVENT", W_RATE, "RATE/s", W_TOTAL, "TOTAL");
	for (cpu = 0; cpu < ncpu_cols && used < len; cpu++) {
		char col[16];

		snprintf(col, sizeof(col), "cpu%d/s", cpu);
		used += (size_t)snprintf(buf + used, len - used, "%*s", W_CPU, col);
	}
}

static void format_row(const struct top *t, size_t ri, char *buf, size_t len,
		       int ncpu_cols, bool box, int wlabel)
{
	const struct kt_counter_row *r = kt_counter_row_at(t->c, ri);
	size_t used;
	int cpu;

	if (box)
		used = (size_t)snprintf(buf, len, "[%c] %-*.*s", r->on ? 'x' : ' ',
					wlabel, wlabel, r->label);
	else
		used = (size_t)snprintf(buf, len, "%-*s", wlabel, r->label);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, " %*.1f %*llu",
					 W_RATE - 1, r->rate, W_TOTAL - 1,
					 (unsigned long long)r->total);
	for (cpu = 0; cpu < ncpu_cols && used < len; cpu++)
		used += (size_t)snprintf(buf + used, len - used, " %*.1f",
					 W_CPU - 1,
					 kt_counter_cpu_rate(t->c, cpu, ri));
}

static void format_loss(const struct kt_counter_loss *l, char *buf, size_t len)
{
	snprintf(buf, len, "lost: overrun %llu  dropped %llu  missed %llu%s",
		 l->overrun, l->dropped, l->missed, l->unknown ? "+" : "");
}

struct summary {
	double rate;
	uint64_t total;
	struct kt_counter_loss lost;
};

/* What both views show above the table; also puts the rows in order. */
static void summarize(struct top *t, struct summary *sum)
{
	build_order(t);
	kt_counter_sum(t->c, &sum->rate, &sum->total);
	kt_counter_total_loss(t->c, &sum->lost);
}

/* ---- text output -------------------------------------------------------- */

/* Returns 0, or -errno when the output is gone (EPIPE: reader left). */
static int print_text(struct top *t)
{
	int cpu, ncpu = kt_counter_cpus(t->c), wlabel = W_EVENT;
	struct kt_counter_loss l;
	struct summary sum;
	const char *label;
	size_t i, len;
	char *line;

	summarize(t, &sum);
	for (i = 0; i < t->norder; i++) {
		label = kt_counter_row_at(t->c, t->order[i])->label;
		if ((int)strlen(label) > wlabel)
			wlabel = (int)strlen(label);
	}
	/* Every CPU gets its column in text, however many there are. */
	len = (size_t)wlabel + W_RATE + W_TOTAL + 256 +
	      (size_t)ncpu * (W_CPU + 1);
	line = malloc(len);
	if (!line)
		return -ENOMEM;
	printf("ktrace top: instance %s (%s%s%s), %zu events, every %.2fs, sample %ld, sort %s%s\n",
	       kt_counter_instance(t->c), kt_counter_read_mode(t->c),
	       module_mode(t) ? "; ktrace.ko " : "", module_mode(t) ? module_mode(t) : "",
	       kt_counter_rows(t->c) - 1, t->o->interval,
	       kt_counter_samples(t->c), sort_names[t->sort],
	       kt_counter_tracing_off(t->c) ? ", tracing off" : "");
	format_loss(&sum.lost, line, len);
	printf("rate %.1f/s  total %llu  %s\n", sum.rate,
	       (unsigned long long)sum.total, line);
	for (cpu = 0; cpu < ncpu; cpu++) {
		kt_counter_cpu_loss(t->c, cpu, &l);
		format_loss(&l, line, len);
		printf("cpu%d fill %u%%  %s\n", cpu,
		       kt_counter_fill_pct(t->c, cpu), line);
	}
	format_header(line, len, ncpu, false, wlabel);
	printf("%s\n", line);
	for (i = 0; i < t->norder; i++) {
		format_row(t, t->order[i], line, len, ncpu, false, wlabel);
		printf("%s\n", line);
	}
	printf("\n");
	free(line);
	if (fflush(stdout) || ferror(stdout))
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- the screen --------------------------------------------------------- */

enum { PAIR_LOST = 1 };

/* A terminal that cannot move its cursor (TERM=dumb) gets text. */
static bool terminal_can_draw(void)
{
	TERMINAL *term;
	char *cup;
	int err = 0;
	bool ok;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return false;
	cup = tigetstr("cup");
	ok = cup && cup != (char *)-1;
	term = set_curterm(NULL);
	del_curterm(term);
	return ok;
}

/*
 * The full screen: 0, or -1 when this terminal cannot draw it (said by
 * the caller), -2 when the terminal library does not load (said here).
 */
static int init_screen(struct top *t)
{
	if (!kt_curses_get()) {
		kt_warn("cannot load the terminal library: %s; install libncursesw6; printing text",
			kt_curses_error());
		return -2;
	}
	if (!terminal_can_draw())
		return -1;
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen)
		return -1;
	t->curses = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		init_pair(PAIR_LOST, COLOR_RED, -1);
		t->colors = true;
	}
	return 0;
}

static void end_screen(struct top *t)
{
	if (!t->curses)
		return;
	endwin();
	delscreen(t->screen);
	t->screen = NULL;
	t->curses = false;
}

static attr_t lost_attr(const struct top *t)
{
	return t->colors ? (COLOR_PAIR(PAIR_LOST) | A_BOLD) : (A_BOLD | A_REVERSE);
}

static void put_line(int y, const char *s, attr_t attr)
{
	if (y >= LINES)
		return;
	attron(attr);
	mvaddnstr(y, 0, s, COLS);
	attroff(attr);
}

static void draw_help(void)
{
	static const char *const help[] = {
		"ktrace top keys",
		"",
		"  j, Down       next row",
		"  k, Up         previous row",
		"  PgDn, PgUp    a page down, up",
		"  g, G          first, last row",
		"  space         switch the selected event off/on",
		"  s             sort by rate, name, total",
		"  Ctrl-L        redraw",
		"  ?             this help (any key closes it)",
		"  q             quit",
		"",
		"red: events were lost (buffer overrun/dropped,",
		"or missed between pages); see ktrace-top(1)",
	};
	int n = sizeof(help) / sizeof(*help), w = 54, y0, x0, i;
	char line[64];

	y0 = LINES > n + 2 ? (LINES - n - 2) / 2 : 0;
	x0 = COLS > w ? (COLS - w) / 2 : 0;
	attron(A_REVERSE);
	for (i = -1; i <= n && y0 + 1 + i < LINES; i++) {
		snprintf(line, sizeof(line), " %-*.*s ", w - 2, w - 2,
			 i >= 0 && i < n ? help[i] : "");
		/* Clipped, never wrapped, on a small terminal. */
		mvaddnstr(y0 + 1 + i, x0, line, COLS - x0);
	}
	attroff(A_REVERSE);
}

static size_t position_of(const struct top *t, size_t row)
{
	size_t i;

	for (i = 0; i < t->norder; i++)
		if (t->order[i] == row)
			return i;
	return 0;
}

/* 1234567 -> "1.2M": loss counts must fit a per-CPU cell. */
static void human(char *buf, size_t len, unsigned long long v)
{
	static const char units[] = "kMGTPE";
	double d = (double)v;
	int u = -1;

	if (v < 10000) {
		snprintf(buf, len, "%llu", v);
		return;
	}
	while (d >= 1000 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, "%.1f%c", d, units[u]);
}

/* One CPU's header cell: buffer fill and what it lost. */
static void format_cpu_cell(const struct top *t, int cpu, char *cell,
			    size_t len, struct kt_counter_loss *l)
{
	char ovr[16], drp[16], mis[16];

	kt_counter_cpu_loss(t->c, cpu, l);
	human(ovr, sizeof(ovr), l->overrun);
	human(drp, sizeof(drp), l->dropped);
	human(mis, sizeof(mis), l->missed);
	snprintf(cell, len, "cpu%-3d fill %3u%%  ovr %s drp %s mis %s%s",
		 cpu, kt_counter_fill_pct(t->c, cpu), ovr, drp, mis,
		 l->unknown ? "+" : "");
}

static void draw(struct top *t)
{
	int y = 0, cpu, per_line, cpu_lines, ncols, avail, i, cell_w;
	int ncpu = kt_counter_cpus(t->c);
	char line[1024], cell[128];
	struct kt_counter_loss l;
	struct summary sum;
	size_t pos, p;
	attr_t attr;

	summarize(t, &sum);
	erase();

	snprintf(line, sizeof(line), " ktrace top  %s (%s%s%s)  %zu events  every %.1fs  sort: %s%s",
		 kt_counter_instance(t->c), kt_counter_read_mode(t->c),
		 module_mode(t) ? "; ktrace.ko " : "", module_mode(t) ? module_mode(t) : "",
		 kt_counter_rows(t->c) - 1, t->o->interval, sort_names[t->sort],
		 kt_counter_tracing_off(t->c) ? "  TRACING OFF" : "");
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, line, COLS);
	if (COLS > (int)strlen(line) + 8)
		mvaddstr(y, COLS - 8, "? help ");
	attroff(A_REVERSE);
	y++;

	snprintf(line, sizeof(line), "rate %.1f/s  total %llu  ", sum.rate,
		 (unsigned long long)sum.total);
	mvaddnstr(y, 0, line, COLS);
	format_loss(&sum.lost, cell, sizeof(cell));
	attr = kt_counter_loss_any(&sum.lost) ? lost_attr(t) : A_NORMAL;
	attron(attr);
	addnstr(cell, COLS > (int)strlen(line) ? COLS - (int)strlen(line) : 0);
	attroff(attr);
	y++;

	/*
	 * Per-CPU cells, as many a line as fit whole, on at most a quarter
	 * of the screen.  The cells are as wide as the widest needs: a
	 * loss of 31.1k in every column must not be cut to "mis 3".
	 */
	cell_w = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		format_cpu_cell(t, cpu, cell, sizeof(cell), &l);
		if ((int)strlen(cell) + 2 > cell_w)
			cell_w = (int)strlen(cell) + 2;
	}
	per_line = cell_w && COLS / cell_w > 0 ? COLS / cell_w : 1;
	cpu_lines = (ncpu + per_line - 1) / per_line;
	if (cpu_lines > LINES / 4)
		cpu_lines = LINES / 4 > 0 ? LINES / 4 : 1;
	for (cpu = 0; cpu < ncpu; cpu++) {
		int cy = y + cpu / per_line, cx = (cpu % per_line) * cell_w;

		if (cpu / per_line >= cpu_lines) {
			mvprintw(y + cpu_lines - 1, COLS > 12 ? COLS - 12 : 0,
				 "+%d cpus", ncpu - cpu);
			break;
		}
		format_cpu_cell(t, cpu, cell, sizeof(cell), &l);
		attr = kt_counter_loss_any(&l) ? lost_attr(t) : A_NORMAL;
		attron(attr);
		mvaddnstr(cy, cx, cell, COLS - cx > 0 ? COLS - cx : 0);
		attroff(attr);
	}
	y += cpu_lines;

	ncols = (COLS - (W_BOX + W_EVENT + W_RATE + W_TOTAL)) / W_CPU;
	if (ncols < 0)
		ncols = 0;
	if (ncols > ncpu)
		ncols = ncpu;
	format_header(line, sizeof(line), ncols, true, W_EVENT);
	attron(A_BOLD | A_UNDERLINE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, line, COLS);
	attroff(A_BOLD | A_UNDERLINE);
	y++;

	/* Keep the selection on screen. */
	avail = LINES - 1 - y;
	if (avail < 1)
		avail = 1;
	pos = position_of(t, t->sel);
	if (pos < t->first)
		t->first = pos;
	if (pos >= t->first + (size_t)avail)
		t->first = pos - (size_t)avail + 1;
	for (i = 0, p = t->first; i < avail && p < t->norder; i++, p++) {
		size_t ri = t->order[p];

		format_row(t, ri, line, sizeof(line), ncols, true, W_EVENT);
		attr = ri == t->sel ? A_REVERSE : A_NORMAL;
		if (!kt_counter_row_at(t->c, ri)->on)
			attr |= A_DIM;
		if (ri == t->sel)
			mvhline(y + i, 0, ' ' | A_REVERSE, COLS);
		put_line(y + i, line, attr);
	}

	if (t->msg[0])
		put_line(LINES - 1, t->msg, A_BOLD);
	else
		put_line(LINES - 1, "q quit  s sort  space on/off  j/k move  ? help",
			 A_DIM);
	if (t->help)
		draw_help();
	refresh();
}

static void toggle(struct top *t)
{
	const struct kt_counter_row *r = kt_counter_row_at(t->c, t->sel);
	int ret;

	if (!t->sel) {
		snprintf(t->msg, sizeof(t->msg), "(other) counts events no row names; it has no switch");
		return;
	}
	if (!r->can_toggle) {
		snprintf(t->msg, sizeof(t->msg), "'%s' has no switch: the kernel always records it",
			 r->label);
		return;
	}
	ret = kt_counter_set_enable(t->c, t->sel, !r->on);
	if (ret) {
		snprintf(t->msg, sizeof(t->msg), "cannot switch '%s' %s: %s",
			 r->label, r->on ? "off" : "on", strerror(-ret));
		return;
	}
	snprintf(t->msg, sizeof(t->msg), "%s %s", r->label, r->on ? "on" : "off");
}

static void move_sel(struct top *t, long by)
{
	long pos = (long)position_of(t, t->sel) + by;

	if (!t->norder)
		return;
	if (pos < 0)
		pos = 0;
	if (pos >= (long)t->norder)
		pos = (long)t->norder - 1;
	t->sel = t->order[pos];
}

/* Returns true when the user asked to quit. */
static bool handle_key(struct top *t, int ch)
{
	long page = LINES > 8 ? LINES - 8 : 1;

	if (t->help && ch != 'q' && ch != KEY_RESIZE) {
		t->help = false;
		return false;
	}
	t->msg[0] = '\0';
	switch (ch) {
	case 'q':
	case 'Q':
		return true;
	case 's':
		t->sort = (t->sort + 1) % NSORT;
		snprintf(t->msg, sizeof(t->msg), "sorted by %s", sort_names[t->sort]);
		break;
	case ' ':
		toggle(t);
		break;
	case 'j':
	case KEY_DOWN:
		move_sel(t, 1);
		break;
	case 'k':
	case KEY_UP:
		move_sel(t, -1);
		break;
	case KEY_NPAGE:
		move_sel(t, page);
		break;
	case KEY_PPAGE:
		move_sel(t, -page);
		break;
	case 'g':
	case KEY_HOME:
		move_sel(t, -(long)t->norder);
		break;
	case 'G':
	case KEY_END:
		move_sel(t, (long)t->norder);
		break;
	case '?':
	case 'h':
		t->help = true;
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		break;
	case KEY_RESIZE:
	default:
		break;
	}
	return false;
}

/* ---- the loop ----------------------------------------------------------- */

/* Close an interval: rates over the time it really took. */
static void sample(struct top *t)
{
	double now = now_s(), dt = now - t->last_sample;

	if (dt <= 0)
		dt = t->o->interval;
	kt_counter_sample(t->c, dt);
	t->last_sample = now;
}

/*
 * Until q, a signal (the session's), -n or an error: the session counts
 * what the buffers hold after each wait, this loop draws and samples.
 */
static int run(struct top *t)
{
	double next = now_s() + t->o->interval, now;
	int timeout, ch, err, why, ret = KT_EXIT_OK;
	/* Keys; the buffers are the session's to poll. */
	struct pollfd keys = { .fd = t->curses ? STDIN_FILENO : -1, .events = POLLIN };
	bool dirty;

	t->last_sample = now_s();
	if (t->curses) {
		build_order(t);
		t->sel = t->norder ? t->order[0] : 0;
		draw(t);
	}
	for (;;) {
		now = now_s();
		timeout = (int)((next - now) * 1000) + 1;
		if (timeout > TICK_MS)
			timeout = TICK_MS;
		if (timeout < 0)
			timeout = 0;
		why = kt_session_step(t->s, &keys, 1, timeout);
		if (why < 0)
			kt_err("cannot wait for input: %s", strerror(-why));
		/* A signal ends it as q does; a buffer that failed is said. */
		if (why)
			return why == KT_STOP_SIGNAL ? KT_EXIT_OK : KT_EXIT_FAIL;
		dirty = false;
		if (t->curses && cont_sig) {
			cont_sig = 0;
			clearok(curscr, TRUE);
			dirty = true;
		}
		if (t->curses) {
			while ((ch = getch()) != ERR) {
				if (handle_key(t, ch))
					return ret;
				dirty = true;
			}
		}
		if (now_s() >= next) {
			sample(t);
			next += t->o->interval;
			if (next < now_s())
				next = now_s() + t->o->interval;
			if (t->curses)
				dirty = true;
			else if ((err = print_text(t))) {
				/*
				 * | head: the reader has seen enough.  The
				 * stream's error cleared, the last flush at
				 * exit sees EPIPE itself: errno does not last
				 * through the session's end.
				 */
				if (err == -EPIPE) {
					clearerr(stdout);
				} else {
					kt_err("cannot write output: %s", strerror(-err));
					ret = KT_EXIT_FAIL;
				}
				break;
			}
			if (t->o->iterations && kt_counter_samples(t->c) >= t->o->iterations) {
				if (t->curses)
					draw(t);
				break;
			}
		}
		if (dirty)
			draw(t);
	}
	return ret;
}

/*
 * SIGCONT repaints; SIGINT, SIGTERM and SIGHUP end the session (its
 * signalfd: live/session/run.h), even a SIGHUP that nohup ignored.
 */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_cont_signal;
	/* No SA_RESTART: the wait must return so the loop sees the flag. */
	sigaction(SIGCONT, &sa, NULL);
}

/* Loss is never silent: say it once more where it outlives the screen. */
static void report_loss(const struct top *t)
{
	struct kt_counter_loss l;
	char line[256];

	kt_counter_total_loss(t->c, &l);
	if (!kt_counter_loss_any(&l))
		return;
	format_loss(&l, line, sizeof(line));
	if (kt_counter_own_instance(t->c))
		kt_warn("events were %s; try fewer events or a larger buffer (-b, now %llu KB per CPU)",
			line, kt_counter_buffer_kb(t->c));
	else
		kt_warn("events were %s; try fewer events or a larger buffer_size_kb for instance '%s'",
			line, kt_counter_instance(t->c));
}

int cmd_top(int argc, char **argv)
{
	static const struct kt_trace_opts no_trace;
	struct top_opts o = { .interval = 1.0 };
	struct kt_counter_opts co = {
		.defaults = default_events,
		.ndefaults = sizeof(default_events) / sizeof(*default_events),
	};
	struct kt_session_config cfg = { .t = &no_trace, .quiet = true, .take = true };
	int ret = KT_EXIT_FAIL;
	struct kt_sink sink;
	struct top t;

	if (parse_args(&top_argp, argc, argv, &o))
		return KT_EXIT_OK;
	memset(&t, 0, sizeof(t));
	t.o = &o;
	install_signals();

	co.events = o.events;
	co.nevents = o.nevents;
	co.buffer_kb = o.buffer_kb;
	co.read_flags = livebuf_flags();
	t.c = kt_counter_new(&co);
	sink = (struct kt_sink){ &kt_counter_sink_ops, t.c };
	cfg.borrow = o.instance;
	cfg.sinks = &sink;
	cfg.nsinks = 1;
	t.s = kt_session_new(&cfg);
	if (!t.s || kt_session_start(t.s))
		goto err_session;
	if (!o.batch && isatty(STDOUT_FILENO) && init_screen(&t) == -1)
		kt_warn("cannot use the terminal (TERM=%s); printing text",
			getenv("TERM") ? getenv("TERM") : "");
	ret = run(&t);
	kt_session_finish(t.s);
	end_screen(&t);
	report_loss(&t);
err_session:
	kt_session_free(t.s);
	free(o.events);
	return ret;
}
