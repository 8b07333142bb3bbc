// SPDX-License-Identifier: GPL-2.0
/*
 * The read path under fuzzing.  The bytes go into a memfd and are opened
 * by its /proc/self/fd path, as a file on disk would be; output goes to
 * /dev/null, diagnostics nowhere (the damage messages are the normal
 * answer to most inputs, not findings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decode/decoder.h"
#include "decode/printer.h"
#include "fuzz_common.h"
#include "base/log.h"
#include "file/reader.h"
#include "views/summary.h"

static FILE *devnull;

static void quiet(enum kt_log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static int print_fn(const struct kt_event *ev, void *arg)
{
	return kt_printer_print(arg, ev) < 0 ? -1 : 0;
}

static void decode(struct kt_reader *r, enum kt_print_mode mode)
{
	struct kt_decoder *d = kt_decoder_new(r, NULL);
	struct kt_printer *p;

	if (!d)
		return;
	p = kt_printer_new(r, mode, 0, devnull);
	if (p) {
		kt_decoder_run(d, print_fn, p);
		kt_printer_free(p);
	}
	kt_decoder_free(d);
}

FILE *kt_fuzz_quiet(void)
{
	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		/*
		 * Damage reports are the expected answer; keep the fuzzer's
		 * output (and the sanitizers' reports on stderr) readable.
		 */
		if (!getenv("KT_FUZZ_VERBOSE"))
			kt_log_set_handler(quiet);
	}
	return devnull;
}

void kt_fuzz_read_file(const uint8_t *data, size_t size)
{
	struct kt_summary *s;
	struct kt_reader *r;
	char path[64];
	int fd;

	kt_fuzz_quiet();
	fd = memfd_create("kt-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = kt_reader_open(path);
	if (!r)
		goto out;
	decode(r, KT_PRINT_TEXT);
	decode(r, KT_PRINT_JSON);
	decode(r, KT_PRINT_RAW);
	s = kt_summary_new(r);
	kt_summary_free(s);
	kt_reader_close(r);
out:
	close(fd);
}

#ifndef KT_FUZZ_TEMPLATE
#define KT_FUZZ_TEMPLATE "tests/fuzz/page-template.bin"
#endif
#define PAGE	4096

static unsigned char *tpl;
static size_t tpl_len, tpl_nftrace, tpl_nsys;

static uint64_t get(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* Where the ftrace format count is (past the header and its two header
 * sections) and the event system count (past the ftrace formats): a v6
 * file, see trace-cmd.dat.v6(5). */
static size_t find_nsys(void)
{
	size_t o = 10, n, i;

	o += strlen((char *)tpl + o) + 1 + 2 + 4;	/* version, endian, long, page */
	for (i = 0; i < 2; i++) {			/* header_page, header_event */
		o += strlen((char *)tpl + o) + 1;
		o += 8 + get(tpl + o, 8);
	}
	tpl_nftrace = o;
	n = get(tpl + o, 4);
	for (o += 4, i = 0; i < n; i++)
		o += 8 + get(tpl + o, 8);
	return o;
}

const unsigned char *kt_fuzz_template(size_t *len, size_t *nftrace_at,
				      size_t *nsys_at)
{
	const char *path = getenv("KT_FUZZ_TEMPLATE");
	FILE *f;
	long n;

	if (!tpl) {
		f = fopen(path ? path : KT_FUZZ_TEMPLATE, "rb");
		if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
		    fseek(f, 0, SEEK_SET) || !(tpl = malloc(n + 1)) ||
		    fread(tpl, 1, n, f) != (size_t)n) {
			fprintf(stderr, "fuzz: cannot read the template %s; set KT_FUZZ_TEMPLATE\n",
				path ? path : KT_FUZZ_TEMPLATE);
			abort();
		}
		fclose(f);
		tpl[n] = '\0';
		tpl_len = n;
		tpl_nsys = find_nsys();
		if (tpl_nsys + 4 > tpl_len) {
			fprintf(stderr, "fuzz: the template is not a v6 header\n");
			abort();
		}
	}
	*len = tpl_len;
	if (nftrace_at)
		*nftrace_at = tpl_nftrace;
	if (nsys_at)
		*nsys_at = tpl_nsys;
	return tpl;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

void kt_fuzz_read_pages(const unsigned char *head, size_t head_len,
			const uint8_t *data, size_t size, size_t max_pages)
{
	static const char cmdlines[] = "1 systemd\n42 sh\n";
	static const char clock[] = "[local]";
	size_t pages = (size + PAGE - 1) / PAGE, total;
	uint64_t u64, off, len;
	unsigned char *file, *p;
	uint32_t u32;

	if (pages > max_pages)
		pages = max_pages;
	len = pages * PAGE;
	/* head, kallsyms, printk, cmdlines, cpus, flyrecord, clock, data */
	total = head_len + 4 + 4 + 8 + sizeof(cmdlines) + 4 + 10 + 16 + 8 +
		sizeof(clock) + PAGE + len;
	file = calloc(1, total);
	if (!file)
		return;
	p = put(file, head, head_len);
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
}
