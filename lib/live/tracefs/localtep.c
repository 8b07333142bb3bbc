// SPDX-License-Identifier: GPL-2.0
/*
 * Live teps from tracefs files.  See localtep.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <tracefs.h>

#include "base/fileio.h"
#include "live/tracefs/localtep.h"

struct tep_handle *kt_local_tep_new(void)
{
	const char *dir = tracefs_tracing_dir();
	struct tep_handle *tep;
	char path[PATH_MAX], *text;
	size_t len;
	int ret;

	if (!dir) {
		errno = ENOENT;
		return NULL;
	}
	tep = tep_alloc();
	if (!tep) {
		errno = ENOMEM;
		return NULL;
	}
	tep_set_file_bigendian(tep, tep_is_local_bigendian(tep));
	tep_set_local_bigendian(tep, tep_is_local_bigendian(tep));
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	ret = kt_file_slurp(path, &text, &len);
	if (!ret) {
		if (tep_parse_header_page(tep, text, len, sizeof(long)))
			ret = -EINVAL;
		free(text);
	}
	if (!ret)
		return tep;
	tep_free(tep);
	errno = -ret;
	return NULL;
}

int kt_local_tep_add(struct tep_handle *tep, const char *system, const char *event)
{
	const char *dir = tracefs_tracing_dir();
	char path[PATH_MAX], *text;
	size_t len;
	int ret;

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, system, event);
	ret = kt_file_slurp(path, &text, &len);
	if (ret)
		return ret;
	if (tep_parse_event(tep, text, len, system) != TEP_ERRNO__SUCCESS)
		ret = -EINVAL;
	free(text);
	return ret;
}
