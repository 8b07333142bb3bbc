// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that counts itself, for the tests:
 *
 *   getppid_n [N [STATUS]]
 *
 * prints its pid, then makes exactly N getppid system calls (110 on
 * x86_64) and exits with STATUS (0).  The calls are made from a function
 * of their own, so that a frame-pointer user stack (record --user-stack,
 * built with -fno-omit-frame-pointer) walks through main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static void getppid_calls(long n)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	__asm__ volatile("" ::: "memory");	/* no tail call: main stays a caller */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	getppid_calls(n);
	return argc > 2 ? atoi(argv[2]) : 0;
}
