/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages packed as they come: per CPU, v7 blocks (trace-cmd.dat.v7(5): a
 * packed and an unpacked size, then the bytes) in a scratch file with no
 * name.  Two users:
 * - the pieces of a series' chunk being recorded (sink-series.h): the
 *   first pages of each CPU's piece.  A snapshot copies the blocks as
 *   they are and the chunk's end puts them into the chunk's file, so a
 *   page is packed once however many snapshots take it (a trigger's ring);
 * - a remote recording's pages as they arrive (net/remote.c), given in
 *   memory: they are never written unpacked, and the file takes the
 *   blocks alone (kt_piecepack_apply_alone()).
 */
#ifndef KT_PIECEPACK_H
#define KT_PIECEPACK_H

#include <stdint.h>

struct kt_piecepack;
struct kt_writer_cpu;

/*
 * ncpus CPUs of pages of page bytes packed with codec ("zstd" or
 * "zlib"), the scratch files beside beside.  NULL + errno.
 */
struct kt_piecepack *kt_piecepack_new(int ncpus, int page, const char *codec,
				      const char *beside);
void kt_piecepack_free(struct kt_piecepack *p);
/* The blocks packed at the codec's fast level (pack.h's kt_pack_set_fast). */
void kt_piecepack_set_fast(struct kt_piecepack *p);

/*
 * The piece of cpu is fd, size bytes long: its pages after those packed
 * into blocks of KT_DAT_CHUNK_PAGES, the last group too when short (0:
 * whole groups only, more to come).  0 or -errno (the blocks are then as
 * they were).
 */
int kt_piecepack_extend(struct kt_piecepack *p, int cpu, int fd,
			unsigned long long size, int short_too);

/*
 * Pages of cpu's piece someone else read (a trigger's conditions): len
 * bytes of it from offset at, packed in whole groups from where the
 * blocks (and the pages fed before) end, the rest kept for the next
 * feed, so kt_piecepack_extend() need not read them again.  Pages
 * before that place are skipped, and nothing is taken across a gap.
 * 0 or -errno (the blocks are then as they were).
 */
int kt_piecepack_feed(struct kt_piecepack *p, int cpu, unsigned long long at,
		      const void *pages, size_t len);

/*
 * Pages in memory: where the next bytes of cpu's pages go, *room bytes
 * at most (NULL + errno), then kt_piecepack_filled() with how many were
 * put there, which packs a whole group (0 or -errno).  A remote
 * recording receives its pages straight into them.
 */
char *kt_piecepack_space(struct kt_piecepack *p, int cpu, size_t *room);
int kt_piecepack_filled(struct kt_piecepack *p, int cpu, size_t n);

/* Every CPU's pages in memory packed, a short group too: 0 or -errno. */
int kt_piecepack_flush(struct kt_piecepack *p);

/* One block of a CPU's. */
struct kt_piecepack_block {
	uint64_t first_ts;		/* its first page's time */
	unsigned long long src;		/* where its pages begin in the piece */
	unsigned long long src_len;
};

/* The bytes of cpu's piece its blocks hold (from its start). */
unsigned long long kt_piecepack_src(const struct kt_piecepack *p, int cpu);

/* How many blocks cpu has; block i of them (0, or -ERANGE). */
uint32_t kt_piecepack_blocks(const struct kt_piecepack *p, int cpu);
int kt_piecepack_block(const struct kt_piecepack *p, int cpu, uint32_t i,
		       struct kt_piecepack_block *b);

/*
 * cpu's blocks from block from on appended to out (a packed scratch
 * file): *blocks and *len added to.  0 or -errno.
 */
int kt_piecepack_copy(const struct kt_piecepack *p, int cpu, uint32_t from,
		      int out, uint32_t *blocks, unsigned long long *len);

/*
 * A chunk's end: c (cpu's piece, from offset 0) takes the blocks
 * (packed_*, packed_src: still the pack's, open until the reset) and its
 * pages after them only.
 */
void kt_piecepack_apply(const struct kt_piecepack *p, int cpu,
			struct kt_writer_cpu *c);

/*
 * Pages given in memory: c (zeroed) takes cpu's blocks, with no pages
 * besides (fd -1): the writer copies them one at a time, giving each
 * one's room back (piecepack's file stays open until the free).
 */
void kt_piecepack_apply_alone(const struct kt_piecepack *p, int cpu,
			      struct kt_writer_cpu *c);

/* The next chunk: no blocks. */
void kt_piecepack_reset(struct kt_piecepack *p);

#endif
