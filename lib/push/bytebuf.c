// SPDX-License-Identifier: GPL-2.0
/*
 * A growing buffer.  See bytebuf.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "push/arena.h"
#include "push/bytebuf.h"

/*
 * With an arena, the first piece grows in place up to PIECE_FROM (a
 * column of a few rows takes no more than malloc gives); the pieces after
 * it each as big as the bytes before them, up to PIECE_MAX.
 */
#define PIECE_FROM	(64u << 10)
#define PIECE_MAX	(1u << 20)

void kt_bytebuf_free(struct kt_bytebuf *b)
{
	/* The arena's pieces go with the arena. */
	if (b->piece) {
		free(b->piece[0].p);
		free(b->piece);
	} else {
		free(b->p);
	}
	memset(b, 0, sizeof(*b));
}

void kt_bytebuf_use_arena(struct kt_bytebuf *b, struct kt_arena *a)
{
	b->arena = a;
}

void kt_bytebuf_reset(struct kt_bytebuf *b)
{
	if (b->piece) {
		b->piece[b->cur].len = b->len;
		b->cur = 0;
		b->p = b->piece[0].p;
		b->cap = b->piece[0].cap;
		b->before = 0;
	}
	b->len = 0;
}

int kt_bytebuf_pieces(const struct kt_bytebuf *b, struct iovec *iov)
{
	int i;

	if (!b->piece) {
		iov[0] = (struct iovec){ b->p, b->len };
		return 1;
	}
	for (i = 0; i < b->cur; i++)
		iov[i] = (struct iovec){ b->piece[i].p, b->piece[i].len };
	iov[b->cur] = (struct iovec){ b->p, b->len };
	return b->cur + 1;
}

/* The next piece, with room for n bytes, as the one written to: false when there is none. */
static bool next_piece(struct kt_bytebuf *b, size_t n)
{
	struct kt_bytebuf_piece *pc;
	size_t want;

	if (!b->piece) {
		b->piece = calloc(4, sizeof(*b->piece));
		if (!b->piece)
			return false;
		b->room = 4;
		b->piece[0] = (struct kt_bytebuf_piece){ b->p, b->len, b->cap };
		b->npieces = 1;
	}
	b->piece[b->cur].len = b->len;
	/* A piece kept from before a reset, unless too small for n (then not used again). */
	if (b->cur + 1 < b->npieces && b->piece[b->cur + 1].cap >= n)
		goto use;
	if (b->cur + 1 == b->room) {
		pc = realloc(b->piece, (size_t)b->room * 2 * sizeof(*pc));
		if (!pc)
			return false;
		b->piece = pc;
		b->room *= 2;
	}
	want = kt_bytebuf_size(b) < PIECE_MAX ? kt_bytebuf_size(b) : PIECE_MAX;
	if (want < n)
		want = n;
	pc = &b->piece[b->cur + 1];
	pc->p = kt_arena_take(b->arena, want);
	if (!pc->p)
		return false;
	pc->cap = want;
	if (b->cur + 1 == b->npieces)
		b->npieces++;
use:
	b->before += b->len;
	b->cur++;
	b->p = b->piece[b->cur].p;
	b->cap = b->piece[b->cur].cap;
	b->len = 0;
	return true;
}

bool kt_bytebuf_grow(struct kt_bytebuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	unsigned char *p;

	if (b->len + n <= b->cap)
		return true;
	if (b->arena && (b->piece || b->len + n > PIECE_FROM)) {
		if (next_piece(b, n))
			return true;
		b->failed = true;
		return false;
	}
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
static bool put_len(struct kt_bytebuf *b, size_t v, size_t n)
{
	unsigned char len[10];
	size_t k = kt_leb128(len, v);

	if (!kt_bytebuf_grow(b, k + n))
		return false;
	memcpy(b->p + b->len, len, k);
	b->len += k;
	return true;
}

void kt_bytebuf_str(struct kt_bytebuf *b, const char *s)
{
	size_t n = strlen(s);

	if (!put_len(b, n, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

const char *kt_bytebuf_text(struct kt_bytebuf *b)
{
	if (!kt_bytebuf_grow(b, 1))
		return "";
	b->p[b->len] = '\0';
	return (const char *)b->p;
}
