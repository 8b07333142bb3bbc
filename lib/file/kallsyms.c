// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms text into the function table.  See kallsyms.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <traceevent/event-parse.h>

#include "base/bigbuf.h"
#include "file/kallsyms.h"

/* The longest name or module a line may have (libtraceevent reads any). */
#define KLINE_MAX	512

/*
 * Each byte's class, one load a character (a machine's 120,000 lines
 * are read at a report's first address): a hex digit's value + 1,
 * SPACE for sscanf()'s white space in the C locale, 0 for the rest.
 */
#define SPACE	32

static const unsigned char cls[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	['\t'] = SPACE, ['\n'] = SPACE, ['\v'] = SPACE, ['\f'] = SPACE,
	['\r'] = SPACE, [' '] = SPACE,
};

static bool is_space(char c)
{
	return cls[(unsigned char)c] == SPACE;
}

static int hexval(char c)
{
	unsigned char v = cls[(unsigned char)c];

	return v && v <= 16 ? v - 1 : -1;
}

/* One line of the usual shape, as parse_line() reads it. */
struct kline {
	unsigned long long addr;
	const char *func, *mod;	/* mod: NULL when there is none */
	size_t flen, mlen;
	bool skip;		/* read, but libtraceevent registers nothing */
};

/*
 * A 64-bit kernel's 16 hex digits at p into *addr; false (and *addr
 * untouched) when any of them is not a hex digit.  Inlined, as
 * parse_usual() is: a call each a line was 1.5 M instructions.
 */
static inline __attribute__((always_inline)) bool hex16(const char *p,
							unsigned long long *addr)
{
#ifdef __SSE2__
	/*
	 * In one register: each byte a digit ('0'-'9') or a letter ('a'-'f'
	 * after | 0x20), its value chosen by which, then two nibbles to a
	 * byte.
	 */
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	__m128i a = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
				 _mm_set1_epi8('a'));
	__m128i isd = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
	__m128i isa = _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(5)), a);
	__m128i n;

	if (_mm_movemask_epi8(_mm_or_si128(isd, isa)) != 0xffff)
		return false;
	n = _mm_or_si128(_mm_and_si128(isd, d),
			 _mm_andnot_si128(isd, _mm_add_epi8(a, _mm_set1_epi8(10))));
	n = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(n, 4), _mm_srli_epi16(n, 8)),
			  _mm_set1_epi16(0xff));
	n = _mm_packus_epi16(n, n);
	*addr = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(n));
	return true;
#else
	/* No test a digit, one at the end. */
	unsigned long long v = 0;
	unsigned int bad = 0, c;
	int i;

#pragma GCC unroll 16
	for (i = 0; i < 16; i++) {
		c = cls[(unsigned char)p[i]] - 1u;
		bad |= c;
		v = v << 4 | (c & 15);
	}
	if (bad >= 16)
		return false;
	*addr = v;
	return true;
#endif
}

/*
 * One line of the usual shape: 1-16 hex digits, one space, a type
 * letter, one space, the name, and optionally a tab and "[module]".
 * These are read by libtraceevent's
 * sscanf("%16llx %c %n%*s%n%*1[\t][%n%*s%n") exactly as here.  Returns
 * false for any other shape.
 */
static bool parse_line(const char *p, const char *end, struct kline *l)
{
	unsigned long long addr = 0;
	const char *f, *m = NULL;
	size_t flen, mlen = 0;
	int i, v;
	char ch;
#ifdef __SSE2__
	const char *line = p;
#endif

	i = 0;
	if (end - p > 16 && p[16] == ' ' && hex16(p, &addr)) {
		p += 16;
		i = 16;
	}
	if (!i)
		for (; i < 16 && p < end && (v = hexval(*p)) >= 0; i++, p++)
			addr = addr << 4 | (unsigned int)v;
	if (!i || end - p < 4 || *p != ' ')
		return false;
	ch = p[1];
	if (is_space(ch) || p[2] != ' ' || is_space(p[3]))
		return false;
	f = p + 3;
	p = f;
#ifdef __SSE2__
	/* Sixteen bytes at a time while none is below '!' (white space is). */
	while (end - p >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)p);
		int m = _mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_min_epu8(w, _mm_set1_epi8(0x20)), w));

		if (m) {
			p += __builtin_ctz((unsigned int)m);
			break;
		}
		p += 16;
	}
	/*
	 * The rest, under 16 bytes, in the line's last 16 (the address
	 * and type are before them): the bytes before p shifted out.
	 */
	if (p < end && end - p < 16 && end - line >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(end - 16));
		unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_min_epu8(w, _mm_set1_epi8(0x20)), w));

		m >>= 16 - (end - p);
		p = m ? p + __builtin_ctz(m) : end;
	}
#endif
	/* Eight bytes at a time while none is below '!' (white space is). */
	while (end - p >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		if ((w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL)
			break;
		p += 8;
	}
	for (; p < end && !is_space(*p); p++)
		;
	flen = (size_t)(p - f);
	if (p < end && *p == '\t' && end - p >= 2 && p[1] == '[') {
		/* %*s would skip white space first: leave that to sscanf. */
		if (end - p == 2 || is_space(p[2]))
			return false;
		m = p + 2;
		for (p = m; p < end && !is_space(*p); p++)
			;
		/* libtraceevent cuts the last character (the ']'). */
		mlen = (size_t)(p - m) - 1;
	}
	if (flen >= KLINE_MAX || mlen >= KLINE_MAX)
		return false;
	l->addr = addr;
	l->func = f;
	l->flen = flen;
	l->mod = m;
	l->mlen = mlen;
	/* arm's '$a' marks and x86-64's absolute per-CPU offsets, as there. */
	l->skip = f[0] == '$' || ch == 'A' || ch == 'a';
	return true;
}

/* The next line's start, past empty lines; NULL at the text's end. */
static const char *next_start(const char *p)
{
	while (*p == '\n')
		p++;
	return *p ? p : NULL;
}

/* Each line of text (to its first NUL), as strtok_r(.., "\n") cuts them: empty lines are no lines. */
static const char *next_line(const char *p, const char **nl)
{
	p = next_start(p);
	if (p)
		*nl = strchrnul(p, '\n');
	return p;
}

/*
 * The commonest line, "<16 hex digits> <type> <name>" and its newline,
 * read with its end found in the same pass (the first byte below '!'
 * after the name's first is the newline): what parse_line() reads of
 * it, *nl where next_line() finds it.  False for any other line (a
 * module's, one within 35 bytes of the text's end, ...), left to those
 * two.  They read each byte twice (strchrnul(), then the name): the
 * table of 163,000 lines took 38 M instructions, now 30 M.
 */
static inline __attribute__((always_inline)) bool parse_usual(const char *p,
							      const char *text_end,
							      struct kline *l,
							      const char **nl)
{
#ifdef __SSE2__
	unsigned long long addr;
	const char *f = p + 19, *q = f;
	size_t flen;

	if (text_end - p < 19 + 16 || p[16] != ' ' || is_space(p[17]) ||
	    p[18] != ' ' || is_space(p[19]) || !hex16(p, &addr))
		return false;
	/* All loads inside the text: the bytes before its NUL. */
	for (;;) {
		__m128i w;
		int m;

		if (text_end - q < 16)
			return false;
		w = _mm_loadu_si128((const __m128i *)q);
		m = _mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_min_epu8(w, _mm_set1_epi8(0x20)), w));
		if (m) {
			q += __builtin_ctz((unsigned int)m);
			break;
		}
		q += 16;
	}
	flen = (size_t)(q - f);
	if ((*q != '\n' && *q != '\0') || !flen || flen >= KLINE_MAX)
		return false;
	l->addr = addr;
	l->func = f;
	l->flen = flen;
	l->mod = NULL;
	l->mlen = 0;
	l->skip = f[0] == '$' || p[17] == 'A' || p[17] == 'a';
	*nl = q;
	return true;
#else
	(void)p, (void)text_end, (void)l, (void)nl;
	return false;
#endif
}

static void register_line(struct tep_handle *tep, const struct kline *l)
{
	char func[KLINE_MAX], mod[KLINE_MAX];

	memcpy(func, l->func, l->flen);
	func[l->flen] = '\0';
	if (l->mod) {
		memcpy(mod, l->mod, l->mlen);
		mod[l->mlen] = '\0';
	}
	tep_register_function(tep, func, l->addr, l->mod ? mod : NULL);
}

int kt_kallsyms_parse(struct tep_handle *tep, const char *text)
{
	const char *p = text, *nl;
	struct kline l;

	for (; (p = next_line(p, &nl)); p = nl) {
		if (!parse_line(p, nl, &l))
			return tep_parse_kallsyms(tep, p);
		if (!l.skip)
			register_line(tep, &l);
	}
	return 0;
}

/*
 * The table libtraceevent's func_map_init() makes of the registered
 * functions: its list is in the reverse order of registration, sorted
 * (glibc's stable merge sort) by address, so among the functions of one
 * address the last registered comes first.  The addresses are an array
 * of their own (all a lookup's binary search reads) and the names are
 * offsets into the text, 12 bytes a symbol, not 24: a machine's
 * 163,000 symbols in 2 MB.  A name is cut where it ends (a NUL written
 * on the white space after it) when a lookup first answers it: that
 * byte is no other name's, and the text is whole until then, so a line
 * of another shape leaves it as it was.
 */
struct kt_ksymtab {
	unsigned long long *addr;	/* n, then a last one of 0, as there */
	uint32_t *name;			/* offsets into text */
	char *text;
	size_t n;
	void *mem;
};

/* The sort of a text out of order: idx keeps the line order for a tie. */
struct ksym {
	unsigned long long addr;
	uint32_t name;
	uint32_t idx;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

/* Sorted as libtraceevent sorts them: each run of one address reversed, or a sort. */
static int ksym_order(struct kt_ksymtab *t, bool sorted)
{
	size_t i, j, k;

	if (!sorted) {
		struct ksym *s = malloc(t->n * sizeof(*s) + 1);

		if (!s)
			return -ENOMEM;
		for (i = 0; i < t->n; i++)
			s[i] = (struct ksym){ t->addr[i], t->name[i], (uint32_t)i };
		qsort(s, t->n, sizeof(*s), ksym_cmp);
		for (i = 0; i < t->n; i++) {
			t->addr[i] = s[i].addr;
			t->name[i] = s[i].name;
		}
		free(s);
		return 0;
	}
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->addr[j] == t->addr[i]; j++)
			;
		for (k = 0; k < (j - i) / 2; k++) {
			uint32_t tmp = t->name[i + k];

			t->name[i + k] = t->name[j - 1 - k];
			t->name[j - 1 - k] = tmp;
		}
	}
	return 0;
}

struct kt_ksymtab *kt_ksymtab_new(char *text, void *mem)
{
	struct kt_ksymtab *t = calloc(1, sizeof(*t));
	const char *p = text, *nl, *end = text + strlen(text);
	size_t cap, n = 0;
	unsigned long long *a;
	bool sorted = true;
	struct kline l;
	uint32_t *nm;

	if (!t)
		return NULL;
	if (end - text >= UINT32_MAX) {
		errno = EFBIG;
		goto err_free;
	}
	/*
	 * A line is 40-50 bytes: room for all at once (a realloc() copied
	 * 2 M instructions' worth), in huge pages taken in one call (the
	 * third left unused costs less than a fault a page: bigbuf.c).
	 */
	cap = (size_t)(end - text) / 32 + 16;
	t->addr = kt_bigbuf_alloc(cap * sizeof(*t->addr));
	t->name = kt_bigbuf_alloc(cap * sizeof(*t->name));
	if (!t->addr || !t->name)
		goto err_free;
	for (; (p = next_start(p)); p = nl) {
		if (!parse_usual(p, end, &l, &nl) &&
		    !parse_line(p, nl = strchrnul(p, '\n'), &l)) {
			errno = EINVAL;
			goto err_free;
		}
		if (l.skip)
			continue;
		if (n + 1 >= cap) {
			if (n >= UINT32_MAX) {
				errno = EFBIG;
				goto err_free;
			}
			a = realloc(t->addr, 2 * cap * sizeof(*a));
			if (!a)
				goto err_free;
			t->addr = a;
			nm = realloc(t->name, 2 * cap * sizeof(*nm));
			if (!nm)
				goto err_free;
			t->name = nm;
			cap *= 2;
		}
		if (n && l.addr < t->addr[n - 1])
			sorted = false;
		t->addr[n] = l.addr;
		t->name[n] = (uint32_t)(l.func - text);
		n++;
	}
	t->n = n;
	if (ksym_order(t, sorted))
		goto err_free;
	t->addr[n] = 0;
	t->text = text;
	t->mem = mem;
	return t;

err_free:
	free(t->addr);
	free(t->name);
	free(t);
	return NULL;
}

void kt_ksymtab_free(struct kt_ksymtab *t)
{
	if (!t)
		return;
	free(t->addr);
	free(t->name);
	free(t->mem);
	free(t);
}

/* The name at off, cut where parse_line() ends it (white space, or the text's end). */
static const char *ksym_name(struct kt_ksymtab *t, uint32_t off)
{
	char *name = t->text + off;

	name[strcspn(name, " \t\n\v\f\r")] = '\0';
	return name;
}

/* glibc's bsearch() with libtraceevent's func_bcmp(), step for step: the same entry among equals. */
const char *kt_ksymtab_find(struct kt_ksymtab *t, unsigned long long addr,
			    unsigned long long *start)
{
	const unsigned long long *a = t->addr;
	size_t l = 0, u = t->n, idx;

	while (l < u) {
		idx = (l + u) / 2;
		if (addr == a[idx] || (addr > a[idx] && addr < a[idx + 1])) {
			*start = a[idx];
			return ksym_name(t, t->name[idx]);
		}
		if (addr < a[idx])
			u = idx;
		else
			l = idx + 1;
	}
	return NULL;
}
