// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for the uprobe tests:
 *
 *   probe_target N
 *
 * calls kt_probe_target(i) for i = 0 .. N-1 (a function the compiler
 * keeps: not inlined, its argument in the first register) and exits 0.
 */
#include <stdlib.h>

__attribute__((noinline, used)) int kt_probe_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return 2 * x + 1;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 0, sum = 0;

	for (i = 0; i < n; i++)
		sum += kt_probe_target(i);
	return sum == -1;
}
