// SPDX-License-Identifier: GPL-2.0
/*
 * numbered SECS MS SECS [MS SECS]...: make numbered system calls for
 * SECS seconds, lseek(-1, i, SEEK_SET) with i 1, 2, 3, ... (number 8 on
 * x86_64, about 5,000 a second; each fails with EBADF), then sleep once
 * for MS milliseconds (one nanosleep), then go on numbering for SECS
 * seconds, and so on for each pair after:
 * a file that holds a stretch of them holds consecutive numbers, none
 * missing, none twice, in order, whatever pieces it was put together
 * from (record --trigger's snapshots of the ring's chunks).
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The monotonic clock in microseconds. */
static long long usecs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Numbered calls from i on, one each 200 us, for secs seconds: the next i. */
static long calls(long i, double secs)
{
	long long t = usecs(), end = t + (long long)(secs * 1e6), due = t;

	for (; t < end; t = usecs()) {
		if (t < due)
			continue;
		syscall(SYS_lseek, -1, i++, SEEK_SET);
		due = t + 200;
	}
	return i;
}

int main(int argc, char **argv)
{
	double before = argc > 1 ? atof(argv[1]) : 2;
	long i = calls(1, before), ms;
	struct timespec nap;
	int a = 2;

	do {
		ms = argc > a ? atol(argv[a]) : 80;
		nap.tv_sec = ms / 1000;
		nap.tv_nsec = ms % 1000 * 1000000L;
		syscall(SYS_nanosleep, &nap, NULL);
		i = calls(i, argc > a + 1 ? atof(argv[a + 1]) : 2);
		a += 2;
	} while (a + 1 < argc);
	return 0;
}
