// SPDX-License-Identifier: GPL-2.0
/*
 * A sample ktrace export: counts the records committed to any ktrace
 * channel and their bytes, shown in debugfs ktrace_export_sample/events
 * and bytes (write 1 to reset to zero them).  The counters are per CPU,
 * so the export costs each event two local increments.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>

#include "ktrace.h"

#define EXPORT_ROOT	"ktrace_export_sample"

struct export_count {
	u64 events;
	u64 bytes;
};

static bool nowrite;
module_param(nowrite, bool, 0444);
MODULE_PARM_DESC(nowrite, "register without a write callback (must fail)");

static DEFINE_PER_CPU(struct export_count, counts);
static struct dentry *dir;

/* Any context, NMI included: per-CPU counters, no locks. */
static void count_write(struct ktrace_export *e, u64 ts, const void *rec,
			unsigned int len)
{
	this_cpu_inc(counts.events);
	this_cpu_add(counts.bytes, len);
}

static struct ktrace_export count_export = {
	.write = count_write,
};

static u64 sum(size_t offset)
{
	u64 s = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		s += *(u64 *)((char *)per_cpu_ptr(&counts, cpu) + offset);
	return s;
}

static int events_get(void *data, u64 *val)
{
	*val = sum(offsetof(struct export_count, events));
	return 0;
}

static int bytes_get(void *data, u64 *val)
{
	*val = sum(offsetof(struct export_count, bytes));
	return 0;
}

static int reset_set(void *data, u64 val)
{
	int cpu;

	if (val != 1)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&counts, cpu), 0, sizeof(struct export_count));
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(events_fops, events_get, NULL, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(bytes_fops, bytes_get, NULL, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(reset_fops, NULL, reset_set, "%llu\n");

static int __init export_sample_init(void)
{
	struct ktrace_export bad = { };
	int ret;

	/* The tests' check that an export without write() is refused. */
	if (nowrite) {
		ret = ktrace_register_export(&bad);
		if (!ret) {
			ktrace_unregister_export(&bad);
			ret = -EBADE;
		}
		return ret;
	}
	dir = debugfs_create_dir(EXPORT_ROOT, NULL);
	debugfs_create_file_unsafe("events", 0400, dir, NULL, &events_fops);
	debugfs_create_file_unsafe("bytes", 0400, dir, NULL, &bytes_fops);
	debugfs_create_file_unsafe("reset", 0200, dir, NULL, &reset_fops);
	ret = ktrace_register_export(&count_export);
	if (ret)
		debugfs_remove_recursive(dir);
	return ret;
}

static void __exit export_sample_exit(void)
{
	/* Waits for calls in flight: count_write() is gone after this. */
	ktrace_unregister_export(&count_export);
	debugfs_remove_recursive(dir);
}

module_init(export_sample_init);
module_exit(export_sample_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktrace export sample: counts exported events and bytes");
