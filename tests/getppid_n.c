// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that counts itself, for the tests:
 *
 *   getppid_n [N [STATUS]]
 *
 * prints its pid, then makes exactly N getppid system calls (110 on
 * x86_64) and exits with STATUS (0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 0;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return argc > 2 ? atoi(argv[2]) : 0;
}
