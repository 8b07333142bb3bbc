// SPDX-License-Identifier: GPL-2.0
/*
 * The read path under fuzzing.  The bytes go into a memfd and are opened
 * by its /proc/self/fd path, as a file on disk would be; output goes to
 * /dev/null, diagnostics nowhere (the damage messages are the normal
 * answer to most inputs, not findings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decoder.h"
#include "fuzz_common.h"
#include "log.h"
#include "reader.h"
#include "summary.h"

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

void kt_fuzz_read_file(const uint8_t *data, size_t size)
{
	struct kt_summary *s;
	struct kt_reader *r;
	char path[64];
	int fd;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		/*
		 * Damage reports are the expected answer; keep the fuzzer's
		 * output (and the sanitizers' reports on stderr) readable.
		 */
		if (!getenv("KT_FUZZ_VERBOSE"))
			kt_log_set_handler(quiet);
	}
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
