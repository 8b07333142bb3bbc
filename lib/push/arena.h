/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory for a push's blocks, handed out in pieces from mappings marked
 * for 2 MB pages and given back all at once when the push is done.
 *
 * Why: a batch's columns are memory new to the process.  Paged in 4 KB
 * at a time, that was some 18% of push's CPU (8800 faults a push of 20
 * MB); touching 32 MB took 18 ms with 4 KB pages and 3 ms with 2 MB
 * ones.  A column of its own mapping gets no 2 MB page until it passes
 * 2 MB, and few do, so the pieces of every column of every block share
 * these mappings, packed.
 *
 * One thread takes pieces (push's decoding); any may free the arena
 * once no block uses it.
 */
#ifndef KT_PUSH_ARENA_H
#define KT_PUSH_ARENA_H

#include <stddef.h>

struct kt_arena;

struct kt_arena *kt_arena_new(void);
void kt_arena_free(struct kt_arena *a);
/* n bytes, 64-byte aligned, until the arena is freed; NULL when there is no memory. */
void *kt_arena_take(struct kt_arena *a, size_t n);

#endif
