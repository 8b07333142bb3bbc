/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is this text an event format libtraceevent can be given?  Its parser
 * trusts its input, so every format, from a trace.dat file or from the
 * kernel, is checked here first (lib/reader.c, lib/evformat.c).
 */
#ifndef KT_FMTCHECK_H
#define KT_FMTCHECK_H

#include <stddef.h>

/*
 * NULL when SIZE bytes of TEXT (NUL-terminated at TEXT[SIZE]) look like a
 * format libtraceevent parses safely, else what is wrong, for a message.
 */
const char *kt_format_problem(const char *text, size_t size);

#endif
