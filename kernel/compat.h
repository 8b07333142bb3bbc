/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where ktrace.ko bridges kernel API differences between
 * the series it supports (6.1 and 6.12).  The KT_HAVE_* macros come from
 * probes of the kernel headers in Kbuild, because distributions backport
 * API changes and a version number alone would lie.
 */
#ifndef KTRACE_COMPAT_H
#define KTRACE_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/timer.h>

/* timer_start lost its flags argument in 6.2 (bucket_expiry since). */
#ifdef KT_HAVE_TIMER_START_FLAGS
#define KT_TIMER_START_PROTO \
	struct timer_list *timer, unsigned long expires, unsigned int flags
#else
#define KT_TIMER_START_PROTO \
	struct timer_list *timer, unsigned long bucket_expiry
#endif

/* from_timer() became timer_container_of() in 6.16. */
#ifdef timer_container_of
#define kt_from_timer(var, t, field)	timer_container_of(var, t, field)
#else
#define kt_from_timer(var, t, field)	from_timer(var, t, field)
#endif

/* vm_flags became read-only behind vm_flags_set/clear() in 6.3. */
#ifdef KT_HAVE_VM_FLAGS_SET
#define kt_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#define kt_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#else
#define kt_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#define kt_vm_flags_clear(vma, flags)	((vma)->vm_flags &= ~(flags))
#endif

#endif /* KTRACE_COMPAT_H */
