// SPDX-License-Identifier: GPL-2.0
/*
 * A check of a chunk written from pieces packed as they came
 * (lib/file/piecepack.c) by the writer without keep-sources
 * (lib/file/writer.c), as a trigger's ring writes its chunks.  IN's
 * pages, CPU by CPU, become pieces in DIR; then:
 *
 *   split: DIR/ref.dat from the pieces as they are (the writer packs
 *          them), and DIR/packed.dat from the same pieces, their first
 *          half packed by piecepack and the rest by the writer: the two
 *          must read alike (the caller compares the reports).
 *   full:  DIR/full.dat the same as packed.dat, under a disk that
 *          refuses it part way (faultinj's KT_FAULT_FULL, set by the
 *          caller): the writer must pack the refused blocks' pages
 *          again from the pieces and keep what fits, counting the rest.
 *   alone: DIR/ref.dat as for split, and DIR/alone.dat from the same
 *          pages given to piecepack in memory, in slices of 1, 3, 7, ...
 *          pages (as a remote recording's arrive), the file taking the
 *          blocks with no pages besides: the two must read alike.
 *   alonefull: DIR/alonefull.dat as alone.dat under a full disk: the
 *          writer keeps the blocks that fit, counting the rest's events.
 *   fed:   DIR/ref.dat as for split, and DIR/fed.dat from the same
 *          pieces fed to piecepack as a trigger reads them (slices of
 *          1, 3, 7, ... pages), with extends ahead of the feed between
 *          them (a series' tick), a slice fed twice and one left out
 *          (a gap): the two must read alike.  Prints "blocks N fed M"
 *          (M of the N blocks packed from the pages fed).
 *
 * Prints "events N" (IN's events), "head N" (where each file's head
 * ends), then for full "cut N" (the events the writer counted as left
 * out) and the writer's result.
 *
 *   writer-packed IN.dat DIR split|full|alone|alonefull|fed
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file/rawpage.h"
#include "file/tracedat.h"
#include "file/reader.h"
#include "file/writer.h"
#include "file/piecepack.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "writer-packed: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* IN's pages of each CPU into DIR/piece.cpuN; their events. */
static unsigned long long make_pieces(const char *in, const char *dir, int ncpus,
				      struct kt_writer_cpu *cpus)
{
	struct kt_reader *r = kt_reader_open(in);
	unsigned long long events = 0;
	struct kt_stream *st;
	char path[4096];
	uint64_t at, n;
	void *p;
	int i, cpu;

	if (!r)
		die(in, errno);
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path), "%s/piece.cpu%d", dir, cpu);
		cpus[cpu].fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (cpus[cpu].fd < 0)
			die(path, errno);
	}
	for (i = 0; i < kt_reader_streams(r, 0); i++) {
		cpu = kt_reader_stream_cpu(r, 0, i);
		if (cpu < 0 || cpu >= ncpus)
			continue;
		st = kt_stream_open(r, 0, i);
		if (!st)
			die("stream", errno);
		while (kt_stream_next_page(st, &p, &at) == 1) {
			if (write(cpus[cpu].fd, p, getpagesize()) != getpagesize())
				die("piece", errno);
			cpus[cpu].size += getpagesize();
			if (!kt_rawpage_events(p, getpagesize(), &n))
				events += n;
		}
		kt_stream_close(st);
	}
	kt_reader_close(r);
	return events;
}

/* A writer at path begun with IN's head, as a ring's chunk is. */
static struct kt_writer *begin(const char *in, const char *path)
{
	struct kt_writer *w = kt_writer_open(path);
	struct kt_reader_head h;
	int ret;

	if (!w)
		die(path, errno);
	ret = kt_writer_resume_file(w, in, NULL);
	if (!ret)
		ret = kt_reader_head(in, &h);
	if (ret)
		die("resume", ret);
	/* where the resumed head ends: the last complete section's end */
	printf("head %llu\n", (unsigned long long)(h.printk_end ? h.printk_end :
						  h.kallsyms_end ? h.kallsyms_end : h.formats_end));
	return w;
}

/*
 * Slice k of a piece of size bytes from at: 2k + 1 pages, or what is
 * left (*n bytes), read into memory (free() it).
 */
static char *read_slice(const struct kt_writer_cpu *c, unsigned long long at,
			int k, size_t *n)
{
	size_t len = (size_t)(2 * k + 1) * getpagesize();
	char *buf;

	if (len > c->size - at)
		len = c->size - at;
	buf = malloc(len);
	if (!buf || pread(c->fd, buf, len, at) != (ssize_t)len)
		die("pread", errno);
	*n = len;
	return buf;
}

/* Every CPU's pieces fed to pk from memory, in slices of growing size. */
static void feed_alone(struct kt_piecepack *pk, int ncpus, struct kt_writer_cpu *cpus)
{
	size_t room, n;
	unsigned long long at;
	int cpu, ret, k;
	char *buf, *to;

	for (cpu = 0; cpu < ncpus; cpu++) {
		for (at = 0, k = 0; at < cpus[cpu].size; at += n, k++) {
			buf = read_slice(&cpus[cpu], at, k, &n);
			for (to = buf; to < buf + n; to += room) {
				char *space = kt_piecepack_space(pk, cpu, &room);

				if (!space)
					die("space", errno);
				if (room > (size_t)(buf + n - to))
					room = buf + n - to;
				memcpy(space, to, room);
				ret = kt_piecepack_filled(pk, cpu, room);
				if (ret)
					die("filled", ret);
			}
			free(buf);
		}
	}
	ret = kt_piecepack_flush(pk);
	if (ret)
		die("flush", ret);
	for (cpu = 0; cpu < ncpus; cpu++) {
		close(cpus[cpu].fd);
		kt_piecepack_apply_alone(pk, cpu, &cpus[cpu]);
	}
}

static int finish(struct kt_writer *w, int ncpus, struct kt_writer_cpu *cpus)
{
	struct kt_writer_tail tail = { .cmdlines = "", .cmdlines_len = 0, .clock = "local" };
	int ret = kt_writer_finish(w, &tail, ncpus, cpus), err;

	if (ret < 0)
		die("finish", ret);
	err = kt_writer_commit(w);
	if (err)
		die("commit", err);
	kt_writer_close(w);
	return ret;
}

/*
 * Every CPU's pieces fed to pk as a trigger's reads would, the series'
 * ticks (extend) between them, the rest of each piece left as pages.
 */
static void feed_read(struct kt_piecepack *pk, int ncpus, struct kt_writer_cpu *cpus)
{
	size_t page = (size_t)getpagesize(), n, prev_n = 0;
	unsigned long long at, prev_at = 0, ahead, blocks = 0, by_feed = 0;
	uint32_t before;
	int cpu, ret, k;
	char *buf;

	for (cpu = 0; cpu < ncpus; cpu++) {
		for (at = 0, k = 0; at < cpus[cpu].size; at += n, k++) {
			buf = read_slice(&cpus[cpu], at, k, &n);
			/* Slice 5 is left out: a gap the next tick's extend reads. */
			before = kt_piecepack_blocks(pk, cpu);
			ret = k == 5 ? 0 : kt_piecepack_feed(pk, cpu, at, buf, n);
			by_feed += kt_piecepack_blocks(pk, cpu) - before;
			free(buf);
			if (ret)
				die("feed", ret);
			/* Fed twice: skipped. */
			if (k % 4 == 3) {
				buf = read_slice(&cpus[cpu], prev_at, k - 1, &prev_n);
				ret = kt_piecepack_feed(pk, cpu, prev_at, buf, prev_n);
				free(buf);
				if (ret)
					die("feed again", ret);
			}
			/* A tick ahead of the reads: whole groups up to 12 pages on. */
			if (k % 3 == 2) {
				ahead = at + n + 12 * page;
				ret = kt_piecepack_extend(pk, cpu, cpus[cpu].fd,
							  ahead < cpus[cpu].size ? ahead :
							  cpus[cpu].size, 0);
				if (ret)
					die("extend", ret);
			}
			prev_at = at;
			prev_n = n;
		}
		blocks += kt_piecepack_blocks(pk, cpu);
		kt_piecepack_apply(pk, cpu, &cpus[cpu]);
	}
	printf("blocks %llu fed %llu\n", blocks, by_feed);
}

int main(int argc, char **argv)
{
	struct kt_writer_cpu cpus[KT_DAT_MAX_CPUS];
	struct kt_piecepack *pk;
	unsigned long long events, cut = 0;
	struct kt_reader *r;
	char path[4096];
	const char *codec;
	int ncpus, cpu, ret;
	const char *mode = argc == 4 ? argv[3] : "";
	bool full, alone, fed;

	if (strcmp(mode, "split") && strcmp(mode, "full") && strcmp(mode, "alone") &&
	    strcmp(mode, "alonefull") && strcmp(mode, "fed")) {
		fprintf(stderr, "usage: writer-packed IN.dat DIR split|full|alone|alonefull|fed\n");
		return 64;
	}
	full = strstr(mode, "full");
	alone = !strncmp(mode, "alone", 5);
	r = kt_reader_open(argv[1]);
	if (!r)
		die(argv[1], errno);
	ncpus = kt_reader_cpus(r);
	codec = strdup(kt_reader_compression(r));
	kt_reader_close(r);
	if (ncpus <= 0 || ncpus > KT_DAT_MAX_CPUS || !strcmp(codec, "none"))
		die("IN must be v7, packed", EINVAL);
	memset(cpus, 0, sizeof(cpus));
	events = make_pieces(argv[1], argv[2], ncpus, cpus);
	printf("events %llu\n", events);

	fed = !strcmp(mode, "fed");
	if (!strcmp(mode, "split") || !strcmp(mode, "alone") || fed) {
		struct kt_writer *w;

		snprintf(path, sizeof(path), "%s/ref.dat", argv[2]);
		w = begin(argv[1], path);
		kt_writer_keep_sources(w);
		finish(w, ncpus, cpus);
		for (cpu = 0; cpu < ncpus; cpu++)
			cpus[cpu].size = lseek(cpus[cpu].fd, 0, SEEK_END);
	}
	snprintf(path, sizeof(path), "%s/x", argv[2]);
	pk = kt_piecepack_new(ncpus, getpagesize(), codec, path);
	if (!pk)
		die("piecepack", errno);
	if (fed)
		feed_read(pk, ncpus, cpus);
	for (cpu = 0; !alone && !fed && cpu < ncpus; cpu++) {
		/* The first half in blocks, the last one short (a snapshot packed it). */
		ret = kt_piecepack_extend(pk, cpu, cpus[cpu].fd, cpus[cpu].size / 2, 1);
		if (ret)
			die("extend", ret);
		kt_piecepack_apply(pk, cpu, &cpus[cpu]);
	}
	if (alone)
		feed_alone(pk, ncpus, cpus);
	snprintf(path, sizeof(path), "%s/%s.dat", argv[2],
		 !strcmp(mode, "split") ? "packed" : mode);
	ret = finish(begin(argv[1], path), ncpus, cpus);
	for (cpu = 0; cpu < ncpus; cpu++)
		cut += cpus[cpu].cut_events;
	if (full)
		printf("cut %llu\nresult %d\n", cut, ret);
	kt_piecepack_free(pk);
	for (cpu = 0; !alone && cpu < ncpus; cpu++)
		close(cpus[cpu].fd);
	free((char *)codec);
	return ret && !full ? 1 : 0;
}
