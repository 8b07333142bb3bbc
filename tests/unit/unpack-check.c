// SPDX-License-Identifier: GPL-2.0
/*
 * unpack-check: lib/file/unpack.c's zlib path (libdeflate) against zlib
 * itself: kt_unpack_zlib against uncompress() on streams of
 * several sizes and levels, each whole, cut short, with bytes after it,
 * and with each of its bytes (or, on a long stream, 300 of them) changed:
 * both must accept the same streams and give the same bytes.  Prints
 * "ok N streams" or the first difference, exits 1 on one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "file/unpack.h"

static unsigned long long rnd_state = 88172645463325252ull;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)rnd_state;
}

/* Both unpack src, or both fail, into the same bytes. */
static int same(struct kt_unpack *u, const unsigned char *src, size_t slen,
		size_t dlen, const char *what, size_t at)
{
	static unsigned char a[1 << 17], b[1 << 17];
	uLongf n = dlen;
	int zok, ours;

	zok = uncompress(a, &n, src, slen) == Z_OK && n == dlen;
	ours = !kt_unpack_zlib(u, src, slen, b, dlen);
	if (zok != ours || (zok && memcmp(a, b, dlen))) {
		printf("%s at %zu (%zu bytes in, %zu out): zlib %s, ours %s\n", what,
		       at, slen, dlen, zok ? "unpacks" : "refuses",
		       ours ? (zok ? "other bytes" : "unpacks") : "refuses");
		return 1;
	}
	return 0;
}

int main(void)
{
	static unsigned char raw[1 << 17], z[(1 << 17) + 1024];
	static const size_t sizes[] = { 0, 1, 100, 4096, 65536 };
	struct kt_unpack *u = kt_unpack_new();
	size_t s, i, j, n = 0, step;
	int level, bad = 0;

	if (!u)
		return 1;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && !bad; s++) {
		for (level = 0; level <= 9 && !bad; level += 3) {
			size_t len = sizes[s];
			uLongf zlen = sizeof(z) - 16;

			/* text-like bytes: repeats for the matcher, some noise */
			for (i = 0; i < len; i++)
				raw[i] = rnd() % 4 ? (unsigned char)("sched_switch: prev_comm=" [i % 24]) :
					 (unsigned char)rnd();
			if (compress2(z, &zlen, raw, len, level) != Z_OK) {
				bad = 1;
				break;
			}
			bad |= same(u, z, zlen, len, "whole stream", 0);
			if (len)
				bad |= same(u, z, zlen, len - 1, "one byte less asked", 0);
			bad |= same(u, z, zlen, len + 1, "one byte more asked", 0);
			memset(z + zlen, 0x5a, 16);
			bad |= same(u, z, zlen + 16, len, "bytes after the stream", 0);
			step = zlen > 300 ? zlen / 300 : 1;
			for (j = 0; j < zlen && !bad; j += step)
				bad |= same(u, z, j, len, "cut short", j);
			for (j = zlen > 8 ? zlen - 8 : 0; j < zlen && !bad; j++)
				bad |= same(u, z, j, len, "cut short", j);
			for (j = 0; j < zlen && !bad; j += step) {
				unsigned char was = z[j];

				z[j] ^= (unsigned char)(1u << (rnd() % 8));
				bad |= same(u, z, zlen, len, "byte changed", j);
				z[j] = (unsigned char)rnd();
				bad |= same(u, z, zlen, len, "byte replaced", j);
				z[j] = was;
				n += 2;
			}
			n += 5;
		}
	}
	kt_unpack_free(u);
	fflush(stdout);
	if (bad)
		return 1;
	printf("ok %zu streams\n", n);
	return 0;
}
