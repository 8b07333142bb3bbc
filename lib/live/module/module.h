/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ktrace.ko backend's control: its events, switches, statistics,
 * pid filter and process tracer under debugfs ktrace/ (its per-CPU
 * buffers are read by modrec.h).  Every name comes from
 * kernel/ktrace-abi.h, the header the module itself is built from.
 */
#ifndef KT_MODULE_H
#define KT_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "live/tracefs/tracefs.h"
#include "ktrace-abi.h"

/* What to say when the module is needed and not loaded. */
#define KT_MODULE_LOAD_HINT \
	"load it with 'insmod ktrace.ko' (build it with 'make module'; see kernel/README.md)"

/*
 * Whether ktrace.ko is loaded, mounting debugfs at /sys/kernel/debug
 * when the module is there and debugfs is not mounted.  Cheap when the
 * module is not loaded (one stat).
 */
bool kt_module_present(void);
/* debugfs ktrace/ (NULL + ENOENT when the module is not loaded). */
const char *kt_module_dir(void);
/* Its events/ directory, where each event has enable and format. */
int kt_module_events_dir(char *buf, size_t len);
/* A file under ktrace/ ("dropped", "events/x/format"), as a path. */
int kt_module_path(const char *rel, char *buf, size_t len);

/* Read a whole ktrace/ file (NULL + errno); write one (0 or -errno). */
char *kt_module_read(const char *rel);
int kt_module_write(const char *rel, const char *val);
/* A file holding one number (dropped, overrun, enabled ...). */
int kt_module_read_ull(const char *rel, unsigned long long *val);

/* One event's enable file: 1, 0 or -errno; set it. */
int kt_module_event_enabled(const char *event);
int kt_module_event_set_enable(const char *event, bool on);

/* Number of trace<N> files (the module's possible CPUs), or -errno. */
int kt_module_cpu_count(void);
/* stats/cpu<N>, in ftrace's per_cpu stats format. */
int kt_module_cpu_stats_read(int cpu, struct kt_cpu_stats *st);
/* Whether the engine runs (state "running"); -errno when unreadable. */
int kt_module_running(void);
/*
 * ktrace.ko free for a new user (record, stream, top): its engine not
 * running (another recording's), between 1 and max_cpus CPUs.  Its
 * CPU count, or -EBUSY or -errno having said why.
 */
int kt_module_claim(int max_cpus);
/* Probes on, then the engine started.  0 or the first -errno. */
int kt_module_start(void);
/* The engine stopped, then its probes off.  The stop's 0 or -errno. */
int kt_module_stop(void);

/*
 * Limit the module's events to pids (n == 0: every pid, written as an
 * empty line), children added
 * at fork when fork is true.  -EOPNOTSUPP when this ktrace.ko has no
 * pid filter.
 */
int kt_module_set_pids(const pid_t *pids, size_t n, bool fork);

/*
 * Back to a clean state: stopped, probes detached, every event off, the
 * pid filter cleared, buffers emptied and counters zeroed.  0 or the
 * first -errno (every step is still tried).
 */
int kt_module_reset(void);

/* Whether this ktrace.ko has the process tracer (process_follow_pid). */
bool kt_module_has_process(void);
/*
 * The process tracer's controls as the module starts: follow no pid, no
 * uid or comm filter, lifecycle on, syscalls and signals off.  0 or the
 * first -errno (every control is still tried).
 */
int kt_module_process_defaults(void);

/*
 * One field of a module event, from its format file: the event's id,
 * the field's offset and size in a record.  0, -ENOENT (no such event
 * or field) or -errno.
 */
int kt_module_event_field(const char *event, const char *field, int *id,
			  int *offset, int *size);

#endif
