// SPDX-License-Identifier: GPL-2.0
/*
 * deepstack N [US]: N times, main -> level1 -> level2 -> level3 ->
 * level4 -> leaf_block, which sleeps US microseconds (default 20000)
 * with its own syscall instruction, so that leaf_block itself is the
 * innermost user frame the kernel's frame-pointer walk sees (through
 * libc's nanosleep, whose code keeps no frame, the walk would go from
 * libc straight to leaf_block's caller).  A task of known user stack for
 * the folded stacks: build with -O0 -fno-omit-frame-pointer.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static struct timespec nap;

__attribute__((noinline)) void leaf_block(void)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_nanosleep), "D"(&nap), "S"(0L)
			 : "rcx", "r11", "memory");
	(void)ret;
#else
	syscall(SYS_nanosleep, &nap, NULL);
#endif
}

__attribute__((noinline)) void level4(void) { leaf_block(); }
__attribute__((noinline)) void level3(void) { level4(); }
__attribute__((noinline)) void level2(void) { level3(); }
__attribute__((noinline)) void level1(void) { level2(); }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	long us = argc > 2 ? atol(argv[2]) : 20000;
	long i;

	nap.tv_sec = us / 1000000;
	nap.tv_nsec = us % 1000000 * 1000;
	for (i = 0; i < n; i++)
		level1();
	return 0;
}
