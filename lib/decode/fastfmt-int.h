/* SPDX-License-Identifier: GPL-2.0 */
/* fastfmt's private header: program types, run state, inline emitters. */
/*
 * Shared by lib/decode/fastfmt*.c only (the public API is fastfmt.h):
 * fastfmt.c keeps each event's program, fastfmt-compile.c builds it,
 * fastfmt-run.c runs it over a record (fastfmt-plugins.c for the texts
 * of libtraceevent's plugins), fastfmt-numbers.c has kt_fmt_*().
 *
 * The semantics followed here are libtraceevent 1.7's (pretty_print(),
 * eval_num_arg(), print_str_arg() and the sched_switch, kmem, hrtimer,
 * tlb, futex and function (kernel_stack) plugins), reimplemented for
 * speed: each event's print format is split once into literal text and conversions exactly as
 * libtraceevent splits it, every argument tree is turned into a small
 * expression of field loads, and the conversions are done by
 * hand-written emitters instead of vsnprintf.  Conversions whose printf spec is unusual keep using
 * snprintf with the very same format and argument libtraceevent passes,
 * so they cannot differ either.
 */
#ifndef KT_FASTFMT_INT_H
#define KT_FASTFMT_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decode/fastfmt.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
#ifdef __SSE2__
	/*
	 * All 16 digits at once, whatever n: each byte's two nibbles spread
	 * to two bytes (most significant first), then made digits.  A
	 * number of 8 digits or fewer takes the low half's: fewer
	 * instructions than hex8_word()'s spreading (a syscall's
	 * arguments are most of a report's numbers).
	 */
	const __m128i nib = _mm_set1_epi8(0x0f);
	__m128i b = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), nib),
				      _mm_and_si128(b, nib));
	__m128i gt9 = _mm_cmpgt_epi8(d, _mm_set1_epi8(9));
	uint64_t lo;

	d = _mm_add_epi8(d, _mm_add_epi8(_mm_set1_epi8('0'),
		_mm_and_si128(gt9, _mm_set1_epi8('a' - '0' - 10))));
	lo = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d));
	if (n <= 8) {
		w = lo >> ((8 - n) * 8);
		memcpy(p, &w, 8);
	} else {
		w = (uint64_t)_mm_cvtsi128_si64(d) >> ((16 - n) * 8);
		memcpy(p, &w, 8);
		memcpy(p + n - 8, &lo, 8);
	}
#else
	if (n <= 8) {
		w = hex8_word((uint32_t)v) >> ((8 - n) * 8);
		memcpy(p, &w, 8);
	} else {
		w = hex8_word((uint32_t)(v >> 32)) >> ((16 - n) * 8);
		memcpy(p, &w, 8);
		w = hex8_word((uint32_t)v);
		memcpy(p + n - 8, &w, 8);
	}
#endif
	return p + n;
}
#else
#define put_hex16 put_hex
#endif

/* printf("%*llu", width, v), padded with pad: kt_fmt_udec() inline. */
static inline char *udec_pad(char *p, uint64_t v, int width, char pad)
{
	char tmp[24];
	char *s = udec_rev(tmp + sizeof(tmp), v);
	int n = (int)(tmp + sizeof(tmp) - s);

	for (; width > n; width--)
		*p++ = pad;
	memcpy(p, s, (size_t)n);
	return p + n;
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
	P_KSTACK,	/* the function plugin's kernel_stack: "=> name (addr)" lines */
	P_USTACK,	/* ftrace:user_stack's format, its texts kept by the record's fields */
};

struct ff_field {			/* a field a plugin reads */
	int off;
	int size;
	bool ok;
};

/*
 * One step of a fixed program of 8-byte fields (a syscall's): its
 * literal inline, copied 16 bytes at a time, then the number, if any.
 */
enum fop_kind { FOP_HEX, FOP_DEC, FOP_UDEC };

struct ff_fop {
	char pre[16];		/* the literal before (prelen <= 16) */
	unsigned char prelen;
	unsigned char kind;	/* enum fop_kind */
	int ld_off;		/* the 8-byte field */
};

#define FOPS_MAX 8

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
	 * fixed_end is need as well, where need is more.
	 */
	bool fixed;
	int fixed_end;
	size_t fixed_max;
	/*
	 * A fixed program whose numbers are all plain %lx %ld %lu of
	 * 8-byte fields and whose literals fit 16 bytes, as fops (nfops:
	 * 0 when it is not one): run_fops().
	 */
	int nfops;
	struct ff_fop fops[FOPS_MAX];
	/*
	 * The literal after the last number (a syscall's ")"), copied
	 * after run_fops()'s loop: no step and no test of a kind for it.
	 */
	char fop_tail[16];
	unsigned char fop_taillen;
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

/*
 * A kernel stack frame's line as the function plugin prints it, by
 * address: a report prints a few thousand addresses millions of times.
 * 128 bytes a slot; a line longer than text[] is not kept.
 */
#define FRAME_SLOTS 4096	/* a power of 2 */

struct frame_ent {
	uint64_t addr;
	uint16_t len;		/* 0: an empty slot */
	char text[118];
};

/*
 * A whole kernel stack's lines (after "<stack trace >"), by the record's
 * caller[] bytes: most stacks of a recording are a few hundred
 * distinct ones, each printed thousands of times.
 */
#define STACK_SLOTS 1024	/* a power of 2 */
#define STACK_WORDS 12		/* deeper stacks are printed frame by frame */

struct stack_ent {
	uint16_t nbytes;	/* 0: an empty slot */
	uint16_t len;
	uint64_t words[STACK_WORDS];
	char text[STACK_WORDS * 56];
};

/*
 * A user stack's text (its format's, "\t=> %ps" lines), by the record's
 * bytes after the common fields (tgid and caller[]), in stack_ents: a
 * recording's millions of user stacks are a few thousand distinct ones.
 */
#define USTACK_SLOTS 4096	/* a power of 2 */

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
	struct frame_ent *frames;	/* FRAME_SLOTS, allocated on use */
	struct stack_ent *stacks;	/* STACK_SLOTS, allocated on use */
	struct stack_ent *ustacks;	/* USTACK_SLOTS, allocated on use */
};

/* The longest info text kt_fastfmt_seq() builds outside the trace_seq. */
#define SCRATCH (1 << 17)

/* Literals are allocated with this much slack to be copied 16 at a time. */
#define LIT_PAD 17

/* Plugin field slots: pf[] as the compiler fills it for each plugin. */
enum {
	SW_PREV_PID, SW_PREV_COMM, SW_PREV_PRIO, SW_PREV_STATE,
	SW_NEXT_PID, SW_NEXT_COMM, SW_NEXT_PRIO,
};
enum { WK_PID, WK_COMM, WK_PRIO, WK_SUCCESS, WK_TARGET_CPU };
enum { KM_CALL_SITE };
enum { HR_TIMER, HR_NOW, HR_FUNCTION, HR_EXPIRES, HR_SOFTEXPIRES };
enum { TLB_PAGES, TLB_REASON };
enum { FX_UADDR, FX_OP, FX_VAL, FX_UTIME, FX_UADDR2, FX_VAL3 };
enum { KS_CALLER };

/* ------------------------------------------------------------------ */
/* A run over one record                                               */

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

/* ------------------------------------------------------------------ */
/* Between the files                                                   */

/* fastfmt.c: the event's program, compiled on first use; NULL: no memory. */
struct ff_prog *ff_prog_of(struct kt_fastfmt *ff, struct tep_event *ev);

/* fastfmt-compile.c: ev compiled (pg->why says why not); NULL: no memory. */
struct ff_prog *ff_compile(struct kt_fastfmt *ff, struct tep_event *ev);

/* fastfmt-run.c */
void ff_mark_fixed(struct ff_prog *pg);
unsigned char *ff_probe_record(const struct ff_prog *pg);
const struct func_ent *ff_func_lookup(struct kt_fastfmt *ff,
				      unsigned long long addr);

/* fastfmt-plugins.c: each plugin's text (futex: false to use the format) */
void ff_run_sched_switch(struct run *r, const struct ff_prog *pg);
void ff_run_sched_wakeup(struct run *r, const struct ff_prog *pg);
void ff_run_kmem(struct run *r, const struct ff_prog *pg);
void ff_run_hrtimer(struct run *r, const struct ff_prog *pg);
void ff_run_tlb_flush(struct run *r, const struct ff_prog *pg);
bool ff_run_futex(struct run *r, const struct ff_prog *pg);
void ff_run_kstack(struct run *r, const struct ff_prog *pg);
/*
 * A kernel stack's text kept already (ff_run_kstack()'s hit), written
 * at out with its NUL, without a run: its length, or -1 when it is not
 * kept or does not fit (ff_run_kstack() then).
 */
int ff_kstack_kept(struct kt_fastfmt *ff, const struct ff_prog *pg,
		   const unsigned char *data, int size, char *out, size_t cap);
void ff_run_ustack(struct run *r, const struct ff_prog *pg);
void ff_run_segs(struct run *r, const struct ff_prog *pg);

#endif
