// SPDX-License-Identifier: GPL-2.0
/*
 * pack-levels: lib/file/pack.c's blocks against the libraries packing
 * at the levels it promises: zstd data at 3 (trace-cmd's, the library's
 * default), metadata at 6, and after kt_pack_set_fast() data at -1 with
 * 7-byte least matches (a trigger's ring) with metadata still at 6, its
 * least match the level's own again; zlib data at 6, metadata at
 * 9, fast data at 1.  Each block must be byte for byte what the library
 * makes at that level (zstd without the content size, as trace-cmd
 * packs), and unpack to its input.  The input is pages of records like
 * a ring's: compressible, not trivially.  Prints "ok N blocks" or the
 * first difference, exits 1 on one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "file/pack.h"
#include "file/unpack.h"

#define BLOCK	40960	/* KT_DAT_CHUNK_PAGES pages, as the writer packs */

/* Knuth's MMIX generator: the same records every run. */
static uint32_t rnd(void)
{
	static uint64_t state = 1;

	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(state >> 33);
}

/* Records of 24 bytes: a growing time delta, a few ids, a random word. */
static void fill(unsigned char *p, size_t len)
{
	uint32_t rec[6];
	size_t i;

	for (i = 0; i + sizeof(rec) <= len; i += sizeof(rec)) {
		rec[0] = (rnd() & 0x3ff) << 5;
		rec[1] = 21 + (rnd() & 1);
		rec[2] = 1000 + (rnd() & 7);
		rec[3] = rnd() & 0xff;
		rec[4] = rnd();
		rec[5] = 0;
		memcpy(p + i, rec, sizeof(rec));
	}
	memset(p + i, 0, len - i);
}

/*
 * What a new libzstd context makes of in at level (no content size),
 * its least match mml (0: the level's).
 */
static size_t zstd_at(int level, int mml, const void *in, size_t len,
		      void *out, size_t cap)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t n = 0;

	if (c && !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) &&
	    !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)) &&
	    !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, mml)))
		n = ZSTD_compress2(c, out, cap, in, len);
	ZSTD_freeCCtx(c);
	return ZSTD_isError(n) ? 0 : n;
}

static size_t zlib_at(int level, const void *in, size_t len, void *out, size_t cap)
{
	uLongf n = cap;

	return compress2(out, &n, in, len, level) == Z_OK ? n : 0;
}

/* p's block of in (meta or not) is the library's at level (zstd: its least match mml), and unpacks. */
static int check(struct kt_pack *p, struct kt_unpack *u, int zstd, int level,
		 int mml, int meta, const unsigned char *in, size_t len,
		 const char *what)
{
	static unsigned char ours[2 * BLOCK], theirs[2 * BLOCK], back[BLOCK];
	ssize_t n = kt_pack_block(p, in, len, ours, sizeof(ours), meta);
	size_t m = zstd ? zstd_at(level, mml, in, len, theirs, sizeof(theirs)) :
			  zlib_at(level, in, len, theirs, sizeof(theirs));
	int ret;

	if (n <= 0 || !m) {
		printf("%s: packing failed (ours %zd, the library's %zu)\n", what, n, m);
		return 1;
	}
	if ((size_t)n != m || memcmp(ours, theirs, m)) {
		printf("%s: %zd bytes, not the %zu the library makes at level %d\n",
		       what, n, m, level);
		return 1;
	}
	ret = zstd ? kt_unpack_zstd(u, ours, (size_t)n, back, len) :
		     kt_unpack_zlib(u, ours, (size_t)n, back, len);
	if (ret || memcmp(back, in, len)) {
		printf("%s: does not unpack to its input\n", what);
		return 1;
	}
	return 0;
}

int main(void)
{
	static unsigned char in[BLOCK];
	static const size_t lens[] = { 1, 4096, BLOCK };
	struct kt_unpack *u = kt_unpack_new();
	struct kt_pack *p;
	int zstd, n = 0, bad = 0;
	size_t i;

	if (!u)
		return 1;
	for (zstd = 1; zstd >= 0 && !bad; zstd--) {
		p = kt_pack_new(zstd ? "zstd" : "zlib");
		if (!p) {
			printf("no packer for %s\n", zstd ? "zstd" : "zlib");
			return 1;
		}
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]) && !bad; i++) {
			fill(in, lens[i]);
			bad |= check(p, u, zstd, zstd ? 3 : 6, 0, 0, in, lens[i], "data");
			bad |= check(p, u, zstd, zstd ? 6 : 9, 0, 1, in, lens[i], "metadata");
			n += 2;
		}
		kt_pack_set_fast(p);
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]) && !bad; i++) {
			fill(in, lens[i]);
			bad |= check(p, u, zstd, zstd ? -1 : 1, zstd ? 7 : 0, 0, in,
				     lens[i], "fast data");
			bad |= check(p, u, zstd, zstd ? 6 : 9, 0, 1, in, lens[i],
				     "fast metadata");
			n += 2;
		}
		kt_pack_free(p);
	}
	kt_unpack_free(u);
	if (!bad)
		printf("ok %d blocks\n", n);
	return bad;
}
