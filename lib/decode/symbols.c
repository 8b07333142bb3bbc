// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolic names for event numbers: the tables behind symbols.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "decode/symbols.h"

struct syscall_ent {
	int nr;
	const char *name;
	int nargs;
};

static const struct syscall_ent x86_64_calls[] = {
#include "decode/syscalls-x86_64.h"
};

/* The table's entry for nr on machine (NULL: x86_64), or NULL. */
static const struct syscall_ent *syscall_find(const char *machine, long nr)
{
	size_t lo = 0, hi = sizeof(x86_64_calls) / sizeof(x86_64_calls[0]);

	if (machine && strcmp(machine, "x86_64"))
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x86_64_calls[mid].nr == nr)
			return &x86_64_calls[mid];
		if (x86_64_calls[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *kt_syscall_name(const char *machine, long nr, int *nargs)
{
	const struct syscall_ent *e = syscall_find(machine, nr);

	*nargs = e && e->nargs >= 0 ? e->nargs : 6;
	return e ? e->name : NULL;
}

int kt_syscall_count_args(const char *machine, long nr)
{
	const struct syscall_ent *e = machine ? syscall_find(machine, nr) : NULL;

	return e && e->nargs >= 0 ? e->nargs : -ENOENT;
}

/* The kernel's softirq_to_name[], in vector order (NR_SOFTIRQS = 10). */
static const char *const softirqs[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

const char *kt_softirq_name(unsigned long long vec)
{
	return vec < sizeof(softirqs) / sizeof(softirqs[0]) ? softirqs[vec] : NULL;
}

/*
 * The kernel's own codes (include/linux/errno.h), which never reach user
 * space but are in its tracepoints: a system call interrupted by a
 * signal exits with ERESTARTSYS (512) in sys_exit.  glibc has no names
 * for them.
 */
static const char *const kernel_errnos[] = {
	"ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND", "ENOIOCTLCMD",
	"ERESTART_RESTARTBLOCK", "EPROBE_DEFER", "EOPENSTALE", "ENOPARAM",
	NULL, "EBADHANDLE", "ENOTSYNC", "EBADCOOKIE", "ENOTSUPP", "ETOOSMALL",
	"ESERVERFAULT", "EBADTYPE", "EJUKEBOX", "EIOCBQUEUED",
	"ERECALLCONFLICT", "ENOGRACE",
};

const char *kt_errno_name(long long err)
{
	size_t n = sizeof(kernel_errnos) / sizeof(kernel_errnos[0]);

	if (err <= 0 || err > 4095)
		return NULL;
	if (err >= 512 && (size_t)(err - 512) < n)
		return kernel_errnos[err - 512];
	/* glibc's own table (2.32+): the names match the kernel's. */
	return strerrorname_np((int)err);
}

/*
 * sched_switch's print fmt since Linux 4.14: the bits below
 * TASK_REPORT_MAX (0x100) as "S|D..." or "R" when none, then "+" for a
 * preempted task.
 */
const char *kt_task_state_name(unsigned long long state, char *buf,
			       unsigned long size)
{
	static const char letters[] = "SDTtXZPI";
	unsigned long n = 0;
	int i;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < 8; i++) {
		if (!(state & (1ULL << i)))
			continue;
		n += (unsigned long)snprintf(buf + (n < size ? n : size - 1),
					     n < size ? size - n : 1, "%s%c",
					     n ? "|" : "", letters[i]);
	}
	if (!(state & 0xff))
		n += (unsigned long)snprintf(buf, size, "R");
	if (state & 0x100)
		snprintf(buf + (n < size ? n : size - 1), n < size ? size - n : 1, "+");
	return buf;
}
