/* SPDX-License-Identifier: GPL-2.0 */
/* The process tracer's filters and controls (ktrace-process.c). */
#ifndef KTRACE_PROCESS_H
#define KTRACE_PROCESS_H

#include <linux/jump_label.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "ktrace-pidset.h"

struct dentry;

/* On while a uid or comm filter is set. */
DECLARE_STATIC_KEY_FALSE(kt_pfilter_key);
bool kt_pfilter_pass(struct task_struct *t);

/* Does task t pass the pid set, then the uid and comm filters? */
static __always_inline bool kt_proc_pass_task(struct task_struct *t)
{
	if (!kt_pid_pass(t))
		return false;
	if (!static_branch_unlikely(&kt_pfilter_key))
		return true;
	return kt_pfilter_pass(t);
}

static __always_inline bool kt_proc_pass(void)
{
	return kt_proc_pass_task(current);
}

int kt_process_init(struct dentry *dir);
void kt_process_exit(void);

#endif /* KTRACE_PROCESS_H */
