// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as the ring-buffer pages of one CPU, behind
 * a fixed, valid header (tests/fuzz/page-template.bin: the header and
 * event formats of a real recording of sched_switch, sched_wakeup,
 * ftrace:print, raw_syscalls:sys_enter and irq:irq_handler_entry).  The
 * fuzzer's effort goes to the page checks and the event decoding rather
 * than to the file's header.  The input is zero-padded to whole pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#ifndef KT_FUZZ_TEMPLATE
#define KT_FUZZ_TEMPLATE "tests/fuzz/page-template.bin"
#endif
#define PAGE		4096
#define MAX_PAGES	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *tpl;
static size_t tpl_len;

static void load_template(void)
{
	const char *path = getenv("KT_FUZZ_TEMPLATE");
	FILE *f = fopen(path ? path : KT_FUZZ_TEMPLATE, "rb");
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(tpl = malloc(len)) ||
	    fread(tpl, 1, len, f) != (size_t)len) {
		fprintf(stderr, "fuzz_page: cannot read the template %s; set KT_FUZZ_TEMPLATE\n",
			path ? path : KT_FUZZ_TEMPLATE);
		abort();
	}
	fclose(f);
	tpl_len = len;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char cmdlines[] = "1 systemd\n42 sh\n";
	static const char clock[] = "[local]";
	uint64_t u64, off, len;
	uint32_t u32;
	unsigned char *file, *p;
	size_t pages = (size_t)(size + PAGE - 1) / PAGE, total;

	if (!tpl)
		load_template();
	if (pages > MAX_PAGES)
		pages = MAX_PAGES;
	len = pages * PAGE;
	/* template, kallsyms, printk, cmdlines, cpus, flyrecord, clock, data */
	total = tpl_len + 4 + 4 + 8 + sizeof(cmdlines) + 4 + 10 + 16 + 8 +
		sizeof(clock) + PAGE + len;
	file = calloc(1, total);
	if (!file)
		return 0;
	p = put(file, tpl, tpl_len);
	u32 = 0;
	p = put(p, &u32, 4);			/* kallsyms: empty */
	p = put(p, &u32, 4);			/* printk formats: empty */
	u64 = sizeof(cmdlines) - 1;
	p = put(p, &u64, 8);
	p = put(p, cmdlines, sizeof(cmdlines) - 1);
	u32 = 1;
	p = put(p, &u32, 4);			/* one CPU */
	p = put(p, "flyrecord", 10);
	off = (uint64_t)(p - file) + 16 + 8 + sizeof(clock) - 1;
	off = (off + PAGE - 1) / PAGE * PAGE;
	p = put(p, &off, 8);
	p = put(p, &len, 8);
	u64 = sizeof(clock) - 1;
	p = put(p, &u64, 8);
	p = put(p, clock, sizeof(clock) - 1);
	memcpy(file + off, data, size < len ? size : len);
	kt_fuzz_read_file(file, off + len);
	free(file);
	return 0;
}
