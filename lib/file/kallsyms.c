// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms text into the function table.  See kallsyms.h.
 */
#include <stdbool.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "file/kallsyms.h"

/* sscanf()'s white space in the C locale. */
static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One line of the usual shape: 1-16 hex digits, one space, a type
 * letter, one space, the name, and optionally a tab and "[module]".
 * These are read by libtraceevent's
 * sscanf("%16llx %c %n%*s%n%*1[\t][%n%*s%n") exactly as here.  Returns
 * false (nothing registered) for any other shape.
 */
static bool parse_line(struct tep_handle *tep, const char *p, const char *end)
{
	char func[512], mod[512];
	unsigned long long addr = 0;
	const char *f, *m = NULL;
	size_t flen, mlen = 0;
	int i, v;
	char ch;

	for (i = 0; i < 16 && p < end && (v = hexval(*p)) >= 0; i++, p++)
		addr = addr << 4 | (unsigned int)v;
	if (!i || end - p < 4 || *p != ' ')
		return false;
	ch = p[1];
	if (is_space(ch) || p[2] != ' ' || is_space(p[3]))
		return false;
	f = p + 3;
	for (p = f; p < end && !is_space(*p); p++)
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
	if (flen >= sizeof(func) || mlen >= sizeof(mod))
		return false;
	/* arm's '$a' marks and x86-64's absolute per-CPU offsets, as there. */
	if (f[0] == '$' || ch == 'A' || ch == 'a')
		return true;
	memcpy(func, f, flen);
	func[flen] = '\0';
	if (m) {
		memcpy(mod, m, mlen);
		mod[mlen] = '\0';
	}
	tep_register_function(tep, func, addr, m ? mod : NULL);
	return true;
}

int kt_kallsyms_parse(struct tep_handle *tep, const char *text)
{
	const char *p = text, *nl;

	for (;;) {
		/* strtok_r(.., "\n") as there: empty lines are no lines. */
		while (*p == '\n')
			p++;
		if (!*p)
			return 0;
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (!parse_line(tep, p, nl))
			return tep_parse_kallsyms(tep, p);
		p = nl;
	}
}
