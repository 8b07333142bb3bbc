/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers in a trace.dat file are in the file's byte order; read and
 * write them unaligned, swapping when it is not the host's.
 */
#ifndef KT_BYTEORDER_H
#define KT_BYTEORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t kt_get16(bool swap, const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t kt_get32(bool swap, const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t kt_get64(bool swap, const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static inline void kt_put32(bool swap, void *p, uint32_t v)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void kt_put64(bool swap, void *p, uint64_t v)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

#endif
