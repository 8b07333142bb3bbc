// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as the ring-buffer pages of one CPU, behind
 * a fixed, valid header (tests/fuzz/page-template.bin: the header and
 * event formats of a real recording of sched_switch, sched_wakeup,
 * ftrace:print, raw_syscalls:sys_enter and irq:irq_handler_entry).  The
 * fuzzer's effort goes to the page checks and the event decoding rather
 * than to the file's header.  The input is zero-padded to whole pages.
 */
#include "fuzz_common.h"

#define MAX_PAGES	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *tpl;
	size_t len;

	tpl = kt_fuzz_template(&len, NULL, NULL);
	kt_fuzz_read_pages(tpl, len, data, size, MAX_PAGES);
	return 0;
}
