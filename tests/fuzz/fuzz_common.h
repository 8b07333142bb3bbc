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

/* Read bytes as a trace.dat file, through everything report does. */
void kt_fuzz_read_file(const uint8_t *data, size_t size);

#endif
