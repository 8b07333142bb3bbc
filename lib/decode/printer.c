// SPDX-License-Identifier: GPL-2.0
/* The printer: records as trace-cmd's text lines, field=value text or JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "base/fileroom.h"
#include "decode/decoder.h"
#include "decode/fastfmt.h"
#include "decode/kstack.h"
#include "decode/printer.h"
#include "decode/symbols.h"
#include "decode/textline.h"
#include "decode/ustack.h"
#include "file/reader.h"

/* Hooks by event id: the kernel's 16-bit common_type. */
#define NR_IDS			65536

struct info_hook {
	kt_info_fn fn;
	kt_text_fn text;	/* fast_line()'s, or NULL */
	void *priv;
};

struct kt_printer {
	struct kt_reader *r;
	struct tep_handle *tep;
	enum kt_print_mode mode;
	unsigned int flags;
	FILE *out;
	struct trace_seq s;
	const char *tfmt;
	enum { TMODE_USECS, TMODE_NSECS, TMODE_RAW } tmode;
	int prec;			/* digits after the point */
	unsigned long long p10;		/* 10^prec */
	/* Instances: every line starts with the buffer name in a column. */
	int name_width;
	struct info_hook *hooks;	/* by event id, NULL when none */
	struct info_hook fallback;	/* for events without one */
	/* KT_PRINT_COMPILED: writes the info straight into the line. */
	struct kt_fastfmt *ff;
	/* Lines are built here, then written (at once or in blocks). */
	char *obuf;
	size_t ocap;
	/* Where the next byte goes, and obuf's end: pointers, as a line uses them. */
	char *ow, *oend;
	/* A file of the caller's own: disk room taken ahead of the blocks. */
	struct kt_fileroom room;
	/* File reports: the line start from caches; NULL: text_header(). */
	struct kt_textline *tl;
	struct bufcol *bufcols;		/* "name: " of each buffer */
	int nbufs;
	/* JSON: which names an event's numbers get, by event id. */
	unsigned char *sym;
	int nsym;
	struct kt_ustack *ustack;	/* user stacks by name, or NULL */
	/* Text: the events whose plugin text registers comms (note_comms()). */
	int comm_ids[3];
	int ncomm_ids;
	bool comms_ready;	/* the comm list looked up once (note_comms()) */
};

/* Buffer-name columns up to this long are copied as a whole block. */
#define BUFPRE_COPY	32

/* A buffer's name column: in the slot when it fits, no pointer to follow. */
struct bufcol {
	unsigned int len;
	char txt[BUFPRE_COPY];	/* len <= BUFPRE_COPY: the column, padded */
	char *ltxt;		/* longer: the column */
};
/* Room the fast path wants for one line before it starts it. */
#define LINE_ROOM	8192
/*
 * A file's text goes out in 1 MB writes: each write(2) to ext4 costs its
 * own journal handle and time update, and 324 MB of a stack file's text
 * took 7% less CPU in 1 MB writes than in 256 KB ones (BENCHMARKS.md).
 */
#define OBUF_SIZE	(1024u << 10)

/*
 * The line start from caches (lib/decode/textline.c), with each buffer's name
 * column ready: for files only, whose comms are only ever added to.
 * Without it (out of memory, absurd names) text_header() does the work.
 */
static void setup_textline(struct kt_printer *p)
{
	int b, n = kt_reader_buffers(p->r);

	if (p->mode == KT_PRINT_JSON || p->name_width > 512)
		return;
	p->bufcols = calloc((size_t)n, sizeof(*p->bufcols));
	if (!p->bufcols)
		return;
	p->nbufs = n;
	for (b = 0; p->name_width >= 0 && b < n; b++) {
		const char *name = kt_reader_buffer_name(p->r, b);
		struct bufcol *bc = &p->bufcols[b];
		size_t size = (size_t)p->name_width + 3;
		char *txt = calloc(1, size);

		if (!txt)
			return;
		bc->len = (unsigned int)snprintf(txt, size, *name ? "%*s: " : "%*s  ",
						 p->name_width, name);
		if (bc->len <= BUFPRE_COPY) {
			memcpy(bc->txt, txt, bc->len);
			free(txt);
		} else {
			bc->ltxt = txt;
		}
	}
	p->tl = kt_textline_new(p->tep, p->tmode == TMODE_USECS ? KT_TEXTLINE_USECS :
				p->tmode == TMODE_NSECS ? KT_TEXTLINE_NSECS :
				KT_TEXTLINE_RAW, p->flags & KT_PRINT_NO_NAME);
}

/* The events libtraceevent's sched plugin learns comms from (note_comms()). */
static const char *const comm_events[] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new",
};

struct kt_printer *kt_printer_new(struct kt_reader *r, enum kt_print_mode mode,
				  unsigned int flags, FILE *out)
{
	struct kt_printer *p;
	size_t i;
	int b;

	/*
	 * The formats parsed as their records come (lazyfmt.c) but those
	 * the printer looks for by name first (find_comm_events()), and one
	 * for the common fields (kt_textline_new()).
	 */
	for (i = 0; i < sizeof(comm_events) / sizeof(comm_events[0]); i++)
		kt_reader_event_named(r, "sched", comm_events[i]);
	kt_reader_events_some(r);
	p = kt_printer_new_tep(kt_reader_tep_lazy(r), kt_reader_in_usecs(r), mode,
			       flags, out);
	if (!p)
		return NULL;
	p->r = r;
	for (b = 1; b < kt_reader_buffers(r); b++) {
		int len = (int)strlen(kt_reader_buffer_name(r, b));

		if (len > p->name_width)
			p->name_width = len;
	}
	setup_textline(p);
	return p;
}

/* comm_events' ids in the file. */
static void find_comm_events(struct kt_printer *p)
{
	struct tep_event *e;
	size_t i;

	for (i = 0; i < sizeof(comm_events) / sizeof(comm_events[0]); i++) {
		e = tep_find_event_by_name(p->tep, "sched", comm_events[i]);
		if (e)
			p->comm_ids[p->ncomm_ids++] = e->id;
	}
}

struct kt_printer *kt_printer_new_tep(struct tep_handle *tep, bool in_usecs,
				      enum kt_print_mode mode,
				      unsigned int flags, FILE *out)
{
	struct kt_printer *p = calloc(1, sizeof(*p));
	int b;

	if (!p)
		return NULL;
	p->tep = tep;
	p->mode = mode;
	p->flags = flags;
	p->out = out;
	p->room.fd = -1;
	trace_seq_init(&p->s);
	if (flags & KT_PRINT_NSEC)
		tep_set_flag(p->tep, TEP_NSEC_OUTPUT);
	if (!in_usecs) {
		p->tfmt = "%12d:";
		p->tmode = TMODE_RAW;
		p->prec = 12;
	} else if (flags & KT_PRINT_NSEC) {
		p->tfmt = " %9.1d:";
		p->tmode = TMODE_NSECS;
		p->prec = 9;
	} else {
		p->tfmt = " %6.1000d:";
		p->tmode = TMODE_USECS;
		p->prec = 6;
	}
	p->p10 = 1;
	for (b = 0; b < p->prec; b++)
		p->p10 *= 10;
	p->name_width = -1;
	if (mode == KT_PRINT_TEXT)
		find_comm_events(p);
	p->ocap = flags & KT_PRINT_BATCH ? OBUF_SIZE : LINE_ROOM;
	p->obuf = malloc(p->ocap);
	p->ow = p->obuf;
	p->oend = p->obuf ? p->obuf + p->ocap : NULL;
	if (!p->obuf) {
		kt_printer_free(p);
		return NULL;
	}
	/* Without it (out of memory) libtraceevent prints every event. */
	if ((flags & KT_PRINT_COMPILED) && mode == KT_PRINT_TEXT &&
	    !getenv("KTRACE_NO_FASTFMT")) {
		p->ff = kt_fastfmt_new(tep);
		if (p->ff)
			kt_printer_set_info_default(p, kt_fastfmt_seq, p->ff);
	}
	return p;
}

void kt_printer_free(struct kt_printer *p)
{
	int i;

	if (!p)
		return;
	kt_printer_flush(p);
	kt_fastfmt_free(p->ff);
	trace_seq_destroy(&p->s);
	free(p->hooks);
	kt_textline_free(p->tl);
	for (i = 0; i < p->nbufs; i++)
		free(p->bufcols[i].ltxt);
	free(p->bufcols);
	free(p->obuf);
	free(p->sym);
	free(p);
}

void kt_printer_set_info(struct kt_printer *p, int event_id, kt_info_fn fn,
			 void *priv)
{
	if (event_id < 0 || event_id >= NR_IDS)
		return;
	if (!p->hooks) {
		p->hooks = calloc(NR_IDS, sizeof(*p->hooks));
		if (!p->hooks)
			return;
	}
	p->hooks[event_id].fn = fn;
	p->hooks[event_id].text = NULL;
	p->hooks[event_id].priv = priv;
}

void kt_printer_set_text(struct kt_printer *p, int event_id, kt_text_fn text,
			 kt_info_fn fn, void *priv)
{
	kt_printer_set_info(p, event_id, fn, priv);
	if (event_id >= 0 && event_id < NR_IDS && p->hooks)
		p->hooks[event_id].text = text;
}

void kt_printer_set_ustack(struct kt_printer *p, struct kt_ustack *u)
{
	p->ustack = u;
}

void kt_printer_set_info_default(struct kt_printer *p, kt_info_fn fn,
				 void *priv)
{
	p->fallback.fn = fn;
	p->fallback.priv = priv;
}

static void text_prefix(struct kt_printer *p, const struct kt_event *ev)
{
	const char *name;

	if (p->name_width < 0)
		return;
	name = kt_reader_buffer_name(p->r, ev->buffer);
	if (*name)
		trace_seq_printf(&p->s, "%*s: ", p->name_width, name);
	else
		trace_seq_printf(&p->s, "%*s  ", p->name_width, "");
}

/* Decimal digits of v at the end of buf[0..len); returns the start. */
static char *utoa_back(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* Append v zero-padded to width digits (more when it needs them). */
static char *put_zpad(char *p, unsigned long long v, int width)
{
	char tmp[24], *b = utoa_back(tmp + sizeof(tmp), v);
	int n = (int)(tmp + sizeof(tmp) - b);

	for (; n < width; width--)
		*p++ = '0';
	memcpy(p, b, (size_t)n);
	return p + n;
}

/*
 * "%16s-%-5d [%03d] %5llu.%06llu: name: " + padding, as trace-cmd asks
 * tep_print_event() for it (the time as libtraceevent's print_event_time
 * renders " %6.1000d", " %9.1d" and "%12d"), without its per-call format
 * parsing: this header is most of the text of most lines.
 */
static void text_header(struct kt_printer *p, const struct kt_event *ev)
{
	static const char spaces[] = "                    ";
	struct tep_record *rec = ev->record;
	const char *comm, *name = ev->event->name;
	size_t clen, nlen = strlen(name);
	char buf[192], *b = buf, tmp[24], *d;
	unsigned long long t;
	int pid = tep_data_pid(p->tep, rec);
	int n, w;

	comm = tep_data_comm_from_pid(p->tep, pid);
	clen = strlen(comm);
	if (clen + nlen > 100 || pid < 0 || ev->cpu < 0) {
		/* Rare shapes: let libtraceevent lay them out. */
		tep_print_event(p->tep, &p->s, rec, "%16s-%-5d [%03d]",
				TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
		tep_print_event(p->tep, &p->s, rec, p->tfmt, TEP_PRINT_TIME);
		if (p->flags & KT_PRINT_NO_NAME) {
			trace_seq_putc(&p->s, ' ');
			return;
		}
		trace_seq_printf(&p->s, " %s: ", name);
		if (nlen < 20)
			trace_seq_printf(&p->s, "%.*s", (int)(20 - nlen), spaces);
		return;
	}
	if (clen < 16) {
		memset(b, ' ', 16 - clen);
		b += 16 - clen;
	}
	memcpy(b, comm, clen);
	b += clen;
	*b++ = '-';
	d = utoa_back(tmp + sizeof(tmp), (unsigned long long)pid);
	n = (int)(tmp + sizeof(tmp) - d);
	memcpy(b, d, (size_t)n);
	b += n;
	for (; n < 5; n++)
		*b++ = ' ';
	*b++ = ' ';
	*b++ = '[';
	b = put_zpad(b, (unsigned long long)ev->cpu, 3);
	*b++ = ']';
	/*
	 * As print_event_time(): round to the divisor, "%5llu.%0*llu"; a
	 * clock that counts ("%12d", no divisor) is "%12llu".
	 */
	t = p->tmode == TMODE_USECS ? (rec->ts + 500) / 1000 : rec->ts;
	if (p->tmode != TMODE_RAW)
		*b++ = ' ';
	d = utoa_back(tmp + sizeof(tmp), p->tmode == TMODE_RAW ? t : t / p->p10);
	n = (int)(tmp + sizeof(tmp) - d);
	w = p->tmode == TMODE_RAW ? 12 : 5;
	if (n < w) {
		memset(b, ' ', (size_t)(w - n));
		b += w - n;
	}
	memcpy(b, d, (size_t)n);
	b += n;
	if (p->tmode != TMODE_RAW) {
		*b++ = '.';
		b = put_zpad(b, t % p->p10, p->prec);
	}
	*b++ = ':';
	*b++ = ' ';
	if (!(p->flags & KT_PRINT_NO_NAME)) {
		memcpy(b, name, nlen);
		b += nlen;
		*b++ = ':';
		*b++ = ' ';
		if (nlen < 20) {
			memcpy(b, spaces, 20 - nlen);
			b += 20 - nlen;
		}
	}
	*b = '\0';
	trace_seq_puts(&p->s, buf);
}

static void text_line(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	struct info_hook *hook;

	text_header(p, ev);
	hook = p->hooks && p->hooks[ev->event->id].fn ? &p->hooks[ev->event->id] :
	       p->fallback.fn ? &p->fallback : NULL;
	if (p->mode == KT_PRINT_RAW) {
		tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO_RAW);
	} else if (hook) {
		unsigned int mark = s->len;

		if (hook->fn(s, ev->event, rec, hook->priv) < 0) {
			s->len = mark;
			tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
		}
	} else {
		tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
	}
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
}

/*
 * The keys a JSON line gives the task and the record itself.  An event
 * field of the same name (task_newtask's pid and comm, sched_wakeup's
 * pid) is written as field_NAME: a second "pid" would be a duplicate
 * key, and jq would silently take the field for the task.
 */
static bool json_key_taken(const char *name)
{
	static const char *const keys[] = {
		"cpu", "ts", "pid", "comm", "event", "system", "buffer", "lost",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(name, keys[i]))
			return true;
	return false;
}

/*
 * trailing: f ends an ftrace event's record (kernel_stack's caller[8]),
 * an array as long as the record, not as declared (see decoder.c).
 */
static void json_field(struct kt_printer *p, struct tep_format_field *f,
		       struct tep_record *rec, bool trailing)
{
	struct trace_seq *s = &p->s;
	unsigned char *data = rec->data;
	unsigned int off = (unsigned int)f->offset, len = (unsigned int)f->size;
	unsigned int i, es;
	bool is_char;

	trace_seq_printf(s, ",\"%s%s\":",
			 json_key_taken(f->name) ? "field_" : "", f->name);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long v;

		if (off + len > (unsigned int)rec->size) {
			trace_seq_puts(s, "null");
			return;
		}
		v = tep_read_number(p->tep, data + off, len);
		off = (unsigned int)(v & 0xffff);
		len = (unsigned int)(v >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned int)(f->offset + f->size);
	}
	/* A trailing "char buf[]" (ftrace:print) runs to the record's end. */
	if (!len && (f->flags & TEP_FIELD_IS_ARRAY) && off <= (unsigned int)rec->size)
		len = (unsigned int)rec->size - off;
	/* ... and kernel_stack's caller[8] holds the frames there are, 3 or 30. */
	if (trailing && (f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
	    off <= (unsigned int)rec->size)
		len = (unsigned int)rec->size - off;
	if (off > (unsigned int)rec->size || len > (unsigned int)rec->size - off) {
		trace_seq_puts(s, "null");
		return;
	}
	is_char = f->type && strstr(f->type, "char") &&
		  (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC));
	/* Byte arrays (__u8 saddr[4]) are arrays; only char text is a string. */
	if (is_char) {
		trace_seq_putc(s, '"');
		for (i = 0; i < len && data[off + i]; i++) {
			unsigned char c = data[off + i];

			if (c == '"' || c == '\\')
				trace_seq_printf(s, "\\%c", c);
			else if (c < 0x20 || c >= 0x7f)
				trace_seq_printf(s, "\\u%04x", c);
			else
				trace_seq_putc(s, (char)c);
		}
		trace_seq_putc(s, '"');
		return;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		es = f->elementsize;
		if (!es || es > 8 || (es & (es - 1)))
			es = 1;
		trace_seq_putc(s, '[');
		for (i = 0; i + es <= len; i += es) {
			unsigned long long v = tep_read_number(p->tep, data + off + i, es);

			trace_seq_printf(s, i ? ",%llu" : "%llu", v);
		}
		trace_seq_putc(s, ']');
		return;
	}
	if (len == 0 || len > 8 || (len & (len - 1))) {
		trace_seq_puts(s, "null");
		return;
	}
	{
		unsigned long long v = tep_read_number(p->tep, data + off, len);

		if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv;

			switch (len) {
			case 1: sv = (int8_t)v; break;
			case 2: sv = (int16_t)v; break;
			case 4: sv = (int32_t)v; break;
			default: sv = (long long)v; break;
			}
			trace_seq_printf(s, "%lld", sv);
		} else {
			trace_seq_printf(s, "%llu", v);
		}
	}
}

static void json_str(struct trace_seq *s, const char *str)
{
	const unsigned char *c = (const unsigned char *)str;

	trace_seq_putc(s, '"');
	for (; *c; c++) {
		if (*c == '"' || *c == '\\')
			trace_seq_printf(s, "\\%c", *c);
		else if (*c < 0x20)
			trace_seq_printf(s, "\\u%04x", *c);
		else
			trace_seq_putc(s, (char)*c);
	}
	trace_seq_putc(s, '"');
}

/*
 * The names JSON adds beside an event's numbers (decode/symbols.h's
 * rule: the raw key stays, the name gets a key of its own):
 *   raw_syscalls:sys_enter/exit id, syscalls:* __syscall_nr -> "syscall"
 *   a system call exit's negative ret                       -> "errno"
 *   irq:softirq_entry/exit/raise vec                        -> "vec_name"
 *   sched:sched_switch prev_state                           -> "prev_state_name"
 *   ftrace:kernel_stack caller[] (addresses)                -> "caller_names"
 *   ftrace:user_stack caller[], with the file's maps         -> "caller_names",
 *                                                              "caller_files"
 *   ftrace:function ip, parent_ip                   -> "ip_name", "parent_ip_name"
 *   ftrace:funcgraph_entry/exit func                        -> "func_name"
 * and a function_graph call's time, rettime - calltime of its exit, as
 * "duration" (ns), beside the depth both records have.
 */
enum sym_kind { SYM_UNSEEN, SYM_NONE, SYM_SYS_ENTER, SYM_SYS_EXIT, SYM_SOFTIRQ, SYM_SWITCH,
		SYM_KSTACK, SYM_USTACK, SYM_FUNCTION, SYM_FGRAPH_ENTRY, SYM_FGRAPH_EXIT };

static enum sym_kind sym_kind_of(const struct tep_event *e)
{
	if (!strcmp(e->system, "raw_syscalls"))
		return !strcmp(e->name, "sys_enter") ? SYM_SYS_ENTER :
		       !strcmp(e->name, "sys_exit") ? SYM_SYS_EXIT : SYM_NONE;
	if (!strcmp(e->system, "syscalls"))
		return !strncmp(e->name, "sys_enter_", 10) ? SYM_SYS_ENTER :
		       !strncmp(e->name, "sys_exit_", 9) ? SYM_SYS_EXIT : SYM_NONE;
	if (!strcmp(e->system, "irq") && !strncmp(e->name, "softirq_", 8))
		return SYM_SOFTIRQ;
	if (!strcmp(e->system, "sched") && !strcmp(e->name, "sched_switch"))
		return SYM_SWITCH;
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "kernel_stack"))
		return SYM_KSTACK;
	if (kt_ustack_is_event(e))
		return SYM_USTACK;
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "function"))
		return SYM_FUNCTION;
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "funcgraph_entry"))
		return SYM_FGRAPH_ENTRY;
	if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "funcgraph_exit"))
		return SYM_FGRAPH_EXIT;
	return SYM_NONE;
}

/* A number field of the record, sign-extended; false when it has none. */
static bool sym_num(struct kt_printer *p, struct tep_event *e,
		    struct tep_record *rec, const char *name, long long *v)
{
	struct tep_format_field *f = tep_find_field(e, name);
	unsigned long long u;

	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
	    f->size <= 0 || f->size > 8 || f->offset < 0 ||
	    f->offset + f->size > rec->size)
		return false;
	u = tep_read_number(p->tep, (char *)rec->data + f->offset, f->size);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 &&
	    (u >> (f->size * 8 - 1)) & 1)
		u |= ~0ULL << (f->size * 8);
	*v = (long long)u;
	return true;
}

/*
 * A kernel stack's frames by name, one for each caller[] entry the
 * record holds (as json_field() gives them): the function from the
 * file's kallsyms, as the text line names it, or null.
 */
static void json_stack_names(struct kt_printer *p, struct tep_event *e,
			     struct tep_record *rec)
{
	unsigned long long v[KT_KSTACK_MAX];
	struct trace_seq *s = &p->s;
	const char *name;
	int i, n;

	n = kt_kstack_read(p->tep, e, rec, v, KT_KSTACK_MAX, false);
	if (n < 0)
		return;
	trace_seq_puts(s, ",\"caller_names\":[");
	for (i = 0; i < n; i++) {
		name = tep_find_function(p->tep, v[i]);
		if (i)
			trace_seq_putc(s, ',');
		if (name)
			json_str(s, name);
		else
			trace_seq_puts(s, "null");
	}
	trace_seq_putc(s, ']');
}

/*
 * A user stack's frames by name (decode/ustack.h): the function or
 * null, and "PATH+0xOFF" or null, one for each caller[] entry.
 */
static void json_ustack_names(struct kt_printer *p, struct tep_event *e,
			      struct tep_record *rec)
{
	struct kt_uframe f[KT_USTACK_MAX];
	struct trace_seq *s = &p->s;
	char buf[4200];
	int i, n;

	n = kt_ustack_frames(p->ustack, e, rec, f, KT_USTACK_MAX);
	if (n <= 0)
		return;
	trace_seq_puts(s, ",\"caller_names\":[");
	for (i = 0; i < n; i++) {
		if (i)
			trace_seq_putc(s, ',');
		if (f[i].sym)
			json_str(s, f[i].sym);
		else
			trace_seq_puts(s, "null");
	}
	trace_seq_puts(s, "],\"caller_files\":[");
	for (i = 0; i < n; i++) {
		if (i)
			trace_seq_putc(s, ',');
		if (f[i].path) {
			snprintf(buf, sizeof(buf), "%s+0x%llx", f[i].path,
				 (unsigned long long)f[i].off);
			json_str(s, buf);
		} else {
			trace_seq_puts(s, "null");
		}
	}
	trace_seq_putc(s, ']');
}

/* ",\"key\":name" for the kernel address in field, when kallsyms names it. */
static void json_func_name(struct kt_printer *p, struct tep_event *e,
			   struct tep_record *rec, const char *field,
			   const char *key)
{
	const char *name;
	long long v;

	if (!sym_num(p, e, rec, field, &v))
		return;
	name = tep_find_function(p->tep, (unsigned long long)v);
	if (!name)
		return;
	trace_seq_printf(&p->s, ",\"%s\":", key);
	json_str(&p->s, name);
}

static void json_symbols(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_event *e = ev->event;
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	const char *name;
	long long v;
	char buf[32];
	int nargs;

	if (e->id < 0 || e->id > 65535)
		return;
	if (e->id >= p->nsym) {
		int n = e->id + 1 > 2 * p->nsym ? e->id + 1 : 2 * p->nsym;
		unsigned char *k = realloc(p->sym, (size_t)n);

		if (!k)
			return;
		memset(k + p->nsym, SYM_UNSEEN, (size_t)(n - p->nsym));
		p->sym = k;
		p->nsym = n;
	}
	if (p->sym[e->id] == SYM_UNSEEN)
		p->sym[e->id] = sym_kind_of(e);
	switch (p->sym[e->id]) {
	case SYM_SYS_ENTER:
	case SYM_SYS_EXIT:
		if ((sym_num(p, e, rec, "id", &v) || sym_num(p, e, rec, "__syscall_nr", &v)) &&
		    (name = kt_syscall_name(p->r ? kt_reader_machine(p->r) : NULL, (long)v, &nargs))) {
			trace_seq_puts(s, ",\"syscall\":");
			json_str(s, name);
		}
		if (p->sym[e->id] == SYM_SYS_EXIT && sym_num(p, e, rec, "ret", &v) &&
		    v < 0 && (name = kt_errno_name(-v))) {
			trace_seq_puts(s, ",\"errno\":");
			json_str(s, name);
		}
		break;
	case SYM_SOFTIRQ:
		if (sym_num(p, e, rec, "vec", &v) && (name = kt_softirq_name((unsigned long long)v))) {
			trace_seq_puts(s, ",\"vec_name\":");
			json_str(s, name);
		}
		break;
	case SYM_SWITCH:
		if (sym_num(p, e, rec, "prev_state", &v)) {
			trace_seq_puts(s, ",\"prev_state_name\":");
			json_str(s, kt_task_state_name((unsigned long long)v, buf, sizeof(buf)));
		}
		break;
	case SYM_KSTACK:
		json_stack_names(p, e, rec);
		break;
	case SYM_USTACK:
		if (p->ustack)
			json_ustack_names(p, e, rec);
		break;
	case SYM_FUNCTION:
		json_func_name(p, e, rec, "ip", "ip_name");
		json_func_name(p, e, rec, "parent_ip", "parent_ip_name");
		break;
	case SYM_FGRAPH_EXIT: {
		long long call, ret;

		if (sym_num(p, e, rec, "calltime", &call) &&
		    sym_num(p, e, rec, "rettime", &ret))
			trace_seq_printf(s, ",\"duration\":%llu",
					 /* a damaged file's overflow wraps */
					 (unsigned long long)ret - (unsigned long long)call);
	}
		/* fall through */
	case SYM_FGRAPH_ENTRY:
		json_func_name(p, e, rec, "func", "func_name");
		break;
	default:
		break;
	}
}

static void json_line(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	struct tep_format_field *f;
	int pid = tep_data_pid(p->tep, rec);
	const char *comm = tep_data_comm_from_pid(p->tep, pid);

	trace_seq_printf(s, "{\"cpu\":%d,\"ts\":%llu,\"pid\":%d,\"comm\":",
			 ev->cpu, rec->ts, pid);
	json_str(s, comm ? comm : "<...>");
	trace_seq_puts(s, ",\"event\":");
	json_str(s, ev->event->name);
	trace_seq_puts(s, ",\"system\":");
	json_str(s, ev->event->system);
	if (ev->buffer) {
		trace_seq_puts(s, ",\"buffer\":");
		json_str(s, kt_reader_buffer_name(p->r, ev->buffer));
	}
	for (f = ev->event->format.fields; f; f = f->next)
		json_field(p, f, rec, !f->next && !strcmp(ev->event->system, "ftrace"));
	json_symbols(p, ev);
	trace_seq_putc(s, '}');
}

int kt_printer_flush(struct kt_printer *p)
{
	size_t n = (size_t)(p->ow - p->obuf);

	if (!n)
		return 0;
	p->ow = p->obuf;
	errno = 0;
	if (!(p->flags & KT_PRINT_BATCH)) {
		if (fwrite(p->obuf, 1, n, p->out) != n)
			return errno ? -errno : -EIO;
		return 0;
	}
	/*
	 * A block: straight to the file, after whatever the FILE holds,
	 * not copied into its buffer first (a report is mostly this).
	 */
	if (fflush(p->out))
		return errno ? -errno : -EIO;
	kt_fileroom_ahead(&p->room, n);
	for (size_t done = 0; done < n;) {
		ssize_t k = write(fileno(p->out), p->obuf + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		done += (size_t)k;
	}
	return 0;
}

void kt_printer_own_file(struct kt_printer *p)
{
	kt_fileroom_init(&p->room, fileno(p->out));
}

/* Append len bytes to the output. */
static int out_put(struct kt_printer *p, const char *buf, size_t len)
{
	int ret;

	if (len > (size_t)(p->oend - p->ow)) {
		ret = kt_printer_flush(p);
		if (ret)
			return ret;
		if (len > p->ocap) {
			errno = 0;
			if (fwrite(buf, 1, len, p->out) != len)
				return errno ? -errno : -EIO;
			return 0;
		}
	}
	memcpy(p->ow, buf, len);
	p->ow += len;
	return 0;
}

static int flush_seq(struct kt_printer *p)
{
	struct trace_seq *s = &p->s;
	int ret;

	if (s->state != TRACE_SEQ__GOOD) {
		trace_seq_reset(s);
		return -ENOMEM;
	}
	trace_seq_putc(s, '\n');
	ret = s->state == TRACE_SEQ__GOOD ? out_put(p, s->buffer, s->len) : -ENOMEM;
	trace_seq_reset(s);
	return ret;
}

/*
 * fast_line()'s info where the compiled formatter has none, as
 * text_line(): a hook, else libtraceevent; copied to e.  Returns its
 * length, or -1 when it does not fit (the general path then).  Apart,
 * so that the common line's frame stays small.
 */
static __attribute__((noinline)) int seq_info(struct kt_printer *p,
					      const struct kt_event *ev,
					      struct info_hook *hook, char *e,
					      size_t cap)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	int n;

	if (!hook && p->mode == KT_PRINT_TEXT && p->fallback.fn)
		hook = &p->fallback;
	trace_seq_reset(s);
	if (p->mode == KT_PRINT_RAW) {
		tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO_RAW);
	} else if (!hook || hook->fn(s, ev->event, rec, hook->priv) < 0) {
		trace_seq_reset(s);
		tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
	}
	if (s->state != TRACE_SEQ__GOOD || s->len > cap) {
		trace_seq_reset(s);
		return -1;
	}
	memcpy(e, s->buffer, s->len);
	n = (int)s->len;
	trace_seq_reset(s);
	return n;
}

/*
 * A text line built in place in the output buffer: the start from
 * lib/decode/textline.c, the info from the compiled formatter (or, for what
 * it does not compile, libtraceevent's text copied in).  Returns 0, 1 when the line
 * takes the general path instead (nothing was written), or -errno.
 */
static int fast_line(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct info_hook *hook = NULL;
	char *start, *e;
	size_t cap;
	int n, ret;

	if (p->oend - p->ow < LINE_ROOM) {
		ret = kt_printer_flush(p);
		if (ret)
			return ret;
	}
	start = p->ow;
	e = start;
	if (p->name_width >= 0) {
		const struct bufcol *bc;

		/* unsigned: a negative buffer is past nbufs too */
		if ((unsigned int)ev->buffer >= (unsigned int)p->nbufs)
			return 1;
		bc = &p->bufcols[ev->buffer];
		/* a constant size, copied inline */
		if (bc->len <= BUFPRE_COPY)
			memcpy(e, bc->txt, BUFPRE_COPY);
		else
			memcpy(e, bc->ltxt, bc->len);
		e += bc->len;
	}
	e = kt_textline_header(p->tl, e, ev->event, rec, ev->cpu);
	if (!e)
		return 1;
	cap = (size_t)(p->oend - e) - 1;
	if (p->hooks && p->hooks[ev->event->id].fn)
		hook = &p->hooks[ev->event->id];
	n = -ENOTSUP;
	/* p->ff is made for text mode only (kt_printer_new_tep()). */
	if (!hook && p->ff)
		n = kt_fastfmt_info(p->ff, ev->event, rec->data, rec->size, e, cap);
	else if (p->mode == KT_PRINT_TEXT && hook && hook->text)
		n = hook->text(e, cap, ev->event, rec, hook->priv);
	if (n == -ENOSPC)
		return 1;
	if (n < 0) {
		n = seq_info(p, ev, hook, e, cap);
		if (n < 0)
			return 1;
	}
	e += n;
	if (n && e[-1] == '\n')
		e--;
	*e++ = '\n';
	p->ow = e;
	return 0;
}

/*
 * trace-cmd formats every record, and the sched plugin's text of a switch
 * or a wakeup registers the comms it names: a later line's "comm-pid" can
 * show a name learnt only that way (a task whose switch-in was dropped,
 * named by its wakeup).  A record that -e, -F, --pid or --comm leave out
 * must teach its comms all the same, or the selected lines after it say
 * "<...>" where trace-cmd's filtered text names the task.
 */
static void note_comms(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq scratch;
	char info[512];
	int i;

	for (i = 0; i < p->ncomm_ids; i++)
		if (ev->event->id == p->comm_ids[i])
			break;
	if (i == p->ncomm_ids)
		return;
	/*
	 * libtraceevent turns the file's comm list into its sorted array at
	 * the first lookup, and only then does registering leave a known
	 * pid's name alone: look one up before the first registration, as
	 * a printed line's header would have.
	 */
	if (!p->comms_ready) {
		tep_data_comm_from_pid(p->tep, 1);	/* pid 0 is "<idle>", no lookup */
		p->comms_ready = true;
	}
	if (p->ff && kt_fastfmt_info(p->ff, ev->event, rec->data, rec->size,
				     info, sizeof(info)) >= 0)
		return;
	trace_seq_init(&scratch);
	tep_print_event(p->tep, &scratch, rec, "%s", TEP_PRINT_INFO);
	trace_seq_destroy(&scratch);
}

/* print_event() past the fast line: JSON, lost-events marks, the rest. */
static __attribute__((noinline)) int print_general(struct kt_printer *p,
						   const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	struct trace_seq *s = &p->s;
	int ret;

	if (p->mode == KT_PRINT_JSON) {
		if (rec->missed_events) {
			trace_seq_printf(s, "{\"cpu\":%d,\"ts\":%llu,\"lost\":",
					 ev->cpu, rec->ts);
			if (rec->missed_events > 0)
				trace_seq_printf(s, "%lld}", rec->missed_events);
			else
				trace_seq_puts(s, "null}");
			if (ev->buffer) {
				s->len--;
				trace_seq_puts(s, ",\"buffer\":");
				json_str(s, kt_reader_buffer_name(p->r, ev->buffer));
				trace_seq_putc(s, '}');
			}
			ret = flush_seq(p);
			if (ret)
				return ret;
		}
		if (!ev->selected)
			return 0;
		json_line(p, ev);
		return flush_seq(p);
	}
	text_prefix(p, ev);
	if (rec->missed_events > 0)
		trace_seq_printf(s, "CPU:%d [%lld EVENTS DROPPED]\n", ev->cpu,
				 rec->missed_events);
	else if (rec->missed_events < 0)
		trace_seq_printf(s, "CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	if (!ev->selected) {
		/* The mark alone: drop the newline flush_seq() adds back. */
		if (s->len)
			s->len--;
		return flush_seq(p);
	}
	text_line(p, ev);
	return flush_seq(p);
}

static int print_event(struct kt_printer *p, const struct kt_event *ev)
{
	struct tep_record *rec = ev->record;
	int ret;

	/*
	 * The common record first, in one test: selected, and no
	 * lost-events mark (a line after one has no buffer column: the
	 * general path).  p->tl is made for text lines only (setup_textline()).
	 */
	if (ev->selected && !rec->missed_events && p->tl) {
		ret = fast_line(p, ev);
		if (ret <= 0)
			return ret;
		return print_general(p, ev);
	}
	if (!ev->selected && p->ncomm_ids)
		note_comms(p, ev);
	if (!rec->missed_events && !ev->selected)
		return 0;
	return print_general(p, ev);
}

int kt_printer_print(struct kt_printer *p, const struct kt_event *ev)
{
	int ret = print_event(p, ev);

	if (!(p->flags & KT_PRINT_BATCH)) {
		int fret = kt_printer_flush(p);

		if (!ret)
			ret = fret;
	}
	return ret;
}
