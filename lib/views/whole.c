// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the decoder into one of the views.  See whole.h.
 */
#include <errno.h>

#include "decode/decoder.h"
#include "views/chrome.h"
#include "views/perfetto.h"
#include "file/reader.h"
#include "views/timeline.h"
#include "views/whole.h"

int kt_whole_write(struct kt_decoder *d, struct kt_reader *r,
		   enum kt_whole_view view, bool by_task, FILE *out)
{
	struct tep_handle *tep = kt_reader_tep(r);
	int ret;

	if (view == KT_WHOLE_PERFETTO) {
		struct kt_perfetto *pf = kt_perfetto_new(r, !by_task, out);

		if (!pf)
			return -errno;
		ret = kt_decoder_run(d, kt_perfetto_add, pf);
		if (!ret)
			ret = kt_perfetto_finish(pf);
		kt_perfetto_free(pf);
		return ret;
	} else if (view == KT_WHOLE_CHROME) {
		struct kt_chrome *c = kt_chrome_new(r, out);

		if (!c)
			return -errno;
		ret = kt_decoder_run(d, kt_chrome_add, c);
		if (!ret)
			ret = kt_chrome_finish(c);
		kt_chrome_free(c);
		return ret;
	} else {
		struct kt_timeline *tl = kt_timeline_new(tep, kt_reader_cpus(r));

		if (!tl)
			return -ENOMEM;
		ret = kt_decoder_run(d, kt_timeline_add, tl);
		if (!ret)
			ret = kt_timeline_write(tl, out);
		kt_timeline_free(tl);
		return ret;
	}
}
