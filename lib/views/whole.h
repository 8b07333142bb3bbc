/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole-trace views `ktrace report` writes instead of lines: the
 * Perfetto/Chrome trace JSON (perfetto.h) and the CPU timeline SVG
 * (timeline.h), fed every record of the decoder in time order.
 */
#ifndef KT_VIEW_H
#define KT_VIEW_H

#include <stdio.h>

struct kt_decoder;
struct kt_reader;

enum kt_view {
	KT_VIEW_PERFETTO,
	KT_VIEW_TIMELINE,
};

/* Returns 0, or -errno (a write error, ENOMEM). */
int kt_view_write(struct kt_decoder *d, struct kt_reader *r,
		  enum kt_view view, FILE *out);

#endif
