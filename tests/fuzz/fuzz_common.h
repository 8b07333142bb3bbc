/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: running bytes through the whole read path
 * (reader, decoder, printer in each mode, the --stat summary) as
 * 'ktrace report' does, with every diagnostic silenced.
 */
#ifndef KT_FUZZ_COMMON_H
#define KT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Read bytes as a trace.dat file, through everything report does. */
void kt_fuzz_read_file(const uint8_t *data, size_t size);

/* /dev/null for output, with every diagnostic silenced (KT_FUZZ_VERBOSE
 * keeps them). */
FILE *kt_fuzz_quiet(void);

/*
 * tests/fuzz/page-template.bin (or $KT_FUZZ_TEMPLATE): a real file's
 * header up to the end of its event formats.  *nftrace_at, *nsys_at: the
 * offsets of its ftrace format count and its event system count (NULL:
 * not wanted).  Aborts when it cannot be read.
 */
const unsigned char *kt_fuzz_template(size_t *len, size_t *nftrace_at,
				      size_t *nsys_at);

/* The template's header sections with no event formats at all: the
 * ftrace format count and the event system count are 0. */
const unsigned char *kt_fuzz_template_bare(size_t *len, size_t *nftrace_at,
					   size_t *nsys_at);

/*
 * HEAD (a file up to the end of its event formats), then an empty
 * kallsyms and printk section, two command lines, one CPU whose data is
 * PAGES zero-padded to whole pages (at most max_pages), read by
 * kt_fuzz_read_file().
 */
void kt_fuzz_read_pages(const unsigned char *head, size_t head_len,
			const uint8_t *pages, size_t size, size_t max_pages);

/*
 * The same with the template as HEAD and KT_FUZZ_PAGES pages, of which
 * PAGES fills the first ones (the rest zero: empty pages), through one
 * reader and printers set up on the first call and kept: an input
 * costs its decoding only.
 */
#define KT_FUZZ_PAGES	16
void kt_fuzz_read_page_data(const uint8_t *pages, size_t size);

#endif
