// SPDX-License-Identifier: GPL-2.0
/*
 * Live teps from tracefs files.  See localtep.h.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The format file at path, of system, into tep: 0 or -errno. */
static int add_format(struct tep_handle *tep, const char *path, const char *system)
{
	char *text;
	size_t len;
	int ret;

	ret = kt_file_slurp(path, &text, &len);
	if (ret)
		return ret;
	if (tep_parse_event(tep, text, len, system) != TEP_ERRNO__SUCCESS)
		ret = -EINVAL;
	free(text);
	return ret;
}

int kt_local_tep_add(struct tep_handle *tep, const char *system, const char *event)
{
	const char *dir = tracefs_tracing_dir();
	char path[PATH_MAX];

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, system, event);
	return add_format(tep, path, system);
}

/* The events of one system (or of all: "*"); a format that fails is left out. */
static void add_system(struct tep_handle *tep, const char *dir, const char *system)
{
	char pat[PATH_MAX], sys[256];
	glob_t formats;
	size_t i;

	snprintf(pat, sizeof(pat), "%s/events/%s/*/format", dir, system);
	if (glob(pat, 0, NULL, &formats))
		return;
	for (i = 0; i < formats.gl_pathc; i++) {
		/* DIR/events/SYS/EVENT/format: SYS names the system */
		snprintf(sys, sizeof(sys), "%s",
			 formats.gl_pathv[i] + strlen(dir) + strlen("/events/"));
		*strchrnul(sys, '/') = '\0';
		add_format(tep, formats.gl_pathv[i], sys);
	}
	globfree(&formats);
}

/* A file whole into parse(tep, text); a missing one: nothing. */
static void parse_file(struct tep_handle *tep, const char *path,
		       int (*parse)(struct tep_handle *, const char *))
{
	char *text;
	size_t len;

	if (kt_file_slurp(path, &text, &len))
		return;
	parse(tep, text);
	free(text);
}

struct tep_handle *kt_local_tep_systems(const char *const *systems)
{
	const char *dir = tracefs_tracing_dir();
	struct tep_handle *tep = kt_local_tep_new();
	char path[PATH_MAX];

	if (!tep)
		return NULL;
	if (!systems)
		add_system(tep, dir, "*");
	for (; systems && *systems; systems++)
		add_system(tep, dir, *systems);
	parse_file(tep, "/proc/kallsyms", tep_parse_kallsyms);
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	parse_file(tep, path, tep_parse_printk_formats);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	parse_file(tep, path, tep_parse_saved_cmdlines);
	return tep;
}
