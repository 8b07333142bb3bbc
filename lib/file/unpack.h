/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decompression for the trace.dat v7 reader, through libzstd and libdeflate:
 * one block in (a zstd frame, or a zlib stream as trace-cmd's compress()
 * makes it), one block of a known size out.  The contexts are kept from
 * block to block (one unpacker a thread): no set-up per chunk.
 */
#ifndef KT_UNPACK_H
#define KT_UNPACK_H

#include <stddef.h>

struct kt_unpack;

/* An unpacker; its zstd and zlib contexts are made at their first block. */
struct kt_unpack *kt_unpack_new(void);
void kt_unpack_free(struct kt_unpack *u);

/*
 * Unpack src[0..slen) into exactly dst[0..dlen): 0, or -EBADMSG when it
 * does not (damaged, another size), -ENOMEM.  kt_unpack_zlib accepts what
 * zlib's uncompress() does (tests/unit/unpack-check.c compares them).
 */
int kt_unpack_zstd(struct kt_unpack *u, const void *src, size_t slen,
		   void *dst, size_t dlen);
int kt_unpack_zlib(struct kt_unpack *u, const void *src, size_t slen,
		   void *dst, size_t dlen);

#endif
