/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing byte buffer: a column's values as ClickHouse takes them
 * (little-endian numbers, strings with a LEB128 length; push/block.h
 * makes Native blocks of them), a batch to send, an HTTP reply.
 *
 * One in one piece of malloc's, grown by realloc; or, with an arena
 * (kt_bytebuf_use_arena: a block's columns), past PIECE_FROM bytes a list
 * of pieces taken from the arena, never moved: the bytes are the pieces'
 * in order (kt_bytebuf_pieces), a value never split between two.
 */
#ifndef KT_PUSH_BYTEBUF_H
#define KT_PUSH_BYTEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct kt_arena;
struct iovec;

struct kt_bytebuf_piece {
	unsigned char *p;
	size_t len, cap;
};

struct kt_bytebuf {
	unsigned char *p;		/* the piece written to */
	size_t len, cap;
	bool failed;			/* an allocation failed: the buffer is short */
	/*
	 * With an arena: piece[0] is malloc's, the others the arena's;
	 * piece[cur] is p's, those before it full, those after it kept
	 * from before a kt_bytebuf_reset() for the bytes to come.
	 */
	struct kt_arena *arena;
	struct kt_bytebuf_piece *piece;
	int npieces, room, cur;		/* pieces made, entries, the one written to */
	size_t before;			/* the bytes in the pieces before p */
};

void kt_bytebuf_free(struct kt_bytebuf *b);
void kt_bytebuf_use_arena(struct kt_bytebuf *b, struct kt_arena *a);
/* Its bytes, in all its pieces. */
static inline size_t kt_bytebuf_size(const struct kt_bytebuf *b)
{
	return b->before + b->len;
}
/* Empty, its room kept. */
void kt_bytebuf_reset(struct kt_bytebuf *b);
/* Its pieces as iov[0..n-1] (room for at least kt_bytebuf_npieces()): n. */
int kt_bytebuf_pieces(const struct kt_bytebuf *b, struct iovec *iov);
static inline int kt_bytebuf_npieces(const struct kt_bytebuf *b)
{
	return b->piece ? b->cur + 1 : 1;
}
/* Room for n more bytes: false (and failed set) when there is none. */
bool kt_bytebuf_grow(struct kt_bytebuf *b, size_t n);
void kt_bytebuf_str(struct kt_bytebuf *b, const char *s);
/* The text so far, NUL-terminated (for a reply; not one with an arena). */
const char *kt_bytebuf_text(struct kt_bytebuf *b);

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
static inline void kt_bytebuf_add(struct kt_bytebuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap && !kt_bytebuf_grow(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/*
 * The low n bytes (1, 2, 4 or 8) of v, little-endian as ClickHouse has
 * numbers: a copy on x86 and arm64 (n a constant: one store).
 */
static inline void kt_bytebuf_le(struct kt_bytebuf *b, uint64_t v, size_t n)
{
	unsigned char le[8];
	size_t i;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		kt_bytebuf_add(b, &v, n);
		return;
	}
	for (i = 0; i < n; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	kt_bytebuf_add(b, le, n);
}

static inline void kt_bytebuf_u64(struct kt_bytebuf *b, uint64_t v)
{
	kt_bytebuf_le(b, v, 8);
}

#endif
