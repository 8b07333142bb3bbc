/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace.ko for a live reader (ktrace stream): the module set up, run,
 * stopped and put back exactly as a recording's module source does it
 * (source-module.c), but its traceN files left to the caller, who reads
 * them with the instance's (livestream.h).
 */
#ifndef KT_MODLIVE_H
#define KT_MODLIVE_H

#include <sys/types.h>

#include "live/tracefs.h"
#include "live/tracing.h"

struct tep_handle;
struct kt_modlive;

/*
 * Take part when t's events include a ktrace: one: *out is set (NULL when
 * none is), the module checked free, its switches saved, its buffers
 * emptied, its pid filter set (-F/-c/-p of o, child COMMAND's pid) and
 * the events selected; the instance goes on the module's clock.  0 or
 * -errno, said; *out is to be freed on every path.
 */
int kt_modlive_new(struct kt_tracing *t, const struct kt_trace_opts *o,
		   pid_t child, int ncpus, struct kt_modlive **out);
/* The module's event formats into tep, for decoding.  0 or -errno. */
int kt_modlive_formats(struct kt_modlive *m, struct tep_handle *tep);
/* Its traceN files, one per CPU (fewer than ncpus: its possible CPUs). */
int kt_modlive_cpus(const struct kt_modlive *m);
int kt_modlive_start(struct kt_modlive *m);
/* Stop the engine: what is in traceN stays there to be read. */
int kt_modlive_stop(struct kt_modlive *m);
/* Add the module's counters (lost, overrun ...) to st[ncpus]. */
void kt_modlive_stats(struct kt_modlive *m, struct kt_cpu_stats *st);
/* Put everything back as it was and free (NULL: nothing). */
void kt_modlive_free(struct kt_modlive *m);

#endif
