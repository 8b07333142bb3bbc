// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled event formatting: see fastfmt.h.
 *
 * The semantics followed here are libtraceevent 1.7's (pretty_print(),
 * eval_num_arg(), print_str_arg() and the sched_switch, kmem, hrtimer,
 * tlb and futex plugins), reimplemented for speed: each event's print
 * format is split once into literal text and conversions exactly as
 * libtraceevent splits it, every argument tree is turned into a small
 * expression of field loads, and the conversions are done by
 * hand-written emitters instead of vsnprintf.  Conversions whose printf spec is unusual keep using
 * snprintf with the very same format and argument libtraceevent passes,
 * so they cannot differ either.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode/fastfmt.h"

/* ------------------------------------------------------------------ */
/* Number emitters                                                     */

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const char hexlow[] = "0123456789abcdef";
static const char hexup[] = "0123456789ABCDEF";

/* Decimal digits of v written backwards ending at end; returns start. */
static inline char *udec_rev(char *end, uint64_t v)
{
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, digits2 + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* "000102...ff": two lowercase hex digits a byte. */
static const char hex2[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static inline char *hex_rev(char *end, uint64_t v, const char *set)
{
	if (set == hexlow) {
		while (v >= 256) {
			end -= 2;
			memcpy(end, hex2 + 2 * (v & 255), 2);
			v >>= 8;
		}
		if (v >= 16) {
			end -= 2;
			memcpy(end, hex2 + 2 * v, 2);
			return end;
		}
		*--end = hexlow[v];
		return end;
	}
	do {
		*--end = set[v & 15];
		v >>= 4;
	} while (v);
	return end;
}

static inline char *oct_rev(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	return end;
}

/* Number of decimal digits of v. */
static inline int udigits(uint64_t v)
{
	int n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

static inline char *put_udec(char *p, uint64_t v)
{
	char *end = p + udigits(v);

	udec_rev(end, v);
	return end;
}

static inline char *put_sdec(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_udec(p, -(uint64_t)v);
	}
	return put_udec(p, (uint64_t)v);
}

static inline char *put_hex(char *p, uint64_t v)
{
	char *end = p + (v ? (67 - __builtin_clzll(v)) / 4 : 1);

	hex_rev(end, v, hexlow);
	return end;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The 8 lowercase hex digits of x, most significant first, as the word
 * whose little-endian bytes they are: each nibble spread to a byte, then
 * '0'-'9'/'a'-'f' added to all eight at once.  No loop, no table.
 */
static inline uint64_t hex8_word(uint32_t x)
{
	uint64_t z = x, ge10;

	z = (z | (z << 16)) & 0x0000ffff0000ffffULL;
	z = (z | (z << 8)) & 0x00ff00ff00ff00ffULL;
	z = (z | (z << 4)) & 0x0f0f0f0f0f0f0f0fULL;
	ge10 = ((z + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	z += 0x3030303030303030ULL + ge10 * ('a' - '0' - 10);
	return __builtin_bswap64(z);
}

/* put_hex() where p has 16 bytes of room (it may write them all). */
static inline char *put_hex16(char *p, uint64_t v)
{
	unsigned int n = v ? (67u - (unsigned int)__builtin_clzll(v)) / 4 : 1;
	uint64_t w;

	if (n <= 8) {
		w = hex8_word((uint32_t)v) >> ((8 - n) * 8);
		memcpy(p, &w, 8);
	} else {
		w = hex8_word((uint32_t)(v >> 32)) >> ((16 - n) * 8);
		memcpy(p, &w, 8);
		w = hex8_word((uint32_t)v);
		memcpy(p + n - 8, &w, 8);
	}
	return p + n;
}
#else
#define put_hex16 put_hex
#endif

char *kt_fmt_udec(char *p, uint64_t v, int width, char pad)
{
	char tmp[24];
	char *s = udec_rev(tmp + sizeof(tmp), v);
	int n = (int)(tmp + sizeof(tmp) - s);

	for (; width > n; width--)
		*p++ = pad;
	memcpy(p, s, (size_t)n);
	return p + n;
}

char *kt_fmt_sdec(char *p, int64_t v, int width)
{
	char tmp[24];
	char *s = udec_rev(tmp + sizeof(tmp), v < 0 ? -(uint64_t)v : (uint64_t)v);
	int n;

	if (v < 0)
		*--s = '-';
	n = (int)(tmp + sizeof(tmp) - s);
	for (; width > n; width--)
		*p++ = ' ';
	memcpy(p, s, (size_t)n);
	return p + n;
}

char *kt_fmt_str_left(char *p, const char *s, size_t len, int width)
{
	memcpy(p, s, len);
	p += len;
	for (; width > (int)len; width--)
		*p++ = ' ';
	return p;
}

char *kt_fmt_str_right(char *p, const char *s, size_t len, int width)
{
	for (; width > (int)len; width--)
		*p++ = ' ';
	memcpy(p, s, len);
	return p + len;
}

char *kt_fmt_hex(char *p, uint64_t v)
{
	return put_hex(p, v);
}

char *kt_fmt_time(char *p, unsigned long long ts, int prec, int div)
{
	unsigned long long p10 = 1;
	int i;

	if (div) {
		ts += (unsigned long long)(div / 2);
		ts /= (unsigned long long)div;
	}
	for (i = 0; i < prec; i++)
		p10 *= 10;
	if (p10 > 1) {
		p = kt_fmt_udec(p, ts / p10, 5, ' ');
		*p++ = '.';
		return kt_fmt_udec(p, ts % p10, prec, '0');
	}
	return kt_fmt_udec(p, ts, 12, ' ');
}

/* ------------------------------------------------------------------ */
/* Compiled forms                                                      */

enum ex_kind {
	EX_CONST,	/* val */
	EX_LOAD,	/* zero-extended number of size at off, 0 beyond the record */
	EX_MASK,	/* a & val: libtraceevent's type casts */
	EX_BIN,		/* a op b (unary ops: a is 0) */
	EX_LOADK,	/* (field at off, size) op val, then & mask: REC->x >> 20 */
	EX_COND,	/* a ? b : c */
	EX_DYNLEN,	/* length of dynamic field f */
	EX_DYNADDR,	/* host address of dynamic field f's data */
	EX_INDEX,	/* element b of dynamic or fixed array f, then mask val */
};

enum bin_op {
	OP_NOT, OP_BNOT, OP_NE, OP_LOR, OP_OR, OP_LAND, OP_AND, OP_LT, OP_SHL,
	OP_LE, OP_GT, OP_SHR, OP_GE, OP_EQ, OP_SUB, OP_ADD, OP_DIV, OP_MOD,
	OP_MUL,
};

struct ff_dyn {			/* a dynamic (__data_loc) field */
	int off;
	int size;
	bool rel;
};

struct ff_expr {
	unsigned char kind;
	unsigned char op;
	unsigned char size;	/* EX_LOAD / EX_INDEX element size */
	bool dyn;		/* EX_INDEX: f is a dynamic array */
	int off;		/* EX_LOAD offset, EX_INDEX fixed array offset */
	struct ff_dyn f;
	uint64_t val;
	uint64_t mask;		/* EX_LOADK */
	struct ff_expr *a, *b, *c;
};

/* A printf conversion as libtraceevent hands it to vsnprintf. */
struct ff_spec {
	char fmt[32];		/* the conversion text, "%-08lx" */
	char conv;		/* d i u x X o s p */
	signed char ls;		/* libtraceevent's length count */
	bool simple;		/* fast emitters apply; else snprintf(fmt) */
	bool plain;		/* simple, and no width, precision or '*' */
	bool minus, zero, hash;
	int width;		/* -1 none */
	int prec;		/* -1 none */
	unsigned char star;	/* 0, or STAR_WIDTH / STAR_PREC: from len_arg */
	unsigned char bits;	/* 8 16 32 64 */
};

#define STAR_WIDTH 1
#define STAR_PREC 2

enum str_kind {
	S_NONE,		/* prints nothing */
	S_CONST,	/* str */
	S_CHARS,	/* fixed char array at off, len bytes (0: rest of record) */
	S_DSTR,		/* __get_str(dyn) */
	S_FLAGS,	/* __print_flags(e, delim, syms) */
	S_SYMBOL,	/* __print_symbolic(e, syms) */
	S_HEX,		/* __print_hex / __print_hex_str */
	S_INTARR,	/* __print_array */
	S_BITMASK,	/* __get_bitmask */
	S_CPUMASK,	/* __get_cpumask: "0-3,8" */
	S_PRINTK,	/* %s of a pointer: the kernel string at it, or its hex */
	S_COND,		/* e ? a : b */
};

struct ff_sym {
	long long val;
	const char *str;	/* "(null)" for a NULL string, as printf prints it */
	size_t len;
};

struct ff_str {
	unsigned char kind;
	bool spaced;		/* S_HEX: __print_hex (spaces), not _str */
	bool dyn;		/* S_HEX/S_INTARR base is dynamic */
	int off;		/* S_CHARS / fixed base offset */
	int len;		/* S_CHARS length (0: to the end of the record) */
	struct ff_dyn f;
	const char *str;	/* S_CONST; S_FLAGS delimiter (may be NULL) */
	size_t slen;		/* strlen(str) */
	struct ff_sym *syms;
	uint64_t *fvals;	/* S_FLAGS: syms' values, 0 for negative ones */
	int nsyms;
	int neg_end;		/* S_FLAGS: no negative value at or after this */
	struct ff_expr *e, *e2;	/* value / count; el_size */
	struct ff_str *a, *b;
};

enum seg_kind {
	G_LIT,		/* only the literal prefix */
	G_INT,		/* number e with spec */
	G_STR,		/* string s with spec */
	G_PTR,		/* %p: host printf %p of e */
	G_FUNC,		/* %ps %pS %pf %pF */
	G_MAC,		/* %pM %pm %pMF %pMR ... */
	G_BSTR,		/* %p of a string literal: the literal */
	/* plain %d %u %x (no flags, width or precision) of spec.bits */
	G_DEC,
	G_UDEC,
	G_HEX,
	/* the same with a width: %08lx %5d %-6u */
	G_DECW,
	G_UDECW,
	G_HEXW,
	G_IP4,		/* %pI4 %pi4 of a 4-byte field (mac_rev: reversed) */
	G_IP6,		/* %pI6 %pi6 %pI6c of a 16-byte field */
	G_IPSA,		/* %pIS[p][c] of a sockaddr field or dynamic array */
	G_UUID,		/* %pU[bBlL] of a 16-byte field */
	G_CONST,	/* fixed text (INVALIDIPv4 ...) */
	G_CHOICE,	/* plain %s of e ? "a" : "b" */
	G_CHARS,	/* plain %s of a char array */
	G_DSTR,		/* plain %s of __get_str() */
};

/* Hot fields first: a plain conversion is decided within one cache line. */
struct ff_seg {
	unsigned char kind;
	unsigned char bits;	/* G_DEC G_UDEC G_HEX: spec.bits */
	bool direct;		/* e is a plain field load at ld_off, ld_size */
	unsigned char ld_size;
	unsigned int prelen;	/* literal text printed before the conversion */
	char prebuf[16];	/* that text when it fits (pre points here) */
	const char *pre;	/* padded: 16 bytes readable */
	struct ff_expr *e;
	int ld_off;
	struct ff_str *s;
	struct ff_expr *len;	/* '*' argument, NULL when none */
	bool func_off;		/* G_FUNC: add +0x offset */
	bool mac_rev;		/* G_MAC, G_IP4: bytes reversed */
	char ip;		/* G_IP4, G_IP6: 'I' or 'i' */
	bool ip6c;		/* G_IP6, G_IPSA: compressed */
	bool ip_port;		/* G_IPSA: with the port */
	bool guid;		/* G_UUID: little-endian first fields */
	bool upper;		/* G_UUID: %02X */
	bool dyn;		/* G_IPSA: a dynamic array */
	struct ff_dyn f;	/* G_IPSA dynamic array */
	int sa_len;		/* G_IPSA field size */
	int mac_off;		/* G_MAC, G_IP4, G_IP6: field offset */
	const char *mac_sep;
	const char *lit;	/* G_BSTR, G_CONST */
	size_t litlen;
	struct ff_spec spec;
};

enum plug_kind {
	P_NONE,
	P_SCHED_SWITCH,
	P_SCHED_WAKEUP,
	P_KMEM,		/* "(func+0xoff) " then the format */
	P_HRTIMER_EXPIRE,
	P_HRTIMER_START,
	P_TLB_FLUSH,
	P_FUTEX,	/* the futex plugin's text, or the format for other ops */
};

struct ff_field {			/* a field a plugin reads */
	int off;
	int size;
	bool ok;
};

struct ff_prog {
	struct tep_event *ev;
	int nsegs;
	struct ff_seg *segs;
	enum plug_kind plug;
	struct ff_field pf[8];		/* plugin fields, see plugin code */
	int probe_size;			/* zeroed record for printk probes */
	int printk_off;			/* the pointer printed as a string */
	int need;			/* record bytes the plugin reads */
	const char *why;		/* NULL when compiled */
	/*
	 * Only literals and numbers of fixed fields (most formats, the
	 * syscalls' above all): a record of fixed_end bytes and an output
	 * of fixed_max bytes of room are run by run_fixed(), unchecked.
	 */
	bool fixed;
	int fixed_end;
	size_t fixed_max;
};

/* Compile-time allocations of one kt_fastfmt live in one arena. */
struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char mem[];
};

#define FUNC_CACHE 512
#define PRINTK_SLOTS 4096	/* printk strings remembered (a power of 2) */

struct printk_ent {
	unsigned long long addr;
	char *str;		/* NULL: free slot */
	size_t len;
};
#define COMM_CACHE 1024

struct func_ent {
	unsigned long long addr;
	unsigned long long start;
	const char *name;	/* NULL: not found */
	size_t len;		/* strlen(name) */
	bool valid;
};

struct kt_fastfmt {
	struct tep_handle *tep;
	bool usable;		/* host endian and 64-bit longs */
	int nprogs;
	struct ff_prog **progs;	/* by event id */
	struct arena_blk *arena;
	struct func_ent funcs[FUNC_CACHE];
	int comm_pid[COMM_CACHE];	/* pids already registered (+1) */
	struct printk_ent *printk;	/* PRINTK_SLOTS, allocated on use */
	char *scratch;			/* SCRATCH bytes, for kt_fastfmt_seq() */
};

/* The longest info text kt_fastfmt_seq() builds outside the trace_seq. */
#define SCRATCH (1 << 17)

/* Literals are allocated with this much slack to be copied 16 at a time. */
#define LIT_PAD 17

static void *arena_alloc(struct kt_fastfmt *ff, size_t n)
{
	struct arena_blk *b = ff->arena;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 16384 ? n : 16384;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = ff->arena;
		ff->arena = b;
	}
	b->used += n;
	return memset(b->mem + b->used - n, 0, n);
}

/* ------------------------------------------------------------------ */
/* Runtime                                                             */

struct run {
	const unsigned char *data;
	int size;
	char *p, *end;
	int err;		/* -ENOTSUP / -ENOSPC once something failed */
	struct kt_fastfmt *ff;
	const struct ff_prog *pg;
	bool probing;		/* printk_probe()'s own run */
	char *mark;		/* probing: where the printk string goes */
};

static inline bool room(struct run *r, size_t n)
{
	if ((size_t)(r->end - r->p) >= n)
		return true;
	r->err = -ENOSPC;
	r->p = r->end;
	return false;
}

static inline void put(struct run *r, const char *s, size_t n)
{
	if (room(r, n)) {
		memcpy(r->p, s, n);
		r->p += n;
	}
}

static inline void putch(struct run *r, char c)
{
	if (room(r, 1))
		*r->p++ = c;
}

static inline uint64_t load(const unsigned char *p, int size)
{
	switch (size) {
	case 1:
		return *p;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
	return 0;
}

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

/* One operator of eval_num_arg() on unsigned 64-bit values. */
static inline uint64_t fold(int op, uint64_t a, uint64_t b)
{
	switch (op) {
	case OP_NOT:	return !b;
	case OP_BNOT:	return ~b;
	case OP_NE:	return a != b;
	case OP_LOR:	return a || b;
	case OP_OR:	return a | b;
	case OP_LAND:	return a && b;
	case OP_AND:	return a & b;
	case OP_LT:	return a < b;
	case OP_SHL:	return a << (b & 63);
	case OP_LE:	return a <= b;
	case OP_GT:	return a > b;
	case OP_SHR:	return a >> (b & 63);
	case OP_GE:	return a >= b;
	case OP_EQ:	return a == b;
	case OP_SUB:	return a - b;
	case OP_ADD:	return a + b;
	case OP_MUL:	return a * b;
	case OP_DIV:	return a / b;
	case OP_MOD:	return a % b;
	}
	return 0;
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
static unsigned char *probe_record(const struct ff_prog *pg)
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

	buf = probe_record(pg);
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
			r->p = kt_fmt_udec(r->p, v, 3, '0');
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
static const struct func_ent *func_lookup(struct kt_fastfmt *ff,
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
	const struct func_ent *fe = func_lookup(r->ff, v);

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
	const struct ff_seg *g = pg->segs, *end = pg->segs + pg->nsegs;

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

/* Is pg one for run_fixed()?  Sets fixed, fixed_end, fixed_max. */
static void mark_fixed(struct ff_prog *pg)
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
	pg->fixed_end = end;
	pg->fixed_max = max;
}

/*
 * run_segs() for a fixed program when the record holds every field it
 * reads and the output has fixed_max bytes of room: the same emitters,
 * without a bounds or room check per conversion.
 */
static void run_fixed(struct run *r, const struct ff_prog *pg)
{
	const struct ff_seg *g = pg->segs, *end = pg->segs + pg->nsegs;
	char *p = r->p;
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
		v = load(r->data + g->ld_off, g->ld_size);
		if (g->kind == G_HEX)
			p = put_hex16(p, zext(v, g->bits));
		else if (g->kind == G_DEC)
			p = put_sdec(p, (int64_t)sext(v, g->bits));
		else
			p = put_udec(p, zext(v, g->bits));
	}
	r->p = p;
}

/* ------------------------------------------------------------------ */
/* Plugins                                                             */

/* Plugin field slots. */
enum {
	SW_PREV_PID, SW_PREV_COMM, SW_PREV_PRIO, SW_PREV_STATE,
	SW_NEXT_PID, SW_NEXT_COMM, SW_NEXT_PRIO,
};
enum { WK_PID, WK_COMM, WK_PRIO, WK_SUCCESS, WK_TARGET_CPU };
enum { KM_CALL_SITE };
enum { HR_TIMER, HR_NOW, HR_FUNCTION, HR_EXPIRES, HR_SOFTEXPIRES };
enum { TLB_PAGES, TLB_REASON };
enum { FX_UADDR, FX_OP, FX_VAL, FX_UTIME, FX_UADDR2, FX_VAL3 };

static inline uint64_t pfield(const struct run *r, const struct ff_field *f)
{
	return load(r->data + f->off, f->size);
}

/*
 * The sched plugin's comm: "%.*s" of the field, and registered with its
 * pid as the plugin does (tep_register_comm() only adds unknown pids, so
 * one call per pid suffices).
 */
static void put_comm(struct run *r, const struct ff_field *f, uint64_t pid)
{
	const char *c = (const char *)r->data + f->off;
	size_t n = strnlen(c, (size_t)f->size);
	int *slot = &r->ff->comm_pid[(unsigned int)pid % COMM_CACHE];

	if (room(r, n)) {
		memcpy(r->p, c, n);
		r->p += n;
	}
	if (*slot != (int)pid + 1) {
		char comm[256];

		memcpy(comm, c, n < sizeof(comm) ? n : sizeof(comm) - 1);
		comm[n < sizeof(comm) ? n : sizeof(comm) - 1] = 0;
		tep_register_comm(r->ff->tep, comm, (int)pid);
		*slot = (int)pid + 1;
	}
}

static void put_state(struct run *r, int val)
{
	static const char states[] = "SDTtZXxW";
	bool found = false;
	int i;

	if (!room(r, 16))
		return;
	for (i = 0; i < (int)sizeof(states) - 1; i++) {
		if (!(val & (1 << i)))
			continue;
		if (found)
			*r->p++ = '|';
		found = true;
		*r->p++ = states[i];
	}
	if (!found)
		*r->p++ = 'R';
}

/* "comm:pid [prio]" as the plugin prints each side of a switch. */
static void put_task(struct run *r, const struct ff_field *comm,
		     const struct ff_field *pidf, const struct ff_field *prio)
{
	uint64_t pid = pfield(r, pidf);

	put_comm(r, comm, pid);
	if (!room(r, 40))
		return;
	*r->p++ = ':';
	r->p = put_sdec(r->p, (int64_t)pid);
	memcpy(r->p, " [", 2);
	r->p = put_sdec(r->p + 2, (int)pfield(r, prio));
	*r->p++ = ']';
}

static void run_sched_switch(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;

	put_task(r, &f[SW_PREV_COMM], &f[SW_PREV_PID], &f[SW_PREV_PRIO]);
	putch(r, ' ');
	put_state(r, (int)pfield(r, &f[SW_PREV_STATE]));
	put(r, " ==> ", 5);
	put_task(r, &f[SW_NEXT_COMM], &f[SW_NEXT_PID], &f[SW_NEXT_PRIO]);
}

static void run_sched_wakeup(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;
	uint64_t pid = pfield(r, &f[WK_PID]);

	if (f[WK_COMM].ok) {
		put_comm(r, &f[WK_COMM], pid);
		putch(r, ':');
	}
	if (!room(r, 96))
		return;
	r->p = put_sdec(r->p, (int64_t)pid);
	if (f[WK_PRIO].ok) {
		memcpy(r->p, " [", 2);
		r->p = put_sdec(r->p + 2, (int64_t)pfield(r, &f[WK_PRIO]));
		*r->p++ = ']';
	}
	if (f[WK_SUCCESS].ok) {
		memcpy(r->p, " success=", 9);
		r->p = put_sdec(r->p + 9, (int64_t)pfield(r, &f[WK_SUCCESS]));
	}
	if (f[WK_TARGET_CPU].ok) {
		memcpy(r->p, " CPU:", 5);
		r->p = kt_fmt_udec(r->p + 5, pfield(r, &f[WK_TARGET_CPU]), 3, '0');
	}
}

static void run_kmem(struct run *r, const struct ff_prog *pg)
{
	uint64_t v = pfield(r, &pg->pf[KM_CALL_SITE]);
	const struct func_ent *fe = func_lookup(r->ff, v);

	if (!fe->name)
		return;
	put(r, "(", 1);
	put(r, fe->name, fe->len);
	if (!room(r, 16))
		return;
	memcpy(r->p, "+0x", 3);
	r->p = put_hex(r->p + 3, (unsigned int)(int)(v - fe->start));
	*r->p++ = ')';
	*r->p++ = ' ';
}

/* tep_print_func_field()'s " function=%s" text. */
static void put_func_field(struct run *r, uint64_t v)
{
	const struct func_ent *fe = func_lookup(r->ff, v);
	size_t n;

	put(r, " function=", 10);
	/* (the plugin formats it in a 128-byte buffer) */
	if (fe->name) {
		/* "%s/0x%llx" of name and start - v (sic), cut at 127 bytes */
		char *p0;

		n = fe->len;
		if (!room(r, n + 19))
			return;
		p0 = r->p;
		memcpy(r->p, fe->name, n);
		memcpy(r->p + n, "/0x", 3);
		r->p = put_hex(r->p + n + 3, fe->start - v);
		if (r->p - p0 > 127)
			r->p = p0 + 127;
		return;
	}
	if (!room(r, 18))
		return;
	memcpy(r->p, "0x", 2);
	r->p += 2;
	n = (size_t)((v ? (67 - __builtin_clzll(v)) / 4 : 1));
	for (; n < 8; n++)
		*r->p++ = '0';
	r->p = put_hex(r->p, v);
}

static void run_hrtimer(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;

	if (!room(r, 64))
		return;
	memcpy(r->p, "hrtimer=0x", 10);
	r->p = put_hex(r->p + 10, pfield(r, &f[HR_TIMER]));
	if (pg->plug == P_HRTIMER_EXPIRE) {
		memcpy(r->p, " now=", 5);
		r->p = put_udec(r->p + 5, pfield(r, &f[HR_NOW]));
		if (f[HR_FUNCTION].ok)
			put_func_field(r, pfield(r, &f[HR_FUNCTION]));
		return;
	}
	if (f[HR_FUNCTION].ok)
		put_func_field(r, pfield(r, &f[HR_FUNCTION]));
	if (!room(r, 64))
		return;
	memcpy(r->p, " expires=", 9);
	r->p = put_udec(r->p + 9, pfield(r, &f[HR_EXPIRES]));
	memcpy(r->p, " softexpires=", 13);
	r->p = put_udec(r->p + 13, pfield(r, &f[HR_SOFTEXPIRES]));
}

static void run_tlb_flush(struct run *r, const struct ff_prog *pg)
{
	static const char *const reasons[] = {
		"flush on task switch", "remote shootdown", "local shootdown",
		"local mm shootdown",
	};
	uint64_t reason = pfield(r, &pg->pf[TLB_REASON]);

	if (!room(r, 64))
		return;
	memcpy(r->p, "pages=", 6);
	r->p = put_sdec(r->p + 6, (int64_t)pfield(r, &pg->pf[TLB_PAGES]));
	memcpy(r->p, " reason=", 8);
	r->p += 8;
	if (reason < 4)
		put(r, reasons[reason], strlen(reasons[reason]));
	if (!room(r, 24))
		return;
	memcpy(r->p, " (", 2);
	r->p = put_sdec(r->p + 2, (int64_t)reason);
	*r->p++ = ')';
}

/* " name=0x%08llx" */
static void put_hex8(struct run *r, const char *name, uint64_t v)
{
	char tmp[16];
	int n = (int)(put_hex(tmp, v) - tmp);

	if (!room(r, 40))
		return;
	*r->p++ = ' ';
	r->p = stpcpy(r->p, name);
	memcpy(r->p, "=0x", 3);
	r->p += 3;
	for (; n < 8; n++)
		*r->p++ = '0';
	r->p = put_hex(r->p, v);
}

/* " name=%llu" */
static void put_named_u(struct run *r, const char *name, uint64_t v)
{
	if (!room(r, 40))
		return;
	*r->p++ = ' ';
	r->p = stpcpy(r->p, name);
	*r->p++ = '=';
	r->p = put_udec(r->p, v);
}

/* The futex plugin's table: how each op prints val, utime, uaddr2, val3. */
enum { FX_NO, FX_HEX, FX_DEC };
static const struct {
	const char *name;
	unsigned char val, utime, uaddr2, val3;	/* utime FX_DEC: "val2" */
} futex_ops[] = {
	{ "FUTEX_WAIT", FX_HEX, FX_HEX, FX_NO, FX_NO },
	{ "FUTEX_WAKE", FX_DEC, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_FD", FX_DEC, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_REQUEUE", FX_DEC, FX_DEC, FX_HEX, FX_NO },
	{ "FUTEX_CMP_REQUEUE", FX_DEC, FX_DEC, FX_HEX, FX_HEX },
	{ "FUTEX_WAKE_OP", FX_DEC, FX_DEC, FX_HEX, FX_HEX },
	{ "FUTEX_LOCK_PI", FX_NO, FX_HEX, FX_NO, FX_NO },
	{ "FUTEX_UNLOCK_PI", FX_NO, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_TRYLOCK_PI", FX_NO, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_WAIT_BITSET", FX_HEX, FX_HEX, FX_NO, FX_HEX },
	{ "FUTEX_WAKE_BITSET", FX_DEC, FX_NO, FX_NO, FX_HEX },
	{ "FUTEX_WAIT_REQUEUE_PI", FX_HEX, FX_HEX, FX_HEX, FX_HEX },
	{ "FUTEX_CMP_REQUEUE_PI", FX_DEC, FX_DEC, FX_HEX, FX_HEX },
};

/* Returns false when the plugin leaves the event to its format. */
static bool run_futex(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;
	uint64_t op = pfield(r, &f[FX_OP]), cmd = op & ~(uint64_t)(128 | 256);
	uint64_t v;

	if (cmd >= sizeof(futex_ops) / sizeof(futex_ops[0]))
		return false;
	put(r, "op=", 3);
	put(r, futex_ops[cmd].name, strlen(futex_ops[cmd].name));
	if (op & 128)
		put(r, "|FUTEX_PRIVATE_FLAG", 19);
	if (op & 256)
		put(r, "|FUTEX_CLOCK_REALTIME", 21);
	put_hex8(r, "uaddr", pfield(r, &f[FX_UADDR]));
	v = pfield(r, &f[FX_VAL]);
	if (futex_ops[cmd].val == FX_HEX)
		put_hex8(r, "val", v);
	else if (futex_ops[cmd].val == FX_DEC)
		put_named_u(r, "val", v);
	v = pfield(r, &f[FX_UTIME]);
	if (futex_ops[cmd].utime == FX_HEX)
		put_hex8(r, "utime", v);
	else if (futex_ops[cmd].utime == FX_DEC)
		put_named_u(r, "val2", v);
	if (futex_ops[cmd].uaddr2)
		put_hex8(r, "uaddr2", pfield(r, &f[FX_UADDR2]));
	if (futex_ops[cmd].val3)
		put_hex8(r, "val3", pfield(r, &f[FX_VAL3]));
	return true;
}

/* ------------------------------------------------------------------ */
/* Compiler                                                            */

struct cc {
	struct kt_fastfmt *ff;
	struct tep_event *ev;
	const char *why;
	bool need_prime;	/* a symbol atom libtraceevent resolves lazily */
	int depth;		/* of cc_str() calls */
	int printks;		/* S_PRINTK pieces */
	int printk_off;
	bool has_div;
};

static bool fail(struct cc *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

static struct ff_expr *new_expr(struct cc *c, int kind)
{
	struct ff_expr *e = arena_alloc(c->ff, sizeof(*e));

	if (!e) {
		fail(c, "out of memory");
		return NULL;
	}
	e->kind = (unsigned char)kind;
	return e;
}

static struct ff_expr *const_expr(struct cc *c, uint64_t v)
{
	struct ff_expr *e = new_expr(c, EX_CONST);

	if (e)
		e->val = v;
	return e;
}

static struct tep_format_field *field_of(struct cc *c,
					 struct tep_print_arg_field *af)
{
	struct tep_format_field *f = af->field;

	if (!f)
		f = tep_find_any_field(c->ev, af->name);
	if (!f)
		fail(c, "field not found");
	return f;
}

static bool dyn_of(struct cc *c, struct tep_format_field *f, struct ff_dyn *d)
{
	if (!f)
		return fail(c, "dynamic field not found");
	d->off = f->offset;
	d->size = f->size;
	d->rel = !!(f->flags & TEP_FIELD_IS_RELATIVE);
	return true;
}

/* eval_type_str() of libtraceevent as a mask. */
static uint64_t type_mask(const char *type, bool pointer, bool *ok)
{
	size_t len = strlen(type);
	char ref[64];

	*ok = true;
	if (len < 2)
		return ~0ULL;
	if (pointer) {
		if (type[len - 1] != '*' || len > sizeof(ref)) {
			*ok = false;	/* libtraceevent warns */
			return ~0ULL;
		}
		memcpy(ref, type, len - 2);
		ref[len - 2] = 0;
		return type_mask(ref, false, ok);
	}
	if (type[len - 1] == '*')
		return ~0ULL;
	if (!strncmp(type, "struct", 6))
		return ~0ULL;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strcmp(type, "u64") || !strcmp(type, "s64"))
		return ~0ULL;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return ~0ULL;
}

static struct ff_expr *cc_num(struct cc *c, struct tep_print_arg *a);

static struct ff_expr *mask_expr(struct cc *c, struct ff_expr *in, uint64_t m)
{
	struct ff_expr *e;

	if (!in)
		return NULL;
	if (m == ~0ULL)
		return in;
	if (in->kind == EX_CONST) {
		in->val &= m;
		return in;
	}
	if (in->kind == EX_LOADK) {
		in->mask &= m;
		return in;
	}
	if (in->kind == EX_LOAD) {
		/* (u32)REC->x: x | 0, masked */
		in->kind = EX_LOADK;
		in->op = OP_OR;
		in->val = 0;
		in->mask = m;
		return in;
	}
	e = new_expr(c, EX_MASK);
	if (e) {
		e->a = in;
		e->val = m;
	}
	return e;
}

static struct ff_expr *cc_index(struct cc *c, struct tep_print_arg *a)
{
	struct tep_print_arg *larg = a->op.left, *typearg = NULL;
	struct tep_format_field *f;
	struct ff_expr *e, *idx;
	uint64_t m = ~0ULL;
	bool ok;

	idx = cc_num(c, a->op.right);
	if (!idx)
		return NULL;
	while (larg && larg->type == TEP_PRINT_TYPE) {
		if (!typearg)
			typearg = larg;
		larg = larg->typecast.item;
	}
	if (!larg)
		return fail(c, "bad array"), NULL;
	if (typearg) {
		m = type_mask(typearg->typecast.type, true, &ok);
		if (!ok)
			return fail(c, "array cast not a pointer"), NULL;
	}
	e = new_expr(c, EX_INDEX);
	if (!e)
		return NULL;
	e->b = idx;
	e->val = m;
	switch (larg->type) {
	case TEP_PRINT_DYNAMIC_ARRAY:
		f = larg->dynarray.field;
		if (!dyn_of(c, f, &e->f))
			return NULL;
		e->dyn = true;
		e->size = (unsigned char)(f->elementsize ? f->elementsize :
					  (unsigned int)tep_get_long_size(c->ff->tep));
		if (f->elementsize > 8)
			e->size = 16;	/* never 1 2 4 8: loads 0 */
		return e;
	case TEP_PRINT_FIELD:
		f = field_of(c, &larg->field);
		if (!f)
			return NULL;
		e->off = f->offset;
		e->size = (unsigned char)(f->elementsize > 8 ? 16 : f->elementsize);
		if (idx->kind == EX_CONST && idx->val < 65536) {
			/* REC->args[3]: a plain load */
			e->kind = EX_LOAD;
			e->off = f->offset + (int)(idx->val * e->size);
			return mask_expr(c, e, m);
		}
		return e;
	default:
		return fail(c, "array of unsupported kind"), NULL;
	}
}

static int bin_op(const char *op)
{
	switch (op[0]) {
	case '!':
		return op[1] == 0 ? OP_NOT : op[1] == '=' ? OP_NE : -1;
	case '~':
		return OP_BNOT;
	case '|':
		return op[1] ? OP_LOR : OP_OR;
	case '&':
		return op[1] ? OP_LAND : OP_AND;
	case '<':
		return op[1] == 0 ? OP_LT : op[1] == '<' ? OP_SHL :
			op[1] == '=' ? OP_LE : -1;
	case '>':
		return op[1] == 0 ? OP_GT : op[1] == '>' ? OP_SHR :
			op[1] == '=' ? OP_GE : -1;
	case '=':
		return op[1] == '=' ? OP_EQ : -1;
	case '-':
		return OP_SUB;
	case '+':
		return OP_ADD;
	case '/':
		return OP_DIV;
	case '%':
		return OP_MOD;
	case '*':
		return OP_MUL;
	}
	return -1;
}

static struct ff_expr *cc_op(struct cc *c, struct tep_print_arg *a)
{
	struct ff_expr *e, *l, *r;
	int op;

	if (!a->op.op)
		return fail(c, "op without operator"), NULL;
	if (!strcmp(a->op.op, "["))
		return cc_index(c, a);
	if (!strcmp(a->op.op, "?")) {
		struct tep_print_arg *br = a->op.right;

		if (!br || br->type != TEP_PRINT_OP || !br->op.left ||
		    !br->op.right)
			return fail(c, "malformed ?:"), NULL;
		e = new_expr(c, EX_COND);
		if (!e)
			return NULL;
		e->a = cc_num(c, a->op.left);
		e->b = cc_num(c, br->op.left);
		e->c = cc_num(c, br->op.right);
		if (!e->a || !e->b || !e->c)
			return NULL;
		if (e->a->kind == EX_CONST)
			return e->a->val ? e->b : e->c;
		return e;
	}
	op = bin_op(a->op.op);
	if (op < 0)
		return fail(c, "unknown operator"), NULL;
	if (!a->op.left || !a->op.right)
		return fail(c, "operand missing"), NULL;
	l = cc_num(c, a->op.left);
	r = cc_num(c, a->op.right);
	if (!l || !r)
		return NULL;
	if (op == OP_DIV || op == OP_MOD) {
		/* a divisor from the record could be 0 while priming */
		if (r->kind != EX_CONST)
			c->has_div = true;
		else if (!r->val)
			return fail(c, "division by zero"), NULL;
	}
	if (l->kind == EX_CONST && r->kind == EX_CONST)
		return const_expr(c, fold(op, l->val, r->val));
	if (l->kind == EX_LOAD && r->kind == EX_CONST) {
		e = new_expr(c, EX_LOADK);
		if (e) {
			e->op = (unsigned char)op;
			e->off = l->off;
			e->size = l->size;
			e->val = r->val;
			e->mask = ~0ULL;
		}
		return e;
	}
	e = new_expr(c, EX_BIN);
	if (e) {
		e->op = (unsigned char)op;
		e->a = l;
		e->b = r;
	}
	return e;
}

static struct ff_expr *cc_num(struct cc *c, struct tep_print_arg *a)
{
	struct tep_format_field *f;
	struct ff_expr *e;
	uint64_t v;
	bool ok;

	if (!a)
		return fail(c, "argument missing"), NULL;
	switch (a->type) {
	case TEP_PRINT_NULL:
		return const_expr(c, 0);
	case TEP_PRINT_ATOM:
		v = strtoull(a->atom.atom, NULL, 0);
		if (!v && !isdigit((unsigned char)a->atom.atom[0]))
			c->need_prime = true;	/* a kernel symbol's address */
		return const_expr(c, v);
	case TEP_PRINT_FIELD:
		f = field_of(c, &a->field);
		if (!f)
			return NULL;
		e = new_expr(c, EX_LOAD);
		if (e) {
			e->off = f->offset;
			e->size = (unsigned char)(f->size > 8 ? 16 : f->size);
		}
		return e;
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
	case TEP_PRINT_INT_ARRAY:
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
	case TEP_PRINT_STRING:
	case TEP_PRINT_BSTRING:
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		return const_expr(c, 0);
	case TEP_PRINT_TYPE:
		v = type_mask(a->typecast.type, false, &ok);
		return mask_expr(c, cc_num(c, a->typecast.item), v);
	case TEP_PRINT_FUNC:
		return fail(c, "print function"), NULL;
	case TEP_PRINT_OP:
		return cc_op(c, a);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
	case TEP_PRINT_DYNAMIC_ARRAY:
		e = new_expr(c, a->type == TEP_PRINT_DYNAMIC_ARRAY ?
			     EX_DYNADDR : EX_DYNLEN);
		if (e && !dyn_of(c, a->dynarray.field, &e->f))
			return NULL;
		return e;
	}
	return const_expr(c, 0);
}

/* libtraceevent's eval_flag(): numbers, or a few softirq/hrtimer names. */
static long long flag_value(const char *s)
{
	static const struct {
		const char *name;
		long long val;
	} names[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 },
		{ "NET_TX_SOFTIRQ", 2 }, { "NET_RX_SOFTIRQ", 3 },
		{ "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 },
		{ "HRTIMER_SOFTIRQ", 8 }, { "RCU_SOFTIRQ", 9 },
		{ "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	size_t i;

	if (isdigit((unsigned char)s[0]))
		return (long long)strtoull(s, NULL, 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, s))
			return names[i].val;
	return -1;
}

static bool cc_syms(struct cc *c, struct tep_print_flag_sym *list,
		    struct ff_str *s)
{
	struct tep_print_flag_sym *fs;
	int n = 0;

	for (fs = list; fs; fs = fs->next)
		n++;
	s->syms = arena_alloc(c->ff, sizeof(*s->syms) * (size_t)(n ? n : 1));
	if (!s->syms)
		return fail(c, "out of memory");
	s->nsyms = n;
	for (n = 0, fs = list; fs; fs = fs->next, n++) {
		if (!fs->value)
			return fail(c, "flag without value");
		s->syms[n].val = flag_value(fs->value);
		s->syms[n].str = fs->str ? fs->str : "(null)";
		s->syms[n].len = strlen(s->syms[n].str);
	}
	return true;
}

/*
 * __print_flags() never prints an entry whose value is 0, and once the
 * value's bits are all named only entries that did not evaluate (-1)
 * can still print: drop the former, remember where the latter end.
 */
static bool flags_prune(struct cc *c, struct ff_str *s)
{
	int i, n = 0;

	s->neg_end = 0;
	for (i = 0; i < s->nsyms; i++) {
		if (!s->syms[i].val)
			continue;
		s->syms[n++] = s->syms[i];
		if (s->syms[n - 1].val < 0)
			s->neg_end = n;
	}
	s->nsyms = n;
	/* the values alone, contiguous, for the scan */
	s->fvals = arena_alloc(c->ff, sizeof(*s->fvals) * (size_t)(n ? n : 1));
	if (!s->fvals)
		return fail(c, "out of memory");
	for (i = 0; i < n; i++)
		s->fvals[i] = s->syms[i].val > 0 ? (uint64_t)s->syms[i].val : 0;
	return true;
}

static bool array_base(struct cc *c, struct tep_print_arg *base,
		       struct ff_str *s)
{
	struct tep_format_field *f;

	if (!base)
		return fail(c, "array base missing");
	if (base->type == TEP_PRINT_DYNAMIC_ARRAY) {
		s->dyn = true;
		return dyn_of(c, base->dynarray.field, &s->f);
	}
	if (base->type != TEP_PRINT_FIELD)
		return fail(c, "array base not a field");
	f = field_of(c, &base->field);
	if (!f)
		return false;
	s->off = f->offset;
	return true;
}

static struct ff_str *cc_str1(struct cc *c, struct tep_print_arg *a);

static struct ff_str *cc_str(struct cc *c, struct tep_print_arg *a)
{
	struct ff_str *s;

	c->depth++;
	s = cc_str1(c, a);
	c->depth--;
	return s;
}

static struct ff_str *cc_str1(struct cc *c, struct tep_print_arg *a)
{
	struct ff_str *s = arena_alloc(c->ff, sizeof(*s));
	struct tep_format_field *f;

	if (!s)
		return fail(c, "out of memory"), NULL;
	if (!a)
		return fail(c, "argument missing"), NULL;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		s->kind = S_CONST;
		s->str = a->atom.atom;
		s->slen = strlen(s->str);
		return s;
	case TEP_PRINT_BSTRING:
		s->kind = S_CONST;
		s->str = a->string.string;
		s->slen = strlen(s->str);
		return s;
	case TEP_PRINT_FIELD:
		f = field_of(c, &a->field);
		if (!f)
			return NULL;
		if (!(f->flags & TEP_FIELD_IS_ARRAY) &&
		    f->size == tep_get_long_size(c->ff->tep)) {
			/* found by probing libtraceevent: see printk_probe() */
			if (c->depth > 1 || c->printks++)
				return fail(c, "%s of a pointer (printk string)"), NULL;
			s->kind = S_PRINTK;
			s->off = f->offset;
			c->printk_off = f->offset;
			return s;
		}
		s->kind = S_CHARS;
		s->off = f->offset;
		s->len = f->size;
		return s;
	case TEP_PRINT_FLAGS:
		s->kind = S_FLAGS;
		s->str = a->flags.delim;
		s->slen = s->str ? strlen(s->str) : 0;
		s->e = cc_num(c, a->flags.field);
		if (!s->e || !cc_syms(c, a->flags.flags, s) || !flags_prune(c, s))
			return NULL;
		return s;
	case TEP_PRINT_SYMBOL:
		s->kind = S_SYMBOL;
		s->e = cc_num(c, a->symbol.field);
		if (!s->e || !cc_syms(c, a->symbol.symbols, s))
			return NULL;
		return s;
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		s->kind = S_HEX;
		s->spaced = a->type == TEP_PRINT_HEX;
		if (!array_base(c, a->hex.field, s))
			return NULL;
		s->e = cc_num(c, a->hex.size);
		return s->e ? s : NULL;
	case TEP_PRINT_INT_ARRAY:
		s->kind = S_INTARR;
		if (!array_base(c, a->int_array.field, s))
			return NULL;
		s->e = cc_num(c, a->int_array.count);
		s->e2 = cc_num(c, a->int_array.el_size);
		return s->e && s->e2 ? s : NULL;
	case TEP_PRINT_STRING:
		f = a->string.field;
		if (!f)
			f = tep_find_any_field(c->ev, a->string.string);
		if (!f) {
			s->kind = S_NONE;	/* libtraceevent prints nothing */
			return s;
		}
		s->kind = S_DSTR;
		return dyn_of(c, f, &s->f) ? s : NULL;
	case TEP_PRINT_BITMASK:
		f = a->bitmask.field;
		if (!f)
			f = tep_find_any_field(c->ev, a->bitmask.bitmask);
		if (!f) {
			s->kind = S_NONE;
			return s;
		}
		s->kind = S_BITMASK;
		return dyn_of(c, f, &s->f) ? s : NULL;
	case TEP_PRINT_OP:
		if (!a->op.op || a->op.op[0] != '?') {
			s->kind = S_NONE;
			return s;
		}
		if (!a->op.right || a->op.right->type != TEP_PRINT_OP)
			return fail(c, "malformed ?:"), NULL;
		s->kind = S_COND;
		s->e = cc_num(c, a->op.left);
		s->a = cc_str(c, a->op.right->op.left);
		s->b = cc_str(c, a->op.right->op.right);
		return s->e && s->a && s->b ? s : NULL;
	case TEP_PRINT_CPUMASK:
		/* libtraceevent dereferences a missing field here: leave it */
		f = a->bitmask.field;
		if (!f)
			f = tep_find_any_field(c->ev, a->bitmask.bitmask);
		if (!f)
			return fail(c, "cpumask field not found"), NULL;
		s->kind = S_CPUMASK;
		return dyn_of(c, f, &s->f) ? s : NULL;
	case TEP_PRINT_FUNC:
		return fail(c, "print function"), NULL;
	default:
		s->kind = S_NONE;
		return s;
	}
}

/*
 * Decode a conversion "%[flags][width][.prec][length]conv" to see whether
 * the fast emitters apply.  Anything off the beaten track keeps
 * simple = false and goes to snprintf with the same text.
 */
static void parse_spec(struct ff_spec *sp)
{
	const char *f = sp->fmt + 1;
	int lh = 0, ll = 0;
	bool z = false, bigl = false;

	sp->simple = false;
	sp->width = -1;
	sp->prec = -1;
	sp->star = 0;
	for (;; f++) {
		if (*f == '-')
			sp->minus = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '#')
			sp->hash = true;
		else
			break;
	}
	if (*f == '*') {
		sp->star = STAR_WIDTH;
		f++;
	} else if (isdigit((unsigned char)*f)) {
		sp->width = 0;
		while (isdigit((unsigned char)*f) && sp->width < 10000)
			sp->width = sp->width * 10 + (*f++ - '0');
	}
	if (*f == '.') {
		f++;
		if (*f == '*') {
			if (sp->star)
				return;
			sp->star = STAR_PREC;
			f++;
		} else {
			sp->prec = 0;
			while (isdigit((unsigned char)*f) && sp->prec < 10000)
				sp->prec = sp->prec * 10 + (*f++ - '0');
		}
	}
	for (;; f++) {
		if (*f == 'h')
			lh++;
		else if (*f == 'l')
			ll++;
		else if (*f == 'z' || *f == 'Z')
			z = true;
		else if (*f == 'L')
			bigl = true;
		else
			break;
	}
	if (*f != sp->conv || f[1])
		return;
	if (sp->width > 4096 || sp->prec > 4096)
		return;
	if ((lh != 0) + (ll != 0) + z + bigl > 1 || lh > 2 || ll > 2)
		return;
	if (sp->conv == 's') {
		/* glibc's '0' and '#' with %s: leave them to it */
		sp->simple = !sp->zero && !sp->hash && !lh && !ll && !z && !bigl;
		return;
	}
	sp->bits = lh == 2 ? 8 : lh == 1 ? 16 : (ll || z || bigl) ? 64 : 32;
	/* the bits must be what libtraceevent's ls count casts to */
	if ((sp->ls == -2 && sp->bits != 8) || (sp->ls == -1 && sp->bits != 16) ||
	    (sp->ls == 0 && sp->bits != 32) || (sp->ls >= 1 && sp->bits != 64))
		return;
	if (sp->hash && (sp->conv == 'd' || sp->conv == 'i' || sp->conv == 'u'))
		return;
	sp->simple = true;
}

/* A conversion with no width, precision or '*': the fast emitters' case. */
static bool plain(struct ff_spec *sp)
{
	sp->plain = sp->simple && sp->width < 0 && sp->prec < 0 && !sp->star;
	return sp->plain;
}

static struct ff_seg *add_seg(struct cc *c, struct ff_seg **segs, int *n,
			      int *cap)
{
	if (*n == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		struct ff_seg *ns = arena_alloc(c->ff, sizeof(*ns) * (size_t)ncap);

		if (!ns) {
			fail(c, "out of memory");
			return NULL;
		}
		if (*n)
			memcpy(ns, *segs, sizeof(*ns) * (size_t)*n);
		*segs = ns;
		*cap = ncap;
	}
	memset(&(*segs)[*n], 0, sizeof(**segs));
	return &(*segs)[(*n)++];
}

static char *arena_strndup(struct cc *c, const char *s, size_t n)
{
	char *d = arena_alloc(c->ff, n + LIT_PAD);

	if (!d) {
		fail(c, "out of memory");
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* Literal text up to the next conversion, with \n \t \r \\ and %% decoded. */
static int cc_literal(struct cc *c, const char *fmt, struct ff_seg *g)
{
	size_t len = strlen(fmt);
	char *buf = arena_alloc(c->ff, len + LIT_PAD);
	int used = 0;
	size_t n = 0;

	if (!buf)
		return fail(c, "out of memory"), -1;
	for (; *fmt; fmt++) {
		if (*fmt == '\\') {
			fmt++;
			used++;
			switch (*fmt) {
			case 'n': buf[n++] = '\n'; break;
			case 't': buf[n++] = '\t'; break;
			case 'r': buf[n++] = '\r'; break;
			case 0:
				return fail(c, "backslash at the end"), -1;
			default: buf[n++] = *fmt; break;
			}
		} else if (*fmt == '%') {
			if (fmt[1] != '%')
				break;
			buf[n++] = '%';
			fmt++;
			used++;
		} else {
			buf[n++] = *fmt;
		}
		used++;
	}
	buf[n] = 0;
	g->kind = G_LIT;
	g->pre = buf;
	g->prelen = (unsigned int)strlen(buf);	/* printed with "%s" */
	return used;
}

/* How many letters after %p libtraceevent takes as part of the pointer. */
static int ptr_ext(const char *f)
{
	int n = 0, i;

	switch (*f) {
	case 'F': case 'S': case 'f': case 's':
		return 1;
	case 'M': case 'm':
		return (f[1] == 'R' || f[1] == 'F') ? 2 : 1;
	case 'I': case 'i':
		i = 2;
		switch (f[1]) {
		case 'S':
			while (f[i] == 'p' || f[i] == 'f' || f[i] == 's') {
				n++;
				i++;
			}
			/* fall through */
		case '4':
			if (f[i] == 'h' || f[i] == 'n' || f[i] == 'l' || f[i] == 'b') {
				n++;
				i++;
			}
			if (f[1] == '4') {
				n++;
				break;
			}
			/* fall through */
		case '6':
			if (f[i] == 'c')
				n++;
			n++;
			break;
		}
		return n + 1;
	case 'U':
		return (f[1] == 'L' || f[1] == 'l' || f[1] == 'B' || f[1] == 'b') ? 2 : 1;
	case 'h':
		return (f[1] == 'C' || f[1] == 'D' || f[1] == 'N') ? 2 : 1;
	}
	return 0;
}

/* %pI4 %pi4 (with h n b l) %pI6 %pi6 %pI6c of a field; %pIS is left out. */
static bool cc_ip(struct cc *c, struct ff_seg *g, struct tep_print_arg *a,
		  const char *x)
{
	struct tep_format_field *f;
	const char *o;
	int want;

	if (x[1] != '4' && x[1] != '6' && x[1] != 'S')
		return fail(c, "unknown %pI");
	if (a->type == TEP_PRINT_FUNC)
		return fail(c, "print function");
	while (a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	g->ip = x[0];
	if (x[1] == 'S') {
		o = x + 2;
		if (x[0] == 'I' && *o == 'p') {
			g->ip_port = true;
			o++;
		}
		if (x[0] == 'I' && *o == 'c') {
			g->ip6c = true;
			o++;
		}
		g->mac_rev = *o == 'l' ||
			(*o == 'h' && !tep_is_file_bigendian(c->ff->tep));
		g->kind = G_IPSA;
		if (a->type == TEP_PRINT_DYNAMIC_ARRAY) {
			g->dyn = true;
			return dyn_of(c, a->dynarray.field, &g->f);
		}
		if (a->type != TEP_PRINT_FIELD)
			return fail(c, "%pIS of a non-field");
		f = field_of(c, &a->field);
		if (!f)
			return false;
		g->mac_off = f->offset;
		g->sa_len = f->size;
		return true;
	}
	if (a->type != TEP_PRINT_FIELD)
		return fail(c, "%pI of a non-field");
	f = field_of(c, &a->field);
	if (!f)
		return false;
	g->mac_off = f->offset;
	want = x[1] == '4' ? 4 : 16;
	if (f->size != want) {
		g->kind = G_CONST;
		g->lit = want == 4 ? "INVALIDIPv4" : "INVALIDIPv6";
		g->litlen = strlen(g->lit);
		return true;
	}
	if (x[1] == '4') {
		g->kind = G_IP4;
		g->mac_rev = x[2] == 'l' ||
			(x[2] == 'h' && !tep_is_file_bigendian(c->ff->tep));
	} else {
		g->kind = G_IP6;
		g->ip6c = x[0] == 'I' && x[2] == 'c';
	}
	return true;
}

static bool cc_pointer(struct cc *c, struct ff_seg *g, struct tep_print_arg *a)
{
	const char *x = strchr(g->spec.fmt, 'p') + 1;
	struct tep_print_arg *fa;
	struct tep_format_field *f;

	if (a->type == TEP_PRINT_BSTRING) {
		g->kind = G_BSTR;
		g->lit = a->string.string;
		g->litlen = strlen(a->string.string);
		return true;
	}
	switch (*x) {
	case 'F': case 'f': case 'S': case 's':
		g->kind = G_FUNC;
		g->func_off = *x == 'F' || *x == 'S';
		g->e = cc_num(c, a);
		return g->e != NULL;
	case 'M': case 'm':
		if (a->type == TEP_PRINT_FUNC)
			return fail(c, "print function");
		fa = a;
		while (fa->type == TEP_PRINT_TYPE)
			fa = fa->typecast.item;
		if (fa->type != TEP_PRINT_FIELD)
			return fail(c, "%pM of a non-field");
		f = field_of(c, &fa->field);
		if (!f)
			return false;
		if (f->size != 6)
			return fail(c, "%pM of a field not 6 bytes");
		g->kind = G_MAC;
		g->mac_off = f->offset;
		g->mac_sep = *x == 'm' ? "" : x[1] == 'F' ? "-" : ":";
		g->mac_rev = x[1] == 'R';
		return true;
	case 'I': case 'i':
		return cc_ip(c, g, a, x);
	case 'U':
		if (a->type == TEP_PRINT_FUNC)
			return fail(c, "print function");
		fa = a;
		while (fa->type == TEP_PRINT_TYPE)
			fa = fa->typecast.item;
		if (fa->type != TEP_PRINT_FIELD)
			return fail(c, "%pU of a non-field");
		f = field_of(c, &fa->field);
		if (!f)
			return false;
		if (f->size != 16) {
			g->kind = G_CONST;
			g->lit = "INVALIDUUID";
			g->litlen = 11;
			return true;
		}
		g->kind = G_UUID;
		g->mac_off = f->offset;
		g->guid = x[1] == 'L' || x[1] == 'l';
		g->upper = x[1] == 'L' || x[1] == 'B';
		return true;
	case 'h':
		return fail(c, "%ph");
	}
	g->kind = G_PTR;
	g->e = cc_num(c, a);
	return g->e != NULL;
}

/*
 * One conversion at fmt ('%' not followed by '%'), split as
 * libtraceevent's parse_arg_format() splits it.  Returns the characters
 * consumed, 0 when libtraceevent would have marked the event failed.
 */
static int cc_conv(struct cc *c, const char *fmt, struct tep_print_arg **arg,
		   struct ff_seg **segs, int *n, int *cap)
{
	const char *start = fmt;
	struct tep_print_arg *len_arg = NULL;
	struct ff_seg *g;
	int ret = 1, ls = 0, len;
	char conv;

	for (fmt++; *fmt; fmt++, ret++) {
		switch (*fmt) {
		case '#':
		case '.':
		case '-':
		case '0' ... '9':
			continue;
		case 'h':
			ls--;
			continue;
		case 'l':
			ls++;
			continue;
		case 'L':
			ls = 2;
			continue;
		case 'z':
		case 'Z':
			ls = 1;
			continue;
		case '*':
			if (!*arg || len_arg)
				return fail(c, "bad '*'"), 0;
			len_arg = *arg;
			*arg = (*arg)->next;
			continue;
		case 'p':
		case 'd': case 'u': case 'i': case 'x': case 'X': case 'o':
		case 's':
			break;
		default:
			/* libtraceevent prints ">c<" and takes no argument */
			g = add_seg(c, segs, n, cap);
			if (!g)
				return 0;
			g->kind = G_LIT;
			g->pre = arena_strndup(c, (char[]){ '>', *fmt, '<' }, 3);
			g->prelen = 3;
			return g->pre ? ret + 1 : 0;
		}
		break;
	}
	if (!*fmt)
		return ret;		/* dangling conversion: nothing printed */
	if (!*arg)
		return fail(c, "no argument for conversion"), 0;
	conv = *fmt;
	if (conv == 'p') {
		int ext = ptr_ext(fmt + 1);

		fmt += ext;
		ret += ext;
	}
	len = (int)(fmt + 1 - start);
	if (len > 30)
		return fail(c, "conversion too long"), 0;
	if (conv != 'p' && conv != 's' && (ls < -2 || ls > 2))
		return fail(c, "bad length"), 0;
	g = add_seg(c, segs, n, cap);
	if (!g)
		return 0;
	memcpy(g->spec.fmt, start, (size_t)len);
	g->spec.fmt[len] = 0;
	g->spec.ls = (signed char)ls;
	g->spec.conv = conv;
	if (len_arg) {
		g->len = cc_num(c, len_arg);
		if (!g->len)
			return 0;
	}
	if (conv == 'p') {
		if (!cc_pointer(c, g, *arg))
			return 0;
	} else if (conv == 's') {
		parse_spec(&g->spec);
		g->kind = G_STR;
		g->s = cc_str(c, *arg);
		if (!g->s)
			return 0;
		if (plain(&g->spec) && g->s->kind == S_CHARS)
			g->kind = G_CHARS;
		else if (g->spec.plain && g->s->kind == S_COND &&
			 g->s->a->kind == S_CONST && g->s->b->kind == S_CONST) {
			g->kind = G_CHOICE;
			g->e = g->s->e;
		}
		else if (plain(&g->spec) && g->s->kind == S_DSTR)
			g->kind = G_DSTR;
	} else {
		parse_spec(&g->spec);
		g->kind = G_INT;
		g->e = cc_num(c, *arg);
		if (!g->e)
			return 0;
		if (g->spec.simple && g->spec.prec < 0 && !g->spec.star &&
		    !g->spec.hash && (conv == 'd' || conv == 'i' ||
				      conv == 'u' || conv == 'x')) {
			bool w = !plain(&g->spec);

			if (conv == 'd' || conv == 'i')
				g->kind = w ? G_DECW : G_DEC;
			else if (conv == 'u')
				g->kind = w ? G_UDECW : G_UDEC;
			else
				g->kind = w ? G_HEXW : G_HEX;
			g->bits = g->spec.bits;
			if (g->e->kind == EX_LOAD) {
				g->direct = true;
				g->ld_off = g->e->off;
				g->ld_size = g->e->size;
			}
		}
	}
	*arg = (*arg)->next;
	return ret + 1;
}

/*
 * Make each literal the prefix of the conversion after it: one dispatch
 * per conversion instead of two.  Returns the new number of segments.
 */
static int fuse_literals(struct ff_seg *segs, int n)
{
	int i, out = 0;

	for (i = 0; i < n; i++) {
		if (segs[i].kind == G_LIT && i + 1 < n &&
		    segs[i + 1].kind != G_LIT && !segs[i + 1].prelen) {
			segs[i + 1].pre = segs[i].pre;
			segs[i + 1].prelen = segs[i].prelen;
			continue;
		}
		segs[out++] = segs[i];
	}
	/* short literals live in the segment: one cache line less to touch */
	for (i = 0; i < out; i++) {
		if (segs[i].prelen && segs[i].prelen <= sizeof(segs[i].prebuf)) {
			memset(segs[i].prebuf, 0, sizeof(segs[i].prebuf));
			memcpy(segs[i].prebuf, segs[i].pre, segs[i].prelen);
			segs[i].pre = segs[i].prebuf;
		}
	}
	return out;
}

static bool cc_format(struct cc *c, struct ff_prog *pg)
{
	const char *fmt = c->ev->print_fmt.format;
	struct tep_print_arg *arg = c->ev->print_fmt.args;
	int n = 0, cap = 0, used, left;

	if (!fmt)
		return fail(c, "no print format");
	left = (int)strlen(fmt);
	while (*fmt) {
		if (fmt[0] == '%' && fmt[1] != '%') {
			used = cc_conv(c, fmt, &arg, &pg->segs, &n, &cap);
		} else {
			struct ff_seg *g = add_seg(c, &pg->segs, &n, &cap);

			used = g ? cc_literal(c, fmt, g) : -1;
			if (g && used >= 0 && !g->prelen)
				n--;	/* nothing to print */
		}
		if (used <= 0 || c->why)
			return fail(c, "format not compiled");
		left -= used;
		if (left <= 0)
			break;
		fmt += used;
	}
	pg->nsegs = fuse_literals(pg->segs, n);
	return true;
}

/*
 * libtraceevent resolves a symbol name in an expression (vmemmap_base)
 * to its address the first time it evaluates it, rewriting the atom.
 * Have it do that on a zeroed record, without the plugin handler (which
 * could register comms), then read the rewritten atoms.
 */
static void prime(struct cc *c, struct ff_prog *pg)
{
	struct tep_record rec;
	struct trace_seq s;
	unsigned char *buf = probe_record(pg);
	int saved;

	if (!buf)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.data = buf;
	rec.size = pg->probe_size;
	trace_seq_init(&s);
	saved = c->ev->flags;
	c->ev->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(c->ff->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	c->ev->flags = saved;
	trace_seq_destroy(&s);
	free(buf);
}

#define MAX_EVENT_SIZE (1 << 20)

/*
 * Bytes up to the end of the event's last fixed field, or -1 when a
 * field lies outside 0..MAX_EVENT_SIZE (a damaged or hostile format: all
 * later bounds checks assume offsets and sizes in that range).
 */
static int fixed_size(const struct tep_event *ev)
{
	const struct tep_format_field *lists[2] = {
		ev->format.common_fields, ev->format.fields,
	};
	const struct tep_format_field *f;
	int size = 0, i;

	for (i = 0; i < 2; i++) {
		for (f = lists[i]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 ||
			    f->offset > MAX_EVENT_SIZE || f->size > MAX_EVENT_SIZE ||
			    f->offset + f->size > MAX_EVENT_SIZE)
				return -1;
			if (f->offset + f->size > size)
				size = f->offset + f->size;
		}
	}
	return size;
}

static const char *plugin_of(tep_event_handler_func fn)
{
	Dl_info di;
	const char *slash;

	if (!dladdr((void *)fn, &di) || !di.dli_fname)
		return "";
	slash = strrchr(di.dli_fname, '/');
	return slash ? slash + 1 : di.dli_fname;
}

static bool pfield_at(struct cc *c, struct ff_prog *pg, int slot,
		      struct tep_format_field *f, bool must, bool is_str)
{
	if (!f) {
		if (must)
			return fail(c, "plugin field missing");
		return true;
	}
	if (!is_str && f->size != 1 && f->size != 2 && f->size != 4 &&
	    f->size != 8)
		return fail(c, "plugin field of odd size");
	pg->pf[slot].off = f->offset;
	pg->pf[slot].size = f->size;
	pg->pf[slot].ok = true;
	if (f->offset + f->size > pg->need)
		pg->need = f->offset + f->size;
	return true;
}

#define NUMF(slot, name, must) \
	pfield_at(c, pg, slot, tep_find_field(ev, name), must, false)
#define STRF(slot, name) \
	pfield_at(c, pg, slot, tep_find_any_field(ev, name), true, true)

static bool cc_plugin(struct cc *c, struct ff_prog *pg)
{
	struct tep_event *ev = c->ev;
	const char *so = plugin_of(ev->handler);
	bool sched = !strcmp(ev->system, "sched");

	if (!strcmp(so, "plugin_sched_switch.so") && sched &&
	    !strcmp(ev->name, "sched_switch")) {
		pg->plug = P_SCHED_SWITCH;
		/* every field present: the plugin's error texts never show */
		return NUMF(SW_PREV_PID, "prev_pid", true) &&
			STRF(SW_PREV_COMM, "prev_comm") &&
			NUMF(SW_PREV_PRIO, "prev_prio", true) &&
			NUMF(SW_PREV_STATE, "prev_state", true) &&
			NUMF(SW_NEXT_PID, "next_pid", true) &&
			STRF(SW_NEXT_COMM, "next_comm") &&
			NUMF(SW_NEXT_PRIO, "next_prio", true);
	}
	if (!strcmp(so, "plugin_sched_switch.so") && sched &&
	    (!strcmp(ev->name, "sched_wakeup") ||
	     !strcmp(ev->name, "sched_wakeup_new"))) {
		pg->plug = P_SCHED_WAKEUP;
		return NUMF(WK_PID, "pid", true) &&
			pfield_at(c, pg, WK_COMM, tep_find_any_field(ev, "comm"),
				  false, true) &&
			NUMF(WK_PRIO, "prio", true) &&
			NUMF(WK_SUCCESS, "success", false) &&
			NUMF(WK_TARGET_CPU, "target_cpu", false);
	}
	if (!strcmp(so, "plugin_kmem.so") && !strcmp(ev->system, "kmem") &&
	    (!strcmp(ev->name, "kfree") || !strcmp(ev->name, "kmalloc") ||
	     !strcmp(ev->name, "kmalloc_node") ||
	     !strcmp(ev->name, "kmem_cache_alloc") ||
	     !strcmp(ev->name, "kmem_cache_alloc_node") ||
	     !strcmp(ev->name, "kmem_cache_free"))) {
		pg->plug = P_KMEM;
		return NUMF(KM_CALL_SITE, "call_site", true) && cc_format(c, pg);
	}
	if (!strcmp(so, "plugin_hrtimer.so") && !strcmp(ev->system, "timer") &&
	    (!strcmp(ev->name, "hrtimer_expire_entry") ||
	     !strcmp(ev->name, "hrtimer_start"))) {
		bool exp = !strcmp(ev->name, "hrtimer_expire_entry");
		struct tep_format_field *t = tep_find_field(ev, "timer");

		pg->plug = exp ? P_HRTIMER_EXPIRE : P_HRTIMER_START;
		if (!t || (t->size != 1 && t->size != 2 && t->size != 4 &&
			   t->size != 8))
			t = tep_find_field(ev, "hrtimer");
		if (!pfield_at(c, pg, HR_TIMER, t, true, false) ||
		    !NUMF(HR_FUNCTION, "function", false))
			return false;
		if (exp)
			return NUMF(HR_NOW, "now", true);
		return NUMF(HR_EXPIRES, "expires", true) &&
			NUMF(HR_SOFTEXPIRES, "softexpires", true);
	}
	if (!strcmp(so, "plugin_tlb.so") && !strcmp(ev->system, "tlb") &&
	    !strcmp(ev->name, "tlb_flush")) {
		pg->plug = P_TLB_FLUSH;
		return NUMF(TLB_PAGES, "pages", true) &&
			NUMF(TLB_REASON, "reason", true);
	}
	if (!strcmp(so, "plugin_futex.so") && !strcmp(ev->system, "syscalls") &&
	    !strcmp(ev->name, "sys_enter_futex")) {
		pg->plug = P_FUTEX;
		return NUMF(FX_UADDR, "uaddr", true) && NUMF(FX_OP, "op", true) &&
			NUMF(FX_VAL, "val", true) &&
			NUMF(FX_UTIME, "utime", true) &&
			NUMF(FX_UADDR2, "uaddr2", true) &&
			NUMF(FX_VAL3, "val3", true) && cc_format(c, pg);
	}
	return fail(c, "plugin handler not compiled");
}

static struct ff_prog *compile(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg = arena_alloc(ff, sizeof(*pg));
	struct cc c = { .ff = ff, .ev = ev };

	if (!pg)
		return NULL;
	pg->ev = ev;
	pg->probe_size = fixed_size(ev);
	if (pg->probe_size < 0)
		fail(&c, "field offsets out of range");
	else if (!ff->usable)
		fail(&c, "foreign endianness or long size");
	else if (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW |
			      TEP_EVENT_FL_ISBPRINT))
		fail(&c, "event printed raw, bprint or failed to parse");
	else if (ev->handler && !(ev->flags & TEP_EVENT_FL_NOHANDLE))
		cc_plugin(&c, pg);
	else
		cc_format(&c, pg);

	if (!c.why && c.need_prime) {
		/* Rewrite the atoms, then compile again with their values. */
		if (c.has_div) {
			fail(&c, "symbol in an expression with a division");
		} else {
			prime(&c, pg);
			memset(pg, 0, sizeof(*pg));
			pg->ev = ev;
			pg->probe_size = fixed_size(ev);
			c.printks = 0;
			c.need_prime = false;
			if (ev->handler && !(ev->flags & TEP_EVENT_FL_NOHANDLE))
				cc_plugin(&c, pg);
			else
				cc_format(&c, pg);
			if (!c.why && c.need_prime)
				fail(&c, "unresolved symbol in an expression");
		}
	}
	if (!c.why && (ev->flags & TEP_EVENT_FL_FAILED))
		fail(&c, "event failed to parse");
	pg->why = c.why;
	pg->printk_off = c.printk_off;
	return pg;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

struct kt_fastfmt *kt_fastfmt_new(struct tep_handle *tep)
{
	struct kt_fastfmt *ff;

	if (!tep) {
		errno = EINVAL;
		return NULL;
	}
	ff = calloc(1, sizeof(*ff));
	if (!ff)
		return NULL;
	ff->tep = tep;
	ff->usable = tep_get_long_size(tep) == (int)sizeof(long) &&
		sizeof(long) == 8 &&
		tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	return ff;
}

void kt_fastfmt_free(struct kt_fastfmt *ff)
{
	struct arena_blk *b, *next;

	if (!ff)
		return;
	for (b = ff->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	if (ff->printk) {
		int i;

		for (i = 0; i < PRINTK_SLOTS; i++)
			free(ff->printk[i].str);
		free(ff->printk);
	}
	free(ff->progs);
	free(ff->scratch);
	free(ff);
}

static struct ff_prog *prog_of(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg;

	if (ev->id < 0 || ev->id > 1 << 20)
		return NULL;
	if (ev->id >= ff->nprogs) {
		int n = ff->nprogs ? ff->nprogs : 256;
		struct ff_prog **np;

		while (n <= ev->id)
			n *= 2;
		np = realloc(ff->progs, sizeof(*np) * (size_t)n);
		if (!np)
			return NULL;
		memset(np + ff->nprogs, 0, sizeof(*np) * (size_t)(n - ff->nprogs));
		ff->progs = np;
		ff->nprogs = n;
	}
	pg = ff->progs[ev->id];
	if (pg && pg->ev == ev)
		return pg;
	pg = compile(ff, ev);
	if (pg)
		mark_fixed(pg);
	ff->progs[ev->id] = pg;
	return pg;
}

int kt_fastfmt_compiled(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg = prog_of(ff, ev);

	return pg && !pg->why;
}

const char *kt_fastfmt_reason(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg = prog_of(ff, ev);

	if (!pg)
		return "out of memory";
	return pg->why ? pg->why : "";
}

int kt_fastfmt_info(struct kt_fastfmt *ff, struct tep_event *ev,
		    const void *data, int size, char *out, size_t cap)
{
	struct ff_prog *pg;
	struct run r;

	/* compiled already: the common case, without a call */
	if (ev->id >= 0 && ev->id < ff->nprogs && ff->progs[ev->id] &&
	    ff->progs[ev->id]->ev == ev)
		pg = ff->progs[ev->id];
	else
		pg = prog_of(ff, ev);

	if (!pg || pg->why || size < 0)
		return -ENOTSUP;
	if (cap == 0)
		return -ENOSPC;
	r.data = data;
	r.size = size;
	r.p = out;
	r.end = out + cap - 1;	/* room for the NUL */
	r.err = 0;
	r.ff = ff;
	r.pg = pg;
	r.probing = false;
	r.mark = NULL;
	/* plugin texts read fixed fields, as the plugins do, unchecked */
	if (size < pg->need)
		return -ENOTSUP;
	switch (pg->plug) {
	case P_NONE:
		if (pg->fixed && size >= pg->fixed_end &&
		    (size_t)(r.end - r.p) >= pg->fixed_max)
			run_fixed(&r, pg);
		else
			run_segs(&r, pg);
		break;
	case P_KMEM:
		run_kmem(&r, pg);
		run_segs(&r, pg);
		break;
	case P_SCHED_SWITCH:
		run_sched_switch(&r, pg);
		break;
	case P_SCHED_WAKEUP:
		run_sched_wakeup(&r, pg);
		break;
	case P_HRTIMER_EXPIRE:
	case P_HRTIMER_START:
		run_hrtimer(&r, pg);
		break;
	case P_TLB_FLUSH:
		run_tlb_flush(&r, pg);
		break;
	case P_FUTEX:
		if (!run_futex(&r, pg))
			run_segs(&r, pg);
		break;
	}
	if (r.err)
		return r.err;
	*r.p = 0;
	return (int)(r.p - out);
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
