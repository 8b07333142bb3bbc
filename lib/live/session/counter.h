/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live event counts, what ktrace top shows: events are counted in a
 * private instance (or a borrowed existing one) by reading whole
 * ring-buffer pages of every CPU and looking at nothing but each
 * record's type id, so watching a busy system stays cheap.  ktrace.ko's
 * events (ktrace:NAME rows) are counted from its traceN pages the same
 * way, the module started for it and put back as found.  The instance
 * is taken as record's is (kt_tracing_take(), tracing.h), ktrace.ko
 * through the recording's module source (source-module.c).
 *
 * One row per event; row 0, "(other)", counts what no row names.  Use:
 * kt_counter_new(), rows with kt_counter_add_event() or
 * kt_counter_add_enabled(), kt_counter_start(); then kt_counter_drain()
 * whenever a CPU's fd polls ready and kt_counter_sample() at the end of
 * each interval.  kt_counter_free() puts a borrowed instance's events
 * back as found, or removes the private instance.
 */
#ifndef KT_COUNTER_H
#define KT_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * instance NULL: a private instance ktrace-PID, created here; else the
 * existing instance of that name, never created.  Says why on failure:
 * NULL + errno.
 */
struct kt_counter *kt_counter_new(const char *instance);
void kt_counter_free(struct kt_counter *c);

/* A row for an event, before kt_counter_start().  0 or -errno, said. */
int kt_counter_add_event(struct kt_counter *c, const char *system,
			 const char *name);
/*
 * A row for each event the (borrowed) instance has enabled.  0, -ENODATA
 * when it has none (not said), or -errno (said).
 */
int kt_counter_add_enabled(struct kt_counter *c);
/* Set the per-CPU buffer size of the instance; 0 or -errno. */
int kt_counter_resize(struct kt_counter *c, unsigned long kb);
/*
 * Map event ids to rows, enable the rows' events (when enable), open
 * the per-CPU buffers (KT_LIVEBUF_* flags, and those the environment
 * asks for: kt_livebuf_env_flags()) and, in a private instance, start
 * tracing.  0 or -errno, said.
 */
int kt_counter_start(struct kt_counter *c, bool enable, unsigned int flags);

int kt_counter_cpus(const struct kt_counter *c);
/*
 * What to poll() for POLLIN, file i of kt_counter_nfds(): a buffer is
 * filling up (the CPUs' of the instance, then ktrace.ko's traceN).
 */
int kt_counter_nfds(const struct kt_counter *c);
int kt_counter_fd(const struct kt_counter *c, int i);
/* Count what the buffers hold so far; 0 or -errno, said. */
int kt_counter_drain(struct kt_counter *c);
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
