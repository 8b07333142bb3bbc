/* SPDX-License-Identifier: GPL-2.0 */
/* The decoder in a thread of its own, its records handed over in batches. */
/*
 * kt_decoder_run_threaded() is kt_decoder_run() split in two stages: a
 * thread reads, unpacks and merges the pages and copies each record into
 * a batch; the calling thread takes the batches in order and calls fn for
 * every record, exactly as kt_decoder_run() would have, in the same order.
 * Formatting keeps state that depends on that order (comms the sched
 * plugin learns from sched_switch records, the line caches), so fn runs
 * in one thread only, and its output is the serial output byte for byte.
 *
 * The decoder thread must be the only user of the decoder while it runs,
 * and must not share mutable libtraceevent state with fn: no -F filter
 * and no --pid/--comm selection (those look up pids and comms that fn's
 * formatting adds to).  Memory stays bounded: a few batches are in flight.
 */
#ifndef KT_THREADED_H
#define KT_THREADED_H

#include "decode/decoder.h"

/* 0, fn's negative value, or -errno; falls back to kt_decoder_run()
 * when no thread can be started. */
int kt_decoder_run_threaded(struct kt_decoder *d, kt_event_fn fn, void *arg);

/*
 * Whether a second thread pays for reading r: the file holds at least
 * KT_THREADED_MIN_BYTES of trace data (below that the whole report takes
 * a few tens of milliseconds), and a second CPU is free for it: the CPUs
 * this process may run on, less the 1-minute load average, leave more
 * than 1.5.  Otherwise the two threads only take turns, and the copy
 * between them is CPU spent for nothing.
 */
#define KT_THREADED_MIN_BYTES	(4u << 20)
bool kt_threaded_pays(const struct kt_reader *r);

#endif
