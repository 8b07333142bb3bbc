// SPDX-License-Identifier: GPL-2.0
/*
 * stall SECS MS SECS [N [GAP [STATUS]]]: make system calls (getppid, about 10,000
 * a second) for SECS seconds, then sleep once (N times, one after the
 * other, or GAP seconds of calls apart) for MS milliseconds (one
 * nanosleep system call each, number 35 on x86_64), then make them again
 * for SECS seconds: a workload with exactly one (N) slow system call,
 * for record --trigger 'syscall>DUR', and as many blocks of MS ms, for
 * 'offcpu>DUR'.  It exits with STATUS (default 0): a failing one ends a
 * recording under --trigger exit too.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* getppid, then a spin of about 100 us, for secs seconds. */
static void calls(double secs)
{
	double end = now() + secs, t;

	while ((t = now()) < end) {
		syscall(SYS_getppid);
		while (now() < t + 100e-6)
			;
	}
}

int main(int argc, char **argv)
{
	double before = argc > 1 ? atof(argv[1]) : 2;
	long ms = argc > 2 ? atol(argv[2]) : 80;
	double after = argc > 3 ? atof(argv[3]) : 2;
	long n = argc > 4 ? atol(argv[4]) : 1, i;
	double gap = argc > 5 ? atof(argv[5]) : 0;
	struct timespec nap = { ms / 1000, ms % 1000 * 1000000L };

	calls(before);
	for (i = 0; i < n; i++) {
		if (i && gap > 0)
			calls(gap);
		syscall(SYS_nanosleep, &nap, NULL);
	}
	calls(after);
	return argc > 6 ? atoi(argv[6]) : 0;
}
