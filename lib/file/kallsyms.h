/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace.dat's kallsyms text into a tep_handle's function table, as
 * tep_parse_kallsyms() loads it, without its sscanf() per line (most of
 * the start-up time of a report).
 */
#ifndef KT_KALLSYMS_H
#define KT_KALLSYMS_H

struct tep_handle;

/*
 * Register the functions of text ("ADDR TYPE NAME[\t[MODULE]]" lines,
 * up to the first NUL).  Lines of the usual shape are read here; from
 * the first line of any other shape on, tep_parse_kallsyms() reads the
 * rest, so every line means what it means to libtraceevent.  Returns
 * 0, or -1 as tep_parse_kallsyms() does for a line it cannot read.
 */
int kt_kallsyms_parse(struct tep_handle *tep, const char *text);

/*
 * The same functions as a table of their own, for lookups without a
 * tep: kt_ksymtab_find() answers what tep_find_function_info() of a tep
 * with text registered would (name and start).  Takes text, which must
 * be malloc()ed: its names are cut where they are (a NUL written after
 * one when a lookup first answers it), and it is freed with the table.  NULL with errno set: EINVAL for a line not
 * of the usual shape (text untouched: kt_kallsyms_parse() reads it as
 * libtraceevent does), ENOMEM.
 */
struct kt_ksymtab;

struct kt_ksymtab *kt_ksymtab_new(char *text, void *mem);
void kt_ksymtab_free(struct kt_ksymtab *t);
/* The function addr is in and its start; NULL when none.  Cuts its name (above). */
const char *kt_ksymtab_find(struct kt_ksymtab *t, unsigned long long addr,
			    unsigned long long *start);

#endif
