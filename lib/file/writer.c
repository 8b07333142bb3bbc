// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat v6 writer.  Everything is written in file order with plain
 * write(); only the flyrecord table is patched (pwrite) once the data
 * behind it is in place.  The file lives under a temporary name until
 * kt_writer_commit(), so no reader ever sees half a file under its name.
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
#include "file/pieces.h"
#include "file/tracedat.h"
#include "file/rawpage.h"
#include "file/writer.h"

/* Copy in pieces so a full disk costs at most one piece. */
#define COPY_CHUNK	(1u << 20)
/* What a full disk gives back per try when the metadata does not fit. */
#define ROOM_STEP	(64u << 10)

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
	/* The section kt_writer_kallsyms_begin() opened. */
	unsigned long long sec_start, sec_len;
	int sec_err;
	struct option_item *opts;
	size_t nopts;
};

/* ---- low-level output ---- */

static int write_all(struct kt_writer *w, const void *buf, size_t len)
{
	int ret = kt_write_all(w->fd, buf, len);
	off_t pos;

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
	size_t n = 0;
	int ret;

	memcpy(buf, KT_DAT_MAGIC, KT_DAT_MAGIC_LEN);
	n = KT_DAT_MAGIC_LEN;
	buf[n++] = '0' + KT_DAT_VERSION_WRITE;
	buf[n++] = '\0';
	buf[n++] = __BYTE_ORDER == __BIG_ENDIAN ? 1 : 0;
	buf[n++] = sizeof(long);
	ret = write_all(w, buf, n);
	if (!ret)
		ret = put4(w, w->page_size);
	return ret;
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
	int ret;

	ret = write_initial(w);
	if (!ret)
		ret = write_named_text(w, KT_DAT_HEADER_PAGE, f->header_page,
				       f->header_page_len);
	if (!ret)
		ret = write_named_text(w, KT_DAT_HEADER_EVENT, f->header_event,
				       f->header_event_len);
	if (!ret)
		ret = write_ftrace_formats(w, f);
	if (!ret)
		ret = write_event_formats(w, f);
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

int kt_writer_kallsyms(struct kt_writer *w, const char *text, size_t len)
{
	return write_text4(w, text, len);
}

int kt_writer_kallsyms_begin(struct kt_writer *w)
{
	w->sec_start = w->off;
	w->sec_len = 0;
	w->sec_err = 0;
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
		w->sec_err = write_all(w, text, len);
	if (!w->sec_err)
		w->sec_len += len;
	return w->sec_err;
}

int kt_writer_kallsyms_end(struct kt_writer *w, bool keep)
{
	uint32_t size = w->sec_len;
	int ret;

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
	count_cut(&cpus[best], cpus[best].fd, cut, cpus[best].size, page);
	cpus[best].size = cut;
	if (ftruncate(cpus[best].fd, cpus[best].size) < 0)
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
	ssize_t n;
	size_t got = 0;

	while (got < len) {
		n = pread(fd, buf + got, len - got, src + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += n;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
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
			loff_t in = *done, out = w->off;

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
			if (kt_rawpage_count_file(c->fd, slow_from, c->size,
						  w->page_size, &slow_events))
				c->cut_unknown = true;
			buf = malloc(COPY_CHUNK);
			if (!buf)
				return -ENOMEM;
		}
		ret = move_piece(w, c->fd, *done, len, buf);
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
		if (ret == -ENOSPC)
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

int kt_writer_finish(struct kt_writer *w, const struct kt_writer_tail *tail,
		     int ncpus, struct kt_writer_cpu *cpus)
{
	unsigned long long base = w->off, table = 0;
	int i, ret, result = 0;

	if (ncpus <= 0 || ncpus > KT_DAT_MAX_CPUS)
		return -EINVAL;
	for (i = 0; i < ncpus; i++)
		cpus[i].size -= cpus[i].size % w->page_size;
	/* A full disk: give back the newest data until the header fits. */
	for (;;) {
		ret = write_tail_header(w, tail, ncpus, &table);
		if (ret != -ENOSPC)
			break;
		result = 1;
		ret = rewind_to(w, base);
		if (!ret)
			ret = make_room(ncpus, cpus, w->page_size);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	ret = write_cpus(w, table, ncpus, cpus);
	return ret < 0 ? ret : ret | result;
}

int kt_writer_append_buffer(struct kt_writer *w, const char *clock, int ncpus,
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

int kt_writer_commit(struct kt_writer *w)
{
	int ret = kt_tmpfile_commit(w->tmp, w->path);

	if (ret)
		return ret;
	w->committed = true;
	return 0;
}
