// SPDX-License-Identifier: GPL-2.0
/*
 * The pages of a snapshot of a --rotate recording: see snappages.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/tmpfile.h"
#include "file/reader.h"
#include "file/tracedat.h"
#include "file/writer.h"
#include "live/session/snappages.h"
#include "live/tracefs/tracefs.h"

/* One CPU's scratch file, a page behind: kept only once the next one says. */
struct cpu_out {
	int fd;
	unsigned long long size;
	char *prev;
	bool have_prev;
};

static uint64_t page_ts(const void *page)
{
	uint64_t ts;

	memcpy(&ts, page, sizeof(ts));
	return ts;
}

static int put_page(struct cpu_out *o, const void *page, size_t len,
		    unsigned long long cutoff)
{
	int ret = 0;

	if (!cutoff) {
		ret = kt_write_all(o->fd, page, len);
		if (!ret)
			o->size += len;
		return ret;
	}
	if (o->have_prev && page_ts(page) >= cutoff) {
		ret = kt_write_all(o->fd, o->prev, len);
		if (!ret)
			o->size += len;
	}
	memcpy(o->prev, page, len);
	o->have_prev = true;
	return ret;
}

/* What the chunks stored they lost, per CPU (the series sums them). */
static void chunk_losses(const struct kt_reader *r, int ncpus,
			 struct kt_cpu_stats *prior, unsigned long long *prior_unw)
{
	struct kt_cpu_stats st;
	const char *text, *u;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		text = kt_reader_cpustat(r, 0, cpu);
		if (!text || kt_cpu_stats_parse(text, &st))
			continue;
		prior[cpu].overrun += st.overrun;
		prior[cpu].commit_overrun += st.commit_overrun;
		prior[cpu].dropped += st.dropped;
		u = strstr(text, KT_CPUSTAT_UNWRITTEN);
		if (u)
			prior_unw[cpu] += strtoull(u + strlen(KT_CPUSTAT_UNWRITTEN), NULL, 10);
	}
}

/* The finished chunks' pages, per CPU. */
static int from_chunks(const char *const *chunks, int n,
		       unsigned long long cutoff, int ncpus, size_t page,
		       struct cpu_out *out, struct kt_cpu_stats *prior,
		       unsigned long long *prior_unw)
{
	struct kt_reader *r = kt_reader_open_list(chunks, n);
	struct kt_stream *st;
	uint64_t at;
	void *p;
	int i, cpu, ret = 0;

	if (!r)
		return -errno;
	if (kt_reader_page_size(r) != page) {
		kt_reader_close(r);
		return -EINVAL;
	}
	chunk_losses(r, ncpus, prior, prior_unw);
	for (i = 0; !ret && i < kt_reader_streams(r, 0); i++) {
		cpu = kt_reader_stream_cpu(r, 0, i);
		if (cpu < 0 || cpu >= ncpus)
			continue;
		st = kt_stream_open(r, 0, i);
		if (!st) {
			ret = -errno;
			break;
		}
		while (!ret && (ret = kt_stream_next_page(st, &p, &at)) == 1)
			ret = put_page(&out[cpu], p, page, cutoff);
		kt_stream_close(st);
	}
	kt_reader_close(r);
	return ret;
}

/* The pieces' pages of a CPU, after the chunks'. */
static int from_piece(const struct kt_writer_cpu *c, unsigned long long cutoff,
		      size_t page, char *buf, struct cpu_out *o)
{
	unsigned long long at;
	int ret = 0;

	for (at = 0; !ret && at + page <= c->size; at += page) {
		ret = kt_pread_all(c->fd, buf, page, c->off + at);
		if (!ret)
			ret = put_page(o, buf, page, cutoff);
	}
	return ret;
}

int kt_snappages_gather(const char *const *chunks, int n,
			unsigned long long cutoff, const char *beside,
			int ncpus, struct kt_writer_cpu *cpus,
			struct kt_cpu_stats *prior, unsigned long long *prior_unw)
{
	size_t page = (size_t)getpagesize();
	struct cpu_out *out = calloc(ncpus, sizeof(*out));
	char *buf = malloc(page);
	int cpu, ret = out && buf ? 0 : -ENOMEM;

	for (cpu = 0; out && cpu < ncpus; cpu++)
		out[cpu].fd = -1;
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		out[cpu].prev = malloc(page);
		out[cpu].fd = out[cpu].prev ? kt_tmpfile_scratch(beside) : -ENOMEM;
		if (out[cpu].fd < 0)
			ret = out[cpu].fd;
	}
	if (ret) {
		kt_err("cannot make room beside '%s': %s", beside, strerror(-ret));
		goto out;
	}
	ret = from_chunks(chunks, n, cutoff, ncpus, page, out, prior, prior_unw);
	if (ret)
		kt_err("cannot read the finished files of the recording for '%s': %s",
		       beside, strerror(-ret));
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		ret = from_piece(&cpus[cpu], cutoff, page, buf, &out[cpu]);
		/* The newest page is always in. */
		if (!ret && out[cpu].have_prev) {
			ret = kt_write_all(out[cpu].fd, out[cpu].prev, page);
			out[cpu].size += ret ? 0 : page;
		}
		if (ret)
			kt_err("cannot write beside '%s': %s", beside, strerror(-ret));
	}
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		close(cpus[cpu].fd);
		memset(&cpus[cpu], 0, sizeof(cpus[cpu]));
		cpus[cpu].fd = out[cpu].fd;
		cpus[cpu].size = out[cpu].size;
		out[cpu].fd = -1;
	}
out:
	for (cpu = 0; out && cpu < ncpus; cpu++) {
		if (out[cpu].fd >= 0)
			close(out[cpu].fd);
		free(out[cpu].prev);
	}
	free(out);
	free(buf);
	return ret;
}
