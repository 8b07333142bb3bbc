// SPDX-License-Identifier: GPL-2.0
/*
 * The file's id.  See traceid.h.
 *
 * The file is mapped, not read, and hashed 32 bytes a step in four
 * independent lanes of multiply and rotate (the scheme of xxHash64, with
 * its primes), then the lanes and the length mixed: the file is hashed
 * at memory speed.  zlib's crc32 and adler32 through read(), which ids
 * were made with before, were a fifth of a push's CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "push/traceid.h"

#define P1 0x9e3779b185ebca87ULL
#define P2 0xc2b2ae3d27d4eb4fULL
#define P3 0x165667b19e3779f9ULL
#define P4 0x85ebca77c2b2ae63ULL
#define P5 0x27d4eb2f165667c5ULL

static uint64_t rotl(uint64_t v, int r)
{
	return v << r | v >> (64 - r);
}

static uint64_t word(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		v = __builtin_bswap64(v);
	return v;
}

static uint64_t lane(uint64_t h, uint64_t w)
{
	return rotl(h + w * P2, 31) * P1;
}

static uint64_t merge(uint64_t h, uint64_t v)
{
	return (h ^ lane(0, v)) * P1 + P4;
}

static uint64_t hash(const unsigned char *p, size_t n)
{
	uint64_t v[4] = { P1 + P2, P2, 0, -P1 }, h;
	size_t i = 0;
	int k;

	if (n >= 32) {
		for (; i + 32 <= n; i += 32)
			for (k = 0; k < 4; k++)
				v[k] = lane(v[k], word(p + i + 8 * k));
		h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
		for (k = 0; k < 4; k++)
			h = merge(h, v[k]);
	} else {
		h = P5;
	}
	h += n;
	for (; i + 8 <= n; i += 8)
		h = rotl(h ^ lane(0, word(p + i)), 27) * P1 + P4;
	for (; i < n; i++)
		h = rotl(h ^ (p[i] * P5), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ h >> 32;
}

int kt_traceid_file(const char *path, unsigned long long *id)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (!st.st_size) {
		*id = hash(NULL, 0);
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	*id = hash(map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
out:
	close(fd);
	return ret;
}
