/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is this text safe to give libtraceevent?  Its parsers trust their
 * input, so event formats (from a trace.dat file or from the kernel) and
 * report's filters are checked here first (lib/reader.c, lib/evformat.c,
 * lib/decoder.c).
 */
#ifndef KT_TEPCHECK_H
#define KT_TEPCHECK_H

#include <stddef.h>

/*
 * NULL when SIZE bytes of TEXT (NUL-terminated at TEXT[SIZE]) look like a
 * format libtraceevent parses safely, else what is wrong, for a message.
 */
const char *kt_format_problem(const char *text, size_t size);

/*
 * NULL when FILTER ("EVENTS: EXPRESSION", as tep_filter_add_filter_str()
 * takes it) is safe to parse, else what is wrong, for a message.
 */
const char *kt_filter_problem(const char *filter);

#endif
