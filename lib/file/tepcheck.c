// SPDX-License-Identifier: GPL-2.0
/*
 * The checks an event format or a filter passes before libtraceevent
 * parses it (see tepcheck.h).  Each one answers a crash libtraceevent 1.7
 * has on such text; the fuzz targets in tests/fuzz found them.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "file/tepcheck.h"

/*
 * libtraceevent's format parser trusts its input (an unterminated string
 * in a print fmt makes it dereference NULL), so a format must look like
 * one before it gets there: printable text with name, ID, format and
 * print fmt lines, quotes closed and brackets balanced.
 */
static const bool fmt_arg_char[256] = {
	['A' ... 'Z'] = true, ['a' ... 'z'] = true, ['0' ... '9'] = true,
	['_'] = true, [' '] = true, ['\t'] = true, ['\n'] = true,
	[','] = true, ['.'] = true, ['('] = true, [')'] = true,
	['['] = true, [']'] = true, ['{'] = true, ['}'] = true,
	['<'] = true, ['>'] = true, ['='] = true, ['!'] = true,
	['&'] = true, ['|'] = true, ['^'] = true, ['~'] = true,
	['+'] = true, ['-'] = true, ['*'] = true, ['/'] = true,
	['%'] = true, ['?'] = true, [':'] = true, [';'] = true,
	['\''] = true,
};

/*
 * Does the format declare a field of this name?  libtraceevent 1.7
 * dereferences NULL when a print fmt names REC->x of no field x, so
 * every REC-> reference is checked against the field lines first: those
 * from fmt (its "\nformat:\n" line, NULL: none) to pf (its "\nprint fmt: "
 * line), each ended by a ';' before pf.
 */
static bool format_has_field(const char *fmt, const char *pf,
			     const char *name, size_t len)
{
	const char *line = fmt;

	if (!line || line >= pf)
		return false;
	for (; (line = memmem(line, (size_t)(pf - line), "field:", 6)); line += 6) {
		const char *end = memchr(line, ';', (size_t)(pf - line)), *q;

		if (!end)
			return false;
		q = end;
		/* "char comm[16]": the name stands before the brackets. */
		if (q > line && q[-1] == ']')
			while (q > line && *q != '[')
				q--;
		while (q > line && q[-1] == ' ')
			q--;
		if ((size_t)(q - line) >= len && !memcmp(q - len, name, len) &&
		    !(isalnum((unsigned char)q[-(ptrdiff_t)len - 1]) ||
		      q[-(ptrdiff_t)len - 1] == '_'))
			return true;
	}
	return false;
}

/*
 * The print fmt's arguments as libtraceevent's tokenizer cuts them:
 * strings ("..." and '...'), items (names and numbers), the delimiters
 * ( ) , and operators ("->", "<<=", "&&", "==", or one character).
 */
enum tok_type { T_END, T_STR, T_ITEM, T_DELIM, T_OP };

struct tok {
	enum tok_type type;
	char op[4];
	const char *at, *end;	/* the token's text */
};

static const char *next_tok(const char *p, struct tok *t)
{
	const char *s;
	char q;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	t->at = p;
	t->op[0] = '\0';
	if (!*p) {
		t->type = T_END;
	} else if (*p == '"' || *p == '\'') {
		q = *p;
		do {
			/* Its strings end at the quote or at a character
			 * that is not printable (a tab), except a newline. */
			for (p++; *p && *p != q && (isprint((unsigned char)*p) || *p == '\n'); p++)
				if (*p == '\\' && p[1])
					p++;
			p += !!*p;
			/* Adjacent "strings" are one, as libtraceevent joins them. */
			s = p;
			while (*s == ' ' || *s == '\t' || *s == '\n')
				s++;
		} while (q == '"' && *s == '"' && (p = s));
		t->type = T_STR;
	} else if (isalnum((unsigned char)*p) || *p == '_') {
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		t->type = T_ITEM;
	} else if (*p == '(' || *p == ')' || *p == ',') {
		p++;
		t->type = T_DELIM;
	} else {
		size_t n = 0;

		t->type = T_OP;
		t->op[n++] = *p++;
		if (t->op[0] == '-' && *p == '>') {
			t->op[n++] = *p++;
		} else if (strchr("-+|&<>!=", t->op[0])) {
			if (strchr("-+|&<>", t->op[0]) && *p == t->op[0])
				t->op[n++] = *p++;
			if (*p == '=' && (n == 1 || t->op[0] == '<' || t->op[0] == '>'))
				t->op[n++] = *p++;
		}
		t->op[n] = '\0';
	}
	t->end = p;
	return p;
}

/* The operators libtraceevent gives a priority (its get_op_prio()). */
static bool known_op(const char *op)
{
	static const char *const ops[] = {
		"~", "!", "*", "/", "%", "+", "-", "<", ">", "&", "^", "|", "?",
		"++", "--", ">>", "<<", ">=", "<=", "==", "!=", "&&", "||",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

/* Is t the one-character operator c? */
static bool is_op1(const struct tok *t, char c)
{
	return t->type == T_OP && t->op[0] == c && !t->op[1];
}

/* Skip balanced parentheses from the '(' in t. */
static const char *skip_parens(const char *p, struct tok *t)
{
	int depth = 1;

	while (depth && t->type != T_END) {
		p = next_tok(p, t);
		if (t->type == T_DELIM && *t->at == '(')
			depth++;
		else if (t->type == T_DELIM && *t->at == ')')
			depth--;
	}
	return p;
}

/*
 * Skip one operand of a ternary's ':' as libtraceevent reads it: unary
 * operators, then a name (REC->field, a call f(...)), a string, or a
 * parenthesised expression (a cast's operand after it).  t: the token
 * after it.
 */
static const char *skip_operand(const char *p, struct tok *t)
{
	p = next_tok(p, t);
	for (;;) {
		while (t->type == T_OP && strchr("!~-+", t->op[0]) && !t->op[1])
			p = next_tok(p, t);
		if (t->type == T_DELIM && *t->at == '(') {
			p = skip_parens(p, t);
			p = next_tok(p, t);
			/* "(type) x": the cast's operand, from t on. */
			if (t->type == T_ITEM || t->type == T_STR ||
			    (t->type == T_DELIM && *t->at == '('))
				continue;
			return p;
		}
		if (t->type == T_ITEM && t->end - t->at == 3 &&
		    !strncmp(t->at, "REC", 3)) {
			p = next_tok(p, t);
			if (t->type == T_OP && !strcmp(t->op, "->")) {
				p = next_tok(p, t);
				if (t->type == T_ITEM)
					p = next_tok(p, t);
			}
			return p;
		}
		if (t->type == T_ITEM || t->type == T_STR) {
			p = next_tok(p, t);
			if (t->type == T_DELIM && *t->at == '(') {
				p = skip_parens(p, t);
				p = next_tok(p, t);
			}
		}
		return p;
	}
}

/*
 * libtraceevent 1.7 divides without looking at the divisor, folding
 * "1 / 0" (or "1 / NAME", NAME read as 0) while parsing and dividing by a
 * field's value while printing: SIGFPE (found by tests/fuzz/fuzz_file.c).
 * The kernel's formats divide only by nonzero numbers ("/ 1000L",
 * "% 64") and sizeof of a type, so only those are let through.  t: the
 * token after the operator, p: where the next one starts.
 */
static bool nonzero_divisor(const char *p, struct tok *t)
{
	if (t->type != T_ITEM)
		return false;
	if (isdigit((unsigned char)*t->at))
		return strtoull(t->at, NULL, 0) != 0;
	if (t->end - t->at != 6 || strncmp(t->at, "sizeof", 6))
		return false;
	/* sizeof(int), sizeof(long), not sizeof(REC->x) of a 0-byte field. */
	p = next_tok(p, t);
	if (t->type != T_DELIM || *t->at != '(')
		return false;
	next_tok(p, t);
	return t->type == T_ITEM && !(t->end - t->at == 3 && !strncmp(t->at, "REC", 3));
}

/*
 * "sizeof ( (" and "sizeof ( struct": libtraceevent's process_sizeof()
 * takes only a type name or REC->field after "sizeof (", and fails the
 * whole print fmt at anything else, reading no further (the kernel's
 * ARRAY_SIZE(), as in binder's binder_return: "sizeof((x)[0]) +
 * sizeof(struct { int:-!!(...); })").  t: the "sizeof", p: after it.
 */
static bool sizeof_stops_parse(const char *p, const struct tok *t)
{
	struct tok n;

	if (t->type != T_ITEM || t->end - t->at != 6 || strncmp(t->at, "sizeof", 6))
		return false;
	p = next_tok(p, &n);
	if (n.type != T_DELIM || *n.at != '(')
		return false;
	next_tok(p, &n);
	return (n.type == T_DELIM && *n.at == '(') ||
	       (n.type == T_ITEM && n.end - n.at == 6 && !strncmp(n.at, "struct", 6));
}

static bool is_cpumask_call(const char *at, const char *end)
{
	size_t n = (size_t)(end - at);

	return (n == 13 && !strncmp(at, "__get_cpumask", n)) ||
	       (n == 17 && !strncmp(at, "__get_rel_cpumask", n));
}

/*
 * libtraceevent 1.7 dereferences NULL when an operator it has no
 * priority for (";", "=", ".", "->", "[") follows the "]" of an index or
 * the last operand of "a ? b : c" (found by tests/fuzz/fuzz_file.c):
 * there it looks for the right-hand side of an operator that has none.
 * It gives up on the whole print fmt at a "({" (a statement expression,
 * as kvmmmu's events have), so nothing after one is ever parsed; a "{"
 * elsewhere is __print_flags()' list, which it does parse.
 */
/*
 * The format string's conversions.  libtraceevent hands each to
 * vsnprintf(), which goes through every byte of a width or a precision
 * even into a buffer too small for them: a width taken from the record
 * ("%*u" of a 64-bit field) or written as "%999999999d" costs seconds
 * for each record (found by tests/fuzz/fuzz_format.c: "%*us" of an
 * address, more than 14 CPU seconds for one page).  The kernel's formats
 * take from an argument only a string's precision ("%.*s", which bounds
 * what is read) and a bitmap's width ("%*pbl"), and write widths of at
 * most two digits.
 */
#define FMT_MAX_WIDTH	4096

static const char *conversion_problem(const char *p, const char *end)
{
	bool star_width, star_prec;
	unsigned long width, prec;
	char conv;

	for (; p < end; p++) {
		if (*p != '%' || ++p >= end || *p == '%')
			continue;
		while (p < end && (*p == '-' || *p == '+' || *p == ' ' ||
				   *p == '#' || *p == '0'))
			p++;
		star_width = p < end && *p == '*';
		for (width = 0, p += star_width; p < end && isdigit((unsigned char)*p); p++)
			width = width > FMT_MAX_WIDTH ? width : width * 10 + (unsigned long)(*p - '0');
		star_prec = false;
		prec = 0;
		if (p < end && *p == '.') {
			star_prec = ++p < end && *p == '*';
			for (p += star_prec; p < end && isdigit((unsigned char)*p); p++)
				prec = prec > FMT_MAX_WIDTH ? prec : prec * 10 + (unsigned long)(*p - '0');
		}
		while (p < end && strchr("hlLqjzt", *p))
			p++;
		conv = p < end ? *p : '\0';
		if ((star_width && conv != 'p') || (star_prec && conv != 's') ||
		    width > FMT_MAX_WIDTH || prec > FMT_MAX_WIDTH)
			return "a width or precision too large or taken from the record in its print fmt";
		p -= p >= end;
	}
	return NULL;
}

/* The print fmt's arguments, from p; fmt and pf as for format_has_field(). */
static const char *args_problem(const char *fmt, const char *pf, const char *p)
{
	const char *why;
	struct tok t;

	/*
	 * libtraceevent reads the arguments only after the format string
	 * and a ','; otherwise it fails the print fmt before them (as for
	 * maple_tree's, whose string a tab ends early).
	 */
	p = next_tok(p, &t);
	if (t.type != T_STR)
		return NULL;
	why = conversion_problem(t.at, t.end);
	if (why)
		return why;
	p = next_tok(p, &t);
	if (t.type != T_DELIM || *t.at != ',')
		return NULL;
	p = next_tok(p, &t);
	while (t.type != T_END) {
		/* "({": a statement expression, where libtraceevent gives up. */
		if (t.type == T_DELIM && *t.at == '(') {
			const char *q = p;

			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (*q == '{')
				break;
		}
		if (t.type == T_ITEM && is_cpumask_call(t.at, t.end)) {
			/*
			 * libtraceevent 1.7 dereferences NULL printing a
			 * __get_cpumask() of a field the event lacks.
			 */
			p = next_tok(p, &t);
			if (t.type == T_DELIM && *t.at == '(') {
				p = next_tok(p, &t);
				if (t.type != T_ITEM ||
				    !format_has_field(fmt, pf, t.at, (size_t)(t.end - t.at)))
					return "its print fmt names a cpumask field the format does not declare";
			}
			continue;
		}
		/* Where libtraceevent gives up, as at "({". */
		if (sizeof_stops_parse(p, &t))
			break;
		if (is_op1(&t, '/') || is_op1(&t, '%')) {
			p = next_tok(p, &t);
			if (sizeof_stops_parse(p, &t))
				break;
			if (!nonzero_divisor(p, &t))
				return "a division by something other than a nonzero number in its print fmt";
			continue;
		}
		if (is_op1(&t, ':')) {
			p = skip_operand(p, &t);
		} else if (is_op1(&t, ']')) {
			p = next_tok(p, &t);
		} else {
			p = next_tok(p, &t);
			continue;
		}
		/* t: the token after the operand or the "]", looked at next. */
		/*
		 * A name right after an operand, with no operator between
		 * ("a ? b : f REC->x"): libtraceevent 1.7 dereferences NULL
		 * in tep_parse_format() (found by tests/fuzz/fuzz_format.c).
		 * No kernel's format has one: C has none.
		 */
		if (t.type == T_ITEM)
			return "two operands with no operator between them in its print fmt";
		if (t.type == T_OP && !known_op(t.op) && strcmp(t.op, ":") &&
		    strcmp(t.op, "]") && strcmp(t.op, "{"))
			return "an operator libtraceevent cannot parse there in its print fmt";
	}
	return NULL;
}

/*
 * libtraceevent reads a field line's type and name to its ';' across
 * newlines, and an array's "[" to its "]", lines below too, where
 * format_has_field() reads one line: the two would disagree on the
 * fields.  A format where they do, parsed after one with a
 * __print_flags() of no field, made tep_parse_format() dereference NULL
 * (found by tests/fuzz/fuzz_format.c, twice: "field:__u8 dst[" running
 * into the next line, and "field:u64 sptep[<tab>offset:24;"; libtraceevent
 * 1.7 keeps parser state in statics, and which one carries this over is
 * not pinned down: a parse that clears its flags mark in between does not
 * prevent it).  So a field line must end on its line, its brackets
 * closed, as every kernel's do.
 */
static bool field_lines_end(const char *fmt, const char *pf)
{
	const char *line = fmt;

	if (!line || line >= pf)
		return true;
	for (; (line = memmem(line, (size_t)(pf - line), "field:", 6)); line += 6) {
		/* pf's own '\n' ends the search for the line's end. */
		const char *nl = memchr(line, '\n', (size_t)(pf - line) + 1);
		const char *end = memchr(line, ';', (size_t)(nl - line)), *q;
		int depth = 0;

		if (!end)
			return false;
		/*
		 * An array's "[" closed before the ';': libtraceevent reads
		 * an open one on to the next "]", lines below too (the
		 * fuzzer's "field:u64 sptep[<tab>offset:24;").
		 */
		for (q = line; q < end; q++) {
			if (*q == '[' && depth++)
				return false;
			if (*q == ']' && --depth < 0)
				return false;
		}
		if (depth)
			return false;
	}
	return true;
}

const char *kt_format_problem(const char *buf, size_t size)
{
	const char *fmt, *pf, *p;
	int depth = 0;
	bool quote = false;
	size_t i;

	for (i = 0; i < size; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch > 0x7e)
			return "a byte that is not text";
	}
	/* (memmem: strstr() under ASan measures the whole text each time) */
	fmt = memmem(buf, size, "\nformat:\n", 9);
	if (strncmp(buf, "name: ", 6) || !memmem(buf, size, "\nID: ", 5) || !fmt)
		return "no name, ID or format line";
	pf = memmem(buf, size, "\nprint fmt: ", 12);
	if (!pf)
		return "no print fmt line";
	if (!field_lines_end(fmt, pf))
		return "a field line that does not end on its line";
	/*
	 * libtraceevent reads the print fmt to the end of the text, lines
	 * after it too (found by tests/fuzz/fuzz_file.c: a format running
	 * into the next section), and the kernel's own strings span lines
	 * (ext4_fc_stats, ext4_fsmap_*): all of it is checked.
	 */
	for (p = pf + 12; *p; p++) {
		if (quote) {
			if (*p == '\\' && p[1] && p[1] != '\n')
				p++;
			else if (*p == '"')
				quote = false;
			continue;
		}
		if (*p == '"') {
			quote = true;
		} else if (p[0] == 'R' && p[1] == 'E' && p[2] == 'C' && p[3] == '-' &&
			   p[4] == '>') {
			size_t n = 0;

			while (isalnum((unsigned char)p[5 + n]) || p[5 + n] == '_')
				n++;
			if (!n || !format_has_field(fmt, pf, p + 5, n))
				return "its print fmt names a field the format does not declare";
			p += 4 + n;
		} else if (!fmt_arg_char[(unsigned char)*p])
			return "a character outside C expressions in its print fmt";
		else if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == ']' || *p == '}') && --depth < 0)
			return "unbalanced brackets in its print fmt";
	}
	if (quote)
		return "an unterminated string in its print fmt";
	if (depth)
		return "unbalanced brackets in its print fmt";
	return args_problem(fmt, pf, pf + 12);
}

/*
 * libtraceevent 1.7 divides by zero in a filter as in a print fmt
 * ("1 / 0" while parsing, "x / y" while matching a record whose y is 0),
 * and frees a parenthesised group twice when the token after its ")" is
 * a syntax error ("(x + 1) > 2", "(x == 1) ("): it keeps the group both
 * as the expression and as the pending argument (all found by
 * tests/fuzz/fuzz_filter.c).  Only nonzero numbers divide; after a group
 * only "&&", "||", ")" or the end are valid, so anything else is refused
 * here, as libtraceevent would, without it.
 */
const char *kt_filter_problem(const char *filter)
{
	const char *p;
	struct tok t;

	for (p = filter; *p; p++)
		if (!isprint((unsigned char)*p) && *p != '\t')
			return "a character that is not printable text";
	p = strchr(filter, ':');
	if (!p)
		return NULL;
	for (p = next_tok(p + 1, &t); t.type != T_END; ) {
		/* As in a print fmt (nonzero_divisor()): "x / 0", "x / y". */
		if (t.type == T_OP && (!strcmp(t.op, "/") || !strcmp(t.op, "%"))) {
			p = next_tok(p, &t);
			if (!nonzero_divisor(p, &t))
				return "a division by something other than a nonzero number";
			continue;
		}
		if (t.type != T_DELIM || *t.at != ')') {
			p = next_tok(p, &t);
			continue;
		}
		p = next_tok(p, &t);
		if (t.type == T_END || (t.type == T_DELIM && *t.at == ')') ||
		    (t.type == T_OP && (!strcmp(t.op, "&&") || !strcmp(t.op, "||"))))
			continue;
		return "a syntax error after a ')' (only &&, || or ')' may follow one)";
	}
	return NULL;
}

/*
 * Is name a field of some event f filters?  *first: the first of those
 * events.
 */
static bool field_of_filtered(struct tep_handle *tep,
			      struct tep_event_filter *f, const char *name,
			      const char **first)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int i;

	for (i = 0; events && events[i]; i++) {
		if (!tep_event_filtered(f, events[i]->id))
			continue;
		if (!*first)
			*first = events[i]->name;
		if (tep_find_any_field(events[i], name))
			return true;
	}
	return false;
}

bool kt_filter_unknown_word(struct tep_handle *tep,
			    struct tep_event_filter *f, const char *filter,
			    char *word, size_t len, const char **event)
{
	const char *p = strchr(filter, ':');
	struct tok t;
	size_t n;

	*event = NULL;
	if (!p || !len)
		return false;
	for (p = next_tok(p + 1, &t); t.type != T_END; p = next_tok(p, &t)) {
		/* Numbers (0x10 too) start with a digit; strings are quoted. */
		if (t.type != T_ITEM || isdigit((unsigned char)*t.at))
			continue;
		n = (size_t)(t.end - t.at);
		if (n >= len)
			n = len - 1;
		memcpy(word, t.at, n);
		word[n] = '\0';
		if (strcmp(word, "COMM") && strcmp(word, "CPU") &&
		    !field_of_filtered(tep, f, word, event))
			return true;
	}
	return false;
}

/*
 * ftrace:bprint (trace_printk()) prints from the printk format its fmt
 * field points at and the arguments in its buf, not from its print fmt:
 * libtraceevent 1.7 reads that format from address 5 when the event has
 * no fmt field (fuzz_format, regress/format/bprint-without-fmt-field).
 * Every kernel's bprint has the three.
 */
const char *kt_ftrace_format_problem(const char *system, const char *buf)
{
	static const char *const need[] = { "ip", "fmt", "buf" };
	const char *fmt, *pf;
	size_t i;

	if (strcmp(system, "ftrace") || strncmp(buf, "name: bprint\n", 13))
		return NULL;
	fmt = strstr(buf, "\nformat:\n");
	pf = strstr(buf, "\nprint fmt: ");
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!pf || !format_has_field(fmt, pf, need[i], strlen(need[i])))
			return "ftrace:bprint without its ip, fmt and buf fields";
	return NULL;
}
