/* SPDX-License-Identifier: GPL-2.0 */
/* The pid set (ktrace-pidset.c): which tasks the probes record. */
#ifndef KTRACE_PIDSET_H
#define KTRACE_PIDSET_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/sched.h>
#include <linux/threads.h>
#include <linux/types.h>

struct dentry;

/* On while the set filters; off means every pid passes. */
DECLARE_STATIC_KEY_FALSE(kt_pidset_key);
/* One bit per possible pid; allocated before the key is first enabled. */
extern unsigned long *kt_pidmap;

static __always_inline bool kt_pid_in(pid_t pid)
{
	return (unsigned int)pid < PID_MAX_LIMIT &&
	       test_bit(pid, READ_ONCE(kt_pidmap));
}

/* Does an event of task t pass the pid set?  The probes ask this first. */
static __always_inline bool kt_pid_pass(struct task_struct *t)
{
	if (!static_branch_unlikely(&kt_pidset_key))
		return true;
	return kt_pid_in(t->pid);
}

int kt_pidset_init(struct dentry *dir);
void kt_pidset_exit(void);
/*
 * Make the set the thread group of the task pid names (in the caller's
 * pid namespace) and its descendants, following forks from now on;
 * pid 0 clears the set.  -ESRCH when there is no such task.
 */
int kt_pidset_follow(pid_t pid);
/* The pid process_follow_pid last set, 0 when the set is not its. */
pid_t kt_pidset_followed(void);

#endif /* KTRACE_PIDSET_H */
