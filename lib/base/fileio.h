/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole-buffer file I/O: write or read all of it, or fail with -errno.
 * Every loop that retries EINTR and short counts lives here once.
 */
#ifndef KT_FILEIO_H
#define KT_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* Write all len bytes at the file position.  0 or -errno (-EIO: no progress). */
int kt_write_all(int fd, const void *buf, size_t len);
/* The same at offset off; the file position does not move. */
int kt_pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* Read all len bytes at offset off.  0 or -errno (-EIO: the file ends). */
int kt_pread_all(int fd, void *buf, size_t len, off_t off);

/*
 * Read a whole file, procfs and tracefs ones included (they report size
 * 0), into a malloc'ed buffer.  0 or -errno.
 */
int kt_file_slurp(const char *path, char **text, size_t *len);

#endif
