// SPDX-License-Identifier: GPL-2.0
/*
 * lockreg EXTRA_US [N [DIR]]: a workload of known structure for ktrace diff.
 * Four threads (locker0..locker3) each take one mutex N times, hold it
 * 500 us on the CPU (locker0 EXTRA_US longer: the seeded regression),
 * and nap 1 ms; beside them, syncer writes 4 KB and fsyncs a file in
 * DIR (default .) N times, and sleeper naps 2 ms N times.  Run twice with EXTRA_US 0 it is
 * the same workload twice; with 2000 the second holds the lock 2 ms
 * longer per iteration of one thread, and nothing else changes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long n = 50, extra_us;
static const char *dir = ".";

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + (unsigned long long)ts.tv_nsec / 1000;
}

static void nap(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static void *locker(void *arg)
{
	long id = (long)arg, i;
	long hold = 500 + (id == 0 ? extra_us : 0);
	char name[16];
	unsigned long long t;

	snprintf(name, sizeof(name), "locker%ld", id);
	pthread_setname_np(pthread_self(), name);
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		t = now_us();
		while (now_us() - t < (unsigned long long)hold)
			;
		pthread_mutex_unlock(&lock);
		nap(1000);
	}
	return NULL;
}

static void *syncer(void *arg)
{
	char buf[4096], path[4200];
	long i;
	int fd;

	(void)arg;
	pthread_setname_np(pthread_self(), "syncer");
	memset(buf, 'x', sizeof(buf));
	snprintf(path, sizeof(path), "%s/lockreg.%d.tmp", dir, (int)getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0) {
		perror(path);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (write(fd, buf, sizeof(buf)) < 0 || fsync(fd))
			perror(path);
		nap(1000);
	}
	close(fd);
	unlink(path);
	return NULL;
}

static void *sleeper(void *arg)
{
	long i;

	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	for (i = 0; i < n; i++)
		nap(2000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[6];
	long i;

	extra_us = argc > 1 ? atol(argv[1]) : 0;
	n = argc > 2 ? atol(argv[2]) : 50;
	if (argc > 3)
		dir = argv[3];
	for (i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, locker, (void *)i))
			return 1;
	if (pthread_create(&t[4], NULL, syncer, NULL) ||
	    pthread_create(&t[5], NULL, sleeper, NULL))
		return 1;
	for (i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	return 0;
}
