/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line editor of sql's shell (readline's interface), from Debian's
 * libedit.so.2 loaded when the shell starts (base/dlfns.h) rather than
 * linked: linked, it and the two libraries it brings (libbsd, libmd) bind
 * ~400 symbols at every ktrace command's start.
 */
#ifndef KT_SQL_EDITFNS_H
#define KT_SQL_EDITFNS_H

#include <editline/readline.h>

struct kt_editline {
	/* __typeof__ keeps each pointer's type the header's own. */
	__typeof__(readline) *readline;
	__typeof__(add_history) *add_history;
	__typeof__(using_history) *using_history;
};

/*
 * The line editor, loaded once for the process: NULL on failure, the
 * reason in kt_editline_error().
 */
const struct kt_editline *kt_editline_get(void);
const char *kt_editline_error(void);

#endif
