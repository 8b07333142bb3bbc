/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's kallsyms thread: /proc/kallsyms takes tens of ms to
 * read, so a helper thread (named ktrace-ksyms) reads it while the
 * recording is set up, and streams it, then printk_formats, into the
 * file once the writer is handed over to it.  It runs as SCHED_IDLE
 * (taking no CPU the recorded workload wants) until kt_ksyms_join()
 * waits for it.
 */
#ifndef KT_KSYMS_H
#define KT_KSYMS_H

struct kt_ksyms;
struct kt_writer;

/*
 * Start reading (tracing_dir: where printk_formats is).  Every signal
 * is blocked in the thread.  NULL + errno when no thread could start:
 * then write both sections without it.
 */
struct kt_ksyms *kt_ksyms_start(const char *tracing_dir);
/*
 * The headers before kallsyms are written: from now until
 * kt_ksyms_join() the writer is the thread's.
 */
void kt_ksyms_handover(struct kt_ksyms *k, struct kt_writer *w);
/*
 * Wait for the thread (which writes nothing when the writer was not
 * handed over) and free it.  0, or -errno of writing the sections
 * (-ENOSPC: kallsyms was left out).
 */
int kt_ksyms_join(struct kt_ksyms *k);

#endif
