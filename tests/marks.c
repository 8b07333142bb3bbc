// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that counts itself, for the tests and bench/loss-rate:
 *
 *   marks N FILE [TAG [RATE]]
 *
 * makes N numbered writes "TAG 1" ... "TAG N" (TAG defaults to "mark")
 * to FILE, one write(2) each; FILE is a trace_marker, so each write is
 * one ftrace:print event.  With RATE, writes are paced to RATE per
 * second (busy-waiting on the clock, so the pace holds at high rates).
 * A failed write is reported with its number and ends it (status 3).
 *
 * EBADF is the kernel's "ring buffer disabled, as if not open for write":
 * it wrote nothing.  This host's 6.18 answers it now and then to the first
 * write after a recording starts (its ring buffer refuses a reserve, the
 * refusal that drops records around idle uncounted elsewhere); that write
 * is tried again, up to 2 s, so every mark is still written exactly once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *tag = argc > 3 ? argv[3] : "mark";
	double rate = argc > 4 ? atof(argv[4]) : 0, t0;
	long i, n;
	char buf[64];
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: marks N FILE [TAG [RATE]]\n");
		return 64;
	}
	n = atol(argv[1]);
	fd = open(argv[2], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	t0 = now();
	for (i = 1; i <= n; i++) {
		int len = snprintf(buf, sizeof(buf), "%s %ld", tag, i);

		while (rate > 0 && now() < t0 + (i - 1) / rate)
			;
		ssize_t w;
		int tries = 0;

		while ((w = write(fd, buf, len)) < 0 && errno == EBADF && tries++ < 2000)
			usleep(1000);
		if (w != len) {
			fprintf(stderr, "marks: write %ld of %ld to %s: ", i, n, argv[2]);
			perror(NULL);
			return 3;
		}
	}
	return 0;
}
