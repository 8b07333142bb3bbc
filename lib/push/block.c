// SPDX-License-Identifier: GPL-2.0
/*
 * A Native block by column.  See block.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "push/block.h"

struct kt_block_const *kt_block_const_new(const void *value, size_t width, size_t cap)
{
	struct kt_block_const *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	if (!width || !cap || cap > SIZE_MAX / width) {
		errno = EINVAL;
		goto err_k;
	}
	/* Room for the most rows a block holds, paged in as they are filled. */
	k->p = mmap(NULL, cap * width, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (k->p == MAP_FAILED)
		goto err_k;
	/* Paged in as blocks are sealed: 2 MB pages where the kernel has them (see arena.h). */
	madvise(k->p, cap * width, MADV_HUGEPAGE);
	memcpy(k->p, value, width);
	k->width = width;
	k->rows = 1;
	k->cap = cap;
	return k;

err_k:
	err = errno;
	free(k);
	errno = err;
	return NULL;
}

void kt_block_const_free(struct kt_block_const *k)
{
	if (!k)
		return;
	munmap(k->p, k->cap * k->width);
	free(k);
}

void kt_block_const_set(struct kt_block_const *k, const void *value)
{
	memcpy(k->p, value, k->width);
	k->rows = 1;
}

/* k's values for rows rows, made once: doubling copies of what is there, a few memcpy. */
static bool const_fill(struct kt_block_const *k, size_t rows)
{
	size_t n;

	if (rows > k->cap)
		return false;
	while (k->rows < rows) {
		n = k->rows < rows - k->rows ? k->rows : rows - k->rows;
		memcpy(k->p + k->rows * k->width, k->p, n * k->width);
		k->rows += n;
	}
	return true;
}

int kt_block_add_const(struct kt_block *b, const char *name, const char *type,
		       struct kt_block_const *k)
{
	int ret = kt_block_add_col(b, name, type);

	if (ret)
		return ret;
	b->c[b->n - 1].k = k;
	b->const_width += k->width;
	return 0;
}

/* The bytes of the integer types push sends ((U)Int32, (U)Int64), 0 for any other. */
static unsigned char int_width(const char *type)
{
	if (!strcmp(type, "Int32") || !strcmp(type, "UInt32"))
		return 4;
	return !strcmp(type, "Int64") || !strcmp(type, "UInt64") ? 8 : 0;
}

int kt_block_add_col(struct kt_block *b, const char *name, const char *type)
{
	struct kt_block_col *c = realloc(b->c, (size_t)(b->n + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	b->c = c;
	c = &c[b->n];
	memset(c, 0, sizeof(*c));
	kt_bytebuf_use_arena(&c->head, b->arena);
	kt_bytebuf_use_arena(&c->data, b->arena);
	c->num = int_width(type);
	b->n++;
	kt_bytebuf_str(&c->nt, name);
	kt_bytebuf_str(&c->nt, type);
	return c->nt.failed ? -ENOMEM : 0;
}

void kt_block_free(struct kt_block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		kt_bytebuf_free(&b->c[i].nt);
		kt_bytebuf_free(&b->c[i].head);
		kt_bytebuf_free(&b->c[i].data);
	}
	free(b->c);
	free(b->iov);
	memset(b, 0, sizeof(*b));
}

void kt_block_raw(struct kt_block *b, const void *p, size_t n)
{
	struct kt_block_col *c = kt_block_next(b);

	if (!c)
		return;
	kt_bytebuf_add(&c->data, p, n);
	b->bytes += n;
}

void kt_block_str(struct kt_block *b, const char *s)
{
	struct kt_block_col *c = kt_block_next(b);
	size_t at;

	if (!c)
		return;
	at = kt_bytebuf_size(&c->data);
	kt_bytebuf_str(&c->data, s);
	b->bytes += kt_bytebuf_size(&c->data) - at;
}

void kt_block_nstr(struct kt_block *b, const char *s)
{
	struct kt_block_col *c = kt_block_next(b);
	unsigned char null = s ? 0 : 1;
	size_t at;

	if (!c)
		return;
	kt_bytebuf_add(&c->head, &null, 1);
	at = kt_bytebuf_size(&c->data);
	kt_bytebuf_str(&c->data, s ? s : "");
	b->bytes += 1 + kt_bytebuf_size(&c->data) - at;
}

void kt_block_str_enc(struct kt_block *b, const void *enc, size_t n)
{
	kt_block_raw(b, enc, n);
}

void kt_block_nstr_enc(struct kt_block *b, const void *enc, size_t n)
{
	struct kt_block_col *c = kt_block_next(b);
	unsigned char null = enc ? 0 : 1;

	if (!c)
		return;
	kt_bytebuf_add(&c->head, &null, 1);
	kt_bytebuf_add(&c->data, enc ? enc : "", enc ? n : 1);
	b->bytes += 1 + (enc ? n : 1);
}

size_t kt_block_enc(unsigned char *out, size_t len, const char *s)
{
	unsigned char leb[10];
	size_t n = strlen(s), k = kt_leb128(leb, n);

	if (k + n > len)
		return 0;
	memcpy(out, leb, k);
	memcpy(out + k, s, n);
	return k + n;
}

void kt_block_u64s(struct kt_block *b, const unsigned long long *v, size_t n)
{
	struct kt_block_col *c = kt_block_next(b);
	size_t i;

	if (!c)
		return;
	c->end += n;
	kt_bytebuf_u64(&c->head, c->end);
	/* The elements as they are: Native's byte order is x86's and arm64's. */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && sizeof(*v) == 8) {
		if (n)
			kt_bytebuf_add(&c->data, v, n * 8);
	} else {
		for (i = 0; i < n; i++)
			kt_bytebuf_u64(&c->data, v[i]);
	}
	b->bytes += 8 + n * 8;
}

void kt_block_row_end(struct kt_block *b)
{
	/* Past the constant columns after the last value. */
	while (b->at < b->n && b->c[b->at].k)
		b->at++;
	if (b->at != b->n)
		b->failed = true;
	b->at = 0;
	b->rows++;
	b->bytes += b->const_width;
}

bool kt_block_failed(const struct kt_block *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->c[i].head.failed || b->c[i].data.failed)
			return true;
	return b->failed;
}

/* The block's pieces into b->iov: 0 or -ENOMEM. */
static int make_iov(struct kt_block *b)
{
	struct kt_block_col *c;
	size_t k = kt_leb128(b->counts, (uint64_t)b->n);
	struct iovec *iov;
	int i, n = 2;

	for (i = 0; i < b->n; i++)
		n += 1 + kt_bytebuf_npieces(&b->c[i].head) + kt_bytebuf_npieces(&b->c[i].data);
	if (n > b->iov_room) {
		iov = realloc(b->iov, (size_t)n * sizeof(*iov));
		if (!iov)
			return -ENOMEM;
		b->iov = iov;
		b->iov_room = n;
	}
	n = 0;
	b->iov[n++] = (struct iovec){ b->counts, k };
	b->iov[n++] = (struct iovec){ b->counts + k, kt_leb128(b->counts + k, b->rows) };
	for (i = 0; i < b->n; i++) {
		c = &b->c[i];
		b->iov[n++] = (struct iovec){ c->nt.p, c->nt.len };
		n += kt_bytebuf_pieces(&c->head, b->iov + n);
		if (c->k)
			b->iov[n++] = (struct iovec){ c->k->p, b->rows * c->k->width };
		else
			n += kt_bytebuf_pieces(&c->data, b->iov + n);
	}
	b->niov = n;
	return 0;
}

int kt_block_seal(struct kt_block *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->c[i].k && !const_fill(b->c[i].k, b->rows))
			return -ENOMEM;
	return kt_block_failed(b) ? -ENOMEM : make_iov(b);
}

int kt_block_iov(struct kt_block *b, const struct iovec **iov)
{
	*iov = b->iov;
	return b->niov;
}

void kt_block_clear(struct kt_block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		kt_bytebuf_reset(&b->c[i].head);
		kt_bytebuf_reset(&b->c[i].data);
		b->c[i].end = 0;
	}
	b->rows = 0;
	b->bytes = 0;
	b->at = 0;
}

void kt_block_sent(struct kt_block *b)
{
	if (b->last)
		kt_block_free(b);
	else
		kt_block_clear(b);
}
