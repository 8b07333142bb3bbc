// SPDX-License-Identifier: GPL-2.0
/*
 * Pages packed as they come, from pieces or from memory: see piecepack.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/tmpfile.h"
#include "file/pack.h"
#include "file/tracedat.h"
#include "file/writer.h"
#include "file/piecepack.h"

/* A block's place in the pack's file, and what it holds. */
struct block {
	struct kt_piecepack_block b;
	unsigned long long at;		/* in the pack's file: its sizes first */
};

/*
 * One CPU's blocks: fd holds len bytes of them, the piece's first src.
 * Pages given in memory (kt_piecepack_space(), kt_piecepack_feed())
 * wait in pend (pend_len bytes, the piece's from src on) for a whole
 * group.
 */
struct cpu_pack {
	int fd;
	uint32_t blocks, cap;
	unsigned long long len, src;
	struct block *block;
	char *pend;
	size_t pend_len;
};

struct kt_piecepack {
	int ncpus;
	size_t page;
	struct kt_pack *pack;
	char *beside;
	char *in, *out;		/* a group of pages; it packed (8 bytes of sizes first) */
	size_t cap;
	struct cpu_pack cpu[];
};

struct kt_piecepack *kt_piecepack_new(int ncpus, int page, const char *codec,
				      const char *beside)
{
	struct kt_piecepack *p = calloc(1, sizeof(*p) + ncpus * sizeof(p->cpu[0]));
	int cpu;

	if (!p)
		return NULL;
	p->ncpus = ncpus;
	p->page = (size_t)page;
	for (cpu = 0; cpu < ncpus; cpu++)
		p->cpu[cpu].fd = -1;
	p->pack = kt_pack_new(codec);
	p->beside = strdup(beside);
	if (p->pack) {
		p->cap = kt_pack_bound(p->pack, KT_DAT_CHUNK_PAGES * p->page);
		p->in = malloc(KT_DAT_CHUNK_PAGES * p->page);
		p->out = malloc(p->cap + 8);
	}
	if (!p->pack || !p->beside || !p->in || !p->out) {
		kt_piecepack_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void kt_piecepack_set_fast(struct kt_piecepack *p)
{
	kt_pack_set_fast(p->pack);
}

void kt_piecepack_free(struct kt_piecepack *p)
{
	if (!p)
		return;
	kt_piecepack_reset(p);
	kt_pack_free(p->pack);
	free(p->beside);
	free(p->in);
	free(p->out);
	free(p);
}

void kt_piecepack_reset(struct kt_piecepack *p)
{
	int cpu;

	for (cpu = 0; cpu < p->ncpus; cpu++) {
		if (p->cpu[cpu].fd >= 0)
			close(p->cpu[cpu].fd);
		free(p->cpu[cpu].block);
		free(p->cpu[cpu].pend);
		memset(&p->cpu[cpu], 0, sizeof(p->cpu[cpu]));
		p->cpu[cpu].fd = -1;
	}
}

/* c's file of blocks, made at its first. */
static int open_scratch(struct kt_piecepack *p, struct cpu_pack *c)
{
	int fd;

	if (c->fd >= 0)
		return 0;
	fd = kt_tmpfile_scratch(p->beside);
	if (fd < 0)
		return fd;
	c->fd = fd;
	return 0;
}

/* One group of pages (len bytes at in) packed at the end of c's file. */
static int put_block(struct kt_piecepack *p, struct cpu_pack *c,
		     const char *in, size_t len)
{
	uint32_t sizes[2];
	struct block *b;
	ssize_t z;
	int ret;

	if (c->blocks == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 64;

		b = realloc(c->block, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		c->block = b;
		c->cap = cap;
	}
	z = kt_pack_block(p->pack, in, len, p->out + 8, p->cap, 0);
	if (z < 0)
		return (int)z;
	sizes[0] = (uint32_t)z;
	sizes[1] = (uint32_t)len;
	memcpy(p->out, sizes, 8);
	ret = kt_pwrite_all(c->fd, p->out, 8 + z, c->len);
	if (ret)
		return ret;
	b = &c->block[c->blocks];
	memset(b, 0, sizeof(*b));
	memcpy(&b->b.first_ts, in, sizeof(b->b.first_ts));
	b->b.src = c->src;
	b->b.src_len = len;
	b->at = c->len;
	c->len += 8 + z;
	c->src += len;
	c->blocks++;
	return 0;
}

int kt_piecepack_extend(struct kt_piecepack *p, int cpu, int fd,
			unsigned long long size, int short_too)
{
	size_t group = KT_DAT_CHUNK_PAGES * p->page, len;
	struct cpu_pack *c;
	int ret = 0;

	if (cpu < 0 || cpu >= p->ncpus)
		return -EINVAL;
	c = &p->cpu[cpu];
	size -= size % p->page;
	if (size <= c->src)
		return 0;
	ret = open_scratch(p, c);
	while (!ret && c->src < size) {
		len = size - c->src < group ? (size_t)(size - c->src) : group;
		if (len < group && !short_too)
			break;
		ret = kt_pread_all(fd, p->in, len, c->src);
		if (!ret)
			ret = put_block(p, c, p->in, len);
		/* The pages fed, read again with the rest: fed again from c->src on. */
		if (!ret)
			c->pend_len = 0;
	}
	return ret;
}

/*
 * Pages fed continue the pages packed or waiting in pend: those before
 * are skipped (extend() packed them from the piece), a gap stops the
 * feed (extend() reads them), whole groups are packed from the caller's
 * memory and the rest waits in pend.
 */
int kt_piecepack_feed(struct kt_piecepack *p, int cpu, unsigned long long at,
		      const void *pages, size_t len)
{
	const char *at_page = pages;
	size_t group = KT_DAT_CHUNK_PAGES * p->page, n;
	unsigned long long want;
	struct cpu_pack *c;
	int ret;

	if (cpu < 0 || cpu >= p->ncpus)
		return -EINVAL;
	c = &p->cpu[cpu];
	want = c->src + c->pend_len;
	if (at > want || at + len <= want)
		return 0;
	at_page += want - at;
	len -= want - at;
	ret = open_scratch(p, c);
	if (!ret && !c->pend) {
		c->pend = malloc(group);
		if (!c->pend)
			ret = -ENOMEM;
	}
	while (!ret && len) {
		if (c->pend_len == group) {
			/* Left full by a failed put_block(). */
			ret = put_block(p, c, c->pend, group);
			if (!ret)
				c->pend_len = 0;
			continue;
		}
		if (!c->pend_len && len >= group) {
			ret = put_block(p, c, at_page, group);
			n = group;
		} else {
			n = group - c->pend_len < len ? group - c->pend_len : len;
			memcpy(c->pend + c->pend_len, at_page, n);
			c->pend_len += n;
			if (c->pend_len == group) {
				ret = put_block(p, c, c->pend, group);
				if (!ret)
					c->pend_len = 0;
			}
		}
		at_page += n;
		len -= n;
	}
	return ret;
}

char *kt_piecepack_space(struct kt_piecepack *p, int cpu, size_t *room)
{
	size_t group = KT_DAT_CHUNK_PAGES * p->page;
	struct cpu_pack *c;
	int ret;

	if (cpu < 0 || cpu >= p->ncpus) {
		errno = EINVAL;
		return NULL;
	}
	c = &p->cpu[cpu];
	ret = open_scratch(p, c);
	if (!ret && !c->pend) {
		c->pend = malloc(group);
		if (!c->pend)
			ret = -ENOMEM;
	}
	if (ret) {
		errno = -ret;
		return NULL;
	}
	*room = group - c->pend_len;
	return c->pend + c->pend_len;
}

int kt_piecepack_filled(struct kt_piecepack *p, int cpu, size_t n)
{
	size_t group = KT_DAT_CHUNK_PAGES * p->page;
	struct cpu_pack *c;
	int ret;

	if (cpu < 0 || cpu >= p->ncpus || n > group - p->cpu[cpu].pend_len)
		return -EINVAL;
	c = &p->cpu[cpu];
	c->pend_len += n;
	if (c->pend_len < group)
		return 0;
	ret = put_block(p, c, c->pend, group);
	if (!ret)
		c->pend_len = 0;
	return ret;
}

int kt_piecepack_flush(struct kt_piecepack *p)
{
	int cpu, ret = 0, err;

	for (cpu = 0; cpu < p->ncpus; cpu++) {
		struct cpu_pack *c = &p->cpu[cpu];
		size_t len = c->pend_len - c->pend_len % p->page;

		if (!len)
			continue;
		err = put_block(p, c, c->pend, len);
		if (err && !ret)
			ret = err;
		if (!err)
			c->pend_len = 0;
	}
	return ret;
}

unsigned long long kt_piecepack_src(const struct kt_piecepack *p, int cpu)
{
	return cpu >= 0 && cpu < p->ncpus ? p->cpu[cpu].src : 0;
}

uint32_t kt_piecepack_blocks(const struct kt_piecepack *p, int cpu)
{
	return cpu >= 0 && cpu < p->ncpus ? p->cpu[cpu].blocks : 0;
}

int kt_piecepack_block(const struct kt_piecepack *p, int cpu, uint32_t i,
		       struct kt_piecepack_block *b)
{
	if (cpu < 0 || cpu >= p->ncpus || i >= p->cpu[cpu].blocks)
		return -ERANGE;
	*b = p->cpu[cpu].block[i].b;
	return 0;
}

int kt_piecepack_copy(const struct kt_piecepack *p, int cpu, uint32_t from,
		      int out, uint32_t *blocks, unsigned long long *len)
{
	const struct cpu_pack *c;
	unsigned long long at, end;
	size_t n, cap = KT_DAT_CHUNK_PAGES * p->page;
	int ret = 0;

	if (cpu < 0 || cpu >= p->ncpus)
		return -EINVAL;
	c = &p->cpu[cpu];
	if (from >= c->blocks)
		return 0;
	for (at = c->block[from].at, end = c->len; !ret && at < end; at += n) {
		n = end - at < cap ? (size_t)(end - at) : cap;
		ret = kt_pread_all(c->fd, p->in, n, at);
		if (!ret)
			ret = kt_write_all(out, p->in, n);
	}
	if (ret)
		return ret;
	*blocks += c->blocks - from;
	*len += c->len - c->block[from].at;
	return 0;
}

void kt_piecepack_apply(const struct kt_piecepack *p, int cpu,
			struct kt_writer_cpu *c)
{
	const struct cpu_pack *k;

	if (cpu < 0 || cpu >= p->ncpus)
		return;
	k = &p->cpu[cpu];
	if (!k->blocks || c->off || c->size < k->src)
		return;
	c->packed_fd = k->fd;
	c->packed_blocks = k->blocks;
	c->packed_off = 0;
	c->packed_len = k->len;
	c->packed_src = k->src;
	c->off = k->src;
	c->size -= k->src;
}

void kt_piecepack_apply_alone(const struct kt_piecepack *p, int cpu,
			      struct kt_writer_cpu *c)
{
	const struct cpu_pack *k;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (cpu < 0 || cpu >= p->ncpus || !p->cpu[cpu].blocks)
		return;
	k = &p->cpu[cpu];
	c->packed_fd = k->fd;
	c->packed_blocks = k->blocks;
	c->packed_len = k->len;
}
