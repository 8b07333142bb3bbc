/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flame graph of folded stacks (folded.h) as one self-contained SVG:
 * no script, no fonts or files fetched, so any browser shows it offline.
 * The root ("all") at the bottom, each stack's frames above it, outermost
 * first; a frame's width is its share of the total, siblings in name
 * order.  Every frame is a <g class="frame"> with data-count (its count,
 * itself and above) and a <title>, the browser's tooltip:
 * "__schedule: 40 events, 12.50%".  Frames narrower than a tenth of a
 * pixel are left out (their count stays in their parent's).
 */
#ifndef KT_FLAMEGRAPH_H
#define KT_FLAMEGRAPH_H

#include <stdio.h>

#include "views/folded.h"

/*
 * title: the heading; unit: what a count is ("events", "us off-CPU").
 * 0, or -errno (ENOMEM, a write error).
 */
int kt_flamegraph_write(struct kt_folded *f, const char *title,
			const char *unit, FILE *out);

/*
 * A differential flame graph, as Brendan Gregg's difference graphs: the
 * frames of b (the new recording) with b's widths, each coloured by how
 * it changed from a: red grew, blue shrank, the deeper the more (its
 * change over the larger of its two counts); a frame only in a has no
 * width in b and is not drawn.  Each frame has data-before, its count
 * in a, and says both in its tooltip.
 */
int kt_flamegraph_write_diff(struct kt_folded *a, struct kt_folded *b,
			     const char *title, const char *unit, FILE *out);

#endif
