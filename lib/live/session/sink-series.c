// SPDX-License-Identifier: GPL-2.0
/*
 * A series of trace.dat chunks: see sink-series.h.  Each chunk is a
 * trace.dat file sink of its own (sink-file.h): the first begun as
 * record's file is, the next ones from its head (header, formats,
 * kallsyms, printk formats: read once, copied).  While tracing runs a
 * timer wakes the sink: at the chunk's size or duration the recorders
 * move to the next chunk's pieces (a page boundary per CPU) and the
 * chunk is assembled from its own, in the session's thread, while the
 * recorders go on.  Memory stays the same however many chunks: one
 * head, one chunk's file sink and its per-CPU numbers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/human.h"
#include "base/log.h"
#include "file/pack.h"
#include "file/pieces.h"
#include "file/tracedat.h"
#include "file/writer.h"
#include "file/piecepack.h"
#include "live/session/session-priv.h"
#include "live/session/sink-file.h"
#include "live/session/sink-series.h"
#include "live/tracefs/tracefs.h"

/* How often a size-bound chunk's size is looked at. */
#define SIZE_TICK_NS	20000000ULL
/* How often the pages are packed as they come (prepack). */
#define PACK_TICK_NS	200000000ULL
/* What v7 packing is first taken to leave of the pages (then measured). */
#define PACKED_GUESS	0.25

struct kt_series_sink {
	struct kt_series_opts o;
	struct kt_session *s;
	struct kt_file_sink *cur;	/* the chunk being recorded */
	unsigned int seq;		/* its number */
	void *head;			/* every chunk's start */
	size_t head_len;
	/* An auto ring's: the start packed, its first packed chunk's (not packed again each time). */
	void *packed_head;
	size_t packed_head_len;
	int timer;
	struct kt_cpu_stats *base;	/* per CPU, at the chunk's start */
	unsigned long long *unw_base;	/* per CPU: unwritten then */
	unsigned long long raw_base;	/* bytes of pages recorded then */
	double ratio;			/* a file's bytes per byte of pages */
	unsigned long long last_raw, last_file;
	/* Pages that came between the decision to end a chunk and its cut. */
	unsigned long long decided, lag;
	bool warned_small;
	bool made_dir;			/* removed again if nothing was written */
	struct kt_piecepack *pieces;	/* prepack: the chunk's pages packed */
	bool packing;			/* this chunk is packed as it comes */
	unsigned long long began_ns;	/* when this chunk began */
	unsigned long long next_ns;	/* a duration's chunk ends then */
	struct kt_series_done done;
};

/* Whether the chunks are packed as they come only while the ring is busy. */
static bool auto_pack(const struct kt_series_sink *r)
{
	return r->o.prepack && r->o.prepack_over && r->o.prepack_window_ns &&
	       r->o.ns && r->o.compression;
}

struct kt_series_sink *kt_series_sink_new(const struct kt_series_opts *o)
{
	struct kt_series_sink *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->timer = -1;
	r->o.dir = strdup(o->dir);
	r->cur = kt_file_sink_new();
	if (r->cur && o->compression)
		kt_file_sink_set_compression(r->cur, o->compression);
	if (r->cur && o->no_tgids)
		kt_file_sink_no_tgids(r->cur);
	/* An auto ring begins kept with compression, as if quiet. */
	r->packing = o->prepack && !auto_pack(r);
	if (!r->o.dir || !r->cur) {
		free((char *)r->o.dir);
		free(r->cur);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void kt_series_sink_done(const struct kt_series_sink *r,
			 struct kt_series_done *d)
{
	*d = r->done;
}

/* ---- names ---- */

/* "DIR/ktrace-NNNNNN.dat", or its hidden name while it is written. */
static char *chunk_path(const struct kt_series_sink *r, unsigned int seq,
			bool part)
{
	char *p;

	if (asprintf(&p, "%s/%s" KT_SERIES_PREFIX "%06u" KT_SERIES_SUFFIX "%s",
		     r->o.dir, part ? "." : "", seq, part ? KT_SERIES_PART : "") < 0)
		return NULL;
	return p;
}

/*
 * The chunks in dir: how many (finished ones), the oldest, and the
 * highest number of any, hidden ones included.
 */
static int scan(const char *dir, unsigned int *count, long *oldest, long *high)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	long n;

	*count = 0;
	*oldest = *high = -1;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		n = kt_pieces_chunk(de->d_name, false);
		if (n >= 0) {
			(*count)++;
			if (*oldest < 0 || n < *oldest)
				*oldest = n;
		} else {
			n = kt_pieces_chunk(de->d_name, true);
		}
		if (n > *high)
			*high = n;
	}
	closedir(d);
	return 0;
}

/* Remove the oldest finished chunk; 0, or -ENOENT when there is none. */
static int remove_oldest(struct kt_series_sink *r)
{
	unsigned int count;
	long oldest, high;
	char *p;
	int ret = scan(r->o.dir, &count, &oldest, &high);

	if (ret)
		return ret;
	if (oldest < 0)
		return -ENOENT;
	p = chunk_path(r, (unsigned int)oldest, false);
	if (!p)
		return -ENOMEM;
	ret = unlink(p) ? -errno : 0;
	free(p);
	if (!ret)
		r->done.removed++;
	return ret;
}

/* --keep N: at most N chunks in dir. */
static void keep(struct kt_series_sink *r)
{
	unsigned int count;
	long oldest, high;

	while (r->o.keep && !scan(r->o.dir, &count, &oldest, &high) &&
	       count > r->o.keep)
		if (remove_oldest(r))
			break;
}

/* ---- set-up ---- */

static int make_dir(struct kt_series_sink *r)
{
	struct stat st;

	if (!mkdir(r->o.dir, 0755)) {
		r->made_dir = true;
	} else if (errno != EEXIST) {
		int ret = -errno;

		kt_err("cannot create '%s': %s; try -o in a writable directory",
		       r->o.dir, strerror(errno));
		return ret;
	}
	if (stat(r->o.dir, &st) || !S_ISDIR(st.st_mode)) {
		kt_err("'%s' is not a directory; --rotate writes its chunks into -o DIR",
		       r->o.dir);
		return -ENOTDIR;
	}
	return 0;
}

static int open_first(struct kt_series_sink *r)
{
	unsigned int count;
	long oldest, high;
	char *p;
	int ret = make_dir(r);

	if (!ret)
		ret = scan(r->o.dir, &count, &oldest, &high);
	if (ret)
		return ret;
	r->seq = high >= 0 ? (unsigned int)high + 1 : 1;
	p = chunk_path(r, r->seq, true);
	if (!p)
		return -ENOMEM;
	ret = kt_file_sink_set_path(r->cur, p);
	free(p);
	if (ret)
		return ret;
	r->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return r->timer < 0 ? -errno : 0;
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void arm(struct kt_series_sink *r)
{
	unsigned long long ns = r->o.ns ? r->o.ns : SIZE_TICK_NS;
	struct itimerspec it;

	/*
	 * Packing as the pages come ticks more often than chunks end (an
	 * auto ring's too: its chunks may come to be packed).
	 */
	if ((r->pieces || auto_pack(r)) && ns > PACK_TICK_NS)
		ns = PACK_TICK_NS;
	it.it_value.tv_sec = ns / 1000000000ULL;
	it.it_value.tv_nsec = ns % 1000000000ULL;
	/* Periodic: a duration's chunks begin every ns however long one takes. */
	it.it_interval = it.it_value;
	r->began_ns = mono_ns();
	r->next_ns = r->began_ns + r->o.ns;
	timerfd_settime(r->timer, 0, &it, NULL);
}

/*
 * prepack: the pieces can be packed as they come when ftrace's recorder
 * alone writes them (ktrace.ko's records are merged into new files at
 * each snapshot and cut) and the chunks are packed.
 */
static void open_pieces(struct kt_series_sink *r)
{
	struct kt_session *s = r->s;
	const char *codec = kt_file_sink_compression(r->cur);
	char *beside;
	size_t i;

	if (!r->packing || !strcmp(codec, "none") || !kt_pack_known(codec))
		return;
	for (i = 0; i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state && s->src[i].ops->data &&
		    strcmp(s->src[i].ops->name, "ftrace"))
			return;
	beside = chunk_path(r, r->seq, true);
	if (beside)
		r->pieces = kt_piecepack_new(s->ncpus, getpagesize(), codec, beside);
	free(beside);
	/*
	 * Packed beside the workload: the fast level, which the snapshots
	 * that copy these blocks keep (a few percent more bytes).
	 */
	if (r->pieces)
		kt_piecepack_set_fast(r->pieces);
	/* Without it the pages are packed at the chunk's end, as always. */
	if (!r->pieces)
		kt_debug("the pages will be packed at each chunk's end: %s",
			 strerror(errno));
}

/* prepack: each CPU's whole groups of pages so far into blocks. */
static void pack_pieces(struct kt_series_sink *r)
{
	unsigned long long size;
	int cpu, fd, ret = 0;

	for (cpu = 0; !ret && r->pieces && cpu < r->s->ncpus; cpu++)
		if (!kt_session_cpu_data(r->s, cpu, &fd, &size) && fd >= 0)
			ret = kt_piecepack_extend(r->pieces, cpu, fd, size, 0);
	if (ret) {
		/* The chunk's end packs them, as always. */
		kt_debug("packing the pages as they come stopped: %s",
			 strerror(-ret));
		kt_piecepack_free(r->pieces);
		r->pieces = NULL;
	}
}

int kt_series_sink_feed(struct kt_series_sink *r, int cpu,
			unsigned long long at, const void *pages, size_t len)
{
	int ret;

	if (!r->pieces)
		return 0;
	ret = kt_piecepack_feed(r->pieces, cpu, at, pages, len);
	if (ret) {
		/* The chunk's end packs them, as always. */
		kt_debug("packing the pages as they come stopped: %s",
			 strerror(-ret));
		kt_piecepack_free(r->pieces);
		r->pieces = NULL;
	}
	return ret;
}

/* Every source of the recording must move to the next pieces. */
static int check_sources(struct kt_session *s)
{
	size_t i;
	int ret;

	for (i = 0; i < KT_SESSION_SOURCES; i++) {
		if (!s->src[i].state)
			continue;
		if (s->src[i].ops->rotate) {
			ret = s->src[i].ops->rotate(s->src[i].state, NULL, NULL);
			if (ret)
				return ret;
			continue;
		}
		kt_err("--rotate does not take %s's events yet; record them without --rotate",
		       s->src[i].ops->name);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Bytes of pages recorded, unwritten events of a CPU: every source's. */
static unsigned long long raw_bytes(struct kt_session *s)
{
	unsigned long long n = 0;
	size_t i;
	int cpu;

	for (i = 0; i < KT_SESSION_SOURCES; i++)
		for (cpu = 0; s->src[i].state && s->src[i].ops->bytes &&
			      cpu < s->ncpus; cpu++)
			n += s->src[i].ops->bytes(s->src[i].state, cpu);
	return n;
}

static int read_base(struct kt_series_sink *r)
{
	struct kt_session *s = r->s;
	int cpu;

	r->base = calloc(s->ncpus, sizeof(*r->base));
	r->unw_base = calloc(s->ncpus, sizeof(*r->unw_base));
	if (!r->base || !r->unw_base)
		return -ENOMEM;
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (kt_cpu_stats_read(kt_session_inst(s), cpu, &r->base[cpu]))
			memset(&r->base[cpu], 0, sizeof(r->base[cpu]));
	return 0;
}

static int series_begin(void *state, struct kt_session *s, enum kt_sink_step step)
{
	struct kt_series_sink *r = state;
	const struct kt_session_config *cfg = kt_session_cfg(s);
	const char *codec = r->o.compression ? r->o.compression :
			    cfg->compression;
	int ret;

	if (step == KT_SINK_NEW) {
		r->s = s;
		r->ratio = cfg->file_version == 6 || (codec &&
			   !strcmp(codec, "none")) ? 1.0 : PACKED_GUESS;
	}
	if (step == KT_SINK_OPEN) {
		ret = open_first(r);
		if (ret)
			return ret;
	}
	ret = kt_file_sink_ops.begin(r->cur, s, step);
	if (ret)
		return ret;
	switch (step) {
	case KT_SINK_ARMED:
		ret = check_sources(s);
		return ret ? ret : read_base(r);
	case KT_SINK_STARTED:
		open_pieces(r);
		arm(r);
		return 0;
	default:
		return 0;
	}
}

/* ---- a chunk ends ---- */

static void free_texts(char **t, int n)
{
	int i;

	for (i = 0; t && i < n; i++)
		free(t[i]);
	free(t);
}

/*
 * Each CPU's CPUSTAT of the chunk ending at now[], which becomes the
 * base.  What a cut leaves in the buffer is the next chunk's, not left:
 * entries are the last chunk's only (last).
 */
static char **chunk_stats(struct kt_series_sink *r, struct kt_cpu_stats *now,
			  bool last, bool error)
{
	struct kt_session *s = r->s;
	char **t = calloc(s->ncpus, sizeof(*t));
	unsigned long long unw;
	int cpu;

	for (cpu = 0; t && cpu < s->ncpus; cpu++) {
		if (!last)
			now[cpu].entries = 0;
		unw = kt_session_unwritten(s, cpu);
		t[cpu] = kt_file_sink_cpustat(cpu, &now[cpu], &r->base[cpu],
					      kt_stat_delta(unw, r->unw_base[cpu]) +
					      (error ? now[cpu].entries : 0));
		if (!t[cpu]) {
			free_texts(t, s->ncpus);
			return NULL;
		}
		r->base[cpu] = now[cpu];
		r->unw_base[cpu] = unw;
	}
	return t;
}

/* The finished chunk takes its name; counted. */
static int publish(struct kt_series_sink *r, unsigned int seq)
{
	char *part = chunk_path(r, seq, true), *final = chunk_path(r, seq, false);
	struct stat st;
	int ret = -ENOMEM;

	if (part && final) {
		ret = rename(part, final) ? -errno : 0;
		if (ret)
			kt_err("cannot name '%s': %s", final, strerror(-ret));
	}
	if (!ret) {
		if (!r->done.chunks++)
			r->done.first = seq;
		r->done.last = seq;
		if (!stat(final, &st)) {
			r->done.bytes += st.st_size;
			r->last_file = st.st_size;
		}
	}
	free(part);
	free(final);
	return ret;
}

static void remove_pieces(struct kt_series_sink *r, const char *prefix)
{
	char path[4096];
	int cpu;

	if (r->o.recycle && !kt_session_recycle(r->s, prefix))
		return;
	for (cpu = 0; cpu < r->s->ncpus; cpu++)
		if (!kt_pieces_cpu(path, sizeof(path), prefix, cpu))
			unlink(path);
}

/* The bytes free in dir (-1: unknown). */
static long long disk_free(const char *dir)
{
	struct statvfs v;

	if (statvfs(dir, &v))
		return -1;
	return (long long)v.f_bavail * v.f_frsize;
}

/*
 * --keep: room for this chunk's pieces to grow to what the last one
 * held and for its file, made by removing the oldest chunks, before
 * the disk fills.
 */
static void make_room(struct kt_series_sink *r, unsigned long long raw)
{
	unsigned long long want = r->last_raw > raw ? r->last_raw - raw : 0;
	long long avail;

	if (!r->o.keep)
		return;
	if (r->o.size) {
		unsigned long long target = r->o.size > r->head_len ?
			(unsigned long long)((r->o.size - r->head_len) / r->ratio) : 0;

		want = target > raw ? target - raw : 0;
		want += r->o.size;
	} else {
		want += r->last_file;
	}
	while ((avail = disk_free(r->o.dir)) >= 0 &&
	       (unsigned long long)avail < want + (1 << 20))
		if (remove_oldest(r))
			break;
}

/* After chunk seq of raw bytes of pages: what a file holds per page byte. */
static void measure(struct kt_series_sink *r, unsigned long long raw)
{
	r->last_raw = raw;
	if (raw >= 65536 && r->last_file > r->head_len) {
		r->ratio = (double)(r->last_file - r->head_len) / raw;
		if (r->ratio < 0.01)
			r->ratio = 0.01;
		if (r->ratio > 1.1)
			r->ratio = 1.1;
	}
}

/*
 * An auto ring: whether its chunks should be packed as they come, from
 * the pages of this chunk so far (raw bytes since it began): their rate
 * over a window is above the bound, or, while packing, still above half
 * of it (no flapping at the bound).
 */
static bool busy(const struct kt_series_sink *r, unsigned long long raw)
{
	unsigned long long now = mono_ns();
	double took = now > r->began_ns + 1000000 ? (double)(now - r->began_ns) : 1e6;
	double window = (double)raw * (double)r->o.prepack_window_ns / took;

	return window > (r->packing ? r->o.prepack_over / 2.0 :
			 (double)r->o.prepack_over);
}

/* An auto ring's next chunk (r->cur now): its pieces packed as they come, or not. */
static void switch_packing(struct kt_series_sink *r, bool pack)
{
	if (pack == r->packing)
		return;
	r->packing = pack;
	kt_debug("the ring's chunk %u is %s", r->seq,
		 pack ? "packed as it comes (a busy ring)" : "kept unpacked (a quiet ring)");
	if (pack) {
		open_pieces(r);
		return;
	}
	kt_piecepack_free(r->pieces);
	r->pieces = NULL;
}

static int rotate(struct kt_series_sink *r)
{
	struct kt_session *s = r->s;
	struct kt_writer_cpu *cpus = NULL;
	struct kt_cpu_stats *now = NULL;
	struct kt_file_sink *next = NULL;
	unsigned long long raw;
	char **texts = NULL, *path, *old = NULL;
	bool pack_next = r->packing;
	size_t i;
	int cpu, ret;

	if (!r->head) {
		ret = kt_file_sink_head(r->cur, &r->head, &r->head_len);
		if (ret) {
			kt_err("cannot read the start of '%s': %s", r->o.dir,
			       strerror(-ret));
			return ret;
		}
	}
	path = chunk_path(r, r->seq + 1, true);
	old = s->env.prefix ? strdup(s->env.prefix) : NULL;
	cpus = calloc(s->ncpus, sizeof(*cpus));
	now = calloc(s->ncpus, sizeof(*now));
	if (!path || !old || !cpus || !now) {
		ret = -ENOMEM;
		goto out;
	}
	for (cpu = 0; cpu < s->ncpus; cpu++)
		cpus[cpu].fd = -1;
	make_room(r, 0);
	/* The next chunk's compression, which it takes from this one's. */
	if (auto_pack(r)) {
		pack_next = busy(r, raw_bytes(s) - r->raw_base);
		kt_file_sink_set_compression(r->cur, pack_next ? NULL :
					     r->o.compression);
	}
	if (pack_next && r->packed_head)
		next = kt_file_sink_next(r->cur, path, r->packed_head,
					 r->packed_head_len);
	else
		next = kt_file_sink_next(r->cur, path, r->head, r->head_len);
	/* Its start packed again from the unpacked one: kept for the next. */
	if (next && auto_pack(r) && pack_next && !r->packed_head &&
	    kt_file_sink_head(next, &r->packed_head, &r->packed_head_len))
		r->packed_head = NULL;
	if (!next) {
		ret = -errno;
		if (ret == -ENOSPC)
			kt_debug("no room for '%s'", path);
		goto out;
	}
	/* The pages so far are this chunk's: their pieces, then the counts. */
	for (i = 0, ret = 0; !ret && i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state && s->src[i].ops->rotating)
			ret = s->src[i].ops->rotating(s->src[i].state);
	for (i = 0; !ret && i < KT_SESSION_SOURCES; i++)
		if (s->src[i].state)
			ret = s->src[i].ops->rotate(s->src[i].state, s->env.prefix, cpus);
	/* The pages packed as they came go in as they are. */
	for (cpu = 0; !ret && r->pieces && cpu < s->ncpus; cpu++)
		kt_piecepack_apply(r->pieces, cpu, &cpus[cpu]);
	if (ret) {
		/* A full disk: said once at the end, with its account. */
		if (ret != -ENOSPC)
			kt_err("cannot begin the next chunk in '%s': %s",
			       r->o.dir, strerror(-ret));
		goto out;
	}
	raw = raw_bytes(s) - r->raw_base;
	r->raw_base += raw;
	r->lag = raw > r->decided ? raw - r->decided : 0;
	kt_session_counts_now(s, r->base, now);
	texts = chunk_stats(r, now, false, false);
	ret = texts ? 0 : -ENOMEM;
	if (!ret)
		ret = kt_file_sink_write_chunk(r->cur, cpus, texts, next);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
	remove_pieces(r, old);
	if (r->pieces)
		kt_piecepack_reset(r->pieces);
	if (ret >= 0) {
		int err = publish(r, r->seq);

		if (err)
			ret = err;
	}
	/* The next chunk goes on even when this one failed. */
	kt_file_sink_ops.free(r->cur);
	r->cur = next;
	next = NULL;
	r->seq++;
	r->began_ns = mono_ns();
	if (auto_pack(r))
		switch_packing(r, pack_next);
	if (ret >= 0) {
		measure(r, raw);
		keep(r);
	}
	/* A chunk cut by a full disk: go on only where --keep makes room. */
	if (ret == 1)
		ret = r->o.keep ? 0 : -ENOSPC;
out:
	if (next)
		kt_file_sink_ops.free(next);
	free_texts(texts, s->ncpus);
	free(now);
	free(cpus);
	free(old);
	free(path);
	return ret;
}

/* ---- while tracing runs ---- */

static int series_poll_fds(void *state, struct pollfd *fds, int max)
{
	struct kt_series_sink *r = state;

	if (!fds)
		return 1;
	if (max < 1)
		return 0;
	fds[0].fd = r->timer;
	fds[0].events = POLLIN;
	return 1;
}

static bool due(struct kt_series_sink *r, unsigned long long raw)
{
	unsigned long long head = r->head ? r->head_len :
				  kt_file_sink_size(r->cur);

	if (r->o.ns) {
		unsigned long long now = mono_ns();
		unsigned long long slack = r->o.ns < PACK_TICK_NS ?
					   r->o.ns / 2 : PACK_TICK_NS / 2;

		/*
		 * The deadline, whatever the timer ticks at (every ns, or
		 * every PACK_TICK_NS while the pages are packed as they
		 * come, also after that stopped): half a tick early is on
		 * time.
		 */
		if (now + slack < r->next_ns)
			return false;
		/* On the timer's grid (arm() + k ns), ticks missed or not. */
		do
			r->next_ns += r->o.ns;
		while (r->next_ns <= now);
		return true;
	}
	if (!raw || head + (raw + r->lag) * r->ratio < r->o.size)
		return false;
	if (head >= r->o.size && !r->warned_small) {
		char a[32], b[32];

		kt_human_bytes(r->o.size, a, sizeof(a));
		kt_human_bytes(head, b, sizeof(b));
		kt_warn("--rotate %s is less than a chunk's fixed part (%s: kallsyms, formats); each chunk will be bigger",
			a, b);
		r->warned_small = true;
	}
	return true;
}

static int series_pages(void *state, const struct pollfd *fds)
{
	struct kt_series_sink *r = state;
	unsigned long long raw;
	uint64_t ticks;
	int ret;

	if (!fds || !(fds[0].revents & POLLIN))
		return 0;
	if (read(r->timer, &ticks, sizeof(ticks)) < 0)
		return 0;
	raw = raw_bytes(r->s) - r->raw_base;
	make_room(r, raw);
	/*
	 * An auto ring found busy ends its unpacked chunk at once (the
	 * first tick, 200 ms in), not at the chunk's end: a snapshot would
	 * pack all of it after its window.
	 */
	if (!due(r, raw) && !(auto_pack(r) && !r->packing && busy(r, raw))) {
		pack_pieces(r);
		return 0;
	}
	r->decided = raw;
	ret = rotate(r);
	return ret < 0 ? ret : 0;
}

/* ---- the end ---- */

static int series_end(void *state, struct kt_session *s)
{
	struct kt_series_sink *r = state;
	bool error = s->why == KT_STOP_ERROR;
	char **texts;
	int ret;

	texts = chunk_stats(r, s->st1, true, error);
	if (!texts)
		return -ENOMEM;
	make_room(r, raw_bytes(s) - r->raw_base);
	ret = kt_file_sink_write_chunk(r->cur, NULL, texts, NULL);
	free_texts(texts, s->ncpus);
	if (ret >= 0) {
		int err = publish(r, r->seq);

		if (err)
			ret = err;
		else
			keep(r);
	}
	if ((error && (s->err == -ENOSPC || disk_free(r->o.dir) < (1 << 20))) ||
	    ret == 1 || ret == -ENOSPC) {
		r->done.disk_full = true;
		/*
		 * A chunk cut at a rotation stopped the recording; the last
		 * one may have fit whole, or not at all: the files before it
		 * are whole, and the recording failed all the same.
		 */
		ret = 1;
	}
	return ret;
}

/*
 * A snapshot: this recording's finished chunks still in DIR, then the
 * one being recorded, from its pieces, in one file.  Its losses are the
 * finished chunks' (as they stored them) and the current chunk's.
 */
static int series_snapshot(void *state, struct kt_session *s,
			   const struct kt_snapshot_req *req,
			   struct kt_snapshot_res *res)
{
	struct kt_series_sink *r = state;
	char **chunks = NULL;
	unsigned int seq;
	int n = 0, ret = 0;

	(void)s;
	if (r->done.chunks)
		chunks = calloc(r->done.last - r->done.first + 1, sizeof(*chunks));
	for (seq = r->done.first; chunks && seq <= r->done.last; seq++) {
		chunks[n] = chunk_path(r, seq, false);
		if (!chunks[n]) {
			ret = -ENOMEM;
			break;
		}
		/* --keep removed it, or it was never finished. */
		if (access(chunks[n], R_OK))
			free(chunks[n]);
		else
			n++;
	}
	if (r->done.chunks && !chunks)
		ret = -ENOMEM;
	if (!ret)
		ret = kt_file_sink_snapshot(r->cur, r->base, r->unw_base,
					    (const char *const *)chunks, n,
					    r->pieces, req, res);
	while (n-- > 0)
		free(chunks[n]);
	free(chunks);
	return ret;
}

static void series_free(void *state)
{
	struct kt_series_sink *r = state;

	if (r->cur)
		kt_file_sink_ops.free(r->cur);
	kt_piecepack_free(r->pieces);
	/* A recording that failed before its first file leaves no DIR. */
	if (r->made_dir && !r->done.chunks)
		rmdir(r->o.dir);
	if (r->timer >= 0)
		close(r->timer);
	free(r->head);
	free(r->packed_head);
	free(r->base);
	free(r->unw_base);
	free((char *)r->o.dir);
	free(r);
}

const struct kt_sink_ops kt_series_sink_ops = {
	.name = "series",
	.wake_percent = "10",
	.begin = series_begin,
	.poll_fds = series_poll_fds,
	.pages = series_pages,
	.snapshot = series_snapshot,
	.end = series_end,
	.free = series_free,
};
