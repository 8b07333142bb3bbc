// SPDX-License-Identifier: GPL-2.0
/*
 * The checks an event format passes before libtraceevent parses it
 * (see fmtcheck.h).  Each one answers a crash libtraceevent 1.7 has on
 * such text; the fuzz targets tests/fuzz/fuzz_file.c and fuzz_format.c
 * found them.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fmtcheck.h"

/*
 * libtraceevent's format parser trusts its input (an unterminated string
 * in a print fmt makes it dereference NULL), so a format must look like
 * one before it gets there: printable text with name, ID, format and
 * print fmt lines, quotes closed and brackets balanced.
 */
#define FMT_ARG_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" \
	"_ \t,.()[]{}<>=!&|^~+-*/%?:;'"

/*
 * Does the format declare a field of this name?  libtraceevent 1.7
 * dereferences NULL when a print fmt names REC->x of no field x, so
 * every REC-> reference is checked against the field lines first.
 */
static bool format_has_field(const char *buf, const char *name, size_t len)
{
	const char *line = strstr(buf, "\nformat:\n");

	for (; line && (line = strstr(line, "field:")); line += 6) {
		const char *end = strchr(line, ';'), *q;

		if (!end)
			return false;
		q = end;
		/* "char comm[16]": the name stands before the brackets. */
		if (q > line && q[-1] == ']')
			while (q > line && *q != '[')
				q--;
		while (q > line && q[-1] == ' ')
			q--;
		if ((size_t)(q - line) >= len && !strncmp(q - len, name, len) &&
		    !(isalnum((unsigned char)q[-(ptrdiff_t)len - 1]) ||
		      q[-(ptrdiff_t)len - 1] == '_'))
			return true;
	}
	return false;
}

const char *kt_format_problem(const char *buf, size_t size)
{
	const char *pf, *p;
	int depth = 0;
	bool quote = false;
	size_t i;

	for (i = 0; i < size; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch > 0x7e)
			return "a byte that is not text";
	}
	if (strncmp(buf, "name: ", 6) || !strstr(buf, "\nID: ") ||
	    !strstr(buf, "\nformat:\n"))
		return "no name, ID or format line";
	pf = strstr(buf, "\nprint fmt: ");
	if (!pf)
		return "no print fmt line";
	/*
	 * The kernel's own strings may span lines (ext4_fc_stats,
	 * ext4_fsmap_*): a newline ends the print fmt only outside quotes.
	 */
	for (p = pf + 12; *p && (*p != '\n' || quote); p++) {
		if (quote) {
			if (*p == '\\' && p[1] && p[1] != '\n')
				p++;
			else if (*p == '"')
				quote = false;
			continue;
		}
		if (*p == '"') {
			quote = true;
		} else if (!strncmp(p, "REC->", 5)) {
			size_t n = 0;

			while (isalnum((unsigned char)p[5 + n]) || p[5 + n] == '_')
				n++;
			if (!n || !format_has_field(buf, p + 5, n))
				return "its print fmt names a field the format does not declare";
			p += 4 + n;
		} else if (!strchr(FMT_ARG_CHARS, *p))
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
	return NULL;
}
