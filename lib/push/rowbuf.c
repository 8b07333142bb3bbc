// SPDX-License-Identifier: GPL-2.0
/*
 * RowBinary rows in a growing buffer.  See rowbuf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "push/rowbuf.h"

void kt_rowbuf_free(struct kt_rowbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static bool grow(struct kt_rowbuf *b, size_t n)
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

void kt_rowbuf_add(struct kt_rowbuf *b, const void *p, size_t n)
{
	if (!grow(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* RowBinary is little-endian: a copy on x86 and arm64. */
void kt_rowbuf_u64(struct kt_rowbuf *b, uint64_t v)
{
	unsigned char le[8];
	int i;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		if (grow(b, 8)) {
			memcpy(b->p + b->len, &v, 8);
			b->len += 8;
		}
		return;
	}
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	kt_rowbuf_add(b, le, 8);
}

void kt_rowbuf_i64(struct kt_rowbuf *b, int64_t v)
{
	kt_rowbuf_u64(b, (uint64_t)v);
}

/* RowBinary's length of a string or an array: LEB128, then n bytes of room. */
static bool put_len(struct kt_rowbuf *b, size_t v, size_t n)
{
	unsigned char len[10];
	int k = 0;

	do {
		len[k] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			len[k] |= 0x80;
		k++;
	} while (v);
	if (!grow(b, (size_t)k + n))
		return false;
	memcpy(b->p + b->len, len, (size_t)k);
	b->len += (size_t)k;
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

void kt_rowbuf_u64s(struct kt_rowbuf *b, const unsigned long long *v, size_t n)
{
	size_t i;

	if (!put_len(b, n, n * 8))
		return;
	for (i = 0; i < n; i++)
		kt_rowbuf_u64(b, v[i]);
}

void kt_rowbuf_nstr(struct kt_rowbuf *b, const char *s)
{
	unsigned char null = s ? 0 : 1;

	kt_rowbuf_add(b, &null, 1);
	if (s)
		kt_rowbuf_str(b, s);
}

void kt_rowbuf_ni64(struct kt_rowbuf *b, bool known, int64_t v)
{
	unsigned char null = known ? 0 : 1;

	kt_rowbuf_add(b, &null, 1);
	if (known)
		kt_rowbuf_i64(b, v);
}

const char *kt_rowbuf_text(struct kt_rowbuf *b)
{
	if (!grow(b, 1))
		return "";
	b->p[b->len] = '\0';
	return (const char *)b->p;
}
