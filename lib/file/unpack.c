// SPDX-License-Identifier: GPL-2.0
/*
 * The v7 reader's decompression.  zstd: one ZSTD_DCtx kept.  zlib:
 * libdeflate's whole-buffer decompressor, kept: a v7 chunk gives both
 * sizes, so nothing needs zlib's streaming, and libdeflate inflates and
 * checks the stream's header and Adler-32 in about half zlib's
 * instructions (BENCHMARKS.md, issue 32's zlib row).
 */
#include <errno.h>
#include <stdlib.h>
#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include "file/unpack.h"

struct kt_unpack {
	ZSTD_DCtx *zstd;
	struct libdeflate_decompressor *deflate;
};

struct kt_unpack *kt_unpack_new(void)
{
	return calloc(1, sizeof(struct kt_unpack));
}

void kt_unpack_free(struct kt_unpack *u)
{
	if (!u)
		return;
	ZSTD_freeDCtx(u->zstd);
	if (u->deflate)
		libdeflate_free_decompressor(u->deflate);
	free(u);
}

int kt_unpack_zstd(struct kt_unpack *u, const void *src, size_t slen,
		   void *dst, size_t dlen)
{
	size_t n;

	if (!u->zstd && !(u->zstd = ZSTD_createDCtx()))
		return -ENOMEM;
	n = ZSTD_decompressDCtx(u->zstd, dst, dlen, src, slen);
	return ZSTD_isError(n) || n != dlen ? -EBADMSG : 0;
}

int kt_unpack_zlib(struct kt_unpack *u, const void *src, size_t slen,
		   void *dst, size_t dlen)
{
	if (!dlen) {
		/* uncompress()'s own rule here: any one-byte-or-less stream */
		uLongf n = 0;

		return uncompress(dst, &n, src, slen) == Z_OK ? 0 : -EBADMSG;
	}
	if (!u->deflate && !(u->deflate = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	/* no out-size pointer: anything but exactly dlen bytes is refused */
	return libdeflate_zlib_decompress(u->deflate, src, slen, dst, dlen, NULL) ==
		       LIBDEFLATE_SUCCESS ? 0 : -EBADMSG;
}
