/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Disk room taken ahead of a long run of appends to a file of one's own.
 *
 * ext4 pays for each 4 KB block a write(2) adds past a file's end: the
 * delayed allocation's reservation, its extent-status entry and a buffer
 * head.  Writing a report's 324 MB of text cost 63-65 ms of CPU that way,
 * a third of the whole report; over blocks fallocate()d ahead of the end
 * (FALLOC_FL_KEEP_SIZE: the size stays what was written) the same writes
 * cost 45-47 ms, and the machine's busy time, the later writeback
 * included, was no higher (measured 2026-11-30, BENCHMARKS.md "report:
 * kinds of file").  Only on ext4: tmpfs fills and zeroes the pages
 * fallocate takes, which made the same writes slower there.
 *
 *   kt_fileroom_init(&room, fd)      decides whether it pays for fd
 *   kt_fileroom_ahead(&room, n)      before writing n bytes at fd's offset
 *                                    (past the file's first 1 MB)
 *   kt_fileroom_trim(fd)             once written: the blocks left past
 *                                    the end given back
 *
 * Only where the caller's writes are the file's end: a file opened for
 * it (a temporary output), or standard output sent to a file with '>'
 * (not '>>': O_APPEND shares the end with other writers), its offset at
 * the file's size.  The trim likewise truncates only while the offset
 * is still the size, so no other writer's bytes past it are cut.
 */
#ifndef KT_FILEROOM_H
#define KT_FILEROOM_H

#include <sys/types.h>

struct kt_fileroom {
	int fd;		/* -1: nothing taken ahead (not ext4, or it failed) */
	off_t end;	/* the room taken so far ends here */
};

void kt_fileroom_init(struct kt_fileroom *room, int fd);
/*
 * Take room ahead when the n bytes about to be written at fd's offset go
 * past what was taken.  A failure (a full disk) stops the taking; the
 * write itself then says what is wrong.
 */
void kt_fileroom_ahead(struct kt_fileroom *room, size_t n);
/*
 * Give back the blocks taken past fd's end, on ext4, when fd's offset is
 * the file's end: 0 or -errno.
 */
int kt_fileroom_trim(int fd);

#endif
