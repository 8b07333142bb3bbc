// SPDX-License-Identifier: GPL-2.0
/*
 * The process tracer's controls in debugfs ktrace/: which process tree
 * to follow (through the pid set), uid and comm filters, and switches
 * for its event groups.  The events themselves (process_*) are in the
 * one event table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "ktrace-channel.h"
#include "ktrace-events.h"
#include "ktrace-pidset.h"
#include "ktrace-process.h"

DEFINE_STATIC_KEY_FALSE(kt_pfilter_key);

/* A filter, replaced whole so a probe never sees half of one. */
struct kt_pfilter {
	struct rcu_head rcu;
	bool has_uid;
	kuid_t uid;
	char comm[TASK_COMM_LEN];	/* "" for any */
};

static struct kt_pfilter __rcu *kt_pfilter;
static DEFINE_MUTEX(kt_pfilter_lock);

/*
 * Probes run with preemption off: an RCU read-side section.  t is
 * current, or the target of a signal (whose cred needs RCU of its own).
 */
bool kt_pfilter_pass(struct task_struct *t)
{
	const struct kt_pfilter *f = rcu_dereference_sched(kt_pfilter);

	if (!f)
		return true;
	if (f->has_uid &&
	    !uid_eq(t == current ? current_uid() : task_uid(t), f->uid))
		return false;
	return !f->comm[0] || !strncmp(t->comm, f->comm, TASK_COMM_LEN);
}

/* Change the filter with set(); under kt_pfilter_lock. */
static int kt_pfilter_update(void (*set)(struct kt_pfilter *f, void *arg),
			     void *arg)
{
	struct kt_pfilter *old, *new;

	old = rcu_dereference_protected(kt_pfilter,
					lockdep_is_held(&kt_pfilter_lock));
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	if (old)
		memcpy(new, old, sizeof(*new));
	set(new, arg);
	if (!new->has_uid && !new->comm[0]) {
		kfree(new);
		new = NULL;
	}
	rcu_assign_pointer(kt_pfilter, new);
	if (new)
		static_branch_enable(&kt_pfilter_key);
	else
		static_branch_disable(&kt_pfilter_key);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static void kt_set_uid(struct kt_pfilter *f, void *arg)
{
	long uid = *(long *)arg;

	f->has_uid = uid >= 0;
	f->uid = make_kuid(current_user_ns(), uid >= 0 ? uid : 0);
}

static void kt_set_comm(struct kt_pfilter *f, void *arg)
{
	strscpy_pad(f->comm, arg, sizeof(f->comm));
}

static ssize_t kt_uid_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	const struct kt_pfilter *f;
	char buf[24];
	long uid = -1;

	rcu_read_lock();
	f = rcu_dereference(kt_pfilter);
	if (f && f->has_uid)
		uid = from_kuid_munged(current_user_ns(), f->uid);
	rcu_read_unlock();
	snprintf(buf, sizeof(buf), "%ld\n", uid);
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

static ssize_t kt_uid_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[24];
	long uid;
	int ret;

	ret = kt_copy_word(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (kstrtol(buf, 10, &uid) || uid < -1 || uid > UINT_MAX - 1)
		return -EINVAL;
	if (uid >= 0 && !uid_valid(make_kuid(current_user_ns(), uid)))
		return -EINVAL;
	mutex_lock(&kt_pfilter_lock);
	ret = kt_pfilter_update(kt_set_uid, &uid);
	mutex_unlock(&kt_pfilter_lock);
	return ret ? ret : count;
}

static const struct file_operations kt_uid_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kt_uid_read,
	.write = kt_uid_write,
	.llseek = default_llseek,
};

static ssize_t kt_comm_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	const struct kt_pfilter *f;
	char buf[TASK_COMM_LEN + 1] = "";

	rcu_read_lock();
	f = rcu_dereference(kt_pfilter);
	if (f)
		strscpy(buf, f->comm, sizeof(buf));
	rcu_read_unlock();
	strcat(buf, "\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

/* One word of at most 15 characters; an empty write clears the filter. */
static ssize_t kt_comm_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[TASK_COMM_LEN + 1];
	int ret;

	if (!count || count > TASK_COMM_LEN)
		return count ? -EINVAL : 0;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	if (strlen(buf) >= TASK_COMM_LEN || strpbrk(buf, " \t\n"))
		return -EINVAL;
	mutex_lock(&kt_pfilter_lock);
	ret = kt_pfilter_update(kt_set_comm, buf);
	mutex_unlock(&kt_pfilter_lock);
	return ret ? ret : count;
}

static const struct file_operations kt_comm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kt_comm_read,
	.write = kt_comm_write,
	.llseek = default_llseek,
};

static int kt_follow_get(void *data, u64 *val)
{
	*val = kt_pidset_followed();
	return 0;
}

static int kt_follow_set(void *data, u64 val)
{
	if (val >= PID_MAX_LIMIT)
		return -EINVAL;
	return kt_pidset_follow(val);
}

KT_DEFINE_ATTRIBUTE(kt_follow_fops, kt_follow_get, kt_follow_set);

static int kt_group_get(void *data, u64 *val)
{
	*val = kt_events_group((long)data);
	return 0;
}

static int kt_group_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	return kt_events_set_group((long)data, val);
}

KT_DEFINE_ATTRIBUTE(kt_group_fops, kt_group_get, kt_group_set);

static const char kt_process_readme[] =
	"The process tracer: what a process tree does, event by event.\n"
	"\n"
	"1. Choose the processes: write a pid to " KTRACE_FILE_PROCESS_FOLLOW_PID "\n"
	"   to trace that process, its threads and every descendant,\n"
	"   including those forked later; 0 traces the whole system.  (It\n"
	"   sets " KTRACE_FILE_SET_PID " to the tree and " KTRACE_FILE_PID_FORK " to 1.)\n"
	"2. Narrow them down, if you like: " KTRACE_FILE_PROCESS_UID_FILTER "\n"
	"   takes a real uid (-1: any), " KTRACE_FILE_PROCESS_COMM_FILTER "\n"
	"   a command name as in /proc/PID/comm (empty write: any).\n"
	"3. Choose the event groups: " KTRACE_FILE_PROCESS_LIFECYCLE " (fork,\n"
	"   exec, exit; on by default), " KTRACE_FILE_PROCESS_SYSCALLS " (entry\n"
	"   and exit of every system call), " KTRACE_FILE_PROCESS_SIGNALS "\n"
	"   (signals sent and delivered); 1 on, 0 off.\n"
	"4. Select the events: write 1 to events/process_*/enable, then 1 to\n"
	"   " KTRACE_FILE_ENABLED " and start to " KTRACE_FILE_STATE ".\n"
	"5. Read the records from trace0..traceN; every one carries the\n"
	"   task's comm.  Write stop to " KTRACE_FILE_STATE " when done.\n";

static ssize_t kt_readme_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, kt_process_readme,
				       sizeof(kt_process_readme) - 1);
}

static const struct file_operations kt_readme_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kt_readme_read,
	.llseek = default_llseek,
};

int kt_process_init(struct dentry *dir)
{
	debugfs_create_file_unsafe(KTRACE_FILE_PROCESS_FOLLOW_PID, 0600, dir,
				   NULL, &kt_follow_fops);
	debugfs_create_file(KTRACE_FILE_PROCESS_UID_FILTER, 0600, dir, NULL,
			    &kt_uid_fops);
	debugfs_create_file(KTRACE_FILE_PROCESS_COMM_FILTER, 0600, dir, NULL,
			    &kt_comm_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_PROCESS_LIFECYCLE, 0600, dir,
				   (void *)KT_GRP_LIFECYCLE, &kt_group_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_PROCESS_SYSCALLS, 0600, dir,
				   (void *)KT_GRP_SYSCALLS, &kt_group_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_PROCESS_SIGNALS, 0600, dir,
				   (void *)KT_GRP_SIGNALS, &kt_group_fops);
	debugfs_create_file(KTRACE_FILE_PROCESS_README, 0400, dir, NULL,
			    &kt_readme_fops);
	return 0;
}

/* After the probes are gone. */
void kt_process_exit(void)
{
	struct kt_pfilter *f;

	static_branch_disable(&kt_pfilter_key);
	f = rcu_dereference_protected(kt_pfilter, 1);
	RCU_INIT_POINTER(kt_pfilter, NULL);
	synchronize_rcu();
	kfree(f);
}
