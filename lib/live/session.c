// SPDX-License-Identifier: GPL-2.0
/*
 * A recording: the session and its sources (session.h, source.h).
 *
 * The order matters:
 *   1. check everything that can be wrong (events, filters, output file,
 *      command) before any event is enabled;
 *   2. fork the command held on a pipe, point set_event_pid at it, set
 *      up and start the sources, turn tracing on, and only then let the
 *      command exec;
 *   3. stop on its exit (or a signal, -s, -m, a full disk), drain the
 *      buffers, and assemble the file while the instance is removed in
 *      the background.
 * /proc/kallsyms is copied into the file by a helper thread while the
 * command runs, so a short recording does not wait for it (ksyms.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>

#include "base/human.h"
#include "base/log.h"
#include "file/tracedat.h"
#include "file/wallclock.h"
#include "file/writer.h"
#include "live/formats.h"
#include "live/ksyms.h"
#include "live/procmaps.h"
#include "live/tgids.h"
#include "live/process.h"
#include "live/recover.h"
#include "live/run.h"
#include "live/session.h"
#include "live/source.h"
#include "live/tracefs.h"
#include "live/tracing.h"

/* buffer_percent of the instance: when the recorders wake up. */
#define WAKE_PERCENT	"10"

/* Set up and started in this order, stopped in reverse. */
static const struct kt_source_ops *const sources[] = {
	&kt_source_ftrace,
	&kt_source_module,
};
#define NSOURCES	(sizeof(sources) / sizeof(sources[0]))

struct source {
	const struct kt_source_ops *ops;
	void *state;			/* NULL: not in this recording */
};

struct kt_session {
	const struct kt_session_config *cfg;
	const char *tracing_dir;
	struct kt_tracing *t;		/* instance, events, filters */
	struct kt_evspec *specs;	/* --process: what kt_tracing_new used */
	struct kt_writer *w;
	char *tmpdir;
	struct kt_run *run;		/* COMMAND and the signals that end it */
	struct kt_procmaps *maps;	/* --user-stack: the processes' maps */
	struct kt_tgids *tgids;		/* thread to process, for --by process */
	struct kt_source_env env;
	struct source src[NSOURCES];
	int ncpus;
	struct kt_cpu_stats *st0, *st1;
	unsigned long long *cut;	/* per CPU, events a full disk cut off */
	char *clock;			/* trace_clock file text */
	struct kt_wallclock wall;	/* the clock against realtime */
	struct timespec t0;
	double elapsed;
	/* helper threads */
	struct kt_ksyms *ksyms;
	int ksyms_err;
	pthread_t remover;
	bool remover_running;
	int remove_err;
	enum kt_session_stop why;
};

static double now_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- helper threads ---- */

static void join_ksyms(struct kt_session *s)
{
	if (s->ksyms) {
		s->ksyms_err = kt_ksyms_join(s->ksyms);
		s->ksyms = NULL;
	}
}

static void *remover_main(void *arg)
{
	struct kt_session *s = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	s->remove_err = kt_tracing_remove(s->t);
	return NULL;
}

static void join_remover(struct kt_session *s)
{
	if (s->remover_running) {
		pthread_join(s->remover, NULL);
		s->remover_running = false;
	}
}

/* ---- set-up ---- */

struct kt_session *kt_session_new(const struct kt_session_config *cfg)
{
	struct kt_session *s = calloc(1, sizeof(*s));
	int err = EINVAL;
	size_t n;

	if (!s)
		return NULL;
	s->cfg = cfg;
	if (cfg->process && kt_process_backend(cfg, &s->env.mod_process))
		goto err_free;
	/*
	 * libtracefs caches the tracing directory without a lock: find it
	 * once here, before any helper thread can race to fill the cache.
	 */
	s->tracing_dir = tracefs_tracing_dir();
	if (!s->tracing_dir) {
		kt_err("cannot find tracefs; try: mount -t tracefs nodev /sys/kernel/tracing");
		err = ENODEV;
		goto err_free;
	}
	s->run = kt_run_new();
	if (!s->run) {
		err = errno;
		kt_err("cannot set up signal handling: %s", strerror(err));
		goto err_free;
	}
	/* kallsyms takes tens of ms: read it while everything else happens. */
	s->ksyms = kt_ksyms_start(s->tracing_dir);
	if (cfg->process) {
		if (kt_process_specs(cfg, s->env.mod_process, &s->specs, &n)) {
			err = ENOMEM;
			goto err_free;
		}
		s->t = kt_tracing_new(cfg->t, s->specs, n);
	} else {
		s->t = kt_tracing_new(cfg->t, NULL, 0);
	}
	if (!s->t) {
		err = errno;
		goto err_free;
	}
	return s;

err_free:
	kt_session_free(s);
	errno = err;
	return NULL;
}

static int open_output(struct kt_session *s)
{
	const char *out = s->cfg->output;
	char *copy, *slash;
	int ret;

	s->w = kt_writer_open(out);
	if (!s->w) {
		ret = -errno;
		kt_err("cannot open '%s': %s; try -o in a writable directory",
		       out, strerror(errno));
		return ret;
	}
	copy = strdup(out);
	if (!copy)
		return -ENOMEM;
	slash = strrchr(copy, '/');
	if (!slash) {
		free(copy);
		s->tmpdir = strdup(".");
	} else {
		if (slash == copy)
			slash[1] = '\0';
		else
			*slash = '\0';
		s->tmpdir = copy;
	}
	return s->tmpdir ? 0 : -ENOMEM;
}

/* kallsyms and printk formats, by the helper thread or here. */
static int write_ksyms(struct kt_session *s)
{
	int ret;

	/* From here until join_ksyms() the writer is the helper's. */
	if (s->ksyms) {
		kt_ksyms_handover(s->ksyms, s->w);
		return 0;
	}
	ret = kt_writer_kallsyms(s->w, NULL, 0);
	if (!ret)
		ret = kt_writer_printk(s->w, NULL, 0);
	if (ret)
		kt_err("cannot write '%s': %s", s->cfg->output, strerror(-ret));
	return ret;
}

/* -m: the limit is on the file; the bytes of trace data that fit. */
static unsigned long long data_limit(struct kt_session *s)
{
	unsigned long long max = s->cfg->max_mb << 20, used;
	char *cmdlines = kt_tracefs_read(NULL, "saved_cmdlines");

	/* Wait to know the header's size. */
	join_ksyms(s);
	/* What comes after the data: cmdlines, options, page padding. */
	used = kt_writer_size(s->w) + 64 * 1024 +
	       (cmdlines ? 2 * strlen(cmdlines) : 0) +
	       (unsigned long long)s->ncpus * kt_writer_page_size(s->w);
	free(cmdlines);
	if (max <= used)
		kt_warn("-m %llu is less than the file's fixed part (%llu MB: kallsyms, formats); no events will fit",
			s->cfg->max_mb, (used + (1 << 20) - 1) >> 20);
	return max > used ? max - used : 1;
}

/* The trace clock's name, from "[local] global counter ...". */
static char *clock_name(const char *text)
{
	const char *b = text ? strchr(text, '[') : NULL;
	const char *e = b ? strchr(b, ']') : NULL;

	if (!b || !e)
		return strdup("local");
	return strndup(b + 1, e - b - 1);
}

/* What --recover needs that the pieces do not say. */
static int write_meta(struct kt_session *s)
{
	char *clk = clock_name(s->clock);
	int ret;

	if (!clk)
		return -ENOMEM;
	ret = kt_recover_meta_write(kt_writer_tmp_name(s->w), s->ncpus,
				    s->clock, clk);
	free(clk);
	return ret;
}

/* Every source's counters as tracing starts or after it stopped. */
static int collect(struct kt_session *s, struct kt_cpu_stats *st,
		   enum kt_source_phase phase)
{
	size_t i;
	int ret;

	for (i = 0; i < NSOURCES; i++) {
		struct source *src = &s->src[i];

		if (!src->state || !src->ops->collect)
			continue;
		ret = src->ops->collect(src->state, st, phase);
		if (ret)
			return ret;
	}
	return 0;
}

static int prepare_sources(struct kt_session *s)
{
	size_t i;
	int ret;

	s->env.cfg = s->cfg;
	s->env.t = s->t;
	s->env.ncpus = s->ncpus;
	s->env.child = kt_run_child_pid(s->run);
	s->env.prefix = kt_writer_tmp_name(s->w);
	s->env.tmpdir = s->tmpdir;
	s->env.st_end = s->st1;
	for (i = 0; i < NSOURCES; i++) {
		s->src[i].ops = sources[i];
		if (!sources[i]->prepare)
			continue;
		ret = sources[i]->prepare(&s->env, &s->src[i].state);
		if (ret)
			return ret;
	}
	return 0;
}

static int start_sources(struct kt_session *s)
{
	size_t i;
	int ret;

	for (i = 0; i < NSOURCES; i++) {
		struct source *src = &s->src[i];

		if (!src->state || !src->ops->start)
			continue;
		ret = src->ops->start(src->state);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The instance's clock now, as a record's timestamp: cpu0's "now ts"
 * (seconds.microseconds for the clocks that keep nanoseconds, a count
 * for the counting ones).  0 when it cannot be read: maps then hold
 * from the start.
 */
static unsigned long long trace_now(struct kt_session *s)
{
	char *text = kt_tracefs_read(kt_tracing_inst(s->t), "per_cpu/cpu0/stats");
	unsigned long long sec = 0, usec = 0, now = 0;
	const char *at = text ? strstr(text, "now ts:") : NULL;

	if (at && sscanf(at, "now ts: %llu.%llu", &sec, &usec) == 2)
		now = sec * 1000000000ULL + usec * 1000ULL;
	else if (at)
		now = sec;	/* a count: "now ts: 123456" */
	free(text);
	return now;
}

/*
 * The trace clock against realtime now: of a few (realtime, trace clock,
 * realtime) reads, the one of the tightest window.  Only for the clocks
 * that keep ns; the counting ones (counter, x86-tsc, uptime's jiffies)
 * have no wall-clock time.
 */
static void measure_wall(struct kt_session *s, struct kt_wallpoint *p)
{
	static const char *const ns_clocks[] = {
		"local", "global", "perf", "mono", "mono_raw", "boot", "tai",
	};
	struct timespec a, b;
	unsigned long long now, window;
	char *clk = clock_name(s->clock);
	size_t i;
	int k;

	for (i = 0; clk && i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(clk, ns_clocks[i]))
			break;
	if (!clk || i == sizeof(ns_clocks) / sizeof(ns_clocks[0])) {
		free(clk);
		return;
	}
	free(clk);
	for (k = 0; k < 5; k++) {
		clock_gettime(CLOCK_REALTIME, &a);
		now = trace_now(s);
		clock_gettime(CLOCK_REALTIME, &b);
		window = (unsigned long long)((b.tv_sec - a.tv_sec) * 1000000000LL +
					      (b.tv_nsec - a.tv_nsec));
		if (!now || (p->known && window >= p->window))
			continue;
		p->known = true;
		p->trace = now;
		p->window = window;
		p->real = a.tv_sec * 1000000000LL + a.tv_nsec + (long long)(window / 2);
	}
}

/* This boot's id, which tells a reboot between two recordings apart. */
static void read_boot_id(struct kt_wallclock *w)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (!f)
		return;
	if (!fgets(w->boot_id, sizeof(w->boot_id), f))
		w->boot_id[0] = '\0';
	w->boot_id[strcspn(w->boot_id, "\n")] = '\0';
	fclose(f);
}

static void child_stop_maps(pid_t pid, bool exec, void *priv)
{
	struct kt_session *s = priv;

	/*
	 * At an exec the new program is loaded but has not run: its records
	 * come after now.  Its libraries are mapped later: the maps are
	 * read at the exit.  On failure its stacks stay unnamed; the
	 * recording goes on.
	 */
	if ((exec ? kt_procmaps_exec(s->maps, pid, trace_now(s)) :
		    kt_procmaps_read(s->maps, pid)) == -ENOMEM)
		kt_warn("cannot keep the memory maps of pid %d: %s", (int)pid,
			strerror(ENOMEM));
}

/*
 * --user-stack: the maps report names user frames by.  COMMAND's and
 * those of the processes it forks are read as each exits (traced for
 * their exec and exit stops: the libraries are all mapped then, and a
 * short process is gone before any poll would see it), valid from its
 * last exec on; the others' at the end, for those still alive.
 */
static int watch_maps(struct kt_session *s)
{
	int ret;

	if (!s->cfg->t->ustacks)
		return 0;
	s->maps = kt_procmaps_new();
	if (!s->maps)
		return -ENOMEM;
	if (!kt_run_child_pid(s->run))
		return 0;
	ret = kt_run_child_watch(s->run, child_stop_maps, s);
	if (ret)
		kt_warn("cannot watch '%s' exit for its memory maps (%s): its user stacks will show addresses only",
			s->cfg->t->cmd[0], strerror(-ret));
	return 0;
}

int kt_session_start(struct kt_session *s)
{
	const struct kt_session_config *o = s->cfg;
	int ret;

	s->ncpus = kt_cpu_count();
	if (s->ncpus <= 0) {
		kt_err("cannot count CPUs in tracefs: %s", strerror(-s->ncpus));
		return s->ncpus ? s->ncpus : -ENODEV;
	}
	s->st0 = calloc(s->ncpus, sizeof(*s->st0));
	s->st1 = calloc(s->ncpus, sizeof(*s->st1));
	s->cut = calloc(s->ncpus, sizeof(*s->cut));
	if (!s->st0 || !s->st1 || !s->cut)
		return -ENOMEM;
	ret = open_output(s);
	if (!ret)
		ret = kt_tracing_instance(s->t, WAKE_PERCENT);
	if (ret)
		return ret;
	ret = kt_formats_write(s->w, NULL, kt_tracing_events(s->t));
	if (ret) {
		kt_err("cannot write '%s': %s", o->output, strerror(-ret));
		return ret;
	}
	ret = write_ksyms(s);
	if (ret)
		return ret;
	if (o->t->cmd) {
		ret = kt_run_child_new(s->run, o->t->cmd);
		if (ret) {
			kt_err("cannot start '%s': %s", o->t->cmd[0], strerror(-ret));
			return ret;
		}
	}
	ret = watch_maps(s);
	if (ret)
		return ret;
	if (o->max_mb)
		s->env.limit = data_limit(s);
	/*
	 * --process follows the tree of the command or -p, unless -F asks
	 * for the command alone; without either it takes every process.
	 */
	kt_tracing_set_process(s->t, o->comm, o->process && !o->t->only_cmd &&
			       (kt_run_child_pid(s->run) || o->t->npids));
	ret = kt_tracing_arm(s->t, kt_run_child_pid(s->run));
	if (!ret)
		ret = prepare_sources(s);
	if (ret)
		return ret;
	if (kt_tracing_place(s->t) && !o->quiet)
		kt_info("%s", kt_tracing_place(s->t));
	s->clock = kt_tracefs_read(kt_tracing_inst(s->t), "trace_clock");
	ret = write_meta(s);
	if (ret) {
		kt_err("cannot write beside '%s': %s", o->output, strerror(-ret));
		return ret;
	}
	ret = collect(s, s->st0, KT_SOURCE_BEGIN);
	if (ret) {
		kt_err("cannot start tracing: %s", strerror(-ret));
		return ret;
	}
	ret = start_sources(s);
	if (ret)
		return ret;
	ret = kt_tracefs_write(kt_tracing_inst(s->t), "tracing_on", "1");
	if (ret) {
		kt_err("cannot start tracing: %s", strerror(-ret));
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	read_boot_id(&s->wall);
	measure_wall(s, &s->wall.start);
	if (kt_run_child_pid(s->run)) {
		ret = kt_run_child_release(s->run);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t->cmd[0], strerror(-ret));
			return ret;
		}
	}
	/* The threads alive now, some gone by the end (see add_tgids()). */
	s->tgids = kt_tgids_new();
	return s->tgids ? kt_tgids_scan(s->tgids) : -ENOMEM;
}

/* ---- running ---- */

/* The run loop's own reasons to stop: KT_RUN_HOOK + a KT_STOP_*. */
static int run_before(void *arg, int *timeout_ms)
{
	struct kt_session *s = arg;
	double left;

	*timeout_ms = s->cfg->progress ? 1000 : -1;
	if (s->cfg->seconds > 0) {
		left = s->cfg->seconds - now_since(&s->t0);
		if (left <= 0)
			return KT_RUN_HOOK + KT_STOP_TIME;
		if (*timeout_ms < 0 || left * 1000 < *timeout_ms)
			*timeout_ms = (int)(left * 1000) + 1;
	}
	return 0;
}

static void progress(struct kt_session *s)
{
	struct kt_session_progress p = { .seconds = now_since(&s->t0) };
	size_t i;

	for (i = 0; i < NSOURCES; i++)
		if (s->src[i].state && s->src[i].ops->progress)
			s->src[i].ops->progress(s->src[i].state, s->st0, &p);
	s->cfg->progress(s->cfg->arg, &p);
}

/* A source that stopped by itself (-m, a full disk); else the status line. */
static int run_woke(void *arg, const struct pollfd *fds)
{
	struct kt_session *s = arg;
	size_t i;

	for (i = 0; i < NSOURCES; i++)
		if (fds[i].fd >= 0 && (fds[i].revents & POLLIN))
			return KT_RUN_HOOK + s->src[i].ops->woke(s->src[i].state);
	if (s->cfg->progress)
		progress(s);
	return 0;
}

enum kt_session_stop kt_session_run(struct kt_session *s)
{
	struct pollfd fds[NSOURCES];
	struct kt_run_hooks hooks = {
		.fds = fds, .nfds = NSOURCES, .before = run_before,
		.woke = run_woke, .arg = s,
	};
	size_t i;
	int why;

	for (i = 0; i < NSOURCES; i++) {
		struct source *src = &s->src[i];

		fds[i].fd = src->state && src->ops->wake_fd && src->ops->woke ?
			    src->ops->wake_fd(src->state) : -1;
		fds[i].events = POLLIN;
	}
	why = kt_run_loop(s->run, &hooks);
	if (why < 0)
		s->why = KT_STOP_ERROR;
	else if (why == KT_RUN_CHILD_EXITED)
		s->why = KT_STOP_CHILD;
	else if (why == KT_RUN_SIGNALLED)
		s->why = KT_STOP_SIGNAL;
	else
		s->why = why - KT_RUN_HOOK;
	return s->why;
}

/* ---- the end ---- */

/* The maps of COMMAND (read at its exit) and of those alive now. */
static int add_maps(struct kt_session *s)
{
	const char *text;
	size_t len;
	int ret = kt_procmaps_read_alive(s->maps);

	if (ret)
		return ret;
	text = kt_procmaps_text(s->maps, &len);
	return len ? kt_writer_add_option(s->w, KT_OPT_KTRACE_MAPS, text, len + 1) : 0;
}

/*
 * Which process each thread is of: the threads alive at the start and
 * now, and those the kernel saw (saved_tgids; kt_tracing_instance() sets
 * the instance's record-tgid where the kernel has it there).
 */
static int add_tgids(struct kt_session *s)
{
	const char *text;
	size_t len;
	int ret;

	if (!s->tgids)
		return 0;
	ret = kt_tgids_scan(s->tgids);
	if (ret)
		return ret;
	/* Stored even empty: "every task is its own process" is an answer. */
	text = kt_tgids_text(s->tgids, &len);
	return kt_writer_add_option(s->w, KT_OPT_KTRACE_TGIDS, text, len + 1);
}

static int add_options(struct kt_session *s)
{
	struct utsname u;
	char *str = NULL;
	uint64_t id = 0;
	size_t i;
	int ret = 0;

	if (s->clock)
		ret = kt_writer_add_option_str(s->w, KT_OPT_TRACECLOCK, s->clock);
	if (!ret && uname(&u) == 0) {
		if (asprintf(&str, "%s %s %s %s", u.sysname, u.nodename,
			     u.release, u.machine) < 0)
			return -ENOMEM;
		ret = kt_writer_add_option_str(s->w, KT_OPT_UNAME, str);
		free(str);
	}
	if (!ret)
		ret = kt_writer_add_option_str(s->w, KT_OPT_VERSION, s->cfg->version);
	if (!ret && getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id))
		ret = kt_writer_add_option(s->w, KT_OPT_TRACEID, &id, sizeof(id));
	if (!ret && s->cfg->cmdline)
		ret = kt_writer_add_option_str(s->w, KT_OPT_KTRACE_CMDLINE, s->cfg->cmdline);
	if (!ret && kt_wallclock_known(&s->wall)) {
		char text[256];
		size_t len = kt_wallclock_format(&s->wall, text, sizeof(text));

		ret = kt_writer_add_option(s->w, KT_OPT_KTRACE_CLOCK, text, len + 1);
	}
	if (!ret && s->maps)
		ret = add_maps(s);
	if (!ret)
		ret = add_tgids(s);
	for (i = 0; !ret && i < NSOURCES; i++)
		if (s->src[i].state && s->src[i].ops->options)
			ret = s->src[i].ops->options(s->src[i].state, s->w);
	return ret;
}

/*
 * A full disk cut the file: say how much of each CPU's data is missing,
 * in bytes and in events (counted from the pages that did not fit), so
 * the loss is never only a size.
 */
static void report_cut(struct kt_session *s, const struct kt_writer_cpu *had,
		       const struct kt_writer_cpu *kept)
{
	unsigned long long events = 0, all = 0, lost = 0;
	bool unknown = false;
	char a[32], b[32];
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		all += kept[cpu].size;
		lost += had[cpu].size - kept[cpu].size;
		events += kept[cpu].cut_events;
		unknown |= kept[cpu].cut_unknown;
		s->cut[cpu] = kept[cpu].cut_events;
	}
	kt_human_bytes(all, a, sizeof(a));
	kt_human_bytes(lost, b, sizeof(b));
	kt_err("disk full writing '%s': kept %s of trace data, the newest %s (%s%llu events) did not fit; free space or use -o elsewhere",
	       s->cfg->output, a, b, unknown ? "at least " : "", events);
	for (cpu = 0; !s->cfg->quiet && cpu < s->ncpus; cpu++)
		if (had[cpu].size > kept[cpu].size)
			kt_info("  CPU %d: %llu events (%llu bytes) did not fit",
				cpu, kept[cpu].cut_events,
				had[cpu].size - kept[cpu].size);
}

/* Each CPU's pages: every source's, in order. */
static int cpu_data(struct kt_session *s, int cpu, struct kt_writer_cpu *c)
{
	size_t i;
	int ret;

	c->fd = -1;
	for (i = 0; i < NSOURCES; i++) {
		if (!s->src[i].state || !s->src[i].ops->data)
			continue;
		ret = s->src[i].ops->data(s->src[i].state, cpu, &c->fd, &c->size);
		if (ret)
			return ret;
	}
	return 0;
}

/* saved_cmdlines, as each source adds to it. */
static char *cmdlines(struct kt_session *s)
{
	char *text = kt_tracefs_read(NULL, "saved_cmdlines");
	size_t i;

	for (i = 0; i < NSOURCES; i++)
		if (s->src[i].state && s->src[i].ops->cmdlines)
			text = s->src[i].ops->cmdlines(s->src[i].state, text);
	return text;
}

static int write_file(struct kt_session *s)
{
	struct kt_writer_tail tail;
	struct kt_writer_cpu *cpus;
	char *cmdl, *clk;
	int cpu, ret;

	join_ksyms(s);
	if (s->ksyms_err == -ENOSPC)
		kt_warn("kallsyms left out of '%s': %s; kernel addresses will not be named",
			s->cfg->output, strerror(-s->ksyms_err));
	else if (s->ksyms_err)
		return s->ksyms_err;
	ret = add_options(s);
	if (ret)
		return ret;
	/* [0, ncpus): what each CPU's pieces hold, [ncpus, 2 ncpus): kept. */
	cpus = calloc(2 * (size_t)s->ncpus, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		ret = cpu_data(s, cpu, &cpus[cpu]);
		if (ret) {
			free(cpus);
			return ret;
		}
		cpus[s->ncpus + cpu] = cpus[cpu];
	}
	cmdl = cmdlines(s);
	clk = clock_name(s->clock);
	tail.cmdlines = cmdl ? cmdl : "";
	tail.cmdlines_len = cmdl ? strlen(cmdl) : 0;
	tail.clock = clk;
	ret = kt_writer_finish(s->w, &tail, s->ncpus, cpus + s->ncpus);
	free(clk);
	free(cmdl);
	if (ret == 1)
		report_cut(s, cpus, cpus + s->ncpus);
	free(cpus);
	if (ret < 0)
		return ret;
	cpu = kt_writer_commit(s->w);	/* 0 or -errno */
	return cpu ? cpu : ret;
}

int kt_session_finish(struct kt_session *s)
{
	const struct kt_session_config *o = s->cfg;
	bool failed = false;
	size_t i;
	int ret;

	measure_wall(s, &s->wall.end);
	/* Stop: nothing new in the buffers, then take what is there. */
	kt_tracefs_write(kt_tracing_inst(s->t), "tracing_on", "0");
	s->elapsed = now_since(&s->t0);
	for (i = NSOURCES; i-- > 0;)
		if (s->src[i].state && s->src[i].ops->stop &&
		    s->src[i].ops->stop(s->src[i].state))
			failed = true;
	ret = collect(s, s->st1, s->why == KT_STOP_ERROR ? KT_SOURCE_END_ERROR :
							  KT_SOURCE_END);
	if (ret) {
		kt_err("cannot read the buffer statistics: %s", strerror(-ret));
		return ret;
	}
	if (s->why == KT_STOP_SIZE && !o->quiet)
		kt_info("stopped: '%s' reached the -m limit of %llu MB",
			o->output, o->max_mb);
	/* The instance is no longer needed: remove it while we write. */
	if (pthread_create(&s->remover, NULL, remover_main, s) == 0)
		s->remover_running = true;
	ret = write_file(s);
	if (ret < 0) {
		kt_err("cannot write '%s': %s", o->output, strerror(-ret));
		return ret;
	}
	join_remover(s);
	return failed || ret == 1;
}

void kt_session_retire(struct kt_session *s)
{
	join_remover(s);
	/*
	 * A command still running (after -s, -m or a full disk) may hold a
	 * file of the instance open, its trace_marker say: then the removal
	 * had to wait for the command's end.
	 */
	if (s->remove_err == -EBUSY && !kt_run_child_running(s->run))
		s->remove_err = kt_tracing_remove_again(s->t);
	if (s->remove_err)
		kt_warn("cannot remove tracefs instance '%s': %s; remove it with 'ktrace reset'",
			kt_tracing_name(s->t), strerror(-s->remove_err));
}

void kt_session_free(struct kt_session *s)
{
	size_t i;

	if (!s)
		return;
	/* A signal ended it, not COMMAND: COMMAND gets the signal too. */
	if (s->why == KT_STOP_SIGNAL && s->run)
		kt_run_child_kill(s->run, kt_run_stop_signal(s->run));
	join_ksyms(s);
	join_remover(s);
	for (i = NSOURCES; i-- > 0;)
		if (s->src[i].ops && s->src[i].ops->restore)
			s->src[i].ops->restore(s->src[i].state);
	if (s->run)
		kt_run_child_free(s->run);
	kt_tracing_free(s->t);
	/* The pieces of a recording that ended, even badly, are gone. */
	if (s->w)
		kt_recover_meta_remove(kt_writer_tmp_name(s->w));
	kt_writer_close(s->w);
	free(s->st0);
	free(s->st1);
	free(s->cut);
	free(s->clock);
	free(s->specs);
	free(s->tmpdir);
	kt_run_free(s->run);
	kt_procmaps_free(s->maps);
	kt_tgids_free(s->tgids);
	free(s);
}

/* ---- what the command reports ---- */

struct kt_run *kt_session_runner(const struct kt_session *s)
{
	return s->run;
}

enum kt_session_stop kt_session_stopped(const struct kt_session *s)
{
	return s->why;
}

int kt_session_ncpus(const struct kt_session *s)
{
	return s->ncpus;
}

void kt_session_cpu(const struct kt_session *s, int cpu,
		    struct kt_session_cpu *out)
{
	const struct kt_cpu_stats *a = &s->st0[cpu], *b = &s->st1[cpu];
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < NSOURCES; i++) {
		const struct source *src = &s->src[i];

		if (!src->state)
			continue;
		if (src->ops->bytes)
			out->bytes += src->ops->bytes(src->state, cpu);
		if (src->ops->unwritten)
			out->unwritten += src->ops->unwritten(src->state, cpu);
	}
	out->unwritten += s->cut[cpu];
	/* What reached the pieces: read, less those refused. */
	out->events = kt_stat_delta(kt_stat_delta(b->read, a->read), out->unwritten);
	out->overrun = kt_stat_delta(b->overrun, a->overrun);
	out->commit_overrun = kt_stat_delta(b->commit_overrun, a->commit_overrun);
	out->dropped = kt_stat_delta(b->dropped, a->dropped);
	out->left = b->entries;
}

unsigned long long kt_session_file_size(const struct kt_session *s)
{
	return kt_writer_size(s->w);
}

double kt_session_elapsed(const struct kt_session *s)
{
	return s->elapsed;
}
