// SPDX-License-Identifier: GPL-2.0
/*
 * The pid set: which tasks the engine's probes record.  A bitmap over
 * every possible pid, so a probe of a task outside the set pays one bit
 * test, and a static key, so with no set it pays nothing.  With fork
 * following on, children of tasks in the set join it at fork and every
 * task leaves it at exit, so a followed process tree never escapes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ktrace-channel.h"
#include "ktrace-events.h"
#include "ktrace-pidset.h"

DEFINE_STATIC_KEY_FALSE(kt_pidset_key);
unsigned long *kt_pidmap;

static DEFINE_MUTEX(kt_pidset_lock);
static bool kt_pid_fork;
static bool kt_follow_attached;
static struct tracepoint *kt_tp_fork, *kt_tp_exit;

static void kt_pid_fork_probe(void *data, struct task_struct *parent,
			      struct task_struct *child)
{
	if (kt_pid_in(parent->pid))
		set_bit(child->pid, kt_pidmap);
}

static void kt_pid_exit_probe(void *data, struct task_struct *p)
{
	if ((unsigned int)p->pid < PID_MAX_LIMIT)
		clear_bit(p->pid, kt_pidmap);
}

/*
 * The exit probe runs last on its tracepoint, after the process_exit
 * event's own probe has recorded the exit of the task it removes.
 */
#define KT_PRIO_LAST	INT_MIN

/* Attach or detach the fork-following probes; under kt_pidset_lock. */
static int kt_follow_sync(void)
{
	bool want = kt_pid_fork && static_key_enabled(&kt_pidset_key);
	int ret;

	if (want == kt_follow_attached)
		return 0;
	if (!kt_tp_fork || !kt_tp_exit)
		return want ? -EOPNOTSUPP : 0;
	if (!want) {
		tracepoint_probe_unregister(kt_tp_fork, kt_pid_fork_probe, NULL);
		tracepoint_probe_unregister(kt_tp_exit, kt_pid_exit_probe, NULL);
		kt_follow_attached = false;
		return 0;
	}
	ret = tracepoint_probe_register(kt_tp_fork, kt_pid_fork_probe, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register_prio(kt_tp_exit, kt_pid_exit_probe,
					     NULL, KT_PRIO_LAST);
	if (ret) {
		tracepoint_probe_unregister(kt_tp_fork, kt_pid_fork_probe, NULL);
		return ret;
	}
	kt_follow_attached = true;
	return 0;
}

/* The bitmap exists before anything reads it; under kt_pidset_lock. */
static int kt_pidmap_alloc(void)
{
	unsigned long *map;

	if (kt_pidmap)
		return 0;
	map = vzalloc(BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long));
	if (!map)
		return -ENOMEM;
	/* The zeroed bitmap is visible before the pointer is. */
	smp_store_release(&kt_pidmap, map);
	return 0;
}

/*
 * Put into map the global pid of the task nr names in the caller's pid
 * namespace, and its threads too; a pid no task has goes in as written.
 */
static void kt_pidset_add(unsigned long *map, pid_t nr)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	p = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (!p) {
		set_bit(nr, map);
	} else {
		set_bit(p->pid, map);
		if (thread_group_leader(p))
			for_each_thread(p, t)
				set_bit(t->pid, map);
	}
	rcu_read_unlock();
}

/*
 * Make the set exactly new, bit by bit: atomic bit operations, because
 * the fork probe may be setting bits at the same time.  New members go
 * in before old ones go out, so a task in both sets is never missed.
 */
static void kt_pidset_assign(const unsigned long *new)
{
	unsigned long bit;

	for_each_set_bit(bit, new, PID_MAX_LIMIT)
		set_bit(bit, kt_pidmap);
	for_each_set_bit(bit, kt_pidmap, PID_MAX_LIMIT)
		if (!test_bit(bit, new))
			clear_bit(bit, kt_pidmap);
}

/* Turn the set off: every pid passes.  Under kt_pidset_lock. */
static void kt_pidset_clear(void)
{
	static_branch_disable(&kt_pidset_key);
	kt_follow_sync();
	/* Probes that saw the key on are done before the bits go. */
	synchronize_rcu();
	if (kt_pidmap)
		bitmap_zero(kt_pidmap, PID_MAX_LIMIT);
}

/* Replace the set with pids[0..n), n > 0.  Under kt_pidset_lock. */
static int kt_pidset_replace(const pid_t *pids, int n)
{
	unsigned long *new;
	int i, ret;

	ret = kt_pidmap_alloc();
	if (ret)
		return ret;
	new = vzalloc(BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long));
	if (!new)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		kt_pidset_add(new, pids[i]);
	kt_pidset_assign(new);
	vfree(new);
	static_branch_enable(&kt_pidset_key);
	return kt_follow_sync();
}

/* Parse "pid pid ..." into pids; -EINVAL for anything else. */
static int kt_parse_pids(char *buf, pid_t *pids, int max)
{
	char *tok;
	int n = 0, v;

	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (kstrtoint(tok, 10, &v) || v < 0 || v >= PID_MAX_LIMIT ||
		    n >= max)
			return -EINVAL;
		pids[n++] = v;
	}
	/* "0" alone clears the set, as an empty write does. */
	if (n == 1 && pids[0] == 0)
		return 0;
	for (v = 0; v < n; v++)
		if (!pids[v])
			return -EINVAL;
	return n;
}

static pid_t kt_follow_pid;

static ssize_t kt_set_pid_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	pid_t *pids;
	char *buf;
	int n, ret;

	if (count >= PAGE_SIZE)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* Every pid takes two characters at least, a digit and a space. */
	pids = kcalloc(count / 2 + 1, sizeof(*pids), GFP_KERNEL);
	if (!pids) {
		ret = -ENOMEM;
		goto out;
	}
	n = kt_parse_pids(buf, pids, count / 2 + 1);
	if (n < 0) {
		ret = n;
		goto out;
	}
	mutex_lock(&kt_pidset_lock);
	ret = 0;
	if (n)
		ret = kt_pidset_replace(pids, n);
	else
		kt_pidset_clear();
	if (!ret)
		kt_follow_pid = 0;
	mutex_unlock(&kt_pidset_lock);
out:
	kfree(pids);
	kfree(buf);
	return ret ? ret : count;
}

static int kt_set_pid_show(struct seq_file *m, void *v)
{
	unsigned long bit;

	mutex_lock(&kt_pidset_lock);
	if (static_key_enabled(&kt_pidset_key))
		for_each_set_bit(bit, kt_pidmap, PID_MAX_LIMIT)
			seq_printf(m, "%lu\n", bit);
	mutex_unlock(&kt_pidset_lock);
	return 0;
}

static int kt_set_pid_open(struct inode *inode, struct file *file)
{
	/* Writers only write; a big set must not fail a reader's open. */
	if (!(file->f_mode & FMODE_READ))
		return simple_open(inode, file);
	return single_open_size(file, kt_set_pid_show, NULL, 8 * PAGE_SIZE);
}

static int kt_set_pid_release(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_READ)
		return single_release(inode, file);
	return 0;
}

static const struct file_operations kt_set_pid_fops = {
	.owner = THIS_MODULE,
	.open = kt_set_pid_open,
	.read = seq_read,
	.write = kt_set_pid_write,
	.llseek = seq_lseek,
	.release = kt_set_pid_release,
};

static int kt_pid_fork_get(void *data, u64 *val)
{
	*val = READ_ONCE(kt_pid_fork);
	return 0;
}

static int kt_pid_fork_set(void *data, u64 val)
{
	int ret;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&kt_pidset_lock);
	kt_pid_fork = val;
	ret = kt_follow_sync();
	if (ret)
		kt_pid_fork = !val;
	mutex_unlock(&kt_pidset_lock);
	return ret;
}

KT_DEFINE_ATTRIBUTE(kt_pid_fork_fops, kt_pid_fork_get, kt_pid_fork_set);

/* Is a an ancestor of t, or t itself, by thread group? Under RCU. */
static bool kt_descends(struct task_struct *t, pid_t tgid)
{
	while (t->pid) {
		if (t->tgid == tgid)
			return true;
		if (t == rcu_dereference(t->real_parent))
			break;
		t = rcu_dereference(t->real_parent);
	}
	return false;
}

int kt_pidset_follow(pid_t nr)
{
	struct task_struct *root, *g, *t;
	pid_t tgid;
	int ret;

	mutex_lock(&kt_pidset_lock);
	if (!nr) {
		kt_pid_fork = false;
		kt_pidset_clear();
		kt_follow_pid = 0;
		ret = 0;
		goto out;
	}
	ret = kt_pidmap_alloc();
	if (ret)
		goto out;
	rcu_read_lock();
	root = pid_task(find_vpid(nr), PIDTYPE_PID);
	tgid = root ? root->tgid : 0;
	rcu_read_unlock();
	if (!root) {
		ret = -ESRCH;
		goto out;
	}
	/*
	 * Follow forks before the walk: a child forked during it is either
	 * on the task list when the walk ends or added by the fork probe,
	 * whose parent the walk has put in the set by then.
	 */
	if (static_key_enabled(&kt_pidset_key))
		bitmap_zero(kt_pidmap, PID_MAX_LIMIT);
	static_branch_enable(&kt_pidset_key);
	kt_pid_fork = true;
	ret = kt_follow_sync();
	if (ret)
		goto out;
	rcu_read_lock();
	for_each_process_thread(g, t)
		if (kt_descends(t, tgid))
			set_bit(t->pid, kt_pidmap);
	rcu_read_unlock();
	kt_follow_pid = nr;
out:
	mutex_unlock(&kt_pidset_lock);
	return ret;
}

pid_t kt_pidset_followed(void)
{
	return READ_ONCE(kt_follow_pid);
}

int kt_pidset_init(struct dentry *dir)
{
	kt_tp_fork = kt_find_tracepoint("sched_process_fork");
	kt_tp_exit = kt_find_tracepoint("sched_process_exit");
	debugfs_create_file(KTRACE_FILE_SET_PID, 0600, dir, NULL,
			    &kt_set_pid_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_PID_FORK, 0600, dir, NULL,
				   &kt_pid_fork_fops);
	return 0;
}

/* After the engine's probes are gone: nothing reads the set any more. */
void kt_pidset_exit(void)
{
	mutex_lock(&kt_pidset_lock);
	kt_pid_fork = false;
	static_branch_disable(&kt_pidset_key);
	kt_follow_sync();
	mutex_unlock(&kt_pidset_lock);
	tracepoint_synchronize_unregister();
	vfree(kt_pidmap);
	kt_pidmap = NULL;
}
