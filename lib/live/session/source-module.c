// SPDX-License-Identifier: GPL-2.0
/*
 * The ktrace.ko source of a recording (source.h): when a ktrace: event
 * is recorded, ktrace.ko is checked free, its switches saved, its
 * buffers emptied and sized (-b), its pid filter or process tracer set
 * (-F/-c/-p, --process), its readers started; at the end its pages are
 * merged into each CPU's, its counts added to the instance's, and
 * everything put back as it was.  ktrace top's counter claims, empties,
 * starts and stops it through the same hooks (env->counter).  While it
 * records, a rotation cuts its pages at one trace-clock time and a
 * snapshot takes them read only, both merged with ftrace's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "file/writer.h"
#include "live/events/evhome.h"
#include "live/events/evstate.h"
#include "live/buffers/livebuf.h"
#include "live/module/module.h"
#include "live/module/modrec.h"
#include "live/session/sink.h"
#include "live/session/source.h"
#include "live/tracefs/tracefs.h"
#include "live/session/tracing.h"

/* The kernel keeps this many characters of a process name. */
#define COMM_MAX	15

/* ktrace.ko's process tracer controls record --process sets, in order. */
static const char *const proc_ctl[] = {
	KTRACE_FILE_PROCESS_LIFECYCLE,
	KTRACE_FILE_PROCESS_SYSCALLS,
	KTRACE_FILE_PROCESS_SIGNALS,
	KTRACE_FILE_PROCESS_UID_FILTER,
	KTRACE_FILE_PROCESS_COMM_FILTER,
	KTRACE_FILE_PROCESS_FOLLOW_PID,
};
#define NPROC_CTL	(sizeof(proc_ctl) / sizeof(proc_ctl[0]))
/* Its events: fork, exec, exit, signal, syscall entry and exit. */
#define NPROC_EVENTS	6

struct modsrc {
	const struct kt_source_env *e;
	size_t nmod;			/* module events in the session's */
	struct kt_event_state **mod_saved;
	bool started;
	struct kt_modrec *mrec;
	char *proc_saved[NPROC_CTL];	/* the controls as found, to put back */
	char *buf_saved;		/* -b: buffer_size_kb as found */
	unsigned long long cut;		/* a rotation's: its chunk ends here */
};

/* The pids -F/-c/-p name, for ktrace.ko's pid filter. */
static int module_pids(struct modsrc *s, bool fork)
{
	const struct kt_trace_opts *o = s->e->cfg->t;
	pid_t *pids;
	size_t n = 0, i;
	int ret;

	if (!o->only_cmd && !o->children && !o->npids && !s->e->mod_process)
		return 0;
	pids = calloc(o->npids + 1, sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	if (s->e->child)
		pids[n++] = s->e->child;
	for (i = 0; i < o->npids; i++)
		pids[n++] = o->pids[i];
	ret = kt_module_set_pids(pids, n, fork);
	free(pids);
	if (ret == -EOPNOTSUPP)
		kt_err("this ktrace.ko has no pid filter ('%s' in %s), so -F, -c and -p cannot limit its events; load a newer ktrace.ko or drop them",
		       KTRACE_FILE_SET_PID, kt_module_dir());
	else if (ret)
		kt_err("cannot limit ktrace.ko to the traced pids: %s", strerror(-ret));
	return ret;
}

/*
 * record --process on ktrace.ko: its controls as asked, the old values
 * kept for module_restore().  The tree of COMMAND or -p PID is followed
 * (process_follow_pid takes its existing descendants too); -F, or
 * several roots, go through the pid set (children from now on).
 */
static int module_process_setup(struct modsrc *s)
{
	const struct kt_session_config *o = s->e->cfg;
	const char *val[NPROC_CTL];
	char uid[24], comm[COMM_MAX + 2], root[24];
	size_t i, nroots = (s->e->child ? 1 : 0) + o->t->npids;
	int ret;

	for (i = 0; i < NPROC_CTL; i++) {
		s->proc_saved[i] = kt_module_read(proc_ctl[i]);
		if (!s->proc_saved[i]) {
			ret = errno ? -errno : -EIO;
			kt_err("cannot read ktrace.ko's '%s': %s", proc_ctl[i],
			       strerror(-ret));
			return ret;
		}
	}
	snprintf(uid, sizeof(uid), "%s", o->uid ? o->uid : "-1");
	/* A newline: an empty write() leaves the filter as it was. */
	snprintf(comm, sizeof(comm), "%s\n", o->comm);
	snprintf(root, sizeof(root), "%d", nroots != 1 || o->t->only_cmd ? 0 :
		 s->e->child ? (int)s->e->child : (int)o->t->pids[0]);
	val[0] = o->no_lifecycle ? "0" : "1";
	val[1] = o->no_syscalls ? "0" : "1";
	val[2] = o->no_signals ? "0" : "1";
	val[3] = uid;
	val[4] = comm;
	val[5] = root;
	for (i = 0; i < NPROC_CTL; i++) {
		ret = kt_module_write(proc_ctl[i], val[i]);
		if (ret) {
			kt_err("cannot write '%.*s' to ktrace.ko's '%s': %s",
			       (int)strcspn(val[i], "\n"), val[i], proc_ctl[i],
			       ret == -ESRCH ? "no such process" : strerror(-ret));
			return ret;
		}
	}
	if (nroots > 1 || (nroots && o->t->only_cmd))
		return module_pids(s, !o->t->only_cmd);
	return 0;
}

/* -b sizes ktrace.ko's buffers too (per CPU, while it is stopped). */
static int module_buffer_size(struct modsrc *s)
{
	char kb[32];
	int ret;

	if (!s->e->cfg->t->buffer_kb)
		return 0;
	s->buf_saved = kt_module_read(KTRACE_FILE_BUFFER_SIZE_KB);
	if (!s->buf_saved) {
		ret = errno ? -errno : -EIO;
		kt_err("cannot read ktrace.ko's '%s': %s", KTRACE_FILE_BUFFER_SIZE_KB,
		       strerror(-ret));
		return ret;
	}
	snprintf(kb, sizeof(kb), "%lu", s->e->cfg->t->buffer_kb);
	ret = kt_module_write(KTRACE_FILE_BUFFER_SIZE_KB, kb);
	if (ret)
		kt_err("cannot give ktrace.ko a %lu KB buffer: %s; try a smaller -b",
		       s->e->cfg->t->buffer_kb, strerror(-ret));
	return ret;
}

/*
 * Check ktrace.ko is free, save its events' switches, empty its buffers,
 * set its pid filter, open its readers and select the events.  The
 * ftrace instance goes on the module's clock (trace_clock_local), so
 * both kinds of records sort together.
 */
static int module_prepare(struct modsrc *s)
{
	const struct kt_event_list *events = kt_tracing_events(s->e->t);
	size_t i, j, n = kt_event_list_count(events);
	int ret, ncpus;

	ncpus = kt_module_claim(s->e->ncpus);
	if (ncpus < 0)
		return -EINVAL;
	/* top's counter: emptied, nothing else of it changed. */
	if (s->e->counter) {
		ret = kt_module_write(KTRACE_FILE_RESET, "1");
		if (ret)
			kt_err("cannot start ktrace.ko: %s", strerror(-ret));
		return ret;
	}
	s->mod_saved = calloc(s->nmod, sizeof(*s->mod_saved));
	if (!s->mod_saved)
		return -EINVAL;
	for (i = 0, j = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!kt_is_module_event(r))
			continue;
		s->mod_saved[j] = kt_event_state_save(NULL, r->system, r->name);
		if (!s->mod_saved[j++]) {
			kt_err("cannot read the switch of '%s:%s': %s",
			       r->system, r->name, strerror(errno));
			return -EINVAL;
		}
	}
	ret = kt_tracefs_write(kt_tracing_inst(s->e->t), "trace_clock", "local");
	if (!ret)
		ret = kt_module_write(KTRACE_FILE_RESET, "1");
	if (ret) {
		kt_err("cannot prepare ktrace.ko and the ftrace clock: %s", strerror(-ret));
		return -EINVAL;
	}
	if (module_buffer_size(s))
		return -EINVAL;
	if (s->e->mod_process ? module_process_setup(s) :
			     module_pids(s, s->e->cfg->t->children))
		return -EINVAL;
	/* A live sink (stream) reads traceN itself. */
	s->mrec = s->e->live ? NULL : kt_modrec_new(ncpus, s->e->tmpdir,
						     s->e->read_flags & KT_LIVEBUF_NO_MMAP);
	if (!s->mrec && !s->e->live) {
		kt_err("cannot open ktrace.ko's buffers: %s", strerror(errno));
		return -EINVAL;
	}
	if (s->mrec && !s->e->cfg->quiet)
		kt_info("ktrace.ko's buffers are read by %s",
			kt_modrec_read_mode(s->mrec));
	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!kt_is_module_event(r))
			continue;
		ret = kt_module_event_set_enable(r->name, true);
		if (ret) {
			kt_err("cannot enable '%s:%s': %s", r->system, r->name,
			       strerror(-ret));
			return -EINVAL;
		}
	}
	return 0;
}

/* Probes on, engine running, readers waiting for pages. */
static int module_start(void *state)
{
	struct modsrc *s = state;
	int ret;

	ret = kt_module_start();
	if (!ret) {
		s->started = true;
		/* A reader started before "start" would find the engine stopped. */
		ret = s->mrec ? kt_modrec_start(s->mrec) : 0;
	}
	if (ret)
		kt_err(s->e->counter ? "cannot start ktrace.ko: %s" :
				       "cannot start tracing: %s", strerror(-ret));
	return ret;
}

/* Stop the engine; the readers take what is left and end. */
static int module_stop(void *state)
{
	struct modsrc *s = state;
	int ret;

	if (!s->started)
		return 0;
	ret = kt_module_stop();
	s->started = false;
	if (!ret && s->mrec)
		ret = kt_modrec_stop(s->mrec);
	/*
	 * top's counter only stops it: what is left is not counted.  A full
	 * disk is the output's to say; what the readers could not write
	 * stayed in the module's buffers, counted as their loss.
	 */
	if (ret == -ENOSPC && !s->e->counter)
		kt_debug("ktrace.ko's readers stopped: %s", strerror(-ret));
	else if (ret && !s->e->counter)
		kt_err("cannot read ktrace.ko's buffers to the end: %s", strerror(-ret));
	return ret;
}

/* The module's counts join the instance's: loss is loss, whoever lost it. */
static int module_collect(void *state, struct kt_cpu_stats *st,
			  enum kt_source_phase phase)
{
	struct modsrc *s = state;
	struct kt_cpu_stats m;
	int cpu;

	/* Reset in prepare: its counts are this recording's from zero. */
	if (phase == KT_SOURCE_BEGIN)
		return 0;
	/* A rotation's: only the readers' (live: the sink's, no rotation). */
	if (phase == KT_SOURCE_CUT && !s->mrec)
		return 0;
	for (cpu = 0; (s->mrec || s->e->live) && cpu < s->e->ncpus; cpu++) {
		if (kt_module_cpu_stats_read(cpu, &m))
			continue;
		st[cpu].entries += m.entries;
		st[cpu].overrun += m.overrun;
		st[cpu].commit_overrun += m.commit_overrun;
		st[cpu].dropped += m.dropped;
		st[cpu].read += m.read;
	}
	return 0;
}

/*
 * The process tracer's controls back as they were.  A followed pid of
 * before that is gone now leaves nothing followed.
 */
static void module_process_restore(struct modsrc *s)
{
	size_t i;
	int ret;

	for (i = NPROC_CTL; i-- > 0;) {
		char *v = s->proc_saved[i];

		if (!v)
			continue;
		/* The comm filter reads "\n" when empty: written back, it clears. */
		ret = kt_module_write(proc_ctl[i], *v ? v : "\n");
		if (ret && !strcmp(proc_ctl[i], KTRACE_FILE_PROCESS_FOLLOW_PID))
			ret = kt_module_write(proc_ctl[i], "0");
		if (ret)
			kt_warn("could not put ktrace.ko's '%s' back to '%.*s': %s; 'ktrace reset' clears it",
				proc_ctl[i], (int)strcspn(v, "\n"), v, strerror(-ret));
		free(s->proc_saved[i]);
		s->proc_saved[i] = NULL;
	}
}

/* Leave ktrace.ko as it was: stopped, switches back, no pid filter. */
static void module_restore(void *state)
{
	struct modsrc *s = state;
	size_t i;

	if (!s)
		return;
	kt_modrec_free(s->mrec);
	/*
	 * Not ours (claimed by another), or top's counter's, which stop()
	 * stopped (unless the session failed after start()) and whose
	 * switches the counter puts back itself.
	 */
	if (!s->mod_saved || s->e->counter) {
		if (s->started)
			kt_module_stop();
		free(s->mod_saved);
		free(s);
		return;
	}
	kt_module_stop();
	for (i = 0; i < s->nmod; i++) {
		int ret = s->mod_saved[i] ?
			  kt_event_state_restore(s->mod_saved[i]) : 0;

		/*
		 * An event of another module that was unloaded meanwhile
		 * has no switch; ktrace.ko forgot its selection when
		 * "enabled" went to 0 above.
		 */
		if (ret && ret != -ENOENT)
			kt_warn("could not switch ktrace.ko's events back; check with 'ktrace stat'");
		kt_event_state_free(s->mod_saved[i]);
	}
	free(s->mod_saved);
	s->mod_saved = NULL;
	if (!s->e->mod_process &&
	    (s->e->cfg->t->only_cmd || s->e->cfg->t->children || s->e->cfg->t->npids))
		kt_module_set_pids(NULL, 0, false);
	module_process_restore(s);
	if (s->buf_saved &&
	    kt_module_write(KTRACE_FILE_BUFFER_SIZE_KB, s->buf_saved))
		kt_warn("could not put ktrace.ko's buffer back to %.*s KB; set it in %s/%s",
			(int)strcspn(s->buf_saved, "\n"), s->buf_saved,
			kt_module_dir(), KTRACE_FILE_BUFFER_SIZE_KB);
	free(s->buf_saved);
	free(s);
}

/*
 * saved_cmdlines, after the names ktrace.ko's process records carry:
 * the first line of a pid wins when the file is read, and a task only
 * the module saw is in no saved_cmdlines at all.
 */
static char *module_cmdlines(void *state, char *saved)
{
	struct modsrc *s = state;
	char *mine, *all;
	int ids[NPROC_EVENTS], offs[NPROC_EVENTS], size;
	const struct kt_event_list *events = kt_tracing_events(s->e->t);
	size_t i, n = 0, ne = kt_event_list_count(events);

	if (!s->e->mod_process || !s->mrec)
		return saved;
	for (i = 0; i < ne && n < NPROC_EVENTS; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (kt_is_module_event(r) && !strncmp(r->name, "process_", 8) &&
		    !kt_module_event_field(r->name, "comm", &ids[n], &offs[n], &size) &&
		    size == 16)
			n++;
	}
	mine = n ? kt_modrec_comms(s->mrec, ids, offs, n) : NULL;
	if (!mine)
		return saved;
	if (asprintf(&all, "%s%s", mine, saved ? saved : "") < 0)
		all = NULL;
	free(mine);
	if (!all)
		return saved;
	free(saved);
	return all;
}

/* Takes part when a ktrace: event is recorded. */
static int module_take_part(const struct kt_source_env *env, void **state)
{
	const struct kt_event_list *events = kt_tracing_events(env->t);
	size_t i, n = kt_event_list_count(events), nmod = 0;
	struct modsrc *s;

	for (i = 0; i < n; i++)
		nmod += kt_is_module_event(kt_event_list_at(events, i));
	if (!nmod)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->e = env;
	s->nmod = nmod;
	*state = s;
	return module_prepare(s);
}

static int module_data(void *state, int cpu, int *fd, unsigned long long *size)
{
	struct modsrc *s = state;

	return s->mrec ? kt_modrec_merge(s->mrec, cpu, fd, size) : 0;
}

/*
 * Records are cut by time, not by pages read: a chunk's pages of a CPU,
 * ftrace's and ktrace.ko's merged, hold the records up to the chunk's
 * end and the next chunk's all come after, as the series reader wants
 * (lib/file/series.c).  Taken before either source is cut, from the
 * clock both record with (trace_clock local): what was written before
 * it, each source's cut reads (ftrace's partial pages, ktrace.ko's page
 * being written, closed by FLUSH); what came after is carried into the
 * next chunk.  The margin covers the clock of the CPU that tells it
 * against the other CPUs', and "now ts" is in microseconds.
 */
#define CUT_MARGIN_NS	1000000ULL

static int module_rotating(void *state)
{
	struct modsrc *s = state;
	struct kt_cpu_stats st;
	int cpu;

	if (!s->mrec)
		return 0;
	for (cpu = 0; cpu < s->e->ncpus; cpu++) {
		unsigned long long ns;

		if (kt_cpu_stats_read(kt_tracing_inst(s->e->t), cpu, &st))
			continue;
		ns = (unsigned long long)(st.now_ts * 1e6 + 0.5) * 1000ULL;
		s->cut = ns > CUT_MARGIN_NS ? ns - CUT_MARGIN_NS : 0;
		return 0;
	}
	kt_err("cannot read the trace clock to cut ktrace.ko's records into chunks");
	return -EIO;
}

/*
 * Each CPU's pages of cpus[] (what the sources before this one handed
 * out) replaced by them merged with ktrace.ko's: up to the cut and into
 * the next chunk (a rotation), or read only (snap: a snapshot).
 */
static int merge_cpus(struct modsrc *s, struct kt_writer_cpu *cpus, bool snap)
{
	unsigned long long size;
	int cpu, fd, ret = 0;

	for (cpu = 0; !ret && cpu < s->e->ncpus; cpu++) {
		fd = cpus[cpu].fd;
		size = cpus[cpu].size;
		ret = snap ? kt_modrec_flush_merge(s->mrec, cpu, &fd, &size) :
			     kt_modrec_cut_merge(s->mrec, cpu, s->cut, &fd, &size);
		if (ret || fd == cpus[cpu].fd)
			continue;
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
		cpus[cpu].fd = fd;
		cpus[cpu].off = 0;
		cpus[cpu].size = size;
	}
	return ret;
}

/* Only where its rings are mapped: a reader in read() cannot be woken. */
static int can_cut(struct modsrc *s, const char *what, const char *instead)
{
	if (kt_modrec_can_rotate(s->mrec))
		return 0;
	kt_err("%s takes ktrace.ko's events only where its rings are mapped (ktrace.ko's buffers are read by %s: an older ktrace.ko, or KTRACE_NO_MMAP); load a newer ktrace.ko or %s",
	       what, kt_modrec_read_mode(s->mrec), instead);
	return -EOPNOTSUPP;
}

static int module_rotate(void *state, const char *prefix,
			 struct kt_writer_cpu *cpus)
{
	struct modsrc *s = state;
	int ret;

	if (!s->mrec) {
		kt_err("--rotate cannot take ktrace.ko's events into a live output");
		return -EOPNOTSUPP;
	}
	if (!prefix)
		return can_cut(s, "--rotate", "record without --rotate");
	ret = kt_modrec_rotate(s->mrec);
	if (!ret)
		ret = merge_cpus(s, cpus, false);
	/* A full disk: the series says so, with its account. */
	if (ret && ret != -ENOSPC)
		kt_err("cannot cut ktrace.ko's records into the next chunk: %s",
		       strerror(-ret));
	return ret;
}

/*
 * A snapshot: every CPU's records so far, ktrace.ko's (the page being
 * written closed too) merged in time with what the sources before it
 * handed out, into new files; its readers go on into the same files,
 * so the recording's file still takes every record once.
 */
static int module_flush(void *state, struct kt_writer_cpu *cpus)
{
	struct modsrc *s = state;
	int ret;

	if (!s->mrec) {
		kt_err("a snapshot cannot take ktrace.ko's events from a live output");
		return -EOPNOTSUPP;
	}
	/* A failure here the snapshot says, with its file. */
	ret = can_cut(s, "a snapshot", "stop the recording to have them");
	if (!ret)
		ret = kt_modrec_flush(s->mrec);
	return ret ? ret : merge_cpus(s, cpus, true);
}

/* Live (no readers of its own): the live sink counts what it read. */
static unsigned long long module_bytes(void *state, int cpu)
{
	struct modsrc *s = state;

	return s->mrec ? kt_modrec_bytes(s->mrec, cpu) : 0;
}

/* A live sink's: traceN of each of ktrace.ko's CPUs. */
static int module_page_file(void *state, int i, struct kt_page_file *pf)
{
	struct modsrc *s = state;
	int n = kt_module_cpu_count(), ret;
	char rel[32];

	if (n < 0)
		return n;
	if (i >= n) {
		pf->count = n;
		return -ENOENT;
	}
	snprintf(rel, sizeof(rel), "%s%d", KTRACE_FILE_TRACE_PREFIX, i);
	snprintf(pf->name, sizeof(pf->name), "ktrace.ko's %s", rel);
	pf->cpu = i;
	ret = kt_module_path(rel, pf->path, sizeof(pf->path));
	if (ret && s->e->counter)
		kt_err("cannot start ktrace.ko: %s", strerror(-ret));
	else if (ret)
		kt_err("cannot open %s: %s", pf->name, strerror(-ret));
	return ret;
}

/* A live sink's decoder learns ktrace.ko's formats from debugfs. */
static int module_formats(void *state, struct tep_handle *tep)
{
	struct modsrc *s = state;
	const struct kt_event_list *events = kt_tracing_events(s->e->t);
	size_t i, n = kt_event_list_count(events), size;
	enum tep_errno err;
	char *text;

	for (i = 0; i < n; i++) {
		const struct kt_event_ref *r = kt_event_list_at(events, i);

		if (!kt_is_module_event(r))
			continue;
		text = kt_event_format_read(NULL, r->system, r->name, &size);
		if (!text) {
			kt_err("cannot read the format of '%s:%s': %s", r->system,
			       r->name, strerror(errno));
			return -errno;
		}
		err = tep_parse_event(tep, text, size, r->system);
		free(text);
		if (err && err != TEP_ERRNO__MEM_ALLOC_FAILED) {
			kt_err("cannot parse the format of '%s:%s'", r->system, r->name);
			return -EINVAL;
		}
		if (err)
			return -ENOMEM;
	}
	return 0;
}

const struct kt_source_ops kt_source_module = {
	.name = "ktrace.ko",
	.prepare = module_take_part,
	.start = module_start,
	.stop = module_stop,
	.collect = module_collect,
	.data = module_data,
	.rotate = module_rotate,
	.flush = module_flush,
	.rotating = module_rotating,
	.bytes = module_bytes,
	.cmdlines = module_cmdlines,
	.page_file = module_page_file,
	.formats = module_formats,
	.restore = module_restore,
};
