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
 * (tep_filter_match) and the selected ones printed.  The trace and its
 * printer are set up once; an input costs a decoder and its filters.
 *
 * Report tries each filter in a forked child first (libtraceevent's
 * parser crashes on some): a fork of this process costs some 40 ms, so
 * the trials go to one child kept for TRIALS_PER_CHILD of them instead
 * (kt_decoder_set_filter_trial), forked again when a trial killed it.
 *
 * record -f's filters are not here: they go to the kernel as written
 * (kt_event_set_filter() writes events/.../filter), and it is the
 * kernel that parses them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/lsan.h"

#include "decode/decoder.h"
#include "decode/printer.h"
#include "fuzz_common.h"
#include "file/reader.h"

#ifndef KT_FUZZ_FILTER_TRACE
#define KT_FUZZ_FILTER_TRACE "tests/fuzz/filter-trace.bin"
#endif
#define MAX_FILTERS	8
#define MAX_TEXT	4096
#define TRIALS_PER_CHILD	500

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct kt_reader *reader;
static struct kt_printer *printer;

/* The trial child: its socket, pid, the tep it was forked with, trials. */
static struct {
	int sock;
	pid_t pid;
	struct tep_handle *tep;
	int n;
} trial = { .sock = -1 };

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void trial_crashed(int sig)
{
	_exit(128 + sig);
}

/* In the child: a length and a filter in, a status and a message out. */
static void trial_serve(int sock, struct tep_handle *tep)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	struct sigaction sa = { .sa_handler = trial_crashed };
	char text[MAX_TEXT + 1], msg[256];
	uint32_t len;
	unsigned char st;
	int null = open("/dev/null", O_WRONLY);
	size_t i;

	/* A crash here is the answer, not news (as report's trial child). */
	if (null >= 0)
		dup2(null, STDERR_FILENO);
#ifdef KT_LSAN
	__sanitizer_set_death_callback(NULL);
#endif
	/* Nor worth the sanitizer's report (a symbolized stack: 1 s). */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	while (!read_all(sock, &len, 4) && len <= MAX_TEXT &&
	       !read_all(sock, text, len)) {
		text[len] = '\0';
		st = kt_decoder_filter_try(tep, text, msg, sizeof(msg)) ? 1 : 0;
		len = (uint32_t)strlen(msg);
		if (write(sock, &st, 1) != 1 || write(sock, &len, 4) != 4 ||
		    write(sock, msg, len) != (ssize_t)len)
			break;
	}
	_exit(0);
}

static void trial_end(void)
{
	if (trial.sock < 0)
		return;
	close(trial.sock);
	while (waitpid(trial.pid, NULL, 0) < 0 && errno == EINTR)
		;
	trial.sock = -1;
}

static int trial_start(struct tep_handle *tep)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	trial.pid = fork();
	if (trial.pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (!trial.pid) {
		close(sv[0]);
		trial_serve(sv[1], tep);
	}
	close(sv[1]);
	trial.sock = sv[0];
	trial.tep = tep;
	trial.n = 0;
	return 0;
}

/* kt_decoder_add_filter()'s trial, in the kept child. */
static int trial_fn(struct tep_handle *tep, const char *filter, char *err,
		    size_t len)
{
	uint32_t n = (uint32_t)strlen(filter), mlen;
	unsigned char st;
	int ret;

	if (trial.sock >= 0 && (trial.tep != tep || trial.n >= TRIALS_PER_CHILD))
		trial_end();
	if (trial.sock < 0 && (ret = trial_start(tep)))
		return ret;
	trial.n++;
	*err = '\0';
	if (n > MAX_TEXT ||
	    send(trial.sock, &n, 4, MSG_NOSIGNAL) != 4 ||
	    send(trial.sock, filter, n, MSG_NOSIGNAL) != (ssize_t)n ||
	    read_all(trial.sock, &st, 1) || read_all(trial.sock, &mlen, 4) ||
	    mlen >= len || read_all(trial.sock, err, mlen)) {
		/* It died on this one: the fork's crash, "no answer". */
		trial_end();
		snprintf(err, len, "cannot parse it");
		return -EINVAL;
	}
	err[mlen] = '\0';
	if (!st)
		return 0;
	if (!*err)
		snprintf(err, len, "cannot parse it");
	return -EINVAL;
}

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
	kt_decoder_set_filter_trial(trial_fn);
	/* As report prints. */
	printer = kt_printer_new(reader, KT_PRINT_TEXT,
				 KT_PRINT_BATCH | KT_PRINT_COMPILED, kt_fuzz_quiet());
	if (!printer)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_decoder *d;
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
	kt_decoder_run(d, print_fn, printer);
	kt_printer_flush(printer);
out_dec:
	kt_decoder_free(d);
out:
	free(text);
	return 0;
}
