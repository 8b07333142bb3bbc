/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat on-disk format (trace-cmd's; see trace-cmd.dat.v6(5) and
 * trace-cmd.dat.v7(5)).  The one header both the writer and the reader
 * include, so the two can never disagree on a constant.
 */
#ifndef KT_TRACEDAT_H
#define KT_TRACEDAT_H

/* "\027\010Dtracing": 3 magic bytes then "tracing", no terminator. */
#define KT_DAT_MAGIC		"\027\010\104tracing"
#define KT_DAT_MAGIC_LEN	10

/*
 * We write v6 and v7 (a writer writes v6 unless told, record v7 with
 * zstd unless told); we read both.
 */
#define KT_DAT_VERSION_WRITE	6
#define KT_DAT_VERSION_DEFAULT	7
#define KT_DAT_COMPRESSION_DEFAULT	"zstd"
#define KT_DAT_VERSION_MIN	6
#define KT_DAT_VERSION_MAX	7

/* Section names in the v6 header part. */
#define KT_DAT_HEADER_PAGE	"header_page"	/* written with its NUL */
#define KT_DAT_HEADER_EVENT	"header_event"	/* written with its NUL */
/* 10-byte labels before the options and the data. */
#define KT_DAT_LABEL_LEN	10
#define KT_DAT_LABEL_OPTIONS	"options  "	/* + NUL = 10 bytes */
#define KT_DAT_LABEL_FLYRECORD	"flyrecord"	/* + NUL = 10 bytes */
#define KT_DAT_LABEL_LATENCY	"latency  "	/* + NUL = 10 bytes */

/*
 * A line ktrace adds to a CPU's CPUSTAT text after the kernel's stats:
 * events read from the kernel that the output refused (a full disk).
 * The kernel counts them as read, so readers add them to the loss;
 * trace-cmd shows the text as it is.
 */
#define KT_CPUSTAT_UNWRITTEN	"ktrace unwritten events: "

/*
 * The kallsyms size while the section is still being streamed in: what
 * a recording killed at that moment leaves (no real size is this big).
 */
#define KT_DAT_SIZE_PENDING	0xffffffffu

/* Option ids (the same numbers in v6 and v7). */
enum kt_dat_option {
	KT_OPT_DONE		= 0,
	KT_OPT_DATE		= 1,
	KT_OPT_CPUSTAT		= 2,
	KT_OPT_BUFFER		= 3,
	KT_OPT_TRACECLOCK	= 4,
	KT_OPT_UNAME		= 5,
	KT_OPT_HOOK		= 6,
	KT_OPT_OFFSET		= 7,
	KT_OPT_CPUCOUNT		= 8,
	KT_OPT_VERSION		= 9,
	KT_OPT_PROCMAPS		= 10,
	KT_OPT_TRACEID		= 11,
	KT_OPT_TIME_SHIFT	= 12,
	KT_OPT_GUEST		= 13,
	KT_OPT_TSC2NSEC		= 14,
	KT_OPT_STRINGS		= 15,
	KT_OPT_HEADER_INFO	= 16,
	KT_OPT_FTRACE_EVENTS	= 17,
	KT_OPT_EVENT_FORMATS	= 18,
	KT_OPT_KALLSYMS		= 19,
	KT_OPT_PRINTK		= 20,
	KT_OPT_CMDLINES		= 21,
	KT_OPT_BUFFER_TEXT	= 22,
};

/*
 * ktrace's own option, outside trace-cmd's numbers (trace-cmd skips an
 * option it does not know, silently, and its report text is unchanged):
 * the user-space memory maps of the traced processes, for report to
 * name the frames of user stacks (record --user-stack).  NUL-terminated
 * text, one executable file-backed mapping a line, numbers in hex:
 *   "PID FROM START END PGOFF PATH\n"
 * where START-END is the mapping and PGOFF its offset in PATH, as in
 * /proc/PID/maps, and FROM the trace time (a record's timestamp) from
 * which the process runs the program these maps are of (its exec; 0:
 * from the start).  A file may hold several; their lines add up.
 */
#define KT_OPT_KTRACE_MAPS	0x6b74	/* "kt" */
/*
 * ktrace's own too: which process each thread is of, for the analyses'
 * --by process (trace events carry no tgid).  NUL-terminated text, one
 * thread a line, in decimal: "PID TGID\n"; a pid with no line is its
 * own process (leaders are left out).  A file may hold several.
 */
#define KT_OPT_KTRACE_TGIDS	0x6b75

/*
 * ktrace's own option: the trace clock against CLOCK_REALTIME, measured
 * by record as tracing starts and as it stops, for `ktrace push`'s
 * wall-clock timestamps.  Not trace-cmd's DATE option (1): trace-cmd
 * report adds DATE's offset to every timestamp it prints, so the file's
 * text would change; trace-cmd skips this one.  NUL-terminated text,
 * lines of decimal numbers:
 *   "boot_id UUID\n"                      /proc/sys/kernel/random/boot_id
 *   "start TRACE REALTIME WINDOW\n"       trace clock ns, realtime ns, and
 *   "end TRACE REALTIME WINDOW\n"         the realtime read window (ns)
 * REALTIME is the middle of the tightest window of (realtime, trace
 * clock, realtime) reads; the trace clock is read at microseconds.
 */
#define KT_OPT_KTRACE_CLOCK	0x6b63	/* "kc" */

/*
 * ktrace's own option: the command line of the `ktrace record` that made
 * the file, its words joined by spaces (a word with a space or a quote in
 * it in single quotes), NUL-terminated; `ktrace push` stores it in its
 * traces table.
 */
#define KT_OPT_KTRACE_CMDLINE	0x6b72	/* "kr" */

/*
 * ktrace's own option: the offsets between the trace clock of the host
 * that recorded the file (an agent, `ktrace agent`) and its controller's
 * clock (`ktrace record --remote`), measured by round trips as the
 * recording starts, every second and as it stops.  trace-cmd skips it.
 * NUL-terminated text:
 *   "agent HOST CLOCK\n"                  the recording host, its clock
 *   "controller HOST CLOCK\n"             the controller, its clock
 *   "start|during|end TS OFFSET BOUND\n"  one measure: at trace time TS
 *       (ns) the controller's clock read TS + OFFSET (ns, signed),
 *       within +-BOUND ns (half the round trip)
 */
#define KT_OPT_KTRACE_TSYNC	0x6b73	/* "ks" */

/*
 * ktrace's own option: a trigger's snapshot (`record --trigger`), which
 * condition fired and the event that fired it, as file/trigopt.h writes
 * and reads it (NUL-terminated text, "key value" lines).  trace-cmd
 * skips it.
 */
#define KT_OPT_KTRACE_TRIGGER	0x6b67	/* "kg" */

/* v7 section flags. */
#define KT_DAT_SEC_COMPRESSED	1

/*
 * Limits the reader enforces on every size taken from a file, so that an
 * untrusted file can never make it allocate without bound.
 */
#define KT_DAT_MAX_HEADER	(1u << 20)	/* header_page/header_event */
#define KT_DAT_MAX_FORMAT	(1u << 20)	/* one event format file */
#define KT_DAT_MAX_EVENTS	(1u << 16)	/* formats per system */
#define KT_DAT_MAX_SYSTEMS	(1u << 12)
#define KT_DAT_MAX_KALLSYMS	(256u << 20)
#define KT_DAT_MAX_PRINTK	(64u << 20)
#define KT_DAT_MAX_CMDLINES	(64u << 20)
#define KT_DAT_MAX_OPTION	(64u << 20)
#define KT_DAT_MAX_CPUS		4096
#define KT_DAT_MAX_PAGE_SIZE	(1u << 20)
#define KT_DAT_MAX_CHUNK	(64u << 20)	/* one unpacked data chunk */
/* Pages in one packed chunk of CPU data, as trace-cmd packs them. */
#define KT_DAT_CHUNK_PAGES	10

/*
 * Whether a packed chunk's claimed unpacked size can be one: whole pages,
 * at least one, at most KT_DAT_MAX_CHUNK (what a reader allocates for it).
 */
static inline int kt_dat_chunk_size_ok(unsigned long long usize,
				       unsigned long long page)
{
	return usize && usize <= KT_DAT_MAX_CHUNK && !(usize % page);
}

#endif
