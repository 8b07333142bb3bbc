/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which process each thread belongs to, for the analyses' --by process:
 * trace events carry a pid (a thread id) and no tgid.  Gathered from
 * /proc/PID/task/ at the start and the end of a recording (threads alive
 * then) and from the kernel's saved_tgids (threads that ran while the
 * instance's record-tgid option was on), and stored as the text of
 * KT_OPT_KTRACE_TGIDS (file/tracedat.h).
 */
#ifndef KT_TGIDS_H
#define KT_TGIDS_H

#include <stddef.h>

struct kt_tgids;

struct kt_tgids *kt_tgids_new(void);
void kt_tgids_free(struct kt_tgids *t);

/*
 * Add every thread alive now (/proc) and every pair the kernel's
 * saved_tgids holds.  Threads that are their process's leader are left
 * out: a pid with no line is its own process.  0 or -ENOMEM; what cannot
 * be read is skipped.
 */
int kt_tgids_scan(struct kt_tgids *t);

/* Every pair from holds, added to to's: 0 or -ENOMEM. */
int kt_tgids_merge(struct kt_tgids *to, const struct kt_tgids *from);

/* The text gathered ("" when none), NUL-terminated, and its length. */
const char *kt_tgids_text(struct kt_tgids *t, size_t *len);

#endif
