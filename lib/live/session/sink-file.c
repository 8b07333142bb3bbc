// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat file of a session: see sink-file.h.  /proc/kallsyms is
 * copied into the file by a helper thread while the command runs, so a
 * short recording does not wait for it (ksyms.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <time.h>

#include "base/fileio.h"
#include "base/human.h"
#include "file/rawpage.h"
#include "base/log.h"
#include "file/tracedat.h"
#include "file/wallclock.h"
#include "file/writer.h"
#include "live/events/formats.h"
#include "live/session/ksyms.h"
#include "live/session/procmaps.h"
#include "live/session/recover.h"
#include "live/session/run.h"
#include "live/session/session-priv.h"
#include "live/session/sink-file.h"
#include "live/session/snappages.h"
#include "live/session/tgids.h"
#include "live/tracefs/tracefs.h"
#include "live/session/tracing.h"

struct kt_file_sink {
	struct kt_session *s;
	struct kt_writer *w;
	char *tmpdir;
	struct kt_ksyms *ksyms;
	int ksyms_err;
	struct kt_procmaps *maps;	/* --user-stack: the processes' maps */
	struct kt_tgids *tgids;		/* thread to process, for --by process */
	struct kt_wallclock wall;	/* the clock against realtime */
	/* The file's name: cfg->output, or a chunk's (kt_file_sink_set_path). */
	const char *out;
	char *path;
	/* A chunk's pages and CPUSTAT texts, given by its series (NULL: the sources'). */
	struct kt_writer_cpu *given;
	char *const *stat_text;
	/* A chunk's threads at its end: the next chunk's, read as it began (NULL: read now). */
	const struct kt_tgids *end_tgids;
	/* A trigger's snapshot: its option's text (file/trigopt.h), or NULL. */
	const char *trigger;
	/* The file's compression: NULL, the recording's (kt_file_sink_set_compression). */
	const char *codec;
	bool disk_full;			/* a full disk cut the file */
	bool no_tgids;			/* kt_file_sink_no_tgids() */
};

struct kt_file_sink *kt_file_sink_new(void)
{
	return calloc(1, sizeof(struct kt_file_sink));
}

void kt_file_sink_set_compression(struct kt_file_sink *f, const char *codec)
{
	f->codec = codec;
}

void kt_file_sink_no_tgids(struct kt_file_sink *f)
{
	f->no_tgids = true;
}

bool kt_file_sink_disk_full(const struct kt_file_sink *f)
{
	return f->disk_full;
}

unsigned long long kt_file_sink_size(const struct kt_file_sink *f)
{
	return kt_writer_size(f->w);
}

static void join_ksyms(struct kt_file_sink *f)
{
	if (f->ksyms) {
		f->ksyms_err = kt_ksyms_join(f->ksyms);
		f->ksyms = NULL;
	}
}

/* ---- set-up ---- */

/* The writer of f->out, in the recording's format. */
static int open_writer(struct kt_file_sink *f)
{
	int ret;

	f->w = kt_writer_open(f->out);
	if (!f->w) {
		ret = -errno;
		kt_err("cannot open '%s': %s; try -o in a writable directory",
		       f->out, strerror(errno));
		return ret;
	}
	ret = kt_writer_set_format(f->w, f->s->cfg->file_version ?
				   f->s->cfg->file_version : KT_DAT_VERSION_DEFAULT,
				   f->codec ? f->codec : f->s->cfg->compression);
	if (ret)
		kt_err("cannot write '%s': %s", f->out, strerror(-ret));
	return ret;
}

static int open_output(struct kt_file_sink *f)
{
	const char *out = f->out;
	char *copy, *slash;
	int ret = open_writer(f);

	if (ret)
		return ret;
	copy = strdup(out);
	if (!copy)
		return -ENOMEM;
	slash = strrchr(copy, '/');
	if (!slash) {
		free(copy);
		f->tmpdir = strdup(".");
	} else {
		if (slash == copy)
			slash[1] = '\0';
		else
			*slash = '\0';
		f->tmpdir = copy;
	}
	if (!f->tmpdir)
		return -ENOMEM;
	/* Where the sources' readers put the pieces. */
	f->s->env.prefix = kt_writer_tmp_name(f->w);
	f->s->env.tmpdir = f->tmpdir;
	return 0;
}

/* kallsyms and printk formats, by the helper thread or here. */
static int write_ksyms(struct kt_file_sink *f)
{
	int ret;

	/* From here until join_ksyms() the writer is the helper's. */
	if (f->ksyms) {
		kt_ksyms_handover(f->ksyms, f->w);
		return 0;
	}
	ret = kt_writer_kallsyms(f->w, NULL, 0);
	if (!ret)
		ret = kt_writer_printk(f->w, NULL, 0);
	if (ret)
		kt_err("cannot write '%s': %s", f->out, strerror(-ret));
	return ret;
}

/* -m: the limit is on the file; the bytes of trace data that fit. */
static unsigned long long data_limit(struct kt_file_sink *f)
{
	struct kt_session *s = f->s;
	unsigned long long max = s->cfg->max_mb << 20, used;
	char *cmdlines = kt_tracefs_read(NULL, "saved_cmdlines");

	/* Wait to know the header's size. */
	join_ksyms(f);
	/* What comes after the data: cmdlines, options, page padding. */
	used = kt_writer_size(f->w) + 64 * 1024 +
	       (cmdlines ? 2 * strlen(cmdlines) : 0) +
	       (unsigned long long)s->ncpus * kt_writer_page_size(f->w);
	free(cmdlines);
	if (max <= used)
		kt_warn("-m %llu is less than the file's fixed part (%llu MB: kallsyms, formats); no events will fit",
			s->cfg->max_mb, (used + (1 << 20) - 1) >> 20);
	return max > used ? max - used : 1;
}

/* What --recover needs that the pieces do not say. */
static int write_meta(struct kt_file_sink *f)
{
	char *clk = kt_session_clock_name(f->s->clock);
	int ret;

	if (!clk)
		return -ENOMEM;
	ret = kt_recover_meta_write(kt_writer_tmp_name(f->w), f->s->ncpus,
				    f->s->clock, clk);
	free(clk);
	return ret;
}

/*
 * The trace clock against realtime now: of a few (realtime, trace clock,
 * realtime) reads, the one of the tightest window.  Only for the clocks
 * that keep ns; the counting ones (counter, x86-tsc, uptime's jiffies)
 * have no wall-clock time.
 */
static void measure_wall(struct kt_file_sink *f, struct kt_wallpoint *p)
{
	static const char *const ns_clocks[] = {
		"local", "global", "perf", "mono", "mono_raw", "boot", "tai",
	};
	struct timespec a, b;
	unsigned long long now, window;
	char *clk = kt_session_clock_name(f->s->clock);
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
		now = kt_session_trace_now(f->s);
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
	struct kt_file_sink *f = priv;

	/*
	 * At an exec the new program is loaded but has not run: its records
	 * come after now.  Its libraries are mapped later: the maps are
	 * read at the exit.  On failure its stacks stay unnamed; the
	 * recording goes on.
	 */
	if ((exec ? kt_procmaps_exec(f->maps, pid, kt_session_trace_now(f->s)) :
		    kt_procmaps_read(f->maps, pid)) == -ENOMEM)
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
static int watch_maps(struct kt_file_sink *f)
{
	struct kt_session *s = f->s;
	int ret;

	if (!s->cfg->t->ustacks)
		return 0;
	f->maps = kt_procmaps_new();
	if (!f->maps)
		return -ENOMEM;
	if (!kt_run_child_pid(s->run))
		return 0;
	ret = kt_run_child_watch(s->run, child_stop_maps, f);
	if (ret)
		kt_warn("cannot watch '%s' exit for its memory maps (%s): its user stacks will show addresses only",
			s->cfg->t->cmd[0], strerror(-ret));
	return 0;
}

static int file_begin(void *state, struct kt_session *s, enum kt_sink_step step)
{
	struct kt_file_sink *f = state;
	int ret;

	switch (step) {
	case KT_SINK_NEW:
		f->s = s;
		f->out = f->path ? f->path : s->cfg->output;
		/* kallsyms takes tens of ms: read it while everything else happens. */
		f->ksyms = kt_ksyms_start(s->tracing_dir);
		return 0;
	case KT_SINK_OPEN:
		return open_output(f);
	case KT_SINK_INSTANCE:
		ret = kt_formats_write(f->w, NULL, kt_tracing_events(s->t));
		if (ret) {
			kt_err("cannot write '%s': %s", f->out, strerror(-ret));
			return ret;
		}
		return write_ksyms(f);
	case KT_SINK_CHILD:
		ret = watch_maps(f);
		if (!ret && s->cfg->max_mb)
			s->env.limit = data_limit(f);
		return ret;
	case KT_SINK_ARMED:
		ret = write_meta(f);
		if (ret)
			kt_err("cannot write beside '%s': %s", f->out,
			       strerror(-ret));
		return ret;
	case KT_SINK_STARTED:
		read_boot_id(&f->wall);
		measure_wall(f, &f->wall.start);
		return 0;
	case KT_SINK_RELEASED:
		if (f->no_tgids)
			return 0;
		/* The threads alive now, some gone by the end (see add_tgids()). */
		f->tgids = kt_tgids_new();
		return f->tgids ? kt_tgids_scan(f->tgids) : -ENOMEM;
	case KT_SINK_STOPPING:
		measure_wall(f, &f->wall.end);
		return 0;
	}
	return 0;
}

/* ---- the end ---- */

/* The maps of COMMAND (read at its exit) and of those alive now. */
static int add_maps(struct kt_file_sink *f)
{
	const char *text;
	size_t len;
	int ret = kt_procmaps_read_alive(f->maps);

	if (ret)
		return ret;
	text = kt_procmaps_text(f->maps, &len);
	return len ? kt_writer_add_option(f->w, KT_OPT_KTRACE_MAPS, text, len + 1) : 0;
}

/*
 * Which process each thread is of: the threads alive at the start and
 * now, and those the kernel saw (saved_tgids; kt_tracing_instance() sets
 * the instance's record-tgid where the kernel has it there).
 */
static int add_tgids(struct kt_file_sink *f)
{
	const char *text;
	size_t len;
	int ret;

	if (!f->tgids)
		return 0;
	ret = f->end_tgids ? kt_tgids_merge(f->tgids, f->end_tgids) :
			     kt_tgids_scan(f->tgids);
	if (ret)
		return ret;
	/* Stored even empty: "every task is its own process" is an answer. */
	text = kt_tgids_text(f->tgids, &len);
	return kt_writer_add_option(f->w, KT_OPT_KTRACE_TGIDS, text, len + 1);
}

static int add_options(struct kt_file_sink *f)
{
	struct kt_session *s = f->s;
	struct utsname u;
	char *str = NULL;
	uint64_t id = 0;
	size_t i;
	int ret = 0;

	if (s->clock)
		ret = kt_writer_add_option_str(f->w, KT_OPT_TRACECLOCK, s->clock);
	if (!ret && uname(&u) == 0) {
		if (asprintf(&str, "%s %s %s %s", u.sysname, u.nodename,
			     u.release, u.machine) < 0)
			return -ENOMEM;
		ret = kt_writer_add_option_str(f->w, KT_OPT_UNAME, str);
		free(str);
	}
	if (!ret)
		ret = kt_writer_add_option_str(f->w, KT_OPT_VERSION, s->cfg->version);
	if (!ret && getrandom(&id, sizeof(id), GRND_NONBLOCK) == sizeof(id))
		ret = kt_writer_add_option(f->w, KT_OPT_TRACEID, &id, sizeof(id));
	if (!ret && s->cfg->cmdline)
		ret = kt_writer_add_option_str(f->w, KT_OPT_KTRACE_CMDLINE, s->cfg->cmdline);
	if (!ret && f->trigger)
		ret = kt_writer_add_option_str(f->w, KT_OPT_KTRACE_TRIGGER, f->trigger);
	if (!ret && kt_wallclock_known(&f->wall)) {
		char text[256];
		size_t len = kt_wallclock_format(&f->wall, text, sizeof(text));

		ret = kt_writer_add_option(f->w, KT_OPT_KTRACE_CLOCK, text, len + 1);
	}
	if (!ret && f->maps)
		ret = add_maps(f);
	if (!ret)
		ret = add_tgids(f);
	/* A chunk's statistics are its own, not the recording's. */
	for (i = 0; !ret && f->stat_text && i < (size_t)s->ncpus; i++)
		ret = kt_writer_add_option_str(f->w, KT_OPT_CPUSTAT, f->stat_text[i]);
	for (i = 0; !ret && !f->stat_text && i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state && s->src[i].ops->options)
			ret = s->src[i].ops->options(s->src[i].state, f->w);
	return ret;
}

/*
 * A full disk cut the file: say how much of each CPU's data is missing,
 * in bytes and in events (counted from the pages that did not fit), so
 * the loss is never only a size.
 */
static void report_cut(struct kt_file_sink *f, const struct kt_writer_cpu *had,
		       const struct kt_writer_cpu *kept)
{
	struct kt_session *s = f->s;
	unsigned long long events = 0, all = 0, lost = 0;
	bool unknown = false;
	char a[32], b[32];
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		all += kept[cpu].size;
		lost += had[cpu].size - kept[cpu].size;
		events += kept[cpu].cut_events;
		unknown |= kept[cpu].cut_unknown;
		s->cut[cpu] += kept[cpu].cut_events;
	}
	f->disk_full = true;
	/* Counted in the recording's unwritten events: its caller says them. */
	kt_human_bytes(all, a, sizeof(a));
	kt_human_bytes(lost, b, sizeof(b));
	kt_debug("disk full writing '%s': kept %s of trace data, the newest %s (%s%llu events) did not fit",
		 f->out, a, b, unknown ? "at least " : "", events);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (had[cpu].size > kept[cpu].size)
			kt_debug("  CPU %d: %llu events (%llu bytes) did not fit",
				 cpu, kept[cpu].cut_events,
				 had[cpu].size - kept[cpu].size);
}

/* saved_cmdlines, as each source adds to it. */
static char *cmdlines(struct kt_session *s)
{
	char *text = kt_tracefs_read(NULL, "saved_cmdlines");
	size_t i;

	for (i = 0; i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state && s->src[i].ops->cmdlines)
			text = s->src[i].ops->cmdlines(s->src[i].state, text);
	return text;
}

static int write_file(struct kt_file_sink *f)
{
	struct kt_session *s = f->s;
	struct kt_writer_tail tail;
	struct kt_writer_cpu *cpus;
	char *cmdl, *clk;
	int cpu, ret;

	join_ksyms(f);
	if (f->ksyms_err == -ENOSPC) {
		f->disk_full = true;
		kt_debug("kallsyms left out of '%s': %s; kernel addresses will not be named",
			 f->out, strerror(-f->ksyms_err));
	}
	else if (f->ksyms_err)
		return f->ksyms_err;
	ret = add_options(f);
	if (ret)
		return ret;
	/* [0, ncpus): what each CPU's pieces hold, [ncpus, 2 ncpus): kept. */
	cpus = calloc(2 * (size_t)s->ncpus, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		ret = 0;
		if (f->given)
			cpus[cpu] = f->given[cpu];
		else
			ret = kt_session_cpu_data(s, cpu, &cpus[cpu].fd,
						  &cpus[cpu].size);
		if (ret) {
			free(cpus);
			return ret;
		}
		cpus[s->ncpus + cpu] = cpus[cpu];
	}
	cmdl = cmdlines(s);
	clk = kt_session_clock_name(s->clock);
	tail.cmdlines = cmdl ? cmdl : "";
	tail.cmdlines_len = cmdl ? strlen(cmdl) : 0;
	tail.clock = clk;
	ret = kt_writer_finish(f->w, &tail, s->ncpus, cpus + s->ncpus);
	free(clk);
	free(cmdl);
	if (ret == 1)
		report_cut(f, cpus, cpus + s->ncpus);
	free(cpus);
	if (ret < 0)
		return ret;
	cpu = kt_writer_commit(f->w);	/* 0 or -errno */
	return cpu ? cpu : ret;
}

int kt_file_sink_tail(struct kt_file_sink *f, struct kt_writer **w,
		      char **cmdl)
{
	int ret;

	join_ksyms(f);
	ret = add_options(f);
	if (ret)
		return ret;
	*w = f->w;
	*cmdl = cmdlines(f->s);
	return 0;
}

static int file_end(void *state, struct kt_session *s)
{
	struct kt_file_sink *f = state;
	int ret;

	if (s->why == KT_STOP_SIZE && !s->cfg->quiet)
		kt_info("stopped: '%s' reached the -m limit of %llu MB",
			f->out, s->cfg->max_mb);
	ret = write_file(f);
	if (ret < 0)
		kt_err("cannot write '%s': %s", f->out, strerror(-ret));
	return ret;
}

static void file_free(void *state)
{
	struct kt_file_sink *f = state;

	join_ksyms(f);
	/* The pieces of a recording that ended, even badly, are gone. */
	if (f->w)
		kt_recover_meta_remove(kt_writer_tmp_name(f->w));
	kt_writer_close(f->w);
	free(f->tmpdir);
	free(f->path);
	kt_procmaps_free(f->maps);
	kt_tgids_free(f->tgids);
	free(f);
}



/* ---- a chunk of a series (sink-series.c) ---- */

int kt_file_sink_set_path(struct kt_file_sink *f, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(f->path);
	f->path = p;
	f->out = p;
	return 0;
}

int kt_file_sink_head(struct kt_file_sink *f, void **buf, size_t *len)
{
	unsigned long long size;
	char *b;
	size_t n;
	int ret;

	join_ksyms(f);
	if (f->ksyms_err && f->ksyms_err != -ENOSPC)
		return f->ksyms_err;
	/* Everything up to now is the start: the options wait in memory. */
	size = kt_writer_size(f->w);
	ret = kt_file_slurp(kt_writer_tmp_name(f->w), &b, &n);
	if (ret)
		return ret;
	if (n < size) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = size;
	return 0;
}

/*
 * A file begun from head: a chunk of a series (its pieces named, its
 * clock read now) or a snapshot (snap: its sources read only, nothing
 * named beside it, the recording's clock).  NULL + errno (said).
 */
static struct kt_file_sink *from_head(const struct kt_file_sink *prev,
				      const char *path, const void *head,
				      size_t len, bool snap)
{
	struct kt_file_sink *f = kt_file_sink_new();
	int ret = -ENOMEM;

	if (!f)
		return NULL;
	f->s = prev->s;
	/* A snapshot is packed as the recording asked, its ring maybe not. */
	f->codec = snap ? NULL : prev->codec;
	if (kt_file_sink_set_path(f, path))
		goto err;
	ret = snap ? open_writer(f) : open_output(f);
	/* A full disk is the series' to say, with its account. */
	if (!ret) {
		if (snap)
			kt_writer_keep_sources(f->w);
		/* An unpacked start is packed again for a packed file. */
		ret = kt_writer_resume(f->w, head, len);
		if (ret && ret != -ENOSPC)
			kt_err("cannot write '%s': %s", f->out, strerror(-ret));
	}
	if (!ret && !snap) {
		ret = write_meta(f);
		if (ret && ret != -ENOSPC)
			kt_err("cannot write beside '%s': %s", f->out, strerror(-ret));
	}
	if (ret)
		goto err;
	if (snap) {
		f->wall = prev->wall;
	} else {
		read_boot_id(&f->wall);
		measure_wall(f, &f->wall.start);
	}
	f->no_tgids = !snap && prev->no_tgids;
	if (f->no_tgids)
		return f;
	/* A snapshot is written at once: its threads are read then, once. */
	f->tgids = kt_tgids_new();
	ret = f->tgids ? (snap ? 0 : kt_tgids_scan(f->tgids)) : -ENOMEM;
	if (ret)
		goto err;
	return f;

err:
	file_free(f);
	errno = -ret;
	return NULL;
}

struct kt_file_sink *kt_file_sink_next(const struct kt_file_sink *prev,
				       const char *path, const void *head,
				       size_t len)
{
	return from_head(prev, path, head, len, false);
}

int kt_file_sink_write_chunk(struct kt_file_sink *f, struct kt_writer_cpu *cpus,
			     char *const *stat_text,
			     const struct kt_file_sink *next)
{
	int ret;

	measure_wall(f, &f->wall.end);
	f->given = cpus;
	f->stat_text = stat_text;
	f->end_tgids = next ? next->tgids : NULL;
	ret = write_file(f);
	f->given = NULL;
	f->stat_text = NULL;
	f->end_tgids = NULL;
	/* A full disk is the series' to say, with its account. */
	if (ret < 0 && ret != -ENOSPC)
		kt_err("cannot write '%s': %s", f->out, strerror(-ret));
	return ret;
}

/* ---- a snapshot while recording ---- */


/*
 * Where the pages of [0, size) of fd whose events reach cutoff or later
 * begin: a page is left out when the next one starts before cutoff.
 */
static unsigned long long window_start(int fd, unsigned long long size,
				       int page, unsigned long long cutoff)
{
	unsigned long long at, keep = 0;
	uint64_t ts;

	for (at = page; at + page <= size; at += page) {
		if (kt_pread_all(fd, &ts, sizeof(ts), at) || ts >= cutoff)
			break;
		keep = at;
	}
	return keep;
}

/* A CPU's CPUSTAT over [base, now], what was unwritten of it added. */
char *kt_file_sink_cpustat(int cpu, const struct kt_cpu_stats *now,
			   const struct kt_cpu_stats *base,
			   unsigned long long unw)
{
	char *t;

	if (asprintf(&t, "CPU: %d\nentries: %llu\noverrun: %llu\ncommit overrun: %llu\n"
		     "bytes: %llu\noldest event ts: %.6f\nnow ts: %.6f\n"
		     "dropped events: %llu\nread events: %llu\n%s%llu\n",
		     cpu, now->entries, kt_stat_delta(now->overrun, base->overrun),
		     kt_stat_delta(now->commit_overrun, base->commit_overrun),
		     now->bytes, now->oldest_ts, now->now_ts,
		     kt_stat_delta(now->dropped, base->dropped),
		     kt_stat_delta(now->read, base->read), KT_CPUSTAT_UNWRITTEN,
		     unw) < 0)
		return NULL;
	return t;
}

/* Every source of the recording must hand out its pieces. */
static int snapshot_sources(struct kt_session *s)
{
	const char *name = kt_session_lacking(s, offsetof(struct kt_source_ops, flush));

	if (!name)
		return 0;
	kt_err("a snapshot does not take %s's events yet; stop the recording to have them",
	       name);
	return -EOPNOTSUPP;
}

/*
 * Each CPU's window of the pieces (cpus[].off, .size: the pages whose
 * events reach cutoff or later; 0, all), its events and the oldest
 * page's time into res; the CPUSTAT texts into texts.
 */
static int snapshot_window(struct kt_file_sink *f, struct kt_writer_cpu *cpus,
			   const struct kt_cpu_stats *base,
			   const unsigned long long *unw_base,
			   const struct kt_cpu_stats *prior,
			   const unsigned long long *prior_unw,
			   unsigned long long cutoff, char **texts,
			   struct kt_snapshot_res *res)
{
	struct kt_session *s = f->s;
	int page = getpagesize(), cpu;
	unsigned long long unw, n;
	struct kt_cpu_stats now, *all = calloc(s->ncpus, sizeof(*all));
	uint64_t ts;

	if (!all)
		return -ENOMEM;
	kt_session_counts_now(s, base, all);
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		struct kt_writer_cpu *c = &cpus[cpu];

		c->size -= c->size % page;
		if (cutoff && c->size) {
			c->off = window_start(c->fd, c->size, page, cutoff);
			c->size -= c->off;
		}
		n = 0;
		if (c->size && !kt_rawpage_count_file(c->fd, c->off, c->off + c->size,
						      page, &n))
			res->events += n;
		if (c->size && !kt_pread_all(c->fd, &ts, sizeof(ts), c->off) &&
		    (!res->first_ts || ts < res->first_ts))
			res->first_ts = ts;
		now = all[cpu];
		/* What the buffers hold now comes after the snapshot. */
		now.entries = 0;
		unw = kt_session_unwritten(s, cpu);
		unw = kt_stat_delta(unw, unw_base ? unw_base[cpu] : 0);
		/* A series' finished chunks in the file: their losses too. */
		if (prior) {
			now.overrun += prior[cpu].overrun;
			now.commit_overrun += prior[cpu].commit_overrun;
			now.dropped += prior[cpu].dropped;
			unw += prior_unw[cpu];
		}
		texts[cpu] = kt_file_sink_cpustat(cpu, &now, &base[cpu], unw);
		if (!texts[cpu]) {
			free(all);
			return -ENOMEM;
		}
		res->lost += kt_stat_delta(now.overrun, base[cpu].overrun) +
			     kt_stat_delta(now.commit_overrun, base[cpu].commit_overrun) +
			     kt_stat_delta(now.dropped, base[cpu].dropped) + unw;
	}
	free(all);
	if (!res->first_ts || res->first_ts > res->last_ts)
		res->first_ts = res->last_ts;
	return 0;
}

/*
 * "FILE.snapshot-DATE.dat" beside FILE (its .dat dropped), or beside DIR
 * for a series: in DIR it would be read as one of its chunks.
 */
static char *default_name(const char *out)
{
	char date[32], num[16] = "", *p = NULL, *base;
	time_t t = time(NULL);
	struct tm tm;
	size_t len;
	int i;

	localtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);
	if (!out || !strcmp(out, "-"))
		out = "ktrace.dat";
	base = strdup(out);
	if (!base)
		return NULL;
	len = strlen(base);
	while (len > 1 && base[len - 1] == '/')
		base[--len] = '\0';
	if (len > 4 && !strcmp(base + len - 4, ".dat"))
		base[len - 4] = '\0';
	/* Two in one second: the second gets a number. */
	for (i = 0; i < 100; i++) {
		free(p);
		if (i)
			snprintf(num, sizeof(num), "-%d", i);
		if (asprintf(&p, "%s.snapshot-%s%s.dat", base, date, num) < 0) {
			p = NULL;
			break;
		}
		if (access(p, F_OK))
			break;
	}
	free(base);
	return p;
}

int kt_file_sink_snapshot(struct kt_file_sink *f, const struct kt_cpu_stats *base,
			  const unsigned long long *unw_base,
			  const char *const *chunks, int nchunks,
			  struct kt_piecepack *pieces,
			  const struct kt_snapshot_req *req,
			  struct kt_snapshot_res *res)
{
	unsigned long long cutoff;
	struct kt_session *s = f->s;
	struct kt_writer_cpu *cpus = NULL;
	struct kt_file_sink *snap = NULL;
	struct kt_cpu_stats *prior = NULL;
	unsigned long long *prior_unw = NULL;
	char **texts = NULL, *path = NULL;
	void *head = NULL;
	size_t len, i;
	int cpu, ret;

	memset(res, 0, sizeof(*res));
	ret = snapshot_sources(s);
	if (ret)
		return ret;
	path = req->path ? strdup(req->path) : default_name(f->s->cfg->output);
	if (!path)
		return -ENOMEM;
	ret = kt_file_sink_head(f, &head, &len);
	if (ret) {
		kt_err("cannot read the start of '%s': %s", f->out, strerror(-ret));
		goto out;
	}
	cpus = calloc(s->ncpus, sizeof(*cpus));
	texts = calloc(s->ncpus, sizeof(*texts));
	ret = cpus && texts ? 0 : -ENOMEM;
	for (cpu = 0; cpus && cpu < s->ncpus; cpu++)
		cpus[cpu].fd = -1;
	/*
	 * The snapshot's end is taken before the flush: every event up to
	 * it is in the pages flushed, so a snapshot chained to this one
	 * (record --trigger) and beginning there misses none.
	 */
	res->last_ts = kt_session_trace_now(s);
	for (i = 0; !ret && i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state)
			ret = s->src[i].ops->flush(s->src[i].state, cpus);
	if (ret) {
		kt_err("cannot take the recording's pages for '%s': %s", path,
		       strerror(-ret));
		goto out;
	}
	cutoff = req->last_ns && res->last_ts > req->last_ns ?
		 res->last_ts - req->last_ns : 0;
	if (req->from_ts)
		cutoff = req->from_ts;
	/*
	 * A series' finished chunks, then its pieces, in scratch files; or
	 * its pieces alone, when they were packed as they came.
	 */
	if (nchunks || pieces) {
		prior = calloc(s->ncpus, sizeof(*prior));
		prior_unw = calloc(s->ncpus, sizeof(*prior_unw));
		struct kt_snappages in = {
			.chunks = chunks, .n = nchunks, .cutoff = cutoff,
			.beside = path, .codec = kt_dat_compression(s->cfg->file_version,
							   s->cfg->compression),
			.count = !req->uncounted, .ncpus = s->ncpus,
			.pieces = pieces,
		};

		ret = prior && prior_unw ? 0 : -ENOMEM;
		if (!ret)
			ret = kt_snappages_gather(&in, cpus, prior, prior_unw, res);
		if (ret)
			goto out;
		cutoff = 0;
	}
	ret = snapshot_window(f, cpus, base, unw_base, prior, prior_unw, cutoff,
			      texts, res);
	if (ret)
		goto out;
	snap = from_head(f, path, head, len, true);
	if (!snap) {
		ret = -errno;
		goto out;
	}
	snap->trigger = req->trigger;
	ret = kt_file_sink_write_chunk(snap, cpus, texts, NULL);
	if (!ret)
		snprintf(res->path, sizeof(res->path), "%s", path);
	else if (ret > 0)
		ret = -ENOSPC;
out:
	if (snap)
		file_free(snap);
	for (cpu = 0; cpus && cpu < s->ncpus; cpu++) {
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
		if (cpus[cpu].packed_blocks)
			close(cpus[cpu].packed_fd);
	}
	for (cpu = 0; texts && cpu < s->ncpus; cpu++)
		free(texts[cpu]);
	free(texts);
	free(cpus);
	free(prior);
	free(prior_unw);
	free(head);
	free(path);
	return ret;
}

static int file_snapshot(void *state, struct kt_session *s,
			 const struct kt_snapshot_req *req,
			 struct kt_snapshot_res *res)
{
	return kt_file_sink_snapshot(state, s->st0, NULL, NULL, 0, NULL, req, res);
}

const char *kt_file_sink_compression(const struct kt_file_sink *f)
{
	return f->w ? kt_writer_compression(f->w) : "none";
}

const struct kt_sink_ops kt_file_sink_ops = {
	.name = "trace.dat",
	.wake_percent = "10",
	.begin = file_begin,
	.snapshot = file_snapshot,
	.end = file_end,
	.free = file_free,
};
