// SPDX-License-Identifier: GPL-2.0
/*
 * Event formats through libtraceevent.  Only `list --fields` opens
 * format files; everything else about events works from directory names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "live/events/evformat.h"
#include "live/events/evhome.h"
#include "base/lsan.h"
#include "file/tepcheck.h"

struct kt_event_format {
	struct tep_handle *tep;	/* owns the parsed event and its strings */
	struct tep_event *event;
	struct kt_field *fields;
	size_t nfields;
	char *print;
};

/* Append a NULL-terminated tep field array to fmt->fields. */
static void add_fields(struct kt_event_format *fmt,
		       struct tep_format_field **f, bool common)
{
	for (; f && *f; f++) {
		struct kt_field *k = &fmt->fields[fmt->nfields++];

		k->name = (*f)->name;
		k->type = (*f)->type;
		k->offset = (*f)->offset;
		k->size = (*f)->size;
		k->is_signed = (*f)->flags & TEP_FIELD_IS_SIGNED;
		k->common = common;
	}
}

/*
 * The "print fmt:" line as the kernel wrote it.  libtraceevent parses it
 * into an expression tree it cannot print back, so keep the text.
 */
static char *print_line(const char *text)
{
	static const char tag[] = "\nprint fmt: ";
	const char *p = strstr(text, tag), *end;

	if (!p)
		return strdup("");
	p += strlen(tag);
	end = strchr(p, '\n');
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

struct kt_event_format *kt_event_format_parse(const char *system,
					      const char *text, size_t size)
{
	struct tep_format_field **common, **own;
	struct kt_event_format *fmt;
	int ret = -ENOMEM;

	/* ktrace.ko's formats and a tampered tracefs are text like any other. */
	if (kt_format_problem(text, size)) {
		errno = EINVAL;
		return NULL;
	}
	fmt = calloc(1, sizeof(*fmt));
	if (!fmt)
		goto err;
	fmt->tep = tep_alloc();
	if (!fmt->tep)
		goto err_fmt;
	/*
	 * A print format libtraceevent does not understand still leaves
	 * the fields parsed; only a missing event is a failure.
	 */
	/* libtraceevent 1.7 leaks a little on print formats it gives up on. */
	kt_lsan_off();
	tep_parse_format(fmt->tep, &fmt->event, text, size, system);
	kt_lsan_on();
	if (!fmt->event) {
		ret = -EINVAL;
		goto err_fmt;
	}
	common = tep_event_common_fields(fmt->event);
	own = tep_event_fields(fmt->event);
	fmt->fields = calloc(fmt->event->format.nr_common +
			     fmt->event->format.nr_fields + 1,
			     sizeof(*fmt->fields));
	fmt->print = print_line(text);
	if (!fmt->fields || !fmt->print)
		goto err_lists;
	add_fields(fmt, common, true);
	add_fields(fmt, own, false);
	free(common);
	free(own);
	return fmt;

err_lists:
	free(common);
	free(own);
err_fmt:
	kt_event_format_close(fmt);
err:
	errno = -ret;
	return NULL;
}

struct kt_event_format *kt_event_format_open(const char *system,
					     const char *event)
{
	struct kt_event_format *fmt;
	size_t size = 0;
	char *text;
	int err;

	text = kt_event_format_read(NULL, system, event, &size);
	if (!text)
		return NULL;
	fmt = kt_event_format_parse(system, text, size);
	err = errno;
	free(text);
	errno = err;
	return fmt;
}

void kt_event_format_close(struct kt_event_format *fmt)
{
	if (!fmt)
		return;
	free(fmt->fields);
	free(fmt->print);
	if (fmt->tep)
		tep_free(fmt->tep);
	free(fmt);
}

int kt_event_format_id(const struct kt_event_format *fmt)
{
	return fmt->event->id;
}

size_t kt_event_format_fields(const struct kt_event_format *fmt,
			      const struct kt_field **fields)
{
	*fields = fmt->fields;
	return fmt->nfields;
}

const char *kt_event_format_print(const struct kt_event_format *fmt)
{
	return fmt->print;
}
