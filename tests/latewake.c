// SPDX-License-Identifier: GPL-2.0
/*
 * latewake N MS [GAP_MS [STATUS]]: wake a thread N times and make it wait about
 * MS milliseconds each time before it runs, GAP_MS (default 1000) apart:
 * a workload whose wakeups are late a known number of times, for
 * record --trigger 'wakeup>DUR'.  Run it on one CPU (taskset -c 0).
 *
 * The main thread ("kt-hog") is SCHED_FIFO (root): it writes to a pipe
 * the waiter thread ("kt-late") reads (the wakeup), spins for MS ms (the
 * waiter runnable, not running: a SCHED_OTHER task waits for a FIFO one),
 * then blocks until the waiter has answered, and sleeps GAP_MS.  (Other
 * tasks of that CPU wait too: record it with -F, which keeps the wakeups
 * of this process's threads only.)  Exit status 2: not allowed FIFO;
 * else STATUS (default 0: a failing one ends a recording under
 * --trigger exit too).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int wake[2], ack[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *waiter(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "kt-late");
	while (read(wake[0], &c, 1) == 1)
		if (write(ack[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, i;
	double ms = argc > 2 ? atof(argv[2]) : 100, end;
	long gap = argc > 3 ? atol(argv[3]) : 1000;
	struct timespec nap = { gap / 1000, gap % 1000 * 1000000L };
	struct sched_param sp = { .sched_priority = 1 };
	pthread_t t;
	char c = 'w';

	if (pipe(wake) || pipe(ack))
		return 1;
	pthread_setname_np(pthread_self(), "kt-hog");
	if (pthread_create(&t, NULL, waiter, NULL))
		return 1;
	/* The waiter blocked in its read first. */
	nanosleep(&nap, NULL);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		return 2;
	for (i = 0; i < n; i++) {
		if (write(wake[1], &c, 1) != 1)
			return 1;
		for (end = now() + ms / 1000; now() < end;)
			;
		if (read(ack[0], &c, 1) != 1)
			return 1;
		nanosleep(&nap, NULL);
	}
	close(wake[1]);
	pthread_join(t, NULL);
	return argc > 4 ? atoi(argv[4]) : 0;
}
