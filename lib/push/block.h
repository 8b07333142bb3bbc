/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rows of a table gathered by column, sent as one block of ClickHouse's
 * Native format: the number of columns and of rows, then each column's
 * name, type and values together (a Nullable's null map, then its
 * values; an Array's end offsets, then its elements; numbers
 * little-endian, strings with a LEB128 length).  The server reads a
 * column at a time rather than a value at a time, as RowBinary makes
 * it: a fifth to a third less of its CPU for a system call table's rows.
 *
 * A row is written as its columns' values in order, one call each, then
 * kt_block_row_end().  A constant column (every row of the push the same:
 * host, trace_id, boot_id) takes no call: its values are one store's
 * (struct kt_block_const), made once for as many rows as any block of
 * the push has held, and shared by every block of every table: 27 bytes
 * or more a row that are not made, nor paged in, block by block.
 */
#ifndef KT_PUSH_BLOCK_H
#define KT_PUSH_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "push/bytebuf.h"

struct iovec;

/*
 * A constant column's values, row after row, in a mapping that never
 * moves: filled further (by the thread that seals blocks) while senders
 * read the rows filled before, never written twice.
 */
struct kt_block_const {
	unsigned char *p;
	size_t width;			/* a value's bytes */
	size_t rows, cap;		/* rows filled, and room */
};

/* A store for up to cap rows of the width bytes at value: NULL and errno on failure. */
struct kt_block_const *kt_block_const_new(const void *value, size_t width, size_t cap);
void kt_block_const_free(struct kt_block_const *k);
/* Its value made anew, before any block that has the column is sealed. */
void kt_block_const_set(struct kt_block_const *k, const void *value);

/* A column of a block: the hot appenders below are inline, a value a column a row. */
struct kt_block_col {
	struct kt_bytebuf nt;		/* its name and type, as the block has them */
	struct kt_bytebuf head;		/* a Nullable's null map, an Array's offsets */
	struct kt_bytebuf data;		/* its values */
	uint64_t end;			/* an Array's elements so far */
	struct kt_block_const *k;	/* a constant column's store; NULL: not one */
	unsigned char num;		/* an integer's bytes (Int32: 4); 0: not one */
};

struct kt_block {
	struct kt_block_col *c;
	int n;				/* columns */
	int at;				/* the column the next value goes to */
	size_t rows, bytes;
	size_t const_width;		/* the constant columns' bytes a row */
	bool failed;			/* a row of the wrong width */
	bool last;			/* its table's last: freed once sent, not kept */
	unsigned char counts[20];	/* the block's numbers of columns and rows */
	struct iovec *iov;		/* its pieces, made by kt_block_seal() */
	int niov, iov_room;
	/* Where its columns' values go past their first piece; set before the columns are added. */
	struct kt_arena *arena;
};

/* Add a column (in the order of the rows' values): 0 or -ENOMEM. */
int kt_block_add_col(struct kt_block *b, const char *name, const char *type);
/* Add a constant column, its values k's (which outlives b). */
int kt_block_add_const(struct kt_block *b, const char *name, const char *type,
		       struct kt_block_const *k);
void kt_block_free(struct kt_block *b);

/* The column the next value goes to (past constant ones), or NULL past the last. */
static inline struct kt_block_col *kt_block_next(struct kt_block *b)
{
	while (b->at < b->n && b->c[b->at].k)
		b->at++;
	if (b->at >= b->n) {
		b->failed = true;
		return NULL;
	}
	return &b->c[b->at++];
}

/* An integer column ((U)Int32 or (U)Int64): v in its type's bytes. */
static inline void kt_block_int(struct kt_block *b, int64_t v)
{
	struct kt_block_col *c = kt_block_next(b);

	if (!c)
		return;
	/* Each width a constant size: one store. */
	if (c->num == 8)
		kt_bytebuf_le(&c->data, (uint64_t)v, 8);
	else if (c->num == 4)
		kt_bytebuf_le(&c->data, (uint64_t)v, 4);
	else
		b->failed = true;
	b->bytes += c->num;
}
/* n bytes as they are (a UUID's 16, a UInt8). */
void kt_block_raw(struct kt_block *b, const void *p, size_t n);
void kt_block_str(struct kt_block *b, const char *s);
/* Nullable(String): NULL is NULL. */
void kt_block_nstr(struct kt_block *b, const char *s);
/*
 * A String, or a Nullable(String) (NULL: NULL), already as the block has
 * it: its LEB128 length, then its bytes, n in all (see kt_block_enc).
 */
void kt_block_str_enc(struct kt_block *b, const void *enc, size_t n);
void kt_block_nstr_enc(struct kt_block *b, const void *enc, size_t n);
/* s as a String's bytes in a block into out (len >= 2): their number, 0 too long. */
size_t kt_block_enc(unsigned char *out, size_t len, const char *s);
/* Nullable(Int64). */
static inline void kt_block_ni64(struct kt_block *b, bool known, int64_t v)
{
	struct kt_block_col *c = kt_block_next(b);
	unsigned char null = known ? 0 : 1;

	if (!c)
		return;
	kt_bytebuf_add(&c->head, &null, 1);
	kt_bytebuf_u64(&c->data, known ? (uint64_t)v : 0);
	b->bytes += 9;
}
/* Array(UInt64). */
void kt_block_u64s(struct kt_block *b, const unsigned long long *v, size_t n);
void kt_block_row_end(struct kt_block *b);

/* Whether a row was cut short or an allocation failed. */
bool kt_block_failed(const struct kt_block *b);
/*
 * Ready to send: the constant columns' stores filled for its rows, its
 * pieces listed.  0, or -ENOMEM when a row or an allocation failed or a
 * store is too small.
 */
int kt_block_seal(struct kt_block *b);
/*
 * The rows as one Native block, as kt_block_seal() made it, in pieces
 * that point into b (sent as they are: no copy): their number, *iov
 * set.  b is not to be written until kt_block_clear().
 */
int kt_block_iov(struct kt_block *b, const struct iovec **iov);
/* No rows: the block is written anew. */
void kt_block_clear(struct kt_block *b);
/* Sent: cleared, or freed when it was its table's last (see kt_block.last). */
void kt_block_sent(struct kt_block *b);

#endif
