/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing byte buffer: a column's values as ClickHouse takes them
 * (little-endian numbers, strings with a LEB128 length; push/block.h
 * makes Native blocks of them), a batch to send, an HTTP reply.
 */
#ifndef KT_PUSH_ROWBUF_H
#define KT_PUSH_ROWBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct kt_rowbuf {
	unsigned char *p;
	size_t len, cap;
	bool failed;			/* an allocation failed: the buffer is short */
};

void kt_rowbuf_free(struct kt_rowbuf *b);
/* Room for n more bytes: false (and failed set) when there is none. */
bool kt_rowbuf_grow(struct kt_rowbuf *b, size_t n);
void kt_rowbuf_str(struct kt_rowbuf *b, const char *s);
/* The text so far, NUL-terminated (for a reply). */
const char *kt_rowbuf_text(struct kt_rowbuf *b);

/*
 * v as LEB128 (a Native count, a String's length) at out, which has room
 * for 10 bytes: the bytes written.
 */
static inline size_t kt_leb128(unsigned char *out, uint64_t v)
{
	size_t k = 0;

	do {
		out[k] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			out[k] |= 0x80;
		k++;
	} while (v);
	return k;
}

/* Inline: a value a column a row, the bulk of push's writes. */
static inline void kt_rowbuf_add(struct kt_rowbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap && !kt_rowbuf_grow(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/*
 * The low n bytes (1, 2, 4 or 8) of v, little-endian as ClickHouse has
 * numbers: a copy on x86 and arm64 (n a constant: one store).
 */
static inline void kt_rowbuf_le(struct kt_rowbuf *b, uint64_t v, size_t n)
{
	unsigned char le[8];
	size_t i;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		kt_rowbuf_add(b, &v, n);
		return;
	}
	for (i = 0; i < n; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	kt_rowbuf_add(b, le, n);
}

static inline void kt_rowbuf_u64(struct kt_rowbuf *b, uint64_t v)
{
	kt_rowbuf_le(b, v, 8);
}

#endif
