// SPDX-License-Identifier: GPL-2.0
/*
 * group T N: T threads besides the main one, each making N getppid
 * calls, and then a child process (forked by the last thread) making N
 * getuid calls; the main thread joins the threads and waits for the
 * child.  A process of known structure for record -F (its thread group:
 * T * N getppid, no getuid) and -c (its descendants too: N getuid).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static long n;

static void *thread_main(void *arg)
{
	pid_t child;
	long i;
	int st;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	if (!arg)
		return NULL;
	/* A fork from a thread, not from the main one. */
	child = fork();
	if (child < 0) {
		perror("fork");
		exit(1);
	}
	if (!child) {
		for (i = 0; i < n; i++)
			syscall(SYS_getuid);
		_exit(0);
	}
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	long t = argc > 1 ? atol(argv[1]) : 2, i;
	pthread_t *tids;

	n = argc > 2 ? atol(argv[2]) : 10;
	tids = calloc((size_t)t, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < t; i++)
		if (pthread_create(&tids[i], NULL, thread_main, i ? NULL : &n)) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < t; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return 0;
}
