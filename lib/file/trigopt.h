/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of KT_OPT_KTRACE_TRIGGER (tracedat.h), a trigger's snapshot's
 * option, written by record's trigger and read by report and stat -i:
 * "key value" lines, NUL-terminated,
 *   "condition syscall>50ms\n"    the --trigger that fired, as given
 *   "ts 48535983673\n"            the firing event's time, trace clock ns
 *   "cpu 0\n" "pid 14197\n"       where it was recorded, and its task
 *   "event raw_syscalls:sys_exit pid 14197: nanosleep = 0 after ...\n"
 *   "suppressed 0\n"              firings held back since the last one
 *   "merged 0\n"                  firings inside this file's window
 *   "chained 48535100000\n"       the previous snapshot ended at this
 *                                  time and this one begins there: a
 *                                  page at the seam may be in both
 * Unknown keys are skipped, so more may be added.
 */
#ifndef KT_TRIGOPT_H
#define KT_TRIGOPT_H

#include <stddef.h>
#include <stdint.h>

struct kt_trigopt {
	char condition[256];
	uint64_t ts;
	int cpu;
	int pid;
	char event[256];
	uint64_t suppressed;
	uint64_t merged;
	uint64_t chained;		/* 0: not chained */
};

/* The option's text of t, malloc'ed; NULL + errno. */
char *kt_trigopt_format(const struct kt_trigopt *t);
/* text into t: 0, or -EINVAL when it names no condition. */
int kt_trigopt_parse(const char *text, struct kt_trigopt *t);

#endif
