/* SPDX-License-Identifier: GPL-2.0 */
/* The decoder: per-CPU streams merged in time order, checked and selected. */
/*
 * It merges the per-CPU streams of every buffer of a reader in
 * timestamp order (a heap over per-CPU iterators, ties to the lower
 * buffer then CPU, as trace-cmd), walks each page with a walker that checks
 * every record as it reads it (lib/file/rawpage.c; libtraceevent's kbuffer
 * trusts them), applies the time window and CPU set (skipping whole
 * pages by their timestamps), tells whether each record is selected by
 * -e/-F/--pid/--comm, and hands records to a callback (printer.h prints
 * them).
 */
#ifndef KT_DECODER_H
#define KT_DECODER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kt_reader;
struct tep_handle;
struct tep_event;
struct tep_record;

struct kt_event {
	struct tep_event *event;
	struct tep_record *record;	/* ->missed_events: lost before it */
	int buffer;			/* 0: top, 1..: instances */
	int cpu;
	bool selected;			/* passes -e/-F/--pid/--comm */
};

struct kt_decoder_opts {
	bool has_from, has_to;
	unsigned long long from, to;	/* ns as shown (kt_reader_ts) */
	const bool *cpus;		/* cpus[cpu]: show it; NULL: all */
	int ncpus;
	/*
	 * Read the CPUs cpus[] does not show too, each record unselected and
	 * without its loss mark: a text report learns the comms their
	 * switches and wakeups name, as trace-cmd's whole text does
	 * (printer.c's note_comms()).
	 */
	bool read_hidden;
};

/* Return < 0 to stop kt_decoder_run() with that value. */
typedef int (*kt_event_fn)(const struct kt_event *ev, void *arg);

struct kt_decoder;
struct kt_decoder *kt_decoder_new(struct kt_reader *r,
				  const struct kt_decoder_opts *opts);
void kt_decoder_free(struct kt_decoder *d);

/* Selection.  Returns 0, -ENOENT (no such event), -EINVAL (bad filter). */
int kt_decoder_add_event(struct kt_decoder *d, const char *spec);
/*
 * The file's events closest to a misspelt SPEC, as kt_evspec_suggest()
 * gives them ("'sys:a' or 'sys:b'").
 */
int kt_decoder_suggest_event(struct kt_decoder *d, const char *spec,
			     char *buf, size_t len);
int kt_decoder_add_filter(struct kt_decoder *d, const char *filter);

/*
 * kt_decoder_add_filter() parses a filter for real only after a trial
 * parse in a forked child has not crashed (libtraceevent's filter parser
 * can).  kt_decoder_filter_try() is the child's work: 0 when FILTER
 * parses, else -1 with the reason in msg ("" when libtraceevent gives
 * none); it frees nothing it parsed, its caller is to exit.  A fuzzer,
 * for which a fork per filter costs more than the rest, sets fn to run
 * the trials elsewhere (one child kept for many): fn returns 0, -EINVAL
 * with the reason in err, or another -errno.  NULL: the fork again.
 */
typedef int (*kt_filter_trial_fn)(struct tep_handle *tep, const char *filter,
				  char *err, size_t len);
void kt_decoder_set_filter_trial(kt_filter_trial_fn fn);
int kt_decoder_filter_try(struct tep_handle *tep, const char *filter,
			  char *msg, size_t len);
void kt_decoder_add_pid(struct kt_decoder *d, int pid);
int kt_decoder_add_comm(struct kt_decoder *d, const char *glob);

/*
 * Call fn for every record in the window and CPU set, in time order.
 * Returns 0, or fn's negative value.  Damage in the data is reported,
 * skipped and remembered (kt_reader_damaged()).
 */
int kt_decoder_run(struct kt_decoder *d, kt_event_fn fn, void *arg);

/*
 * The same records one at a time, for a caller that merges several
 * decoders (decode/hosts.h): 1 and the next record in *ev (valid until
 * the next call; its record's ts may be changed by the caller), 0 at the
 * end.  Not mixed with kt_decoder_run() on one decoder.
 */
int kt_decoder_next(struct kt_decoder *d, struct kt_event *ev);

#endif
