/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space memory maps of traced processes, read from
 * /proc/PID/maps for record --user-stack: the executable file-backed
 * mappings, as the text of KT_OPT_KTRACE_MAPS (file/tracedat.h), so that
 * report can name the frames of user stacks.
 */
#ifndef KT_PROCMAPS_H
#define KT_PROCMAPS_H

#include <stddef.h>
#include <sys/types.h>

struct kt_procmaps;

struct kt_procmaps *kt_procmaps_new(void);
void kt_procmaps_free(struct kt_procmaps *m);

/*
 * pid exec'd at trace time when (a record's timestamp): the maps read of
 * it later hold from then on.  0 or -ENOMEM.
 */
int kt_procmaps_exec(struct kt_procmaps *m, pid_t pid, unsigned long long when);
/*
 * Add pid's maps as they are now (a process about to exit, or alive at
 * the end), unless pid's were added already, valid for records from its
 * last exec on (from the start when none was seen).  0, or -errno
 * (-ENOENT: it is gone).
 */
int kt_procmaps_read(struct kt_procmaps *m, pid_t pid);
/* Add the maps of every process alive now not added yet.  0 or -errno. */
int kt_procmaps_read_alive(struct kt_procmaps *m);

/* The text gathered ("" when none), NUL-terminated, and its length. */
const char *kt_procmaps_text(const struct kt_procmaps *m, size_t *len);

#endif
