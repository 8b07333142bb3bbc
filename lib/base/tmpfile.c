// SPDX-License-Identifier: GPL-2.0
/*
 * Temporary files beside an output: created in the output's directory,
 * renamed into place when whole, removed on every other path
 * (base/tmpfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tmpfile.h"

/*
 * The file a path names: a symlink's target (-o /dev/stdout with stdout
 * sent to a file is /proc/self/fd/1, that file), so the new file takes the
 * target's place and the link stays a link.  Replacing the link itself
 * turned /dev/stdout into a plain file for every later program.  A
 * dangling link is the path itself.  Malloc'ed, or NULL.
 */
static char *final_name(const char *path)
{
	struct stat st;
	char *real;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			return real;
	}
	return strdup(path);
}

int kt_tmpfile_open(const char *path, char **tmp)
{
	char *name = final_name(path);
	int fd, ret;

	if (!name || asprintf(tmp, "%s.XXXXXX", name) < 0) {
		free(name);
		*tmp = NULL;
		return -ENOMEM;
	}
	free(name);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	/* mkstemp() gives 0600; an output is read by others as any file. */
	fchmod(fd, 0644);
	return fd;
}

/*
 * An existing file is swapped out and then deleted rather than renamed
 * over: ext4 (auto_da_alloc) answers a rename over a file by writing the
 * whole new file out at once, in the renaming process's time (0.8 s of
 * system time for a 500 MB report); the swap keeps the replacement
 * atomic without it.  Where the swap is refused (a file system without
 * RENAME_EXCHANGE, a directory), a plain rename says what happens.
 */
int kt_tmpfile_commit(const char *tmp, const char *path)
{
	char *name = final_name(path);
	struct stat st;
	int ret = 0;

	if (!name) {
		kt_tmpfile_discard(tmp);
		return -ENOMEM;
	}
	if (!lstat(name, &st) && !S_ISDIR(st.st_mode) &&
	    !renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_EXCHANGE)) {
		/* tmp now holds the old file. */
		if (unlink(tmp) && errno != ENOENT)
			kt_warn("cannot remove the old '%s', now '%s': %s",
				name, tmp, strerror(errno));
		free(name);
		return 0;
	}
	if (rename(tmp, name)) {
		ret = -errno;
		kt_tmpfile_discard(tmp);
	}
	free(name);
	return ret;
}

void kt_tmpfile_discard(const char *tmp)
{
	if (tmp)
		unlink(tmp);
}

int kt_tmpfile_scratch(const char *beside)
{
	char *name;
	int fd;

	fd = kt_tmpfile_open(beside, &name);
	if (fd < 0)
		return fd;
	unlink(name);
	free(name);
	return fd;
}
