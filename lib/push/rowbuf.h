/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing byte buffer that rows are written into in ClickHouse's
 * RowBinary format (little-endian numbers, strings with a LEB128 length,
 * Nullable as a 1/0 byte before the value), and that an HTTP reply is
 * read into.
 */
#ifndef KT_PUSH_ROWBUF_H
#define KT_PUSH_ROWBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kt_rowbuf {
	unsigned char *p;
	size_t len, cap;
	bool failed;			/* an allocation failed: the buffer is short */
};

void kt_rowbuf_free(struct kt_rowbuf *b);
void kt_rowbuf_add(struct kt_rowbuf *b, const void *p, size_t n);
void kt_rowbuf_i64(struct kt_rowbuf *b, int64_t v);
void kt_rowbuf_u64(struct kt_rowbuf *b, uint64_t v);
void kt_rowbuf_str(struct kt_rowbuf *b, const char *s);
/* Array(UInt64). */
void kt_rowbuf_u64s(struct kt_rowbuf *b, const unsigned long long *v, size_t n);
/* Nullable(String): s NULL is NULL. */
void kt_rowbuf_nstr(struct kt_rowbuf *b, const char *s);
/* Nullable(Int64). */
void kt_rowbuf_ni64(struct kt_rowbuf *b, bool known, int64_t v);
/* The text so far, NUL-terminated (for a reply). */
const char *kt_rowbuf_text(struct kt_rowbuf *b);

#endif
