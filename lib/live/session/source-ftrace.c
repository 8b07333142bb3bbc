// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace instance source of a recording (source.h): one recorder
 * thread per CPU moves the instance's ring-buffer pages into the
 * "<prefix>.cpuN" pieces (live/buffers/recorder.h), and the instance's per-CPU
 * statistics are what the file stores as its CPUSTAT options.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "file/tracedat.h"
#include "file/writer.h"
#include "live/buffers/recorder.h"
#include "live/session/source.h"
#include "live/tracefs/tracefs.h"
#include "live/session/tracing.h"

struct ftrace_src {
	const struct kt_source_env *e;
	struct kt_recorder *rec;
	char **stat_text;		/* per CPU, as stored in the file */
};

static void ftrace_restore(void *state)
{
	struct ftrace_src *f = state;
	int cpu;

	if (!f)
		return;
	kt_recorder_free(f->rec);
	if (f->stat_text)
		for (cpu = 0; cpu < f->e->ncpus; cpu++)
			free(f->stat_text[cpu]);
	free(f->stat_text);
	free(f);
}

static int ftrace_prepare(const struct kt_source_env *env, void **state)
{
	struct ftrace_src *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return -ENOMEM;
	f->e = env;
	*state = f;
	/* A live sink reads the buffers itself. */
	if (env->live)
		return 0;
	f->rec = kt_recorder_new(kt_tracing_inst(env->t), env->ncpus, env->prefix);
	if (!f->rec) {
		ret = -errno;
		kt_err("cannot open the per-CPU buffers: %s", strerror(errno));
		return ret;
	}
	if (env->limit)
		kt_recorder_set_limit(f->rec, env->limit);
	return 0;
}

/* A flight recording is read at the end only. */
static int ftrace_start(void *state)
{
	struct ftrace_src *f = state;
	int ret;

	if (f->e->cfg->flight || !f->rec)
		return 0;
	ret = kt_recorder_start(f->rec);
	if (ret)
		kt_err("cannot start the recorders: %s", strerror(-ret));
	return ret;
}

static int ftrace_stop(void *state)
{
	struct ftrace_src *f = state;
	int ret = f->rec ? kt_recorder_stop(f->rec) : 0;

	/* A full disk: the output says so, with what it kept and lost. */
	if (ret == -ENOSPC)
		kt_debug("disk full: the recorders for '%s' stopped early",
			 f->e->cfg->output);
	else if (ret)
		kt_err("recording stopped: %s", strerror(-ret));
	return ret;
}

static int read_stats(struct ftrace_src *f, struct kt_cpu_stats *st)
{
	int cpu, ret;

	for (cpu = 0; cpu < f->e->ncpus; cpu++) {
		ret = kt_cpu_stats_read(kt_tracing_inst(f->e->t), cpu, &st[cpu]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The end statistics: parsed, and as the file stores them. */
static int ftrace_collect(void *state, struct kt_cpu_stats *st,
			  enum kt_source_phase phase)
{
	struct ftrace_src *f = state;
	int cpu;

	/* A rotation reads the instance's counters itself. */
	if (phase == KT_SOURCE_CUT)
		return 0;
	if (!f->rec) {
		/* Live: only the counters, zero where they cannot be read. */
		for (cpu = 0; cpu < f->e->ncpus; cpu++)
			if (kt_cpu_stats_read(kt_tracing_inst(f->e->t), cpu, &st[cpu]))
				memset(&st[cpu], 0, sizeof(st[cpu]));
		return 0;
	}
	if (phase == KT_SOURCE_BEGIN)
		return read_stats(f, st);
	f->stat_text = calloc(f->e->ncpus, sizeof(*f->stat_text));
	if (!f->stat_text)
		return -ENOMEM;
	for (cpu = 0; cpu < f->e->ncpus; cpu++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = kt_tracefs_read(kt_tracing_inst(f->e->t), file);
		if (!text)
			return -errno;
		kt_cpu_stats_parse(text, &st[cpu]);
		/*
		 * As trace-cmd stores it: "CPU: N" then the stats file, and
		 * the events a full disk refused after they were read (the
		 * kernel counts them as read) or kept in the buffer by
		 * stopping the recorders, which readers add to the loss.
		 */
		if (asprintf(&f->stat_text[cpu], "CPU: %d\n%s%s%llu\n", cpu, text,
			     KT_CPUSTAT_UNWRITTEN,
			     kt_recorder_unwritten(f->rec, cpu) +
			     (phase == KT_SOURCE_END_ERROR ? st[cpu].entries : 0)) < 0)
			f->stat_text[cpu] = NULL;
		free(text);
		if (!f->stat_text[cpu])
			return -ENOMEM;
	}
	return 0;
}

static void ftrace_progress(void *state, const struct kt_cpu_stats *st0,
			    struct kt_session_progress *p)
{
	struct ftrace_src *f = state;
	struct kt_cpu_stats st;
	int cpu;

	for (cpu = 0; cpu < f->e->ncpus; cpu++) {
		if (kt_cpu_stats_read(kt_tracing_inst(f->e->t), cpu, &st))
			continue;
		p->events += kt_stat_delta(st.read + st.entries,
					   st0[cpu].read + st0[cpu].entries);
		p->lost += kt_stat_delta(st.overrun, st0[cpu].overrun) +
			   kt_stat_delta(st.dropped, st0[cpu].dropped);
	}
	p->bytes += f->rec ? kt_recorder_total(f->rec) : 0;
}

static int ftrace_wake_fd(void *state)
{
	struct ftrace_src *f = state;

	return f->rec ? kt_recorder_notify_fd(f->rec) : -1;
}

/* A recorder stopped by itself: an error (a full disk), or -m. */
static enum kt_session_stop ftrace_woke(void *state)
{
	struct ftrace_src *f = state;

	return kt_recorder_error(f->rec) ? KT_STOP_ERROR : KT_STOP_SIZE;
}

static int ftrace_data(void *state, int cpu, int *fd, unsigned long long *size)
{
	struct ftrace_src *f = state;

	*fd = kt_recorder_fd(f->rec, cpu);
	*size = kt_recorder_piece_size(f->rec, cpu);
	return 0;
}

/*
 * The pieces so far handed out: a rotation's (prefix: the pages go on
 * into new pieces) or a snapshot's (NULL: read only, the pieces go on).
 */
static int hand_out(struct ftrace_src *f, const char *prefix,
		    struct kt_writer_cpu *cpus)
{
	unsigned long long *size;
	int *fd, cpu, ret;

	if (!f->rec)
		return -EOPNOTSUPP;
	fd = calloc(f->e->ncpus, sizeof(*fd));
	size = calloc(f->e->ncpus, sizeof(*size));
	ret = !fd || !size ? -ENOMEM :
	      prefix ? kt_recorder_rotate(f->rec, prefix, fd, size) :
		       kt_recorder_flush(f->rec, fd, size);
	for (cpu = 0; !ret && cpu < f->e->ncpus; cpu++) {
		memset(&cpus[cpu], 0, sizeof(cpus[cpu]));
		cpus[cpu].fd = fd[cpu];
		cpus[cpu].size = size[cpu];
	}
	free(fd);
	free(size);
	return ret;
}

static int ftrace_recycle(void *state, const char *prefix)
{
	struct ftrace_src *f = state;

	return f->rec ? kt_recorder_recycle(f->rec, prefix) : -EOPNOTSUPP;
}

static int ftrace_rotate(void *state, const char *prefix,
			 struct kt_writer_cpu *cpus)
{
	struct ftrace_src *f = state;

	/* No prefix: only whether it can (a recording to files can). */
	if (!prefix)
		return f->rec ? 0 : -EOPNOTSUPP;
	return hand_out(f, prefix, cpus);
}

static int ftrace_flush(void *state, struct kt_writer_cpu *cpus)
{
	return hand_out(state, NULL, cpus);
}

static int ftrace_stream(void *state, kt_recorder_put_fn put, void *arg)
{
	struct ftrace_src *f = state;

	if (!f->rec)
		return -EOPNOTSUPP;
	kt_recorder_set_put(f->rec, put, arg);
	return 0;
}

static unsigned long long ftrace_bytes(void *state, int cpu)
{
	struct ftrace_src *f = state;

	return f->rec ? kt_recorder_bytes(f->rec, cpu) : 0;
}

static unsigned long long ftrace_unwritten(void *state, int cpu)
{
	struct ftrace_src *f = state;

	return f->rec ? kt_recorder_unwritten(f->rec, cpu) : 0;
}

/*
 * The instance's stats text of a CPU with its counters replaced by every
 * source's (ktrace.ko's records and losses join the instance's): the
 * file says what the recording lost, not what ftrace alone lost.  The
 * other lines stay as the kernel wrote them.
 */
static char *stat_text_merged(const char *raw, const struct kt_cpu_stats *st)
{
	const char *line = raw, *nl, *key;
	char *out = NULL;
	size_t len = 0;
	unsigned long long val;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (; *line; line = nl) {
		nl = strchr(line, '\n');
		nl = nl ? nl + 1 : line + strlen(line);
		key = kt_cpu_stats_summed(line, st, &val);
		if (key)
			fprintf(f, "%s: %llu\n", key, val);
		else
			fwrite(line, 1, (size_t)(nl - line), f);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static int ftrace_options(void *state, struct kt_writer *w)
{
	struct ftrace_src *f = state;
	int cpu, ret = 0;
	char *text;

	for (cpu = 0; !ret && cpu < f->e->ncpus; cpu++) {
		text = f->e->st_end ? stat_text_merged(f->stat_text[cpu],
							&f->e->st_end[cpu]) : NULL;
		if (f->e->st_end && !text)
			return -ENOMEM;
		ret = kt_writer_add_option_str(w, KT_OPT_CPUSTAT,
					       text ? text : f->stat_text[cpu]);
		free(text);
	}
	return ret;
}

const struct kt_source_ops kt_source_ftrace = {
	.name = "ftrace",
	.prepare = ftrace_prepare,
	.start = ftrace_start,
	.stop = ftrace_stop,
	.collect = ftrace_collect,
	.progress = ftrace_progress,
	.wake_fd = ftrace_wake_fd,
	.woke = ftrace_woke,
	.data = ftrace_data,
	.rotate = ftrace_rotate,
	.recycle = ftrace_recycle,
	.flush = ftrace_flush,
	.stream = ftrace_stream,
	.bytes = ftrace_bytes,
	.unwritten = ftrace_unwritten,
	.options = ftrace_options,
	.restore = ftrace_restore,
};
