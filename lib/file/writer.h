/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace.dat writer, v6 (trace-cmd.dat.v6(5)) or v7 with its sections
 * packed by zstd or zlib (trace-cmd.dat.v7(5)).  A file is built in the
 * order the format dictates:
 *
 *   kt_writer_open()            FILE.tmp-<pid>, nothing under FILE yet
 *   kt_writer_set_format()      v7 and its compression (v6 by default)
 *   kt_writer_headers()         initial header, header_page/event, formats
 *   kt_writer_kallsyms()        /proc/kallsyms
 *   kt_writer_printk()          printk_formats
 *   kt_writer_add_option()...   options, kept until kt_writer_finish()
 *   kt_writer_finish()          cmdlines, CPU count, options, flyrecord,
 *                               CPU data
 *   kt_writer_commit()          in place of FILE (base/tmpfile.h)
 *   kt_writer_close()           removes FILE.tmp-<pid> unless committed
 *
 * One thread at a time.
 */
#ifndef KT_WRITER_H
#define KT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kt_writer;

/* One CPU's recorded pages, as the recorder left them. */
struct kt_writer_cpu {
	int fd;				/* read from offset off */
	unsigned long long size;	/* in: bytes in fd; out: bytes written */
	/*
	 * Out: events in the pages a full disk left out, counted from the
	 * pages before they are given up (cut_unknown: some did not parse).
	 */
	unsigned long long cut_events;
	bool cut_unknown;
	/* Where the pages begin in fd (page-aligned; 0: its start). */
	unsigned long long off;
	/*
	 * v7 packed: blocks packed already with the file's compression, to
	 * go before the pages as they are (a snapshot's finished chunks, a
	 * chunk's pieces packed as they came): packed_blocks blocks, each
	 * its packed and unpacked sizes, then its bytes, in [packed_off,
	 * packed_off + packed_len) of packed_fd; 0 blocks: none.  Without
	 * kt_writer_keep_sources(), they must hold fd's packed_src bytes
	 * before off: a full disk while they are copied has those pages
	 * packed again instead, giving their room back as it goes.
	 */
	int packed_fd;
	uint32_t packed_blocks;
	unsigned long long packed_off, packed_len, packed_src;
};

/*
 * Create path's temporary sibling.  Fails early (NULL + errno) when path
 * is a directory or its directory is not writable.
 */
struct kt_writer *kt_writer_open(const char *path);
/* Remove the temporary file unless committed, and free. */
void kt_writer_close(struct kt_writer *w);

/*
 * Before anything is written: version 6 or 7 and, for 7, the compression
 * ("zstd", "zlib" or "none"; NULL: KT_DAT_COMPRESSION_DEFAULT).  -EINVAL
 * for another version or name, for v6 with a compression, or once the
 * file has begun.  A rotation writes each chunk with a writer of its own.
 */
int kt_writer_set_format(struct kt_writer *w, int version,
			 const char *compression);
/*
 * What a file of version (0: KT_DAT_VERSION_DEFAULT) with compression
 * (NULL: the version's default) is packed with: "none" for v6 unless
 * asked otherwise, as kt_writer_set_format() takes it.
 */
const char *kt_dat_compression(int version, const char *compression);
int kt_writer_version(const struct kt_writer *w);

/* One event's format file, as a format section holds it. */
struct kt_format {
	char *system;
	char *name;
	char *text;
	size_t len;
};

/*
 * What the format sections hold, read by the caller (kt_formats_collect()
 * in lib/live/events/formats.c reads the live ones): header_page, header_event
 * and the events' formats.  Those of system "ftrace" make the ftrace
 * section, in the order given; the others go by system, in the order
 * each system is first seen.
 */
struct kt_formats {
	char *header_page;
	size_t header_page_len;
	char *header_event;
	size_t header_event_len;
	struct kt_format *ev;
	size_t n;
};

/* The initial header and the format sections. */
int kt_writer_headers(struct kt_writer *w, const struct kt_formats *f);

/*
 * The /proc/kallsyms and printk_formats sections, given their text (NULL,
 * 0: empty).  When the text does not fit on the disk the section is
 * written empty and the error returned: the file stays valid.
 */
int kt_writer_kallsyms(struct kt_writer *w, const char *text, size_t len);
int kt_writer_printk(struct kt_writer *w, const char *text, size_t len);
/*
 * kallsyms in pieces, written while it is still being read: begin, add
 * pieces, end.  end(keep=false), or a failed add, leaves the section
 * empty (end returns the add's error, e.g. -ENOSPC).
 */
int kt_writer_kallsyms_begin(struct kt_writer *w);
int kt_writer_kallsyms_add(struct kt_writer *w, const char *text, size_t len);
int kt_writer_kallsyms_end(struct kt_writer *w, bool keep);

/* Queue an option (KT_OPT_*) for kt_writer_finish(). */
int kt_writer_add_option(struct kt_writer *w, unsigned short id,
			 const void *data, size_t len);
/*
 * The i-th option queued: its id and data.  0, or -ENOENT past the last
 * (the agent sends a recording's options to its controller).
 */
int kt_writer_option_at(const struct kt_writer *w, size_t i,
			unsigned short *id, const void **data, size_t *len);
/* Queue a NUL-terminated string option. */
int kt_writer_add_option_str(struct kt_writer *w, unsigned short id,
			     const char *s);

/* What goes between the printk formats and the CPU data. */
struct kt_writer_tail {
	const char *cmdlines;		/* saved_cmdlines text */
	size_t cmdlines_len;
	const char *clock;		/* trace clock name, e.g. "local" */
};

/*
 * Write the saved cmdlines, the CPU count, the options, the flyrecord
 * table with the trace clock and each CPU's data, page-aligned.  Data is
 * moved with copy_file_range (v6, v7 uncompressed) or packed in chunks of
 * 10 pages as trace-cmd packs them; cpus[i].size counts the pages, not
 * what they take packed.  Returns 0, or 1 when the disk was full:
 * the newest pages that did not fit are left out (cpus[i].size says what
 * was written; the sources are shortened or emptied on the way) and the
 * file is valid.  -errno (-ENOSPC too) means no valid file.
 */
int kt_writer_finish(struct kt_writer *w, const struct kt_writer_tail *tail,
		     int ncpus, struct kt_writer_cpu *cpus);

/*
 * After kt_writer_finish(): instance buffer name's part at the end of
 * the file, with *off where it starts, as trace-cmd writes it.  v6: the
 * "flyrecord" label, its CPU table, clock and data; the caller queues
 * the BUFFER option and patches its offset (kt_writer_patch_option()).
 * v7: an options section with the BUFFER option, chained from the last
 * one, then the buffer's section.  0 or -errno (-ENOSPC: no valid file).
 */
int kt_writer_append_buffer(struct kt_writer *w, const char *name,
			    const char *clock, int ncpus,
			    struct kt_writer_cpu *cpus, unsigned long long *off);
/*
 * After kt_writer_finish(): rewrite the data of the nth option of id
 * queued (same length), e.g. a BUFFER option's offset.
 */
int kt_writer_patch_option(struct kt_writer *w, unsigned short id, int nth,
			   const void *data, size_t len);

/*
 * The sources of kt_writer_finish() are read only (a snapshot of pieces
 * a recording still writes): a full disk fails the file with -ENOSPC
 * instead of cutting, truncating or punching them.
 */
void kt_writer_keep_sources(struct kt_writer *w);

/* Give the file its final name. */
int kt_writer_commit(struct kt_writer *w);

/* Bytes in the file so far. */
unsigned long long kt_writer_size(const struct kt_writer *w);

/* The compression of the file's data: "zstd", "zlib" or "none". */
const char *kt_writer_compression(const struct kt_writer *w);

/* The ring-buffer page size the file declares. */
int kt_writer_page_size(const struct kt_writer *w);
/*
 * Align the CPU data to another page size (the host's by default): for
 * a file whose header, written with kt_writer_raw(), declares it.
 */
void kt_writer_set_page_size(struct kt_writer *w, int page_size);

/*
 * The temporary name the file has until kt_writer_commit(); also the
 * prefix of the recorders' per-CPU pieces ("<name>.cpuN").
 */
const char *kt_writer_tmp_name(const struct kt_writer *w);
/*
 * Bytes as they are, in place of kt_writer_headers(): a v6 header built
 * by the caller (report -o).
 */
int kt_writer_raw(struct kt_writer *w, const void *buf, size_t len);
/*
 * v7, in place of kt_writer_headers(), kt_writer_kallsyms() and
 * kt_writer_printk(): one header section's bytes as they were read
 * (report -o of a v7 file), packed as the writer packs; the file's
 * initial header goes out before the first.
 */
int kt_writer_section(struct kt_writer *w, unsigned short id,
		      const void *buf, size_t len);
/*
 * The start of a file this writer wrote, as it is, to go on from
 * (ktrace record --recover): the initial header and the sections up to
 * kallsyms or printk.  For v7, kt_writer_set_format() first, as the
 * file's header says; the writer takes the sections' places from buf.
 * A v7 start written unpacked into a writer that packs (a trigger's
 * ring kept unpacked, its snapshot or its chunk packed as it comes) has
 * each section packed again; -EBADMSG for one packed otherwise.
 */
int kt_writer_resume(struct kt_writer *w, const void *buf, size_t len);

/*
 * kt_writer_resume() from the file at path, which this machine's ktrace
 * began (its byte order, long and page size): its version and
 * compression, its head up to the last complete section, and empty
 * kallsyms and printk sections where it has none (*kallsyms_lost then
 * true).  0, -EBADMSG for a head that is not such a file's, -errno.
 */
int kt_writer_resume_file(struct kt_writer *w, const char *path, bool *kallsyms_lost);

#endif
