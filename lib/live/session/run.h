/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run loop of a tracing session (`ktrace record`, `ktrace stream`):
 * COMMAND as the session runs it, and the signals that end the session.
 * SIGINT, SIGTERM, SIGHUP, SIGCHLD and SIGUSR2 (a snapshot asked) are
 * blocked and read from a signalfd, polled together with the caller's
 * own file descriptors.
 */
#ifndef KT_RUN_H
#define KT_RUN_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "live/session/child.h"

struct kt_run;

/*
 * Block SIGINT, SIGTERM, SIGHUP (unless ignored), SIGCHLD and SIGUSR2
 * for a signalfd.  NULL + errno.
 */
struct kt_run *kt_run_new(void);
/* COMMAND killed if still held, reaped; the old signal mask back. */
void kt_run_free(struct kt_run *r);

/* Fork COMMAND (argv), held until kt_run_child_release().  0 or -errno. */
int kt_run_child_new(struct kt_run *r, char *const argv[]);
/* kt_child_watch() for COMMAND, before kt_run_child_release(). */
int kt_run_child_watch(struct kt_run *r, kt_child_stop_fn fn, void *priv);
/* kt_child_forks() for COMMAND, before kt_run_child_release(). */
int kt_run_child_forks(struct kt_run *r, kt_child_fork_fn fn, void *priv);
/* COMMAND's pid, or 0 without one. */
pid_t kt_run_child_pid(const struct kt_run *r);
/*
 * Let COMMAND exec.  0, or -errno of a failed exec: COMMAND has then
 * exited and is reaped (kt_run_child_status() says how).
 */
int kt_run_child_release(struct kt_run *r);
/* Started and not reaped yet. */
bool kt_run_child_running(const struct kt_run *r);
/* Wait for COMMAND to exit.  0 or -errno. */
int kt_run_child_wait(struct kt_run *r);
/* True once COMMAND is reaped, with its wait status in *status. */
bool kt_run_child_status(const struct kt_run *r, int *status);
/* Kill COMMAND if still held, reap it and forget it. */
void kt_run_child_free(struct kt_run *r);
/* Send sig to COMMAND while it runs. */
void kt_run_child_kill(struct kt_run *r, int sig);

/* The last SIGINT, SIGTERM or SIGHUP read, or 0. */
int kt_run_stop_signal(const struct kt_run *r);

/* Why kt_run_loop() returned; a hook's own reasons start at KT_RUN_HOOK. */
enum {
	KT_RUN_CHILD_EXITED = 1,	/* COMMAND exited (and was reaped) */
	KT_RUN_SIGNALLED,		/* a signal ends the session */
	KT_RUN_HOOK = 16,
};

/*
 * What the caller adds to the loop.  Each turn: COMMAND's exit ends it;
 * then before() may end it (a reason >= KT_RUN_HOOK) or set how long
 * to wait (*timeout_ms, -1 for ever); then poll() on the signals and
 * fds; then the signals (request() at each SIGUSR2, which ends
 * nothing); then woke() may end it after looking at fds' revents.
 * NULL hooks do nothing.
 */
struct kt_run_hooks {
	struct pollfd *fds;
	int nfds;
	int (*before)(void *arg, int *timeout_ms);
	int (*woke)(void *arg, const struct pollfd *fds);
	void (*request)(void *arg);
	void *arg;
};

/*
 * Run until COMMAND exits, a signal ends the session or a hook does.
 * With COMMAND still running, the first SIGINT/SIGTERM/SIGHUP does not
 * end the session but is passed on to COMMAND (unless it came from the
 * terminal, which signalled COMMAND already), and COMMAND's exit ends
 * it; a second one ends it at once.  Returns the reason, or -errno
 * when poll() fails.
 */
int kt_run_loop(struct kt_run *r, const struct kt_run_hooks *h);
/*
 * One turn of kt_run_loop(), for a caller that runs its own loop (top's
 * screen): a wait of at most timeout_ms (-1 for ever; before() may
 * change it), h->fds' revents set.  0 to go on, else as kt_run_loop().
 */
int kt_run_step(struct kt_run *r, const struct kt_run_hooks *h, int timeout_ms);

/* ktrace's exit status for COMMAND's wait status (128+N for signal N). */
int kt_run_exit_status(int wait_status);

#endif
