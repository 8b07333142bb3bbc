// SPDX-License-Identifier: GPL-2.0
/*
 * The file's id.  See traceid.h.
 *
 * The file is read in pieces and hashed as it comes by Debian's
 * libxxhash: XXH3_64bits rather than XXH64, because on inputs of
 * megabytes it runs at several times XXH64's speed (its SIMD paths), so
 * a push spends no noticeable CPU on the id; its output is fixed since
 * xxHash 0.8.0, and `xxhsum -H3 FILE` prints the same id (in hex), so
 * ids can be checked from the shell.  zlib's crc32 and adler32 through
 * read(), which ids were made with before, were a fifth of a push's CPU.
 * Read, not mapped: a file cut short while it is hashed must not kill
 * push with SIGBUS, and 256 KB pieces (a cache's worth) hash as fast as
 * the mapping did without its page tables to make and tear down.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <xxhash.h>

#include "push/traceid.h"
#include "push/xxhfns.h"

#define PIECE	(256u << 10)

static int hash_fd(const struct kt_xxh *x, XXH3_state_t *st, unsigned char *buf,
		   int fd)
{
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, PIECE, off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		x->update(st, buf, (size_t)n);
		off += n;
	}
	return 0;
}

/* fd's bytes, or (fd < 0) those of each of paths in turn. */
static int hash(int fd, const char *const *paths, int n,
		unsigned long long *id)
{
	const struct kt_xxh *x = kt_xxh_get();
	XXH3_state_t *st = x ? x->create() : NULL;
	unsigned char *buf = malloc(PIECE);
	int ret = 0, i;

	if (!x) {
		ret = -ELIBACC;
		goto out;
	}
	if (!st || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	x->reset(st);
	if (fd >= 0)
		ret = hash_fd(x, st, buf, fd);
	for (i = 0; fd < 0 && !ret && i < n; i++) {
		int f = open(paths[i], O_RDONLY | O_CLOEXEC);

		if (f < 0) {
			ret = -errno;
			break;
		}
		ret = hash_fd(x, st, buf, f);
		close(f);
	}
	if (!ret)
		*id = x->digest(st);
out:
	free(buf);
	if (st)
		x->destroy(st);
	return ret;
}

int kt_traceid_fd(int fd, unsigned long long *id)
{
	return hash(fd, NULL, 0, id);
}

int kt_traceid_paths(const char *const *paths, int n, unsigned long long *id)
{
	return hash(-1, paths, n, id);
}
