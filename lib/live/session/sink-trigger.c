// SPDX-License-Identifier: GPL-2.0
/*
 * A trigger: see sink-trigger.h.  The ring is a series sink of its own
 * (chunks of a part of before + after, as many kept as cover it twice)
 * in DIR/.ktrace-ring-PID, removed at the end.  A timer wakes the sink
 * every tick: each CPU's current pieces are read from where the last
 * tick stopped, whole pages only, through a descriptor held across a
 * rotation (the old pieces are read to their end before the new ones);
 * the records go to the conditions.  A firing waits until its window's
 * end has passed on the trace clock, then the series' snapshot writes
 * it (sink-file.h's kt_file_sink_snapshot: the ring's finished chunks
 * and the pieces since the window's start), and cfg->on_shot is told.
 * A condition that holds again inside a waiting snapshot's window is
 * merged into it (counted, the window as it was).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include <traceevent/event-parse.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/lsan.h"
#include "file/kallsyms.h"
#include "file/pieces.h"
#include "file/rawpage.h"
#include "file/trigopt.h"
#include "file/writer.h"
#include "live/session/run.h"
#include "live/session/session-priv.h"
#include "live/session/sink-series.h"
#include "live/session/sink-trigger.h"
#include "live/trigger/watch.h"

/* How often the new pages are read. */
#define TICK_NS		100000000ULL
/*
 * Every this many ticks the partly filled pages are moved into the
 * pieces too, so that a firing on a quiet CPU is seen within half a
 * second, not once its page fills.
 */
#define FLUSH_TICKS	5
/* Firings waiting for their window's end, at most. */
#define PENDING_MAX	64
/* Pages read back in one call. */
#define READ_PAGES	32

struct pending {
	struct kt_fire f;
	uint64_t due;			/* trace clock: write at or after */
	int64_t realtime_ns;		/* f.ts on the wall clock */
	uint64_t merged;		/* firings merged into it */
	uint64_t suppressed;		/* held back since the last snapshot */
};

struct kt_trigger_sink {
	struct kt_trigger_opts o;
	struct kt_session *s;
	char *ring_dir;
	struct kt_series_sink *ring;
	struct tep_handle *tep;
	struct kt_rawpage_fmt fmt;	/* the pages' records, walked */
	int32_t *need;			/* per event id: 0, any id is walked */
	struct kt_watch *watch;
	int timer;
	int page;
	char *prefix;			/* the pieces being read */
	int *fd;			/* per CPU */
	unsigned long long *off;
	unsigned char *buf;
	struct pending pend[PENDING_MAX];
	int npend;
	/* Storms: snapshots begun, the last one's firing, suppressed since. */
	unsigned int started;
	uint64_t last_fire;
	bool fired_once;
	uint64_t held;
	uint64_t last_end;		/* the last snapshot's end, trace clock */
	unsigned long ticks;
	bool made_dir;
	struct kt_trigger_done done;
};

struct kt_trigger_sink *kt_trigger_sink_new(const struct kt_trigger_opts *o)
{
	struct kt_trigger_sink *t = calloc(1, sizeof(*t));
	struct kt_series_opts so = { 0 };
	uint64_t span = o->before + o->after;

	if (!t)
		return NULL;
	t->o = *o;
	t->timer = -1;
	t->page = getpagesize();
	if (asprintf(&t->ring_dir, "%s/.ktrace-ring-%d", o->dir, (int)getpid()) < 0) {
		t->ring_dir = NULL;
		goto err;
	}
	/* Four chunks cover before + after: twice that kept, a late firing too. */
	so.dir = t->ring_dir;
	so.ns = span / 4 > 250000000ULL ? span / 4 : 250000000ULL;
	so.keep = 8;
	/*
	 * Waiting for a rare moment should cost the traced system no
	 * packing (with a busy workload the recorder's zstd takes its
	 * CPUs): the ring is kept unpacked, 2x before + after of pages on
	 * disk, and a snapshot packs its window.  A packed ring takes 5-9x
	 * less room: its pieces are packed as they come and a snapshot
	 * copies their blocks.  auto: unpacked while quiet, packed while
	 * a window holds more pages than a snapshot packs in about a
	 * second (the series decides at each chunk).
	 */
	so.prepack = o->ring != KT_RING_UNPACKED;
	if (o->ring != KT_RING_PACKED)
		so.compression = "none";
	if (o->ring == KT_RING_AUTO) {
		so.prepack_over = o->ring_auto_bytes ? o->ring_auto_bytes :
				  KT_RING_AUTO_BYTES;
		so.prepack_window_ns = span;
	}
	/* Its snapshots read the threads as they are written. */
	so.no_tgids = true;
	/* Never recovered (removed at the end): its pieces are written over. */
	so.recycle = true;
	t->ring = kt_series_sink_new(&so);
	t->o.dir = strdup(o->dir);
	/* The walker reads up to 8 bytes past a page's data. */
	t->buf = malloc((size_t)t->page * READ_PAGES + 8);
	if (!t->ring || !t->o.dir || !t->buf)
		goto err;
	return t;
err:
	if (t->ring)
		kt_series_sink_ops.free(t->ring);
	free((char *)t->o.dir);
	free(t->ring_dir);
	free(t->buf);
	free(t);
	errno = ENOMEM;
	return NULL;
}

void kt_trigger_sink_done(const struct kt_trigger_sink *t,
			  struct kt_trigger_done *d)
{
	*d = t->done;
}

/* ---- set-up ---- */

static int make_dir(struct kt_trigger_sink *t)
{
	if (!mkdir(t->o.dir, 0755)) {
		t->made_dir = true;
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	kt_err("cannot create '%s': %s", t->o.dir, strerror(errno));
	return -errno;
}

/*
 * One event's format ("system:event") from tracefs into tep: 0, or -1
 * (the event is missing or its format does not parse; the watch then
 * finds no such event and says so).
 */
static int load_format(struct tep_handle *tep, const char *dir, const char *spec)
{
	size_t n = strcspn(spec, ":"), len;
	char path[PATH_MAX], sys[128], *text;
	int ret;

	if (!spec[n] || n >= sizeof(sys))
		return -1;
	snprintf(sys, sizeof(sys), "%.*s", (int)n, spec);
	if (tep_find_event_by_name(tep, sys, spec + n + 1))
		return 0;	/* two conditions on one event */
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, spec + n + 1);
	if (kt_file_slurp(path, &text, &len))
		return -1;
	kt_lsan_off();
	ret = tep_parse_event(tep, text, len, sys) ? -1 : 0;
	kt_lsan_on();
	free(text);
	return ret;
}

/*
 * How the pages are walked: host byte order, every event id (the
 * recording holds events no condition reads: each is handed over, and
 * the watch passes it by its id), common fields as the formats have
 * them.
 */
static int walk_fmt(struct kt_trigger_sink *t)
{
	struct tep_event **evs = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
	struct tep_format_field *f;
	unsigned int common = 8;

	t->need = calloc(KT_RAWPAGE_IDS, sizeof(*t->need));
	if (!t->need)
		return -ENOMEM;
	t->fmt.need = t->need;
	t->fmt.nids = KT_RAWPAGE_IDS;
	t->fmt.big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	t->fmt.type_size = 2;
	f = evs && evs[0] ? tep_find_common_field(evs[0], "common_type") : NULL;
	if (f && f->offset >= 0 && f->offset <= 64 && (f->size == 1 || f->size == 2)) {
		t->fmt.type_off = (unsigned int)f->offset;
		t->fmt.type_size = (unsigned int)f->size;
	}
	for (f = evs && evs[0] ? evs[0]->format.common_fields : NULL; f; f = f->next)
		if (f->offset >= 0 && f->size >= 0 && f->offset + f->size <= 64 &&
		    (unsigned int)(f->offset + f->size) > common)
			common = (unsigned int)(f->offset + f->size);
	t->fmt.min_size = common;
	t->fmt.plain = !t->fmt.big && t->fmt.type_size == 2;
	return 0;
}

/*
 * The formats of the events the conditions read, each alone (not their
 * systems', nor kallsyms for a syscall condition: tens of ms of a short
 * recording's CPU).  An event condition's firing is told in its own
 * text, which may print a kernel address as a symbol: kallsyms then.
 */
static int load_formats(struct kt_trigger_sink *t)
{
	const char *dir = tracefs_tracing_dir();
	const char *const *ev;
	bool syms = false;
	char why[512], *text;
	size_t len;
	int i;

	t->tep = dir ? tep_alloc() : NULL;
	if (!t->tep)
		goto err;
	tep_set_long_size(t->tep, sizeof(long));
	tep_set_page_size(t->tep, t->page);
	for (i = 0; i < t->o.nconds; i++) {
		syms |= t->o.conds[i].kind == KT_COND_EVENT;
		for (ev = kt_cond_events(&t->o.conds[i]); *ev; ev++)
			load_format(t->tep, dir, *ev);
	}
	if (syms && !kt_file_slurp("/proc/kallsyms", &text, &len)) {
		kt_kallsyms_parse(t->tep, text);
		free(text);
	}
	why[0] = '\0';
	t->watch = kt_watch_new(t->tep, t->o.conds, t->o.nconds, why, sizeof(why));
	if (t->watch && !walk_fmt(t))
		return 0;
	if (*why) {
		kt_err("bad --trigger: %s", why);
		return -EINVAL;
	}
err:
	kt_err("cannot read the formats of the events the triggers watch: %s",
	       strerror(errno ? errno : ENOMEM));
	return errno ? -errno : -ENOMEM;
}

/*
 * A recording scoped to tasks (-F, -c, --pid) counts only their waits:
 * COMMAND's and the pids' processes (and, with -c, what they fork).
 */
static int scope(struct kt_trigger_sink *t)
{
	const struct kt_trace_opts *o = t->s->cfg->t;
	pid_t *roots, child = t->s->run ? kt_run_child_pid(t->s->run) : 0;
	size_t n = 0, i;
	int ret;

	if (!o || (!o->only_cmd && !o->children && !o->npids))
		return 0;
	roots = calloc(o->npids + 1, sizeof(*roots));
	if (!roots)
		return -ENOMEM;
	if (child > 0)
		roots[n++] = child;
	for (i = 0; i < o->npids; i++)
		roots[n++] = o->pids[i];
	ret = kt_watch_scope(t->watch, roots, n, o->children);
	free(roots);
	return ret;
}

static int arm(struct kt_trigger_sink *t)
{
	struct itimerspec it = {
		.it_interval = { 0, TICK_NS },
		.it_value = { 0, TICK_NS },
	};
	int cpu;

	t->fd = calloc(t->s->ncpus, sizeof(*t->fd));
	t->off = calloc(t->s->ncpus, sizeof(*t->off));
	if (!t->fd || !t->off)
		return -ENOMEM;
	for (cpu = 0; cpu < t->s->ncpus; cpu++)
		t->fd[cpu] = -1;
	t->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->timer < 0 || timerfd_settime(t->timer, 0, &it, NULL)) {
		kt_err("cannot start the trigger's timer: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- reading the new pages ---- */

/* The wall clock at trace time ts, from the clocks read now. */
static int64_t realtime_of(struct kt_trigger_sink *t, uint64_t ts)
{
	uint64_t now = kt_session_trace_now(t->s);
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	return (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec - (int64_t)(now - ts);
}

/*
 * A firing's window begins --before its event, or where what it measured
 * began (a wait, a system call) when that is earlier.
 */
static uint64_t window_start(struct kt_trigger_sink *t, const struct kt_fire *f)
{
	uint64_t start = f->ts > t->o.before ? f->ts - t->o.before : 0;

	return f->since < start ? f->since : start;
}

static void fired(struct kt_trigger_sink *t, const struct kt_fire *f)
{
	struct pending *p;
	int i;

	t->done.fired++;
	/* Seen late, inside the last snapshot written: it is in there. */
	if (f->ts <= t->last_end) {
		t->done.merged++;
		return;
	}
	for (i = 0; i < t->npend; i++) {
		p = &t->pend[i];
		/* (A wait that began before the window gets one of its own.) */
		if (f->ts <= p->due && f->since >= window_start(t, &p->f)) {
			/*
			 * Inside a window still to be written: it is in there
			 * (not stretched: a storm would hold it for ever).
			 */
			p->merged++;
			t->done.merged++;
			return;
		}
	}
	if (t->npend == PENDING_MAX ||
	    (t->o.max_snapshots && t->started >= t->o.max_snapshots) ||
	    (t->fired_once && (f->ts > t->last_fire ? f->ts - t->last_fire :
			       t->last_fire - f->ts) < t->o.cooldown)) {
		t->done.suppressed++;
		t->held++;
		return;
	}
	t->started++;
	t->fired_once = true;
	t->last_fire = f->ts;
	p = &t->pend[t->npend++];
	memset(p, 0, sizeof(*p));
	p->suppressed = t->held;
	t->held = 0;
	p->f = *f;
	p->due = f->ts + t->o.after;
	p->realtime_ns = realtime_of(t, f->ts);
}

static void read_page(struct kt_trigger_sink *t, const unsigned char *page, int cpu)
{
	struct kt_rawpage_hdr hdr;
	struct kt_rawpage_rec rr;
	struct tep_record rec;
	unsigned int pos = 0;
	const unsigned char *data;
	const char *why;
	struct kt_fire f;
	uint64_t ts;

	if (kt_rawpage_header(page, t->page, &hdr))
		return;
	data = page + hdr.data_off;
	memcpy(&ts, page, sizeof(ts));
	memset(&rec, 0, sizeof(rec));
	rec.cpu = cpu;
	while (kt_rawpage_next_inline(&t->fmt, data, (unsigned int)hdr.len, &pos,
				      &ts, &rr, &why) == 1) {
		rec.ts = rr.ts;
		rec.data = (void *)(data + rr.data);
		rec.size = (int)rr.size;
		if (kt_watch_record(t->watch, &rec, &f))
			fired(t, &f);
	}
}

/*
 * A CPU's whole pages from where it stopped to the end of its pieces;
 * handed to the ring's packing when they are its current pieces' (cur).
 * The current pieces end where the recorder says: past that, their
 * bytes are a chunk's before (the ring writes its pieces over); the
 * last chunk's were cut to their size.
 */
static void read_cpu(struct kt_trigger_sink *t, int cpu, bool cur)
{
	unsigned long long have, end, size;
	struct stat st;
	int fd = t->fd[cpu], i, n;
	ssize_t got;

	if (fd < 0 || fstat(fd, &st))
		return;
	end = (unsigned long long)st.st_size;
	if (cur && !kt_session_piece_size(t->s, cpu, &size) && size < end)
		end = size;
	while (t->off[cpu] + t->page <= end) {
		have = (end - t->off[cpu]) / t->page;
		n = have < READ_PAGES ? (int)have : READ_PAGES;
		got = pread(fd, t->buf, (size_t)n * t->page, t->off[cpu]);
		if (got < t->page)
			return;
		n = (int)(got / t->page);
		if (cur)
			kt_series_sink_feed(t->ring, cpu, t->off[cpu], t->buf,
					    (size_t)n * t->page);
		t->off[cpu] += (unsigned long long)n * t->page;
		for (i = 0; i < n; i++)
			read_page(t, t->buf + (size_t)i * t->page, cpu);
	}
}

/* Every CPU's new pages, the last chunk's to their end first. */
static void read_new(struct kt_trigger_sink *t)
{
	const char *prefix = t->s->env.prefix;
	char path[PATH_MAX];
	bool same;
	int cpu;

	if (!prefix)
		return;
	same = t->prefix && !strcmp(t->prefix, prefix);
	for (cpu = 0; cpu < t->s->ncpus; cpu++)
		read_cpu(t, cpu, same);
	if (same)
		return;
	free(t->prefix);
	t->prefix = strdup(prefix);
	for (cpu = 0; cpu < t->s->ncpus; cpu++) {
		if (t->fd[cpu] >= 0)
			close(t->fd[cpu]);
		t->fd[cpu] = -1;
		t->off[cpu] = 0;
		if (t->prefix && !kt_pieces_cpu(path, sizeof(path), t->prefix, cpu))
			t->fd[cpu] = open(path, O_RDONLY | O_CLOEXEC);
	}
	for (cpu = 0; cpu < t->s->ncpus; cpu++)
		read_cpu(t, cpu, true);
}

/* The waits that held and ended before now, every CPU read up to it. */
static void waits_due(struct kt_trigger_sink *t, uint64_t now)
{
	struct kt_fire f;

	while (t->watch && kt_watch_next(t->watch, now, &f))
		fired(t, &f);
}

/* ---- the snapshots ---- */

static char *shot_path(struct kt_trigger_sink *t, const struct pending *p)
{
	time_t sec = p->realtime_ns / 1000000000LL;
	char date[32], slug[96], *path = NULL;
	struct tm tm;
	int i;

	localtime_r(&sec, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);
	kt_cond_slug(&t->o.conds[p->f.cond], slug, sizeof(slug));
	for (i = 0; i < 100; i++) {
		free(path);
		if (asprintf(&path, "%s/trigger-%s.%03d-%s%s%.0d.dat", t->o.dir, date,
			     (int)(p->realtime_ns / 1000000 % 1000), slug,
			     i ? "-" : "", i) < 0)
			return NULL;
		if (access(path, F_OK))
			break;
	}
	return path;
}

static void write_shot(struct kt_trigger_sink *t, const struct pending *p)
{
	const struct kt_session_config *cfg = t->s->cfg;
	uint64_t start = window_start(t, &p->f);
	bool chained = t->last_end && start < t->last_end;
	struct kt_snapshot_req req = { 0 };
	struct kt_snapshot_res res;
	struct kt_trigopt opt = { .ts = p->f.ts, .cpu = p->f.cpu, .pid = p->f.pid,
				  .merged = p->merged, .suppressed = p->suppressed };
	struct kt_shot shot;
	char *path = shot_path(t, p), *text;

	snprintf(opt.condition, sizeof(opt.condition), "%s", t->o.conds[p->f.cond].text);
	snprintf(opt.event, sizeof(opt.event), "%s", p->f.what);
	text = kt_trigopt_format(&opt);
	if (!path || !text) {
		t->done.failed++;
		free(path);
		free(text);
		return;
	}
	/* Never the last snapshot's events again: begin where it ended. */
	if (chained) {
		start = t->last_end;
		opt.chained = start;
		free(text);
		text = kt_trigopt_format(&opt);
		if (!text) {
			t->done.failed++;
			free(path);
			return;
		}
	}
	req.path = path;
	req.trigger = text;
	req.uncounted = true;
	/* From start exactly: a chained one begins where the last ended. */
	req.from_ts = start ? start : 1;
	if (kt_series_sink_ops.snapshot(t->ring, t->s, &req, &res)) {
		t->done.failed++;
		free(path);
		free(text);
		return;
	}
	t->done.snapshots++;
	t->last_end = res.last_ts;
	if (cfg->on_shot) {
		memset(&shot, 0, sizeof(shot));
		shot.path = res.path;
		shot.condition = t->o.conds[p->f.cond].text;
		shot.fire_ts = p->f.ts;
		shot.fire_realtime_ns = p->realtime_ns;
		shot.fire_event = p->f.what;
		shot.first_ts = res.first_ts;
		shot.last_ts = res.last_ts;
		shot.suppressed = p->suppressed;
		cfg->on_shot(cfg->on_shot_ctx, &shot);
	}
	free(path);
	free(text);
}

/* The snapshots whose window has ended (all of them: at the end). */
static void write_due(struct kt_trigger_sink *t, bool all)
{
	uint64_t now;
	int i = 0;

	if (!t->npend)
		return;
	now = kt_session_trace_now(t->s);
	while (i < t->npend) {
		if (!all && now < t->pend[i].due) {
			i++;
			continue;
		}
		write_shot(t, &t->pend[i]);
		memmove(&t->pend[i], &t->pend[i + 1],
			(t->npend - i - 1) * sizeof(t->pend[0]));
		t->npend--;
	}
}

/* Every page so far into the pieces, the partly filled ones too. */
static void flush(struct kt_trigger_sink *t)
{
	struct kt_session *s = t->s;
	struct kt_writer_cpu *cpus = calloc(s->ncpus, sizeof(*cpus));
	int cpu;
	size_t i;

	if (!cpus)
		return;
	for (cpu = 0; cpu < s->ncpus; cpu++)
		cpus[cpu].fd = -1;
	for (i = 0; i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state && s->src[i].ops->flush)
			s->src[i].ops->flush(s->src[i].state, cpus);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
	free(cpus);
}

/* COMMAND ended the recording with a failure: `exit` fires now. */
static void exit_cond(struct kt_trigger_sink *t)
{
	struct kt_fire f = { .cpu = -1 };
	int i, st;

	if (t->s->why != KT_STOP_CHILD || !kt_run_child_status(t->s->run, &st) ||
	    st == 0)
		return;
	for (i = 0; i < t->o.nconds && t->o.conds[i].kind != KT_COND_EXIT; i++)
		;
	if (i == t->o.nconds)
		return;
	f.cond = i;
	f.ts = f.since = kt_session_trace_now(t->s);
	f.pid = kt_run_child_pid(t->s->run);
	if (WIFSIGNALED(st))
		snprintf(f.what, sizeof(f.what), "pid %d (%s) killed by signal %d",
			 f.pid, t->s->cfg->t->cmd[0], WTERMSIG(st));
	else
		snprintf(f.what, sizeof(f.what), "pid %d (%s) exited with status %d",
			 f.pid, t->s->cfg->t->cmd[0], WEXITSTATUS(st));
	fired(t, &f);
}

/* ---- the sink's hooks ---- */

static int trigger_begin(void *state, struct kt_session *s, enum kt_sink_step step)
{
	struct kt_trigger_sink *t = state;
	int ret;

	if (step == KT_SINK_NEW)
		t->s = s;
	if (step == KT_SINK_OPEN) {
		ret = make_dir(t);
		if (ret)
			return ret;
	}
	if (step == KT_SINK_STOPPING && t->fd) {
		/* What the buffers hold, read; the waiting snapshots written. */
		flush(t);
		read_new(t);
		waits_due(t, UINT64_MAX);
		exit_cond(t);
		write_due(t, true);
	}
	ret = kt_series_sink_ops.begin(t->ring, s, step);
	if (ret)
		return ret;
	switch (step) {
	case KT_SINK_ARMED:
		return load_formats(t);
	case KT_SINK_STARTED:
		ret = scope(t);
		return ret ? ret : arm(t);
	default:
		return 0;
	}
}

static int trigger_poll_fds(void *state, struct pollfd *fds, int max)
{
	struct kt_trigger_sink *t = state;

	if (!fds)
		return 2;
	if (max < 2)
		return 0;
	kt_series_sink_ops.poll_fds(t->ring, fds, 1);
	fds[1].fd = t->timer;
	fds[1].events = POLLIN;
	return 2;
}

static int trigger_pages(void *state, const struct pollfd *fds)
{
	struct kt_trigger_sink *t = state;
	uint64_t ticks, now;

	if (!fds)
		return 0;
	if ((fds[1].revents & POLLIN) && read(t->timer, &ticks, sizeof(ticks)) > 0) {
		if (++t->ticks % FLUSH_TICKS == 0) {
			/* Every page up to now, flushed, then read: the waits before it. */
			now = kt_session_trace_now(t->s);
			flush(t);
			read_new(t);
			waits_due(t, now);
		} else {
			read_new(t);
		}
		write_due(t, false);
	}
	/* Read before the ring rotates: the old pieces stay open here. */
	return kt_series_sink_ops.pages(t->ring, fds);
}

/* A snapshot asked from outside (ktrace snapshot, SIGUSR2): the ring's. */
static int trigger_snapshot(void *state, struct kt_session *s,
			    const struct kt_snapshot_req *req,
			    struct kt_snapshot_res *res)
{
	struct kt_trigger_sink *t = state;

	return kt_series_sink_ops.snapshot(t->ring, s, req, res);
}

/* The ring is not an output: its last chunk is not written. */
static int trigger_end(void *state, struct kt_session *s)
{
	(void)state;
	(void)s;
	return 0;
}

static void remove_ring(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") &&
					    strcmp(de->d_name, ".."))) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

static void trigger_free(void *state)
{
	struct kt_trigger_sink *t = state;
	int cpu;

	kt_series_sink_ops.free(t->ring);
	if (t->ring_dir)
		remove_ring(t->ring_dir);
	/* A recording that wrote nothing leaves no DIR it made. */
	if (t->made_dir && !t->done.snapshots)
		rmdir(t->o.dir);
	for (cpu = 0; t->fd && t->s && cpu < t->s->ncpus; cpu++)
		if (t->fd[cpu] >= 0)
			close(t->fd[cpu]);
	if (t->timer >= 0)
		close(t->timer);
	if (t->watch)
		kt_watch_free(t->watch);
	free(t->need);
	if (t->tep)
		tep_free(t->tep);
	free(t->fd);
	free(t->off);
	free(t->prefix);
	free(t->buf);
	free(t->ring_dir);
	free((char *)t->o.dir);
	free(t);
}

const struct kt_sink_ops kt_trigger_sink_ops = {
	.name = "trigger",
	.wake_percent = "10",
	.begin = trigger_begin,
	.poll_fds = trigger_poll_fds,
	.pages = trigger_pages,
	.snapshot = trigger_snapshot,
	.end = trigger_end,
	.free = trigger_free,
};
