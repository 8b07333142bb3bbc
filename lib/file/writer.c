// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat writer, v6 or v7.  Everything is written in file order with
 * plain write(); only the flyrecord table (v6), the BUFFER option and the
 * section sizes (v7) are patched (pwrite) once the data behind them is
 * in place.  The file lives under a temporary name until
 * kt_writer_commit(), so no reader ever sees half a file under its name.
 *
 * v7 (trace-cmd.dat.v7(5)) puts each v6 part in a section of its own,
 * packed whole (libzstd or zlib, pack.h), in trace-cmd's order: header
 * info, ftrace and event formats, kallsyms, printk formats, cmdlines,
 * then the options.  Unlike trace-cmd, the CPU data comes last, after
 * the second options section (the BUFFER option, written with room for
 * every CPU and patched) and the strings: a full disk then only ever
 * shortens the data at the file's end, the metadata never needs room
 * after it.  Readers follow the offsets and walk the sections by size,
 * so the order is free (the format says so).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/tmpfile.h"
#include "file/pack.h"
#include "file/pieces.h"
#include "file/tracedat.h"
#include "file/rawpage.h"
#include "file/unpack.h"
#include "file/writer.h"

/* Copy in pieces so a full disk costs at most one piece. */
#define COPY_CHUNK	(1u << 20)
/* What a full disk gives back per try when the metadata does not fit. */
#define ROOM_STEP	(64u << 10)
#define PAGES_IN_CHUNK	KT_DAT_CHUNK_PAGES

/* Bytes gathered in memory: a v7 section before it is packed. */
struct membuf {
	char *p;
	size_t len, cap;
	int err;
};

struct option_item {
	unsigned short id;
	unsigned int len;
	char *data;
	unsigned long long at;	/* where its data went in the file */
};

struct kt_writer {
	char *path;
	char *tmp;
	int fd;
	unsigned long long off;
	int page_size;
	bool committed;
	bool keep_sources;		/* kt_writer_keep_sources() */
	/* The section kt_writer_kallsyms_begin() opened. */
	unsigned long long sec_start, sec_len;
	int sec_err;
	struct option_item *opts;
	size_t nopts;
	/* v7 */
	int version;
	struct kt_pack *pack;		/* NULL: "none" */
	struct membuf *mem;		/* set: output goes there, not to fd */
	struct membuf strings;		/* the strings section */
	struct membuf ksyms;		/* kallsyms while it is streamed in */
	unsigned long long opt_ptr;	/* where the first options' offset goes */
	unsigned long long done_at;	/* the last options' next-section offset */
	unsigned long long sec[KT_OPT_CMDLINES + 1];	/* where each section is */
};

/* ---- low-level output ---- */

static int mem_add(struct membuf *m, const void *buf, size_t len)
{
	if (m->err)
		return m->err;
	if (!len)
		return 0;
	if (m->len + len > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;
		char *p;

		while (cap < m->len + len)
			cap *= 2;
		p = realloc(m->p, cap);
		if (!p)
			return m->err = -ENOMEM;
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

static void mem_free(struct membuf *m)
{
	free(m->p);
	memset(m, 0, sizeof(*m));
}

static int write_all(struct kt_writer *w, const void *buf, size_t len)
{
	int ret;
	off_t pos;

	if (w->mem)
		return mem_add(w->mem, buf, len);
	ret = kt_write_all(w->fd, buf, len);

	if (!ret) {
		w->off += len;
		return 0;
	}
	/*
	 * A failed write may have put part of buf out: count it, so a full
	 * disk keeps the whole pages that made it (copy_cpu()).
	 */
	pos = lseek(w->fd, 0, SEEK_CUR);
	if (pos >= 0)
		w->off = pos;
	return ret;
}

/* Numbers go out in host order; the initial header says which that is. */
static int put4(struct kt_writer *w, uint32_t v)
{
	return write_all(w, &v, 4);
}

static int put8(struct kt_writer *w, uint64_t v)
{
	return write_all(w, &v, 8);
}

/* Go back to a known-good end, dropping whatever was written after it. */
static int rewind_to(struct kt_writer *w, unsigned long long off)
{
	if (ftruncate(w->fd, off) < 0 || lseek(w->fd, off, SEEK_SET) < 0)
		return -errno;
	w->off = off;
	return 0;
}

/* ---- open / close ---- */

struct kt_writer *kt_writer_open(const char *path)
{
	struct kt_writer *w;
	struct stat st;
	int err;

	if (!path || !*path) {
		errno = EINVAL;
		return NULL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = -1;
	w->version = 6;
	w->page_size = getpagesize();
	w->path = strdup(path);
	w->tmp = w->path ? kt_pieces_prefix(path, getpid()) : NULL;
	if (!w->tmp) {
		err = ENOMEM;
		goto err_free;
	}
	w->fd = open(w->tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = errno;
		goto err_free;
	}
	return w;

err_free:
	free(w->tmp);
	free(w->path);
	free(w);
	errno = err;
	return NULL;
}

void kt_writer_close(struct kt_writer *w)
{
	size_t i;

	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (!w->committed && w->tmp)
		unlink(w->tmp);
	for (i = 0; i < w->nopts; i++)
		free(w->opts[i].data);
	free(w->opts);
	kt_pack_free(w->pack);
	mem_free(&w->strings);
	mem_free(&w->ksyms);
	free(w->tmp);
	free(w->path);
	free(w);
}

unsigned long long kt_writer_size(const struct kt_writer *w)
{
	return w->off;
}

int kt_writer_page_size(const struct kt_writer *w)
{
	return w->page_size;
}

void kt_writer_set_page_size(struct kt_writer *w, int page_size)
{
	w->page_size = page_size;
}

const char *kt_dat_compression(int version, const char *compression)
{
	if (!version)
		version = KT_DAT_VERSION_DEFAULT;
	if (!compression)
		compression = version == 7 ? KT_DAT_COMPRESSION_DEFAULT : "none";
	return compression;
}

int kt_writer_set_format(struct kt_writer *w, int version,
			 const char *compression)
{
	compression = kt_dat_compression(version, compression);
	if ((version != 6 && version != 7) || !kt_pack_known(compression) ||
	    (version == 6 && strcmp(compression, "none")) || w->off)
		return -EINVAL;
	w->version = version;
	kt_pack_free(w->pack);
	w->pack = NULL;
	if (strcmp(compression, "none")) {
		w->pack = kt_pack_new(compression);
		if (!w->pack)
			return -errno;
	}
	return 0;
}

const char *kt_writer_compression(const struct kt_writer *w)
{
	return w->pack ? kt_pack_name(w->pack) : "none";
}

int kt_writer_version(const struct kt_writer *w)
{
	return w->version;
}

const char *kt_writer_tmp_name(const struct kt_writer *w)
{
	return w->tmp;
}

int kt_writer_raw(struct kt_writer *w, const void *buf, size_t len)
{
	return write_all(w, buf, len);
}

/* ---- header and formats ---- */

static int write_initial(struct kt_writer *w)
{
	char buf[KT_DAT_MAGIC_LEN + 8];
	const char *name, *version;
	size_t n = 0;
	int ret;

	memcpy(buf, KT_DAT_MAGIC, KT_DAT_MAGIC_LEN);
	n = KT_DAT_MAGIC_LEN;
	buf[n++] = '0' + w->version;
	buf[n++] = '\0';
	buf[n++] = __BYTE_ORDER == __BIG_ENDIAN ? 1 : 0;
	buf[n++] = sizeof(long);
	ret = write_all(w, buf, n);
	if (!ret)
		ret = put4(w, w->page_size);
	if (ret || w->version < 7)
		return ret;
	/* The compression's name and version, then the options' offset. */
	name = w->pack ? kt_pack_name(w->pack) : "none";
	version = w->pack ? kt_pack_version(w->pack) : "";
	ret = write_all(w, name, strlen(name) + 1);
	if (!ret)
		ret = write_all(w, version, strlen(version) + 1);
	w->opt_ptr = w->off;
	if (!ret)
		ret = put8(w, 0);
	return ret;
}

/* ---- v7 sections ---- */

/* What each section is called in the strings section (trace-cmd's). */
static const char *section_desc(unsigned int id)
{
	switch (id) {
	case KT_OPT_DONE:		return "options";
	case KT_OPT_BUFFER:		return "buffer flyrecord ";
	case KT_OPT_STRINGS:		return "strings";
	case KT_OPT_HEADER_INFO:	return "headers";
	case KT_OPT_FTRACE_EVENTS:	return "ftrace events";
	case KT_OPT_EVENT_FORMATS:	return "events format";
	case KT_OPT_KALLSYMS:		return "kallsyms";
	case KT_OPT_PRINTK:		return "printk";
	case KT_OPT_CMDLINES:		return "command lines";
	}
	return "";
}

/* A string's id: its offset in the strings section, each kept once. */
static int add_string(struct kt_writer *w, const char *s, uint32_t *id)
{
	size_t at = 0, len = strlen(s) + 1;
	int ret;

	while (at < w->strings.len) {
		if (!strcmp(w->strings.p + at, s)) {
			*id = at;
			return 0;
		}
		at += strlen(w->strings.p + at) + 1;
	}
	*id = w->strings.len;
	ret = mem_add(&w->strings, s, len);
	return ret;
}

/*
 * A section header: id, flags, description, and the size (8 bytes, at
 * *size_at) of what follows.
 */
static int section_header(struct kt_writer *w, uint16_t id, uint16_t flags,
			  uint64_t size, unsigned long long *size_at)
{
	uint32_t desc;
	int ret = add_string(w, section_desc(id), &desc);

	if (!ret)
		ret = write_all(w, &id, 2);
	if (!ret)
		ret = write_all(w, &flags, 2);
	if (!ret)
		ret = put4(w, desc);
	if (size_at)
		*size_at = w->off;
	if (!ret)
		ret = put8(w, size);
	return ret;
}

/*
 * Section id with the content m gathered, packed whole when the file is
 * compressed (and pack is set).
 */
static int write_section(struct kt_writer *w, uint16_t id, bool pack,
			 const struct membuf *m)
{
	uint32_t sizes[2];
	size_t cap;
	ssize_t n;
	char *out;
	int ret;

	if (m->err)
		return m->err;
	if (id <= KT_OPT_CMDLINES)
		w->sec[id] = w->off;
	if (!pack || !w->pack || !m->len) {
		ret = section_header(w, id, 0, m->len, NULL);
		return ret ? ret : write_all(w, m->p, m->len);
	}
	if (m->len > UINT32_MAX)
		return -EFBIG;
	cap = kt_pack_bound(w->pack, m->len);
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	n = kt_pack_block(w->pack, m->p, m->len, out, cap, 1);
	ret = n < 0 ? (int)n : 0;
	sizes[0] = n;
	sizes[1] = m->len;
	if (!ret)
		ret = section_header(w, id, KT_DAT_SEC_COMPRESSED, 8 + n, NULL);
	if (!ret)
		ret = write_all(w, sizes, 8);
	if (!ret)
		ret = write_all(w, out, n);
	free(out);
	return ret;
}

/* Gather what the v6 code writes into m, for a section. */
static void gather(struct kt_writer *w, struct membuf *m)
{
	memset(m, 0, sizeof(*m));
	w->mem = m;
}

/* Stop gathering, write section id from it (v7) and free it. */
static int gathered(struct kt_writer *w, struct membuf *m, uint16_t id,
		    int ret)
{
	w->mem = NULL;
	if (!ret)
		ret = write_section(w, id, true, m);
	mem_free(m);
	return ret;
}

int kt_writer_section(struct kt_writer *w, unsigned short id,
		      const void *buf, size_t len)
{
	struct membuf m;
	int ret = 0;

	if (w->version < 7 || id > KT_OPT_CMDLINES)
		return -EINVAL;
	if (!w->off)
		ret = write_initial(w);
	if (ret)
		return ret;
	gather(w, &m);
	ret = write_all(w, buf, len);
	return gathered(w, &m, id, ret);
}

/* 8-byte size, then a file's text (a format file, header_page ...). */
static int write_text8(struct kt_writer *w, const char *text, size_t len)
{
	int ret = put8(w, len);

	return ret ? ret : write_all(w, text, len);
}

/* name\0, then the text as write_text8() writes it. */
static int write_named_text(struct kt_writer *w, const char *name,
			    const char *text, size_t len)
{
	int ret = write_all(w, name, strlen(name) + 1);

	return ret ? ret : write_text8(w, text, len);
}

static bool is_ftrace(const struct kt_format *f)
{
	return !strcmp(f->system, "ftrace");
}

/* The formats of system ftrace (print, bprint, function ...), as given. */
static int write_ftrace_formats(struct kt_writer *w,
				const struct kt_formats *f)
{
	size_t i, n = 0;
	int ret;

	for (i = 0; i < f->n; i++)
		n += is_ftrace(&f->ev[i]);
	ret = put4(w, n);
	for (i = 0; !ret && i < f->n; i++)
		if (is_ftrace(&f->ev[i]))
			ret = write_text8(w, f->ev[i].text, f->ev[i].len);
	return ret;
}

/* The other systems, each with its events. */
static int write_event_formats(struct kt_writer *w,
			       const struct kt_formats *f)
{
	size_t n = f->n, i, j, nsys = 0;
	const char **sys;
	int ret = 0;

	sys = calloc(n ? n : 1, sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	/* Distinct systems in first-seen order. */
	for (i = 0; i < n; i++) {
		if (is_ftrace(&f->ev[i]))
			continue;
		for (j = 0; j < nsys; j++)
			if (!strcmp(sys[j], f->ev[i].system))
				break;
		if (j == nsys)
			sys[nsys++] = f->ev[i].system;
	}
	ret = put4(w, nsys);
	for (j = 0; !ret && j < nsys; j++) {
		uint32_t count = 0;

		for (i = 0; i < n; i++)
			count += !strcmp(f->ev[i].system, sys[j]);
		ret = write_all(w, sys[j], strlen(sys[j]) + 1);
		if (!ret)
			ret = put4(w, count);
		for (i = 0; !ret && i < n; i++)
			if (!strcmp(f->ev[i].system, sys[j]))
				ret = write_text8(w, f->ev[i].text,
						  f->ev[i].len);
	}
	free(sys);
	return ret;
}

int kt_writer_headers(struct kt_writer *w, const struct kt_formats *f)
{
	struct membuf m;
	bool v7 = w->version >= 7;
	int ret;

	ret = write_initial(w);
	if (ret)
		return ret;
	if (v7)
		gather(w, &m);
	ret = write_named_text(w, KT_DAT_HEADER_PAGE, f->header_page,
			       f->header_page_len);
	if (!ret)
		ret = write_named_text(w, KT_DAT_HEADER_EVENT, f->header_event,
				       f->header_event_len);
	if (v7)
		ret = gathered(w, &m, KT_OPT_HEADER_INFO, ret);
	if (ret)
		return ret;
	if (v7)
		gather(w, &m);
	ret = write_ftrace_formats(w, f);
	if (v7)
		ret = gathered(w, &m, KT_OPT_FTRACE_EVENTS, ret);
	if (ret)
		return ret;
	if (v7)
		gather(w, &m);
	ret = write_event_formats(w, f);
	if (v7)
		ret = gathered(w, &m, KT_OPT_EVENT_FORMATS, ret);
	return ret;
}

/* ---- kallsyms, printk formats, cmdlines ---- */

/*
 * A 4-byte size then the text.  When it does not fit on the disk the
 * section is left empty (and the error returned): the file stays valid.
 */
static int write_text4(struct kt_writer *w, const char *text, size_t len)
{
	unsigned long long start = w->off;
	int ret, err;

	if (len > UINT32_MAX)
		len = 0;
	ret = put4(w, len);
	if (ret || !len)
		return ret;
	err = write_all(w, text, len);
	if (!err)
		return 0;
	/* Back to an empty section. */
	ret = rewind_to(w, start);
	if (!ret)
		ret = put4(w, 0);
	return ret ? ret : err;
}

/*
 * v7: section id holding what write_text4() writes; when it does not fit
 * on the disk, an empty one (and the error).
 */
static int write_text4_section(struct kt_writer *w, uint16_t id,
			       const char *text, size_t len)
{
	unsigned long long start = w->off;
	struct membuf m;
	int ret, err;

	if (len > UINT32_MAX)
		len = 0;
	gather(w, &m);
	ret = put4(w, len);
	if (!ret)
		ret = write_all(w, text, len);
	err = gathered(w, &m, id, ret);
	if (err != -ENOSPC)
		return err;
	ret = rewind_to(w, start);
	if (!ret) {
		gather(w, &m);
		ret = gathered(w, &m, id, put4(w, 0));
	}
	return ret ? ret : err;
}

int kt_writer_kallsyms(struct kt_writer *w, const char *text, size_t len)
{
	if (w->version >= 7)
		return write_text4_section(w, KT_OPT_KALLSYMS, text, len);
	return write_text4(w, text, len);
}

int kt_writer_kallsyms_begin(struct kt_writer *w)
{
	w->sec_start = w->off;
	w->sec_len = 0;
	w->sec_err = 0;
	/*
	 * v7 packs the section whole: gathered in memory, written by end().
	 * Until then the file has no kallsyms section, which is what a
	 * recording killed meanwhile leaves (--recover writes it empty).
	 */
	if (w->version >= 7) {
		mem_free(&w->ksyms);
		return 0;
	}
	/*
	 * "Still being written" until end() patches the size: a recording
	 * killed meanwhile must not pass for a finished empty section.
	 */
	return put4(w, KT_DAT_SIZE_PENDING);
}

int kt_writer_kallsyms_add(struct kt_writer *w, const char *text, size_t len)
{
	if (!w->sec_err && w->sec_len + len > UINT32_MAX)
		w->sec_err = -EFBIG;
	if (!w->sec_err)
		w->sec_err = w->version >= 7 ? mem_add(&w->ksyms, text, len) :
					       write_all(w, text, len);
	if (!w->sec_err)
		w->sec_len += len;
	return w->sec_err;
}

int kt_writer_kallsyms_end(struct kt_writer *w, bool keep)
{
	uint32_t size = w->sec_len;
	int ret;

	if (w->version >= 7) {
		keep = keep && !w->sec_err;
		ret = write_text4_section(w, KT_OPT_KALLSYMS,
					  keep ? w->ksyms.p : NULL,
					  keep ? w->ksyms.len : 0);
		mem_free(&w->ksyms);
		return w->sec_err ? w->sec_err : ret;
	}
	if (keep && !w->sec_err)
		return kt_pwrite_all(w->fd, &size, 4, w->sec_start);
	/* Back to an empty section: 4 zero bytes. */
	ret = rewind_to(w, w->sec_start + 4);
	if (!ret)
		ret = kt_pwrite_all(w->fd, &(uint32_t){ 0 }, 4, w->sec_start);
	return ret ? ret : w->sec_err;
}

int kt_writer_printk(struct kt_writer *w, const char *text, size_t len)
{
	if (w->version >= 7)
		return write_text4_section(w, KT_OPT_PRINTK, text, len);
	return write_text4(w, text, len);
}

static int write_cmdlines(struct kt_writer *w, const char *text, size_t len)
{
	int ret = put8(w, len);

	if (!ret && len)
		ret = write_all(w, text, len);
	return ret;
}

/* ---- options ---- */

int kt_writer_add_option(struct kt_writer *w, unsigned short id,
			 const void *data, size_t len)
{
	struct option_item *o;

	if (len > KT_DAT_MAX_OPTION)
		return -EFBIG;
	o = realloc(w->opts, (w->nopts + 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	w->opts = o;
	o = &w->opts[w->nopts];
	o->id = id;
	o->len = len;
	o->data = malloc(len ? len : 1);
	if (!o->data)
		return -ENOMEM;
	memcpy(o->data, data, len);
	w->nopts++;
	return 0;
}

int kt_writer_option_at(const struct kt_writer *w, size_t i,
			unsigned short *id, const void **data, size_t *len)
{
	if (i >= w->nopts)
		return -ENOENT;
	*id = w->opts[i].id;
	*data = w->opts[i].data;
	*len = w->opts[i].len;
	return 0;
}

int kt_writer_add_option_str(struct kt_writer *w, unsigned short id,
			     const char *s)
{
	return kt_writer_add_option(w, id, s, strlen(s) + 1);
}

/* ---- CPU data ---- */

/*
 * The saved cmdlines, the CPU count, the options and the flyrecord table
 * up to the data.
 */
static int write_tail_header(struct kt_writer *w, const struct kt_writer_tail *t,
			     int ncpus, unsigned long long *table)
{
	char label[KT_DAT_LABEL_LEN];
	char *clk = NULL;
	size_t i;
	int ret;

	ret = write_cmdlines(w, t->cmdlines, t->cmdlines_len);
	if (!ret)
		ret = put4(w, ncpus);
	if (ret)
		return ret;
	if (w->nopts) {
		memcpy(label, KT_DAT_LABEL_OPTIONS, KT_DAT_LABEL_LEN);
		ret = write_all(w, label, KT_DAT_LABEL_LEN);
		for (i = 0; !ret && i < w->nopts; i++) {
			uint16_t id = w->opts[i].id;

			ret = write_all(w, &id, 2);
			if (!ret)
				ret = put4(w, w->opts[i].len);
			w->opts[i].at = w->off;
			if (!ret)
				ret = write_all(w, w->opts[i].data,
						w->opts[i].len);
		}
		if (!ret)
			ret = write_all(w, &(uint16_t){ KT_OPT_DONE }, 2);
		if (ret)
			return ret;
	}
	memcpy(label, KT_DAT_LABEL_FLYRECORD, KT_DAT_LABEL_LEN);
	ret = write_all(w, label, KT_DAT_LABEL_LEN);
	if (ret)
		return ret;
	*table = w->off;
	for (i = 0; !ret && i < (size_t)ncpus * 2; i++)
		ret = put8(w, 0);
	if (ret)
		return ret;
	/*
	 * trace-cmd reads "[clock]" after the table when the file has a
	 * TRACECLOCK option; it is harmless otherwise.
	 */
	if (asprintf(&clk, "[%s]", t->clock && *t->clock ? t->clock : "local") < 0)
		return -ENOMEM;
	ret = put8(w, strlen(clk));
	if (!ret)
		ret = write_all(w, clk, strlen(clk));
	free(clk);
	return ret;
}

/* Shorten the largest source by one step to make room on a full disk. */
/*
 * Count the events in the pages [from, to) of fd, which will not be in
 * the file: loss is told in events, not only bytes.
 */
static void count_cut(struct kt_writer_cpu *c, int fd, unsigned long long from,
		      unsigned long long to, int page)
{
	unsigned long long n = 0;

	if (kt_rawpage_count_file(fd, from, to, page, &n))
		c->cut_unknown = true;
	c->cut_events += n;
}

static int make_room(int ncpus, struct kt_writer_cpu *cpus, int page)
{
	unsigned long long step = ROOM_STEP - ROOM_STEP % page, cut;
	int i, best = -1;

	for (i = 0; i < ncpus; i++)
		if (cpus[i].size && (best < 0 || cpus[i].size > cpus[best].size))
			best = i;
	if (best < 0)
		return -ENOSPC;
	cut = cpus[best].size > step ? cpus[best].size - step : 0;
	count_cut(&cpus[best], cpus[best].fd, cpus[best].off + cut,
		  cpus[best].off + cpus[best].size, page);
	cpus[best].size = cut;
	if (ftruncate(cpus[best].fd, cpus[best].off + cpus[best].size) < 0)
		return -errno;
	return 0;
}

/*
 * The slow path of a full disk: take a piece into memory, free it in the
 * source (punch a hole), then write it, so the copy needs no free space.
 */
static int move_piece(struct kt_writer *w, int fd, off_t src,
		      unsigned long long len, char *buf)
{
	int ret = kt_pread_all(fd, buf, len, src);

	if (ret)
		return ret;
	if (!w->keep_sources &&
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      src, len) < 0 && errno != EOPNOTSUPP)
		return -errno;
	return write_all(w, buf, len);
}


/*
 * Copy one CPU's pages.  Returns 0 or -ENOSPC with *done the page-aligned
 * number of bytes that made it.
 */
static int copy_cpu(struct kt_writer *w, struct kt_writer_cpu *c,
		    unsigned long long *done)
{
	unsigned long long start = w->off, slow_from = 0, slow_events = 0, n;
	char *buf = NULL;
	bool slow = false;
	int ret = 0;

	*done = 0;
	while (*done < c->size) {
		unsigned long long len = c->size - *done;
		ssize_t n;

		if (len > COPY_CHUNK)
			len = COPY_CHUNK;
		if (!slow) {
			loff_t in = c->off + *done, out = w->off;

			n = copy_file_range(c->fd, &in, w->fd, &out, len, 0);
			if (n > 0) {
				*done += n;
				w->off += n;
				if (lseek(w->fd, w->off, SEEK_SET) < 0)
					return -errno;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n == 0)
				return -EIO;
			if (errno == ENOSPC && w->keep_sources)
				return -ENOSPC;
			if (errno != ENOSPC && errno != EXDEV &&
			    errno != EINVAL && errno != ENOSYS &&
			    errno != EOPNOTSUPP)
				return -errno;
			slow = true;
			/*
			 * From here the piece is given back as it is copied:
			 * count its events first, to tell the ones that will
			 * not fit.
			 */
			slow_from = *done - *done % w->page_size;
			if (kt_rawpage_count_file(c->fd, c->off + slow_from,
						  c->off + c->size,
						  w->page_size, &slow_events))
				c->cut_unknown = true;
			buf = malloc(COPY_CHUNK);
			if (!buf)
				return -ENOMEM;
		}
		ret = move_piece(w, c->fd, c->off + *done, len, buf);
		if (ret)
			break;
		*done += len;
	}
	free(buf);
	if (ret) {
		/* Keep whole pages only: a torn page would not decode. */
		unsigned long long keep = w->off - start;

		keep -= keep % w->page_size;
		*done = keep;
		/* What did not fit: counted less what reached the file. */
		n = 0;
		if (slow && keep > slow_from &&
		    kt_rawpage_count_file(w->fd, start + slow_from, start + keep,
					  w->page_size, &n))
			c->cut_unknown = true;
		if (slow)
			c->cut_events += slow_events > n ? slow_events - n : 0;
		if (rewind_to(w, start + keep) == 0 && ret == -ENOSPC)
			return -ENOSPC;
	}
	return ret;
}

/*
 * Each CPU's data, page-aligned, and its offset and size in the table at
 * table.  0, 1 when a full disk left pages out, or -errno.
 */
static int write_cpus(struct kt_writer *w, unsigned long long table,
		      int ncpus, struct kt_writer_cpu *cpus)
{
	int i, ret, result = 0;

	for (i = 0; i < ncpus; i++) {
		unsigned long long entry[2], done = 0;
		unsigned long long off = w->off;

		off = (off + w->page_size - 1) / w->page_size * w->page_size;
		if (lseek(w->fd, off, SEEK_SET) < 0)
			return -errno;
		w->off = off;
		ret = copy_cpu(w, &cpus[i], &done);
		if (ret == -ENOSPC && !w->keep_sources)
			result = 1;
		else if (ret)
			return ret;
		cpus[i].size = done;
		entry[0] = off;
		entry[1] = done;
		ret = kt_pwrite_all(w->fd, entry, sizeof(entry), table + 16 * i);
		if (ret)
			return ret;
	}
	/* An empty last CPU still points inside the file. */
	if (ftruncate(w->fd, w->off) < 0)
		return -errno;
	return result;
}

/* ---- v7: the sections after printk, and the CPU data ---- */

/* Where the v7 tail patches what only the data tells. */
struct v7_tail {
	unsigned long long fly;		/* the flyrecord section's header */
	unsigned long long fly_size;	/* its size field */
	unsigned long long buf_opt;	/* the BUFFER option's data */
	unsigned long long cpu_table;	/* its CPU count, then entries */
};

/* An option, into the section being gathered. */
static int gather_option(struct kt_writer *w, uint16_t id, const void *data,
			 uint32_t len)
{
	int ret = write_all(w, &id, 2);

	if (!ret)
		ret = put4(w, len);
	return ret ? ret : write_all(w, data, len);
}

/*
 * The first options section: where each section is, the queued options,
 * the CPU count, and DONE pointing at the second options section, which
 * comes right after it.
 */
static int write_options1(struct kt_writer *w, int ncpus)
{
	unsigned long long start = w->off, next;
	struct membuf m;
	uint32_t cpus = ncpus;
	unsigned int id;
	size_t i;
	int ret = 0;

	gather(w, &m);
	for (id = KT_OPT_HEADER_INFO; !ret && id <= KT_OPT_CMDLINES; id++)
		if (w->sec[id])
			ret = gather_option(w, id, &w->sec[id], 8);
	for (i = 0; !ret && i < w->nopts; i++) {
		/* Its file offset: the section header, the option's. */
		w->opts[i].at = start + 16 + m.len + 6;
		ret = gather_option(w, w->opts[i].id, w->opts[i].data,
				    w->opts[i].len);
	}
	if (!ret)
		ret = gather_option(w, KT_OPT_CPUCOUNT, &cpus, 4);
	next = start + 16 + m.len + 6 + 8;
	if (!ret)
		ret = gather_option(w, KT_OPT_DONE, &next, 8);
	w->mem = NULL;
	if (!ret)
		ret = write_section(w, KT_OPT_DONE, false, &m);
	mem_free(&m);
	if (!ret)
		ret = kt_pwrite_all(w->fd, &start, 8, w->opt_ptr);
	return ret;
}

/*
 * The second options section: the top buffer's BUFFER option, with room
 * for every CPU's entry (id, offset, size), patched once the data is in.
 * CPUs without data are left out as trace-cmd does; the room after the
 * last entry stays zero (readers stop at the count).
 */
static int write_options2(struct kt_writer *w, const char *name,
			  const char *clock, int ncpus, struct v7_tail *t)
{
	unsigned long long start = w->off;
	size_t nlen = strlen(name) + 1, clen = strlen(clock) + 1, len, at;
	uint32_t page = w->page_size;
	struct membuf m;
	char *buf;
	int ret;

	len = 8 + nlen + clen + 4 + 4 + (size_t)ncpus * 20;
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	at = 8;				/* the offset, then the name */
	memcpy(buf + at, name, nlen);
	at += nlen;
	memcpy(buf + at, clock, clen);
	at += clen;
	memcpy(buf + at, &page, 4);
	at += 4;
	t->buf_opt = start + 16 + 6;
	t->cpu_table = t->buf_opt + at;
	gather(w, &m);
	ret = gather_option(w, KT_OPT_BUFFER, buf, len);
	/* Its offset of a next options section: 0, the last for now. */
	w->done_at = start + 16 + m.len + 6;
	if (!ret)
		ret = gather_option(w, KT_OPT_DONE, &(uint64_t){ 0 }, 8);
	w->mem = NULL;
	if (!ret)
		ret = write_section(w, KT_OPT_DONE, false, &m);
	mem_free(&m);
	free(buf);
	return ret;
}

/* A buffer's flyrecord section header, its offset put in its BUFFER option. */
static int begin_flyrecord(struct kt_writer *w, struct v7_tail *vt)
{
	int ret;

	vt->fly = w->off;
	ret = section_header(w, KT_OPT_BUFFER,
			     w->pack ? KT_DAT_SEC_COMPRESSED : 0, 0,
			     &vt->fly_size);
	return ret ? ret : kt_pwrite_all(w->fd, &vt->fly, 8, vt->buf_opt);
}

/*
 * Everything after printk up to the CPU data: cmdlines, the two options
 * sections, the strings and the flyrecord section's header.
 */
static int write_tail_v7(struct kt_writer *w, const struct kt_writer_tail *t,
			 int ncpus, struct v7_tail *vt)
{
	const char *clock = t->clock && *t->clock ? t->clock : "local";
	struct membuf m;
	uint32_t id;
	int ret;

	gather(w, &m);
	ret = write_cmdlines(w, t->cmdlines, t->cmdlines_len);
	ret = gathered(w, &m, KT_OPT_CMDLINES, ret);
	/* Every description is in the strings before they are written. */
	if (!ret)
		ret = add_string(w, section_desc(KT_OPT_DONE), &id);
	if (!ret)
		ret = add_string(w, section_desc(KT_OPT_STRINGS), &id);
	if (!ret)
		ret = add_string(w, section_desc(KT_OPT_BUFFER), &id);
	if (!ret)
		ret = write_options1(w, ncpus);
	if (!ret)
		ret = write_options2(w, "", clock, ncpus, vt);
	if (!ret)
		ret = write_section(w, KT_OPT_STRINGS, true, &w->strings);
	if (ret)
		return ret;
	return begin_flyrecord(w, vt);
}

/* The events in len bytes of pages; 0, or -EBADMSG (counted unknown). */
static int count_pages(const char *buf, size_t len, int page,
		       unsigned long long *events, struct kt_writer_cpu *c)
{
	size_t at;

	for (at = 0; at + page <= len; at += page) {
		uint64_t n = 0;

		if (kt_rawpage_events(buf + at, page, &n)) {
			c->cut_unknown = true;
			continue;
		}
		*events += n;
	}
	return 0;
}

/*
 * A CPU's blocks packed already (kt_writer_cpu.packed_*), copied as they
 * are after a chunk count of 0 (put right at the end): at in (cap bytes)
 * a time.
 */
static int copy_packed(struct kt_writer *w, const struct kt_writer_cpu *c,
		       char *in, size_t cap)
{
	unsigned long long at = 0;
	uint32_t zero = 0;
	int ret = write_all(w, &zero, 4);

	while (!ret && at < c->packed_len) {
		size_t len = c->packed_len - at < cap ? c->packed_len - at : cap;

		ret = kt_pread_all(c->packed_fd, in, len, c->packed_off + at);
		if (!ret)
			ret = write_all(w, in, len);
		at += len;
	}
	return ret;
}

/*
 * Block at of c's packed blocks into out (cap + 8 bytes): its sizes
 * (*sizes: packed, unpacked), then its bytes; one that cannot be ours
 * (past cap or chunk) is -EBADMSG.  0 or -errno.
 */
static int read_block(const struct kt_writer_cpu *c, unsigned long long at,
		      char *out, size_t cap, size_t chunk, uint32_t sizes[2])
{
	int ret = kt_pread_all(c->packed_fd, out, 8, c->packed_off + at);

	if (ret)
		return ret;
	memcpy(sizes, out, 8);
	if (sizes[0] > cap || sizes[1] > chunk)
		return -EBADMSG;
	return kt_pread_all(c->packed_fd, out + 8, sizes[0], c->packed_off + at + 8);
}

/*
 * The events of c's blocks from at on, unpacked to be counted (a full
 * disk left them out and no pages of them are kept): into c->cut_events.
 * in: cap + 8 bytes.
 */
static void count_blocks(struct kt_writer *w, struct kt_writer_cpu *c,
			 unsigned long long at, char *in, size_t cap, char *pages,
			 size_t chunk)
{
	bool zlib = !strcmp(kt_pack_name(w->pack), "zlib");
	struct kt_unpack *u = kt_unpack_new();
	uint32_t sizes[2];
	int ret = u ? 0 : -ENOMEM;

	while (!ret && at + 8 <= c->packed_len) {
		ret = read_block(c, at, in, cap, chunk, sizes);
		if (!ret)
			ret = zlib ? kt_unpack_zlib(u, in + 8, sizes[0], pages, sizes[1]) :
				     kt_unpack_zstd(u, in + 8, sizes[0], pages, sizes[1]);
		if (!ret)
			count_pages(pages, sizes[1], w->page_size, &c->cut_events, c);
		at += 8 + (unsigned long long)sizes[0];
	}
	if (ret)
		c->cut_unknown = true;
	kt_unpack_free(u);
}

/*
 * Blocks with no pages besides (kt_writer_cpu.fd < 0: a remote
 * recording's, packed as they came), copied one at a time.  Without
 * keep-sources each one's room in packed_fd is given back (a hole
 * punched) once it is in the file, so a full disk keeps the blocks that
 * fit, and the rest are unpacked to count their events.  *done: the
 * pages' bytes the kept blocks hold; *wsize as copy_cpu_packed()'s.
 */
static int copy_packed_alone(struct kt_writer *w, struct kt_writer_cpu *c,
			     unsigned long long *done, unsigned long long *wsize)
{
	size_t chunk = (size_t)PAGES_IN_CHUNK * w->page_size;
	size_t cap = kt_pack_bound(w->pack, chunk);
	unsigned long long start = w->off, good = start, at = 0;
	char *buf = malloc(cap + 12), *pages = NULL;
	uint32_t nchunks = 0, sizes[2];
	int ret = buf ? 0 : -ENOMEM;

	*done = 0;
	*wsize = 0;
	/* The count goes out with the first block (copy_cpu_packed says why). */
	if (buf)
		memset(buf, 0, 4);
	while (!ret && at + 8 <= c->packed_len) {
		size_t skip = nchunks ? 4 : 0;

		ret = read_block(c, at, buf + 4, cap, chunk, sizes);
		if (!ret)
			ret = write_all(w, buf + skip, 12 - skip + sizes[0]);
		if (ret)
			break;
		if (!w->keep_sources)
			fallocate(c->packed_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  c->packed_off + at, 8 + sizes[0]);
		at += 8 + (unsigned long long)sizes[0];
		*done += sizes[1];
		nchunks++;
		good = w->off;
	}
	if (ret == -ENOSPC) {
		if (rewind_to(w, good))
			ret = -EIO;
		pages = malloc(chunk);
		if (pages && !w->keep_sources)
			count_blocks(w, c, at, buf, cap, pages, chunk);
		else if (!w->keep_sources)
			c->cut_unknown = true;
	}
	if (nchunks && (ret == 0 || ret == -ENOSPC)) {
		int err = kt_pwrite_all(w->fd, &nchunks, 4, start);

		if (err)
			ret = err;
		*wsize = good - start - 4;
	}
	free(buf);
	free(pages);
	return ret;
}

/*
 * One CPU's pages packed in chunks of PAGES_IN_CHUNK pages, as trace-cmd
 * packs them: a chunk count, then each chunk's packed and unpacked sizes
 * and its bytes.  *done: the source bytes in the file, *wsize: what they
 * take in it (without the count, as trace-cmd stores the size).  A full
 * disk keeps the chunks that fit: from the first refusal on, each chunk's
 * source is given back (a hole punched) as it is packed, which frees more
 * than the chunk takes, and its events counted; 0 or -ENOSPC.
 */
static int copy_cpu_packed(struct kt_writer *w, struct kt_writer_cpu *c,
			   unsigned long long *done, unsigned long long *wsize)
{
	size_t chunk = (size_t)PAGES_IN_CHUNK * w->page_size;
	size_t cap = kt_pack_bound(w->pack, chunk);
	unsigned long long start = w->off, good = start, slow_events = 0;
	unsigned long long kept = 0;
	uint32_t nchunks = 0, sizes[2];
	char *in, *out;
	bool slow = false;
	int ret = 0;

	if (c->packed_blocks && c->fd < 0)
		return copy_packed_alone(w, c, done, wsize);
	*done = 0;
	*wsize = 0;
	in = malloc(chunk);
	out = malloc(cap + 12);
	if (!in || !out) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * The chunk count goes out with the first chunk, not before it: on
	 * a disk already full, a count written alone is refused before any
	 * source could be given back, and the CPU would keep nothing.
	 */
	memset(out, 0, 4);
	if (c->packed_blocks) {
		if (!w->keep_sources && c->packed_src > c->off) {
			ret = -EINVAL;
			goto out;
		}
		ret = copy_packed(w, c, in, chunk);
		if (ret == -ENOSPC && !w->keep_sources) {
			/*
			 * The disk refused them: the pages they hold are
			 * packed again from the piece instead, its room
			 * given back as it goes (below).
			 */
			ret = rewind_to(w, start);
			c->off -= c->packed_src;
			c->size += c->packed_src;
			c->packed_blocks = 0;
			c->packed_src = 0;
		} else if (!ret) {
			nchunks = c->packed_blocks;
			good = w->off;
		}
		if (ret)
			goto out;
	}
	while (!ret && *done < c->size) {
		size_t len = c->size - *done < chunk ? c->size - *done : chunk;
		size_t skip = nchunks ? 4 : 0;
		unsigned long long ev = 0;
		ssize_t n;

		ret = kt_pread_all(c->fd, in, len, c->off + *done);
		if (ret)
			break;
		n = kt_pack_block(w->pack, in, len, out + 12, cap, 0);
		if (n < 0) {
			ret = (int)n;
			break;
		}
		sizes[0] = n;
		sizes[1] = len;
		memcpy(out + 4, sizes, 8);
		if (slow && !count_pages(in, len, w->page_size, &ev, c))
			fallocate(c->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  c->off + *done, len);
		ret = write_all(w, out + skip, 12 - skip + n);
		if (ret == -ENOSPC && w->keep_sources)
			break;
		if (ret == -ENOSPC && !slow) {
			ret = rewind_to(w, good);
			if (ret)
				break;
			slow = true;
			if (kt_rawpage_count_file(c->fd, c->off + *done,
						  c->off + c->size,
						  w->page_size, &slow_events))
				c->cut_unknown = true;
			count_pages(in, len, w->page_size, &ev, c);
			fallocate(c->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  c->off + *done, len);
			ret = write_all(w, out + skip, 12 - skip + n);
		}
		if (ret)
			break;
		kept += ev;
		nchunks++;
		*done += len;
		good = w->off;
	}
	if (ret == -ENOSPC && w->keep_sources)
		goto out;
	if (ret == -ENOSPC) {
		if (!slow && kt_rawpage_count_file(c->fd, c->off + *done,
						   c->off + c->size,
						   w->page_size, &slow_events))
			c->cut_unknown = true;
		c->cut_events += slow_events > kept ? slow_events - kept : 0;
		if (rewind_to(w, good))
			ret = -EIO;
	}
	if (nchunks && (ret == 0 || ret == -ENOSPC)) {
		int err = kt_pwrite_all(w->fd, &nchunks, 4, start);

		if (err)
			ret = err;
		*wsize = good - start - 4;
	}
out:
	free(in);
	free(out);
	return ret;
}

/*
 * Each CPU's data, page-aligned, at the end of the file; then the BUFFER
 * option's entries and the flyrecord section's size.  0, 1 when a full
 * disk left pages out, or -errno.
 */
static int write_cpus_v7(struct kt_writer *w, const struct v7_tail *vt,
			 int ncpus, struct kt_writer_cpu *cpus)
{
	unsigned long long size;
	uint32_t k = 0;
	int i, ret, result = 0;

	for (i = 0; i < ncpus; i++) {
		unsigned long long off = w->off, done = 0, wsize = 0;
		char entry[20];
		uint32_t id = i;

		off = (off + w->page_size - 1) / w->page_size * w->page_size;
		if (lseek(w->fd, off, SEEK_SET) < 0)
			return -errno;
		w->off = off;
		if (w->pack)
			ret = copy_cpu_packed(w, &cpus[i], &done, &wsize);
		else
			ret = copy_cpu(w, &cpus[i], &done);
		if (!w->pack)
			wsize = done;
		if (ret == -ENOSPC && !w->keep_sources)
			result = 1;
		else if (ret)
			return ret;
		cpus[i].size = done;
		if (!wsize)
			continue;
		memcpy(entry, &id, 4);
		memcpy(entry + 4, &off, 8);
		memcpy(entry + 12, &wsize, 8);
		ret = kt_pwrite_all(w->fd, entry, 20, vt->cpu_table + 4 + 20 * k);
		if (ret)
			return ret;
		k++;
	}
	ret = kt_pwrite_all(w->fd, &k, 4, vt->cpu_table);
	size = w->off - vt->fly_size - 8;
	if (!ret)
		ret = kt_pwrite_all(w->fd, &size, 8, vt->fly_size);
	if (ret)
		return ret;
	if (ftruncate(w->fd, w->off) < 0)
		return -errno;
	return result;
}

int kt_writer_finish(struct kt_writer *w, const struct kt_writer_tail *tail,
		     int ncpus, struct kt_writer_cpu *cpus)
{
	unsigned long long base = w->off, table = 0;
	struct v7_tail vt = { 0 };
	int i, ret, result = 0;

	if (ncpus <= 0 || ncpus > KT_DAT_MAX_CPUS)
		return -EINVAL;
	for (i = 0; i < ncpus; i++) {
		cpus[i].size -= cpus[i].size % w->page_size;
		/* Packed blocks go only into a file packed as they are. */
		if (cpus[i].packed_blocks && (!w->pack || w->version < 7))
			return -EINVAL;
	}
	/* A full disk: give back the newest data until the header fits. */
	for (;;) {
		if (w->version >= 7)
			ret = write_tail_v7(w, tail, ncpus, &vt);
		else
			ret = write_tail_header(w, tail, ncpus, &table);
		if (ret != -ENOSPC)
			break;
		if (w->keep_sources)
			return -ENOSPC;
		result = 1;
		ret = rewind_to(w, base);
		if (!ret)
			ret = make_room(ncpus, cpus, w->page_size);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	if (w->version >= 7)
		ret = write_cpus_v7(w, &vt, ncpus, cpus);
	else
		ret = write_cpus(w, table, ncpus, cpus);
	return ret < 0 ? ret : ret | result;
}

/*
 * v7: an options section holding the instance's BUFFER option, chained
 * from the last options section's DONE, then its flyrecord section.
 */
static int append_buffer_v7(struct kt_writer *w, const char *name,
			    const char *clock, int ncpus,
			    struct kt_writer_cpu *cpus, unsigned long long *off)
{
	unsigned long long prev = w->done_at;
	struct v7_tail vt = { 0 };
	int ret;

	*off = w->off;
	ret = write_options2(w, name ? name : "",
			     clock && *clock ? clock : "local", ncpus, &vt);
	if (!ret)
		ret = begin_flyrecord(w, &vt);
	if (!ret)
		ret = write_cpus_v7(w, &vt, ncpus, cpus);
	/* Chained last: a full disk leaves no valid file either way. */
	if (!ret)
		ret = kt_pwrite_all(w->fd, off, 8, prev);
	return ret > 0 ? -ENOSPC : ret;
}

int kt_writer_append_buffer(struct kt_writer *w, const char *name,
			    const char *clock, int ncpus,
			    struct kt_writer_cpu *cpus, unsigned long long *off)
{
	char label[KT_DAT_LABEL_LEN];
	unsigned long long table;
	char *clk = NULL;
	int i, ret;

	if (ncpus <= 0 || ncpus > KT_DAT_MAX_CPUS)
		return -EINVAL;
	for (i = 0; i < ncpus; i++)
		cpus[i].size -= cpus[i].size % w->page_size;
	if (w->version >= 7)
		return append_buffer_v7(w, name, clock, ncpus, cpus, off);
	*off = w->off;
	memcpy(label, KT_DAT_LABEL_FLYRECORD, KT_DAT_LABEL_LEN);
	ret = write_all(w, label, KT_DAT_LABEL_LEN);
	table = w->off;
	for (i = 0; !ret && i < ncpus * 2; i++)
		ret = put8(w, 0);
	if (ret)
		return ret;
	if (asprintf(&clk, "[%s]", clock && *clock ? clock : "local") < 0)
		return -ENOMEM;
	ret = put8(w, strlen(clk));
	if (!ret)
		ret = write_all(w, clk, strlen(clk));
	free(clk);
	if (!ret)
		ret = write_cpus(w, table, ncpus, cpus);
	/* Here a full disk leaves no valid file: no part of a buffer. */
	return ret > 0 ? -ENOSPC : ret;
}

int kt_writer_patch_option(struct kt_writer *w, unsigned short id, int nth,
			   const void *data, size_t len)
{
	size_t i;

	for (i = 0; i < w->nopts; i++) {
		if (w->opts[i].id != id || nth--)
			continue;
		if (len != w->opts[i].len || !w->opts[i].at)
			return -EINVAL;
		return kt_pwrite_all(w->fd, data, len, w->opts[i].at);
	}
	return -ENOENT;
}

void kt_writer_keep_sources(struct kt_writer *w)
{
	w->keep_sources = true;
}

int kt_writer_commit(struct kt_writer *w)
{
	int ret = kt_tmpfile_commit(w->tmp, w->path);

	if (ret)
		return ret;
	w->committed = true;
	return 0;
}

/*
 * v7: where a start's options' offset goes (*opt_ptr) and its first
 * section begins (*pos), past the compression's name and version.
 */
static int head_start(const unsigned char *buf, size_t len, size_t *opt_ptr,
		      size_t *pos)
{
	size_t at = KT_DAT_MAGIC_LEN + 8, i;

	for (i = 0; i < 2; i++) {
		const unsigned char *nul = at < len ?
			memchr(buf + at, 0, len - at) : NULL;

		if (!nul)
			return -EBADMSG;
		at = nul - buf + 1;
	}
	if (len - at < 8)
		return -EBADMSG;
	*opt_ptr = at;
	*pos = at + 8;
	return 0;
}

/* v7: the section at *pos of a start, *pos moved past it: 0 or -EBADMSG. */
static int head_section(const unsigned char *buf, size_t len, size_t *pos,
			uint16_t *id, uint16_t *flags, uint64_t *size)
{
	if (len - *pos < 16)
		return -EBADMSG;
	memcpy(id, buf + *pos, 2);
	memcpy(flags, buf + *pos + 2, 2);
	memcpy(size, buf + *pos + 8, 8);
	if (*size > len - *pos - 16)
		return -EBADMSG;
	*pos += 16 + *size;
	return 0;
}

/*
 * v7: what a resumed start holds, as write_initial() and the sections
 * left it: where the options' offset goes and where each section is,
 * each description in the strings again (in the same order, so with the
 * same ids).
 */
static int resume_v7(struct kt_writer *w, const unsigned char *buf,
		     size_t len)
{
	size_t pos, at, opt_ptr;
	uint64_t size;
	uint16_t id, flags;
	uint32_t sid;
	int ret = head_start(buf, len, &opt_ptr, &pos);

	w->opt_ptr = opt_ptr;
	while (!ret && pos < len) {
		at = pos;
		ret = head_section(buf, len, &pos, &id, &flags, &size);
		if (!ret && id <= KT_OPT_CMDLINES)
			w->sec[id] = at;
		if (!ret)
			ret = add_string(w, section_desc(id), &sid);
	}
	return ret;
}

/*
 * v7: a start another writer of this machine wrote unpacked (a trigger's
 * ring, kept unpacked so that waiting costs no packing) taken section by
 * section and packed as this writer packs: its snapshot's start.
 */
static int resume_repack(struct kt_writer *w, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t pos, opt_ptr;
	uint64_t size;
	uint16_t id, flags;
	int ret;

	if (w->off || w->version < 7 || len < KT_DAT_MAGIC_LEN + 8)
		return -EINVAL;
	ret = head_start(b, len, &opt_ptr, &pos);
	while (!ret && pos < len) {
		ret = head_section(b, len, &pos, &id, &flags, &size);
		if (!ret && (flags & KT_DAT_SEC_COMPRESSED))
			ret = -EBADMSG;
		if (!ret)
			ret = kt_writer_section(w, id, b + pos - size, size);
	}
	return ret;
}

/* v7: whether a start was packed otherwise than w packs (its compression's name). */
static bool packed_otherwise(const struct kt_writer *w, const unsigned char *buf,
			     size_t len)
{
	size_t at = KT_DAT_MAGIC_LEN + 8;
	const char *name = w->pack ? kt_pack_name(w->pack) : "none";

	return !memchr(buf + at, 0, len - at) || strcmp((const char *)buf + at, name);
}

int kt_writer_resume(struct kt_writer *w, const void *buf, size_t len)
{
	int ret;

	if (w->off || len < KT_DAT_MAGIC_LEN + 8)
		return -EINVAL;
	if (w->version >= 7) {
		/*
		 * A start another chunk wrote unpacked (an auto ring's
		 * first, into a chunk packed as it comes) is packed again.
		 */
		if (packed_otherwise(w, buf, len))
			return resume_repack(w, buf, len);
		ret = resume_v7(w, buf, len);
		if (ret)
			return ret;
	}
	return write_all(w, buf, len);
}
