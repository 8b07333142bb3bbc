// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline N A_RUN_MS A_SLEEP_MS B_RUN_MS: a three-stage pipeline of
 * known structure for analyze critpath, N rounds of:
 *
 *   stageC  hands a token to A (a pipe), then waits on a condition variable;
 *   stageA  reads the token, computes A_RUN_MS of its own CPU time, sleeps
 *           A_SLEEP_MS (nanosleep: a timer wakes it), writes to a pipe;
 *   stageB  reads that pipe, computes B_RUN_MS of CPU time, signals C.
 *
 * So each of C's waits is A running, A asleep, then B running (and each
 * one's waits for a CPU).  C and A are kept on two different CPUs (where
 * the process may use two): A, woken by C's token, would otherwise take
 * C's CPU before C is waiting, and compute while C is runnable.  At the end it prints what it did, measured by
 * itself: "tids A B C a_run_ns a_sleep_ns b_run_ns c_wait_ns", the run
 * times by each thread's CPU clock around its computing, the sleep and
 * the wait by the monotonic clock around them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long rounds, a_run_ms, a_sleep_ms, b_run_ms;
static int tok[2], pipe_ab[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long ready;
static int tid_a, tid_b, tid_c;
static long long a_run, a_sleep, b_run, c_wait;
static int cpu_a = -1, cpu_c = -1;
static pthread_barrier_t started;	/* all three named and placed */

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static long long ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin for ms of this thread's CPU time: the time it took, in ns. */
static long long compute(long ms)
{
	long long t0 = ns_of(CLOCK_THREAD_CPUTIME_ID), t;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		t = ns_of(CLOCK_THREAD_CPUTIME_ID);
	} while (t - t0 < ms * 1000000LL);
	return t - t0;
}

static void must(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

static void *stage_a(void *arg)
{
	struct timespec nap = { a_sleep_ms / 1000, a_sleep_ms % 1000 * 1000000 };
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "stageA");
	pin(cpu_a);
	tid_a = (int)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	for (long i = 0; i < rounds; i++) {
		must(read(tok[0], &c, 1) == 1, "read token");
		a_run += compute(a_run_ms);
		long long t0 = ns_of(CLOCK_MONOTONIC);
		nanosleep(&nap, NULL);
		a_sleep += ns_of(CLOCK_MONOTONIC) - t0;
		must(write(pipe_ab[1], "x", 1) == 1, "write pipe");
	}
	return NULL;
}

static void *stage_b(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "stageB");
	tid_b = (int)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	for (long i = 0; i < rounds; i++) {
		must(read(pipe_ab[0], &c, 1) == 1, "read pipe");
		b_run += compute(b_run_ms);
		pthread_mutex_lock(&lock);
		ready = i + 1;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *stage_c(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "stageC");
	pin(cpu_c);
	tid_c = (int)syscall(SYS_gettid);
	/* A's move to its CPU waits on a kernel thread: not in C's waits. */
	pthread_barrier_wait(&started);
	for (long i = 0; i < rounds; i++) {
		must(write(tok[1], "t", 1) == 1, "write token");
		/* The lock's wait too (B may be preempted holding it). */
		long long t0 = ns_of(CLOCK_MONOTONIC);
		pthread_mutex_lock(&lock);
		while (ready <= i)
			pthread_cond_wait(&cond, &lock);
		c_wait += ns_of(CLOCK_MONOTONIC) - t0;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;
	cpu_set_t set;

	if (argc != 5) {
		fprintf(stderr, "usage: pipeline N A_RUN_MS A_SLEEP_MS B_RUN_MS\n");
		return 64;
	}
	rounds = atol(argv[1]);
	a_run_ms = atol(argv[2]);
	a_sleep_ms = atol(argv[3]);
	b_run_ms = atol(argv[4]);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) >= 2) {
		for (int i = 0; i < CPU_SETSIZE && cpu_a < 0; i++)
			if (CPU_ISSET(i, &set)) {
				if (cpu_c < 0)
					cpu_c = i;
				else
					cpu_a = i;
			}
	}
	pthread_barrier_init(&started, NULL, 3);
	must(!pipe(tok) && !pipe(pipe_ab), "pipe");
	must(!pthread_create(&a, NULL, stage_a, NULL) && !pthread_create(&b, NULL, stage_b, NULL) &&
	     !pthread_create(&c, NULL, stage_c, NULL), "pthread_create");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	printf("tids %d %d %d %lld %lld %lld %lld\n", tid_a, tid_b, tid_c, a_run, a_sleep, b_run,
	       c_wait);
	return 0;
}
