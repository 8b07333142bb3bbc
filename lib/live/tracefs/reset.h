/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Returning tracing to a clean state, and removing the private
 * instances ktrace left behind.
 */
#ifndef KT_RESET_H
#define KT_RESET_H

#include <stdbool.h>
#include <tracefs.h>

/*
 * Reset one instance (NULL: the top-level buffer): tracing off while we
 * work, current_tracer nop, every event disabled, every event and
 * subsystem filter and trigger cleared, set_event_pid and
 * set_event_notrace_pid emptied, the function-tracer filter files
 * emptied, the ring buffer emptied, tracing back on.  For the top level
 * also /proc/sys/kernel/ftrace_enabled back to 1.
 *
 * A file the kernel refuses (EPERM/EACCES on a file that exists) is
 * skipped, not an error: its name (relative to the instance, or an
 * absolute path outside tracefs) is added to *refused, a NULL-terminated
 * array the caller frees with kt_reset_refused_free() (NULL when none).
 * Every other file is still reset.  Returns 0, or the first -errno of a
 * file that should have been writable (each is reported with kt_err()).
 */
int kt_instance_reset(struct tracefs_instance *inst, char ***refused);
void kt_reset_refused_free(char **refused);

/*
 * Remove every instance named KT_INSTANCE_PREFIX* that is not in use.
 * cb is called once per such instance with 0 (removed) or -errno:
 * -EBUSY when the kernel still holds it open or the ktrace process of
 * its name still runs.  Returns the number of instances it failed to
 * remove, or -errno when the instance list cannot be read.
 */
int kt_instances_remove_ours(void (*cb)(const char *name, int err,
					void *ctx),
			     void *ctx);

/*
 * Whether the ktrace process a "ktrace-<pid>" instance is named after
 * still runs (then the instance is in use, even before it holds files
 * open).  False for any other name.
 */
bool kt_instance_owner_alive(const char *name);
/*
 * The pid of that running ktrace (0 when there is none), and, when
 * cmdline is not NULL, its command line ("ktrace record -o x.dat").
 */
long kt_instance_owner(const char *name, char *cmdline, size_t size);

#endif
