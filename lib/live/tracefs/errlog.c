// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's error_log read and its last entry taken apart: the reason,
 * and where in the command the caret points (live/tracefs/errlog.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/tracefs/errlog.h"
#include "live/tracefs/tracefs.h"

static const char *line_end(const char *p)
{
	return strchrnul(p, '\n');
}

/*
 * The entry's first line: the last line that says "error: " and is not
 * indented as its "Command:" and caret lines are (a command may hold
 * "error: " itself).
 */
static const char *last_header(const char *text)
{
	const char *line, *eol, *hdr = NULL, *p;

	for (line = text; *line; line = *eol ? eol + 1 : eol) {
		eol = line_end(line);
		if (*line == ' ' || *line == '\t')
			continue;
		p = strstr(line, "error: ");
		if (p && p < eol)
			hdr = line;
	}
	return hdr;
}

/* The caret under "  Command: ..." on the two lines after the header. */
static void caret_at(const char *hdr_eol, struct kt_errlog *e)
{
	const char *line, *cmd, *eol, *caret_bol, *caret, *word;
	size_t col, wl;

	if (!*hdr_eol)
		return;
	line = hdr_eol + 1;
	eol = line_end(line);
	cmd = strstr(line, "Command: ");
	if (!cmd || cmd >= eol || !*eol)
		return;
	caret_bol = eol + 1;
	caret = strchr(caret_bol, '^');
	if (!caret || caret >= line_end(caret_bol))
		return;
	col = (size_t)(caret - caret_bol);
	e->column = (long)col - (long)(cmd + strlen("Command: ") - line) + 1;
	if (e->column < 0)
		e->column = 0;
	if (col >= (size_t)(eol - line))
		return;
	/* The word of the command the caret is under. */
	for (word = line + col; word > cmd && word[-1] != ' '; word--)
		;
	wl = strcspn(word, " \n");
	snprintf(e->word, sizeof(e->word), "%.*s", (int)wl, word);
}

int kt_errlog_parse(const char *text, struct kt_errlog *e)
{
	const char *hdr, *eol, *msg = NULL, *p;

	memset(e, 0, sizeof(*e));
	hdr = text ? last_header(text) : NULL;
	if (!hdr)
		return -ENOENT;
	eol = line_end(hdr);
	for (p = hdr; (p = strstr(p, "error: ")) && p < eol; p++)
		msg = p + strlen("error: ");
	snprintf(e->reason, sizeof(e->reason), "%.*s", (int)(eol - msg), msg);
	caret_at(eol, e);
	return 0;
}

int kt_errlog_read(struct tracefs_instance *inst, struct kt_errlog *e)
{
	char *log = kt_tracefs_read(inst, "error_log");
	int ret;

	if (!log) {
		ret = -errno;
		memset(e, 0, sizeof(*e));
		return ret;
	}
	ret = kt_errlog_parse(log, e);
	free(log);
	return ret;
}
