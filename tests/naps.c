// SPDX-License-Identifier: GPL-2.0
/*
 * naps N [US]: sleep N times for US microseconds (default 1000): a task
 * of known structure for analyze sched, N sleeps in state S, N wakeups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	long us = argc > 2 ? atol(argv[2]) : 1000;
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	long i;

	for (i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	return 0;
}
