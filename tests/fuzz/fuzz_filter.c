// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the filters 'ktrace report -F' accepts, one per line
 * (-F is repeatable), each given to kt_decoder_add_filter()
 * (libtraceevent's tep_filter_add_filter_str) on a decoder of a real
 * recording, tests/fuzz/filter-trace.bin ($KT_FUZZ_FILTER_TRACE): the
 * formats of sched_switch, sched_wakeup, sched_process_exec,
 * raw_syscalls:sys_enter, irq_handler_entry, hrtimer_start and more, and
 * a few hundred of their events.  When every filter parses, as report
 * does, the decoder runs and every record is matched against them
 * (tep_filter_match) and the selected ones printed.
 *
 * record -f's filters are not here: they go to the kernel as written
 * (kt_event_set_filter() writes events/.../filter), and it is the
 * kernel that parses them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decoder.h"
#include "decode/printer.h"
#include "fuzz_common.h"
#include "file/reader.h"

#ifndef KT_FUZZ_FILTER_TRACE
#define KT_FUZZ_FILTER_TRACE "tests/fuzz/filter-trace.bin"
#endif
#define MAX_FILTERS	8
#define MAX_TEXT	4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct kt_reader *reader;

static int print_fn(const struct kt_event *ev, void *arg)
{
	if (!ev->selected)
		return 0;
	return kt_printer_print(arg, ev) < 0 ? -1 : 0;
}

static void open_trace(void)
{
	const char *path = getenv("KT_FUZZ_FILTER_TRACE");

	kt_fuzz_quiet();
	reader = kt_reader_open(path ? path : KT_FUZZ_FILTER_TRACE);
	if (!reader) {
		fprintf(stderr, "fuzz_filter: cannot read %s; set KT_FUZZ_FILTER_TRACE\n",
			path ? path : KT_FUZZ_FILTER_TRACE);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_decoder *d;
	struct kt_printer *p;
	char *text, *line, *nl;
	int n = 0;

	if (size > MAX_TEXT || memchr(data, '\0', size))
		return 0;
	if (!reader)
		open_trace();
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	d = kt_decoder_new(reader, NULL);
	if (!d)
		goto out;
	for (line = text; line && n < MAX_FILTERS; line = nl, n++) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		/* report stops at the first filter that does not parse. */
		if (kt_decoder_add_filter(d, line))
			goto out_dec;
	}
	p = kt_printer_new(reader, KT_PRINT_TEXT, 0, kt_fuzz_quiet());
	if (p) {
		kt_decoder_run(d, print_fn, p);
		kt_printer_free(p);
	}
out_dec:
	kt_decoder_free(d);
out:
	free(text);
	return 0;
}
