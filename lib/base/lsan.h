/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtraceevent 1.7 leaks a few bytes of its parser state on a format or
 * filter it gives up on, and nothing of ours holds them to free.  Calls
 * into its parsers are bracketed with kt_lsan_off()/kt_lsan_on(), so the
 * leak checkers of make check (gcc ASan) and make fuzz (clang libFuzzer)
 * report only leaks of ours: a suppression by stack cannot, since
 * libtraceevent's frames are lost when it allocates through vasprintf.
 */
#ifndef KT_LSAN_H
#define KT_LSAN_H

/* gcc says __SANITIZE_ADDRESS__, clang __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define KT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KT_LSAN 1
#endif
#endif

#ifdef KT_LSAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#define kt_lsan_off()	__lsan_disable()
#define kt_lsan_on()	__lsan_enable()
#else
#define kt_lsan_off()	do { } while (0)
#define kt_lsan_on()	do { } while (0)
#endif

#endif
