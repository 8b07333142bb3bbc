// SPDX-License-Identifier: GPL-2.0
/*
 * A sample module with an event of its own (ktrace.h's KTRACE_EVENT):
 * ktsample_tick, with an integer, a string and a symbolic field.  Its
 * init records "count" ticks (kind load), a write of N to debugfs
 * ktrace_event_sample/emit records N more (kind emit), its exit one
 * (kind unload), each numbered on from the last of this load.  The VM
 * tests load and unload it while the event is recorded and count, and
 * with leak=1 check that ktrace.ko unregisters an event left behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "ktrace.h"

#define SAMPLE_ROOT		"ktrace_event_sample"
#define SAMPLE_MAX_EMIT		1000000

/* The kinds of tick, printed by name. */
#define SAMPLE_LOAD		0
#define SAMPLE_EMIT		1
#define SAMPLE_UNLOAD		2

static uint count = 10;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "ticks recorded at load (default 10)");

static char *label = "sample";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "the ticks' string field");

KTRACE_EVENT(ktsample_tick, "seq=%u label=%s kind=%s",
	     KTRACE_FIELD(u32, seq),
	     KTRACE_STRING(label),
	     KTRACE_SYMBOLIC(int, kind, { SAMPLE_LOAD, "load" },
			     { SAMPLE_EMIT, "emit" },
			     { SAMPLE_UNLOAD, "unload" }));

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leave the event registered at exit (ktrace.ko must take it away)");

static atomic_t seq;
static struct dentry *dir;

static void ticks(unsigned long n, int kind)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		ktrace_emit(ktsample_tick, atomic_inc_return(&seq) - 1, label,
			    kind);
		if (!(i & 1023))
			cond_resched();
	}
}

static ssize_t emit_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	unsigned long n;
	int ret;

	ret = kstrtoul_from_user(ubuf, len, 10, &n);
	if (ret || !n || n > SAMPLE_MAX_EMIT)
		return -EINVAL;
	ticks(n, SAMPLE_EMIT);
	return len;
}

static const struct file_operations emit_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = emit_write,
	.llseek = default_llseek,
};

static int __init event_sample_init(void)
{
	int ret;

	if (count > SAMPLE_MAX_EMIT)
		return -EINVAL;
	ret = ktrace_register_event(ktrace_event(ktsample_tick));
	if (ret)
		return ret;
	dir = debugfs_create_dir(SAMPLE_ROOT, NULL);
	debugfs_create_file("emit", 0200, dir, NULL, &emit_fops);
	ticks(count, SAMPLE_LOAD);
	return 0;
}

static void __exit event_sample_exit(void)
{
	/* No write of emit is running or starts after this. */
	debugfs_remove_recursive(dir);
	ticks(1, SAMPLE_UNLOAD);
	if (!leak)
		ktrace_unregister_event(ktrace_event(ktsample_tick));
}

module_init(event_sample_init);
module_exit(event_sample_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktrace sample: an event of a module's own");
