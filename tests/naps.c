// SPDX-License-Identifier: GPL-2.0
/*
 * naps N [US [N US]...]: sleep N times for US microseconds (default
 * 1000), then the next N times for the next US, and so on: a task of
 * known structure for analyze sched (N sleeps in state S, N wakeups),
 * and for diff, naps whose length changes within the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int a;

	for (a = 1; a == 1 || a < argc; a += 2) {
		long n = a < argc ? atol(argv[a]) : 10;
		long us = a + 1 < argc ? atol(argv[a + 1]) : 1000;
		struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
		long i;

		for (i = 0; i < n; i++)
			nanosleep(&ts, NULL);
	}
	return 0;
}
