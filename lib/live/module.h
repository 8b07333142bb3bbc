/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ktrace.ko backend: its events, switches, statistics, pid filter
 * and per-CPU buffers under debugfs ktrace/.  Every name comes from
 * kernel/ktrace-abi.h, the header the module itself is built from.
 */
#ifndef KT_MODULE_H
#define KT_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "live/tracefs.h"
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

/*
 * Per-CPU readers of trace<N>: one thread per CPU writes whole pages
 * into an unnamed temporary file in tmpdir until the engine is stopped
 * and drained, from the mapped ring where the module can map it.
 */
struct kt_modrec;
/* no_mmap: read() even where the module maps its rings. */
struct kt_modrec *kt_modrec_new(int ncpus, const char *tmpdir, bool no_mmap);
/*
 * How the buffers are read: "mmap" (every CPU's ring mapped, read in
 * place), "read" (read() of whole pages: an older module, or no_mmap),
 * "mmap+read" (some of each).
 */
const char *kt_modrec_read_mode(const struct kt_modrec *mr);
int kt_modrec_start(struct kt_modrec *mr);
/* Call after writing "stop" to state: waits for every page. 0/-errno. */
int kt_modrec_stop(struct kt_modrec *mr);
void kt_modrec_free(struct kt_modrec *mr);
int kt_modrec_fd(const struct kt_modrec *mr, int cpu);
unsigned long long kt_modrec_bytes(const struct kt_modrec *mr, int cpu);
unsigned long long kt_modrec_total(const struct kt_modrec *mr);

/*
 * Merge a CPU's module pages with another file of pages (the ftrace
 * recorder's: *fd and *size, read from offset 0) record by record in
 * time order, into new pages, so the CPU's data reads as one stream.
 * A page that followed lost events passes the flag on.  On return *fd and *size are the merged file (owned by mr).
 * 0 or -errno.
 */
int kt_modrec_merge(struct kt_modrec *mr, int cpu, int *fd,
		    unsigned long long *size);

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

/*
 * The names of the tasks in the recorded pages, as saved_cmdlines lines
 * ("PID COMM\n", one per pid, the newest name): from the records of the
 * events ids[i], whose name is a char array at offsets[i] of 16 bytes.
 * Call after kt_modrec_stop().  NULL + errno on failure; "" when none.
 */
char *kt_modrec_comms(const struct kt_modrec *mr, const int *ids,
		      const int *offsets, size_t n);

#endif
