/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An event's switch and filter in one instance, saved before a change so
 * that a change that fails half-way can be undone exactly.
 */
#ifndef KT_EVSTATE_H
#define KT_EVSTATE_H

#include <stdbool.h>
#include <tracefs.h>

struct kt_event_state;

/* Read events/<system>/<event>/{enable,filter}.  NULL + errno. */
struct kt_event_state *kt_event_state_save(struct tracefs_instance *inst,
					   const char *system,
					   const char *event);
/* Put the filter, then the switch, back as saved.  0 or -errno. */
int kt_event_state_restore(const struct kt_event_state *st);
void kt_event_state_free(struct kt_event_state *st);

bool kt_event_state_enabled(const struct kt_event_state *st);
/* The filter expression, or NULL when the event has none. */
const char *kt_event_state_filter(const struct kt_event_state *st);

#endif
