/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live event counts, what ktrace top shows: a live sink of the session
 * (sink.h) that counts by reading whole ring-buffer pages of every CPU
 * and looking at nothing but each record's type id, so watching a busy
 * system stays cheap.  ktrace.ko's events (ktrace:NAME rows) are counted
 * from its traceN pages the same way, the session's module source
 * running the module and putting it back as found.
 *
 * The session takes the instance for it (kt_session_config.take: a
 * private ktrace-PID, or borrow's, left as found) and the counter owns
 * its events: one row per event of -e (or the defaults; with -B and no
 * -e, the events the instance has on), row 0, "(other)", counting what
 * no row names.  It switches the rows' events on and, in its own
 * instance, sizes it (-b) and turns tracing on; at the end it puts back
 * the switches it changed.  Use: kt_counter_new(), named in the
 * session's sinks with kt_counter_sink_ops; kt_session_start(), then
 * kt_session_step() in a loop and kt_counter_sample() at the end of
 * each interval; read the counts before kt_session_free() frees it.
 */
#ifndef KT_SINK_COUNTER_H
#define KT_SINK_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/session/sink.h"

struct kt_counter;

struct kt_counter_row {
	const char *label;	/* "system:event", or "(other)" */
	bool on;
	bool can_toggle;	/* has an enable file */
	uint64_t total;		/* since the start, at the last sample */
	double rate;		/* events/s over the last interval */
};

/* Events lost since the start. */
struct kt_counter_loss {
	unsigned long long overrun, dropped, missed;
	bool unknown;		/* some missed events were not counted */
};

enum kt_counter_sort {
	KT_COUNTER_BY_RATE,	/* ties by total, then name */
	KT_COUNTER_BY_NAME,
	KT_COUNTER_BY_TOTAL,	/* ties by name */
};

struct kt_counter_opts {
	const char *const *events;	/* -e, resolved at the start */
	size_t nevents;
	/* Without -e in a private instance: those of these the kernel has. */
	const char *const *defaults;
	size_t ndefaults;
	unsigned long buffer_kb;	/* -b; 0: as the kernel made it */
	/* KT_LIVEBUF_* beside those the environment asks for. */
	unsigned int read_flags;
};

/* o is copied; NULL + errno, said. */
struct kt_counter *kt_counter_new(const struct kt_counter_opts *o);
/* Its sink: the session owns and frees the counter from kt_session_new(). */
extern const struct kt_sink_ops kt_counter_sink_ops;

int kt_counter_cpus(const struct kt_counter *c);
/*
 * Close an interval of dt seconds: rates over it, totals, the per-CPU
 * stats, whether the instance is tracing.
 */
void kt_counter_sample(struct kt_counter *c, double dt);
/* Switch row i's event on or off; -EINVAL when it has no switch. */
int kt_counter_set_enable(struct kt_counter *c, size_t i, bool on);

/* Rows, "(other)" included. */
size_t kt_counter_rows(const struct kt_counter *c);
const struct kt_counter_row *kt_counter_row_at(const struct kt_counter *c,
					       size_t i);
double kt_counter_cpu_rate(const struct kt_counter *c, int cpu, size_t i);
/*
 * The rows to show, as row indexes in order ("(other)" only once it has
 * counted something), *n of them; valid until the next call.
 */
const size_t *kt_counter_sort(struct kt_counter *c, enum kt_counter_sort by,
			      size_t *n);
/* Sums over the rows. */
void kt_counter_sum(const struct kt_counter *c, double *rate,
		    uint64_t *total);

void kt_counter_cpu_loss(const struct kt_counter *c, int cpu,
			 struct kt_counter_loss *l);
void kt_counter_total_loss(const struct kt_counter *c,
			   struct kt_counter_loss *l);
bool kt_counter_loss_any(const struct kt_counter_loss *l);
/* How full the CPU's buffer was at the last sample, in percent. */
unsigned int kt_counter_fill_pct(const struct kt_counter *c, int cpu);
/* The per-CPU buffer size (of CPU 0) in KB; 0 when unknown. */
unsigned long long kt_counter_buffer_kb(const struct kt_counter *c);

const char *kt_counter_instance(const struct kt_counter *c);
bool kt_counter_own_instance(const struct kt_counter *c);
/* "mmap", "read" or "mmap+read": how the buffers are read. */
const char *kt_counter_read_mode(const struct kt_counter *c);
/* The same of ktrace.ko's buffers; NULL when no row is its event. */
const char *kt_counter_module_read_mode(const struct kt_counter *c);
long kt_counter_samples(const struct kt_counter *c);
/* The instance's tracing_on read 0 at the last sample. */
bool kt_counter_tracing_off(const struct kt_counter *c);

#endif
