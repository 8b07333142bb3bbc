// SPDX-License-Identifier: GPL-2.0
/*
 * threads_n T N [US]: T threads besides the main one, each making N
 * getppid calls and then N naps of US microseconds (default 1000); the
 * main thread makes N getppid calls and joins them.  A process of known
 * structure for analyze --by process: T + 1 tasks, (T + 1) * N getppid,
 * T * N naps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long n, us;

static void calls(void)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void *thread_main(void *arg)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	long i;

	(void)arg;
	calls();
	for (i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	long t = argc > 1 ? atol(argv[1]) : 2, i;
	pthread_t *tids;

	n = argc > 2 ? atol(argv[2]) : 10;
	us = argc > 3 ? atol(argv[3]) : 1000;
	tids = calloc((size_t)t, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < t; i++)
		if (pthread_create(&tids[i], NULL, thread_main, NULL)) {
			perror("pthread_create");
			return 1;
		}
	calls();
	for (i = 0; i < t; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return 0;
}
