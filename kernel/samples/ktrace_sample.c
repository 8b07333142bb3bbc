// SPDX-License-Identifier: GPL-2.0
/*
 * A sample user of the ktrace channel API: a channel of its own in
 * debugfs ktrace_sample/<name>/ and one event, written on demand through
 * an "emit" file: writing N there records N sample events on the
 * writer's CPU, numbered on from the last.  The VM tests use it to fill
 * buffers exactly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/smp.h>

#include "ktrace.h"

#define SAMPLE_ROOT	"ktrace_sample"
#define SAMPLE_MAGIC	0x6b74736dU	/* "ktsm" */
#define SAMPLE_MAX_EMIT	10000000

static char *name = "sample";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "channel directory under ktrace_sample/");

static uint flags;
module_param(flags, uint, 0444);
MODULE_PARM_DESC(flags, "channel flags: 1 global, 2 flight, 4 no state file");

static uint buf_size = 4096;
module_param(buf_size, uint, 0444);
MODULE_PARM_DESC(buf_size, "sub-buffer size in bytes");

static uint buf_nr = 4;
module_param(buf_nr, uint, 0444);
MODULE_PARM_DESC(buf_nr, "number of sub-buffers");

/* The sample event's payload. */
struct sample_event {
	u32 magic;
	u32 cpu;
	u64 seq;
};

static struct ktrace_channel *chan;
static atomic64_t next_seq;

static ssize_t emit_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	struct sample_event ev = { .magic = SAMPLE_MAGIC };
	unsigned long n, i;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 10, &n);
	if (ret || !n || n > SAMPLE_MAX_EMIT)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		ev.seq = atomic64_inc_return(&next_seq) - 1;
		ev.cpu = raw_smp_processor_id();
		/* A full buffer counts the loss itself; keep going. */
		ktrace_channel_write(chan, &ev, sizeof(ev));
		if (!(i & 1023))
			cond_resched();
	}
	return count;
}

static const struct file_operations emit_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = emit_write,
	.llseek = default_llseek,
};

static int __init sample_init(void)
{
	chan = ktrace_channel_setup(SAMPLE_ROOT, name, buf_size, buf_nr, flags);
	if (IS_ERR(chan))
		return PTR_ERR(chan);
	debugfs_create_file("emit", 0200, ktrace_channel_dir(chan), NULL,
			    &emit_fops);
	/* Without a state file nobody could start it: start now. */
	if (flags & KTRACE_DISABLE_STATE)
		ktrace_channel_start(chan);
	return 0;
}

static void __exit sample_exit(void)
{
	ktrace_channel_cleanup(chan);
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktrace channel API sample");
