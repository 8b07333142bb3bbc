/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A deadline ms from now on CLOCK_REALTIME, as pthread_cond_timedwait()
 * takes it: for the waits that must end (a hook, a push queue).
 */
#ifndef KT_BASE_DEADLINE_H
#define KT_BASE_DEADLINE_H

#include <time.h>

static inline void kt_deadline_in(struct timespec *t, int ms)
{
	clock_gettime(CLOCK_REALTIME, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

#endif
