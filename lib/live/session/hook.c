// SPDX-License-Identifier: GPL-2.0
/*
 * record --on-trigger CMD: CMD run for each snapshot, no shell, the
 * snapshot in its environment.  See hook.h.
 *
 * posix_spawnp() rather than fork(): the recording has threads (its
 * recorders), and a forked copy of them would hold their locks.  The
 * recording blocks the signals it reads from a signalfd (run.c): CMD
 * gets an empty mask and their default actions back.  Its own process
 * group keeps a ^C at the terminal, meant for the recording, from
 * cutting a hook short: the end waits for it (bounded).
 *
 * A hook's thread reaps it with waitpid() on its pid alone.  A command
 * recorded under ptrace (record -F) is reaped with waitpid(-1) by
 * child.c, which may take a hook's status first: then the hook's thread
 * sees ECHILD and says nothing of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/deadline.h"
#include "base/log.h"
#include "live/session/hook.h"

extern char **environ;

/* The variables CMD gets (hook.h), each replacing one it inherits. */
static const char *const vars[] = {
	"KTRACE_SNAPSHOT", "KTRACE_CONDITION", "KTRACE_TIME",
	"KTRACE_FIRE_TS", "KTRACE_EVENT", "KTRACE_SUPPRESSED",
};
#define NVARS	(sizeof(vars) / sizeof(vars[0]))

/* One running CMD and the thread that reaps it. */
struct slot {
	struct kt_hook *h;
	pid_t pid;
	pthread_t th;
	bool busy;			/* its thread not joined yet */
	bool done;			/* reaped: its thread ends */
	char *path;			/* the snapshot's, for the line */
};

struct kt_hook {
	char *cmd;			/* as given, for messages */
	char **argv;			/* its words */
	char *words;			/* their characters */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot slot[KT_HOOK_MAX];
	unsigned int running;
	bool stopping;			/* the end stops what still runs */
	bool said;			/* the skipped ones, at the end */
	struct kt_hook_stats st;
};

/*
 * cmd's words into argv (room for strlen(cmd) / 2 + 2) and their
 * characters into buf (strlen(cmd) + 1): the number of words, or
 * -EINVAL with *why.
 */
static int split(const char *cmd, char **argv, char *buf, const char **why)
{
	const char *c = cmd;
	char *out = buf;
	int n = 0;
	bool in_word;

	for (;;) {
		while (*c == ' ' || *c == '\t' || *c == '\n')
			c++;
		if (!*c)
			break;
		in_word = true;
		if (argv)
			argv[n] = out;
		while (in_word && *c) {
			switch (*c) {
			case ' ': case '\t': case '\n':
				in_word = false;
				break;
			case '\'':
				for (c++; *c && *c != '\''; c++)
					*out++ = *c;
				if (!*c) {
					*why = "a ' is not closed";
					return -EINVAL;
				}
				c++;
				break;
			case '"':
				for (c++; *c && *c != '"'; c++) {
					if (*c == '\\' && (c[1] == '"' || c[1] == '\\'))
						c++;
					*out++ = *c;
				}
				if (!*c) {
					*why = "a \" is not closed";
					return -EINVAL;
				}
				c++;
				break;
			case '\\':
				if (!c[1]) {
					*why = "a \\ ends it";
					return -EINVAL;
				}
				*out++ = c[1];
				c += 2;
				break;
			default:
				*out++ = *c++;
			}
		}
		*out++ = '\0';
		n++;
	}
	if (!n) {
		*why = "it names no command";
		return -EINVAL;
	}
	if (argv)
		argv[n] = NULL;
	return n;
}

int kt_hook_check(const char *cmd, const char **why)
{
	char *buf = malloc(strlen(cmd) + 1);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = split(cmd, NULL, buf, why);
	free(buf);
	return ret < 0 ? ret : 0;
}

struct kt_hook *kt_hook_new(const char *cmd)
{
	struct kt_hook *h = calloc(1, sizeof(*h));
	const char *why;
	size_t len = strlen(cmd);
	int i, err;

	if (!h)
		return NULL;
	h->cmd = strdup(cmd);
	h->words = malloc(len + 1);
	h->argv = calloc(len / 2 + 2, sizeof(*h->argv));
	if (!h->cmd || !h->words || !h->argv) {
		err = ENOMEM;
		goto err_free;
	}
	if (split(cmd, h->argv, h->words, &why) < 0) {
		err = EINVAL;
		goto err_free;
	}
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	for (i = 0; i < KT_HOOK_MAX; i++)
		h->slot[i].h = h;
	return h;

err_free:
	free(h->argv);
	free(h->words);
	free(h->cmd);
	free(h);
	errno = err;
	return NULL;
}

/* ---- the environment ---- */

/*
 * environ less the variables CMD gets, then those, from *made on:
 * NULL and errno.
 */
static char **environment(const struct kt_shot *shot, size_t *made)
{
	char when[64], date[40], **env, **e;
	size_t n = 0, i, k, l;
	long long ns = shot->fire_realtime_ns;
	struct tm tm;
	time_t sec;
	long frac;
	int bad = 0;

	for (e = environ; e && *e; e++)
		n++;
	env = calloc(n + NVARS + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0, e = environ; e && *e; e++) {
		for (k = 0; k < NVARS; k++) {
			l = strlen(vars[k]);
			if (!strncmp(*e, vars[k], l) && (*e)[l] == '=')
				break;
		}
		if (k == NVARS)
			env[i++] = *e;
	}
	sec = (time_t)(ns / 1000000000LL);
	frac = (long)(ns % 1000000000LL);
	if (frac < 0) {
		sec--;
		frac += 1000000000L;
	}
	if (!gmtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(date, sizeof(date), "1970-01-01T00:00:00");
	snprintf(when, sizeof(when), "%s.%09ldZ", date, frac);
	*made = i;
	bad |= asprintf(&env[i++], "KTRACE_SNAPSHOT=%s", shot->path) < 0;
	bad |= asprintf(&env[i++], "KTRACE_CONDITION=%s", shot->condition ?: "") < 0;
	bad |= asprintf(&env[i++], "KTRACE_TIME=%s", when) < 0;
	bad |= asprintf(&env[i++], "KTRACE_FIRE_TS=%llu", (unsigned long long)shot->fire_ts) < 0;
	bad |= asprintf(&env[i++], "KTRACE_EVENT=%s", shot->fire_event ?: "") < 0;
	bad |= asprintf(&env[i++], "KTRACE_SUPPRESSED=%llu",
			(unsigned long long)shot->suppressed) < 0;
	if (bad) {
		/* asprintf() leaves its pointer undefined on failure. */
		for (k = *made; k < i; k++)
			env[k] = NULL;
		free(env);
		errno = ENOMEM;
		return NULL;
	}
	return env;
}

static void environment_free(char **env, size_t made)
{
	size_t i;

	if (!env)
		return;
	for (i = made; env[i]; i++)
		free(env[i]);
	free(env);
}

/* ---- running and reaping ---- */

static void *reaper(void *arg)
{
	struct slot *sl = arg;
	struct kt_hook *h = sl->h;
	pid_t r;
	int st = 0;

	do
		r = waitpid(sl->pid, &st, 0);
	while (r < 0 && errno == EINTR);
	pthread_mutex_lock(&h->mu);
	if (r == sl->pid && WIFEXITED(st) && WEXITSTATUS(st)) {
		h->st.failed++;
		kt_warn("--on-trigger '%s' for '%s' exited with status %d; the recording goes on",
			h->cmd, sl->path, WEXITSTATUS(st));
	} else if (r == sl->pid && WIFSIGNALED(st) && !h->stopping) {
		h->st.failed++;
		kt_warn("--on-trigger '%s' for '%s' was killed by signal %d (%s); the recording goes on",
			h->cmd, sl->path, WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	sl->done = true;
	h->running--;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Join the reapers that are done: their slots free again.  Under mu. */
static void join_done(struct kt_hook *h)
{
	int i;

	for (i = 0; i < KT_HOOK_MAX; i++) {
		struct slot *sl = &h->slot[i];

		if (!sl->busy || !sl->done)
			continue;
		pthread_join(sl->th, NULL);
		free(sl->path);
		sl->path = NULL;
		sl->busy = sl->done = false;
	}
}

static int spawn(struct kt_hook *h, char **env, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	int ret;

	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGQUIT);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGCHLD);
	sigaddset(&def, SIGUSR2);
	ret = posix_spawnattr_init(&at);
	if (ret)
		return -ret;
	ret = posix_spawn_file_actions_init(&fa);
	if (ret) {
		posix_spawnattr_destroy(&at);
		return -ret;
	}
	ret = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					    POSIX_SPAWN_SETSIGDEF);
	ret = ret ?: posix_spawnattr_setpgroup(&at, 0);
	ret = ret ?: posix_spawnattr_setsigmask(&at, &none);
	ret = ret ?: posix_spawnattr_setsigdefault(&at, &def);
	/* stdout: the recording's may be the trace (-o -). */
	ret = ret ?: posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	ret = ret ?: posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	/* The recording's files (its pieces, tracefs) are not CMD's. */
	ret = ret ?: posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	ret = ret ?: posix_spawnp(pid, h->argv[0], &fa, &at, h->argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return -ret;
}

int kt_hook_run(struct kt_hook *h, const struct kt_shot *shot)
{
	struct slot *sl = NULL;
	char **env = NULL;
	size_t made = 0;
	int i, ret, err;

	pthread_mutex_lock(&h->mu);
	join_done(h);
	for (i = 0; i < KT_HOOK_MAX && !sl; i++)
		if (!h->slot[i].busy)
			sl = &h->slot[i];
	if (!sl) {
		h->st.skipped++;
		kt_warn("--on-trigger: %d hooks still running; not run for '%s' (%u skipped so far)",
			KT_HOOK_MAX, shot->path, h->st.skipped);
		pthread_mutex_unlock(&h->mu);
		return -EBUSY;
	}
	sl->path = strdup(shot->path);
	env = environment(shot, &made);
	if (!sl->path || !env) {
		ret = -ENOMEM;
		goto err_said;
	}
	ret = spawn(h, env, &sl->pid);
	environment_free(env, made);
	env = NULL;
	if (ret) {
		h->st.failed++;
		kt_warn("cannot run --on-trigger '%s' for '%s': %s; the recording goes on",
			h->argv[0], shot->path,
			ret == -ENOENT ? "command not found" : strerror(-ret));
		goto err_free;
	}
	h->st.started++;
	sl->busy = true;
	sl->done = false;
	h->running++;
	err = pthread_create(&sl->th, NULL, reaper, sl);
	if (err) {
		/* No thread to reap it: waited for here, as the end would. */
		h->running--;
		sl->busy = false;
		pthread_mutex_unlock(&h->mu);
		while (waitpid(sl->pid, NULL, 0) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&h->mu);
		ret = -err;
		goto err_free;
	}
	pthread_mutex_unlock(&h->mu);
	return 0;

err_said:
	kt_warn("cannot run --on-trigger '%s' for '%s': %s", h->argv[0], shot->path,
		strerror(-ret));
err_free:
	environment_free(env, made);
	free(sl->path);
	sl->path = NULL;
	pthread_mutex_unlock(&h->mu);
	return ret;
}

/* Wait on cv until nothing runs or the deadline: 0, or ETIMEDOUT. */
static int wait_running(struct kt_hook *h, const struct timespec *deadline)
{
	int ret = 0;

	while (h->running && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&h->cv, &h->mu, deadline);
	return h->running ? ETIMEDOUT : 0;
}

/* SIGTERM or SIGKILL to each running CMD's group.  Under mu. */
static void signal_running(struct kt_hook *h, int sig)
{
	int i;

	for (i = 0; i < KT_HOOK_MAX; i++)
		if (h->slot[i].busy && !h->slot[i].done)
			kill(-h->slot[i].pid, sig);
}

void kt_hook_wait(struct kt_hook *h, int ms)
{
	struct timespec t;

	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	kt_deadline_in(&t, ms);
	if (wait_running(h, &t)) {
		h->stopping = true;
		h->st.stopped = h->running;
		kt_warn("--on-trigger: %u hook(s) still running after %d s; stopping them",
			h->running, ms / 1000);
		signal_running(h, SIGTERM);
		kt_deadline_in(&t, 2000);
		if (wait_running(h, &t)) {
			signal_running(h, SIGKILL);
			/* A killed process is reaped at once. */
			kt_deadline_in(&t, 10000);
			wait_running(h, &t);
		}
	}
	join_done(h);
	if (h->st.skipped && !h->said)
		kt_warn("--on-trigger: %u snapshot(s) got no hook: %d were running already",
			h->st.skipped, KT_HOOK_MAX);
	h->said = true;
	pthread_mutex_unlock(&h->mu);
}

void kt_hook_stats(struct kt_hook *h, struct kt_hook_stats *st)
{
	pthread_mutex_lock(&h->mu);
	*st = h->st;
	pthread_mutex_unlock(&h->mu);
}

void kt_hook_free(struct kt_hook *h)
{
	if (!h)
		return;
	kt_hook_wait(h, 0);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h->argv);
	free(h->words);
	free(h->cmd);
	free(h);
}
