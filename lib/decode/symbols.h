/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolic names for the numbers events carry: system call numbers,
 * softirq vectors, errno values, and a task state's letters.  One table
 * each, shared by report's JSON, the Perfetto view, the process view
 * and the analyses, so a number reads the same everywhere.
 *
 * The rule every user follows: the raw value keeps its key, and the
 * name is added beside it (id stays, syscall is added), never instead.
 */
#ifndef KT_SYMBOLS_H
#define KT_SYMBOLS_H

/*
 * The name of system call nr on machine (NULL: x86_64), or NULL when
 * unknown; *nargs gets its argument count (6 when unknown).
 */
const char *kt_syscall_name(const char *machine, long nr, int *nargs);

/*
 * How many arguments system call nr takes on machine (0 to 6), or
 * -ENOENT when not known: machine NULL or not x86_64 (the one table),
 * nr outside the table, or a call x86_64 never implemented.  The
 * registers beyond the count are leftovers, with no meaning.
 */
int kt_syscall_count_args(const char *machine, long nr);

/* A softirq vector's name as the kernel prints it (TIMER), or NULL. */
const char *kt_softirq_name(unsigned long long vec);

/* An errno value's name (ENOENT for 2), or NULL when unknown. */
const char *kt_errno_name(long long err);

/*
 * A task state as sched_switch's prev_state prints it ("S", "D", "R+",
 * "X|Z"...), written into buf (at least 16 bytes); returns buf.
 */
const char *kt_task_state_name(unsigned long long state, char *buf,
			       unsigned long size);

#endif
