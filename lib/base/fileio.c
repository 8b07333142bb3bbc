// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-buffer file I/O: the write and read loops every room needs, with
 * EINTR retried and short counts continued.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fileio.h"

/* off < 0: at the file position, which moves; else at off with pwrite. */
static int put_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int kt_write_all(int fd, const void *buf, size_t len)
{
	return put_all(fd, buf, len, -1);
}

int kt_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	return off < 0 ? -EINVAL : put_all(fd, buf, len, off);
}

int kt_pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, (char *)buf + got, len - got, off + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += n;
	}
	return 0;
}

/* tracefs and procfs files report size 0 to stat: grow as it goes. */
int kt_file_slurp(const char *path, char **text, size_t *len)
{
	size_t cap = 8192, got = 0;
	char *buf, *nbuf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (got == cap) {
			cap *= 2;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nbuf;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		got += n;
	}
	/* Room for the NUL, and no slack kept: a caller may hold many. */
	nbuf = realloc(buf, got + 1);
	if (!nbuf) {
		ret = -ENOMEM;
		goto out;
	}
	buf = nbuf;
	buf[got] = '\0';
	*text = buf;
	*len = got;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return ret;
}
