// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose system calls are cut by a signal, for the tests:
 *
 *   restarts
 *
 * a read of an empty pipe and a pause(), each interrupted by SIGALRM
 * with a handler (no SA_RESTART).  The kernel's sys_exit sees its own
 * codes before the signal is delivered: the read returns -ERESTARTSYS
 * (512), pause() -ERESTARTNOHAND (514); the program sees EINTR.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
}

static void alarm_in_100ms(void)
{
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

int main(void)
{
	struct sigaction sa;
	int p[2];
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, NULL) < 0 || pipe(p) < 0) {
		perror("restarts");
		return 1;
	}
	alarm_in_100ms();
	if (read(p[0], &c, 1) >= 0)
		return 1;
	alarm_in_100ms();
	pause();
	return 0;
}
