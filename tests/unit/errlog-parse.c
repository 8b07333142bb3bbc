// SPDX-License-Identifier: GPL-2.0
/*
 * errlog-parse: lib/live/tracefs/errlog.c takes the kernel's error_log apart the
 * way enable, record's filters and the probes say it: the reason from
 * the last entry's first line (not from a command that holds "error: "),
 * the caret's column in the command, and the word over it.  Prints "ok".
 */
#include <stdio.h>
#include <string.h>

#include "live/tracefs/errlog.h"

static int failed;

static void check(int line, const char *text, int ret, const char *reason,
		  long column, const char *word)
{
	struct kt_errlog e;
	int got = kt_errlog_parse(text, &e);

	if (got != ret || strcmp(e.reason, reason) || e.column != column ||
	    strcmp(e.word, word)) {
		fprintf(stderr, "errlog-parse: line %d: %d '%s' %ld '%s'\n",
			line, got, e.reason, e.column, e.word);
		failed = 1;
	}
}

#define CHECK(...) check(__LINE__, __VA_ARGS__)

int main(void)
{
	CHECK(NULL, -2, "", 0, "");
	CHECK("", -2, "", 0, "");
	CHECK("nothing here\n", -2, "", 0, "");
	/* A filter's entry, as tracefs_error_last() gives it. */
	CHECK("[  616.486559] event filter parse error: error: Field not found\n"
	      "  Command: prev_pidd == 1\n"
	      "           ^\n", 0, "Field not found", 1, "prev_pidd");
	CHECK("[  616.486559] event filter parse error: error: Invalid operator\n"
	      "  Command: prev_pid =! 1\n"
	      "                    ^\n", 0, "Invalid operator", 10, "=!");
	/* The whole log: its last entry; a command saying "error: ". */
	CHECK("[ 1.0] trace_uprobe: error: Old one\n"
	      "  Command: p:g/a /bin/true:0x10\n"
	      "                 ^\n"
	      "[ 2.0] trace_kprobe: error: Invalid fetch argument\n"
	      "  Command: p:g/b do_sys_open error: $arg9\n"
	      "                                    ^\n", 0,
	      "Invalid fetch argument", 26, "$arg9");
	/* No caret line, a caret past the command. */
	CHECK("[ 3.0] x: error: Bad\n  Command: abc\n", 0, "Bad", 0, "");
	CHECK("[ 3.0] x: error: Bad\n  Command: abc\n                      ^\n",
	      0, "Bad", 12, "");
	if (!failed)
		printf("ok\n");
	return failed;
}
