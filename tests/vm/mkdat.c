// SPDX-License-Identifier: GPL-2.0
/*
 * mkdat: wrap pages and format files copied out of a VM into a minimal
 * trace.dat v6 (see trace-cmd.dat.v6(5)), so that trace-cmd report can
 * act as the oracle for ktrace.ko's page and format-file output.
 *
 *   mkdat OUT DIR NCPU
 *
 * DIR holds header_page, header_event, events/<name>/format and the raw
 * pages of each CPU in cpu0, cpu1, ...; the events go in as system
 * "ktrace".  A test tool only: the real writer lives in lib/.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/file/tracedat.h"
#include "../../kernel/ktrace-abi.h"

#define PAGE 4096

static FILE *out;

static void die(const char *what)
{
	fprintf(stderr, "mkdat: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, out) != n)
		die("write");
}

static void put32(uint32_t v)
{
	put(&v, 4);
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

/* Read a whole file; *len gets its size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		die(path);
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

static void put_file64(const char *path)
{
	size_t len;
	char *buf = slurp(path, &len);

	put64(len);
	put(buf, len);
	free(buf);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char path[4096], *names[256];
	const char *dir;
	uint64_t *offs, *sizes;
	struct dirent *de;
	int ncpu, nev = 0, i;
	long pos;
	DIR *d;

	if (argc != 4)
		return 64;
	dir = argv[2];
	ncpu = atoi(argv[3]);
	if (ncpu <= 0 || ncpu > 4096)
		return 64;
	out = fopen(argv[1], "wb");
	if (!out)
		die(argv[1]);

	put(KT_DAT_MAGIC, KT_DAT_MAGIC_LEN);
	put("6", 2);
	put("\0\10", 2);		/* little endian, 8-byte long */
	put32(PAGE);
	put(KT_DAT_HEADER_PAGE, sizeof(KT_DAT_HEADER_PAGE));
	snprintf(path, sizeof(path), "%s/header_page", dir);
	put_file64(path);
	put(KT_DAT_HEADER_EVENT, sizeof(KT_DAT_HEADER_EVENT));
	snprintf(path, sizeof(path), "%s/header_event", dir);
	put_file64(path);
	put32(0);			/* no ftrace formats */

	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	if (!d)
		die(path);
	while ((de = readdir(d)) && nev < 256)
		if (de->d_name[0] != '.')
			names[nev++] = strdup(de->d_name);
	closedir(d);
	qsort(names, nev, sizeof(*names), cmp);
	put32(1);			/* one system */
	put(KTRACE_EVENT_SYSTEM, sizeof(KTRACE_EVENT_SYSTEM));
	put32(nev);
	for (i = 0; i < nev; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/format", dir,
			 names[i]);
		put_file64(path);
	}
	put32(0);			/* kallsyms */
	put32(0);			/* printk formats */
	put64(0);			/* cmdlines */
	put32(ncpu);
	put(KT_DAT_LABEL_OPTIONS, KT_DAT_LABEL_LEN);
	put("\0\0", 2);			/* no options */
	put(KT_DAT_LABEL_FLYRECORD, KT_DAT_LABEL_LEN);

	/* The CPU table, then page-aligned data. */
	offs = calloc(ncpu, sizeof(*offs));
	sizes = calloc(ncpu, sizeof(*sizes));
	if (!offs || !sizes)
		die("calloc");
	pos = ftell(out) + 16L * ncpu;
	for (i = 0; i < ncpu; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/cpu%d", dir, i);
		sizes[i] = stat(path, &st) ? 0 : st.st_size;
		pos = (pos + PAGE - 1) / PAGE * PAGE;
		offs[i] = pos;
		pos += sizes[i];
	}
	for (i = 0; i < ncpu; i++) {
		put64(offs[i]);
		put64(sizes[i]);
	}
	for (i = 0; i < ncpu; i++) {
		size_t len;
		char *buf;

		if (!sizes[i])
			continue;
		if (fseek(out, offs[i], SEEK_SET))
			die("seek");
		snprintf(path, sizeof(path), "%s/cpu%d", dir, i);
		buf = slurp(path, &len);
		put(buf, len);
		free(buf);
	}
	if (fclose(out))
		die(argv[1]);
	return 0;
}
