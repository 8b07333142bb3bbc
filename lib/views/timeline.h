/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A self-contained SVG of CPU occupancy over time: one lane per CPU, a
 * rect per task run (from the sched_switch that put it on the CPU to the
 * next sched_switch there), coloured by a hash of the pid so a task keeps
 * its colour across CPUs, idle left blank, the spans where events were
 * lost hatched (from the last event before a lost-events mark to the mark),
 * and a time axis in seconds from the first event.
 *
 * SVG structure, for tools and tests: <g class="lane" data-cpu="N"> per
 * CPU holding <rect class="run" data-pid=.. data-start=.. data-end=..>
 * (ns) and <rect class="lost" ...>; the scale is in the root's
 * data-ns-per-px attribute.
 */
#ifndef KT_TIMELINE_H
#define KT_TIMELINE_H

#include <stdio.h>

#include "decode/decoder.h"

struct tep_handle;
struct kt_timeline;

struct kt_timeline *kt_timeline_new(struct tep_handle *tep, int ncpus);
void kt_timeline_free(struct kt_timeline *tl);
/* A record from the decoder (kt_event_fn shape); 0 or -errno. */
int kt_timeline_add(const struct kt_event *ev, void *tl);
/* Close the runs at the last event and write the SVG. */
int kt_timeline_write(struct kt_timeline *tl, FILE *out);

#endif
