// SPDX-License-Identifier: GPL-2.0
/*
 * The file's id.  See traceid.h.
 *
 * The file is mapped, not read, and hashed in one call by Debian's
 * libxxhash: XXH3_64bits rather than XXH64, because on inputs of
 * megabytes it runs at several times XXH64's speed (its SIMD paths), so
 * a push spends no noticeable CPU on the id; its output is fixed since
 * xxHash 0.8.0, and `xxhsum -H3 FILE` prints the same id (in hex), so
 * ids can be checked from the shell.  zlib's crc32 and adler32 through
 * read(), which ids were made with before, were a fifth of a push's CPU.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "push/traceid.h"

int kt_traceid_fd(int fd, unsigned long long *id)
{
	struct stat st;
	void *map;

	if (fstat(fd, &st))
		return -errno;
	/* An empty file cannot be mapped; its id is the hash of nothing. */
	if (!st.st_size) {
		*id = XXH3_64bits(NULL, 0);
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	*id = XXH3_64bits(map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
	return 0;
}
