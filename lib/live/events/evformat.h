/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One event's format, as the kernel describes it in
 * events/<system>/<event>/format, parsed by libtraceevent: its id, its
 * fields and its print format.  For `ktrace list --fields`.
 */
#ifndef KT_EVFORMAT_H
#define KT_EVFORMAT_H

#include <stdbool.h>
#include <stddef.h>

struct kt_field {
	const char *name;
	const char *type;	/* as the kernel spells it, "char[16]" */
	int offset;
	int size;
	bool is_signed;
	bool common;		/* common_pid and friends, in every event */
};

struct kt_event_format;

/*
 * Read and parse the live format of system:event.  NULL + errno: ENOENT
 * (no such event), EINVAL (libtraceevent cannot parse it), ENOMEM.
 */
struct kt_event_format *kt_event_format_open(const char *system,
					     const char *event);
/*
 * Parse SIZE bytes of format TEXT (NUL-terminated at TEXT[SIZE]) of an
 * event of SYSTEM, checked first as a trace.dat's formats are
 * (tepcheck.h).  NULL + errno: EINVAL (not a format we parse), ENOMEM.
 */
struct kt_event_format *kt_event_format_parse(const char *system,
					      const char *text, size_t size);
void kt_event_format_close(struct kt_event_format *fmt);

int kt_event_format_id(const struct kt_event_format *fmt);
/* Common fields first, then the event's own, in offset order. */
size_t kt_event_format_fields(const struct kt_event_format *fmt,
			      const struct kt_field **fields);
/* The print format: the format string and its arguments ("" if none). */
const char *kt_event_format_print(const struct kt_event_format *fmt);

#endif
