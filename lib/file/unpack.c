// SPDX-License-Identifier: GPL-2.0
/*
 * The v7 reader's decompression.  zstd: one ZSTD_DCtx kept.  zlib: one
 * raw inflate stream kept (inflateReset, not inflateInit and inflateEnd
 * a chunk), the stream's two header bytes and its Adler-32 trailer
 * checked here, as inflate() would check them: the checksum in SSE2
 * registers, 64 bytes a step, where zlib's own adler32() takes about
 * four instructions a byte (15% of a zlib file's report).
 */
#include <emmintrin.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "file/unpack.h"

#define ADLER_BASE	65521u
/* 64-byte steps between reductions: the lanes' sums stay in 32 bits. */
#define ADLER_STEPS	256

struct kt_unpack {
	ZSTD_DCtx *zstd;
	z_stream zlib;
	int zlib_ready;
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
	if (u->zlib_ready)
		inflateEnd(&u->zlib);
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

static uint32_t hsum32(__m128i v)
{
	v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4e));
	v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0xb1));
	return (uint32_t)_mm_cvtsi128_si32(v);
}

/* One 16-byte piece of a step: its sum into *v1, weighted by wl, wh into *va, *vb. */
static inline void adler_piece(const unsigned char *b, __m128i wl, __m128i wh,
			       __m128i *v1, __m128i *va, __m128i *vb)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i x = _mm_loadu_si128((const __m128i *)b);

	*v1 = _mm_add_epi32(*v1, _mm_sad_epu8(x, zero));
	*va = _mm_add_epi32(*va, _mm_madd_epi16(_mm_unpacklo_epi8(x, zero), wl));
	*vb = _mm_add_epi32(*vb, _mm_madd_epi16(_mm_unpackhi_epi8(x, zero), wh));
}

/*
 * Over a block of n 64-byte steps: s1 gains the bytes' sum, s2 gains
 * 64n * s1 (its value before) + 64 * the sum, over the steps, of the
 * bytes before each step + each byte times 64 - its place in its step.
 */
uint32_t kt_unpack_adler32(uint32_t adler, const void *p, size_t len)
{
	const __m128i w[8] = {
		_mm_setr_epi16(64, 63, 62, 61, 60, 59, 58, 57),
		_mm_setr_epi16(56, 55, 54, 53, 52, 51, 50, 49),
		_mm_setr_epi16(48, 47, 46, 45, 44, 43, 42, 41),
		_mm_setr_epi16(40, 39, 38, 37, 36, 35, 34, 33),
		_mm_setr_epi16(32, 31, 30, 29, 28, 27, 26, 25),
		_mm_setr_epi16(24, 23, 22, 21, 20, 19, 18, 17),
		_mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9),
		_mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1),
	};
	const unsigned char *b = p;
	uint64_t s1 = adler & 0xffff, s2 = adler >> 16;

	while (len >= 64) {
		size_t n = len / 64, i;
		__m128i v1 = _mm_setzero_si128(), vpre = v1, va = v1, vb = v1;

		if (n > ADLER_STEPS)
			n = ADLER_STEPS;
		len -= n * 64;
		s2 += s1 * 64 * n;
		for (i = 0; i < n; i++, b += 64) {
			vpre = _mm_add_epi32(vpre, v1);
			adler_piece(b, w[0], w[1], &v1, &va, &vb);
			adler_piece(b + 16, w[2], w[3], &v1, &va, &vb);
			adler_piece(b + 32, w[4], w[5], &v1, &va, &vb);
			adler_piece(b + 48, w[6], w[7], &v1, &va, &vb);
		}
		s2 += 64 * (uint64_t)hsum32(vpre) + hsum32(_mm_add_epi32(va, vb));
		s1 += hsum32(v1);
		s1 %= ADLER_BASE;
		s2 %= ADLER_BASE;
	}
	while (len--) {
		s1 += *b++;
		s2 += s1;
	}
	return (uint32_t)(s2 % ADLER_BASE) << 16 | (uint32_t)(s1 % ADLER_BASE);
}

/* The checks inflate() makes of a zlib stream's two header bytes. */
static int zlib_header_ok(const unsigned char *h)
{
	return !(((unsigned)h[0] << 8 | h[1]) % 31) && (h[0] & 0x0f) == Z_DEFLATED &&
	       (h[0] >> 4) + 8 <= MAX_WBITS && !(h[1] & 0x20);
}

int kt_unpack_zlib(struct kt_unpack *u, const void *src, size_t slen,
		   void *dst, size_t dlen)
{
	const unsigned char *in = src, *t;
	z_stream *z = &u->zlib;
	uint32_t sum;

	if (!dlen) {
		/* uncompress()'s own rule here: any one-byte-or-less stream */
		uLongf n = 0;

		return uncompress(dst, &n, src, slen) == Z_OK ? 0 : -EBADMSG;
	}
	if (slen < 2 || !zlib_header_ok(in) || dlen > UINT_MAX || slen > UINT_MAX)
		return -EBADMSG;
	if (!u->zlib_ready) {
		memset(z, 0, sizeof(*z));
		if (inflateInit2(z, -MAX_WBITS) != Z_OK)
			return -ENOMEM;
		u->zlib_ready = 1;
	} else if (inflateReset(z) != Z_OK) {
		return -EBADMSG;
	}
	z->next_in = (Bytef *)in + 2;
	z->avail_in = (uInt)(slen - 2);
	z->next_out = dst;
	z->avail_out = (uInt)dlen;
	if (inflate(z, Z_FINISH) != Z_STREAM_END || z->avail_out || z->avail_in < 4)
		return -EBADMSG;
	t = z->next_in;
	sum = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
	return kt_unpack_adler32(1, dst, dlen) == sum ? 0 : -EBADMSG;
}
