/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a recording's pieces, in one place.  While
 * `ktrace record -o FILE` (pid P) runs, its file is made of pieces
 * beside FILE:
 *   FILE.tmp-P        the writer's file: header, formats, kallsyms, printk
 *                     (and the prefix of the others)
 *   FILE.tmp-P.meta   a few lines: CPU count and trace clock
 *   FILE.tmp-P.cpuN   CPU N's ring-buffer pages, in order
 * The writer names the first, the recorders the cpuN ones, record the
 * meta one, and --recover finds them all again (live/session/recover.h).
 */
#ifndef KT_PIECES_H
#define KT_PIECES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A series of chunks (`record --rotate -o DIR`): DIR/ktrace-NNNNNN.dat
 * (%06u), each written as the file of a recording of
 * DIR/.ktrace-NNNNNN.dat.part, pieces and all, then renamed.
 */
#define KT_SERIES_PREFIX	"ktrace-"
#define KT_SERIES_SUFFIX	".dat"
#define KT_SERIES_PART		".part"

/* The suffixes, for messages that name a piece ("FILE" KT_PIECE_TMP "PID"). */
#define KT_PIECE_TMP	".tmp-"
#define KT_PIECE_META	".meta"
#define KT_PIECE_CPU	".cpu"

/* "<output>.tmp-<pid>", malloc'ed; NULL + errno. */
char *kt_pieces_prefix(const char *output, pid_t pid);
/* "<prefix>.meta", malloc'ed; NULL + errno. */
char *kt_pieces_meta(const char *prefix);
/* "<prefix>.cpuN" into buf: 0, or -ENAMETOOLONG when it does not fit. */
int kt_pieces_cpu(char *buf, size_t len, const char *prefix, int cpu);
/*
 * The pid P when name is "<base>.tmp-P" exactly (the header piece of
 * pid P's recording of base), else 0.
 */
pid_t kt_pieces_pid(const char *name, const char *base);

/*
 * The number of a chunk name "ktrace-NNNNNN.dat" (hidden: with its
 * leading dot and ".part..." after it), or -1.
 */
long kt_pieces_chunk(const char *name, bool hidden);

#endif
