/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probes of what tracing can do on the running kernel, for ktrace
 * doctor: real attempts (open for write, enable and record, mmap), the
 * kernel config, lockdown, and which event formats libtraceevent parses.
 * Nothing here changes lasting state: writes put back what they read,
 * and recording happens in a scratch instance that is removed again.
 */
#ifndef KT_CAPS_H
#define KT_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <tracefs.h>

/* Where tracefs is mounted now, from /proc/mounts.  0 or -ENOENT. */
int kt_tracefs_mount_point(char *buf, size_t size);

/*
 * Open path for writing (no O_TRUNC, nothing written) and close it.
 * 0, or -errno: -EPERM/-EACCES when refused, -ENOENT when absent.
 */
int kt_caps_open_write(const char *path);

/*
 * Write a sysctl file's own value back to it: a /proc/sys file opens
 * for writing even when the write is refused.  0 or -errno.
 */
int kt_caps_sysctl_write(const char *path);

/* The running kernel's build config, from /proc/config.gz or /boot. */
struct kt_kconfig;
/*
 * -ENOENT when neither file exists (or cannot be read).  The environment
 * variable KTRACE_KCONFIG, when set, names the only file tried.
 */
int kt_kconfig_open(struct kt_kconfig **out);
void kt_kconfig_close(struct kt_kconfig *kc);
/* "y", "m", a value, or NULL when unset; valid until the next call. */
const char *kt_kconfig_get(const struct kt_kconfig *kc, const char *sym);
/* Where it was read from. */
const char *kt_kconfig_source(const struct kt_kconfig *kc);

/*
 * The lockdown mode in use ("none", "integrity", "confidentiality") into
 * buf.  -ENOENT when /sys/kernel/security/lockdown does not exist.
 */
int kt_lockdown_read(char *buf, size_t size);

/* Whether the running kernel is at least major.minor. */
bool kt_kernel_at_least(int major, int minor);

/*
 * Parse every event format under tracing_dir/events with libtraceevent.
 * cb is called for each one that fails, with libtraceevent's reason.
 * Returns the number of formats read (failed or not), or -errno.
 */
int kt_formats_check(const char *tracing_dir,
		     void (*cb)(const char *system, const char *event,
				const char *why, void *ctx),
		     void *ctx);

/*
 * A scratch instance "ktrace-<pid>" for probes that must write: signals
 * that would end us are held while it exists, so it is not left behind.
 * -EEXIST when an instance of that name already exists.
 */
int kt_scratch_open(struct tracefs_instance **out);
/* Remove it and let the held signals through.  0 or -errno. */
int kt_scratch_close(struct tracefs_instance *inst);

/*
 * Enable one event in inst, provoke it, and count what the buffer got.
 * *event names the event used ("raw_syscalls:sys_enter").  Returns the
 * number of events recorded (>= 0), or -errno when no event could be
 * enabled.
 */
long kt_caps_record(struct tracefs_instance *inst, const char **event);

/* mmap() cpu0's trace_pipe_raw of inst read-only and unmap it.  0 or -errno. */
int kt_caps_buffer_mmap(struct tracefs_instance *inst);

#endif
