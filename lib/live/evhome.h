/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an event lives: ftrace's tracefs, or ktrace.ko's debugfs.  The
 * one place that decides it.
 */
#ifndef KT_EVHOME_H
#define KT_EVHOME_H

#include <stdbool.h>

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

#endif
