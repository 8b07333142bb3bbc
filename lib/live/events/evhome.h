/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an event lives: ftrace's tracefs, or ktrace.ko's debugfs.  The
 * one place that decides it, from the backend choice and the system
 * name; everything else asks here for an event's home, directory,
 * format and switch.
 */
#ifndef KT_EVHOME_H
#define KT_EVHOME_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_instance;

/*
 * Which tracer's events names mean.  AUTO: the catalog has ftrace's
 * events and, when ktrace.ko is loaded, the module's as system "ktrace"
 * ("ktrace:NAME" is always the module's, "system:NAME" always ftrace's,
 * a bare name the module offers is the module's).  FTRACE or MODULE:
 * the catalog has only that one's events.
 */
enum kt_backend { KT_BACKEND_AUTO, KT_BACKEND_FTRACE, KT_BACKEND_MODULE };
void kt_events_set_backend(enum kt_backend backend);
enum kt_backend kt_events_backend(void);
/* "ftrace" or "module" (-EINVAL otherwise). */
int kt_backend_parse(const char *name, enum kt_backend *out);
/* Whether the module's events are in play (MODULE, or AUTO and loaded). */
bool kt_events_use_module(void);
/* 0, or -ENOENT when the choice is the module and it is not loaded. */
int kt_backend_check(void);

/*
 * Where an event of system lives.  MODULE: system "ktrace" while the
 * module's events are in play; the event is debugfs
 * ktrace/events/<event>/, with a switch and a format, no filter and no
 * instances.  FTRACE: every other; <tracing>/events/<system>/<event>/,
 * in the top level or an instance.
 */
enum kt_event_home { KT_EVENT_FTRACE, KT_EVENT_MODULE };
enum kt_event_home kt_event_where(const char *system);

/*
 * The directory of a system's events, of one event, and its format
 * file: under tracing_dir (NULL: the live one) for ftrace's events, in
 * debugfs for the module's.  0, -ENODEV (no tracefs), -ENOENT (the
 * module is not loaded) or -ENAMETOOLONG.
 */
int kt_event_system_dir(const char *tracing_dir, const char *system,
			char *buf, size_t len);
int kt_event_dir(const char *tracing_dir, const char *system,
		 const char *event, char *buf, size_t len);
int kt_event_format_path(const char *tracing_dir, const char *system,
			 const char *event, char *buf, size_t len);
/*
 * The event's format file, malloc'ed and NUL-terminated, *size its
 * length.  NULL + errno (ENOENT: no such event).
 */
char *kt_event_format_read(const char *tracing_dir, const char *system,
			   const char *event, size_t *size);

/* Whether the event has a switch (ftrace's own, ftrace/print ..., do not). */
bool kt_event_has_switch(const char *tracing_dir, const char *system,
			 const char *event);
/*
 * The event's switch in inst (NULL: the top level; the module's events
 * have one switch, whatever inst): 1 on, 0 off or -errno.  Set it: 0 or
 * -errno.
 */
int kt_event_switch_get(struct tracefs_instance *inst, const char *system,
			const char *event);
int kt_event_switch_set(struct tracefs_instance *inst, const char *system,
			const char *event, bool on);

#endif
