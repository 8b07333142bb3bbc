/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dynamic probes of a recording: uprobes on a function of a binary or
 * library by name (the offset from its ELF symbols: nobody computes one
 * by hand), and kprobes on a kernel function, with the kernel's fetch
 * arguments.  Each lives in the recording's own group, KT_DYN_GROUP_PREFIX
 * <pid> (dynevents.h), so it never meets anyone else's probe, and is
 * removed when the recording ends, on every path but SIGKILL (which
 * `ktrace reset -a` cleans up after).
 *
 *   --uprobe 'libc:malloc size=%di:u64'   p:ktrace_<pid>/malloc /lib/.../libc.so.6:0x... size=%di:u64
 *   --uretprobe 'libc:malloc ptr=$retval:x64'   r:ktrace_<pid>/malloc_ret ...
 *   --kprobe 'do_sys_openat2 dfd=%di:s32'      p:ktrace_<pid>/do_sys_openat2 do_sys_openat2 ...
 */
#ifndef KT_PROBES_H
#define KT_PROBES_H

#include <stddef.h>

enum kt_probe_kind { KT_UPROBE, KT_URETPROBE, KT_KPROBE, KT_KRETPROBE };

struct kt_probe_spec {
	enum kt_probe_kind kind;
	const char *spec;	/* "TARGET[+OFF] [FETCHARGS...]" */
};

struct kt_probes;

/*
 * Make each probe in the group KT_DYN_GROUP_PREFIX<getpid()>.  Each
 * problem is said in one line (an unknown symbol with the closest name,
 * the kernel's error_log line for a bad fetch argument, a kernel without
 * kprobe_events).  NULL + errno on failure, with those made so far
 * removed again.
 */
struct kt_probes *kt_probes_make(const struct kt_probe_spec *specs, size_t n);
/* The group, and the i-th probe's event name in it. */
const char *kt_probes_group(const struct kt_probes *p);
size_t kt_probes_count(const struct kt_probes *p);
const char *kt_probes_name(const struct kt_probes *p, size_t i);
/* Remove them all (disabled first, by removing the instance).  Frees p. */
void kt_probes_remove(struct kt_probes *p);

#endif
