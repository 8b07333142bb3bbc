// SPDX-License-Identifier: GPL-2.0
/* A compiled program run over one record: kt_fastfmt_info(), the hot path. */
#include <endian.h>
#include <errno.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode/fastfmt-int.h"

/*
 * A __data_loc field: offset and length of its data, as libtraceevent
 * computes them (including its handling of offsets beyond the record).
 */
static void dyn_get(const struct run *r, const struct ff_dyn *f,
		    unsigned int *offset, unsigned int *len)
{
	uint64_t v;
	unsigned int o, l;

	if (f->off + f->size > r->size) {
		*offset = 0;
		*len = 0;
		return;
	}
	v = load(r->data + f->off, f->size);
	o = (unsigned int)(v & 0xffff);
	if (f->size == 2)
		l = (unsigned int)r->size - o;
	else
		l = (unsigned int)((v >> 16) & 0xffff);
	*offset = o > (unsigned int)r->size ? 0 : o;
	*len = o + l > (unsigned int)r->size ? 0 : l;
	if (f->rel)
		*offset += (unsigned int)(f->off + f->size);
}

static uint64_t eval(struct run *r, const struct ff_expr *e);

/* eval() with the common case, a field load or a constant, inline. */
static inline uint64_t value(struct run *r, const struct ff_expr *e)
{
	if (e->kind == EX_LOAD) {
		if (e->off + e->size > r->size)
			return 0;
		return load(r->data + e->off, e->size);
	}
	if (e->kind == EX_CONST)
		return e->val;
	return eval(r, e);
}

static uint64_t eval(struct run *r, const struct ff_expr *e)
{
	uint64_t a, b;
	unsigned int off, len;

	switch (e->kind) {
	case EX_CONST:
		return e->val;
	case EX_LOAD:
		if (e->off + e->size > r->size)
			return 0;
		return load(r->data + e->off, e->size);
	case EX_MASK:
		return value(r, e->a) & e->val;
	case EX_COND:
		return value(r, e->a) ? value(r, e->b) : value(r, e->c);
	case EX_DYNLEN:
		dyn_get(r, &e->f, &off, &len);
		return len;
	case EX_DYNADDR:
		dyn_get(r, &e->f, &off, &len);
		if (off > (unsigned int)r->size)
			return (uint64_t)(uintptr_t)r->data;
		return (uint64_t)(uintptr_t)(r->data + off);
	case EX_INDEX: {
		uint64_t idx = value(r, e->b), o;

		if (e->dyn) {
			dyn_get(r, &e->f, &off, &len);
			o = (uint64_t)off + idx;
		} else {
			o = (uint64_t)e->off + idx * e->size;
		}
		o &= 0xffffffffu;	/* libtraceevent's unsigned int */
		if (o + e->size > (uint64_t)r->size)
			return 0;
		return load(r->data + o, e->size) & e->val;
	}
	case EX_LOADK:
		a = e->off + e->size > r->size ? 0 : load(r->data + e->off, e->size);
		if (!e->val && (e->op == OP_DIV || e->op == OP_MOD))
			break;
		return fold(e->op, a, e->val) & e->mask;
	case EX_BIN:
		a = value(r, e->a);
		b = value(r, e->b);
		if (!b && (e->op == OP_DIV || e->op == OP_MOD))
			break;
		return fold(e->op, a, b);
	}
	/* a division by 0: libtraceevent would die of SIGFPE; let the caller decide */
	r->err = -ENOTSUP;
	return 0;
}

/* Integer conversion with glibc's semantics for - 0 # width precision. */
static void emit_int(struct run *r, const struct ff_spec *sp, uint64_t v,
		     int star)
{
	char tmp[72];
	char *end = tmp + sizeof(tmp), *s;
	const char *pre = "";
	size_t prelen = 0, nd, total;
	int width = sp->width, prec = sp->prec;
	bool neg = false;

	if (sp->star == STAR_WIDTH)
		width = star;
	else if (sp->star == STAR_PREC)
		prec = star;

	switch (sp->bits) {
	case 8:
		v = sp->conv == 'd' || sp->conv == 'i' ?
			(uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
		break;
	case 16:
		v = sp->conv == 'd' || sp->conv == 'i' ?
			(uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
		break;
	case 32:
		v = sp->conv == 'd' || sp->conv == 'i' ?
			(uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
		break;
	}

	switch (sp->conv) {
	case 'd':
	case 'i':
		if ((int64_t)v < 0) {
			neg = true;
			v = -v;
		}
		s = v || prec ? udec_rev(end, v) : end;
		break;
	case 'u':
		s = v || prec ? udec_rev(end, v) : end;
		break;
	case 'x':
	case 'X':
		s = v || prec ? hex_rev(end, v, sp->conv == 'x' ? hexlow : hexup) : end;
		if (sp->hash && v) {
			pre = sp->conv == 'x' ? "0x" : "0X";
			prelen = 2;
		}
		break;
	default: /* 'o' */
		s = v || prec ? oct_rev(end, v) : end;
		break;
	}
	nd = (size_t)(end - s);
	if (prec > 0 && (size_t)prec > nd) {
		if (prec > 64) {	/* not worth a fast path */
			r->err = -ENOTSUP;
			return;
		}
		while ((size_t)prec > nd) {
			*--s = '0';
			nd++;
		}
	}
	if (sp->conv == 'o' && sp->hash && (nd == 0 || *s != '0')) {
		*--s = '0';
		nd++;
	}
	if (neg) {
		pre = "-";
		prelen = 1;
	}
	total = prelen + nd;
	if (width < 0 || (size_t)width <= total) {
		if (!room(r, total))
			return;
		memcpy(r->p, pre, prelen);
		memcpy(r->p + prelen, s, nd);
		r->p += total;
		return;
	}
	if (!room(r, (size_t)width))
		return;
	if (sp->minus) {
		memcpy(r->p, pre, prelen);
		memcpy(r->p + prelen, s, nd);
		memset(r->p + total, ' ', (size_t)width - total);
	} else if (sp->zero && prec < 0) {
		memcpy(r->p, pre, prelen);
		memset(r->p + prelen, '0', (size_t)width - total);
		memcpy(r->p + width - nd, s, nd);
	} else {
		memset(r->p, ' ', (size_t)width - total);
		memcpy(r->p + width - total, pre, prelen);
		memcpy(r->p + width - nd, s, nd);
	}
	r->p += width;
}

/* snprintf with libtraceevent's exact call, for unusual specs. */
static void emit_int_slow(struct run *r, const struct ff_spec *sp, uint64_t v,
			  bool has_star, int star)
{
	char buf[512];
	int n;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	switch (sp->ls) {
	case -2:
		n = has_star ? snprintf(buf, sizeof(buf), sp->fmt, star, (char)v) :
			snprintf(buf, sizeof(buf), sp->fmt, (char)v);
		break;
	case -1:
		n = has_star ? snprintf(buf, sizeof(buf), sp->fmt, star, (short)v) :
			snprintf(buf, sizeof(buf), sp->fmt, (short)v);
		break;
	case 0:
		n = has_star ? snprintf(buf, sizeof(buf), sp->fmt, star, (int)v) :
			snprintf(buf, sizeof(buf), sp->fmt, (int)v);
		break;
	case 1:
		n = has_star ? snprintf(buf, sizeof(buf), sp->fmt, star, (long)v) :
			snprintf(buf, sizeof(buf), sp->fmt, (long)v);
		break;
	default:
		n = has_star ? snprintf(buf, sizeof(buf), sp->fmt, star, (long long)v) :
			snprintf(buf, sizeof(buf), sp->fmt, (long long)v);
		break;
	}
#pragma GCC diagnostic pop
	if (n < 0 || n >= (int)sizeof(buf)) {
		r->err = -ENOTSUP;
		return;
	}
	put(r, buf, (size_t)n);
}

/* One print_str_to_seq() piece: s (n bytes, no NUL inside) with the spec. */
static void emit_piece(struct run *r, const struct ff_spec *sp, const char *s,
		       size_t n, bool has_star, int star)
{
	int width = sp->width, prec = sp->prec;
	size_t pad;

	if (sp->plain) {
		put(r, s, n);
		return;
	}
	if (!sp->simple) {
		char buf[4096];
		char *str;
		int k;

		str = malloc(n + 1);
		if (!str) {
			r->err = -ENOTSUP;
			return;
		}
		memcpy(str, s, n);
		str[n] = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		k = has_star ? snprintf(buf, sizeof(buf), sp->fmt, star, str) :
			snprintf(buf, sizeof(buf), sp->fmt, str);
#pragma GCC diagnostic pop
		free(str);
		if (k < 0 || k >= (int)sizeof(buf)) {
			r->err = -ENOTSUP;
			return;
		}
		put(r, buf, (size_t)k);
		return;
	}
	if (sp->star == STAR_WIDTH)
		width = star;
	else if (sp->star == STAR_PREC)
		prec = star;
	if (prec >= 0 && (size_t)prec < n)
		n = (size_t)prec;
	if (width < 0 || (size_t)width <= n) {
		put(r, s, n);
		return;
	}
	pad = (size_t)width - n;
	if (!room(r, (size_t)width))
		return;
	if (sp->minus) {
		memcpy(r->p, s, n);
		memset(r->p + n, ' ', pad);
	} else {
		memset(r->p, ' ', pad);
		memcpy(r->p + pad, s, n);
	}
	r->p += width;
}

static void emit_0xllx(struct run *r, uint64_t v)
{
	if (room(r, 18)) {
		*r->p++ = '0';
		*r->p++ = 'x';
		r->p = put_hex(r->p, v);
	}
}

static void emit_str(struct run *r, const struct ff_spec *sp,
		     const struct ff_str *s, bool has_star, int star);

static void emit_bitmask(struct run *r, const struct ff_spec *sp,
			 const unsigned char *d, unsigned int size,
			 bool has_star, int star)
{
	/* Bytes from the last, two hex digits each, a comma every 4 bytes. */
	unsigned int nr_bits = size * 8, i;
	int str_size = (int)((nr_bits + 3) / 4) + ((int)nr_bits - 1) / 32;
	char small[256], *str = small;
	int pos, len = 0;

	if (str_size + 1 > (int)sizeof(small)) {
		str = malloc((size_t)str_size + 1);
		if (!str) {
			r->err = -ENOTSUP;
			return;
		}
	}
	str[str_size] = 0;
	for (pos = str_size - 2, i = 0; pos >= 0; pos -= 2, i++) {
		str[pos] = hexlow[d[len] >> 4];
		str[pos + 1] = hexlow[d[len] & 15];
		len++;
		if (!(len & 3) && pos > 0) {
			pos--;
			str[pos] = ',';
		}
	}
	emit_piece(r, sp, str, strlen(str), has_star, star);
	if (str != small)
		free(str);
}

/* Offset of the data of __print_hex()/__print_array()'s array. */
static uint64_t array_base_of(const struct run *r, const struct ff_str *s)
{
	unsigned int off, len;

	if (!s->dyn)
		return (uint64_t)s->off;
	dyn_get(r, &s->f, &off, &len);
	return off;
}

/* The set bits of a mask as ranges, "0-3,8", like print_cpumask_to_seq(). */
static void emit_cpumask(struct run *r, const struct ff_spec *sp,
			 const unsigned char *d, unsigned int size,
			 bool has_star, int star)
{
	unsigned int nbits = size * 8, i = 0, first;
	char *str, *q;

	/* worst case "0,2,4,...": under 12 bytes a bit (rare: heap is fine) */
	str = malloc((size_t)nbits * 12 + 1);
	if (!str) {
		r->err = -ENOTSUP;
		return;
	}
	q = str;
	while (i < nbits) {
		if (!(d[i / 8] & (1u << (i % 8)))) {
			i++;
			continue;
		}
		first = i;
		while (i < nbits && (d[i / 8] & (1u << (i % 8))))
			i++;
		if (q != str)
			*q++ = ',';
		q = put_udec(q, first);
		if (i - 1 > first) {
			*q++ = '-';
			q = put_udec(q, i - 1);
		}
	}
	*q = 0;
	emit_piece(r, sp, str, (size_t)(q - str), has_star, star);
	free(str);
}

static void run_segs(struct run *r, const struct ff_prog *pg);

/* The event's fixed part, zeroed, with its type: for probing libtraceevent. */
unsigned char *ff_probe_record(const struct ff_prog *pg)
{
	struct tep_format_field *f = tep_find_common_field(pg->ev, "common_type");
	unsigned char *buf = calloc(1, (size_t)pg->probe_size + 8);
	unsigned short id16 = (unsigned short)pg->ev->id;
	unsigned int id32 = (unsigned int)pg->ev->id;

	if (!buf || !f || (f->size != 2 && f->size != 4)) {
		free(buf);
		return NULL;
	}
	if (f->size == 2)
		memcpy(buf + f->offset, &id16, 2);
	else
		memcpy(buf + f->offset, &id32, 4);
	return buf;
}

/*
 * What libtraceevent prints for "%s" of a pointer: the string that the
 * trace's printk formats give for that address, or the address in hex.
 * That table is private to libtraceevent, so ask it: print a record that
 * is all zeros but for the pointer, with libtraceevent and with our own
 * program (which leaves the string out and marks where it goes), and
 * take what libtraceevent printed in between.  Remembered per address.
 */
static const struct printk_ent *printk_probe(struct run *r, uint64_t addr)
{
	struct kt_fastfmt *ff = r->ff;
	const struct ff_prog *pg = r->pg;
	struct printk_ent *pe = NULL;
	unsigned int i, h = (unsigned int)((addr >> 3) * 0x9e3779b1u);
	struct tep_record rec;
	struct trace_seq s;
	struct run mine;
	unsigned char *buf;
	char out[4096];
	size_t tlen, head, tail;
	int saved;
	bool hit;

	if (!ff->printk) {
		ff->printk = calloc(PRINTK_SLOTS, sizeof(*ff->printk));
		if (!ff->printk)
			return NULL;
	}
	for (i = 0; i < PRINTK_SLOTS; i++) {
		pe = &ff->printk[(h + i) & (PRINTK_SLOTS - 1)];
		if (!pe->str || pe->addr == addr)
			break;
	}
	if (i == PRINTK_SLOTS)
		return NULL;	/* full: never the case in practice */
	if (pe->str)
		return pe;

	buf = ff_probe_record(pg);
	if (!buf)
		return NULL;
	memcpy(buf + pg->printk_off, &addr, 8);
	memset(&mine, 0, sizeof(mine));
	mine.data = buf;
	mine.size = pg->probe_size;
	mine.p = out;
	mine.end = out + sizeof(out) - 1;
	mine.ff = ff;
	mine.pg = pg;
	mine.probing = true;
	run_segs(&mine, pg);

	memset(&rec, 0, sizeof(rec));
	rec.data = buf;
	rec.size = pg->probe_size;
	trace_seq_init(&s);
	saved = pg->ev->flags;
	pg->ev->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(ff->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	pg->ev->flags = saved;
	trace_seq_terminate(&s);
	free(buf);

	pe = NULL;
	hit = mine.mark != NULL;
	if (!hit)
		mine.mark = mine.p;
	head = (size_t)(mine.mark - out);
	tail = (size_t)(mine.p - mine.mark);
	tlen = s.buffer ? strlen(s.buffer) : 0;
	if (hit && !mine.err && tlen >= head + tail &&
	    !memcmp(s.buffer, out, head) &&
	    !memcmp(s.buffer + tlen - tail, mine.mark, tail)) {
		for (i = 0; i < PRINTK_SLOTS; i++) {
			pe = &ff->printk[(h + i) & (PRINTK_SLOTS - 1)];
			if (!pe->str)
				break;
		}
		pe->len = tlen - head - tail;
		pe->str = malloc(pe->len + 1);
		if (pe->str) {
			memcpy(pe->str, s.buffer + head, pe->len);
			pe->str[pe->len] = 0;
			pe->addr = addr;
		} else {
			pe = NULL;
		}
	}
	trace_seq_destroy(&s);
	return pe;
}

static void emit_str(struct run *r, const struct ff_spec *sp,
		     const struct ff_str *s, bool has_star, int star)
{
	unsigned int off, len;
	uint64_t v;
	int i;

	switch (s->kind) {
	case S_NONE:
		return;
	case S_CONST:
		emit_piece(r, sp, s->str, s->slen, has_star, star);
		return;
	case S_CHARS: {
		size_t n, max;

		if (s->off >= r->size)
			max = 0;
		else
			max = (size_t)(r->size - s->off);
		n = s->len ? (size_t)s->len : max;
		if (n > max)
			n = max;
		n = strnlen((const char *)r->data + s->off, n);
		emit_piece(r, sp, (const char *)r->data + s->off, n, has_star, star);
		return;
	}
	case S_DSTR:
		dyn_get(r, &s->f, &off, &len);
		if (!len)
			return;
		if (off >= (unsigned int)r->size)
			return;
		emit_piece(r, sp, (const char *)r->data + off,
			   strnlen((const char *)r->data + off, (size_t)r->size - off),
			   has_star, star);
		return;
	case S_FLAGS: {
		bool printed = false;

		v = value(r, s->e);
		i = 0;
		while (i < s->nsyms) {
			unsigned int m = 0;
			int k, lim, next;

			if (!v) {
				/* all bits named: only a "-1" entry can print */
				for (; i < s->neg_end; i++) {
					if (s->syms[i].val < 0) {
						emit_piece(r, sp, s->syms[i].str,
							   s->syms[i].len, has_star,
							   star);
						break;
					}
				}
				break;
			}
			/* which of the next 8 entries v contains, branch-free */
			lim = s->nsyms - i < 8 ? s->nsyms - i : 8;
			for (k = 0; k < lim; k++) {
				uint64_t fv = s->fvals[i + k];

				m |= (unsigned int)(fv && (v & fv) == fv) << k;
			}
			next = i + lim;
			while (m) {
				uint64_t fv;

				k = __builtin_ctz(m);
				m &= m - 1;
				fv = s->fvals[i + k];
				if ((v & fv) != fv)	/* an earlier one took bits */
					continue;
				if (printed && s->str)
					put(r, s->str, s->slen);
				emit_piece(r, sp, s->syms[i + k].str,
					   s->syms[i + k].len, has_star, star);
				printed = true;
				v &= ~fv;
				if (!v) {
					next = i + k + 1;
					break;
				}
			}
			i = next;
		}
		if (v) {
			if (printed && s->str)
				put(r, s->str, s->slen);
			emit_0xllx(r, v);
		}
		return;
	}
	case S_SYMBOL:
		v = eval(r, s->e);
		for (i = 0; i < s->nsyms; i++) {
			if ((long long)v == s->syms[i].val) {
				emit_piece(r, sp, s->syms[i].str, s->syms[i].len,
					   has_star, star);
				return;
			}
		}
		emit_0xllx(r, v);
		return;
	case S_HEX: {
		const unsigned char *h;
		uint64_t n, base;

		base = array_base_of(r, s);
		n = (unsigned int)eval(r, s->e);
		if (base + n > (uint64_t)r->size) {
			r->err = -ENOTSUP;
			return;
		}
		h = r->data + base;
		if (!room(r, n * 3))
			return;
		for (i = 0; (uint64_t)i < n; i++) {
			if (i && s->spaced)
				*r->p++ = ' ';
			*r->p++ = hexlow[h[i] >> 4];
			*r->p++ = hexlow[h[i] & 15];
		}
		return;
	}
	case S_INTARR: {
		uint64_t n, base, el;

		base = array_base_of(r, s);
		n = (unsigned int)eval(r, s->e);
		el = (uint64_t)(int)eval(r, s->e2);
		if (el != 1 && el != 2 && el != 4 && el != 8) {
			r->err = -ENOTSUP;
			return;
		}
		if (base + n * el > (uint64_t)r->size) {
			r->err = -ENOTSUP;
			return;
		}
		for (i = 0; (uint64_t)i < n; i++) {
			if (!room(r, 22))
				return;
			if (i)
				*r->p++ = ' ';
			r->p = put_udec(r->p, load(r->data + base + i * el, (int)el));
		}
		return;
	}
	case S_BITMASK:
	case S_CPUMASK:
		dyn_get(r, &s->f, &off, &len);
		if ((uint64_t)off + len > (uint64_t)r->size) {
			r->err = -ENOTSUP;
			return;
		}
		if (s->kind == S_CPUMASK)
			emit_cpumask(r, sp, r->data + off, len, has_star, star);
		else
			emit_bitmask(r, sp, r->data + off, len, has_star, star);
		return;
	case S_PRINTK: {
		const struct printk_ent *pe;
		uint64_t addr;

		if (s->off + 8 > r->size) {
			r->err = -ENOTSUP;
			return;
		}
		if (r->probing) {
			/* this is the hole */
			r->mark = r->p;
			return;
		}
		addr = load(r->data + s->off, 8);
		pe = printk_probe(r, addr);
		if (!pe) {
			r->err = -ENOTSUP;
			return;
		}
		put(r, pe->str, pe->len);
		return;
	}
	case S_COND:
		if (eval(r, s->e))
			emit_str(r, sp, s->a, has_star, star);
		else
			emit_str(r, sp, s->b, has_star, star);
		return;
	}
}

static void put_ip4(struct run *r, const unsigned char *b, bool rev, char i)
{
	int k;

	if (!room(r, 16))
		return;
	for (k = 0; k < 4; k++) {
		unsigned int v = b[rev ? 3 - k : k];

		if (k)
			*r->p++ = '.';
		if (i == 'i')
			r->p = udec_pad(r->p, v, 3, '0');
		else
			r->p = put_udec(r->p, v);
	}
}

/* An IPv6 address the way the kernel's %pI6c compresses it. */
static void put_ip6c(struct run *r, const unsigned char *a)
{
	uint16_t w[8];
	uint32_t d[4];
	int zl[8] = { 0 }, i, j, range, longest = 1, colonpos = -1;
	bool v4, needcolon = false;

	memcpy(d, a, 16);
	for (i = 0; i < 8; i++)
		w[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
	v4 = ((d[0] | d[1]) == 0 && d[2] == htobe32(0x0000ffff)) ||
		(d[2] | htobe32(0x02000000)) == htobe32(0x02005efe);
	range = v4 ? 6 : 8;
	for (i = 0; i < range; i++)
		for (j = i; j < range && !w[j]; j++)
			zl[i]++;
	for (i = 0; i < range; i++) {
		if (zl[i] > longest) {
			longest = zl[i];
			colonpos = i;
		}
	}
	if (!room(r, 48))
		return;
	for (i = 0; i < range; i++) {
		if (i == colonpos) {
			if (needcolon || i == 0)
				*r->p++ = ':';
			*r->p++ = ':';
			needcolon = false;
			i += longest - 1;
			continue;
		}
		if (needcolon)
			*r->p++ = ':';
		r->p = put_hex(r->p, w[i]);
		needcolon = true;
	}
	if (v4) {
		if (needcolon)
			*r->p++ = ':';
		put_ip4(r, a + 12, false, 'I');
	}
}

static void put_ip6(struct run *r, const unsigned char *a, char i)
{
	int j;

	if (!room(r, 40))
		return;
	for (j = 0; j < 16; j++) {
		*r->p++ = hexlow[a[j] >> 4];
		*r->p++ = hexlow[a[j] & 15];
		if (i == 'I' && (j & 1) && j < 15)
			*r->p++ = ':';
	}
}

/* print_ipsa_arg(): a struct sockaddr_in or _in6. */
static void put_ipsa(struct run *r, const struct ff_seg *g)
{
	unsigned int off, len;
	uint16_t fam, port;

	if (g->dyn) {
		dyn_get(r, &g->f, &off, &len);
	} else {
		off = (unsigned int)g->mac_off;
		len = (unsigned int)g->sa_len;
	}
	if ((uint64_t)off + 2 > (uint64_t)r->size) {
		r->err = -ENOTSUP;
		return;
	}
	memcpy(&fam, r->data + off, 2);
	if (fam != AF_INET && fam != AF_INET6)
		return;
	if (len < (fam == AF_INET ? 16 : 28)) {
		put(r, fam == AF_INET ? "INVALIDIPv4" : "INVALIDIPv6", 11);
		return;
	}
	if ((uint64_t)off + len > (uint64_t)r->size) {
		r->err = -ENOTSUP;
		return;
	}
	port = (uint16_t)(r->data[off + 2] << 8 | r->data[off + 3]);
	if (fam == AF_INET) {
		put_ip4(r, r->data + off + 4, g->mac_rev, g->ip);
		if (g->ip_port && room(r, 8)) {
			*r->p++ = ':';
			r->p = put_udec(r->p, port);
		}
		return;
	}
	if (g->ip_port)
		putch(r, '[');
	if (g->ip6c)
		put_ip6c(r, r->data + off + 8);
	else
		put_ip6(r, r->data + off + 8, g->ip);
	if (g->ip_port && room(r, 8)) {
		*r->p++ = ']';
		*r->p++ = ':';
		r->p = put_udec(r->p, port);
	}
}

static void put_uuid(struct run *r, const unsigned char *b, bool guid,
		     bool upper)
{
	static const unsigned char gidx[16] = {
		3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15,
	};
	const char *set = upper ? hexup : hexlow;
	int i;

	if (!room(r, 36))
		return;
	for (i = 0; i < 16; i++) {
		unsigned char v = b[guid ? gidx[i] : i];

		*r->p++ = set[v >> 4];
		*r->p++ = set[v & 15];
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*r->p++ = '-';
	}
}

/* "%s" without width or precision of a char array or __get_str(). */
static void emit_plain_str(struct run *r, const struct ff_str *s)
{
	unsigned int off, len;
	size_t max;

	if (s->kind == S_CHARS) {
		off = (unsigned int)s->off;
		if ((int)off >= r->size)
			return;
		max = (size_t)r->size - off;
		if (s->len && (size_t)s->len < max)
			max = (size_t)s->len;
	} else {
		dyn_get(r, &s->f, &off, &len);
		if (!len || off >= (unsigned int)r->size)
			return;
		max = (size_t)r->size - off;
	}
	put(r, (const char *)r->data + off,
	    strnlen((const char *)r->data + off, max));
}

/* The function containing addr, as libtraceevent finds it, cached. */
const struct func_ent *ff_func_lookup(struct kt_fastfmt *ff,
					  unsigned long long addr)
{
	struct func_ent *fe = &ff->funcs[(addr ^ (addr >> 9)) % FUNC_CACHE];

	if (!fe->valid || fe->addr != addr) {
		fe->addr = addr;
		fe->valid = true;
		if (!tep_find_function_info(ff->tep, addr, &fe->name, &fe->start,
					    NULL))
			fe->name = NULL;
		fe->len = fe->name ? strlen(fe->name) : 0;
	}
	return fe;
}

static void emit_func(struct run *r, uint64_t v, bool with_off)
{
	const struct func_ent *fe = ff_func_lookup(r->ff, v);

	if (!fe->name) {
		emit_0xllx(r, v);
		return;
	}
	put(r, fe->name, fe->len);
	if (with_off) {
		putch(r, '+');
		emit_0xllx(r, v - fe->start);
	}
}


static inline uint64_t sext(uint64_t v, int bits)
{
	switch (bits) {
	case 8:
		return (uint64_t)(int64_t)(int8_t)v;
	case 16:
		return (uint64_t)(int64_t)(int16_t)v;
	case 32:
		return (uint64_t)(int64_t)(int32_t)v;
	}
	return v;
}

static inline uint64_t zext(uint64_t v, int bits)
{
	return bits == 64 ? v : v & ((1ULL << bits) - 1);
}

/* The '*' argument; false (and the record left to libtraceevent) if < 0. */
static inline bool star_arg(struct run *r, const struct ff_seg *g, int *star)
{
	if (!g->len)
		return true;
	*star = (int)eval(r, g->len);
	if (*star >= 0)
		return true;
	/* libtraceevent then passes no width to printf: undefined */
	r->err = -ENOTSUP;
	return false;
}

/* A plain conversion's value: a field load read from the segment itself. */
static inline uint64_t seg_value(struct run *r, const struct ff_seg *g)
{
	if (g->direct) {
		if (g->ld_off + g->ld_size > r->size)
			return 0;
		return load(r->data + g->ld_off, g->ld_size);
	}
	return value(r, g->e);
}

/* %5d %05d %-5d %08lx ...: glibc's padding, the sign before the zeros. */
static void emit_num_w(struct run *r, const struct ff_seg *g, uint64_t v)
{
	char tmp[24], *e, *d = tmp;
	size_t n, width = (size_t)g->spec.width, pad;

	if (g->kind == G_DECW)
		e = put_sdec(tmp, (int64_t)sext(v, g->bits));
	else if (g->kind == G_UDECW)
		e = put_udec(tmp, zext(v, g->bits));
	else
		e = put_hex(tmp, zext(v, g->bits));
	n = (size_t)(e - tmp);
	if (!room(r, n > width ? n : width))
		return;
	if (n >= width) {
		memcpy(r->p, tmp, n);
		r->p += n;
		return;
	}
	pad = width - n;
	if (g->spec.minus) {
		memcpy(r->p, tmp, n);
		memset(r->p + n, ' ', pad);
	} else if (g->spec.zero) {
		if (*d == '-') {
			*r->p++ = *d++;
			n--;
		}
		memset(r->p, '0', pad);
		memcpy(r->p + pad, d, n);
	} else {
		memset(r->p, ' ', pad);
		memcpy(r->p + pad, tmp, n);
	}
	r->p += pad + n;
}

static void run_segs(struct run *r, const struct ff_prog *pg)
{
	/* No segments (print fmt ""): segs is NULL, and NULL + 0 is UB. */
	const struct ff_seg *g = pg->segs, *end = pg->nsegs ? pg->segs + pg->nsegs : g;

	for (; g < end && !r->err; g++) {
		int star = 0;
		uint64_t v;

		/* the literal text before the conversion, padded to 16 */
		if (g->prelen) {
			if (g->prelen <= 16 && r->end - r->p >= 16) {
				memcpy(r->p, g->pre, 16);
				r->p += g->prelen;
			} else {
				put(r, g->pre, g->prelen);
			}
		}
		switch (g->kind) {
		case G_LIT:
			break;
		case G_DEC:
			if (room(r, 21))
				r->p = put_sdec(r->p, (int64_t)sext(seg_value(r, g),
								  g->bits));
			break;
		case G_UDEC:
			if (room(r, 20))
				r->p = put_udec(r->p, zext(seg_value(r, g), g->bits));
			break;
		case G_HEX:
			if (room(r, 16))
				r->p = put_hex16(r->p, zext(seg_value(r, g), g->bits));
			break;
		case G_DECW:
		case G_UDECW:
		case G_HEXW:
			emit_num_w(r, g, seg_value(r, g));
			break;
		case G_CHARS:
		case G_DSTR:
			emit_plain_str(r, g->s);
			break;
		case G_CHOICE: {
			const struct ff_str *c = value(r, g->e) ? g->s->a : g->s->b;

			put(r, c->str, c->slen);
			break;
		}
		case G_INT:
			if (!star_arg(r, g, &star))
				break;
			v = value(r, g->e);
			if (g->spec.simple)
				emit_int(r, &g->spec, v, star);
			else
				emit_int_slow(r, &g->spec, v, g->len != NULL, star);
			break;
		case G_STR:
			if (star_arg(r, g, &star))
				emit_str(r, &g->spec, g->s, g->len != NULL, star);
			break;
		case G_PTR:
			v = value(r, g->e);
			if (!v) {
				put(r, "(nil)", 5);
				break;
			}
			emit_0xllx(r, v);
			break;
		case G_FUNC:
			emit_func(r, eval(r, g->e), g->func_off);
			break;
		case G_BSTR:
			put(r, g->lit, g->litlen);
			break;
		case G_CONST:
			put(r, g->lit, g->litlen);
			break;
		case G_IPSA:
			put_ipsa(r, g);
			break;
		case G_UUID:
			if (g->mac_off + 16 > r->size) {
				r->err = -ENOTSUP;
				break;
			}
			put_uuid(r, r->data + g->mac_off, g->guid, g->upper);
			break;
		case G_IP4:
			if (g->mac_off + 4 > r->size) {
				r->err = -ENOTSUP;
				break;
			}
			put_ip4(r, r->data + g->mac_off, g->mac_rev, g->ip);
			break;
		case G_IP6:
			if (g->mac_off + 16 > r->size) {
				r->err = -ENOTSUP;
				break;
			}
			if (g->ip6c)
				put_ip6c(r, r->data + g->mac_off);
			else
				put_ip6(r, r->data + g->mac_off, g->ip);
			break;
		case G_MAC: {
			const unsigned char *m = r->data + g->mac_off;
			int k;

			if (g->mac_off + 6 > r->size) {
				r->err = -ENOTSUP;
				break;
			}
			if (!room(r, 17))
				break;
			for (k = 0; k < 6; k++) {
				unsigned char b = m[g->mac_rev ? 5 - k : k];

				if (k && *g->mac_sep)
					*r->p++ = *g->mac_sep;
				*r->p++ = hexlow[b >> 4];
				*r->p++ = hexlow[b & 15];
			}
			break;
		}
		}
	}
}

void ff_run_segs(struct run *r, const struct ff_prog *pg)
{
	run_segs(r, pg);
}

/*
 * A fixed pg as fops when it is one (see struct ff_prog): its numbers,
 * each with the literal before it, and a literal after the last one
 * (the tail); else nfops 0.
 */
static void mark_fops(struct ff_prog *pg)
{
	int i, n = 0;

	pg->nfops = 0;
	pg->fop_taillen = 0;
	memset(pg->fop_tail, 0, sizeof(pg->fop_tail));
	if (pg->nsegs > FOPS_MAX)
		return;
	for (i = 0; i < pg->nsegs; i++) {
		const struct ff_seg *g = &pg->segs[i];
		struct ff_fop *o = &pg->fops[n];

		if (g->prelen > 16)
			return;
		if (g->kind == G_LIT) {
			/* only the last: fuse_literals() left no other */
			if (i != pg->nsegs - 1)
				return;
			memcpy(pg->fop_tail, g->pre, g->prelen);
			pg->fop_taillen = (unsigned char)g->prelen;
			continue;
		}
		if (g->ld_size != 8 || g->bits != 64)
			return;
		memset(o, 0, sizeof(*o));
		if (g->prelen)
			memcpy(o->pre, g->pre, 16);
		o->prelen = (unsigned char)g->prelen;
		o->kind = g->kind == G_HEX ? FOP_HEX : g->kind == G_DEC ? FOP_DEC : FOP_UDEC;
		o->ld_off = g->ld_off;
		n++;
	}
	pg->nfops = n;
}

/* Is pg one for run_fixed()?  Sets fixed, fixed_end, fixed_max (and the fops). */
void ff_mark_fixed(struct ff_prog *pg)
{
	size_t max = 16;
	int i, end = 0;

	if (pg->why || pg->plug != P_NONE)
		return;
	for (i = 0; i < pg->nsegs; i++) {
		const struct ff_seg *g = &pg->segs[i];

		max += g->prelen > 16 ? g->prelen : 16;
		switch (g->kind) {
		case G_LIT:
			continue;
		case G_DEC:
		case G_UDEC:
			max += 21;
			break;
		case G_HEX:
			max += 16;
			break;
		default:
			return;
		}
		if (!g->direct || g->ld_off < 0)
			return;
		if (g->ld_off + g->ld_size > end)
			end = g->ld_off + g->ld_size;
	}
	pg->fixed = true;
	/* with need in it, one test of the size is all of info_of()'s */
	pg->fixed_end = end > pg->need ? end : pg->need;
	pg->fixed_max = max;
	mark_fops(pg);
}

/*
 * run_segs() for a fixed program when the record holds every field it
 * reads and the output has fixed_max bytes of room: the same emitters,
 * without a bounds or room check per conversion.
 */
static char *run_fixed(const struct ff_prog *pg, const unsigned char *data,
		       char *p)
{
	/* No segments (print fmt ""): segs is NULL, and NULL + 0 is UB. */
	const struct ff_seg *g = pg->segs, *end = pg->nsegs ? pg->segs + pg->nsegs : g;
	uint64_t v;

	for (; g < end; g++) {
		if (g->prelen) {
			if (g->prelen <= 16)
				memcpy(p, g->pre, 16);
			else
				memcpy(p, g->pre, g->prelen);
			p += g->prelen;
		}
		if (g->kind == G_LIT)
			continue;
		/* A syscall's arguments are longs: no size switch for them. */
		if (g->ld_size == 8)
			memcpy(&v, data + g->ld_off, 8);
		else
			v = load(data + g->ld_off, g->ld_size);
		if (g->kind == G_HEX)
			p = put_hex16(p, zext(v, g->bits));
		else if (g->kind == G_DEC)
			p = put_sdec(p, (int64_t)sext(v, g->bits));
		else
			p = put_udec(p, zext(v, g->bits));
	}
	return p;
}

/*
 * run_fixed() of a program of fops: each literal copied from the step
 * itself, each number read as 8 bytes, with no test of a size or width.
 */
static char *run_fops(const struct ff_prog *pg, const unsigned char *data,
		      char *p)
{
	const struct ff_fop *o = pg->fops, *end = pg->fops + pg->nfops;
	uint64_t v;

	for (; o < end; o++) {
		memcpy(p, o->pre, 16);
		p += o->prelen;
		memcpy(&v, data + o->ld_off, 8);
		if (o->kind == FOP_HEX)
			p = put_hex16(p, v);
		else if (o->kind == FOP_DEC)
			p = put_sdec(p, (int64_t)v);
		else
			p = put_udec(p, v);
	}
	memcpy(p, pg->fop_tail, 16);
	return p + pg->fop_taillen;
}

/*
 * kt_fastfmt_info() past a fixed program: a plugin's text or the
 * general segments, with a run set up.  Out of line, so that a fixed
 * program's call (a syscall's, most records of a report) saves no
 * registers and builds no run: 20 instructions a record.
 */
static __attribute__((noinline)) int run_prog(struct kt_fastfmt *ff,
					      const struct ff_prog *pg,
					      const void *data, int size,
					      char *out, size_t cap)
{
	struct run r;

	r.data = data;
	r.size = size;
	r.p = out;
	r.end = out + cap - 1;	/* room for the NUL */
	r.err = 0;
	r.ff = ff;
	r.pg = pg;
	r.probing = false;
	r.mark = NULL;
	switch (pg->plug) {
	case P_NONE:
		run_segs(&r, pg);
		break;
	case P_KMEM:
		ff_run_kmem(&r, pg);
		run_segs(&r, pg);
		break;
	case P_SCHED_SWITCH:
		ff_run_sched_switch(&r, pg);
		break;
	case P_SCHED_WAKEUP:
		ff_run_sched_wakeup(&r, pg);
		break;
	case P_HRTIMER_EXPIRE:
	case P_HRTIMER_START:
		ff_run_hrtimer(&r, pg);
		break;
	case P_TLB_FLUSH:
		ff_run_tlb_flush(&r, pg);
		break;
	case P_FUTEX:
		if (!ff_run_futex(&r, pg))
			run_segs(&r, pg);
		break;
	case P_KSTACK:
		ff_run_kstack(&r, pg);
		break;
	case P_USTACK:
		ff_run_ustack(&r, pg);
		break;
	}
	if (r.err)
		return r.err;
	*r.p = 0;
	return (int)(r.p - out);
}

/* kt_fastfmt_info() of a program found. */
static inline __attribute__((always_inline)) int
info_of(struct kt_fastfmt *ff, const struct ff_prog *pg, const void *data,
	int size, char *out, size_t cap)
{
	/*
	 * The most common program (a syscall's) first, before any run is
	 * set up: fixed has no why, and a size of fixed_end (need in it)
	 * and a cap over fixed_max pass each test below.
	 */
	if (pg && pg->fixed && size >= pg->fixed_end && cap > pg->fixed_max) {
		char *e = pg->nfops ? run_fops(pg, data, out) : run_fixed(pg, data, out);

		*e = 0;
		return (int)(e - out);
	}
	if (!pg || pg->why || size < 0)
		return -ENOTSUP;
	if (cap == 0)
		return -ENOSPC;
	/* plugin texts read fixed fields, as the plugins do, unchecked */
	if (size < pg->need)
		return -ENOTSUP;
	/* A kernel stack seen before (most of a -T report's): no run either. */
	if (pg->plug == P_KSTACK) {
		int n = ff_kstack_kept(ff, pg, data, size, out, cap);

		if (n >= 0)
			return n;
	}
	return run_prog(ff, pg, data, size, out, cap);
}

/* kt_fastfmt_info() of an event not compiled yet: apart, as run_prog(). */
static __attribute__((noinline)) int info_compile(struct kt_fastfmt *ff,
						  struct tep_event *ev,
						  const void *data, int size,
						  char *out, size_t cap)
{
	return info_of(ff, ff_prog_of(ff, ev), data, size, out, cap);
}

int kt_fastfmt_info(struct kt_fastfmt *ff, struct tep_event *ev,
		    const void *data, int size, char *out, size_t cap)
{
	/* compiled already: the common case, without a call */
	/* unsigned: a negative id is past nprogs too */
	if ((unsigned int)ev->id < (unsigned int)ff->nprogs && ff->progs[ev->id] &&
	    ff->progs[ev->id]->ev == ev)
		return info_of(ff, ff->progs[ev->id], data, size, out, cap);
	return info_compile(ff, ev, data, size, out, cap);
}

int kt_fastfmt_seq(struct trace_seq *s, struct tep_event *ev,
		   struct tep_record *rec, void *priv)
{
	struct kt_fastfmt *ff = priv;
	int n;

	if (s->state != TRACE_SEQ__GOOD || !rec)
		return -ENOTSUP;
	/* straight into the seq's buffer when it has room ... */
	if (s->buffer_size > s->len + 1) {
		n = kt_fastfmt_info(ff, ev, rec->data, rec->size, s->buffer + s->len,
				    s->buffer_size - s->len);
		if (n >= 0) {
			s->len += (unsigned int)n;
			return 0;
		}
		if (n != -ENOSPC)
			return n;
	}
	/* ... else built aside and appended, which grows it */
	if (!ff->scratch) {
		ff->scratch = malloc(SCRATCH);
		if (!ff->scratch)
			return -ENOTSUP;
	}
	n = kt_fastfmt_info(ff, ev, rec->data, rec->size, ff->scratch, SCRATCH);
	if (n < 0)
		return -ENOTSUP;
	trace_seq_puts(s, ff->scratch);
	return s->state == TRACE_SEQ__GOOD ? 0 : -ENOTSUP;
}
