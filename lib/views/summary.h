/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a recording holds and what it lost: per CPU the statistics stored
 * at record time (CPUSTAT) next to what the data itself shows (events,
 * bytes, lost-event marks), and per event the counts per CPU with the
 * first and last timestamp.  Used by `ktrace report --stat` and
 * `ktrace stat -i FILE`.
 */
#ifndef KT_SUMMARY_H
#define KT_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

struct kt_reader;
struct kt_event;
struct kt_select;
struct tep_event;

struct kt_summary_cpu {
	int buffer;			/* 0: top */
	int cpu;
	uint64_t events;		/* records in the data */
	uint64_t bytes;			/* their ring-buffer bytes */
	uint64_t lost;			/* sum of counted lost-event marks */
	uint64_t marks;			/* lost-event marks */
	uint64_t unknown_marks;		/* marks without a count */
	unsigned long long first_ts, last_ts;
	/* Records of the window, selected or not (== events: no selection). */
	uint64_t seen;
	unsigned long long seen_ts;	/* the last of them */
	/* From CPUSTAT, when has_stat. */
	bool has_stat;
	uint64_t st_entries, st_overrun, st_commit_overrun, st_bytes,
		 st_dropped, st_read;
	uint64_t st_unwritten;		/* KT_CPUSTAT_UNWRITTEN */
};

struct kt_summary_event {
	struct tep_event *event;
	uint64_t total;
	const uint64_t *per_cpu;	/* indexed like kt_summary_cpu_at() */
	unsigned long long first_ts, last_ts;
};

struct kt_summary_lost {
	int buffer;
	int cpu;
	long long count;		/* -1: unknown */
	bool has_after;
	unsigned long long after_ts;	/* last event before the loss */
	unsigned long long before_ts;	/* first event after it */
};

struct kt_summary;
/* Decode the whole file once.  NULL + errno on failure. */
struct kt_summary *kt_summary_new(struct kt_reader *r);
/*
 * The same for a selection (decode/select.h, resolved against r): the
 * rows of its CPUs, the counts of its records, the lost-event marks of
 * its window (a loss has no event, so -e and the like leave every mark
 * of the window in).  With a time window the record-time stats, which
 * cover the whole recording, are shown but not added to the loss.
 */
struct kt_summary *kt_summary_new_sel(struct kt_reader *r,
				      const struct kt_select *sel);
/*
 * The same fed by a pass of the caller's (`ktrace sql` counts the loss
 * in the pass that loads its tables, not in a pass of its own): begin
 * (NULL + errno), add every record a decoder of the same selection
 * gives (0 or -ENOMEM), end before reading the summary.
 */
struct kt_summary *kt_summary_begin(struct kt_reader *r,
				    const struct kt_select *sel);
int kt_summary_add(struct kt_summary *s, const struct kt_event *ev);
void kt_summary_end(struct kt_summary *s);
void kt_summary_free(struct kt_summary *s);

int kt_summary_cpus(const struct kt_summary *s);
const struct kt_summary_cpu *kt_summary_cpu_at(const struct kt_summary *s, int i);
/* Events that occur, most frequent first. */
int kt_summary_events(const struct kt_summary *s);
const struct kt_summary_event *kt_summary_event_at(const struct kt_summary *s, int i);
/* Lost-event marks in time order (the first KT_SUMMARY_MAX_MARKS). */
#define KT_SUMMARY_MAX_MARKS 1000
int kt_summary_marks(const struct kt_summary *s);
const struct kt_summary_lost *kt_summary_mark_at(const struct kt_summary *s, int i);
/*
 * Events lost in total: counted marks + record-time overruns/drops; with
 * a time window, the counted marks in it.
 */
uint64_t kt_summary_total_lost(const struct kt_summary *s);
/* Loss is that of a time window: the marks in it. */
bool kt_summary_window(const struct kt_summary *s);

#endif
