// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace.ko: the in-kernel tracer.  Sets up the event engine's channel
 * in debugfs ktrace/ and the files around it that describe and control
 * it; the channel API itself is in ktrace-channel.c, the events in
 * ktrace-events.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/trace_clock.h>

#include "ktrace.h"
#include "ktrace-channel.h"
#include "ktrace-events.h"
#include "ktrace-pidset.h"
#include "ktrace-process.h"

static unsigned int buf_kb = 1024;
module_param(buf_kb, uint, 0444);
MODULE_PARM_DESC(buf_kb, "engine buffer per CPU, in KiB (default 1024)");

static bool flight;
module_param(flight, bool, 0444);
MODULE_PARM_DESC(flight, "engine channel overwrites the oldest events");

static struct ktrace_channel *kt_engine;

static int kt_enabled_get(void *data, u64 *val)
{
	*val = kt_events_enabled();
	return 0;
}

static int kt_enabled_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	return kt_events_set_enabled(val);
}

static int kt_overflow_get(void *data, u64 *val)
{
	*val = ktrace_channel_dropped(kt_engine) +
	       ktrace_channel_overrun(kt_engine);
	return 0;
}

static int kt_reset_set(void *data, u64 val)
{
	if (val != 1)
		return -EINVAL;
	ktrace_channel_reset(kt_engine);
	return 0;
}

/* The size asked for: the ring buffer rounds it up to whole pages. */
static int kt_bufsize_get(void *data, u64 *val)
{
	*val = READ_ONCE(buf_kb);
	return 0;
}

/* Resizing is allowed while stopped, so no writer races with it. */
static int kt_bufsize_set(void *data, u64 kb)
{
	int ret;

	if (!kb || kb > (1U << 20))
		return -EINVAL;
	if (ktrace_channel_running(kt_engine))
		return -EBUSY;
	ret = kt_chan_resize(kt_engine, kb << 10);
	if (ret < 0)
		return ret;
	WRITE_ONCE(buf_kb, kb);
	return 0;
}

KT_DEFINE_ATTRIBUTE(kt_enabled_fops, kt_enabled_get, kt_enabled_set);
KT_DEFINE_ATTRIBUTE(kt_overflow_fops, kt_overflow_get, NULL);
KT_DEFINE_ATTRIBUTE(kt_reset_fops, NULL, kt_reset_set);
KT_DEFINE_ATTRIBUTE(kt_bufsize_fops, kt_bufsize_get, kt_bufsize_set);

static int kt_info_show(struct seq_file *m, void *v)
{
	seq_printf(m, "version %d\n", KTRACE_ABI_VERSION);
	seq_printf(m, "cpus %u\n", num_possible_cpus());
	seq_printf(m, "buffer_kb %u\n", buf_kb);
	seq_printf(m, "mode %s\n", flight ? "flight" : "drop");
	seq_puts(m, "clock local\n");
	seq_printf(m, "state %s\n", ktrace_channel_running(kt_engine) ?
		   KTRACE_STATE_RUNNING : KTRACE_STATE_STOPPED);
	seq_printf(m, "enabled %d\n", kt_events_enabled());
	seq_printf(m, "dropped %llu\n", ktrace_channel_dropped(kt_engine));
	seq_printf(m, "overrun %llu\n", ktrace_channel_overrun(kt_engine));
	kt_events_show(m);
	return 0;
}

static int kt_stats_show(struct seq_file *m, void *v)
{
	kt_chan_stats(kt_engine, (long)m->private, m);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(kt_info);
DEFINE_SHOW_ATTRIBUTE(kt_stats);

/* The ring buffer's page and event headers, in ftrace's words. */
static const char kt_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char kt_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static ssize_t kt_text_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	const char *s = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, s, strlen(s));
}

static const struct file_operations kt_text_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kt_text_read,
	.llseek = default_llseek,
};

static char kt_version[16];

static void kt_create_files(struct dentry *dir)
{
	struct dentry *stats;
	char name[32];
	long cpu;

	debugfs_create_file_unsafe(KTRACE_FILE_ENABLED, 0600, dir, NULL,
				   &kt_enabled_fops);
	debugfs_create_file(KTRACE_FILE_INFO, 0400, dir, NULL,
			    &kt_info_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_OVERFLOW, 0400, dir, NULL,
				   &kt_overflow_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_RESET, 0200, dir, NULL,
				   &kt_reset_fops);
	debugfs_create_file_unsafe(KTRACE_FILE_BUFFER_SIZE_KB, 0600, dir, NULL,
				   &kt_bufsize_fops);
	debugfs_create_file(KTRACE_FILE_HEADER_PAGE, 0400, dir,
			    (void *)kt_header_page, &kt_text_fops);
	debugfs_create_file(KTRACE_FILE_HEADER_EVENT, 0400, dir,
			    (void *)kt_header_event, &kt_text_fops);
	snprintf(kt_version, sizeof(kt_version), "%d\n", KTRACE_ABI_VERSION);
	debugfs_create_file(KTRACE_FILE_VERSION, 0400, dir, kt_version,
			    &kt_text_fops);
	stats = debugfs_create_dir(KTRACE_DIR_STATS, dir);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), KTRACE_FILE_STATS_PREFIX "%ld",
			 cpu);
		debugfs_create_file(name, 0400, stats, (void *)cpu,
				    &kt_stats_fops);
	}
}

static int __init ktrace_init(void)
{
	int ret;

	if (!buf_kb || buf_kb > (1U << 20))
		return -EINVAL;
	kt_engine = ktrace_channel_setup(KTRACE_ROOT, NULL, 1024, buf_kb,
					 flight ? KTRACE_FLIGHT_CHANNEL : 0);
	if (IS_ERR(kt_engine))
		return PTR_ERR(kt_engine);
	ret = kt_events_init(kt_engine, ktrace_channel_dir(kt_engine));
	if (ret)
		goto err_chan;
	kt_create_files(ktrace_channel_dir(kt_engine));
	kt_pidset_init(ktrace_channel_dir(kt_engine));
	kt_process_init(ktrace_channel_dir(kt_engine));
	pr_info("loaded, %u KiB per CPU, %s mode\n", buf_kb,
		flight ? "flight" : "drop");
	return 0;

err_chan:
	ktrace_channel_cleanup(kt_engine);
	return ret;
}

static void __exit ktrace_exit(void)
{
	kt_events_exit();
	/* The files go first, so no write races with freeing the filters. */
	ktrace_channel_cleanup(kt_engine);
	kt_pidset_exit();
	kt_process_exit();
}

module_init(ktrace_init);
module_exit(ktrace_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktrace: compact in-kernel event tracer");
MODULE_AUTHOR("ktrace developers");
