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

#endif
