// SPDX-License-Identifier: GPL-2.0
/*
 * A test driver for lib/base/bigbuf.c: for each size given, allocates a
 * buffer with kt_bigbuf_alloc() and prints, before anything writes it,
 * how it lies and how much of it the kernel has already backed (the
 * mapping's Rss and AnonHugePages in /proc/self/smaps, over the mapping
 * that holds it); then fills it, checks it and free()s it.
 *
 *   bigbuf-check SIZE...   prints "SIZE align2m=0|1 rss_kb=N huge_kb=N"
 *
 * `make unit` builds it, with the sanitizers, as build/asan/unit/bigbuf-check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/base/bigbuf.c"

/* Rss and AnonHugePages, in kB, of the mappings that overlap [p, p + len). */
static void backing(const void *p, size_t len, long *rss, long *huge)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len, s, e;
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	long v;

	*rss = *huge = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = s < hi && e > lo;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			*rss += v;
		if (in && sscanf(line, "AnonHugePages: %ld kB", &v) == 1)
			*huge += v;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		size_t len = strtoull(argv[i], NULL, 0), k;
		unsigned char *p = kt_bigbuf_alloc(len);
		long rss, huge;

		if (!p) {
			perror("kt_bigbuf_alloc");
			return 1;
		}
		backing(p, len, &rss, &huge);
		printf("%zu align2m=%d rss_kb=%ld huge_kb=%ld\n", len,
		       ((uintptr_t)p & ((2u << 20) - 1)) == 0, rss, huge);
		for (k = 0; k < len; k++)
			p[k] = (unsigned char)(k * 7);
		for (k = 0; k < len; k++)
			if (p[k] != (unsigned char)(k * 7)) {
				fprintf(stderr, "byte %zu of %zu reads back wrong\n", k, len);
				return 1;
			}
		free(p);
	}
	return 0;
}
