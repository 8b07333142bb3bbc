/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Large buffers a reader fills once (a v7 file's kallsyms text, 5-8 MB
 * unpacked; its symbol table; a packed section as read), with their
 * pages taken before they are written and, from 1 MB, huge pages where
 * the kernel gives them.  Freed with free().
 */
#ifndef KT_BIGBUF_H
#define KT_BIGBUF_H

#include <stddef.h>

/*
 * len bytes, as malloc(len) gives, free()d the same way.  From 1 MB,
 * aligned to 2 MB and advised MADV_HUGEPAGE; from 256 KB, populated
 * for writing in one call.  NULL + errno on failure.
 */
void *kt_bigbuf_alloc(size_t len);
/*
 * Populate the whole pages inside [p, p + len) for writing, when len is
 * 256 KB or more: a hint, ignored where the kernel refuses it (before
 * 5.14, no MADV_POPULATE_WRITE).
 */
void kt_prefault(void *p, size_t len);

#endif
