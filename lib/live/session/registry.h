/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry of running recordings, for `ktrace snapshot`: one small
 * text file per recording, DIR/PID (DIR: /run/ktrace, or $KTRACE_RUN_DIR),
 * made when the recording starts and removed on every way out; a
 * SIGKILL'ed recorder's is stale, found so (the pid gone, or no longer
 * ktrace) and removed by the next look.  A snapshot is asked by
 * DIR/PID.req (the file, the window) and SIGUSR2, and answered in
 * DIR/PID.ans, each written whole under a temporary name then renamed.
 */
#ifndef KT_REGISTRY_H
#define KT_REGISTRY_H

#include <stdbool.h>
#include <sys/types.h>

struct kt_registry_entry {
	pid_t pid;
	char mode[16];			/* plain, flight or rotate */
	char output[4096];		/* -o FILE or DIR */
	long long start;		/* seconds since the epoch */
};

/* The registry's directory. */
const char *kt_registry_dir(void);

/* This process's entry.  0 or -errno. */
int kt_registry_add(const char *mode, const char *output);
/* This process's entry, request and answer gone. */
void kt_registry_remove(void);

/*
 * A recording's entry: 0, -ENOENT (none), or -ESRCH (stale, removed).
 */
int kt_registry_read(pid_t pid, struct kt_registry_entry *e);
/*
 * The live recordings, their pids sorted in *pids (malloc'ed), the stale
 * entries removed.  0 (none: -ENOENT) or -errno.
 */
int kt_registry_list(pid_t **pids, int *n);

/*
 * Ask pid for a snapshot into path (absolute) of its last last_ns (0:
 * all), and send SIGUSR2.  Held against another asker by a lock kept
 * until kt_registry_wait() returns.  0 or -errno.
 */
int kt_registry_ask(pid_t pid, const char *path, unsigned long long last_ns,
		    int *lock);
/*
 * The answer, at most timeout_ms away: 0 with *line (malloc'ed) and *ok,
 * -ETIMEDOUT, -ESRCH when the recorder is gone; the lock released.
 */
int kt_registry_wait(pid_t pid, int lock, int timeout_ms, char **line,
		     bool *ok);

/*
 * In the recorder, at SIGUSR2: the request, if one was made (1, with
 * *path malloc'ed, and *last_ns; removed), 0 for none, or -errno.
 */
int kt_registry_take(char **path, unsigned long long *last_ns);
/* ... and the answer to it.  0 or -errno. */
int kt_registry_answer(bool ok, const char *line);

#endif
