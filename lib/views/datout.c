// SPDX-License-Identifier: GPL-2.0
/* A selection written as a new trace.dat v6: see datout.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/tmpfile.h"
#include "decode/decoder.h"
#include "decode/select.h"
#include "file/reader.h"
#include "file/tracedat.h"
#include "file/writer.h"
#include "views/datout.h"
#include "ktrace-page.h"

/* Page header: the page's timestamp, then a long of commit and flags. */
#define PAGE_HDR	(8 + sizeof(long))

/* One CPU's output: the page being filled, and the file of full pages. */
struct out_cpu {
	int fd;				/* -1: not kept */
	unsigned char *page;
	unsigned int used;		/* bytes of records in the page */
	unsigned long long last_ts;
	long long missed;		/* before the next page: 0, N, -1 some */
	unsigned long long pages;
	/* For the CPU's statistics. */
	unsigned long long events, bytes, lost;
	bool unknown;
};

struct datout {
	struct kt_reader *r;
	unsigned int page_size;
	struct out_cpu *cpus;		/* [buffer * ncpus + cpu] */
	int ncpus;
	int nbufs;
};

static int flush_page(struct datout *o, struct out_cpu *c)
{
	unsigned long commit = c->used;
	unsigned char *data = c->page + PAGE_HDR;
	int ret;

	if (!c->used)
		return 0;
	if (c->missed) {
		commit |= KT_RB_MISSED_EVENTS;
		if (c->missed > 0) {
			unsigned long n = (unsigned long)c->missed;

			commit |= KT_RB_MISSED_STORED;
			memcpy(data + c->used, &n, sizeof(n));
		}
	}
	memcpy(c->page + 8, &commit, sizeof(commit));
	ret = kt_write_all(c->fd, c->page, o->page_size);
	if (ret)
		return ret;
	c->pages++;
	c->used = 0;
	c->missed = 0;
	memset(c->page, 0, o->page_size);
	return 0;
}

static uint32_t with_delta(uint32_t w, uint32_t delta)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (w & 31) | (delta << 5);
#else
	return (w & ~((1U << KT_RB_DELTA_BITS) - 1)) | delta;
#endif
}

static uint32_t header_word(unsigned int type, uint32_t delta)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return type | (delta << 5);
#else
	return (type << 27) | delta;
#endif
}

/*
 * Add one record (its ring-buffer header and payload, len bytes at rec)
 * at time ts: the delta from the record before, a time extend when it
 * does not fit 27 bits, a fresh page when the page is full.
 */
static int add_record(struct datout *o, struct out_cpu *c,
		      unsigned long long ts, const unsigned char *rec,
		      unsigned int len)
{
	unsigned int cap = o->page_size - PAGE_HDR - sizeof(long);
	unsigned long long delta;
	unsigned char *at;
	uint32_t w;
	bool ext;
	int ret;

	if (len > cap || len < 4)
		return -EFBIG;
	if (c->used && ts < c->last_ts) {
		ret = flush_page(o, c);
		if (ret)
			return ret;
	}
	delta = c->used ? ts - c->last_ts : 0;
	ext = delta >= (1ULL << KT_RB_DELTA_BITS);
	if (c->used && c->used + len + (ext ? 8 : 0) > cap) {
		ret = flush_page(o, c);
		if (ret)
			return ret;
		delta = 0;
		ext = false;
	}
	if (!c->used)
		memcpy(c->page, &ts, 8);
	at = c->page + PAGE_HDR + c->used;
	if (ext) {
		uint32_t hi = (uint32_t)(delta >> KT_RB_DELTA_BITS);

		w = header_word(KT_RB_TYPE_TIME_EXTEND,
				(uint32_t)(delta & ((1U << KT_RB_DELTA_BITS) - 1)));
		memcpy(at, &w, 4);
		memcpy(at + 4, &hi, 4);
		at += 8;
		c->used += 8;
		delta = 0;
	}
	memcpy(at, rec, len);
	memcpy(&w, at, 4);
	w = with_delta(w, (uint32_t)delta);
	memcpy(at, &w, 4);
	c->used += len;
	c->last_ts = ts;
	return 0;
}

static int take(const struct kt_event *ev, void *arg)
{
	struct datout *o = arg;
	struct tep_record *rec = ev->record;
	struct out_cpu *c;
	const unsigned char *hdr;
	int ret;

	if (ev->buffer < 0 || ev->buffer >= o->nbufs || ev->cpu < 0 ||
	    ev->cpu >= o->ncpus)
		return 0;
	c = &o->cpus[ev->buffer * o->ncpus + ev->cpu];
	if (c->fd < 0)
		return 0;
	/*
	 * A loss goes before the next page of its CPU: the page being
	 * filled ends here, and the next one carries the mark (before the
	 * next record kept, when the one that carried it is left out).
	 */
	if (rec->missed_events) {
		ret = flush_page(o, c);
		if (ret)
			return ret;
		if (rec->missed_events < 0 || c->missed < 0) {
			c->missed = -1;
		} else {
			c->missed += rec->missed_events;
		}
		if (rec->missed_events > 0)
			c->lost += (unsigned long long)rec->missed_events;
		else
			c->unknown = true;
	}
	if (!ev->selected)
		return 0;
	if (rec->record_size < rec->size || rec->size < 0)
		return -EBADMSG;
	/* The walker's record: its header words, then the payload. */
	hdr = (const unsigned char *)rec->data - (rec->record_size - rec->size);
	ret = add_record(o, c, rec->ts, hdr, (unsigned int)rec->record_size);
	if (ret)
		return ret;
	c->events++;
	c->bytes += (unsigned long long)rec->record_size;
	return 0;
}

/* Bytes [from, to) of fd to the writer. */
static int copy_range(struct kt_writer *w, int fd, uint64_t from, uint64_t to)
{
	char buf[1 << 16];
	ssize_t n;
	int ret;

	while (from < to) {
		size_t len = to - from > sizeof(buf) ? sizeof(buf) : to - from;

		n = pread(fd, buf, len, (off_t)from);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		ret = kt_writer_raw(w, buf, (size_t)n);
		if (ret)
			return ret;
		from += (uint64_t)n;
	}
	return 0;
}

/*
 * A v6 input's header parts, each as its v7 section: the bytes are the
 * same (v7 keeps v6's bytes for each part in a section of its own).
 */
static int v6_sections(struct kt_writer *w, int fd,
		       const struct kt_reader_head *h)
{
	static const unsigned int ids[] = {
		KT_OPT_HEADER_INFO, KT_OPT_FTRACE_EVENTS, KT_OPT_EVENT_FORMATS,
		KT_OPT_KALLSYMS, KT_OPT_PRINTK,
	};
	const uint64_t ends[] = {
		h->info_start, h->info_end, h->ftrace_end, h->formats_end,
		h->kallsyms_end, h->printk_end,
	};
	unsigned char *buf;
	size_t i, len;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(ids) / sizeof(ids[0]); i++) {
		len = ends[i + 1] - ends[i];
		buf = malloc(len ? len : 1);
		if (!buf)
			return -ENOMEM;
		ret = kt_pread_all(fd, buf, len, (off_t)ends[i]);
		if (!ret)
			ret = kt_writer_section(w, ids[i], buf, len);
		free(buf);
	}
	return ret;
}

/* The saved cmdlines after the printk formats: an 8-byte size, the text. */
static int read_cmdlines(int fd, uint64_t at, char **text, size_t *len)
{
	uint64_t size;
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n;

	*text = NULL;
	*len = 0;
	if (pread(fd, &size, 8, (off_t)at) != 8 || end < 0)
		return -EBADMSG;
	if (size > KT_DAT_MAX_CMDLINES)
		return -EBADMSG;
	/* As the reader: a size larger than what follows is cut to it. */
	if (at + 8 + size > (uint64_t)end)
		size = (uint64_t)end - at - 8;
	*text = malloc(size + 1);
	if (!*text)
		return -ENOMEM;
	n = pread(fd, *text, size, (off_t)(at + 8));
	if (n != (ssize_t)size) {
		free(*text);
		*text = NULL;
		return -EIO;
	}
	*len = size;
	return 0;
}

/*
 * The CPU's record-time statistics: as stored for a selection without a
 * time window (they cover the whole recording of the CPU, which is kept);
 * for a window, what the window holds: its records, and its marks'
 * loss as overrun (the stored counts cover time that is left out).
 */
static int add_cpustat(struct kt_writer *w, struct datout *o,
		       const struct kt_select *sel, int b, int cpu)
{
	const struct out_cpu *c = &o->cpus[b * o->ncpus + cpu];
	const char *st = kt_reader_cpustat(o->r, b, cpu);
	char buf[512];

	/* A CPU without stats stays without: its loss stays unknown. */
	if (!st)
		return 0;
	if (!kt_select_has_window(sel))
		return kt_writer_add_option_str(w, KT_OPT_CPUSTAT, st);
	snprintf(buf, sizeof(buf),
		 "CPU: %d\nentries: 0\noverrun: %llu\ncommit overrun: 0\n"
		 "bytes: 0\ndropped events: 0\nread events: %llu\n"
		 "ktrace window: these count the lost-event marks and events of a --from/--to window%s\n",
		 cpu, c->lost, c->events,
		 c->unknown ? ", and some marks had no count" : "");
	return kt_writer_add_option_str(w, KT_OPT_CPUSTAT, buf);
}

/*
 * A v7 input's header: the contents of its header, ftrace formats, event
 * formats, kallsyms and printk sections (v7 keeps v6's bytes for each
 * part in a section of its own; an absent part is an empty one), as v7
 * sections when the output is v7 (it keeps the input's version), else
 * as v6 has them after the magic, "6", byte order, long size and page
 * size.  The cmdlines section gives *cmdlines.
 */
static int v7_head(struct kt_writer *w, struct kt_reader *r, char **cmdlines,
		   size_t *cmdlines_len)
{
	static const unsigned int parts[] = {
		KT_OPT_HEADER_INFO, KT_OPT_FTRACE_EVENTS, KT_OPT_EVENT_FORMATS,
		KT_OPT_KALLSYMS, KT_OPT_PRINTK,
	};
	unsigned char head[KT_DAT_MAGIC_LEN + 8], *buf;
	uint32_t page = kt_reader_page_size(r), none = 0;
	bool v7 = kt_writer_version(w) >= 7;
	uint64_t size;
	size_t i, len;
	int ret;

	memcpy(head, KT_DAT_MAGIC, KT_DAT_MAGIC_LEN);
	memcpy(head + KT_DAT_MAGIC_LEN, "6", 2);
	head[KT_DAT_MAGIC_LEN + 2] = 0;		/* little endian: check_input */
	head[KT_DAT_MAGIC_LEN + 3] = (unsigned char)kt_reader_long_size(r);
	memcpy(head + KT_DAT_MAGIC_LEN + 4, &page, 4);
	ret = v7 ? 0 : kt_writer_raw(w, head, sizeof(head));
	for (i = 0; !ret && i < sizeof(parts) / sizeof(parts[0]); i++) {
		ret = kt_reader_section(r, parts[i], &buf, &len);
		if (ret == -ENOENT && parts[i] != KT_OPT_HEADER_INFO) {
			ret = v7 ? kt_writer_section(w, parts[i], &none, 4) :
				   kt_writer_raw(w, &none, 4);
			continue;
		}
		if (!ret)
			ret = v7 ? kt_writer_section(w, parts[i], buf, len) :
				   kt_writer_raw(w, buf, len);
		free(buf);
	}
	if (ret)
		return ret;
	ret = kt_reader_section(r, KT_OPT_CMDLINES, &buf, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	size = 0;
	if (len >= 8)
		memcpy(&size, buf, 8);
	/* As the reader: a size larger than what follows is cut to it. */
	if (size > len - (len >= 8 ? 8 : len))
		size = len >= 8 ? len - 8 : 0;
	memmove(buf, buf + (len >= 8 ? 8 : 0), size);
	buf[size] = '\0';
	*cmdlines = (char *)buf;
	*cmdlines_len = size;
	return 0;
}

/*
 * Instance b's BUFFER option: the offset of its part, then its name.
 * Queued with offset 0 (!off), patched once the part is written.
 */
static int buffer_option(struct kt_writer *w, struct datout *o, int b,
			 unsigned long long off)
{
	const char *name = kt_reader_buffer_name(o->r, b);
	size_t len = 8 + strlen(name) + 1;
	char *buf = malloc(len);
	int ret;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, &off, 8);
	memcpy(buf + 8, name, len - 8);
	ret = off ? kt_writer_patch_option(w, KT_OPT_BUFFER, b - 1, buf, len) :
		    kt_writer_add_option(w, KT_OPT_BUFFER, buf, len);
	free(buf);
	return ret;
}

/* What the output keeps of the input that this writer can keep. */
static int check_input(struct kt_reader *r)
{
	const char *why = NULL;

	if (kt_reader_big_endian(r) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ||
		 kt_reader_long_size(r) != (int)sizeof(long))
		why = "its byte order or long size is not this machine's";
	if (!why)
		return 0;
	kt_err("cannot write a .dat from '%s': %s", kt_reader_path(r), why);
	return -ENOTSUP;
}

static int write_file(struct datout *o, struct kt_decoder *d,
		      const struct kt_select *sel, const char *path,
		      struct kt_writer *w, int in)
{
	struct kt_writer_tail tail = { 0 };
	struct kt_writer_cpu *wc = NULL;
	bool v7 = kt_writer_version(w) >= 7;
	struct kt_reader_head h;
	char *cmdlines = NULL;
	const char *s;
	int b, i, ret;

	if (kt_reader_version(o->r) >= 7) {
		ret = v7_head(w, o->r, &cmdlines, &tail.cmdlines_len);
		if (ret == -EBADMSG || ret == -ENOENT) {
			kt_err("cannot write a .dat from '%s': its header sections do not read back whole",
			       kt_reader_path(o->r));
			return -EBADMSG;
		}
		if (ret)
			goto out;
	} else {
		ret = kt_reader_head(kt_reader_head_path(o->r), &h);
		if (!ret && !h.printk_end)
			ret = -EBADMSG;
		if (ret) {
			kt_err("cannot write a .dat from '%s': its header does not read back whole",
			       kt_reader_path(o->r));
			return ret;
		}
		/* Header, formats, kallsyms and printk formats, as they are. */
		ret = v7 ? v6_sections(w, in, &h) :
			   copy_range(w, in, 0, h.printk_end);
		if (!ret)
			ret = read_cmdlines(in, h.printk_end, &cmdlines,
					    &tail.cmdlines_len);
		if (ret)
			goto out;
	}
	tail.cmdlines = cmdlines;
	tail.clock = kt_reader_clock(o->r);
	ret = kt_decoder_run(d, take, o);
	for (i = 0; !ret && i < o->nbufs * o->ncpus; i++)
		if (o->cpus[i].fd >= 0)
			ret = flush_page(o, &o->cpus[i]);
	if (ret)
		goto out;
	/* The option holds trace_clock's text: the clock in use in [ ]. */
	if (*kt_reader_clock(o->r)) {
		char clk[128];

		snprintf(clk, sizeof(clk), "[%s]\n", kt_reader_clock(o->r));
		ret = kt_writer_add_option_str(w, KT_OPT_TRACECLOCK, clk);
	}
	s = kt_reader_uname(o->r);
	if (!ret && s && *s)
		ret = kt_writer_add_option_str(w, KT_OPT_UNAME, s);
	s = kt_reader_tool_version(o->r);
	if (!ret && s && *s)
		ret = kt_writer_add_option_str(w, KT_OPT_VERSION, s);
	/* record --user-stack's maps: the cut-down file's stacks keep names. */
	s = kt_reader_user_maps(o->r);
	if (!ret && s && *s)
		ret = kt_writer_add_option_str(w, KT_OPT_KTRACE_MAPS, s);
	s = kt_reader_tgids(o->r);
	if (!ret && s && *s)
		ret = kt_writer_add_option_str(w, KT_OPT_KTRACE_TGIDS, s);
	/*
	 * Instances: a BUFFER option each (its offset patched once its part
	 * is written), their CPU stats after a "Buffer: NAME" one, as
	 * trace-cmd files them.
	 */
	for (b = 1; !ret && !v7 && b < o->nbufs; b++)
		ret = buffer_option(w, o, b, 0);
	for (b = 0; !ret && b < o->nbufs; b++) {
		char head[300];

		if (b) {
			snprintf(head, sizeof(head), "\nBuffer: %s\n\n",
				 kt_reader_buffer_name(o->r, b));
			ret = kt_writer_add_option_str(w, KT_OPT_CPUSTAT, head);
		}
		for (i = 0; !ret && i < o->ncpus; i++)
			if (o->cpus[b * o->ncpus + i].fd >= 0)
				ret = add_cpustat(w, o, sel, b, i);
	}
	if (ret)
		goto out;
	wc = calloc((size_t)o->ncpus, sizeof(*wc));
	if (!wc) {
		ret = -ENOMEM;
		goto out;
	}
	for (b = 0; !ret && b < o->nbufs; b++) {
		unsigned long long off = 0;

		for (i = 0; i < o->ncpus; i++) {
			wc[i].fd = o->cpus[b * o->ncpus + i].fd;
			wc[i].size = (unsigned long long)
				o->cpus[b * o->ncpus + i].pages * o->page_size;
		}
		if (!b) {
			ret = kt_writer_finish(w, &tail, o->ncpus, wc);
			/* 1: a full disk left pages out: no half selection. */
			if (ret > 0)
				ret = -ENOSPC;
			continue;
		}
		ret = kt_writer_append_buffer(w, kt_reader_buffer_name(o->r, b),
					      tail.clock, o->ncpus, wc, &off);
		if (!ret && !v7)
			ret = buffer_option(w, o, b, off);
	}
	if (!ret)
		ret = kt_writer_commit(w);
out:
	if (ret && ret != -EBADMSG && ret != -ENOTSUP)
		kt_err("cannot write '%s': %s", path, strerror(-ret));
	free(wc);
	free(cmdlines);
	return ret;
}

int kt_datout_write(struct kt_reader *r, struct kt_decoder *d,
		    const struct kt_select *sel, const char *path,
		    int version, const char *compression)
{
	struct datout o = { .r = r, .page_size = kt_reader_page_size(r) };
	struct kt_writer *w;
	int b, i, in, ret;

	ret = check_input(r);
	if (ret)
		return ret;
	o.ncpus = kt_reader_cpus(r);
	o.nbufs = kt_reader_buffers(r);
	for (b = 0; b < kt_reader_buffers(r); b++)
		for (i = 0; i < kt_reader_streams(r, b); i++)
			if (kt_reader_stream_cpu(r, b, i) >= o.ncpus)
				o.ncpus = kt_reader_stream_cpu(r, b, i) + 1;
	if (o.ncpus <= 0 || o.ncpus > KT_DAT_MAX_CPUS ||
	    o.page_size <= PAGE_HDR + sizeof(long) + 8) {
		kt_err("cannot write a .dat from '%s': it has %d CPUs and pages of %u bytes",
		       kt_reader_path(r), o.ncpus, o.page_size);
		return -ENOTSUP;
	}
	/* A series' header is its first chunk's (its formats, kallsyms...). */
	in = open(kt_reader_head_path(r), O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		ret = -errno;
		kt_err("cannot open '%s': %s", kt_reader_path(r), strerror(-ret));
		return ret;
	}
	w = kt_writer_open(path);
	if (!w) {
		ret = -errno;
		kt_err("cannot create '%s': %s; try -o in a writable directory",
		       path, strerror(-ret));
		goto err_in;
	}
	kt_writer_set_page_size(w, (int)o.page_size);
	/* The input's version and compression, unless asked otherwise. */
	if (!version)
		version = (compression && strcmp(compression, "none")) ||
			  kt_reader_version(r) >= 7 ? 7 : 6;
	if (!compression)
		compression = version < 7 ? "none" :
			      kt_reader_version(r) >= 7 ? kt_reader_compression(r) :
			      NULL;
	ret = kt_writer_set_format(w, version, compression);
	if (ret) {
		kt_err("cannot write '%s' as v%d (%s): %s", path, version,
		       compression ? compression : "zstd", strerror(-ret));
		goto err_writer;
	}
	o.cpus = calloc((size_t)(o.ncpus * o.nbufs), sizeof(*o.cpus));
	if (!o.cpus) {
		ret = -ENOMEM;
		goto err_writer;
	}
	for (i = 0; i < o.ncpus * o.nbufs; i++)
		o.cpus[i].fd = -1;
	for (i = 0; i < o.ncpus * o.nbufs; i++) {
		struct out_cpu *c = &o.cpus[i];

		/* Every CPU has a file (an empty one when not kept). */
		c->fd = kt_tmpfile_scratch(kt_writer_tmp_name(w));
		c->page = calloc(1, o.page_size);
		if (c->fd < 0 || !c->page) {
			ret = c->fd < 0 ? c->fd : -ENOMEM;
			c->fd = -1;
			kt_err("cannot create '%s': %s; try -o in a writable directory",
			       path, strerror(-ret));
			goto err_cpus;
		}
		if (!kt_select_cpu(sel, i % o.ncpus)) {
			close(c->fd);
			c->fd = -1;
		}
	}
	ret = write_file(&o, d, sel, path, w, in);
err_cpus:
	for (i = 0; i < o.ncpus * o.nbufs; i++) {
		if (o.cpus[i].fd >= 0)
			close(o.cpus[i].fd);
		free(o.cpus[i].page);
	}
	free(o.cpus);
err_writer:
	kt_writer_close(w);
err_in:
	close(in);
	return ret;
}
