/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's reason for refusing a write to tracefs, from its error_log
 * (a filter, a probe, a trigger).  An entry is three lines:
 *
 *   [  616.486559] event filter parse error: error: Field not found
 *     Command: prev_pidd == 1
 *                        ^
 *
 * The one reader of it every caller shares.
 */
#ifndef KT_ERRLOG_H
#define KT_ERRLOG_H

#include <tracefs.h>

struct kt_errlog {
	char reason[256];	/* "Field not found"; "" when there is none */
	long column;		/* the caret's column in the command, from 1; 0: none */
	char word[256];		/* the command's word over the caret; "" when none */
};

/*
 * The last entry of text (error_log, or one entry of it as
 * tracefs_error_last() gives): 0, or -ENOENT (e all empty) when it holds
 * no "error: ".  text may be NULL.
 */
int kt_errlog_parse(const char *text, struct kt_errlog *e);

/* The same from inst's error_log (NULL: the top level's).  0 or -errno. */
int kt_errlog_read(struct tracefs_instance *inst, struct kt_errlog *e);

#endif
