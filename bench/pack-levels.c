// SPDX-License-Identifier: GPL-2.0
/*
 * pack-levels-speed FILE [PASSES]: the CPU and bytes of packing FILE's
 * bytes (ring-buffer pages) in 40 KB blocks, as the v7 writer packs its
 * data, at the levels it might use: lib/file/pack.c's data level (3,
 * trace-cmd's) and its fast level (a trigger's ring, kt_pack_set_fast()),
 * and libzstd's levels around them.  Interleaved passes, the order
 * turned each pass; prints each one's median CPU per GB of pages and
 * its CPU and bytes against the data level's.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zstd.h>

#include "file/pack.h"
#include "file/tracedat.h"

#define BLOCK		(KT_DAT_CHUNK_PAGES * 4096)	/* a v7 data block */
#define MAX_PASSES	31

/*
 * One way of packing: ktrace's packer (ours, at its fast level or not),
 * or libzstd at level with least match mml (0: the level's).
 */
struct way {
	const char *name;
	bool ours, fast;
	int level, mml;
	struct kt_pack *pack;	/* ours; else zc */
	ZSTD_CCtx *zc;
	double cpu[MAX_PASSES];
	size_t bytes;
};

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static ZSTD_CCtx *zstd_at(int level, int mml)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();

	if (c && (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
		  ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)) ||
		  ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, mml)))) {
		ZSTD_freeCCtx(c);
		return NULL;
	}
	return c;
}

/* One pass of w over in[0..len): its bytes, 0 on a failure. */
static size_t pass(struct way *w, const char *in, size_t len, char *out, size_t cap)
{
	size_t off, total = 0;

	for (off = 0; off + BLOCK <= len; off += BLOCK) {
		long long n;

		if (w->pack) {
			n = kt_pack_block(w->pack, in + off, BLOCK, out, cap, 0);
		} else {
			size_t z = ZSTD_compress2(w->zc, out, cap, in + off, BLOCK);

			n = ZSTD_isError(z) ? -1 : (long long)z;
		}
		if (n <= 0)
			return 0;
		total += (size_t)n;
	}
	return total;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= BLOCK &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	struct way ways[] = {
		{ .name = "ktrace data (zstd 3)", .ours = true },
		{ .name = "ktrace fast (the ring's)", .ours = true, .fast = true },
		{ .name = "zstd 1", .level = 1 },
		{ .name = "zstd 1, least match 7", .level = 1, .mml = 7 },
		{ .name = "zstd -1", .level = -1 },
		{ .name = "zstd -3", .level = -3 },
	};
	int nways = (int)(sizeof(ways) / sizeof(ways[0])), passes, p, k, i;
	size_t len, cap = ZSTD_compressBound(BLOCK);
	char *in, *out = malloc(cap);
	double gb, base_cpu = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: pack-levels-speed FILE [PASSES]\n");
		return 64;
	}
	passes = argc > 2 ? atoi(argv[2]) : 7;
	if (passes < 1 || passes > MAX_PASSES) {
		fprintf(stderr, "pack-levels-speed: bad PASSES '%s'; give 1 to %d\n",
			argv[2], MAX_PASSES);
		return 64;
	}
	in = read_all(argv[1], &len);
	if (!in || !out) {
		fprintf(stderr, "pack-levels-speed: cannot read '%s' (%d KB at least)\n",
			argv[1], BLOCK / 1024);
		return 1;
	}
	for (i = 0; i < nways; i++) {
		if (ways[i].ours)
			ways[i].pack = kt_pack_new("zstd");
		else
			ways[i].zc = zstd_at(ways[i].level, ways[i].mml);
		if (ways[i].pack && ways[i].fast)
			kt_pack_set_fast(ways[i].pack);
		if (!ways[i].pack && !ways[i].zc) {
			fprintf(stderr, "pack-levels-speed: no packer for %s\n", ways[i].name);
			return 1;
		}
	}
	for (p = 0; p < passes; p++) {
		for (k = 0; k < nways; k++) {
			struct way *w = &ways[(k + p) % nways];
			double t0 = cpu_now();

			w->bytes = pass(w, in, len, out, cap);
			w->cpu[p] = cpu_now() - t0;
			if (!w->bytes) {
				fprintf(stderr, "pack-levels-speed: %s failed\n", w->name);
				return 1;
			}
		}
	}
	gb = (double)(len / BLOCK * BLOCK) / (1 << 30);
	printf("%zu MB of pages in %d KB blocks, median of %d interleaved passes\n",
	       len >> 20, BLOCK / 1024, passes);
	printf("%-26s %10s %10s %10s\n", "way", "CPU s/GB", "CPU / 3", "bytes / 3");
	for (i = 0; i < nways; i++) {
		double med;

		qsort(ways[i].cpu, (size_t)passes, sizeof(double), cmp_double);
		med = ways[i].cpu[passes / 2];
		if (!i)
			base_cpu = med;
		printf("%-26s %10.3f %9.3fx %9.3fx\n", ways[i].name, med / gb,
		       med / base_cpu, (double)ways[i].bytes / (double)ways[0].bytes);
	}
	for (i = 0; i < nways; i++) {
		kt_pack_free(ways[i].pack);
		ZSTD_freeCCtx(ways[i].zc);
	}
	free(in);
	free(out);
	return 0;
}
