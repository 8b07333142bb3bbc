// SPDX-License-Identifier: GPL-2.0
/*
 * The run loop of a tracing session: COMMAND and the signals that end
 * the session.  See run.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/session/child.h"
#include "live/session/run.h"

struct kt_run {
	int sfd;
	sigset_t oldmask;
	struct kt_child *child;	/* COMMAND, or NULL */
	bool child_done;	/* reaped: child_status is its wait status */
	int child_status;
	int stop_signal;	/* the last SIGINT, SIGTERM or SIGHUP, or 0 */
	int nsignals;
	struct pollfd *pfd;	/* kt_run_step()'s, kept from turn to turn */
	int npfd;
};

struct kt_run *kt_run_new(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL }, prev;
	struct kt_run *r = calloc(1, sizeof(*r));
	sigset_t set;
	int err;

	if (!r)
		return NULL;
	/*
	 * A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal never reaches a signalfd: take SIGINT and SIGTERM back.
	 * An ignored SIGHUP (nohup) stays ignored.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (sigaction(SIGHUP, NULL, &prev) == 0 && prev.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	/* perf's convention: a snapshot of the recording (run.h's request). */
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask) < 0)
		goto err_free;
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sfd < 0)
		goto err_mask;
	return r;

err_mask:
	err = errno;
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	errno = err;
err_free:
	err = errno;
	free(r);
	errno = err;
	return NULL;
}

void kt_run_free(struct kt_run *r)
{
	if (!r)
		return;
	kt_child_free(r->child);
	free(r->pfd);
	close(r->sfd);
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	free(r);
}

int kt_run_child_new(struct kt_run *r, char *const argv[])
{
	r->child = kt_child_new(argv);
	return r->child ? 0 : -errno;
}

int kt_run_child_watch(struct kt_run *r, kt_child_stop_fn fn, void *priv)
{
	return kt_child_watch(r->child, fn, priv);
}

int kt_run_child_forks(struct kt_run *r, kt_child_fork_fn fn, void *priv)
{
	return kt_child_forks(r->child, fn, priv);
}

pid_t kt_run_child_pid(const struct kt_run *r)
{
	return r->child ? kt_child_pid(r->child) : 0;
}

int kt_run_child_release(struct kt_run *r)
{
	int ret = kt_child_release(r->child), st;

	if (ret && kt_child_wait(r->child, &st) == 0) {
		r->child_done = true;
		r->child_status = st;
	}
	return ret;
}

bool kt_run_child_running(const struct kt_run *r)
{
	return r->child && !r->child_done;
}

int kt_run_child_wait(struct kt_run *r)
{
	int st, ret;

	if (!kt_run_child_running(r))
		return 0;
	ret = kt_child_wait(r->child, &st);
	if (!ret) {
		r->child_done = true;
		r->child_status = st;
	}
	return ret;
}

bool kt_run_child_status(const struct kt_run *r, int *status)
{
	if (r->child_done)
		*status = r->child_status;
	return r->child_done;
}

void kt_run_child_free(struct kt_run *r)
{
	kt_child_free(r->child);
	r->child = NULL;
}

void kt_run_child_kill(struct kt_run *r, int sig)
{
	if (kt_run_child_running(r))
		kill(kt_child_pid(r->child), sig);
}

int kt_run_stop_signal(const struct kt_run *r)
{
	return r->stop_signal;
}

/* Reap COMMAND if it has exited; true once it has. */
static bool child_exited(struct kt_run *r)
{
	int st;

	if (!r->child || r->child_done)
		return r->child_done;
	if (kt_child_poll(r->child, &st) != 1)
		return false;
	r->child_done = true;
	r->child_status = st;
	return true;
}

/* Read every pending signal: 0 (go on) or why the session ends. */
static int read_signals(struct kt_run *r, const struct kt_run_hooks *h)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (r->child && !r->child_done && child_exited(r))
				return KT_RUN_CHILD_EXITED;
			continue;
		}
		if (si.ssi_signo == SIGUSR2) {
			if (h->request)
				h->request(h->arg);
			continue;
		}
		r->nsignals++;
		r->stop_signal = (int)si.ssi_signo;
		if (r->child && !r->child_done && r->nsignals == 1) {
			/*
			 * COMMAND's exit ends the session, so its last events
			 * are kept.  A signal from the terminal reached it
			 * already; one sent to ktrace alone is passed on.
			 */
			if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
				kill(kt_child_pid(r->child), (int)si.ssi_signo);
			continue;
		}
		return KT_RUN_SIGNALLED;
	}
	return 0;
}

/* One turn of the loop: 0 to go on, or why it ends (as kt_run_loop()). */
static int turn(struct kt_run *r, const struct kt_run_hooks *h,
		struct pollfd *pfd, int timeout)
{
	int i, why;

	/* A child that exited before the loop began, or meanwhile. */
	if (child_exited(r))
		return KT_RUN_CHILD_EXITED;
	if (h->before) {
		why = h->before(h->arg, &timeout);
		if (why)
			return why;
	}
	pfd[0].fd = r->sfd;
	pfd[0].events = POLLIN;
	for (i = 0; i < h->nfds; i++)
		pfd[i + 1] = h->fds[i];
	if (poll(pfd, h->nfds + 1, timeout) < 0 && errno != EINTR)
		return -errno;
	why = read_signals(r, h);
	if (!why && h->woke)
		why = h->woke(h->arg, pfd + 1);
	return why;
}

int kt_run_loop(struct kt_run *r, const struct kt_run_hooks *h)
{
	struct pollfd *pfd = calloc(h->nfds + 1, sizeof(*pfd));
	int ret;

	if (!pfd)
		return -ENOMEM;
	do
		ret = turn(r, h, pfd, -1);
	while (!ret);
	free(pfd);
	return ret;
}

int kt_run_step(struct kt_run *r, const struct kt_run_hooks *h, int timeout_ms)
{
	struct pollfd *pfd = r->pfd;
	int i, ret;

	if (r->npfd < h->nfds + 1) {
		pfd = realloc(r->pfd, (h->nfds + 1) * sizeof(*pfd));
		if (!pfd)
			return -ENOMEM;
		r->pfd = pfd;
		r->npfd = h->nfds + 1;
	}
	ret = turn(r, h, pfd, timeout_ms);
	/* The caller's revents, as poll() left them. */
	for (i = 0; i < h->nfds; i++)
		h->fds[i].revents = pfd[i + 1].revents;
	return ret;
}

int kt_run_exit_status(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 1;	/* KT_EXIT_FAIL */
}
