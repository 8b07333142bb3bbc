// SPDX-License-Identifier: GPL-2.0
/* The compiler: an event's print format (or plugin) into a program. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode/fastfmt-int.h"

/* n zeroed bytes (16-aligned) from ff's arena, freed with ff. */
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
	unsigned char *buf = ff_probe_record(pg);
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
	if (!strcmp(so, "plugin_function.so") && !strcmp(ev->system, "ftrace") &&
	    !strcmp(ev->name, "kernel_stack")) {
		struct tep_format_field *f = tep_find_any_field(ev, "caller");

		/* (without it the plugin prints "<CANT FIND FIELD caller>") */
		if (!f)
			return fail(c, "plugin field missing");
		/* the frames run to the record's end, wherever that is */
		pg->plug = P_KSTACK;
		pg->pf[KS_CALLER].off = f->offset;
		pg->pf[KS_CALLER].size = 8;
		pg->pf[KS_CALLER].ok = true;
		return true;
	}
	return fail(c, "plugin handler not compiled");
}

/*
 * ftrace:user_stack printed by its format: the text is kept by the
 * bytes after the common fields (its format reads only caller[]).
 */
static void memo_ustack(struct ff_prog *pg)
{
	struct tep_event *ev = pg->ev;
	struct tep_format_field *f;
	int off = -1;

	if (pg->plug != P_NONE || strcmp(ev->system, "ftrace") ||
	    strcmp(ev->name, "user_stack") || !tep_find_field(ev, "caller"))
		return;
	for (f = ev->format.fields; f; f = f->next)
		if (off < 0 || f->offset < off)
			off = f->offset;
	if (off <= 0)
		return;
	pg->plug = P_USTACK;
	pg->pf[KS_CALLER].off = off;
	pg->pf[KS_CALLER].ok = true;
}

struct ff_prog *ff_compile(struct kt_fastfmt *ff, struct tep_event *ev)
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
	if (!c.why)
		memo_ustack(pg);
	pg->why = c.why;
	pg->printk_off = c.printk_off;
	return pg;
}
