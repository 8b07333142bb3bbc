/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The format sections of a recording, read live: header_page,
 * header_event, every ftrace/ format and the formats of the recorded
 * events, each from where its event lives (evhome.h).  The writer
 * (file/writer.h) writes what it is given and knows no tracefs.
 * (evformat.h parses one event's format for `list --fields`.)
 */
#ifndef KT_FORMATS_H
#define KT_FORMATS_H

#include "file/writer.h"
#include "live/events/events.h"

/* Read them under tracing_dir (NULL: the live one).  NULL + errno. */
struct kt_formats *kt_formats_collect(const char *tracing_dir,
				      const struct kt_event_list *events);
void kt_formats_free(struct kt_formats *f);

/* Collect, kt_writer_headers() and free: 0 or -errno. */
int kt_formats_write(struct kt_writer *w, const char *tracing_dir,
		     const struct kt_event_list *events);

#endif
