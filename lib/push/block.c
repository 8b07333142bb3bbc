// SPDX-License-Identifier: GPL-2.0
/*
 * A Native block by column.  See block.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "push/block.h"

struct kt_block_col {
	char *name, *type;
	struct kt_rowbuf head;		/* a Nullable's null map, an Array's offsets */
	struct kt_rowbuf data;
	uint64_t end;			/* an Array's elements so far */
};

int kt_block_add_col(struct kt_block *b, const char *name, const char *type)
{
	struct kt_block_col *c = realloc(b->c, (size_t)(b->n + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	b->c = c;
	c = &c[b->n];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	c->type = strdup(type);
	b->n++;
	return c->name && c->type ? 0 : -ENOMEM;
}

void kt_block_free(struct kt_block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		free(b->c[i].name);
		free(b->c[i].type);
		kt_rowbuf_free(&b->c[i].head);
		kt_rowbuf_free(&b->c[i].data);
	}
	free(b->c);
	memset(b, 0, sizeof(*b));
}

/* The column the next value goes to, or NULL past the last. */
static struct kt_block_col *next(struct kt_block *b)
{
	if (b->at >= b->n) {
		b->failed = true;
		return NULL;
	}
	return &b->c[b->at++];
}

void kt_block_i64(struct kt_block *b, int64_t v)
{
	kt_block_u64(b, (uint64_t)v);
}

void kt_block_u64(struct kt_block *b, uint64_t v)
{
	struct kt_block_col *c = next(b);

	if (!c)
		return;
	kt_rowbuf_u64(&c->data, v);
	b->bytes += 8;
}

void kt_block_raw(struct kt_block *b, const void *p, size_t n)
{
	struct kt_block_col *c = next(b);

	if (!c)
		return;
	kt_rowbuf_add(&c->data, p, n);
	b->bytes += n;
}

void kt_block_str(struct kt_block *b, const char *s)
{
	struct kt_block_col *c = next(b);
	size_t at;

	if (!c)
		return;
	at = c->data.len;
	kt_rowbuf_str(&c->data, s);
	b->bytes += c->data.len - at;
}

void kt_block_nstr(struct kt_block *b, const char *s)
{
	struct kt_block_col *c = next(b);
	unsigned char null = s ? 0 : 1;
	size_t at;

	if (!c)
		return;
	kt_rowbuf_add(&c->head, &null, 1);
	at = c->data.len;
	kt_rowbuf_str(&c->data, s ? s : "");
	b->bytes += 1 + c->data.len - at;
}

void kt_block_ni64(struct kt_block *b, bool known, int64_t v)
{
	struct kt_block_col *c = next(b);
	unsigned char null = known ? 0 : 1;

	if (!c)
		return;
	kt_rowbuf_add(&c->head, &null, 1);
	kt_rowbuf_u64(&c->data, known ? (uint64_t)v : 0);
	b->bytes += 9;
}

void kt_block_u64s(struct kt_block *b, const unsigned long long *v, size_t n)
{
	struct kt_block_col *c = next(b);
	size_t i;

	if (!c)
		return;
	c->end += n;
	kt_rowbuf_u64(&c->head, c->end);
	/* The elements as they are: Native's byte order is x86's and arm64's. */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && sizeof(*v) == 8) {
		if (n)
			kt_rowbuf_add(&c->data, v, n * 8);
	} else {
		for (i = 0; i < n; i++)
			kt_rowbuf_u64(&c->data, v[i]);
	}
	b->bytes += 8 + n * 8;
}

void kt_block_row_end(struct kt_block *b)
{
	if (b->at != b->n)
		b->failed = true;
	b->at = 0;
	b->rows++;
}

/* LEB128, as Native has the counts. */
static void put_count(struct kt_rowbuf *out, uint64_t v)
{
	unsigned char x;

	do {
		x = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			x |= 0x80;
		kt_rowbuf_add(out, &x, 1);
	} while (v);
}

void kt_block_take(struct kt_block *b, struct kt_rowbuf *out)
{
	struct kt_block_col *c;
	int i;

	out->len = 0;
	for (i = 0; i < b->n; i++)
		if (b->c[i].head.failed || b->c[i].data.failed)
			out->failed = true;
	put_count(out, (uint64_t)b->n);
	put_count(out, b->rows);
	for (i = 0; i < b->n; i++) {
		c = &b->c[i];
		kt_rowbuf_str(out, c->name);
		kt_rowbuf_str(out, c->type);
		if (c->head.len)
			kt_rowbuf_add(out, c->head.p, c->head.len);
		if (c->data.len)
			kt_rowbuf_add(out, c->data.p, c->data.len);
		c->head.len = 0;
		c->data.len = 0;
		c->end = 0;
	}
	b->rows = 0;
	b->bytes = 0;
	b->at = 0;
}
