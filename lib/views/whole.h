/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole-trace views `ktrace report` writes instead of lines:
 * Perfetto's protobuf trace (perfetto.h), Chrome's trace-event JSON
 * (chrome.h) and the CPU timeline SVG
 * (timeline.h), fed every record of the decoder in time order.
 */
#ifndef KT_WHOLE_H
#define KT_WHOLE_H

#include <stdbool.h>
#include <stdio.h>

struct kt_decoder;
struct kt_reader;

enum kt_whole_view {
	KT_WHOLE_PERFETTO,
	KT_WHOLE_CHROME,
	KT_WHOLE_TIMELINE,
};

/*
 * by_task: the decoder selects tasks (-F, --pid, --comm), which
 * Perfetto's compact switches cannot stand (views/perfetto.h).
 * Returns 0, or -errno (a write error, ENOMEM).
 */
int kt_whole_write(struct kt_decoder *d, struct kt_reader *r,
		   enum kt_whole_view view, bool by_task, FILE *out);

#endif
