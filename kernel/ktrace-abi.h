/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-visible interface of ktrace.ko: every debugfs name and every
 * keyword the control files accept.  Plain C with no kernel types, so the
 * module and the ktrace tool (lib/) include the same header and can never
 * disagree on a name.
 */
#ifndef KTRACE_ABI_H
#define KTRACE_ABI_H

/* Both exist in the kernel and, as uapi headers, in user space. */
#include <linux/ioctl.h>
#include <linux/types.h>

/* Bumped whenever a file's name, syntax or record layout changes. */
#define KTRACE_ABI_VERSION		1

/* The event engine's directory, under the debugfs mount point. */
#define KTRACE_ROOT			"ktrace"

/* Files of every channel. */
#define KTRACE_FILE_STATE		"state"
#define KTRACE_FILE_TRACE_PREFIX	"trace"	/* trace0, trace1, ... */
#define KTRACE_FILE_DROPPED		"dropped"
#define KTRACE_FILE_OVERRUN		"overrun"	/* flight channels only */

/* Words read from and written to the state file. */
#define KTRACE_STATE_RUNNING		"running"
#define KTRACE_STATE_STOPPED		"stopped"
#define KTRACE_CMD_START		"start"
#define KTRACE_CMD_STOP			"stop"

/* Files of the event engine, next to its channel's files. */
#define KTRACE_FILE_ENABLED		"enabled"
#define KTRACE_DIR_EVENTS		"events"
#define KTRACE_FILE_ENABLE		"enable"
#define KTRACE_FILE_FORMAT		"format"
#define KTRACE_FILE_INFO		"info"
#define KTRACE_FILE_OVERFLOW		"overflow"
#define KTRACE_DIR_STATS		"stats"
#define KTRACE_FILE_STATS_PREFIX	"cpu"	/* stats/cpu0, ... */
#define KTRACE_FILE_RESET		"reset"
#define KTRACE_FILE_BUFFER_SIZE_KB	"buffer_size_kb"
#define KTRACE_FILE_HEADER_PAGE		"header_page"
#define KTRACE_FILE_HEADER_EVENT	"header_event"
#define KTRACE_FILE_VERSION		"version"

/*
 * The pid set, shared by every engine event: write space or newline
 * separated pids to replace it, an empty write (or "0") to clear it
 * (all pids); reading lists the pids in it.  pid_fork 1: children of
 * pids in the set join it at fork and leave it at exit.
 */
#define KTRACE_FILE_SET_PID "set_pid"
#define KTRACE_FILE_PID_FORK "pid_fork"

/* The process tracer's controls, next to the engine's files. */
#define KTRACE_FILE_PROCESS_FOLLOW_PID	"process_follow_pid"
#define KTRACE_FILE_PROCESS_UID_FILTER	"process_trace_uid_filter"
#define KTRACE_FILE_PROCESS_COMM_FILTER	"process_trace_taskcomm_filter"
#define KTRACE_FILE_PROCESS_LIFECYCLE	"process_trace_lifecycle"
#define KTRACE_FILE_PROCESS_SYSCALLS	"process_trace_syscalls"
#define KTRACE_FILE_PROCESS_SIGNALS	"process_trace_signals"
#define KTRACE_FILE_PROCESS_README	"process_trace_README"

/*
 * The info file's line for each event: KTRACE_INFO_EVENT, the name, the
 * format string (the C string literal that opens its format file's
 * print fmt), the id, KTRACE_INFO_ENABLED or KTRACE_INFO_DISABLED (its
 * events/<name>/enable), then further columns as "key value" pairs.
 */
#define KTRACE_INFO_EVENT		"event"
#define KTRACE_INFO_ENABLED		"enabled"
#define KTRACE_INFO_DISABLED		"disabled"

/* The system name the engine's events carry in trace.dat files. */
#define KTRACE_EVENT_SYSTEM		"ktrace"

/* ktrace_channel_setup() flags. */
#define KTRACE_GLOBAL_CHANNEL		0x1	/* one buffer for all CPUs */
#define KTRACE_FLIGHT_CHANNEL		0x2	/* overwrite the oldest */
#define KTRACE_DISABLE_STATE		0x4	/* no state file */

/*
 * Zero-copy reading of a per-CPU channel's traceN (kernel/README.md,
 * "Zero-copy reading").  mmap() of the file, read-only, offset 0, maps
 * the CPU's ring of nr_pages pages in ring order.  Pages are counted by
 * positions that run on: page i lies at (i % nr_pages) * page size and
 * holds ftrace's page format (its commit has no flags).  The reader:
 *
 *	GET_PRODUCED, read pages [consumed, produced), PUT_CONSUMED(pos)
 *
 * and then throws away the pages below the valid PUT_CONSUMED gives
 * back: a flight channel's writer took them while they were being read.
 * Pages from PUT_CONSUMED's pos on belong to the writer again.  When
 * GET_PRODUCED finds no complete page, FLUSH closes the page being
 * written.  poll() says when to look again.  One reader per file at a
 * time: another file's read(), mmap() or ioctl() of the same CPU fails
 * with EBUSY while one holds it.  Global channels answer ENOTTY.
 */
struct ktrace_buf_pos {
	__u64 consumed;	/* GET: the reader's oldest page; PUT: release to */
	__u64 produced;	/* pages before it are complete */
	__u64 valid;	/* PUT: the reader's pages before it were overwritten */
	__u64 missed;	/* PUT: records overwritten since the last PUT told */
	__u32 nr_pages;	/* the ring's pages: the most the mapping holds */
	__u32 flags;	/* KTRACE_BUF_* */
};

#define KTRACE_BUF_STOPPED	0x1	/* the channel is not running */

#define KTRACE_IOC_MAGIC	0xb7
#define KTRACE_BUF_GET_PRODUCED	\
	_IOR(KTRACE_IOC_MAGIC, 1, struct ktrace_buf_pos)
#define KTRACE_BUF_PUT_CONSUMED	\
	_IOWR(KTRACE_IOC_MAGIC, 2, struct ktrace_buf_pos)
#define KTRACE_BUF_FLUSH	_IO(KTRACE_IOC_MAGIC, 3)

#endif /* KTRACE_ABI_H */
