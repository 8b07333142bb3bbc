/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat file of a session (`ktrace record`), a sink (sink.h):
 * the sources' recorders move the pages into the pieces beside the
 * output while tracing runs; at the end the pieces, kallsyms, the
 * formats, the statistics and the options are assembled into the file
 * (file/writer.h), the instance removed meanwhile.
 */
#ifndef KT_SINK_FILE_H
#define KT_SINK_FILE_H

#include "live/session/sink.h"

struct kt_file_sink;

extern const struct kt_sink_ops kt_file_sink_ops;

/* The file of the session's cfg->output.  NULL + errno. */
struct kt_file_sink *kt_file_sink_new(void);
/* The file's size, as written so far. */
unsigned long long kt_file_sink_size(const struct kt_file_sink *f);

#endif
