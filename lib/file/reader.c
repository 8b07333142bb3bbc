// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat reader (v6 and v7, see tracedat.h and reader.h).
 *
 * Every number taken from the file is checked before it is used: sizes
 * against the bytes left in the file or section and against the limits in
 * tracedat.h, offsets against the file size.  Metadata is read with
 * pread() through a cursor that knows where it is, so every complaint can
 * name a byte offset.  Trace data is never loaded whole: a stream
 * (stream.c) reads one bounded window (or one compressed chunk) of a CPU
 * at a time.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/bigbuf.h"
#include "base/byteorder.h"
#include "file/ahead.h"
#include "file/kallsyms.h"
#include "file/tepcheck.h"
#include "base/log.h"
#include "base/lsan.h"
#include "file/plugins.h"
#include "file/reader.h"
#include "file/reader-int.h"
#include "file/tracedat.h"

/* How many options sections a v7 file may chain. */
#define MAX_OPTION_SECTIONS	256
/* All CPU windows together stay under this. */
#define WINDOWS_BUDGET		(32u << 20)
#define WINDOW_MAX		(1u << 20)

/* Where metadata is read from: the file itself or an unpacked section. */
struct cur {
	struct kt_reader *r;
	const unsigned char *mem;	/* NULL: read the file */
	uint64_t base;			/* file offset of the section */
	uint64_t pos;			/* file offset, or offset in mem */
	uint64_t end;
	const char *what;		/* the section, for messages */
	/* An unpacked section's buffer, which a parser may keep (NULL it). */
	unsigned char **take;
	/* Its damage told by its caller (unpack_kallsyms()), not here. */
	bool quiet;
};

/* What the reader reports on the way to its first data page. */
#define reader_err(r, ...) \
	kt_log((r)->quiet ? KT_LOG_DEBUG : KT_LOG_ERROR, __VA_ARGS__)
/* The same for what a cursor reads. */
#define cur_err(c, ...) \
	kt_log((c)->quiet || (c)->r->quiet ? KT_LOG_DEBUG : KT_LOG_ERROR, __VA_ARGS__)

static int bad(struct cur *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct cur *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->mem)
		cur_err(c, "damaged trace file '%s': in the compressed %s at byte %llu, at offset %llu of its unpacked data: %s; the file cannot be read (re-record it)",
		       c->r->path, c->what, (unsigned long long)c->base,
		       (unsigned long long)c->pos, msg);
	else
		cur_err(c, "damaged trace file '%s': at byte %llu (%s): %s; the file cannot be read (re-record it)",
		       c->r->path, (unsigned long long)c->pos, c->what, msg);
	return -EBADMSG;
}

int kt_reader_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	ssize_t k;

	while (done < n) {
		k = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EBADMSG;
		done += (size_t)k;
	}
	return 0;
}

static uint64_t cur_left(const struct cur *c)
{
	return c->pos < c->end ? c->end - c->pos : 0;
}

static int cur_read(struct cur *c, void *buf, uint64_t n, const char *what)
{
	int ret;

	if (n > cur_left(c))
		return bad(c, "expected %llu bytes of %s, only %llu left",
			   (unsigned long long)n, what,
			   (unsigned long long)cur_left(c));
	if (c->mem) {
		memcpy(buf, c->mem + c->pos, n);
	} else {
		ret = kt_reader_pread_all(c->r->fd, buf, n, c->pos);
		if (ret == -EBADMSG)
			return bad(c, "file ends inside %s", what);
		if (ret) {
			cur_err(c, "cannot read '%s': %s", c->r->path,
				   strerror(-ret));
			return ret;
		}
	}
	c->pos += n;
	return 0;
}

static int cur_u16(struct cur *c, uint16_t *v, const char *what)
{
	unsigned char b[2];
	int ret = cur_read(c, b, 2, what);

	if (!ret)
		*v = get16(c->r, b);
	return ret;
}

static int cur_u32(struct cur *c, uint32_t *v, const char *what)
{
	unsigned char b[4];
	int ret = cur_read(c, b, 4, what);

	if (!ret)
		*v = get32(c->r, b);
	return ret;
}

static int cur_u64(struct cur *c, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int ret = cur_read(c, b, 8, what);

	if (!ret)
		*v = get64(c->r, b);
	return ret;
}

/* A NUL-terminated string of at most max - 1 characters. */
static int cur_str(struct cur *c, char *buf, size_t max, const char *what)
{
	uint64_t start = c->pos;
	size_t i;
	int ret;

	for (i = 0; i < max; i++) {
		ret = cur_read(c, buf + i, 1, what);
		if (ret)
			return ret;
		if (!buf[i])
			return 0;
	}
	c->pos = start;
	return bad(c, "%s is not NUL-terminated within %zu bytes", what, max);
}

/* Read a size-prefixed blob of at most max bytes, NUL-terminated. */
static int cur_blob(struct cur *c, uint64_t size, uint64_t max,
		    const char *what, char **out)
{
	char *buf;
	int ret;

	if (size > max)
		return bad(c, "%s of %llu bytes is over the limit of %llu",
			   what, (unsigned long long)size,
			   (unsigned long long)max);
	/*
	 * trace-cmd takes the size of a /proc or tracefs file, then packs
	 * what it reads of it, which may be less (saved_cmdlines changes
	 * under it).  In an unpacked section, whose length the codec
	 * vouched for, the section's end is the truth.
	 */
	if (c->mem && size > cur_left(c) && size <= max)
		size = cur_left(c);
	if (size > cur_left(c))
		return bad(c, "%s of %llu bytes runs past the end (%llu bytes left)",
			   what, (unsigned long long)size,
			   (unsigned long long)cur_left(c));
	buf = kt_bigbuf_alloc(size + 1);
	if (!buf)
		return -ENOMEM;
	ret = cur_read(c, buf, size, what);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[size] = '\0';
	*out = buf;
	return 0;
}

int kt_reader_unpack(struct kt_reader *r, const void *src, size_t slen,
		     void *dst, size_t dlen)
{
	return kt_reader_unpack_ctx(r, &r->unpack, src, slen, dst, dlen);
}

int kt_reader_unpack_ctx(struct kt_reader *r, struct kt_unpack **u, const void *src,
			 size_t slen, void *dst, size_t dlen)
{
	if (r->comp != COMP_ZSTD && r->comp != COMP_ZLIB)
		return -EBADMSG;
	if (!*u && !(*u = kt_unpack_new()))
		return -ENOMEM;
	return r->comp == COMP_ZSTD ? kt_unpack_zstd(*u, src, slen, dst, dlen) :
		kt_unpack_zlib(*u, src, slen, dst, dlen);
}

/* ---- v6 header part / v7 sections ---------------------------------- */

static int parse_header_info(struct cur *c)
{
	struct kt_reader *r = c->r;
	char label[13];
	uint64_t size;
	char *buf;
	int ret;

	ret = cur_read(c, label, 12, "the \"header_page\" label");
	if (ret)
		return ret;
	if (memcmp(label, KT_DAT_HEADER_PAGE, 12)) {
		c->pos -= 12;
		return bad(c, "expected \"header_page\"");
	}
	ret = cur_u64(c, &size, "the header_page size");
	if (!ret)
		ret = cur_blob(c, size, KT_DAT_MAX_HEADER, "header_page", &buf);
	if (ret)
		return ret;
	ret = tep_parse_header_page(r->tep, buf, size, r->long_size);
	free(buf);
	if (ret)
		return bad(c, "header_page does not parse");
	r->long_size = tep_get_header_page_size(r->tep);
	if (r->long_size != 4 && r->long_size != 8)
		return bad(c, "header_page gives a commit size of %d, expected 4 or 8",
			   r->long_size);
	if (tep_get_header_timestamp_size(r->tep) != 8)
		return bad(c, "header_page gives a timestamp of %d bytes, expected 8",
			   tep_get_header_timestamp_size(r->tep));
	ret = cur_read(c, label, 13, "the \"header_event\" label");
	if (ret)
		return ret;
	if (memcmp(label, KT_DAT_HEADER_EVENT, 13)) {
		c->pos -= 13;
		return bad(c, "expected \"header_event\"");
	}
	ret = cur_u64(c, &size, "the header_event size");
	if (!ret)
		ret = cur_blob(c, size, KT_DAT_MAX_HEADER, "header_event", &buf);
	if (ret)
		return ret;
	free(buf);
	return 0;
}

/*
 * A print fmt that is not safe to give libtraceevent (tepcheck.c says
 * why) costs its event only, not the file: the format goes in with an
 * empty "print fmt: ", which libtraceevent fails as it fails any print
 * fmt it cannot parse, and the event's records print raw ("[FAILED TO
 * PARSE]" and the fields), as trace-cmd prints such an event.  false when
 * what is wrong is not in the print fmt.
 */
static bool drop_print_fmt(char *buf, uint64_t *size)
{
	char *pf = strstr(buf, "\nprint fmt: ");

	if (!pf)
		return false;
	pf[12] = '\0';
	*size = (uint64_t)(pf + 12 - buf);
	return !kt_format_problem(buf, (size_t)*size);
}

/*
 * The plugins a format is about to be parsed with (plugins.h): listed at
 * the first parse, never for an index's reader.
 */
static void want_plugins(struct kt_reader *r, const char *system, const char *fmt)
{
	if (r->index_only)
		return;
	if (!r->plugins && !r->plugins_listed) {
		r->plugins_listed = true;
		r->plugins = kt_plugins_new(r->tep);
		if (!r->plugins)
			kt_debug("'%s': libtraceevent's plugins not listed: %s",
				 r->path, strerror(errno));
	}
	kt_plugins_want(r->plugins, system, fmt);
}

/*
 * Parse the format text buf (size bytes, NUL after them; its print fmt
 * may be cut, see drop_print_fmt) of system into r's tep: 0, or a
 * TEP_ERRNO with *why the reason (NULL: libtraceevent's own) when the
 * text gives no usable event.  A print fmt libtraceevent cannot fully
 * parse still leaves a usable event (trace-cmd prints it raw); a format
 * without a name, an ID or fields is damage.
 */
int kt_format_parse(struct kt_reader *r, const char *system, char *buf,
		    uint64_t size, const char **why)
{
	int ret;

	*why = kt_format_problem(buf, size);
	if (!*why)
		*why = kt_ftrace_format_problem(system, buf);
	if (*why && drop_print_fmt(buf, &size)) {
		kt_log(r->quiet ? KT_LOG_DEBUG : KT_LOG_WARN,
		       "'%s': the print fmt of event %s:%.*s is not safe to parse (%s); its events print raw",
		       r->path, system, (int)strcspn(buf + 6, "\n"), buf + 6, *why);
		*why = NULL;
	}
	if (!*why)
		want_plugins(r, system, buf);
	/* libtraceevent 1.7 leaks a little on formats it cannot parse. */
	kt_lsan_off();
	ret = *why ? TEP_ERRNO__PARSE_EVENT_FAILED :
		     tep_parse_event(r->tep, buf, size, system);
	kt_lsan_on();
	if (ret == TEP_ERRNO__READ_PRINT_FAILED || ret == TEP_ERRNO__OLD_FTRACE_ARG_FAILED)
		ret = 0;
	return ret;
}

static int parse_one_format(struct cur *c, const char *system)
{
	const char *why;
	uint64_t size, at;
	char *buf;
	int ret;

	ret = cur_u64(c, &size, "an event format size");
	if (ret)
		return ret;
	at = c->pos;
	ret = cur_blob(c, size, KT_DAT_MAX_FORMAT, "an event format", &buf);
	if (ret)
		return ret;
	/* Parsed when its event is first wanted (lazyfmt.c), if it can wait. */
	ret = kt_lazyfmt_add(c->r, system, buf, size);
	if (ret != 1) {
		if (ret)
			free(buf);
		return ret;
	}
	ret = kt_format_parse(c->r, system, buf, size, &why);
	if (ret) {
		char first[48];
		size_t i;

		for (i = 0; i < sizeof(first) - 1 && buf[i] >= 0x20 && buf[i] < 0x7f; i++)
			first[i] = buf[i];
		first[i] = '\0';
		free(buf);
		c->pos = at;
		return bad(c, "expected an event format of system '%s', found text that does not parse (\"%s\": %s)",
			   system, first, why ? why : "libtraceevent rejects it");
	}
	free(buf);
	return 0;
}

static int parse_ftrace_formats(struct cur *c)
{
	uint32_t n, i;
	int ret;

	ret = cur_u32(c, &n, "the ftrace format count");
	if (ret)
		return ret;
	if (n > KT_DAT_MAX_EVENTS)
		return bad(c, "%u ftrace formats is over the limit of %u", n,
			   KT_DAT_MAX_EVENTS);
	for (i = 0; i < n; i++) {
		ret = parse_one_format(c, "ftrace");
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_event_formats(struct cur *c)
{
	char system[MAX_NAME];
	uint32_t nsys, n, i, j;
	int ret;

	ret = cur_u32(c, &nsys, "the event system count");
	if (ret)
		return ret;
	if (nsys > KT_DAT_MAX_SYSTEMS)
		return bad(c, "%u event systems is over the limit of %u", nsys,
			   KT_DAT_MAX_SYSTEMS);
	for (i = 0; i < nsys; i++) {
		ret = cur_str(c, system, sizeof(system), "a system name");
		if (!ret)
			ret = cur_u32(c, &n, "an event count");
		if (ret)
			return ret;
		if (n > KT_DAT_MAX_EVENTS)
			return bad(c, "%u events in system '%s' is over the limit of %u",
				   n, system, KT_DAT_MAX_EVENTS);
		for (j = 0; j < n; j++) {
			ret = parse_one_format(c, system);
			if (ret)
				return ret;
		}
	}
	return 0;
}

typedef int (*text_fn)(struct tep_handle *tep, const char *text);

/* A text section: its size (4 or 8 bytes), then the text for fn. */
static int parse_text(struct cur *c, int size_len, uint64_t max,
		      const char *what, text_fn fn)
{
	char label[64], *buf;
	uint64_t size;
	uint32_t size32;
	int ret;

	snprintf(label, sizeof(label), "the %s size", what);
	if (size_len == 4) {
		ret = cur_u32(c, &size32, label);
		size = size32;
	} else {
		ret = cur_u64(c, &size, label);
	}
	if (!ret)
		ret = cur_blob(c, size, max, what, &buf);
	if (ret)
		return ret;
	if (size)
		fn(c->r->tep, buf);
	free(buf);
	return 0;
}

/* The kallsyms text where parse_kallsyms() left it in the file; a warning when it cannot be. */
static void read_kallsyms(struct kt_reader *r)
{
	char *buf = kt_bigbuf_alloc(r->ksyms_size + 1);
	int ret;

	ret = buf ? kt_reader_pread_all(r->fd, buf, r->ksyms_size, r->ksyms_off) : -ENOMEM;

	if (ret) {
		kt_warn("cannot read the kallsyms of '%s': %s; kernel addresses are not named",
			r->path, ret == -EBADMSG ? "the file is cut short" : strerror(-ret));
		free(buf);
		return;
	}
	buf[r->ksyms_size] = '\0';
	r->ksyms = buf;
}

static int open_section(struct kt_reader *r, uint64_t off, unsigned int id,
			uint64_t limit, struct cur *c, unsigned char **mem,
			bool quiet);

/*
 * The packed kallsyms section kallsyms_section() left at the open, now
 * unpacked: its text kept where it is, as parse_kallsyms() keeps it; a
 * warning, not the open's error, when it cannot be (the events are
 * read whole, their addresses unnamed).
 */
static void unpack_kallsyms(struct kt_reader *r)
{
	unsigned char *mem;
	uint32_t size;
	struct cur c;
	int ret;

	ret = open_section(r, r->ksyms_sec, KT_OPT_KALLSYMS,
			   KT_DAT_MAX_KALLSYMS + 4, &c, &mem, true);
	if (!ret)
		ret = cur_u32(&c, &size, "the kallsyms size");
	if (!ret && (size > cur_left(&c) || size > KT_DAT_MAX_KALLSYMS))
		ret = -EBADMSG;
	if (ret || !mem) {
		if (ret)
			kt_warn("cannot read the kallsyms of '%s': %s; kernel addresses are not named",
				r->path, ret == -EBADMSG ? "its packed section is damaged" :
				strerror(-ret));
		free(mem);
		return;
	}
	/* The text ends at its size (open_section() put a NUL after all). */
	mem[c.pos + size] = '\0';
	r->ksyms_mem = mem;
	r->ksyms = (char *)mem + c.pos;
}

/*
 * The function table is built at the first address libtraceevent (or
 * fastfmt) asks to name, through its resolver hook: most reports name
 * none, and a machine's 120,000 symbols cost a quarter of a report's
 * time to register.  They go into a table of their own (kt_ksymtab:
 * the names where they are in the text, no sort when the text is in
 * address order, as a kernel's is), and each lookup asks that table:
 * the answers are the ones the file's tep would give with them
 * registered (name and start; nothing in libtraceevent prints the
 * module).  A text of another shape is registered into a tep of its own.
 */
/*
 * A report names the same few thousand addresses millions of times (a
 * kernel stack's frames, fastfmt's %ps): each answer is kept, by
 * address, so that a lookup is one probe and not two binary searches
 * of the 200,000 symbols.
 */
#define KSYM_CACHE	8192	/* a power of 2 */

struct ksym_ent {
	unsigned long long addr, start;
	const char *name;	/* NULL: no function there */
	bool valid;
};

static unsigned int ksym_slot(unsigned long long addr)
{
	return (unsigned int)((addr * 0x9e3779b97f4a7c15ULL) >> 51) & (KSYM_CACHE - 1);
}

static bool ksyms_find(struct kt_reader *r, unsigned long long addr,
		       const char **name, unsigned long long *start)
{
	if (r->ksyms_tab)
		return (*name = kt_ksymtab_find(r->ksyms_tab, addr, start)) != NULL;
	return tep_find_function_info(r->ksyms_tep, addr, name, start, NULL);
}

static char *lazy_symbols(void *priv, unsigned long long *addrp, char **modp)
{
	struct kt_reader *r = priv;
	struct ksym_ent *ke;
	const char *name;

	(void)modp;
	if (!r->ksyms_tried) {
		r->ksyms_tried = true;
		if (!r->ksyms && r->ksyms_size)
			read_kallsyms(r);
		else if (!r->ksyms && r->ksyms_sec)
			unpack_kallsyms(r);
		/* A table of its own; a text of another shape goes into a tep. */
		r->ksyms_tab = r->ksyms ? kt_ksymtab_new(r->ksyms, r->ksyms_mem ?
					 (void *)r->ksyms_mem : r->ksyms) : NULL;
		if (r->ksyms_tab) {
			r->ksyms = NULL;
			r->ksyms_mem = NULL;
		} else if (r->ksyms && errno == EINVAL && (r->ksyms_tep = tep_alloc())) {
			kt_kallsyms_parse(r->ksyms_tep, r->ksyms);
		} else if (r->ksyms) {
			kt_warn("out of memory for the kallsyms of '%s': kernel addresses are not named",
				r->path);
		}
		if (r->ksyms_tab || r->ksyms_tep) {
			r->ksyms_cache = calloc(KSYM_CACHE, sizeof(*r->ksyms_cache));
			kt_prefault(r->ksyms_cache, KSYM_CACHE * sizeof(*r->ksyms_cache));
		}
		free(r->ksyms_mem ? (void *)r->ksyms_mem : r->ksyms);
		r->ksyms = NULL;
		r->ksyms_mem = NULL;
	}
	if (!r->ksyms_tab && !r->ksyms_tep)
		return NULL;
	if (!r->ksyms_cache) {
		/* Out of memory: one lookup each time, as libtraceevent's. */
		if (!ksyms_find(r, *addrp, &name, addrp))
			return NULL;
		return (char *)name;
	}
	ke = &r->ksyms_cache[ksym_slot(*addrp)];
	if (!ke->valid || ke->addr != *addrp) {
		ke->addr = *addrp;
		ke->valid = true;
		if (!ksyms_find(r, ke->addr, &ke->name, &ke->start))
			ke->name = NULL;
	}
	if (!ke->name)
		return NULL;
	*addrp = ke->start;
	return (char *)ke->name;
}

static int parse_kallsyms(struct cur *c)
{
	struct kt_reader *r = c->r;
	uint32_t size;
	char *buf;
	int ret;

	ret = cur_u32(c, &size, "the kallsyms size");
	if (ret)
		return ret;
	/*
	 * The text ends its unpacked section (NUL-terminated by
	 * open_section()): kept where it is, not copied.
	 */
	if (c->mem && c->take && *c->take && size && size == cur_left(c) &&
	    size <= KT_DAT_MAX_KALLSYMS && !r->ksyms && !r->ksyms_tep &&
	    !tep_set_function_resolver(r->tep, lazy_symbols, r)) {
		r->ksyms_mem = *c->take;
		r->ksyms = (char *)r->ksyms_mem + c->pos;
		*c->take = NULL;
		c->mem = NULL;
		c->pos = c->end;
		return 0;
	}
	/* In the file, whole: where it is, read when needed. */
	if (!c->mem && size && size <= KT_DAT_MAX_KALLSYMS && size <= cur_left(c) &&
	    c->pos + size <= r->fsize && !r->ksyms && !r->ksyms_size && !r->ksyms_tep &&
	    !tep_set_function_resolver(r->tep, lazy_symbols, r)) {
		r->ksyms_off = c->pos;
		r->ksyms_size = size;
		c->pos += size;
		return 0;
	}
	ret = cur_blob(c, size, KT_DAT_MAX_KALLSYMS, "kallsyms", &buf);
	if (ret)
		return ret;
	if (!size || r->ksyms || r->ksyms_size || r->ksyms_tep ||
	    tep_set_function_resolver(r->tep, lazy_symbols, r)) {
		/* Only one kallsyms is lazy; any other goes in now. */
		if (size)
			kt_kallsyms_parse(r->tep, buf);
		free(buf);
		return 0;
	}
	r->ksyms = buf;
	return 0;
}

/*
 * "ADDR : FORMAT" lines into the printk table.  Not
 * tep_parse_printk_formats(): libtraceevent 1.7 strdup()s from one past a
 * line's end when the line has no ':' or nothing after it, and
 * tep_register_print_string() looks two bytes before a format shorter
 * than three (both found by tests/fuzz/fuzz_file.c).  Only well-formed
 * lines reach it.
 */
static int register_printk(struct tep_handle *tep, const char *text)
{
	const char *line = text, *nl, *p;
	unsigned long long addr;
	char *fmt;
	size_t n;

	for (; *line; line = *nl ? nl + 1 : nl) {
		nl = strchrnul(line, '\n');
		p = line;
		if (p + 2 <= nl && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		for (addr = 0, n = 0; p < nl && isxdigit((unsigned char)*p); p++, n++)
			addr = addr << 4 | (unsigned)(isdigit((unsigned char)*p) ?
					*p - '0' : (*p | 0x20) - 'a' + 10);
		if (!n || n > 16)
			continue;
		while (p < nl && *p == ' ')
			p++;
		if (p >= nl || *p++ != ':')
			continue;
		if (p < nl && *p == ' ')
			p++;
		/* It skips one opening quote, then looks at the last three. */
		if (nl - p - (p < nl && *p == '"') < 3)
			continue;
		fmt = strndup(p, (size_t)(nl - p));
		if (!fmt)
			return -ENOMEM;
		tep_register_print_string(tep, fmt, addr);
		free(fmt);
	}
	return 0;
}

static int parse_printk(struct cur *c)
{
	return parse_text(c, 4, KT_DAT_MAX_PRINTK, "printk formats",
			  register_printk);
}

/*
 * "PID COMM" lines into the comm table.  Not tep_parse_saved_cmdlines():
 * libtraceevent 1.7 leaks the comm it sscanf("%m")s from some damaged
 * lines (found by tests/fuzz/fuzz_file.c), so only well-formed lines
 * reach it, one tep_register_comm() each.
 */
static int register_cmdlines(struct tep_handle *tep, const char *text)
{
	const char *line = text, *nl, *p;
	char comm[256];
	long pid;
	size_t n;

	for (; *line; line = *nl ? nl + 1 : nl) {
		nl = strchrnul(line, '\n');
		for (p = line, pid = 0; p < nl && *p >= '0' && *p <= '9'; p++) {
			pid = pid * 10 + (*p - '0');
			if (pid > INT32_MAX)
				break;
		}
		if (p == line || p >= nl || *p != ' ' || pid > INT32_MAX)
			continue;
		n = (size_t)(nl - ++p);
		if (!n)
			continue;
		if (n >= sizeof(comm))
			n = sizeof(comm) - 1;
		memcpy(comm, p, n);
		comm[n] = '\0';
		tep_register_comm(tep, comm, (int)pid);
	}
	return 0;
}

static int parse_cmdlines(struct cur *c)
{
	return parse_text(c, 8, KT_DAT_MAX_CMDLINES, "saved command lines",
			  register_cmdlines);
}

/* ---- options -------------------------------------------------------- */

static void parse_trace_clock(struct kt_reader *r, const char *text)
{
	static const char *const usec_clocks[] = {
		"local", "global", "uptime", "perf", "tsc2nsec", "tai",
	};
	const char *open = strchr(text, '['), *close;
	size_t i;

	if (!open || !(close = strchr(open, ']')))
		return;
	free(r->clock);
	r->clock = strndup(open + 1, (size_t)(close - open - 1));
	if (!r->clock || r->tsc_mult)
		return;
	/* As trace-cmd: only clocks counting in ns are shown as seconds. */
	for (i = 0; i < sizeof(usec_clocks) / sizeof(usec_clocks[0]); i++)
		if (!strcmp(r->clock, usec_clocks[i]))
			return;
	if (!strncmp(r->clock, "mono", 4))
		return;
	r->in_usecs = false;
}

static struct buffer *add_buffer(struct kt_reader *r, const char *name)
{
	struct buffer *b;

	if (!*name)
		b = &r->bufs[0];
	else {
		b = realloc(r->bufs, sizeof(*b) * (r->nbufs + 1));
		if (!b)
			return NULL;
		r->bufs = b;
		b = &r->bufs[r->nbufs++];
		memset(b, 0, sizeof(*b));
	}
	free(b->name);
	free(b->streams);
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	return b->name ? b : NULL;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct cpu_data *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Check a CPU's data lies in the file; a truncated file keeps its head. */
static int check_cpu_data(struct cur *c, struct buffer *b, struct cpu_data *d)
{
	struct kt_reader *r = c->r;

	if (d->off > r->fsize || (d->size && d->off < 16))
		return bad(c, "CPU %d data of buffer '%s' at offset %llu is outside the file (%llu bytes)",
			   d->cpu, b->name, (unsigned long long)d->off,
			   (unsigned long long)r->fsize);
	if (d->size > r->fsize - d->off) {
		kt_warn("damaged trace file '%s': CPU %d data of buffer '%s' needs bytes up to %llu but the file ends at %llu (truncated); showing what is there",
			r->path, d->cpu, *b->name ? b->name : "top",
			(unsigned long long)(d->off + d->size),
			(unsigned long long)r->fsize);
		d->size = r->fsize - d->off;
		r->damaged = true;
	}
	return 0;
}

/* v7 BUFFER option: offset, name, clock, page size, CPUs. */
static int parse_buffer_v7(struct cur *c, const unsigned char *p, uint32_t size)
{
	struct kt_reader *r = c->r;
	const unsigned char *end = p + size, *s;
	char name[MAX_NAME];
	struct buffer *b;
	uint64_t off;
	uint32_t psize, n, i;
	size_t len;

	if (size < 8)
		return bad(c, "BUFFER option of %u bytes is too short", size);
	off = get64(r, p);
	p += 8;
	for (i = 0; i < 2; i++) {
		s = memchr(p, '\0', (size_t)(end - p));
		if (!s || (len = (size_t)(s - p)) >= MAX_NAME)
			return bad(c, "BUFFER option: expected a NUL-terminated %s",
				   i ? "clock name" : "buffer name");
		if (!i)
			memcpy(name, p, len + 1);
		p = s + 1;
	}
	if (end - p < 8)
		return bad(c, "BUFFER option '%s' ends before its CPU count", name);
	psize = get32(r, p);
	n = get32(r, p + 4);
	p += 8;
	if (psize != r->page_size)
		return bad(c, "BUFFER option '%s' has page size %u, the file %u",
			   name, psize, r->page_size);
	if (n > KT_DAT_MAX_CPUS || (uint64_t)(end - p) < (uint64_t)n * 20)
		return bad(c, "BUFFER option '%s' lists %u CPUs in %zu bytes",
			   name, n, (size_t)(end - p));
	b = add_buffer(r, name);
	if (!b)
		return -ENOMEM;
	b->sec_off = off;
	b->streams = calloc(n ? n : 1, sizeof(*b->streams));
	if (!b->streams)
		return -ENOMEM;
	for (i = 0; i < n; i++, p += 20) {
		struct cpu_data *d = &b->streams[i];
		int ret;

		d->cpu = (int)get32(r, p);
		d->off = get64(r, p + 4);
		d->size = get64(r, p + 12);
		if (d->cpu < 0 || d->cpu >= KT_DAT_MAX_CPUS)
			return bad(c, "BUFFER option '%s' names CPU %u", name,
				   (unsigned)d->cpu);
		if (i && d->cpu == b->streams[i - 1].cpu)
			return bad(c, "BUFFER option '%s' lists CPU %d twice",
				   name, d->cpu);
		ret = check_cpu_data(c, b, d);
		if (ret)
			return ret;
	}
	b->nstreams = (int)n;
	qsort(b->streams, n, sizeof(*b->streams), cmp_cpu);
	for (i = 1; i < n; i++)
		if (b->streams[i].cpu == b->streams[i - 1].cpu)
			return bad(c, "BUFFER option '%s' lists CPU %d twice",
				   name, b->streams[i].cpu);
	return 0;
}

/* Append one option's text (up to its NUL). */
static int optext_add(struct kt_optext *t, const unsigned char *p, uint32_t size)
{
	size_t n = strnlen((const char *)p, size);
	char *grown;

	if (t->len + n + 1 > KT_DAT_MAX_OPTION)
		return 0;	/* no bound is reached by a real recording */
	grown = realloc(t->s, t->len + n + 1);
	if (!grown)
		return -ENOMEM;
	memcpy(grown + t->len, p, n);
	t->s = grown;
	t->len += n;
	grown[t->len] = '\0';
	return 0;
}

/*
 * trace-cmd stores the stats of an instance's CPUs after a CPUSTAT that
 * only says "Buffer: NAME"; the ones before any such marker are the top
 * buffer's.
 */
static int add_cpustat(struct kt_reader *r, const unsigned char *p, uint32_t size)
{
	char *text = strndup((const char *)p, size), *t, **v, **vb;

	if (!text)
		return -ENOMEM;
	for (t = text; *t == '\n'; t++)
		;
	if (!strncmp(t, "Buffer: ", 8)) {
		t += 8;
		t[strcspn(t, "\n")] = '\0';
		free(r->stat_buf);
		r->stat_buf = strdup(t);
		free(text);
		return r->stat_buf ? 0 : -ENOMEM;
	}
	v = realloc(r->cpustat, sizeof(*v) * (r->ncpustat + 1));
	if (!v) {
		free(text);
		return -ENOMEM;
	}
	r->cpustat = v;
	vb = realloc(r->cpustat_buf, sizeof(*vb) * (r->ncpustat + 1));
	if (!vb) {
		free(text);
		return -ENOMEM;
	}
	r->cpustat_buf = vb;
	vb[r->ncpustat] = strdup(r->stat_buf ? r->stat_buf : "");
	if (!vb[r->ncpustat]) {
		free(text);
		return -ENOMEM;
	}
	v[r->ncpustat++] = text;
	return 0;
}

static int set_string(char **dst, const unsigned char *p, uint32_t size)
{
	char *s = strndup((const char *)p, size);

	if (!s)
		return -ENOMEM;
	/* Trailing newlines are noise in every place these are shown. */
	while (*s && s[strlen(s) - 1] == '\n')
		s[strlen(s) - 1] = '\0';
	free(*dst);
	*dst = s;
	return 0;
}

/*
 * The DATE (microseconds) and OFFSET options move every timestamp by
 * what the file says.  A damaged file's numbers overflow a long long
 * (fuzz_file, regress/file/date-option-times-1000-overflows): the sum
 * wraps, as the two's complement arithmetic trace-cmd does in practice
 * gives, without the undefined behaviour of a signed overflow.
 */
static void add_ts_offset(struct kt_reader *r, long long value,
			  unsigned long long unit)
{
	r->ts_offset = (long long)((unsigned long long)r->ts_offset +
				   (unsigned long long)value * unit);
}

/*
 * Parse options until DONE.  v6: DONE has no size.  v7: DONE carries the
 * offset of the next options section, returned in *next.
 */
static int parse_options(struct cur *c, bool top, uint64_t *next)
{
	struct kt_reader *r = c->r;
	unsigned char *buf;
	uint16_t id;
	uint32_t size;
	uint64_t at;
	int ret;

	*next = 0;
	for (;;) {
		at = c->pos;
		ret = cur_u16(c, &id, "an option id");
		if (ret)
			return ret;
		if (id == KT_OPT_DONE && r->version < 7)
			return 0;
		ret = cur_u32(c, &size, "an option size");
		if (ret)
			return ret;
		if (size > KT_DAT_MAX_OPTION || size > cur_left(c)) {
			c->pos = at;
			return bad(c, "option %u of %u bytes runs past the end of the options (%llu bytes left)",
				   id, size, (unsigned long long)cur_left(c));
		}
		buf = malloc(size + 1);
		if (!buf)
			return -ENOMEM;
		ret = cur_read(c, buf, size, "an option");
		if (ret) {
			free(buf);
			return ret;
		}
		buf[size] = '\0';
		switch (id) {
		case KT_OPT_DONE:
			if (size >= 8)
				*next = get64(r, buf);
			free(buf);
			return 0;
		case KT_OPT_DATE:
			if (top)
				add_ts_offset(r, strtoll((char *)buf, NULL, 0), 1000);
			break;
		case KT_OPT_OFFSET:
			if (top)
				add_ts_offset(r, strtoll((char *)buf, NULL, 0), 1);
			break;
		case KT_OPT_CPUSTAT:
			if (top)
				ret = add_cpustat(r, buf, size);
			break;
		case KT_OPT_BUFFER:
			if (r->version >= 7) {
				ret = parse_buffer_v7(c, buf, size);
			} else if (top) {
				struct buffer *b;

				if (size < 9 || !memchr(buf + 8, '\0', size - 8)) {
					c->pos = at;
					ret = bad(c, "expected a BUFFER option with an offset and a name");
					break;
				}
				b = add_buffer(r, (char *)buf + 8);
				if (!b)
					ret = -ENOMEM;
				else
					b->sec_off = get64(r, buf);
			}
			break;
		case KT_OPT_TRACECLOCK:
			if (top) {
				parse_trace_clock(r, (char *)buf);
				r->clock_opt = true;
			}
			break;
		case KT_OPT_UNAME:
			if (top)
				ret = set_string(&r->uname, buf, size);
			break;
		case KT_OPT_VERSION:
			if (top)
				ret = set_string(&r->tool_version, buf, size);
			break;
		case KT_OPT_CPUCOUNT:
			if (size >= 4 && top) {
				uint32_t n = get32(r, buf);

				if (n > KT_DAT_MAX_CPUS) {
					c->pos = at;
					ret = bad(c, "CPUCOUNT %u is over the limit of %u",
						  n, KT_DAT_MAX_CPUS);
				} else {
					r->cpus = (int)n;
				}
			}
			break;
		case KT_OPT_KTRACE_MAPS:
			if (top)
				ret = optext_add(&r->user_maps, buf, size);
			break;
		case KT_OPT_KTRACE_TGIDS:
			if (top)
				ret = optext_add(&r->tgids, buf, size);
			break;
		case KT_OPT_KTRACE_CLOCK:
			if (top)
				ret = set_string(&r->wall_clock, buf, size);
			break;
		case KT_OPT_KTRACE_TSYNC:
			if (top)
				ret = set_string(&r->tsync, buf, size);
			break;
		case KT_OPT_KTRACE_CMDLINE:
			if (top)
				ret = set_string(&r->record_cmdline, buf, size);
			break;
		case KT_OPT_KTRACE_TRIGGER:
			if (top)
				ret = set_string(&r->trigger, buf, size);
			break;
		case KT_OPT_TSC2NSEC:
			if (size >= 16 && top) {
				r->tsc_mult = get32(r, buf);
				r->tsc_shift = get32(r, buf + 4);
				if (r->tsc_shift > 63)
					r->tsc_shift = 63;
				r->in_usecs = true;
			}
			break;
		case KT_OPT_HEADER_INFO:
		case KT_OPT_FTRACE_EVENTS:
		case KT_OPT_EVENT_FORMATS:
		case KT_OPT_KALLSYMS:
		case KT_OPT_PRINTK:
		case KT_OPT_CMDLINES:
			if (size >= 8)
				r->sec_off[id] = get64(r, buf);
			break;
		default:
			break;
		}
		free(buf);
		if (ret)
			return ret;
	}
}

/* ---- v7 sections ---------------------------------------------------- */

static const char *section_name(unsigned int id)
{
	switch (id) {
	case 0: return "options section";
	case KT_OPT_BUFFER: return "buffer section";
	case KT_OPT_HEADER_INFO: return "header section";
	case KT_OPT_FTRACE_EVENTS: return "ftrace formats section";
	case KT_OPT_EVENT_FORMATS: return "event formats section";
	case KT_OPT_KALLSYMS: return "kallsyms section";
	case KT_OPT_PRINTK: return "printk section";
	case KT_OPT_CMDLINES: return "command lines section";
	}
	return "section";
}

/*
 * The head of the v7 section at off, which must have id, checked: *c
 * then reads its content, or its packed bytes (*csize of them, unpacking
 * to *usize, at most limit) when *packed.
 */
static int section_head(struct kt_reader *r, uint64_t off, unsigned int id,
			uint64_t limit, struct cur *c, bool *packed,
			uint32_t *csize, uint32_t *usize, bool quiet)
{
	uint16_t sid, flags;
	uint32_t str;
	uint64_t size;
	int ret;

	*packed = false;
	*c = (struct cur){ .r = r, .pos = off, .end = r->fsize,
			   .what = section_name(id), .quiet = quiet };
	if (off >= r->fsize || off < KT_DAT_MAGIC_LEN)
		return bad(c, "expected a %s, but the offset is outside the file (%llu bytes)",
			   section_name(id), (unsigned long long)r->fsize);
	ret = cur_u16(c, &sid, "a section id");
	if (!ret)
		ret = cur_u16(c, &flags, "section flags");
	if (!ret)
		ret = cur_u32(c, &str, "a section description");
	if (!ret)
		ret = cur_u64(c, &size, "a section size");
	if (ret)
		return ret;
	if (sid != id) {
		c->pos = off;
		return bad(c, "expected a %s (id %u), found section id %u",
			   section_name(id), id, sid);
	}
	if (size > cur_left(c))
		return bad(c, "%s of %llu bytes runs past the end of the file (%llu bytes left)",
			   section_name(id), (unsigned long long)size,
			   (unsigned long long)cur_left(c));
	c->end = c->pos + size;
	if (!(flags & KT_DAT_SEC_COMPRESSED))
		return 0;
	if (r->comp == COMP_NONE)
		return bad(c, "%s is marked compressed in an uncompressed file",
			   section_name(id));
	ret = cur_u32(c, csize, "a compressed size");
	if (!ret)
		ret = cur_u32(c, usize, "an uncompressed size");
	if (ret)
		return ret;
	if (*csize > cur_left(c))
		return bad(c, "compressed data of %u bytes runs past the section end",
			   *csize);
	if (*usize > limit)
		return bad(c, "%s unpacks to %u bytes, over the limit of %llu",
			   section_name(id), *usize, (unsigned long long)limit);
	*packed = true;
	return 0;
}

/*
 * Open the v7 section at off, which must have id; *c then reads its
 * content (unpacked into *mem when compressed, which the caller frees).
 * quiet: its damage is not told (the caller tells it).
 */
static int open_section(struct kt_reader *r, uint64_t off, unsigned int id,
			uint64_t limit, struct cur *c, unsigned char **mem,
			bool quiet)
{
	uint32_t csize, usize;
	unsigned char *zbuf;
	bool packed;
	int ret;

	*mem = NULL;
	ret = section_head(r, off, id, limit, c, &packed, &csize, &usize, quiet);
	if (ret || !packed)
		return ret;
	zbuf = kt_bigbuf_alloc(csize);
	/*
	 * One more byte, a NUL: a text that ends the section ends there.
	 * Its pages taken ahead only for what the packed bytes can hold at a
	 * text's ratio (kallsyms: 7 to 1): a header that claims 256 MB from
	 * a few bytes gets memory promised, as malloc() gives, not taken.
	 */
	*mem = usize / 32 <= csize ? kt_bigbuf_alloc((size_t)usize + 1) :
				     malloc((size_t)usize + 1);
	if (!zbuf || !*mem) {
		free(zbuf);
		free(*mem);
		*mem = NULL;
		return -ENOMEM;
	}
	ret = cur_read(c, zbuf, csize, "compressed data");
	if (!ret && kt_reader_unpack(r, zbuf, csize, *mem, usize))
		ret = bad(c, "compressed data does not unpack with %s to the %u bytes it claims",
			  r->comp_name, usize);
	free(zbuf);
	if (ret) {
		free(*mem);
		*mem = NULL;
		return ret;
	}
	(*mem)[usize] = '\0';
	c->base = off;
	c->mem = *mem;
	c->take = mem;
	c->pos = 0;
	c->end = usize;
	return 0;
}

typedef int (*section_fn)(struct cur *c);

static int read_section(struct kt_reader *r, unsigned int id, uint64_t limit,
			section_fn fn, bool required)
{
	unsigned char *mem;
	struct cur c;
	int ret;

	/* A series' chunk is opened for its data only (index_only). */
	if (r->index_only && (id == KT_OPT_KALLSYMS || id == KT_OPT_PRINTK ||
			      id == KT_OPT_CMDLINES))
		return 0;
	if (!r->sec_off[id]) {
		if (!required)
			return 0;
		c = (struct cur){ .r = r, .pos = 0, .end = r->fsize,
				  .what = "options" };
		return bad(&c, "expected an option pointing to the %s, found none",
			   section_name(id));
	}
	ret = open_section(r, r->sec_off[id], id, limit, &c, &mem, false);
	if (!ret)
		ret = fn(&c);
	free(mem);
	return ret;
}

/*
 * A packed kallsyms section is checked at the open and unpacked at the
 * first address to name (unpack_kallsyms()), as a v6 file's text is read
 * then: a machine's 5 MB, unpacked and paged in, were a quarter of the
 * open of a file of sched events, whose report names no address.
 * Otherwise it is read now.
 */
static int kallsyms_section(struct kt_reader *r)
{
	uint32_t csize, usize;
	struct cur c;
	bool packed;
	int ret;

	if (r->index_only || !r->sec_off[KT_OPT_KALLSYMS])
		return 0;
	ret = section_head(r, r->sec_off[KT_OPT_KALLSYMS], KT_OPT_KALLSYMS,
			   KT_DAT_MAX_KALLSYMS + 4, &c, &packed, &csize, &usize, false);
	if (ret)
		return ret;
	if (!packed || usize < 4 || r->ksyms || r->ksyms_size || r->ksyms_sec ||
	    r->ksyms_tep || tep_set_function_resolver(r->tep, lazy_symbols, r))
		return read_section(r, KT_OPT_KALLSYMS, KT_DAT_MAX_KALLSYMS + 4,
				    parse_kallsyms, false);
	r->ksyms_sec = r->sec_off[KT_OPT_KALLSYMS];
	return 0;
}

/* The most a section's content may unpack to, as read_v7 reads it. */
static uint64_t section_limit(unsigned int id)
{
	switch (id) {
	case KT_OPT_HEADER_INFO: return KT_DAT_MAX_HEADER * 2 + 64;
	case KT_OPT_KALLSYMS: return KT_DAT_MAX_KALLSYMS + 4;
	case KT_OPT_PRINTK: return KT_DAT_MAX_PRINTK + 4;
	case KT_OPT_CMDLINES: return KT_DAT_MAX_CMDLINES + 8;
	default: return KT_DAT_MAX_OPTION;
	}
}

int kt_reader_section(struct kt_reader *r, unsigned int id,
		      unsigned char **buf, size_t *len)
{
	unsigned char *mem;
	struct cur c;
	uint64_t n;
	int ret;

	*buf = NULL;
	*len = 0;
	if (r->version < 7 || id < KT_OPT_HEADER_INFO || id > KT_OPT_CMDLINES)
		return -EINVAL;
	if (!r->sec_off[id])
		return -ENOENT;
	ret = open_section(r, r->sec_off[id], id, section_limit(id), &c, &mem, false);
	if (ret)
		return ret;
	n = c.end - c.pos;
	*buf = malloc(n ? n : 1);
	if (!*buf)
		ret = -ENOMEM;
	else
		ret = cur_read(&c, *buf, n, section_name(id));
	free(mem);
	if (ret) {
		free(*buf);
		*buf = NULL;
		return ret;
	}
	*len = n;
	return 0;
}

/*
 * trace-cmd writes a strings section right after an options section.
 * Nothing points at it, so a file cut inside it would go unnoticed; look
 * for it where it sits and check it is whole.
 */
static int check_trailing_strings(struct kt_reader *r, uint64_t opt_off)
{
	struct cur c = { .r = r, .pos = opt_off + 8, .end = r->fsize,
			 .what = "strings section" };
	uint16_t id;
	uint64_t size;
	int ret;

	ret = cur_u64(&c, &size, "a section size");
	if (ret)
		return ret;
	c.pos = opt_off + 16 + size;
	if (c.pos >= r->fsize)
		return 0;
	if (r->fsize - c.pos < 16)
		return bad(&c, "the file ends inside a section header");
	ret = cur_u16(&c, &id, "a section id");
	if (ret || id != KT_OPT_STRINGS)
		return ret;
	c.pos += 6;
	ret = cur_u64(&c, &size, "a section size");
	if (ret)
		return ret;
	if (size > cur_left(&c))
		return bad(&c, "strings section of %llu bytes runs past the end of the file (%llu bytes left; truncated?)",
			   (unsigned long long)size,
			   (unsigned long long)cur_left(&c));
	return 0;
}

/* The v7 header's compression name and version, and the options offset. */
static int read_v7_start(struct kt_reader *r, struct cur *c, uint64_t *off)
{
	char ver[MAX_NAME];
	int ret;

	ret = cur_str(c, r->comp_name, sizeof(r->comp_name), "the compression name");
	if (!ret)
		ret = cur_str(c, ver, sizeof(ver), "the compression version");
	if (ret)
		return ret;
	if (!strcmp(r->comp_name, "none"))
		r->comp = COMP_NONE;
	else if (!strcmp(r->comp_name, "zstd"))
		r->comp = COMP_ZSTD;
	else if (!strcmp(r->comp_name, "zlib"))
		r->comp = COMP_ZLIB;
	else
		return bad(c, "unknown compression '%s' (known: none, zstd, zlib)",
			   r->comp_name);
	return cur_u64(c, off, "the options offset");
}

static int read_v7(struct kt_reader *r, struct cur *c)
{
	uint64_t off, seen[MAX_OPTION_SECTIONS];
	unsigned char *mem;
	struct cur oc;
	int n = 0, i, ret;

	ret = read_v7_start(r, c, &off);
	if (ret)
		return ret;
	while (off) {
		for (i = 0; i < n; i++)
			if (seen[i] == off)
				return bad(c, "options sections loop back to byte %llu",
					   (unsigned long long)off);
		if (n == MAX_OPTION_SECTIONS)
			return bad(c, "more than %d options sections",
				   MAX_OPTION_SECTIONS);
		seen[n++] = off;
		ret = open_section(r, off, 0, KT_DAT_MAX_OPTION, &oc, &mem, false);
		if (!ret)
			ret = parse_options(&oc, true, &off);
		free(mem);
		if (!ret)
			ret = check_trailing_strings(r, seen[n - 1]);
		if (ret)
			return ret;
	}
	ret = read_section(r, KT_OPT_HEADER_INFO, KT_DAT_MAX_HEADER * 2 + 64,
			   parse_header_info, true);
	if (!ret)
		ret = read_section(r, KT_OPT_FTRACE_EVENTS, KT_DAT_MAX_OPTION,
				   parse_ftrace_formats, false);
	if (!ret)
		ret = read_section(r, KT_OPT_EVENT_FORMATS, KT_DAT_MAX_OPTION,
				   parse_event_formats, false);
	if (!ret)
		ret = kallsyms_section(r);
	if (!ret)
		ret = read_section(r, KT_OPT_PRINTK, KT_DAT_MAX_PRINTK + 4,
				   parse_printk, false);
	if (!ret)
		ret = read_section(r, KT_OPT_CMDLINES, KT_DAT_MAX_CMDLINES + 8,
				   parse_cmdlines, false);
	if (ret)
		return ret;
	/* Each buffer's flyrecord section says whether its data is packed. */
	for (i = 0; i < r->nbufs; i++) {
		struct buffer *b = &r->bufs[i];
		uint16_t sid, flags;

		if (!b->nstreams)
			continue;
		oc = (struct cur){ .r = r, .pos = b->sec_off, .end = r->fsize,
				   .what = "buffer section" };
		ret = cur_u16(&oc, &sid, "a section id");
		if (!ret)
			ret = cur_u16(&oc, &flags, "section flags");
		if (ret)
			return ret;
		if (sid != KT_OPT_BUFFER) {
			oc.pos = b->sec_off;
			return bad(&oc, "expected the buffer section of '%s' (id %u), found id %u",
				   b->name, KT_OPT_BUFFER, sid);
		}
		b->compressed = flags & KT_DAT_SEC_COMPRESSED;
		if (b->compressed && r->comp == COMP_NONE)
			return bad(&oc, "buffer '%s' is marked compressed in an uncompressed file",
				   b->name);
	}
	return 0;
}

/*
 * A latency trace (trace-cmd record -p wakeup...): the text of the
 * tracer's trace file, to the end of the file.  As trace-cmd: when the
 * options named a trace clock, the clock's text comes first (an 8-byte
 * size, then the text); trace-cmd reads those 8 bytes even when the size
 * does not fit the file ("trace_clock bug"), and the text follows them.
 */
static void read_latency_v6(struct kt_reader *r, struct cur *c)
{
	uint64_t size;

	r->latency = true;
	if (r->clock_opt) {
		if (cur_left(c) < 8 || cur_u64(c, &size, "a trace clock size"))
			c->pos = c->end;
		else if (size <= cur_left(c))
			c->pos += size;
	}
	r->lat_off = c->pos;
}

/* v6: label, optional options, "flyrecord", then per-CPU offset/size. */
static int read_flyrecord_v6(struct kt_reader *r, struct cur *c, int bi)
{
	char label[KT_DAT_LABEL_LEN];
	bool top = bi == 0;
	struct buffer *b;
	uint64_t next;
	int i, ret;

	ret = cur_read(c, label, sizeof(label), "a section label");
	if (ret)
		return ret;
	if (!memcmp(label, KT_DAT_LABEL_OPTIONS, KT_DAT_LABEL_LEN)) {
		ret = parse_options(c, top, &next);
		if (!ret)
			ret = cur_read(c, label, sizeof(label), "a section label");
		if (ret)
			return ret;
	}
	if (!memcmp(label, KT_DAT_LABEL_LATENCY, KT_DAT_LABEL_LEN)) {
		if (!top) {
			c->pos -= KT_DAT_LABEL_LEN;
			return bad(c, "expected \"flyrecord\" for instance '%s'",
				   r->bufs[bi].name);
		}
		read_latency_v6(r, c);
		return 0;
	}
	if (memcmp(label, KT_DAT_LABEL_FLYRECORD, KT_DAT_LABEL_LEN)) {
		c->pos -= KT_DAT_LABEL_LEN;
		return bad(c, "expected \"options\", \"latency\" or \"flyrecord\"");
	}
	/* Only now: options may have grown (moved) r->bufs. */
	b = &r->bufs[bi];
	/* The top part may have changed r->cpus through CPUCOUNT; v6 keeps
	 * one entry per CPU of the header count. */
	b->streams = calloc(r->cpus ? r->cpus : 1, sizeof(*b->streams));
	if (!b->streams)
		return -ENOMEM;
	for (i = 0; i < r->cpus; i++) {
		struct cpu_data *d = &b->streams[i];

		d->cpu = i;
		ret = cur_u64(c, &d->off, "a CPU data offset");
		if (!ret)
			ret = cur_u64(c, &d->size, "a CPU data size");
		if (!ret)
			ret = check_cpu_data(c, b, d);
		if (ret)
			return ret;
		b->nstreams++;
	}
	return 0;
}

static int read_v6(struct kt_reader *r, struct cur *c)
{
	uint32_t cpus;
	int i, ret;

	c->what = "header";
	ret = parse_header_info(c);
	if (ret)
		return ret;
	c->what = "ftrace formats";
	ret = parse_ftrace_formats(c);
	if (ret)
		return ret;
	c->what = "event formats";
	ret = parse_event_formats(c);
	if (ret)
		return ret;
	c->what = "kallsyms";
	ret = parse_kallsyms(c);
	if (ret)
		return ret;
	c->what = "printk formats";
	ret = parse_printk(c);
	if (ret)
		return ret;
	c->what = "saved command lines";
	ret = parse_cmdlines(c);
	if (ret)
		return ret;
	c->what = "CPU count";
	ret = cur_u32(c, &cpus, "the CPU count");
	if (ret)
		return ret;
	if (cpus > KT_DAT_MAX_CPUS)
		return bad(c, "%u CPUs is over the limit of %u", cpus,
			   KT_DAT_MAX_CPUS);
	r->cpus = (int)cpus;
	c->what = "options";
	ret = read_flyrecord_v6(r, c, 0);
	if (ret)
		return ret;
	for (i = 1; i < r->nbufs && !r->latency; i++) {
		struct cur bc = { .r = r, .pos = r->bufs[i].sec_off,
				  .end = r->fsize, .what = "instance buffer" };

		if (bc.pos >= r->fsize)
			return bad(&bc, "instance '%s' starts outside the file",
				   r->bufs[i].name);
		ret = read_flyrecord_v6(r, &bc, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* The part every version shares: magic, version, byte order, page size. */
static int read_file_start(struct kt_reader *r, struct cur *c)
{
	unsigned char magic[KT_DAT_MAGIC_LEN], b[2];
	char ver[16];
	uint32_t psize;
	char *end;
	long v;
	int ret;

	ret = cur_read(c, magic, sizeof(magic), "the trace.dat magic");
	if (ret || memcmp(magic, KT_DAT_MAGIC, KT_DAT_MAGIC_LEN)) {
		if (!ret)
			reader_err(r, "cannot read '%s': not a trace.dat file (at byte 0: expected the magic \"\\027\\010Dtracing\"); give a file made by 'ktrace record' or 'trace-cmd record'",
			       r->path);
		return -EBADMSG;
	}
	ret = cur_str(c, ver, sizeof(ver), "the file version");
	if (ret)
		return ret;
	v = strtol(ver, &end, 10);
	if (*end || end == ver || v < KT_DAT_VERSION_MIN || v > KT_DAT_VERSION_MAX) {
		c->pos = KT_DAT_MAGIC_LEN;
		return bad(c, "file version \"%s\" is not one ktrace reads (%d to %d)",
			   ver, KT_DAT_VERSION_MIN, KT_DAT_VERSION_MAX);
	}
	r->version = (int)v;
	ret = cur_read(c, b, 2, "the endianness and long size");
	if (ret)
		return ret;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8)) {
		c->pos -= 2;
		return bad(c, "expected endianness 0/1 and long size 4/8, found %u and %u",
			   b[0], b[1]);
	}
	r->big = b[0];
	r->swap = r->big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	r->long_size = b[1];
	tep_set_file_bigendian(r->tep, r->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, r->long_size);
	ret = cur_u32(c, &psize, "the page size");
	if (ret)
		return ret;
	if (psize < 64 || psize > KT_DAT_MAX_PAGE_SIZE || (psize & (psize - 1))) {
		c->pos -= 4;
		return bad(c, "page size %u is not a power of two from 64 to %u",
			   psize, KT_DAT_MAX_PAGE_SIZE);
	}
	r->page_size = psize;
	tep_set_page_size(r->tep, (int)psize);
	return 0;
}

static int read_file_header(struct kt_reader *r)
{
	struct cur c = { .r = r, .pos = 0, .end = r->fsize, .what = "file header" };
	int ret = read_file_start(r, &c);

	if (ret)
		return ret;
	return r->version >= 7 ? read_v7(r, &c) : read_v6(r, &c);
}

void kt_reader_set_window(struct kt_reader *r)
{
	size_t total = 0, w;
	int i;

	for (i = 0; i < r->nbufs; i++)
		total += (size_t)r->bufs[i].nstreams;
	w = total ? WINDOWS_BUDGET / total : WINDOW_MAX;
	if (w > WINDOW_MAX)
		w = WINDOW_MAX;
	w -= w % r->page_size;
	if (w < r->page_size)
		w = r->page_size;
	r->window = w;
}

/*
 * A reader of path with nothing read yet: the file open and a regular
 * one, a tep_handle.  NULL with *err set when that fails (logged).
 */
static struct kt_reader *reader_new(const char *path, bool quiet, int *err)
{
	struct kt_reader *r;
	struct stat st;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	r->quiet = quiet;
	r->in_usecs = true;
	r->fd = -1;
	r->path = strdup(path);
	r->bufs = calloc(1, sizeof(*r->bufs));
	r->nbufs = 1;
	if (!r->path || !r->bufs || !(r->bufs[0].name = strdup(""))) {
		ret = -ENOMEM;
		goto err;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		reader_err(r, "cannot open '%s': %s; give a trace.dat file with -i (ktrace record writes ktrace.dat)",
			   path, strerror(errno));
		goto err;
	}
	if (fstat(r->fd, &st) < 0) {
		ret = -errno;
		reader_err(r, "cannot stat '%s': %s", path, strerror(errno));
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		reader_err(r, "cannot read '%s': not a regular file; give a trace.dat file",
			   path);
		goto err;
	}
	r->fsize = (uint64_t)st.st_size;
	r->tep = tep_alloc();
	if (!r->tep) {
		ret = -ENOMEM;
		goto err;
	}
	/* libtraceevent's own chatter about odd formats is not ours to show. */
	tep_set_loglevel(TEP_LOG_NONE);
	return r;
err:
	kt_reader_close(r);
	*err = ret;
	return NULL;
}

static struct kt_reader *reader_open(const char *path, bool index_only)
{
	struct kt_reader *r;
	int ret;

	r = reader_new(path, false, &ret);
	if (!r)
		goto err;
	r->index_only = index_only;
	ret = read_file_header(r);
	if (ret)
		goto err;
	if (!r->clock)
		r->clock = strdup("");
	if (!r->clock) {
		ret = -ENOMEM;
		goto err;
	}
	tep_set_cpus(r->tep, r->cpus);
	kt_reader_set_window(r);
	return r;
err:
	if (ret == -ENOMEM)
		kt_err("cannot read '%s': out of memory", path);
	kt_reader_close(r);
	errno = -ret;
	return NULL;
}

struct kt_reader *kt_reader_open(const char *path)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return kt_reader_open_list(&path, 1);
	return reader_open(path, false);
}

struct kt_reader *kt_reader_open_index(const char *path)
{
	return reader_open(path, true);
}

/* A 4-byte size then its text, whole in the file; skipped, not loaded. */
static bool skip_text4(struct cur *c, uint64_t max)
{
	uint32_t size;

	if (cur_left(c) < 4 || cur_u32(c, &size, "a section size"))
		return false;
	if (size > max || size > cur_left(c))
		return false;
	c->pos += size;
	return true;
}

/*
 * A v7 file as ktrace record leaves it while recording: the header info,
 * ftrace and event formats sections (each must be whole and parse), then
 * kallsyms and printk, each kept only when whole and unpacking.
 */
static int head_v7(struct kt_reader *r, struct cur *c,
		   struct kt_reader_head *h)
{
	static const unsigned int ids[] = {
		KT_OPT_HEADER_INFO, KT_OPT_FTRACE_EVENTS, KT_OPT_EVENT_FORMATS,
		KT_OPT_KALLSYMS, KT_OPT_PRINTK,
	};
	static const section_fn fns[] = {
		parse_header_info, parse_ftrace_formats, parse_event_formats,
	};
	uint64_t off, size, *end[] = { NULL, NULL, &h->formats_end,
				       &h->kallsyms_end, &h->printk_end };
	unsigned char *mem;
	struct cur sc;
	size_t i;
	int ret;

	ret = read_v7_start(r, c, &off);
	if (ret)
		return ret;
	/* One of the three names read_v7_start() knows. */
	memcpy(h->compression, r->comp_name, strlen(r->comp_name) + 1);
	off = c->pos;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ret = open_section(r, off, ids[i], section_limit(ids[i]), &sc, &mem, false);
		if (!ret && i < 3)
			ret = fns[i](&sc);
		else if (!ret && !skip_text4(&sc, section_limit(ids[i]) - 4))
			ret = -EBADMSG;
		free(mem);
		if (ret)
			return i < 3 ? ret : 0;
		c->pos = off + 8;
		ret = cur_u64(c, &size, "a section size");
		if (ret)
			return i < 3 ? ret : 0;
		off += 16 + size;
		if (end[i])
			*end[i] = off;
	}
	return 0;
}

int kt_reader_head(const char *path, struct kt_reader_head *h)
{
	struct kt_reader *r;
	struct cur c;
	int ret;

	memset(h, 0, sizeof(*h));
	r = reader_new(path, true, &ret);
	if (!r)
		return ret;
	c = (struct cur){ .r = r, .end = r->fsize, .what = "file header" };
	ret = read_file_start(r, &c);
	if (ret)
		goto out;
	h->version = r->version;
	h->big_endian = r->big;
	h->long_size = r->long_size;
	h->page_size = r->page_size;
	if (r->version == 7) {
		ret = head_v7(r, &c, h);
		goto out;
	}
	if (r->version != 6) {
		ret = bad(&c, "version %d, not one the writer writes", r->version);
		goto out;
	}
	c.what = "header";
	h->info_start = c.pos;
	ret = parse_header_info(&c);
	if (ret)
		goto out;
	h->info_end = c.pos;
	c.what = "ftrace formats";
	ret = parse_ftrace_formats(&c);
	if (ret)
		goto out;
	h->ftrace_end = c.pos;
	c.what = "event formats";
	ret = parse_event_formats(&c);
	if (ret)
		goto out;
	h->formats_end = c.pos;
	/* A size of KT_DAT_SIZE_PENDING: kallsyms was still coming. */
	_Static_assert(KT_DAT_SIZE_PENDING > KT_DAT_MAX_KALLSYMS,
		       "a pending kallsyms size must be over the limit");
	if (skip_text4(&c, KT_DAT_MAX_KALLSYMS)) {
		h->kallsyms_end = c.pos;
		if (skip_text4(&c, KT_DAT_MAX_PRINTK))
			h->printk_end = c.pos;
	}
out:
	kt_reader_close(r);
	return ret;
}

/* The trace data's bytes in the file, over every buffer and CPU. */
static uint64_t data_bytes(const struct kt_reader *r)
{
	uint64_t bytes = 0;
	int b, i;

	for (b = 0; b < r->nbufs; b++)
		for (i = 0; i < r->bufs[b].nstreams; i++)
			bytes += r->bufs[b].streams[i].size;
	return bytes;
}

bool kt_reader_ahead_pays(const struct kt_reader *r)
{
	cpu_set_t set;
	double load;
	int ncpu;

	if (r->series || data_bytes(r) < KT_AHEAD_MIN_BYTES)
		return false;
	ncpu = sched_getaffinity(0, sizeof(set), &set) ? (int)sysconf(_SC_NPROCESSORS_ONLN) :
	       CPU_COUNT(&set);
	if (ncpu < 2)
		return false;
	return getloadavg(&load, 1) != 1 || ncpu - load > 1.5;
}

int kt_reader_read_ahead(struct kt_reader *r)
{
	if (r->ahead || r->series)
		return 0;
	r->ahead = kt_ahead_new();
	if (!r->ahead)
		return -errno;
	/* Two windows a stream now: the same memory budget for them all. */
	r->window /= 2;
	r->window -= r->window % r->page_size;
	if (r->window < r->page_size)
		r->window = r->page_size;
	r->ahead_now = true;
	return 0;
}

int kt_reader_try_read_ahead(struct kt_reader *r)
{
	int ret;

	if (r->ahead || r->series)
		return 0;
	ret = kt_reader_read_ahead(r);
	if (ret)
		return ret;
	kt_ahead_trial_start(&r->trial, data_bytes(r));
	r->ahead_trying = true;
	r->ahead_now = false;
	return 0;
}

bool kt_reader_ahead_tried(const struct kt_reader *r, bool *ahead, double cpu[2],
			   double wall[2])
{
	if (!r->ahead_trying || !kt_ahead_trial_decided(&r->trial, ahead))
		return false;
	cpu[0] = r->trial.cpu[0];
	cpu[1] = r->trial.cpu[1];
	wall[0] = r->trial.wall[0];
	wall[1] = r->trial.wall[1];
	return true;
}

void kt_reader_close(struct kt_reader *r)
{
	int i;

	if (!r)
		return;
	kt_ahead_free(r->ahead);
	kt_unpack_free(r->ahead_unpack);
	kt_series_free(r->series);
	for (i = 0; i < r->nbufs; i++) {
		free(r->bufs[i].name);
		free(r->bufs[i].streams);
	}
	free(r->bufs);
	for (i = 0; i < r->ncpustat; i++) {
		free(r->cpustat[i]);
		free(r->cpustat_buf[i]);
	}
	free(r->cpustat);
	free(r->cpustat_buf);
	free(r->stat_buf);
	kt_unpack_free(r->unpack);
	kt_lazyfmt_free(r->lazy);
	if (r->tep) {
		kt_plugins_free(r->plugins);
		tep_free(r->tep);
	}
	if (r->ksyms_tep)
		tep_free(r->ksyms_tep);
	kt_ksymtab_free(r->ksyms_tab);
	free(r->ksyms_cache);
	free(r->ksyms_mem ? (void *)r->ksyms_mem : r->ksyms);
	if (r->fd >= 0)
		close(r->fd);
	free(r->clock);
	free(r->uname);
	free(r->tool_version);
	free(r->user_maps.s);
	free(r->tgids.s);
	free(r->wall_clock);
	free(r->tsync);
	free(r->record_cmdline);
	free(r->trigger);
	free(r->path);
	free(r);
}

bool kt_reader_latency(const struct kt_reader *r) { return r->latency; }

ssize_t kt_reader_latency_read(struct kt_reader *r, uint64_t at, void *buf,
			       size_t n)
{
	ssize_t got;

	if (!r->latency || at >= r->fsize - r->lat_off)
		return 0;
	if (n > r->fsize - r->lat_off - at)
		n = (size_t)(r->fsize - r->lat_off - at);
	got = pread(r->fd, buf, n, (off_t)(r->lat_off + at));
	return got < 0 ? -errno : got;
}

const char *kt_reader_path(const struct kt_reader *r) { return r->path; }
struct tep_handle *kt_reader_tep(const struct kt_reader *r)
{
	kt_lazyfmt_all(r->lazy);
	return r->tep;
}

struct tep_handle *kt_reader_tep_lazy(const struct kt_reader *r) { return r->tep; }
int kt_reader_version(const struct kt_reader *r) { return r->version; }
unsigned int kt_reader_page_size(const struct kt_reader *r) { return r->page_size; }
int kt_reader_long_size(const struct kt_reader *r) { return r->long_size; }
bool kt_reader_big_endian(const struct kt_reader *r) { return r->big; }
int kt_reader_cpus(const struct kt_reader *r) { return r->cpus; }
const char *kt_reader_clock(const struct kt_reader *r) { return r->clock; }
bool kt_reader_in_usecs(const struct kt_reader *r) { return r->in_usecs; }
const char *kt_reader_uname(const struct kt_reader *r) { return r->uname; }

const char *kt_reader_machine(const struct kt_reader *r)
{
	const char *sp;

	if (!r->uname || !*r->uname)
		return NULL;
	/* "Linux host release x86_64": the machine is the last word. */
	sp = strrchr(r->uname, ' ');
	return sp ? sp + 1 : r->uname;
}
const char *kt_reader_tool_version(const struct kt_reader *r) { return r->tool_version; }
const char *kt_reader_user_maps(const struct kt_reader *r) { return r->user_maps.s; }
const char *kt_reader_tgids(const struct kt_reader *r) { return r->tgids.s; }
const char *kt_reader_wall_clock(const struct kt_reader *r) { return r->wall_clock; }
const char *kt_reader_tsync(const struct kt_reader *r) { return r->tsync; }
const char *kt_reader_record_cmdline(const struct kt_reader *r) { return r->record_cmdline; }
const char *kt_reader_trigger(const struct kt_reader *r) { return r->trigger; }
bool kt_reader_damaged(const struct kt_reader *r) { return r->damaged; }
void kt_reader_set_damaged(struct kt_reader *r) { r->damaged = true; }
int kt_reader_buffers(const struct kt_reader *r) { return r->nbufs; }

const char *kt_reader_compression(const struct kt_reader *r)
{
	return r->version >= 7 ? r->comp_name : "none";
}

unsigned long long kt_reader_ts(const struct kt_reader *r,
				unsigned long long ts)
{
	if (r->tsc_mult)
		ts = (unsigned long long)(((unsigned __int128)ts * r->tsc_mult) >>
					  r->tsc_shift);
	return ts + (unsigned long long)r->ts_offset;
}

void kt_reader_ts_scale(const struct kt_reader *r, uint32_t *mult,
			uint32_t *shift, long long *offset)
{
	*mult = r->tsc_mult;
	*shift = r->tsc_shift;
	*offset = r->ts_offset;
}

const char *kt_reader_cpustat(const struct kt_reader *r, int buf, int cpu)
{
	const char *name = kt_reader_buffer_name(r, buf);
	char head[32];
	int i, n = 0;

	if (!name)
		return NULL;
	snprintf(head, sizeof(head), "CPU: %d\n", cpu);
	for (i = 0; i < r->ncpustat; i++) {
		if (strcmp(r->cpustat_buf[i], name))
			continue;
		if (!strncmp(r->cpustat[i], head, strlen(head)))
			return r->cpustat[i];
		/* Old files store them in CPU order without a "CPU:" line. */
		if (n++ == cpu && strncmp(r->cpustat[i], "CPU:", 4))
			return r->cpustat[i];
	}
	return NULL;
}

const char *kt_reader_buffer_name(const struct kt_reader *r, int buf)
{
	return buf >= 0 && buf < r->nbufs ? r->bufs[buf].name : NULL;
}

int kt_reader_streams(const struct kt_reader *r, int buf)
{
	return buf >= 0 && buf < r->nbufs ? r->bufs[buf].nstreams : 0;
}

int kt_reader_stream_cpu(const struct kt_reader *r, int buf, int i)
{
	return r->bufs[buf].streams[i].cpu;
}

uint64_t kt_reader_stream_bytes(const struct kt_reader *r, int buf, int i)
{
	return r->bufs[buf].streams[i].size;
}
