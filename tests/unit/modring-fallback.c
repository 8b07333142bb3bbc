// SPDX-License-Identifier: GPL-2.0
/*
 * modring-fallback: lib/live/module/modring.c's cursor over files that refuse
 * ktrace.ko's ioctls (ENOTTY, as a global channel or an older module
 * does): it must read() whole pages instead, a short one padded with
 * zeroes, one page a batch, the end at 0; a non-blocking file with
 * nothing is nothing, not an error; a batch not walked is kept and one
 * walked but not given back is not taken again.  Prints "ok N pages".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/module/modring.h"

static int failed;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "modring-fallback: line %d: %s\n", __LINE__, #cond); \
		failed = 1; \
	} \
} while (0)

/* A file of 2.5 pages, byte i of page p being p + 1: read to its end. */
static int check_file(bool no_mmap)
{
	size_t psize = (size_t)getpagesize(), i;
	struct kt_modring_gone gone;
	const unsigned char *p;
	struct kt_modring *r;
	const void *pages;
	unsigned char *buf;
	int fd, n = 0, ret;
	FILE *f = tmpfile();

	if (!f)
		return -1;
	buf = malloc(psize);
	for (i = 0; i < 3; i++) {
		memset(buf, (int)i + 1, psize);
		fwrite(buf, 1, i < 2 ? psize : psize / 2, f);
	}
	fflush(f);
	fd = dup(fileno(f));
	fclose(f);
	lseek(fd, 0, SEEK_SET);
	r = kt_modring_new(fd, 0, no_mmap);

	CHECK(r);
	if (!r)
		return -1;
	CHECK(!kt_modring_mapped(r));
	CHECK(!kt_modring_ringless(r));
	CHECK(kt_modring_page_size(r) == psize);
	while ((ret = kt_modring_get(r, true)) == 1) {
		/* Not walked yet: the same batch, nothing read. */
		CHECK(kt_modring_get(r, true) == 1);
		CHECK(kt_modring_left(r) == 1);
		CHECK(kt_modring_walk(r, UINT_MAX, &pages) == 1);
		CHECK(kt_modring_walk(r, UINT_MAX, &pages) == 0);
		CHECK(kt_modring_left(r) == 0);
		/* Walked, not given back: not taken again. */
		CHECK(kt_modring_get(r, true) == -EINVAL);
		p = pages;
		for (i = 0; i < psize; i++)
			if (p[i] != (n < 2 || i < psize / 2 ? n + 1 : 0))
				break;
		CHECK(i == psize);
		CHECK(kt_modring_put(r, &gone) == 0);
		CHECK(gone.pages == 1 && !gone.taken && !gone.missed);
		n++;
	}
	CHECK(ret == 0);
	CHECK(n == 3);
	kt_modring_free(r);
	close(fd);
	free(buf);
	return n;
}

/* A non-blocking pipe: empty is nothing (!wait), then a page. */
static void check_pipe(void)
{
	size_t psize = (size_t)getpagesize();
	struct kt_modring_gone gone;
	struct kt_modring *r;
	const void *pages;
	unsigned char *buf;
	int fds[2];

	if (pipe2(fds, O_NONBLOCK)) {
		CHECK(!"pipe2");
		return;
	}
	r = kt_modring_new(fds[0], 1, false);
	CHECK(r);
	if (!r)
		return;
	CHECK(!kt_modring_mapped(r));
	CHECK(kt_modring_get(r, false) == 0);
	/* Waiting wants a blocking file: a non-blocking one says so. */
	CHECK(kt_modring_get(r, true) == -EAGAIN);
	buf = malloc(psize);
	memset(buf, 7, psize);
	CHECK(write(fds[1], buf, psize) == (ssize_t)psize);
	CHECK(kt_modring_get(r, false) == 1);
	CHECK(kt_modring_walk(r, 1, &pages) == 1);
	CHECK(!memcmp(pages, buf, psize));
	CHECK(kt_modring_put(r, &gone) == 0 && gone.pages == 1);
	CHECK(kt_modring_get(r, false) == 0);
	close(fds[1]);
	/* The writer gone: the end. */
	CHECK(kt_modring_get(r, true) == 0);
	kt_modring_free(r);
	close(fds[0]);
	free(buf);
}

int main(void)
{
	int n = check_file(false);

	n += check_file(true);
	check_pipe();
	if (failed)
		return 1;
	printf("ok %d pages\n", n);
	return 0;
}
