/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory for the messages of one Perfetto packet (views/perfetto.h):
 * protobuf-c packs messages from plain structs, and a bundle of a
 * thousand events is some thousands of them, made, packed and dropped
 * together.  Pieces come from 64 KB chunks kept from packet to packet;
 * kt_pfarena_reset() hands them all out again.
 */
#ifndef KT_PFARENA_H
#define KT_PFARENA_H

#include <stddef.h>

struct kt_pfarena;

struct kt_pfarena *kt_pfarena_new(void);
void kt_pfarena_free(struct kt_pfarena *a);
/* n zeroed bytes, 8-byte aligned, until the next reset; NULL with no memory. */
void *kt_pfarena_alloc(struct kt_pfarena *a, size_t n);
/* The first len bytes of s (to a NUL) as a string of the arena's. */
char *kt_pfarena_strndup(struct kt_pfarena *a, const char *s, size_t len);
/* Every piece handed out is free again. */
void kt_pfarena_reset(struct kt_pfarena *a);

#endif
