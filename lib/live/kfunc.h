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

#endif
