// SPDX-License-Identifier: GPL-2.0
/*
 * A command's -o FILE: written to a temporary file beside it and put in
 * place only when the whole output was written (base/tmpfile.h), so a
 * failure never leaves a half-written file under the final name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "base/fileroom.h"
#include "base/log.h"
#include "base/tmpfile.h"

FILE *output_open(const char *path, char **tmp)
{
	struct stat st;
	FILE *f;
	int fd;

	*tmp = NULL;
	if (!path || !strcmp(path, "-"))
		return stdout;
	/* A device or a fifo (-o /dev/null) is written as it is. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			kt_err("cannot open '%s': %s", path, strerror(errno));
		return f;
	}
	fd = kt_tmpfile_open(path, tmp);
	if (fd < 0) {
		kt_err("cannot create '%s': %s; try -o in a writable directory",
		       path, strerror(-fd));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		kt_err("cannot create '%s': %s", path, strerror(errno));
		close(fd);
		kt_tmpfile_discard(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

int output_close(FILE *f, const char *path, char *tmp, int status)
{
	int ret = 0;

	if (f == stdout) {
		/*
		 * The dispatcher checks stdout; flushed here so that room a
		 * printer took ahead of a file (kt_printer_own_file()) is
		 * given back, or left as it was when that cannot be done.
		 */
		if (!fflush(stdout))
			kt_fileroom_trim(STDOUT_FILENO);
		return status;
	}
	if (!tmp) {
		if (fclose(f) && status == KT_EXIT_OK) {
			kt_err("cannot write '%s': %s", path, strerror(errno));
			status = KT_EXIT_FAIL;
		}
		return status;
	}
	/* Room a printer took ahead (kt_printer_own_file()) given back. */
	if (fflush(f))
		ret = -errno;
	if (!ret)
		ret = kt_fileroom_trim(fileno(f));
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret || status != KT_EXIT_OK)
		kt_tmpfile_discard(tmp);
	else
		ret = kt_tmpfile_commit(tmp, path);
	if (ret) {
		kt_err("cannot write '%s': %s", path, strerror(-ret));
		status = KT_EXIT_FAIL;
	}
	free(tmp);
	return status;
}
