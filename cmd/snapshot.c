// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace snapshot: a whole trace.dat of a running `ktrace record`, which
 * goes on.  The recorder does the work (its sinks' snapshot, sink.h);
 * this file finds it in the registry (lib/live/session/registry.h),
 * asks, waits and prints the answer.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "base/log.h"
#include "live/session/registry.h"

/* How long the recorder has to answer. */
#define ANSWER_MS	10000

struct snapshot_opts {
	pid_t pid;			/* 0: the one running */
	const char *output;		/* NULL: the recorder's default */
	unsigned long long last_ns;
};

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "write FILE (default: beside the recording's FILE or DIR, FILE.snapshot-DATE.dat)", 0 },
	{ "last", 'l', "DURATION", 0, "only the newest DURATION (ms, s, m, h): the pages whose events reach into it (default: all the recording holds)", 0 },
	{ 0 }
};

static const char args_doc[] = "[PID]";
static const char doc[] =
	"Write a whole trace.dat of a running 'ktrace record' (plain, --flight "
	"or --rotate) and let it go on, nothing lost or doubled: what it holds, "
	"or its last DURATION.  Without PID, the one recording running.  "
	"Prints one line: the file, the time it spans, its events and the "
	"events lost.\v"
	"SIGUSR2 to the recording does the same into the default file and says "
	"the line on the recording's standard error.  A plain recording's "
	"snapshot holds everything since its start; a --flight one's, what its "
	"buffers hold and every earlier snapshot took from them; a --rotate "
	"one's, its files still in DIR and the one being written.  Recordings "
	"are found in /run/ktrace ($KTRACE_RUN_DIR).";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct snapshot_opts *o = state->input;
	unsigned long long size = 0;
	char *end;
	long v;

	switch (key) {
	case 'o':
		o->output = arg;
		break;
	case 'l':
		if (parse_size_duration(arg, &size, &o->last_ns) || size ||
		    !o->last_ns)
			argp_error(state, "bad --last '%s'; give a duration above zero (30s: ms, s, m or h)",
				   arg);
		break;
	case ARGP_KEY_ARG:
		if (o->pid)
			argp_error(state, "unexpected argument '%s'; give one PID", arg);
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v <= 0 || v > INT_MAX)
			argp_error(state, "bad PID '%s'; give the pid of a running 'ktrace record'",
				   arg);
		o->pid = (pid_t)v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The recording: the one named, or the only one running. */
static int find(struct snapshot_opts *o, struct kt_registry_entry *e)
{
	char list[512] = "";
	size_t len = 0;
	pid_t *pids;
	int n, i, ret;

	if (o->pid) {
		ret = kt_registry_read(o->pid, e);
		if (ret == -ENOENT || ret == -ESRCH)
			kt_err("no recording with pid %d; 'ktrace snapshot' with no PID finds the one running",
			       (int)o->pid);
		else if (ret)
			kt_err("cannot read '%s/%d': %s", kt_registry_dir(),
			       (int)o->pid, strerror(-ret));
		return ret;
	}
	ret = kt_registry_list(&pids, &n);
	if (ret == -ENOENT) {
		kt_err("no recording running; start one with 'ktrace record'");
		return ret;
	}
	if (ret) {
		kt_err("cannot read '%s': %s", kt_registry_dir(), strerror(-ret));
		return ret;
	}
	if (n > 1) {
		for (i = 0; i < n; i++)
			len += snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
					"%s%d", i ? ", " : "", (int)pids[i]);
		kt_err("%d recordings running (pids %s); name one: ktrace snapshot PID",
		       n, list);
		free(pids);
		return -EEXIST;
	}
	o->pid = pids[0];
	free(pids);
	ret = kt_registry_read(o->pid, e);
	if (ret)
		kt_err("no recording running; start one with 'ktrace record'");
	return ret;
}

/* -o as the recorder (another directory) must take it: absolute. */
static char *absolute(const char *path)
{
	char dir[PATH_MAX], *copy, *slash, *abs = NULL;
	const char *base;

	copy = strdup(path);
	if (!copy)
		return NULL;
	slash = strrchr(copy, '/');
	if (slash == copy) {
		base = path + 1;
		snprintf(dir, sizeof(dir), "/");
	} else if (slash) {
		*slash = '\0';
		base = slash + 1;
		if (!realpath(copy, dir))
			goto out;
	} else {
		base = path;
		if (!getcwd(dir, sizeof(dir)))
			goto out;
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		errno = EISDIR;
		goto out;
	}
	if (access(dir, W_OK))
		goto out;
	if (asprintf(&abs, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base) < 0)
		abs = NULL;
out:
	free(copy);
	return abs;
}

int cmd_snapshot(int argc, char **argv)
{
	static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	struct snapshot_opts o = { 0 };
	struct kt_registry_entry e;
	char *path = NULL, *line = NULL;
	bool ok = false;
	int lock, ret;

	if (parse_args(&argp, argc, argv, &o))
		return KT_EXIT_OK;
	if (o.output) {
		path = absolute(o.output);
		if (!path) {
			kt_err("cannot write '%s': %s; try -o in a writable directory",
			       o.output, strerror(errno));
			return KT_EXIT_FAIL;
		}
	}
	if (find(&o, &e)) {
		free(path);
		return KT_EXIT_FAIL;
	}
	ret = kt_registry_ask(o.pid, path ? path : "", o.last_ns, &lock);
	if (ret) {
		kt_err("cannot ask recording %d for a snapshot: %s", (int)o.pid,
		       strerror(-ret));
		free(path);
		return KT_EXIT_FAIL;
	}
	ret = kt_registry_wait(o.pid, lock, ANSWER_MS, &line, &ok);
	if (ret == -ETIMEDOUT)
		kt_err("recording %d did not answer within %d s; see its standard error",
		       (int)o.pid, ANSWER_MS / 1000);
	else if (ret == -ESRCH)
		kt_err("recording %d ended before it answered", (int)o.pid);
	else if (ret)
		kt_err("cannot read recording %d's answer: %s", (int)o.pid,
		       strerror(-ret));
	else if (!ok)
		kt_err("%s", line);
	else
		printf("%s\n", line);
	free(line);
	free(path);
	return !ret && ok ? KT_EXIT_OK : KT_EXIT_FAIL;
}
