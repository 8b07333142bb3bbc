// SPDX-License-Identifier: GPL-2.0
/*
 * The read path under fuzzing.  The bytes go into a memfd and are opened
 * by its /proc/self/fd path, as a file on disk would be; output goes to
 * /dev/null, diagnostics nowhere (the damage messages are the normal
 * answer to most inputs, not findings).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "decode/printer.h"
#include "fuzz_common.h"
#include "base/log.h"
#include "file/reader.h"
#include "views/summary.h"

static FILE *devnull;
/* The memfd every input is written to, and its /proc/self/fd path. */
static int memfd = -1;
static char memfd_path[64];
/* libtraceevent's plugins, loaded once and kept (see kt_fuzz_quiet). */
static struct tep_handle *plugin_tep;
static struct tep_plugin_list *plugins;

static void quiet(enum kt_log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static int print_fn(const struct kt_event *ev, void *arg)
{
	return kt_printer_print(arg, ev) < 0 ? -1 : 0;
}

/*
 * Report's flags for the mode: text compiled (fastfmt); in batches for a
 * printer kept across inputs (a 256 KB buffer is too dear to allocate
 * for each).
 */
static unsigned int flags_of(enum kt_print_mode mode, bool kept)
{
	return (kept ? KT_PRINT_BATCH : 0) |
	       (mode == KT_PRINT_TEXT ? KT_PRINT_COMPILED : 0);
}

static void decode_with(struct kt_reader *r, struct kt_printer *p)
{
	struct kt_decoder *d = kt_decoder_new(r, NULL);

	if (!d)
		return;
	kt_decoder_run(d, print_fn, p);
	kt_printer_flush(p);
	kt_decoder_free(d);
}

static void decode(struct kt_reader *r, enum kt_print_mode mode)
{
	struct kt_printer *p = kt_printer_new(r, mode, flags_of(mode, false), devnull);

	if (!p)
		return;
	decode_with(r, p);
	kt_printer_free(p);
}

static void unpin_plugins(void)
{
	if (plugins)
		tep_unload_plugins(plugins, plugin_tep);
	tep_free(plugin_tep);
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
		/*
		 * Every reader loads the plugins and unloads them at close:
		 * with one more reference held here for the process, that
		 * is a dlopen() of a loaded library rather than mapping
		 * and relocating a dozen of them for each input.
		 */
		plugin_tep = tep_alloc();
		if (plugin_tep)
			plugins = tep_load_plugins(plugin_tep);
		atexit(unpin_plugins);
		memfd = memfd_create("kt-fuzz", MFD_CLOEXEC);
		snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	}
	return devnull;
}

void kt_fuzz_read_file(const uint8_t *data, size_t size)
{
	struct kt_summary *s;
	struct kt_reader *r;

	kt_fuzz_quiet();
	/* One memfd for the process, emptied and rewritten per input. */
	if (memfd < 0 || ftruncate(memfd, 0) ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size)
		return;
	r = kt_reader_open(memfd_path);
	if (!r)
		return;
	decode(r, KT_PRINT_TEXT);
	decode(r, KT_PRINT_JSON);
	decode(r, KT_PRINT_RAW);
	s = kt_summary_new(r);
	kt_summary_free(s);
	kt_reader_close(r);
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

const unsigned char *kt_fuzz_template_bare(size_t *len, size_t *nftrace_at,
					   size_t *nsys_at)
{
	static unsigned char *bare;
	static size_t bare_len;
	const unsigned char *t;
	size_t n, nftrace;

	if (!bare) {
		t = kt_fuzz_template(&n, &nftrace, NULL);
		bare_len = nftrace + 8;
		bare = calloc(1, bare_len);
		if (!bare)
			abort();
		memcpy(bare, t, nftrace);	/* then two counts of 0 */
	}
	*len = bare_len;
	*nftrace_at = bare_len - 8;
	*nsys_at = bare_len - 4;
	return bare;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/*
 * HEAD, then an empty kallsyms and printk section, two command lines,
 * one CPU of PAGES zeroed pages: returns the file (NULL: out of memory)
 * and its length, *data_off where the pages start.
 */
static unsigned char *build_file(const unsigned char *head, size_t head_len,
				 size_t pages, size_t *file_len, size_t *data_off)
{
	static const char cmdlines[] = "1 systemd\n42 sh\n";
	static const char clock[] = "[local]";
	uint64_t u64, off, len = pages * PAGE;
	unsigned char *file, *p;
	size_t total;
	uint32_t u32;

	/* head, kallsyms, printk, cmdlines, cpus, flyrecord, clock, data */
	total = head_len + 4 + 4 + 8 + sizeof(cmdlines) + 4 + 10 + 16 + 8 +
		sizeof(clock) + PAGE + len;
	file = calloc(1, total);
	if (!file)
		return NULL;
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
	put(p, clock, sizeof(clock) - 1);
	*data_off = off;
	*file_len = off + len;
	return file;
}

void kt_fuzz_read_pages(const unsigned char *head, size_t head_len,
			const uint8_t *data, size_t size, size_t max_pages)
{
	size_t pages = (size + PAGE - 1) / PAGE, len, off;
	unsigned char *file;

	if (pages > max_pages)
		pages = max_pages;
	file = build_file(head, head_len, pages, &len, &off);
	if (!file)
		return;
	memcpy(file + off, data, size < len - off ? size : len - off);
	kt_fuzz_read_file(file, len);
	free(file);
}

/*
 * The page target's file: the template and KT_FUZZ_PAGES pages, opened
 * once, with a printer of each mode; an input overwrites the pages.
 */
static struct {
	int fd;
	size_t off;
	size_t dirty;		/* bytes of pages an input wrote */
	unsigned int inputs;	/* read since the setup */
	struct kt_reader *r;
	struct kt_printer *p[3];
} pg = { .fd = -1 };

/*
 * The tep learns the comm of each pid a sched record names (the sched
 * plugin's tep_register_comm(), as in report): opened anew now and then,
 * so that what inputs leave there stays small.
 */
#define PAGE_INPUTS_PER_SETUP	4096

static void page_close(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		kt_printer_free(pg.p[i]);
		pg.p[i] = NULL;
	}
	kt_reader_close(pg.r);
	pg.r = NULL;
	close(pg.fd);
	pg.fd = -1;
	pg.dirty = 0;
	pg.inputs = 0;
}

static int page_setup(void)
{
	static const enum kt_print_mode modes[] = {
		KT_PRINT_TEXT, KT_PRINT_JSON, KT_PRINT_RAW
	};
	const unsigned char *head;
	unsigned char *file;
	size_t hlen, len;
	char path[64];
	int i;

	kt_fuzz_quiet();
	head = kt_fuzz_template(&hlen, NULL, NULL);
	file = build_file(head, hlen, KT_FUZZ_PAGES, &len, &pg.off);
	pg.fd = memfd_create("kt-fuzz-pages", MFD_CLOEXEC);
	if (!file || pg.fd < 0 || pwrite(pg.fd, file, len, 0) != (ssize_t)len) {
		fprintf(stderr, "fuzz: cannot set up the page file\n");
		abort();
	}
	free(file);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pg.fd);
	pg.r = kt_reader_open(path);
	if (!pg.r) {
		fprintf(stderr, "fuzz: the template does not read; set KT_FUZZ_TEMPLATE\n");
		abort();
	}
	for (i = 0; i < 3; i++) {
		pg.p[i] = kt_printer_new(pg.r, modes[i], flags_of(modes[i], true), devnull);
		if (!pg.p[i])
			abort();
	}
	return 0;
}

void kt_fuzz_read_page_data(const uint8_t *data, size_t size)
{
	static const unsigned char zero[PAGE];
	struct kt_summary *s;
	size_t at;
	int i;

	if (pg.r && pg.inputs >= PAGE_INPUTS_PER_SETUP)
		page_close();
	if (!pg.r)
		page_setup();
	pg.inputs++;
	if (size > KT_FUZZ_PAGES * PAGE)
		size = KT_FUZZ_PAGES * PAGE;
	/* The last input's pages, then this one's. */
	for (at = size / PAGE * PAGE; at < pg.dirty; at += PAGE)
		if (pwrite(pg.fd, zero, PAGE, pg.off + at) != PAGE)
			abort();
	if (pwrite(pg.fd, data, size, pg.off) != (ssize_t)size ||
	    (size % PAGE && pwrite(pg.fd, zero, PAGE - size % PAGE, pg.off + size) !=
	     (ssize_t)(PAGE - size % PAGE)))
		abort();
	pg.dirty = (size + PAGE - 1) / PAGE * PAGE;
	for (i = 0; i < 3; i++)
		decode_with(pg.r, pg.p[i]);
	s = kt_summary_new(pg.r);
	kt_summary_free(s);
}
