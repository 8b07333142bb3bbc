/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat reader: opens a v6 or v7 file (trace-cmd's format, also
 * zstd/zlib compressed), checks every size and offset against the file
 * and the limits in tracedat.h, loads the formats, kallsyms, printk
 * formats and comms into a tep_handle, and hands out the raw ring-buffer
 * pages of each CPU of each buffer (the top one and instances) through a
 * bounded window, so memory never grows with the file.
 *
 * Errors: kt_reader_open() logs one line naming the byte offset and what
 * was expected, and fails with -EBADMSG for a damaged or foreign file
 * (the caller exits 2), other -errno for the rest.
 */
#ifndef KT_READER_H
#define KT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tep_handle;
struct tep_event;
struct kt_reader;
struct kt_stream;

/*
 * path is a trace.dat file, or a directory of chunks of one recording
 * (record --rotate's), read as a series: see kt_reader_open_list().
 */
struct kt_reader *kt_reader_open(const char *path);
void kt_reader_close(struct kt_reader *r);

/*
 * A series: the chunks of one recording read as one trace.  Each path is
 * a chunk, or a directory whose chunks are its regular, not hidden files
 * that start with the trace.dat magic, in strverscmp() order of their
 * names (other files are skipped with one warning).  Chunks given as
 * files are put in the order of their first times.  Each CPU's pages are
 * those of the chunks one after the other, so the series merges as the
 * one file it was cut from.  The formats, options and metadata are the
 * first chunk's; the CPUSTATs (losses) are summed; each chunk is checked
 * to belong with the first (CPU count, clock and its offsets, byte order,
 * long and page size, event formats, each CPU's times following the last
 * chunk's): one line naming the chunk and why, and -EINVAL.  Only what
 * each chunk's span needs is read at the open; memory holds a little per
 * chunk, and one chunk per stream is open while it is read.  One path
 * that is a file opens it as kt_reader_open() does.
 */
struct kt_reader *kt_reader_open_list(const char *const *paths, int n);
/*
 * The same for the chunks' data and CPUSTATs only, the first chunk too
 * opened as kt_reader_open_index() opens a file (no kallsyms, printk
 * formats, cmdlines or plugins: nothing to print events by name with).
 */
struct kt_reader *kt_reader_open_list_index(const char *const *paths, int n);
/* Chunks in a series, 0 for a file. */
int kt_reader_chunks(const struct kt_reader *r);
struct kt_reader_chunk {
	const char *path;
	int version;
	const char *compression;
	bool has_span;			/* it holds events */
	unsigned long long first, last;	/* shown times (kt_reader_ts) */
	bool has_stat;			/* it stored CPUSTATs */
	unsigned long long lost;	/* their overrun and dropped events */
};
int kt_reader_chunk(const struct kt_reader *r, int k, struct kt_reader_chunk *c);
/*
 * Chunk k's event records (its pages walked, nothing decoded) and the
 * events its pages say were lost (*unknown: some were, not how many).
 */
int kt_reader_chunk_events(struct kt_reader *r, int k,
			   unsigned long long *events, unsigned long long *lost,
			   bool *unknown);
/*
 * Chunk k's data of CPU cpu of its top buffer as its file stores it
 * (k 0 of a reader of one file: the file's): where it begins (packed:
 * at its block count), its bytes (packed: without the count, as
 * trace-cmd stores the size), whether it is packed (v7 blocks: each its
 * packed and unpacked sizes, then its bytes), and the raw times of its
 * first page and last event (first > last: it holds none).  0 or
 * -ENOENT (no such chunk, or the CPU has no data in it).
 */
struct kt_reader_chunk_cpu {
	uint64_t off, size;
	bool packed;
	uint64_t first, last;
};
int kt_reader_chunk_cpu(struct kt_reader *r, int k, int cpu,
			struct kt_reader_chunk_cpu *c);

/*
 * How much of a v6 file's start is whole, for a recording's header piece
 * (the writer's file of a killed 'ktrace record', lib/live/session/recover.c):
 * the file header, header_page, header_event and the ftrace and event
 * formats, checked as kt_reader_open() checks them, then the kallsyms
 * and printk sections when they are complete.
 */
struct kt_reader_head {
	int version;			/* 6 or 7 */
	char compression[8];		/* v7's: "none", "zstd", "zlib" */
	bool big_endian;
	int long_size;			/* as the file header says */
	unsigned int page_size;
	/* v6: where the header info begins and ends, the ftrace formats end */
	uint64_t info_start, info_end, ftrace_end;
	uint64_t formats_end;		/* where the event formats end */
	uint64_t kallsyms_end;		/* 0: kallsyms is not whole */
	uint64_t printk_end;		/* 0: the printk formats are not */
};
/*
 * 0; -EBADMSG when the file is damaged (or not v6 or v7) before its
 * formats end, reported at debug level only; or another -errno.  In v7
 * the ends are those of the sections, in the order the writer writes
 * them (header info, ftrace and event formats, kallsyms, printk).
 */
int kt_reader_head(const char *path, struct kt_reader_head *h);

/*
 * A v7 file's section id (KT_OPT_HEADER_INFO to KT_OPT_CMDLINES), its
 * content unpacked: what a v6 file holds in that place.  *buf is the
 * caller's to free.  -ENOENT when the file has no such section, -EINVAL
 * for a v6 file or another id, -EBADMSG when it is damaged.
 */
int kt_reader_section(struct kt_reader *r, unsigned int id,
		      unsigned char **buf, size_t *len);

/*
 * A latency trace (v6 "latency" instead of "flyrecord"): no streams, but
 * the text of the tracer's trace file, read from offset at into buf.
 * Returns the bytes read, 0 at the end, or -errno.
 */
bool kt_reader_latency(const struct kt_reader *r);
ssize_t kt_reader_latency_read(struct kt_reader *r, uint64_t at, void *buf,
			       size_t n);
const char *kt_reader_path(const struct kt_reader *r);
/* The file whose header r holds: r's file, or a series' first chunk. */
const char *kt_reader_head_path(const struct kt_reader *r);
/*
 * The file's events: every format parsed (kt_reader_tep), or only those
 * wanted so far (kt_reader_tep_lazy: lazyfmt.c, a format is parsed when
 * a record of its ID comes or it is asked for by name), for the report
 * path, whose users ask with the calls below.
 */
struct tep_handle *kt_reader_tep(const struct kt_reader *r);
struct tep_handle *kt_reader_tep_lazy(const struct kt_reader *r);
/* Parse the formats of event id kept: how many were (0: none kept). */
int kt_reader_event_want(const struct kt_reader *r, int id);
/* Event system:name, its format parsed if kept; NULL if the file has none. */
struct tep_event *kt_reader_event_named(const struct kt_reader *r, const char *system,
					const char *name);
/* Event system:name's id, parsed or not; -1 if the file has none. */
int kt_reader_event_id(const struct kt_reader *r, const char *system, const char *name);
/* At least one event parsed when the file has any (its common fields). */
void kt_reader_events_some(const struct kt_reader *r);
/* Bumped at each format parsed after the open: tables made from the tep go stale. */
unsigned int kt_reader_formats_gen(const struct kt_reader *r);
int kt_reader_version(const struct kt_reader *r);
unsigned int kt_reader_page_size(const struct kt_reader *r);
/* The kernel's long size (4 or 8), from header_page. */
int kt_reader_long_size(const struct kt_reader *r);
bool kt_reader_big_endian(const struct kt_reader *r);
/* "none", "zstd" or "zlib". */
const char *kt_reader_compression(const struct kt_reader *r);
/* Number of CPUs of the traced machine. */
int kt_reader_cpus(const struct kt_reader *r);
/* The trace clock ("local", "mono", ...), or "" when the file has none. */
const char *kt_reader_clock(const struct kt_reader *r);
/* Timestamps are ns (shown as seconds.usecs) rather than raw counts. */
bool kt_reader_in_usecs(const struct kt_reader *r);
/* Raw ring-buffer timestamp -> what trace-cmd shows (offsets applied). */
unsigned long long kt_reader_ts(const struct kt_reader *r,
				unsigned long long raw);
/*
 * kt_reader_ts()'s numbers, fixed once the file is open, for a caller
 * that converts each record inline: (raw * mult >> shift, or raw when
 * mult is 0) + offset, the sum wrapping.
 */
void kt_reader_ts_scale(const struct kt_reader *r, uint32_t *mult,
			uint32_t *shift, long long *offset);
const char *kt_reader_uname(const struct kt_reader *r);
/* The traced machine, uname -m's word ("x86_64"), or NULL when unknown. */
const char *kt_reader_machine(const struct kt_reader *r);
const char *kt_reader_tool_version(const struct kt_reader *r);
/*
 * The traced processes' memory maps record --user-stack stored
 * (KT_OPT_KTRACE_MAPS' lines, see file/tracedat.h), or NULL.
 */
const char *kt_reader_user_maps(const struct kt_reader *r);
/* Which process each thread is of (KT_OPT_KTRACE_TGIDS' lines), or NULL. */
const char *kt_reader_tgids(const struct kt_reader *r);
/* The trace clock against realtime record stored (KT_OPT_KTRACE_CLOCK's
 * text, file/wallclock.h reads it), or NULL. */
const char *kt_reader_wall_clock(const struct kt_reader *r);
/*
 * The offsets of a remote recording's trace clock against its
 * controller's (KT_OPT_KTRACE_TSYNC's text, file/tracedat.h), or NULL.
 */
const char *kt_reader_tsync(const struct kt_reader *r);
/* The `ktrace record ...` command line that made the file, or NULL. */
const char *kt_reader_record_cmdline(const struct kt_reader *r);
/* A trigger's snapshot: its KT_OPT_KTRACE_TRIGGER text (file/trigopt.h), or NULL. */
const char *kt_reader_trigger(const struct kt_reader *r);
/* The CPUSTAT text stored for a CPU of a buffer at record time, or NULL. */
const char *kt_reader_cpustat(const struct kt_reader *r, int buf, int cpu);
/* Set once damage was found (and reported) in the data. */
bool kt_reader_damaged(const struct kt_reader *r);
void kt_reader_set_damaged(struct kt_reader *r);

/*
 * Have r's streams read (and unpack) their next window in a second
 * thread while the current one is decoded: the same pages, in the same
 * order, with the same warnings (whatever goes wrong there is done again
 * in the stream's own thread, as without it).  Not for a series, whose
 * chunks are read one at a time.  0, or -errno when no thread starts.
 * Streams must be closed before r.
 */
int kt_reader_read_ahead(struct kt_reader *r);
/*
 * Whether reading ahead pays for r: the file holds at least
 * KT_AHEAD_MIN_BYTES of trace data (below that a whole report takes a
 * few tens of milliseconds), it is not a series, and a second CPU is free
 * for the thread: the CPUs this process may run on, less the 1-minute
 * load average, leave more than 1.5.  Otherwise the two threads would
 * only take turns.
 */
#define KT_AHEAD_MIN_BYTES	(4u << 20)
bool kt_reader_ahead_pays(const struct kt_reader *r);
/*
 * As kt_reader_read_ahead(), but the thread has to earn its CPU: over the
 * file's first quarter the streams read ahead in some phases and not in
 * others, and go on reading ahead only if that cost at most 10% more CPU
 * and saved at least 5% of the wall time (ahead-trial.h says why and
 * how).  The bytes read are the same whatever it decides.
 */
int kt_reader_try_read_ahead(struct kt_reader *r);
/*
 * Once the trial is over: true, whether reading ahead was kept, and the
 * CPU and wall seconds its phases took ([0] serial, [1] reading ahead).
 */
bool kt_reader_ahead_tried(const struct kt_reader *r, bool *ahead, double cpu[2],
			   double wall[2]);

/* Buffers: 0 is the top buffer, 1.. the instances in file order. */
int kt_reader_buffers(const struct kt_reader *r);
const char *kt_reader_buffer_name(const struct kt_reader *r, int buf);
/* Per-CPU data streams of a buffer (only CPUs that have data). */
int kt_reader_streams(const struct kt_reader *r, int buf);
int kt_reader_stream_cpu(const struct kt_reader *r, int buf, int i);
uint64_t kt_reader_stream_bytes(const struct kt_reader *r, int buf, int i);

/*
 * One CPU's pages in file order (a stream: stream.c).  A page handed
 * out stays valid (and writable) until the next call of
 * kt_stream_next_page().  The page is followed by at least
 * KT_STREAM_SLACK readable bytes (the next page, or zeros after the last
 * page of a window), so a parser reading a header word just past its end
 * stays inside memory.
 */
#define KT_STREAM_SLACK 64
struct kt_stream *kt_stream_open(struct kt_reader *r, int buf, int i);
void kt_stream_close(struct kt_stream *s);
/*
 * Only [from, to] (shown times) is wanted: a series' stream does not open
 * the chunks whose pages of its CPU lie wholly outside.  A file's stream
 * is unchanged (the caller skips what is outside).
 */
void kt_stream_window(struct kt_stream *s, uint64_t from, uint64_t to);
/*
 * Returns 1 and the page and its file offset (for compressed data, the
 * offset of its chunk), 0 at the end, or -EBADMSG when the data is
 * damaged (reported; the stream then ends).
 */
int kt_stream_next_page(struct kt_stream *s, void **page, uint64_t *offset);
/* The file the current page is in: a series' chunk, or the reader's file. */
const char *kt_stream_path(const struct kt_stream *s);
/* The page after the current one when it is already in memory, or NULL. */
void *kt_stream_peek_page(struct kt_stream *s);

#endif
