/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat reader's private header, shared by lib/file/reader.c
 * (the file's metadata) and lib/file/stream.c (its CPUs' pages) only;
 * the public API is reader.h.
 */
#ifndef KT_READER_INT_H
#define KT_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/byteorder.h"
#include "file/ahead-trial.h"
#include "file/reader.h"
#include "file/tracedat.h"
#include "file/unpack.h"

struct tep_handle;
struct tep_plugin_list;
struct kt_ahead;
struct kt_ksymtab;
struct kt_lazyfmt;

enum comp_kind { COMP_NONE, COMP_ZSTD, COMP_ZLIB };

#define MAX_NAME		256

struct cpu_data {
	int cpu;
	uint64_t off;
	uint64_t size;
	/*
	 * A series' chunk (series.c): the raw time of its first page and of
	 * its last event; first > last when it holds none or is unreadable
	 * (such a span is never left out of a window).
	 */
	uint64_t first, last;
};

struct buffer {
	char *name;
	uint64_t sec_off;	/* v6: where its flyrecord part is */
	bool compressed;
	int nstreams;
	struct cpu_data *streams;
};

/* A text of ktrace's that options add up to (maps, tgids). */
struct kt_optext {
	char *s;
	size_t len;
};

/*
 * One chunk of a series (series.c): what is kept of it while the series
 * is read, its data read by a chunk reader opened only while a stream is
 * in it.
 */
struct kt_chunk {
	char *path;
	int version;
	enum comp_kind comp;
	uint64_t fsize;
	struct buffer *bufs;
	int nbufs;
	uint64_t first, last;	/* raw times over its CPUs; first > last: none */
	uint64_t st_lost;	/* its CPUSTATs' overrun and dropped events */
	bool has_stat;
};

struct kt_series {
	struct kt_chunk *chunks;
	int n;
};

struct kt_reader {
	char *path;
	/* A series of chunks read as one (series.c), or NULL: a file. */
	struct kt_series *series;
	int fd;
	uint64_t fsize;
	int version;
	bool big;
	bool swap;
	int long_size;		/* kernel long, from header_page */
	unsigned int page_size;
	enum comp_kind comp;
	char comp_name[MAX_NAME];
	struct kt_unpack *unpack;	/* kept across chunks: no set-up per chunk */
	/* Streams' next windows read ahead in a thread (kt_reader_read_ahead). */
	struct kt_ahead *ahead;
	struct kt_unpack *ahead_unpack;	/* that thread's own */
	bool ahead_now;		/* streams post their next window to it */
	bool ahead_trying;	/* ahead_now follows the trial (ahead-trial.h) */
	struct kt_ahead_trial trial;
	struct tep_handle *tep;
	/* Formats not parsed yet (lazyfmt.c); NULL: none kept. */
	struct kt_lazyfmt *lazy;
	struct kt_plugins *plugins;	/* plugins.h: loaded as formats need them */
	bool plugins_listed;	/* the plugin files were looked for */
	/* kallsyms, parsed at the first address to name (lazy_symbols()). */
	char *ksyms;
	unsigned char *ksyms_mem;	/* the unpacked section ksyms is in */
	/*
	 * Or, in a file's own bytes (not a packed section), where it is: read
	 * at the first address to name, not at the open (5 MB a machine, read
	 * and paged in for the many commands that name no address).
	 */
	uint64_t ksyms_off, ksyms_size;
	/* Or a packed v7 section's offset: unpacked then (unpack_kallsyms()). */
	uint64_t ksyms_sec;
	/* Parsed: a table of its own, or a tep for a text of another shape. */
	struct kt_ksymtab *ksyms_tab;
	struct tep_handle *ksyms_tep;
	bool ksyms_tried;
	/* Its answers by address (lazy_symbols()), allocated with it. */
	struct ksym_ent *ksyms_cache;
	int cpus;
	char *clock;
	bool in_usecs;
	bool clock_opt;		/* v6 options named a trace clock */
	bool latency;		/* a latency trace: text from lat_off */
	uint64_t lat_off;
	long long ts_offset;
	uint32_t tsc_mult, tsc_shift;
	char *uname;
	char *tool_version;
	struct kt_optext user_maps;	/* KT_OPT_KTRACE_MAPS' lines, all options' */
	struct kt_optext tgids;		/* KT_OPT_KTRACE_TGIDS' lines */
	char *wall_clock;	/* KT_OPT_KTRACE_CLOCK's text */
	char *tsync;		/* KT_OPT_KTRACE_TSYNC's text */
	char *record_cmdline;	/* KT_OPT_KTRACE_CMDLINE's */
	char *trigger;		/* KT_OPT_KTRACE_TRIGGER's */
	char **cpustat;		/* "CPU: n\n..." texts */
	char **cpustat_buf;	/* the buffer each belongs to ("" top) */
	int ncpustat;
	char *stat_buf;		/* buffer named by the last "Buffer:" */
	struct buffer *bufs;
	int nbufs;
	bool damaged;
	bool quiet;		/* kt_reader_head(): damage is no error */
	bool index_only;	/* kt_reader_open_index(): no symbols, plugins */
	uint64_t sec_off[KT_OPT_BUFFER_TEXT + 1];
	size_t window;
};


static inline uint16_t get16(const struct kt_reader *r, const void *p)
{
	return kt_get16(r->swap, p);
}

static inline uint32_t get32(const struct kt_reader *r, const void *p)
{
	return kt_get32(r->swap, p);
}

static inline uint64_t get64(const struct kt_reader *r, const void *p)
{
	return kt_get64(r->swap, p);
}

/* Read n bytes at off: 0, -EBADMSG when the file ends first, or -errno. */
int kt_reader_pread_all(int fd, void *buf, size_t n, uint64_t off);
/* Unpack a chunk with the file's compression to exactly dlen bytes. */
/* kt_reader_unpack() with an unpacker of the caller's (one a thread). */
int kt_reader_unpack_ctx(struct kt_reader *r, struct kt_unpack **u, const void *src,
			 size_t slen, void *dst, size_t dlen);
int kt_reader_unpack(struct kt_reader *r, const void *src, size_t slen,
		     void *dst, size_t dlen);

/*
 * A chunk's data only: its file open, the series' page size and byte
 * order, its own compression and CPU data; no formats.  Closed with
 * kt_chunk_reader_close(), never kt_reader_close().
 */
struct kt_reader *kt_chunk_reader_open(const struct kt_reader *series,
				       struct kt_chunk *c);
void kt_chunk_reader_close(struct kt_reader *cr);
/* Where chunk c keeps buffer name's CPU cpu: 0 and *b, *i; or -ENOENT. */
int kt_chunk_find(const struct kt_chunk *c, const char *name, int cpu,
		  int *b, int *i);
/* The raw times of a stream's first page and last event (see cpu_data). */
void kt_stream_span(struct kt_reader *r, int buf, int i, uint64_t *first,
		    uint64_t *last);
/*
 * A page's last event's raw time (the page's when it has none), its event
 * records, and the events lost before it (-1: some), in any byte order.
 */
void kt_page_scan(const struct kt_reader *r, const unsigned char *page,
		  uint64_t *last, uint64_t *events, long long *missed);
/*
 * A series' chunk after the first, opened to check it and note its data:
 * as kt_reader_open(), but a v7 file's kallsyms, printk formats and
 * cmdlines are not unpacked, and no plugins are loaded.
 */
struct kt_reader *kt_reader_open_index(const char *path);
/* Each stream's window of file bytes, from the count of streams. */
void kt_reader_set_window(struct kt_reader *r);
void kt_series_free(struct kt_series *se);

/*
 * The format text buf (size bytes) of system into r's tep: 0, or a
 * TEP_ERRNO, *why the reason when known (reader.c).
 */
int kt_format_parse(struct kt_reader *r, const char *system, char *buf,
		    uint64_t size, const char **why);
/*
 * Keep buf (size bytes, NUL after) of system to parse when wanted
 * (lazyfmt.c): 0 (buf taken), 1 when its text does not say its name and
 * ID first (parse it now), or -errno.
 */
int kt_lazyfmt_add(struct kt_reader *r, const char *system, char *buf, uint64_t size);
/* Parse every format kept (l may be NULL). */
void kt_lazyfmt_all(struct kt_lazyfmt *l);
void kt_lazyfmt_free(struct kt_lazyfmt *l);

#endif
