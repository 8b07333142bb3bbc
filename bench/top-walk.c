// SPDX-License-Identifier: GPL-2.0
/*
 * bench/top-walk: ktrace top's own page walker (lib/file/rawpage.c) against
 * libtraceevent's kbuffer, on real ring-buffer pages.
 *
 * Captures pages live (a private instance with raw_syscalls and sched
 * events, this program's own syscalls as the workload), then counts the
 * same pages with both walkers, alternating, and prints ns per event for
 * each, the ratio of medians, and whether both counted the same.
 * Usage: top-walk [ROUNDS]   (as root)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <kbuffer.h>

#include "live/tracefs/tracefs.h"
#include "file/rawpage.h"

#define MAX_PAGES 4096

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static size_t capture(struct tracefs_instance *inst, int ncpu,
		      unsigned char *pages, size_t psize)
{
	size_t n = 0;
	char file[64];
	int cpu, fd, i;

	/* Syscalls and context switches enough to fill a few MB. */
	for (i = 0; i < 400000; i++)
		getppid();
	kt_tracefs_write(inst, "tracing_on", "0");
	for (cpu = 0; cpu < ncpu && n < MAX_PAGES; cpu++) {
		char *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		path = tracefs_instance_get_file(inst, file);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		tracefs_put_tracing_file(path);
		if (fd < 0)
			continue;
		while (n < MAX_PAGES &&
		       read(fd, pages + n * psize, psize) == (ssize_t)psize)
			n++;
		close(fd);
	}
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 15, r, ncpu;
	size_t psize = (size_t)getpagesize(), npages, i, off;
	struct tracefs_instance *inst;
	static uint16_t slot[KT_RAWPAGE_IDS];
	static uint64_t counts_own[KT_RAWPAGE_IDS], counts_kb[KT_RAWPAGE_IDS];
	struct kt_rawpage_hdr hdr;
	double *t_own, *t_kb, t0, events = 0;
	struct kbuffer *kb;
	unsigned char *pages;
	char name[64];

	if (kt_tracefs_open(NULL)) {
		fprintf(stderr, "top-walk: needs tracefs (run as root)\n");
		return 1;
	}
	snprintf(name, sizeof(name), "kt-bench-walk-%d", (int)getpid());
	if (kt_instance_open(name, true, &inst, NULL)) {
		fprintf(stderr, "top-walk: cannot create instance %s\n", name);
		return 1;
	}
	ncpu = kt_cpu_count();
	kt_tracefs_write(inst, "buffer_size_kb", "4096");
	kt_event_set_enable(inst, "raw_syscalls", "sys_enter", true);
	kt_event_set_enable(inst, "raw_syscalls", "sys_exit", true);
	kt_event_set_enable(inst, "sched", "sched_switch", true);
	pages = malloc(MAX_PAGES * psize);
	t_own = calloc(rounds, sizeof(*t_own));
	t_kb = calloc(rounds, sizeof(*t_kb));
	kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!pages || !t_own || !t_kb || !kb)
		return 1;
	npages = capture(inst, ncpu, pages, psize);
	kt_instance_remove(inst);
	/* Every id its own counter, as top does for the events it shows. */
	for (i = 0; i < KT_RAWPAGE_IDS; i++)
		slot[i] = (uint16_t)i;

	for (r = 0; r < rounds; r++) {
		memset(counts_own, 0, sizeof(counts_own));
		t0 = now_ns();
		for (i = 0; i < npages; i++) {
			kt_rawpage_header(pages + i * psize, psize, &hdr);
			off = 0;
			kt_rawpage_count(pages + i * psize, &hdr, &off, slot, counts_own);
		}
		t_own[r] = now_ns() - t0;
		memset(counts_kb, 0, sizeof(counts_kb));
		t0 = now_ns();
		for (i = 0; i < npages; i++) {
			kt_rawpage_header(pages + i * psize, psize, &hdr);
			off = 0;
			kt_rawpage_count_kbuffer(kb, pages + i * psize, &hdr, &off,
						 slot, counts_kb);
		}
		t_kb[r] = now_ns() - t0;
	}
	for (i = 0; i < KT_RAWPAGE_IDS; i++)
		events += (double)counts_own[i];
	qsort(t_own, rounds, sizeof(*t_own), cmp_double);
	qsort(t_kb, rounds, sizeof(*t_kb), cmp_double);
	printf("pages %zu  events %.0f  rounds %d\n", npages, events, rounds);
	printf("own walker  %6.2f ns/event (median)\n", t_own[rounds / 2] / events);
	printf("kbuffer     %6.2f ns/event (median)\n", t_kb[rounds / 2] / events);
	printf("kbuffer/own %.2fx   counts %s\n", t_kb[rounds / 2] / t_own[rounds / 2],
	       memcmp(counts_own, counts_kb, sizeof(counts_own)) ? "DIFFER" : "equal");
	kbuffer_free(kb);
	free(pages);
	free(t_own);
	free(t_kb);
	return memcmp(counts_own, counts_kb, sizeof(counts_own)) ? 1 : 0;
}
