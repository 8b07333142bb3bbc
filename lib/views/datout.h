/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A selection of a recording written as a new trace.dat (trace-cmd
 * split's job, with report's selection language): the input's header,
 * formats, kallsyms and printk formats as they are, its saved cmdlines,
 * CPU count, clock, uname and version, and per CPU the selected records
 * repacked into fresh ring-buffer pages (time deltas and time extends
 * recomputed), with the lost-event marks of the window on the pages
 * they fall before.  The file appears under its name only when whole.
 */
#ifndef KT_DATOUT_H
#define KT_DATOUT_H

struct kt_decoder;
struct kt_reader;
struct kt_select;

/*
 * Run d (a decoder of r from kt_select_decoder(), sel resolved) and write
 * the selected records to path, as trace.dat version (6 or 7) packed
 * with compression (zstd, zlib or none); 0 and NULL keep the input's (a
 * compression other than none alone means v7).  Returns 0, or -ENOTSUP
 * for an input it cannot write back (foreign byte order or long size),
 * or -errno; reported, and no file is left at path or beside it.
 */
int kt_datout_write(struct kt_reader *r, struct kt_decoder *d,
		    const struct kt_select *sel, const char *path,
		    int version, const char *compression);

#endif
