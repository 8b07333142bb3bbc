/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding an instance's ring buffers live, for `ktrace stream`: one
 * kt_livebuf per CPU (mapped pages read in place where the kernel allows
 * it, read() elsewhere), records walked with libtraceevent's kbuffer and
 * handed out merged across CPUs in timestamp order.
 *
 * The merge covers what one round read: each call reads every CPU's
 * committed events once (whole pages the writer has left, as many as a
 * bounded budget allows, then the page the writer is on) and hands them
 * out in order.  An event committed on one CPU after that CPU was read,
 * but stamped before the last event handed out from another CPU, comes
 * out in the next round: out of order by at most the time between the
 * reads of two CPUs at the start of a round (microseconds, unless the
 * reader is preempted right there).  A CPU whose pages a round's budget
 * cut short holds back every record stamped after its last one until
 * the next round.  Files of whole pages added with
 * kt_livestream_add_pages() (ktrace.ko's) are read until they have
 * nothing more, their pages telling nothing of where the writer is.
 */
#ifndef KT_LIVESTREAM_H
#define KT_LIVESTREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <tracefs.h>

#include "decode/decoder.h"

struct kt_livestream;

/* flags: KT_LIVEBUF_* (livebuf.h).  NULL + errno. */
struct kt_livestream *kt_livestream_new(struct tracefs_instance *inst,
					int ncpus, struct tep_handle *tep,
					unsigned int flags);
void kt_livestream_free(struct kt_livestream *ls);

int kt_livestream_cpus(const struct kt_livestream *ls);
/*
 * Add a file of whole pages of CPU cpu's (ktrace.ko's traceN, same page
 * format and clock): its records merge with the instance's.  Before the
 * first round.  0 or -errno.
 */
int kt_livestream_add_pages(struct kt_livestream *ls, const char *path, int cpu);
/* The files read: the instance's CPUs', then those added. */
int kt_livestream_nfds(const struct kt_livestream *ls);
/* Poll file i for POLLIN: the buffer has data (buffer_percent). */
int kt_livestream_fd(const struct kt_livestream *ls, int i);
/*
 * How many CPUs' buffers are read in place (mapped); the others, whose
 * buffer the kernel would not map (a CPU never online has none yet), by
 * read().
 */
int kt_livestream_mapped(const struct kt_livestream *ls);
/* Lost events the page headers reported on a CPU, all its files' (livebuf.h). */
uint64_t kt_livestream_missed(const struct kt_livestream *ls, int cpu,
			      bool *unknown);
/* Events handed out on a CPU so far, from all its files. */
uint64_t kt_livestream_events(const struct kt_livestream *ls, int cpu);

/*
 * Hand every event committed so far to fn in timestamp order (every
 * kt_event is selected, buffer 0; the record is valid during the call
 * only).  A CPU gives at most a bounded number of pages per call so a
 * flood on one cannot starve the caller; call again when its fd is
 * still ready.  Returns the number of events, fn's negative value, or
 * -errno.
 */
long kt_livestream_round(struct kt_livestream *ls, kt_event_fn fn, void *arg);

#endif
