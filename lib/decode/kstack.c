// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel_stack record's frames.  See kstack.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/kstack.h"

int kt_kstack_read(struct tep_handle *tep, struct tep_event *e,
		   struct tep_record *rec, unsigned long long *v, int max,
		   bool stop)
{
	struct tep_format_field *f = tep_find_field(e, "caller");
	int ls = tep_get_long_size(tep), i, n;
	unsigned long long end, addr;

	if (!f || f->offset < 0 || f->offset > rec->size || (ls != 4 && ls != 8))
		return -EINVAL;
	end = ls == 8 ? UINT64_MAX : UINT32_MAX;
	n = (rec->size - f->offset) / ls;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		addr = tep_read_number(tep, (char *)rec->data + f->offset + i * ls, ls);
		if (stop && addr == end)
			break;
		v[i] = addr;
	}
	return i;
}

const char *kt_kstack_reason(struct tep_handle *tep, struct tep_event *e,
			     struct tep_record *rec)
{
	unsigned long long v[KT_KSTACK_MAX];
	const char *name;
	int i, n;

	n = kt_kstack_read(tep, e, rec, v, KT_KSTACK_MAX, true);
	for (i = 0; i < n; i++) {
		name = tep_find_function(tep, v[i]);
		if (!name)
			continue;
		if (strstr(name, "schedule") || !strncmp(name, "trace_", 6) ||
		    !strncmp(name, "__traceiter_", 12) || !strncmp(name, "perf_trace_", 11))
			continue;
		return name;
	}
	return NULL;
}
