// SPDX-License-Identifier: GPL-2.0
/*
 * A recording: the session, its sources and its sinks (session.h,
 * source.h, sink.h).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "live/buffers/livebuf.h"
#include "live/session/process.h"
#include "live/session/registry.h"
#include "live/session/run.h"
#include "live/session/session.h"
#include "live/session/session-priv.h"
#include "live/tracefs/tracefs.h"
#include "live/session/tracing.h"

/* A taken instance's events are its sinks' (cfg->take): none of t's. */
static const struct kt_evspec no_specs[1];

/* buffer_percent of the instance when no sink says: when readers wake. */
#define WAKE_PERCENT	"10"

/* Set up and started in this order, stopped in reverse. */
static const struct kt_source_ops *const sources[KT_SESSION_SOURCES] = {
	&kt_source_ftrace,
	&kt_source_module,
};
#define NSOURCES	KT_SESSION_SOURCES

static double now_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- helper threads ---- */

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

/* Every sink's hook of a set-up step, in order. */
static int sinks_begin(struct kt_session *s, enum kt_sink_step step)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nsinks; i++) {
		if (!s->sink[i].ops->begin)
			continue;
		ret = s->sink[i].ops->begin(s->sink[i].state, s, step);
		if (ret)
			return ret;
	}
	return 0;
}

/* ktrace.ko stamps with trace_clock_local: its records sort with those. */
static int check_module_clock(struct kt_session *s)
{
	const struct kt_event_list *events = kt_tracing_events(s->t);
	size_t i, n = kt_event_list_count(events);

	if (!s->cfg->clock || !strcmp(s->cfg->clock, "local"))
		return 0;
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!kt_is_module_event(r))
			continue;
		kt_err("'%s:%s' is ktrace.ko's event, stamped with the local clock: drop --clock %s, or stream ftrace events only",
		       r->system, r->name, s->cfg->clock);
		return -EDOM;
	}
	return 0;
}

struct kt_session *kt_session_new(const struct kt_session_config *cfg)
{
	struct kt_session *s = calloc(1, sizeof(*s));
	int err = EINVAL;
	size_t n;

	if (!s) {
		for (n = 0; n < cfg->nsinks; n++)
			if (cfg->sinks[n].state)
				cfg->sinks[n].ops->free(cfg->sinks[n].state);
		errno = ENOMEM;
		return NULL;
	}
	s->cfg = cfg;
	for (n = 0; n < cfg->nsinks; n++) {
		if (!cfg->sinks[n].state) {
			err = ENOMEM;
		} else if (s->nsinks == KT_SESSION_SINKS) {
			cfg->sinks[n].ops->free(cfg->sinks[n].state);
			err = E2BIG;
		} else {
			s->sink[s->nsinks++] = cfg->sinks[n];
		}
	}
	if (s->nsinks < cfg->nsinks)
		goto err_free;
	for (n = 0; n < s->nsinks; n++)
		s->live |= s->sink[n].ops->flags & KT_SINK_LIVE;
	s->env.live = s->live;
	s->env.read_flags = kt_livebuf_env_flags();
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
	err = -sinks_begin(s, KT_SINK_NEW);
	if (err)
		goto err_free;
	if (cfg->process) {
		if (kt_process_specs(cfg, s->env.mod_process, &s->specs, &n)) {
			err = ENOMEM;
			goto err_free;
		}
		s->t = kt_tracing_new(cfg->t, s->specs, n);
	} else {
		s->t = kt_tracing_new(cfg->t, cfg->take ? no_specs : NULL, 0);
	}
	if (!s->t) {
		err = errno;
		goto err_free;
	}
	err = -check_module_clock(s);
	if (err)
		goto err_free;
	return s;

err_free:
	kt_session_free(s);
	errno = err;
	return NULL;
}

char *kt_session_clock_name(const char *text)
{
	const char *b = text ? strchr(text, '[') : NULL;
	const char *e = b ? strchr(b, ']') : NULL;

	if (!b || !e)
		return strdup("local");
	return strndup(b + 1, e - b - 1);
}

/* Every source's counters as tracing starts or after it stopped. */
static int collect(struct kt_session *s, struct kt_cpu_stats *st,
		   enum kt_source_phase phase)
{
	size_t i;
	int ret;

	for (i = 0; i < NSOURCES; i++) {
		struct kt_session_source *src = &s->src[i];

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
	s->env.st_end = s->st1;
	s->env.counter = s->cfg->take;
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
		struct kt_session_source *src = &s->src[i];

		if (!src->state || !src->ops->start)
			continue;
		ret = src->ops->start(src->state);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * cpu0's "now ts" (seconds.microseconds for the clocks that keep
 * nanoseconds, a count for the counting ones).  0 when it cannot be read.
 */
unsigned long long kt_session_trace_now(struct kt_session *s)
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

/* The first sink's buffer_percent that says one. */
static const char *wake_percent(const struct kt_session *s)
{
	size_t i;

	for (i = 0; i < s->nsinks; i++)
		if (s->sink[i].ops->wake_percent)
			return s->sink[i].ops->wake_percent;
	return WAKE_PERCENT;
}

unsigned long long kt_session_unwritten(struct kt_session *s, int cpu)
{
	unsigned long long n = 0;
	size_t i;

	for (i = 0; i < NSOURCES; i++)
		if (s->src[i].state && s->src[i].ops->unwritten)
			n += s->src[i].ops->unwritten(s->src[i].state, cpu);
	return n;
}

int kt_session_cpu_data(struct kt_session *s, int cpu, int *fd,
			unsigned long long *size)
{
	size_t i;
	int ret;

	*fd = -1;
	*size = 0;
	for (i = 0; i < NSOURCES; i++) {
		if (!s->src[i].state || !s->src[i].ops->data)
			continue;
		ret = s->src[i].ops->data(s->src[i].state, cpu, fd, size);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether every source that rotates can write its pieces over. */
static bool recyclable(const struct kt_session *s)
{
	size_t i;

	for (i = 0; i < NSOURCES; i++)
		if (s->src[i].state && s->src[i].ops->rotate &&
		    !s->src[i].ops->recycle)
			return false;
	return true;
}

int kt_session_recycle(struct kt_session *s, const char *prefix)
{
	size_t i;
	int ret = 0;

	if (!recyclable(s))
		return -EOPNOTSUPP;
	for (i = 0; !ret && i < NSOURCES; i++)
		if (s->src[i].state && s->src[i].ops->recycle)
			ret = s->src[i].ops->recycle(s->src[i].state, prefix);
	return ret;
}

int kt_session_piece_size(struct kt_session *s, int cpu,
			   unsigned long long *size)
{
	int fd;

	/* Such sources' data is their piece as it is (no merge). */
	if (!recyclable(s))
		return -EOPNOTSUPP;
	return kt_session_cpu_data(s, cpu, &fd, size);
}

void kt_session_counts_now(struct kt_session *s,
			   const struct kt_cpu_stats *fallback,
			   struct kt_cpu_stats *now)
{
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (kt_cpu_stats_read(kt_tracing_inst(s->t), cpu, &now[cpu]))
			now[cpu] = fallback[cpu];
	/* Loss is loss, whoever lost it: ktrace.ko's join the instance's. */
	collect(s, now, KT_SOURCE_CUT);
}

const char *kt_session_lacking(const struct kt_session *s, size_t hook)
{
	const struct kt_source_ops *ops;
	size_t i;

	for (i = 0; i < NSOURCES; i++) {
		ops = s->src[i].ops;
		if (!s->src[i].state || *(void *const *)((const char *)ops + hook))
			continue;
		return !strcmp(ops->name, "module") ? "ktrace.ko" : ops->name;
	}
	return NULL;
}

/* The first sink that takes snapshots, or NULL. */
static struct kt_sink *snapshot_sink(struct kt_session *s)
{
	size_t i;

	for (i = 0; i < s->nsinks; i++)
		if (s->sink[i].ops->snapshot && s->sink[i].state)
			return &s->sink[i];
	return NULL;
}

/* A recording that takes snapshots is found by `ktrace snapshot`. */
static void enroll(struct kt_session *s)
{
	struct kt_sink *k = snapshot_sink(s);
	int ret;

	if (!k || s->cfg->take)
		return;
	ret = kt_registry_add(s->cfg->flight ? "flight" :
			      !strcmp(k->ops->name, "series") ? "rotate" : "plain",
			      s->cfg->output);
	if (ret)
		kt_warn("cannot enter the recording in '%s' (%s): 'ktrace snapshot' will not find it; SIGUSR2 still takes a snapshot",
			kt_registry_dir(), strerror(-ret));
	else
		s->registered = true;
}

static void unenroll(struct kt_session *s)
{
	if (s->registered)
		kt_registry_remove();
	s->registered = false;
}

/* -F: a process COMMAND forked, and all it forks, left out. */
static void exclude_fork(pid_t pid, void *arg)
{
	struct kt_session *s = arg;
	int ret = kt_tracing_exclude(s->t, pid);

	if (ret && !s->exclude_err) {
		s->exclude_err = ret;
		kt_warn("cannot leave out process %d, forked by the command: %s; the file has its events",
			(int)pid, strerror(-ret));
	}
}

/*
 * ktrace's threads, the recorders started, left out of an instance of
 * its own.  A taken instance (ktrace top's, -B's) is another's to set.
 * A kernel without the file records them, as before: said, not fatal.
 */
static void exclude_self(struct kt_session *s)
{
	const char *file;
	int ret;

	if (s->cfg->take || s->cfg->t->trace_self)
		return;
	ret = kt_tracing_exclude_self(s->t, &file);
	if (ret)
		kt_warn("cannot leave ktrace's own threads out of the recording (%s: %s); their events are in it",
			file, strerror(-ret));
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
	ret = sinks_begin(s, KT_SINK_OPEN);
	if (!ret)
		ret = o->take ? kt_tracing_take(s->t, o->borrow) :
				kt_tracing_instance(s->t, wake_percent(s));
	if (ret)
		return ret;
	if (o->clock) {
		ret = kt_tracefs_write(kt_tracing_inst(s->t), "trace_clock", o->clock);
		if (ret) {
			kt_err("cannot set trace clock '%s': %s; see %s/trace_clock",
			       o->clock, strerror(-ret), s->tracing_dir);
			return ret;
		}
	}
	ret = sinks_begin(s, KT_SINK_INSTANCE);
	if (ret)
		return ret;
	if (o->t->cmd) {
		ret = kt_run_child_new(s->run, o->t->cmd);
		if (ret) {
			kt_err("cannot start '%s': %s", o->t->cmd[0], strerror(-ret));
			return ret;
		}
	}
	ret = sinks_begin(s, KT_SINK_CHILD);
	if (ret)
		return ret;
	/*
	 * --process follows the tree of the command or -p, unless -F asks
	 * for the command alone; without either it takes every process.
	 */
	kt_tracing_set_process(s->t, o->comm, o->process && !o->t->only_cmd &&
			       (kt_run_child_pid(s->run) || o->t->npids));
	/* A taken instance's sinks switch its events themselves. */
	ret = o->take ? 0 : kt_tracing_arm(s->t, kt_run_child_pid(s->run));
	if (!ret && kt_tracing_excludes(s->t))
		ret = kt_run_child_forks(s->run, exclude_fork, s);
	if (!ret)
		ret = prepare_sources(s);
	if (ret)
		return ret;
	if (kt_tracing_place(s->t) && !o->quiet)
		kt_info("%s", kt_tracing_place(s->t));
	s->clock = kt_tracefs_read(kt_tracing_inst(s->t), "trace_clock");
	ret = sinks_begin(s, KT_SINK_ARMED);
	if (ret)
		return ret;
	ret = collect(s, s->st0, KT_SOURCE_BEGIN);
	if (ret) {
		kt_err("cannot start tracing: %s", strerror(-ret));
		return ret;
	}
	ret = start_sources(s);
	if (ret)
		return ret;
	exclude_self(s);
	ret = o->take ? 0 :
	      kt_tracefs_write(kt_tracing_inst(s->t), "tracing_on", "1");
	if (ret) {
		kt_err("cannot start tracing: %s", strerror(-ret));
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	ret = sinks_begin(s, KT_SINK_STARTED);
	if (ret)
		return ret;
	enroll(s);
	if (o->started)
		o->started(o->arg);
	if (kt_run_child_pid(s->run)) {
		ret = kt_run_child_release(s->run);
		if (ret) {
			kt_err("cannot run '%s': %s", o->t->cmd[0], strerror(-ret));
			return ret;
		}
	}
	return sinks_begin(s, KT_SINK_RELEASED);
}

/* ---- running ---- */

/* The sinks' reasons to stop: a KT_STOP_*, or an error kept. */
static int sinks_pages(struct kt_session *s, const struct pollfd *fds)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nsinks; i++) {
		if (!s->sink[i].ops->pages)
			continue;
		ret = s->sink[i].ops->pages(s->sink[i].state, fds);
		if (ret < 0) {
			if (!s->err)
				s->err = ret;
			return KT_STOP_ERROR;
		}
		if (ret)
			return ret;
		if (fds)
			fds += s->sink[i].ops->poll_fds ?
			       s->sink[i].ops->poll_fds(s->sink[i].state, NULL, 0) : 0;
	}
	return 0;
}

/* The run loop's own reasons to stop: KT_RUN_HOOK + a KT_STOP_*. */
static int run_before(void *arg, int *timeout_ms)
{
	struct kt_session *s = arg;
	double left;
	int why;

	if (s->live) {
		why = sinks_pages(s, NULL);
		if (why)
			return KT_RUN_HOOK + why;
	}
	if (!s->cfg->progress && s->cfg->seconds <= 0)
		return 0;
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

/*
 * A source that stopped by itself (-m, a full disk), a sink's files;
 * else the status line.
 */
static int run_woke(void *arg, const struct pollfd *fds)
{
	struct kt_session *s = arg;
	size_t i;
	int why;

	for (i = 0; i < NSOURCES; i++)
		if (fds[i].fd >= 0 && (fds[i].revents & POLLIN))
			return KT_RUN_HOOK + s->src[i].ops->woke(s->src[i].state);
	/* Live sinks' buffers, and a pieces sink's own files (a series' timer). */
	why = sinks_pages(s, fds + NSOURCES);
	if (why)
		return KT_RUN_HOOK + why;
	if (s->cfg->progress)
		progress(s);
	return 0;
}

/*
 * What the run loop polls: the sources' wake-ups, then the sinks' files
 * (*n of them), then room for extra more.
 */
static struct pollfd *poll_fds(struct kt_session *s, int extra, int *n)
{
	struct pollfd *fds;
	size_t i;
	int nfds = NSOURCES;

	for (i = 0; i < s->nsinks; i++)
		if (s->sink[i].ops->poll_fds)
			nfds += s->sink[i].ops->poll_fds(s->sink[i].state, NULL, 0);
	fds = calloc(nfds + extra, sizeof(*fds));
	if (!fds)
		return NULL;
	for (i = 0; i < NSOURCES; i++) {
		struct kt_session_source *src = &s->src[i];

		fds[i].fd = src->state && src->ops->wake_fd && src->ops->woke ?
			    src->ops->wake_fd(src->state) : -1;
		fds[i].events = POLLIN;
	}
	*n = NSOURCES;
	for (i = 0; i < s->nsinks; i++)
		if (s->sink[i].ops->poll_fds)
			*n += s->sink[i].ops->poll_fds(s->sink[i].state, fds + *n,
						       nfds - *n);
	return fds;
}

/* Why the run loop ended (a KT_RUN_* or -errno), as a KT_STOP_*. */
static enum kt_session_stop stopped_by(struct kt_session *s, int why)
{
	if (why < 0) {
		s->why = KT_STOP_ERROR;
		if (!s->err)
			s->err = why;
	} else if (why == KT_RUN_CHILD_EXITED) {
		s->why = KT_STOP_CHILD;
	} else if (why == KT_RUN_SIGNALLED) {
		s->why = KT_STOP_SIGNAL;
	} else {
		s->why = why - KT_RUN_HOOK;
	}
	return s->why;
}

/*
 * SIGUSR2: a snapshot, into the file `ktrace snapshot` asked for and
 * answered there, or by default and said on stderr.
 */
static void run_request(void *arg)
{
	struct kt_session *s = arg;
	struct kt_snapshot_req req = { 0 };
	struct kt_snapshot_res res;
	struct kt_sink *k = snapshot_sink(s);
	char *path = NULL, line[4400];
	int asked = s->registered ? kt_registry_take(&path, &req.last_ns) : 0;
	struct timespec now;
	int ret;

	/* The moment it was asked, for the actions (base/shot.h). */
	clock_gettime(CLOCK_REALTIME, &now);

	if (asked < 0) {
		kt_err("cannot read the snapshot request in '%s': %s",
		       kt_registry_dir(), strerror(-asked));
		return;
	}
	/* An empty path: the sink's default. */
	req.path = path && *path ? path : NULL;
	ret = k ? k->ops->snapshot(k->state, s, &req, &res) : -EOPNOTSUPP;
	if (!ret)
		snprintf(line, sizeof(line), "snapshot '%s': %.6f s, %llu events, %llu lost",
			 res.path, (res.last_ts - res.first_ts) / 1e9, res.events,
			 res.lost);
	else if (ret == -EOPNOTSUPP && kt_session_lacking(s, offsetof(struct kt_source_ops, flush)))
		snprintf(line, sizeof(line), "a snapshot does not take %s's events yet; stop the recording to have them",
			 kt_session_lacking(s, offsetof(struct kt_source_ops, flush)));
	else
		snprintf(line, sizeof(line), "cannot write '%s': %s",
			 req.path ? req.path : "the snapshot", strerror(-ret));
	if (asked)
		kt_registry_answer(!ret, line);
	else if (!ret)
		kt_info("%s", line);
	/* The external condition: its file to the actions, once answered. */
	if (!ret && s->cfg->on_shot)
		s->cfg->on_shot(s->cfg->on_shot_ctx, &(struct kt_shot){
			.path = res.path, .condition = "snapshot",
			.fire_ts = res.last_ts,
			.fire_realtime_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec,
			.first_ts = res.first_ts, .last_ts = res.last_ts,
		});
	free(path);
}

enum kt_session_stop kt_session_run(struct kt_session *s)
{
	struct kt_run_hooks hooks = {
		.before = run_before, .woke = run_woke, .request = run_request,
		.arg = s,
	};
	int why;

	hooks.fds = poll_fds(s, 0, &hooks.nfds);
	why = hooks.fds ? kt_run_loop(s->run, &hooks) : -ENOMEM;
	free(hooks.fds);
	return stopped_by(s, why);
}

int kt_session_step(struct kt_session *s, struct pollfd *fds, int nfds,
		    int timeout_ms)
{
	struct kt_run_hooks hooks = {
		.before = run_before, .woke = run_woke, .request = run_request,
		.arg = s,
	};
	int why;

	/* The session's own (as kt_session_run()'s), then the caller's. */
	if (!s->step_fds) {
		s->step_fds = poll_fds(s, nfds, &s->nstep_fds);
		if (!s->step_fds) {
			stopped_by(s, -ENOMEM);
			return -ENOMEM;
		}
	}
	memcpy(s->step_fds + s->nstep_fds, fds, nfds * sizeof(*fds));
	hooks.fds = s->step_fds;
	hooks.nfds = s->nstep_fds + nfds;
	why = kt_run_step(s->run, &hooks, timeout_ms);
	memcpy(fds, s->step_fds + s->nstep_fds, nfds * sizeof(*fds));
	if (!why)
		return KT_STOP_NONE;
	stopped_by(s, why);
	return why < 0 ? why : (int)s->why;
}

/* ---- the end ---- */

int kt_session_finish(struct kt_session *s)
{
	bool failed = false;
	size_t i;
	int ret, end = 0;

	unenroll(s);
	sinks_begin(s, KT_SINK_STOPPING);
	/* Stop: nothing new in the buffers, then take what is there. */
	if (!s->cfg->take)
		kt_tracefs_write(kt_tracing_inst(s->t), "tracing_on", "0");
	s->elapsed = now_since(&s->t0);
	for (i = NSOURCES; i-- > 0;)
		if (s->src[i].state && s->src[i].ops->stop &&
		    s->src[i].ops->stop(s->src[i].state))
			failed = true;
	/* A source that could not be read to the end ends a live output. */
	if (failed && s->live && !s->err) {
		s->err = -EIO;
		s->why = KT_STOP_ERROR;
	}
	ret = collect(s, s->st1, s->why == KT_STOP_ERROR ? KT_SOURCE_END_ERROR :
							  KT_SOURCE_END);
	if (ret) {
		kt_err("cannot read the buffer statistics: %s", strerror(-ret));
		return ret;
	}
	/* The instance is no longer needed: remove it while the sinks write. */
	if (!s->live && pthread_create(&s->remover, NULL, remover_main, s) == 0)
		s->remover_running = true;
	for (i = 0; i < s->nsinks; i++) {
		if (!s->sink[i].ops->end)
			continue;
		ret = s->sink[i].ops->end(s->sink[i].state, s);
		if (ret < 0) {
			if (!s->live)
				return ret;
			if (!s->err)
				s->err = ret;
			s->why = KT_STOP_ERROR;
		} else if (ret == KT_STOP_OUTPUT) {
			s->why = KT_STOP_OUTPUT;
		} else if (ret) {
			end = 1;
		}
	}
	join_remover(s);
	return failed || end;
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

/* The live sinks (live true) or the others. */
static void free_sinks(struct kt_session *s, bool live)
{
	size_t i;

	for (i = 0; i < s->nsinks; i++) {
		if (!(s->sink[i].ops->flags & KT_SINK_LIVE) != !live)
			continue;
		if (s->sink[i].ops->free)
			s->sink[i].ops->free(s->sink[i].state);
		s->sink[i].state = NULL;
	}
}

void kt_session_free(struct kt_session *s)
{
	size_t i;

	if (!s)
		return;
	unenroll(s);
	/* A signal ended it, not COMMAND: COMMAND gets the signal too. */
	if (s->why == KT_STOP_SIGNAL && s->run)
		kt_run_child_kill(s->run, kt_run_stop_signal(s->run));
	join_remover(s);
	/* A live sink's files of the instance are closed before it goes. */
	free_sinks(s, true);
	for (i = NSOURCES; i-- > 0;)
		if (s->src[i].ops && s->src[i].ops->restore)
			s->src[i].ops->restore(s->src[i].state);
	if (s->run)
		kt_run_child_free(s->run);
	kt_tracing_free(s->t);
	free_sinks(s, false);
	free(s->st0);
	free(s->st1);
	free(s->cut);
	free(s->clock);
	free(s->specs);
	free(s->step_fds);
	kt_run_free(s->run);
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
		const struct kt_session_source *src = &s->src[i];

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
	out->lost = out->overrun + out->commit_overrun + out->dropped;
}

int kt_session_error(const struct kt_session *s)
{
	return s->err;
}

const char *kt_session_instance(const struct kt_session *s)
{
	return kt_tracing_name(s->t);
}

struct tracefs_instance *kt_session_inst(const struct kt_session *s)
{
	return kt_tracing_inst(s->t);
}

unsigned int kt_session_read_flags(const struct kt_session *s)
{
	return s->env.read_flags;
}

const struct kt_session_config *kt_session_cfg(const struct kt_session *s)
{
	return s->cfg;
}

const struct kt_event_list *kt_session_events(const struct kt_session *s)
{
	return kt_tracing_events(s->t);
}

/* ---- what a live sink asks ---- */

int kt_session_add_event(struct kt_session *s, const char *system,
			 const char *name)
{
	return kt_tracing_add_event(s->t, system, name);
}

int kt_session_page_file(const struct kt_session *s, int i,
			 struct kt_page_file *pf)
{
	size_t k;
	int ret;

	for (k = 0; k < NSOURCES; k++) {
		const struct kt_session_source *src = &s->src[k];

		if (!src->state || !src->ops->page_file)
			continue;
		ret = src->ops->page_file(src->state, i, pf);
		if (ret >= 0)
			return ret;
		if (ret != -ENOENT)
			return ret;
		i -= pf->count;
	}
	return -ENOENT;
}

int kt_session_formats(const struct kt_session *s, struct tep_handle *tep)
{
	size_t k;
	int ret;

	for (k = 0; k < NSOURCES; k++) {
		const struct kt_session_source *src = &s->src[k];

		if (!src->state || !src->ops->formats)
			continue;
		ret = src->ops->formats(src->state, tep);
		if (ret)
			return ret;
	}
	return 0;
}

double kt_session_elapsed(const struct kt_session *s)
{
	return s->elapsed;
}
