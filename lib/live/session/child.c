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
#include <time.h>
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
	kt_child_fork_fn on_fork;	/* traced: a process it forks */
	void *fork_priv;
	bool seized;
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

/*
 * Wait, a bounded time, until the child sleeps in its read of "go".  What
 * it runs before it blocks (and any preemption there) then comes before
 * tracing starts, never between one backend's start and the next's
 * (ktrace.ko's probes, then ftrace's tracing_on: a switch of the workload
 * seen by one alone, or its first switch in one recording and not in
 * another run's).  voluntary_ctxt_switches counts its first block: the
 * kernel raises it just before the sched_switch tracepoint, in the same
 * scheduler section, so tracing started after it cannot see that switch.
 */
static void wait_blocked(pid_t pid)
{
	const struct timespec step = { 0, 200 * 1000 };
	char path[64], line[128];
	unsigned long vcsw;
	char state;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (i = 0; i < 10000; i++) {	/* 2 s at most */
		f = fopen(path, "re");
		if (!f)
			return;
		state = 0;
		vcsw = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "State: %c", &state) != 1)
				sscanf(line, "voluntary_ctxt_switches: %lu", &vcsw);
		fclose(f);
		if (state == 'S' && vcsw > 0)
			return;
		nanosleep(&step, NULL);
	}
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
	wait_blocked(c->pid);
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

/*
 * PTRACE_SEIZE: no stop now and no bare SIGTRAP at exec; only the exec
 * and exit stops (on_stop), the forks, and for on_fork the threads'
 * creation (a thread's forks are seen only when the thread is traced),
 * and the signals it must pass on (below).
 */
static int seize(struct kt_child *c)
{
	long opts = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	int st, ret;

	if (c->on_stop)
		opts |= PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC;
	if (c->on_fork)
		opts |= PTRACE_O_TRACECLONE;
	if (!c->seized) {
		if (ptrace(PTRACE_SEIZE, c->pid, 0, (void *)opts) < 0)
			return -errno;
		c->seized = true;
		return 0;
	}
	/*
	 * Seized already (both --user-stack and -F): options are set on a
	 * stopped tracee, and the held child waits in read().
	 */
	if (ptrace(PTRACE_INTERRUPT, c->pid, 0, 0) < 0)
		return -errno;
	if (waitpid(c->pid, &st, __WALL) < 0)
		return -errno;
	ret = ptrace(PTRACE_SETOPTIONS, c->pid, 0, (void *)opts) < 0 ? -errno : 0;
	if (ptrace(PTRACE_CONT, c->pid, 0, 0) < 0 && !ret)
		ret = -errno;
	return ret;
}

int kt_child_watch(struct kt_child *c, kt_child_stop_fn fn, void *priv)
{
	int ret;

	if (c->released)
		return -EALREADY;
	c->on_stop = fn;
	c->stop_priv = priv;
	ret = seize(c);
	if (ret)
		c->on_stop = NULL;
	return ret;
}

int kt_child_forks(struct kt_child *c, kt_child_fork_fn fn, void *priv)
{
	int ret;

	if (c->released)
		return -EALREADY;
	c->on_fork = fn;
	c->fork_priv = priv;
	ret = seize(c);
	if (ret)
		c->on_fork = NULL;
	return ret;
}

/* The thread group pid is in, from /proc; -1 when gone. */
static pid_t tgid_of(pid_t pid)
{
	char path[64], line[128];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = (pid_t)atoi(line + 5);
			break;
		}
	fclose(f);
	return tgid;
}

/*
 * For on_fork: a fork's stop in its parent (the new pid told), or the
 * first stop of a new task.  A new process, told to on_fork before it
 * runs an instruction of its own (whichever of the two stops comes
 * first), is let go untraced; a new thread goes on traced.  true when
 * the stop was one of these and is dealt with.
 */
static bool fork_stop(struct kt_child *c, pid_t pid, int sig, int ev)
{
	unsigned long msg = 0;

	if (sig == SIGTRAP && (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK)) {
		if (!ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg) && msg)
			c->on_fork((pid_t)msg, c->fork_priv);
		ptrace(PTRACE_CONT, pid, 0, 0);
		return true;
	}
	if (ev != PTRACE_EVENT_STOP || sig != SIGTRAP || pid == c->pid || tgid_of(pid) != pid)
		return false;
	c->on_fork(pid, c->fork_priv);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return true;
}

/* A stop of a traced task: what it was, dealt with, and the task let go. */
static void traced_stop(struct kt_child *c, pid_t pid, int st)
{
	int sig = WSTOPSIG(st), ev = st >> 16;

	if (c->on_fork && fork_stop(c, pid, sig, ev))
		return;
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
	pid_t r, want = c->seized ? -1 : c->pid;
	int st;

	for (;;) {
		r = waitpid(want, &st, flags | (c->seized ? __WALL : 0));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		if (c->seized && WIFSTOPPED(st)) {
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
