// SPDX-License-Identifier: GPL-2.0
/*
 * The names of a recording's pieces (pieces.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/pieces.h"

char *kt_pieces_prefix(const char *output, pid_t pid)
{
	char *s;

	if (asprintf(&s, "%s" KT_PIECE_TMP "%d", output, (int)pid) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

char *kt_pieces_meta(const char *prefix)
{
	char *s;

	if (asprintf(&s, "%s" KT_PIECE_META, prefix) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

int kt_pieces_cpu(char *buf, size_t len, const char *prefix, int cpu)
{
	int n = snprintf(buf, len, "%s" KT_PIECE_CPU "%d", prefix, cpu);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

pid_t kt_pieces_pid(const char *name, const char *base)
{
	size_t blen = strlen(base), tlen = strlen(KT_PIECE_TMP);
	const char *p;
	long pid;

	if (strncmp(name, base, blen) || strncmp(name + blen, KT_PIECE_TMP, tlen))
		return 0;
	p = name + blen + tlen;
	if (!*p)
		return 0;
	for (pid = 0; *p; p++) {
		if (!isdigit((unsigned char)*p) || pid > INT32_MAX / 10)
			return 0;
		pid = pid * 10 + (*p - '0');
	}
	return pid;
}

long kt_pieces_chunk(const char *name, bool hidden)
{
	const char *p = name;
	size_t plen = strlen(KT_SERIES_PREFIX), slen = strlen(KT_SERIES_SUFFIX);
	long n = 0;
	int digits = 0;

	if (hidden && *p++ != '.')
		return -1;
	if (strncmp(p, KT_SERIES_PREFIX, plen))
		return -1;
	for (p += plen; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		n = n * 10 + (*p - '0');
	if (digits < 6 || strncmp(p, KT_SERIES_SUFFIX, slen))
		return -1;
	p += slen;
	if (!hidden)
		return *p ? -1 : n;
	return strncmp(p, KT_SERIES_PART, strlen(KT_SERIES_PART)) ? -1 : n;
}
