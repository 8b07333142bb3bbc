/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file written under a temporary name beside its final one and put in
 * its place only once whole, so no path leaves half a file under the
 * final name: every room's "write to a temporary file, then rename".
 *
 *   fd = kt_tmpfile_open(path, &tmp)    PATH.XXXXXX, mode 0644
 *   ... write fd, close it ...
 *   kt_tmpfile_commit(tmp, path)        in place of PATH, or removed
 *   kt_tmpfile_discard(tmp)             removed (a failure before commit)
 */
#ifndef KT_TMPFILE_H
#define KT_TMPFILE_H

/*
 * Create a new file PATH.XXXXXX in path's directory (so the rename stays
 * on one file system), mode 0644.  Its descriptor, with *tmp its malloc'ed
 * name; or -errno with *tmp NULL.
 */
int kt_tmpfile_open(const char *path, char **tmp);

/*
 * Put the finished file tmp in place of path, atomically.  An existing
 * file is swapped out and deleted rather than renamed over (see
 * tmpfile.c: ext4).  0, or -errno with tmp removed and path as it was.
 */
int kt_tmpfile_commit(const char *tmp, const char *path);

/* Remove an unfinished tmp (NULL or gone: nothing to do). */
void kt_tmpfile_discard(const char *tmp);

/*
 * A scratch file with no name in beside's directory: its descriptor, or
 * -errno.  It is gone when closed.
 */
int kt_tmpfile_scratch(const char *beside);

#endif
