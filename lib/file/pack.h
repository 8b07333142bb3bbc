/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compression for the trace.dat v7 writer, through libzstd and zlib, as
 * trace-cmd packs: one block in, one block out (a zstd frame without its
 * content size, or a zlib stream), so that trace-cmd's uncompress of the
 * block unpacks it.
 */
#ifndef KT_PACK_H
#define KT_PACK_H

#include <stddef.h>
#include <sys/types.h>

struct kt_pack;

/* A packer for "zstd" or "zlib" (NULL + errno: EINVAL for another name). */
struct kt_pack *kt_pack_new(const char *name);
void kt_pack_free(struct kt_pack *p);

/* The name and version the v7 header stores ("zstd", "1.5.4"). */
const char *kt_pack_name(const struct kt_pack *p);
const char *kt_pack_version(const struct kt_pack *p);

/* The largest output len bytes can pack into. */
size_t kt_pack_bound(const struct kt_pack *p, size_t len);

/*
 * Pack in[0..len) into out (cap bytes, kt_pack_bound()), meta: a metadata
 * section (stronger level).  Returns the packed size or -errno.
 */
ssize_t kt_pack_block(struct kt_pack *p, const void *in, size_t len,
		      void *out, size_t cap, int meta);

/*
 * Data blocks at the codec's fast level from now on (zstd -1 with
 * 7-byte least matches, zlib 1): for packing beside a running workload
 * (a trigger's ring), where less CPU is worth more bytes (zstd: 0.69x
 * level 3's CPU for 1.05x its bytes; zlib: 0.42x for 1.4x).
 */
void kt_pack_set_fast(struct kt_pack *p);

/* Whether name is a compression the writer knows ("none" included). */
int kt_pack_known(const char *name);

#endif
