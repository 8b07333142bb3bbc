// SPDX-License-Identifier: GPL-2.0
/*
 * The held child.  Two pipes: "go" (parent -> child) holds it before
 * exec; "err" (close-on-exec, child -> parent) carries errno when exec
 * fails and reaches EOF when exec succeeds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/session/child.h"

struct kt_child {
	pid_t pid;
	int go_wr;
	int err_rd;
	bool released;
	bool reaped;
	int status;
	kt_child_stop_fn on_stop;	/* traced: called at exec and exit */
	void *stop_priv;
};

static void child_exec(char *const argv[], int go_rd, int err_wr)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	char c;
	int sig, e;
	ssize_t n;

	/* The dispatcher ignores SIGPIPE; the command must not inherit it. */
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do {
		n = read(go_rd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* the tracer gave up before letting us go */
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

struct kt_child *kt_child_new(char *const argv[])
{
	struct kt_child *c;
	int go[2], err[2], e;

	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (pipe2(go, O_CLOEXEC) < 0)
		goto err_free;
	if (pipe2(err, O_CLOEXEC) < 0)
		goto err_go;
	c->pid = fork();
	if (c->pid < 0)
		goto err_err;
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		child_exec(argv, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	c->go_wr = go[1];
	c->err_rd = err[0];
	return c;

err_err:
	e = errno;
	close(err[0]);
	close(err[1]);
	errno = e;
err_go:
	e = errno;
	close(go[0]);
	close(go[1]);
	errno = e;
err_free:
	e = errno;
	free(c);
	errno = e;
	return NULL;
}

pid_t kt_child_pid(const struct kt_child *c)
{
	return c->pid;
}

int kt_child_release(struct kt_child *c)
{
	ssize_t n;
	int e = 0;

	if (c->released)
		return -EALREADY;
	c->released = true;
	do {
		n = write(c->go_wr, "g", 1);
	} while (n < 0 && errno == EINTR);
	close(c->go_wr);
	c->go_wr = -1;
	if (n != 1)
		return -errno;
	/* EOF: exec closed the pipe; 4 bytes: exec's errno. */
	do {
		n = read(c->err_rd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(c->err_rd);
	c->err_rd = -1;
	if (n == sizeof(e))
		return -e;
	return 0;
}

int kt_child_watch(struct kt_child *c, kt_child_stop_fn fn, void *priv)
{
	if (c->released)
		return -EALREADY;
	/*
	 * PTRACE_SEIZE: no stop now and no bare SIGTRAP at exec; only the
	 * exec and exit stops (and the signals it must pass on, below), in
	 * it and in every process it forks (its threads are not traced).
	 */
	if (ptrace(PTRACE_SEIZE, c->pid, 0,
		   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC |
				  PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)) < 0)
		return -errno;
	c->on_stop = fn;
	c->stop_priv = priv;
	return 0;
}

/* A stop of a traced task: what it was, dealt with, and the task let go. */
static void traced_stop(struct kt_child *c, pid_t pid, int st)
{
	int sig = WSTOPSIG(st), ev = st >> 16;

	if (sig == SIGTRAP && (ev == PTRACE_EVENT_EXIT || ev == PTRACE_EVENT_EXEC)) {
		c->on_stop(pid, ev == PTRACE_EVENT_EXEC, c->stop_priv);
		ptrace(PTRACE_CONT, pid, 0, 0);
	} else if (ev == PTRACE_EVENT_STOP &&
		   (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)) {
		/* A group stop (^Z): it stays stopped until SIGCONT. */
		ptrace(PTRACE_LISTEN, pid, 0, 0);
	} else if (ev) {
		/* A fork's stops, in the parent and in the new child. */
		ptrace(PTRACE_CONT, pid, 0, 0);
	} else {
		/* A signal on its way: passed on as it came. */
		ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
	}
}

/*
 * waitpid() for the child, flags WNOHANG or 0: 1 once reaped, 0 while it
 * runs (WNOHANG), -errno.  A traced child and the processes it forks
 * (all traced) are waited for together; their stops are dealt with
 * here: exec and exit stops call on_stop, a signal is passed on as it
 * came, a group stop stays stopped (PTRACE_LISTEN), so that tracing
 * them changes nothing they see.
 */
static int reap(struct kt_child *c, int flags)
{
	pid_t r, want = c->on_stop ? -1 : c->pid;
	int st;

	for (;;) {
		r = waitpid(want, &st, flags | (c->on_stop ? __WALL : 0));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		if (c->on_stop && WIFSTOPPED(st)) {
			traced_stop(c, r, st);
			continue;
		}
		/* A descendant's end, seen first by its tracer. */
		if (r != c->pid)
			continue;
		break;
	}
	c->status = st;
	c->reaped = true;
	return 1;
}

int kt_child_poll(struct kt_child *c, int *status)
{
	int r = c->reaped ? 1 : reap(c, WNOHANG);

	if (r == 1)
		*status = c->status;
	return r;
}

int kt_child_wait(struct kt_child *c, int *status)
{
	int r = c->reaped ? 1 : reap(c, 0);

	if (r < 0)
		return r;
	*status = c->status;
	return 0;
}

void kt_child_free(struct kt_child *c)
{
	int st;

	if (!c)
		return;
	/* Closing "go" unheld makes a held child exit by itself. */
	if (c->go_wr >= 0)
		close(c->go_wr);
	if (c->err_rd >= 0)
		close(c->err_rd);
	if (!c->reaped)
		kt_child_wait(c, &st);
	free(c);
}

static int check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	return access(path, X_OK) == 0 ? 0 : -EACCES;
}

int kt_child_check(const char *argv0)
{
	const char *path, *p, *end;
	char full[PATH_MAX];
	int ret = -ENOENT, r;

	if (!argv0 || !*argv0)
		return -ENOENT;
	if (strchr(argv0, '/'))
		return check_file(argv0);
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		size_t dlen;

		end = strchrnul(p, ':');
		dlen = end - p;
		if (snprintf(full, sizeof(full), "%.*s%s%s", (int)dlen, p,
			     dlen ? "/" : "", argv0) < (int)sizeof(full)) {
			r = check_file(full);
			if (r == 0)
				return 0;
			if (r == -EACCES)
				ret = r;
		}
		if (!*end)
			break;
	}
	return ret;
}
