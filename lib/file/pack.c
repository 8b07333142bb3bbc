// SPDX-License-Identifier: GPL-2.0
/*
 * Compression for the v7 writer: libzstd and zlib do the work.  zstd as
 * trace-cmd sets it up (no content size in the frame); levels: the
 * library's default for the data chunks (trace-cmd's), a stronger one for
 * the metadata sections, packed once (kallsyms is most of a small file).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "file/pack.h"

#define ZSTD_LEVEL_DATA		ZSTD_CLEVEL_DEFAULT
#define ZSTD_LEVEL_META		6
#define ZLIB_LEVEL_DATA		Z_DEFAULT_COMPRESSION
#define ZLIB_LEVEL_META		Z_BEST_COMPRESSION
/*
 * kt_pack_set_fast()'s (bench/pack-levels: 40 KB blocks of dbench's
 * raw_syscalls pages): zstd -1 with matches of 7 bytes at least packs
 * in 69% of level 3's CPU to 105% of its bytes; level 1 took 84%
 * (100%), level 1 with 7-byte matches 80% (98%), -1 alone 70% (106%).
 * The negative level leaves the literals unpacked; the longer least
 * match makes fewer, better tries (the pages' numbers repeat in whole
 * words).  zlib 1 in 42% of level 6's CPU to 141% (BENCHMARKS.md).
 */
#define ZSTD_LEVEL_FAST		(-1)
#define ZSTD_MINMATCH_FAST	7
#define ZLIB_LEVEL_FAST		Z_BEST_SPEED

enum pack_kind { PACK_ZSTD, PACK_ZLIB };

struct kt_pack {
	enum pack_kind kind;
	ZSTD_CCtx *zc;
	int zlevel;		/* the level zc is set to, INT_MIN: none yet */
	bool fast;		/* data at the fast level */
};

int kt_pack_known(const char *name)
{
	return name && (!strcmp(name, "none") || !strcmp(name, "zstd") ||
			!strcmp(name, "zlib"));
}

struct kt_pack *kt_pack_new(const char *name)
{
	struct kt_pack *p;

	if (!name || (strcmp(name, "zstd") && strcmp(name, "zlib"))) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->kind = strcmp(name, "zstd") ? PACK_ZLIB : PACK_ZSTD;
	p->zlevel = INT_MIN;
	if (p->kind == PACK_ZSTD) {
		p->zc = ZSTD_createCCtx();
		if (!p->zc ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(p->zc,
				ZSTD_c_contentSizeFlag, 0))) {
			ZSTD_freeCCtx(p->zc);
			free(p);
			errno = ENOMEM;
			return NULL;
		}
	}
	return p;
}

void kt_pack_free(struct kt_pack *p)
{
	if (!p)
		return;
	ZSTD_freeCCtx(p->zc);
	free(p);
}

const char *kt_pack_name(const struct kt_pack *p)
{
	return p->kind == PACK_ZSTD ? "zstd" : "zlib";
}

const char *kt_pack_version(const struct kt_pack *p)
{
	return p->kind == PACK_ZSTD ? ZSTD_versionString() : zlibVersion();
}

void kt_pack_set_fast(struct kt_pack *p)
{
	p->fast = true;
}

size_t kt_pack_bound(const struct kt_pack *p, size_t len)
{
	return p->kind == PACK_ZSTD ? ZSTD_compressBound(len) :
				      compressBound(len);
}

ssize_t kt_pack_block(struct kt_pack *p, const void *in, size_t len,
		      void *out, size_t cap, int meta)
{
	if (p->kind == PACK_ZSTD) {
		int level = meta ? ZSTD_LEVEL_META :
			    p->fast ? ZSTD_LEVEL_FAST : ZSTD_LEVEL_DATA;
		size_t n;

		if (level != p->zlevel) {
			/* A set least match stays over a level: 0 is the level's own. */
			int mml = level == ZSTD_LEVEL_FAST ? ZSTD_MINMATCH_FAST : 0;

			if (ZSTD_isError(ZSTD_CCtx_setParameter(p->zc,
					ZSTD_c_compressionLevel, level)) ||
			    ZSTD_isError(ZSTD_CCtx_setParameter(p->zc,
					ZSTD_c_minMatch, mml)))
				return -EINVAL;
			p->zlevel = level;
		}
		n = ZSTD_compress2(p->zc, out, cap, in, len);
		return ZSTD_isError(n) ? -EIO : (ssize_t)n;
	} else {
		uLongf n = cap;

		if (compress2(out, &n, in, len,
			      meta ? ZLIB_LEVEL_META :
			      p->fast ? ZLIB_LEVEL_FAST : ZLIB_LEVEL_DATA) != Z_OK)
			return -EIO;
		return (ssize_t)n;
	}
}
