/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a name one of the running kernel's functions?  For the message of
 * an event spec that names none: people give a function where an event
 * is wanted ("-e do_sys_openat2"), and "unknown event" does not tell
 * them why.
 */
#ifndef KT_KFUNC_H
#define KT_KFUNC_H

#include <stdbool.h>

/* A text symbol of that name in /proc/kallsyms (modules' too). */
bool kt_kernel_function_exists(const char *name);
/* The same, -1 when kallsyms cannot tell (unreadable, or empty). */
int kt_kernel_function_known(const char *name);

/* Where kt_kernel_functions() found the names. */
enum kt_kfunc_source {
	KT_KFUNC_FTRACE,	/* available_filter_functions: traceable */
	KT_KFUNC_KALLSYMS,	/* /proc/kallsyms' text symbols (the first refused) */
};

/*
 * Each kernel function the function tracer can trace (tracefs'
 * available_filter_functions), or where the kernel refuses that file (a
 * lockdown, a sandbox) each text symbol of /proc/kallsyms, which is what
 * kprobes can be put on; module: its module's name, or NULL.  fn's
 * nonzero return stops the walk.  0, or -errno (of the last source
 * tried, the first's in *first_err); *src says which was read.
 */
typedef int (*kt_kfunc_fn)(const char *name, const char *module, void *arg);
int kt_kernel_functions(kt_kfunc_fn fn, void *arg, enum kt_kfunc_source *src,
			int *first_err);

#endif
