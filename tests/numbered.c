// SPDX-License-Identifier: GPL-2.0
/*
 * numbered SECS MS SECS: make numbered system calls for SECS seconds,
 * lseek(-1, i, SEEK_SET) with i 1, 2, 3, ... (number 8 on x86_64, about
 * 5,000 a second; each fails with EBADF), then sleep once for MS
 * milliseconds (one nanosleep), then go on numbering for SECS seconds:
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
	long ms = argc > 2 ? atol(argv[2]) : 80;
	double after = argc > 3 ? atof(argv[3]) : 2;
	struct timespec nap = { ms / 1000, ms % 1000 * 1000000L };
	long i = calls(1, before);

	syscall(SYS_nanosleep, &nap, NULL);
	calls(i, after);
	return 0;
}
