/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live tracefs control: finding (and mounting) tracefs, instances,
 * per-CPU statistics and the few writes every command shares.
 * libtracefs does the work; this file adds what ktrace needs on top:
 * -errno returns, EPERM told apart, ktrace-owned instance names.
 */
#ifndef KT_TRACEFS_H
#define KT_TRACEFS_H

#include <stdbool.h>
#include <tracefs.h>

/* Private instances of record/top/stream are "ktrace-<pid>". */
#define KT_INSTANCE_PREFIX "ktrace-"

/*
 * Find tracefs, mounting it at /sys/kernel/tracing when it is not mounted,
 * and check that we may write it.  Returns 0, -ENODEV (no tracefs in this
 * kernel or cannot mount) or -EACCES (not root / tracefs not writable).
 * On success *dir (if non-NULL) is the tracing directory.
 */
int kt_tracefs_open(const char **dir);

/*
 * Instance by name; NULL or "" is the top-level buffer.  With create, a
 * missing instance is created and *created says so.  -ENOENT when it does
 * not exist and create is false.  Release with kt_instance_close().
 */
int kt_instance_open(const char *name, bool create,
		     struct tracefs_instance **out, bool *created);
void kt_instance_close(struct tracefs_instance *inst);
/* Remove the instance from tracefs and free it. */
int kt_instance_remove(struct tracefs_instance *inst);
bool kt_instance_name_is_ours(const char *name);
/* Display name: the instance name or "top". */
const char *kt_instance_label(struct tracefs_instance *inst);

/* One CPU's line of per_cpu/cpuN/stats. */
struct kt_cpu_stats {
	unsigned long long entries;
	unsigned long long overrun;
	unsigned long long commit_overrun;
	unsigned long long bytes;
	unsigned long long dropped;
	unsigned long long read;
	double oldest_ts;
	double now_ts;
};

/*
 * How much a stats counter grew from start to end; 0 when it went back
 * (a CPU's buffer was reset in between), never a huge unsigned wrap.
 */
static inline unsigned long long kt_stat_delta(unsigned long long end,
					       unsigned long long start)
{
	return end > start ? end - start : 0;
}

/* Number of CPUs with a per_cpu directory (possible CPUs). */
int kt_cpu_count(void);
int kt_cpu_stats_read(struct tracefs_instance *inst, int cpu,
		      struct kt_cpu_stats *st);
/* Parse the text of a stats file; exposed for the file writer and tests. */
int kt_cpu_stats_parse(const char *text, struct kt_cpu_stats *st);
/*
 * For a recording's CPUSTAT text, where every source's counts replace
 * the instance's: when the stats line at line ("KEY: VALUE\n") is a
 * count every source adds to (records and losses: tracefs.c's table of
 * the keys says which), its key without ": ", and st's value of it in
 * *val; else NULL (the line stays as the kernel wrote it).
 */
const char *kt_cpu_stats_summed(const char *line, const struct kt_cpu_stats *st,
				unsigned long long *val);

/*
 * Write val to a file of the instance.  Returns 0 or -errno; -EPERM
 * means the kernel refuses the file (locked-down function tracer files).
 */
int kt_tracefs_write(struct tracefs_instance *inst, const char *file,
		     const char *val);
/*
 * Append val to a file (O_APPEND): what adds to a list without clearing
 * it, as uprobe_events and kprobe_events must be written (a truncating
 * write removes every probe of every user).  0 or -errno.
 */
int kt_tracefs_append(struct tracefs_instance *inst, const char *file,
		      const char *val);
/* Read a whole instance file into a malloc'ed string (NULL + errno). */
char *kt_tracefs_read(struct tracefs_instance *inst, const char *file);

int kt_event_set_enable(struct tracefs_instance *inst, const char *system,
			const char *event, bool on);
/*
 * Set an event's filter.  On -EINVAL, *why (if non-NULL) receives the
 * kernel's error_log explanation (malloc'ed, may be NULL).
 */
int kt_event_set_filter(struct tracefs_instance *inst, const char *system,
			const char *event, const char *filter, char **why);

/*
 * An existing instance by name (NULL or "": the top level, *out NULL),
 * for commands that only look at or reset it: unlike kt_instance_open()
 * it never creates one, even when the instance vanishes meanwhile.
 * -ENOENT when there is none, -EINVAL for a name with '/'.
 */
int kt_instance_lookup(const char *name, struct tracefs_instance **out);
/*
 * Say through kt_log why instance name could not be had, err being what
 * kt_instance_open() or kt_instance_lookup() returned: "no instance
 * 'NAME'; see 'ls DIR/instances'", a bad name, or the errno.  Returns err
 * (0: says nothing).
 */
int kt_instance_explain(const char *name, int err);

#endif
