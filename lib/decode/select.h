/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selection language of report and of every tool that reads a
 * recording: events (-e), libtraceevent filters (-F), pids, comms, a CPU
 * list and a time window (--from/--to).  One struct kt_select is filled
 * from the options, resolved against a reader (the CPU list checked,
 * relative times turned into timestamps), and then gives the decoder
 * that delivers the window's records with each one's `selected` set.
 *
 *   kt_select_new()                   empty: the whole file
 *   kt_select_add_*() / kt_select_set_*()   from the options
 *   kt_select_resolve(s, r)           -EINVAL: a bad --cpu/--from/--to
 *   kt_select_decoder(s, r)           the decoder to run
 *   kt_select_free()
 *
 * Times: "5.0", "5", "250ms", "2us", "100ns" are a length of time after
 * the first event of the file, exact to the nanosecond; "@462.930127" is
 * a timestamp as printed, and covers everything printed so (rounded to
 * the digits given).  For files with raw clock counts, numbers are counts.
 */
#ifndef KT_SELECT_H
#define KT_SELECT_H

#include <stdbool.h>
#include <stddef.h>

struct kt_reader;
struct kt_decoder;

/* At most this many -e, -F, --pid and --comm each. */
#define KT_SELECT_MAX 64

struct kt_select;
struct kt_select *kt_select_new(void);
void kt_select_free(struct kt_select *s);

/* Each returns 0, or -E2BIG past KT_SELECT_MAX, or -ENOMEM. */
int kt_select_add_event(struct kt_select *s, const char *spec);
int kt_select_add_filter(struct kt_select *s, const char *filter);
int kt_select_add_pid(struct kt_select *s, int pid);
int kt_select_add_comm(struct kt_select *s, const char *glob);
/* The texts as given; checked by kt_select_resolve(). */
void kt_select_set_cpus(struct kt_select *s, const char *list);
/*
 * The CPUs --cpu leaves out are read too, their records unselected and
 * without loss marks (kt_decoder_opts.read_hidden): for a text report,
 * whose comms are learnt from every record as trace-cmd's are.
 */
void kt_select_read_hidden(struct kt_select *s);
void kt_select_set_from(struct kt_select *s, const char *t);
void kt_select_set_to(struct kt_select *s, const char *t);

/* Anything selected at all (false: the whole file). */
bool kt_select_any(const struct kt_select *s);
/* Some records of the window may be left out (-e, -F, --pid, --comm). */
bool kt_select_by_record(const struct kt_select *s);
/*
 * Records are kept by their task's pid or comm (-F, --pid, --comm), which
 * the decoder learns as it goes: such a run must stay in record order.
 */
bool kt_select_by_task(const struct kt_select *s);
/* A time window is given (--from or --to). */
bool kt_select_has_window(const struct kt_select *s);

/*
 * Check the CPU list and turn --from/--to into timestamps of r.  0, or
 * -EINVAL for a bad value (reported: a usage error), or -errno.
 */
int kt_select_resolve(struct kt_select *s, struct kt_reader *r);

/* After kt_select_resolve(): does the selection keep this CPU? */
bool kt_select_cpu(const struct kt_select *s, int cpu);
/* After kt_select_resolve(): the window in timestamps as shown. */
void kt_select_window(const struct kt_select *s, bool *has_from,
		      unsigned long long *from, bool *has_to,
		      unsigned long long *to);

/*
 * A decoder of r (resolved with kt_select_resolve()) that delivers the
 * records of the window and CPUs, each with `selected` set by the rest.
 * NULL and errno on failure, reported: ENOENT for an event not in the
 * file, EINVAL for a bad filter, other errno for the rest.
 */
struct kt_decoder *kt_select_decoder(const struct kt_select *s,
				     struct kt_reader *r);

/*
 * The selection as options, for a header line:
 * "-e sched_switch --cpu 0-1 --from 2.0 --to 3".  "" when none.
 */
void kt_select_describe(const struct kt_select *s, char *buf, size_t len);

#endif
