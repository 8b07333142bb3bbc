// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as the ring-buffer pages of one CPU, behind
 * a fixed, valid header (tests/fuzz/page-template.bin: the header and
 * event formats of a real recording of sched_switch, sched_wakeup,
 * ftrace:print, raw_syscalls:sys_enter and irq:irq_handler_entry).  The
 * fuzzer's effort goes to the page checks and the event decoding rather
 * than to the file's header.  The input fills the first of
 * KT_FUZZ_PAGES pages, zero-padded (the pages after it are empty); the
 * file is opened once, an input only rewrites its pages.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_fuzz_read_page_data(data, size);
	return 0;
}
