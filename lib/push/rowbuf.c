// SPDX-License-Identifier: GPL-2.0
/*
 * A growing buffer.  See rowbuf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "push/rowbuf.h"

void kt_rowbuf_free(struct kt_rowbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

bool kt_rowbuf_grow(struct kt_rowbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	unsigned char *p;

	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

/* A string's LEB128 length, with room for n bytes after it. */
static bool put_len(struct kt_rowbuf *b, size_t v, size_t n)
{
	unsigned char len[10];
	size_t k = kt_leb128(len, v);

	if (!kt_rowbuf_grow(b, k + n))
		return false;
	memcpy(b->p + b->len, len, k);
	b->len += k;
	return true;
}

void kt_rowbuf_str(struct kt_rowbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (!put_len(b, n, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

const char *kt_rowbuf_text(struct kt_rowbuf *b)
{
	if (!kt_rowbuf_grow(b, 1))
		return "";
	b->p[b->len] = '\0';
	return (const char *)b->p;
}
