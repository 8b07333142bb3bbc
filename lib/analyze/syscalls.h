/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze syscalls: each system call's count, errors (by errno name) and
 * the distribution of its duration, from entry to exit of the same task.
 * It reads whichever the file holds: raw_syscalls:sys_enter/sys_exit
 * (the id is the call), syscalls:sys_enter_NAME/sys_exit_NAME (the
 * id is the __syscall_nr field), or ktrace.ko's syscall_entry/exit and
 * process_syscall_entry/exit (nr).  Rows are per call, or per call and
 * task, process or comm.
 *
 * A call whose entry is not in the window (it began before, or was lost)
 * is not counted; one still in progress at the end neither: both are
 * counted apart (unpaired, in_flight), never silently.
 */
#ifndef KT_ANALYZE_SYSCALLS_H
#define KT_ANALYZE_SYSCALLS_H

#include <stdbool.h>

#include "analyze/dist.h"
#include "decode/decoder.h"

enum kt_sys_by {
	KT_SYS_BY_CALL,
	KT_SYS_BY_TASK,
	KT_SYS_BY_COMM,
	KT_SYS_BY_PROCESS,		/* threads under their process */
};

struct kt_sys_errno {
	long long err;			/* positive: 2 for ENOENT */
	unsigned long long count;
};

struct kt_sys_row {
	long nr;
	const char *name;		/* "getppid", or "syscall_N" */
	int pid;			/* by task; by process the tgid */
	char comm[32];			/* by task, comm, process (the tgid's) */
	unsigned long long errors;
	struct kt_sys_errno *errs;	/* by count, the most first */
	int nerrs;
	struct kt_dist dist;		/* durations: calls = dist.n */
};

struct kt_sys_totals {
	unsigned long long calls;
	unsigned long long unpaired;	/* exits with no entry seen */
	unsigned long long in_flight;	/* entries with no exit by the end */
	unsigned long long lost;	/* events lost in the window */
	bool lost_unknown;		/* a loss of no known size */
	bool has_input;			/* the file holds syscall events */
};

struct tep_handle;
struct kt_syscalls;
struct kt_tgidmap;

/*
 * machine: the file's ("x86_64", from its uname), for call names; tg:
 * thread to process for KT_SYS_BY_PROCESS, kept, not copied.
 */
struct kt_syscalls *kt_syscalls_new(struct tep_handle *tep, const char *machine,
				    enum kt_sys_by by, const struct kt_tgidmap *tg);
/* A kt_event_fn: feed every record of the decoder, in time order. */
int kt_syscalls_add(const struct kt_event *ev, void *arg);
/*
 * The rows, sorted by the given key ("total" by default; also "calls",
 * "errors", "mean", "p50", "p99", "max", "name"), the largest first
 * (name: A to Z).  The array is the analysis's.  -EINVAL for a bad key.
 */
int kt_syscalls_rows(struct kt_syscalls *s, const char *sort,
		     struct kt_sys_row ***rows, size_t *n);
void kt_syscalls_totals(const struct kt_syscalls *s, struct kt_sys_totals *t);
/* The sort keys, for usage messages. */
extern const char *const kt_syscalls_sort_keys;
void kt_syscalls_free(struct kt_syscalls *s);

#endif
