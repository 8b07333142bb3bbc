// SPDX-License-Identifier: GPL-2.0
/*
 * A check of lib/live/module/modrec.c's record merge on real ring-buffer pages:
 * merge two files' CPU data (offset and size from trace-cmd dump
 * --flyrecord), then decode all three with kbuffer and require that the
 * output holds exactly the records of both inputs (time and bytes), in
 * time order.  Then the same merge cut at its middle record's time (a
 * rotation's): the records up to it in one file, the later ones in the
 * other, together the whole merge.  Prints the counts and the merge's
 * cost per record.
 *
 *   pages-merge FILE_A OFF SIZE FILE_B OFF SIZE
 */
#include "../../lib/live/module/modrec.c"

#include <sys/mman.h>
#include <time.h>

struct rec {
	unsigned long long ts;
	uint64_t hash;
};

static int copy_range(const char *path, off_t off, size_t size)
{
	int in = open(path, O_RDONLY), out = memfd_create("in", 0);
	char *buf = malloc(size ? size : 1);

	if (in < 0 || out < 0 || !buf || pread(in, buf, size, off) != (ssize_t)size ||
	    write(out, buf, size) != (ssize_t)size) {
		perror(path);
		exit(1);
	}
	free(buf);
	close(in);
	return out;
}

static uint64_t fnv(const unsigned char *p, int len)
{
	uint64_t h = 14695981039346656037ULL;

	while (len--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

/* Every record of fd's pages; *back counts time going backwards. */
static struct rec *decode(int fd, unsigned long long size, size_t *n,
			  size_t *back)
{
	int page = getpagesize();
	struct kt_modrec_cursor c = { .fd = fd, .size = size };
	struct rec *r = NULL;
	unsigned long long last = 0;
	size_t cap = 0;

	c.page = malloc(page);
	c.kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	*n = *back = 0;
	for (kt_modrec_cursor_load(&c, page); c.data; kt_modrec_cursor_next(&c, page)) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			r = realloc(r, cap * sizeof(*r));
		}
		r[*n].ts = c.ts;
		r[*n].hash = fnv(c.data, kbuffer_event_size(c.kb));
		if (c.ts < last)
			(*back)++;
		last = c.ts;
		(*n)++;
	}
	free(c.page);
	kbuffer_free(c.kb);
	return r;
}

/* The two files merged, the records after cut into carry (-1: none). */
static int merge2(int a, unsigned long long asz, int b, unsigned long long bsz,
		  int out, unsigned long long cut, int carry,
		  unsigned long long *written, unsigned long long *carried)
{
	struct kt_modrec_cursor c[2] = {
		{ .fd = a, .size = asz },
		{ .fd = b, .size = bsz },
	};
	struct outpage o, rest;
	int ret = outpage_init(&o, out, getpagesize());

	if (!ret)
		ret = outpage_init(&rest, carry, getpagesize());
	if (!ret)
		ret = pages_merge(c, 2, &o, carry >= 0 ? &rest : NULL, cut);
	*written = o.written;
	*carried = rest.written;
	free(o.buf);
	free(rest.buf);
	return ret;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

int main(int argc, char **argv)
{
	unsigned long long asz, bsz, written = 0, w1 = 0, w2 = 0, carried, cut;
	size_t na, nb, no, back, ba, bb, i, n1, n2;
	struct rec *ra, *rb, *ro, *both = NULL, *r1 = NULL, *r2 = NULL;
	struct timespec t0, t1;
	int a, b, out, out1, out2, ret;

	if (argc != 7) {
		fprintf(stderr, "usage: pages-merge FILE OFF SIZE FILE OFF SIZE\n");
		return 64;
	}
	asz = strtoull(argv[3], NULL, 0);
	bsz = strtoull(argv[6], NULL, 0);
	a = copy_range(argv[1], strtoll(argv[2], NULL, 0), asz);
	b = copy_range(argv[4], strtoll(argv[5], NULL, 0), bsz);
	out = memfd_create("out", 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = merge2(a, asz, b, bsz, out, 0, -1, &written, &carried);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret) {
		fprintf(stderr, "pages_merge: %s\n", strerror(-ret));
		return 1;
	}
	ra = decode(a, asz, &na, &ba);
	rb = decode(b, bsz, &nb, &bb);
	ro = decode(out, written, &no, &back);
	printf("a %zu b %zu merged %zu back %zu bytes %llu ns_per_record %.1f\n",
	       na, nb, no, back, written,
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	       (no ? no : 1));
	ret = 1;
	if (no != na + nb || back) {
		printf("FAIL: count or order\n");
		goto out;
	}
	both = malloc((na + nb + 1) * sizeof(*both));
	memcpy(both, ra, na * sizeof(*ra));
	memcpy(both + na, rb, nb * sizeof(*rb));
	qsort(both, na + nb, sizeof(*both), cmp_rec);
	qsort(ro, no, sizeof(*ro), cmp_rec);
	for (i = 0; i < no; i++)
		if (cmp_rec(&both[i], &ro[i])) {
			printf("FAIL: record %zu differs\n", i);
			goto out;
		}
	/* Cut at the middle record's time: before it and after, exactly. */
	cut = no ? ro[no / 2].ts : 0;
	out1 = memfd_create("out1", 0);
	out2 = memfd_create("out2", 0);
	if (merge2(a, asz, b, bsz, out1, cut, out2, &w1, &w2)) {
		printf("FAIL: the cut merge\n");
		goto out;
	}
	r1 = decode(out1, w1, &n1, &back);
	r2 = decode(out2, w2, &n2, &back);
	printf("cut at %llu: %zu up to it, %zu after\n", cut, n1, n2);
	if (n1 + n2 != no || (n1 && r1[n1 - 1].ts > cut) || (n2 && r2[0].ts <= cut)) {
		printf("FAIL: the cut's counts or times\n");
		goto out;
	}
	for (i = 0; i < n1 && ro[i].ts <= cut; i++)
		;
	if (i != n1) {
		printf("FAIL: %zu records up to the cut, %zu kept\n", i, n1);
		goto out;
	}
	printf("ok\n");
	ret = 0;
out:
	/* Freed, so that the ASan build (make unit) finds no leak. */
	free(r1);
	free(r2);
	free(both);
	free(ro);
	free(rb);
	free(ra);
	return ret;
}
