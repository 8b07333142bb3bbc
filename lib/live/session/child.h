/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command started on cue: forked at once (so its pid is known while
 * tracing is set up), held on a pipe, and let go to exec only when the
 * tracer is ready, so tracing is on before its first instruction.
 */
#ifndef KT_CHILD_H
#define KT_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct kt_child;

/*
 * Fork a child that will exec argv[0] (searched in PATH) with argv once
 * released.  It starts with every signal unblocked and at its default
 * disposition (SIGPIPE included).  NULL + errno on failure.
 */
struct kt_child *kt_child_new(char *const argv[]);
/* Kill (if still held) and reap the child, then free. */
void kt_child_free(struct kt_child *c);

pid_t kt_child_pid(const struct kt_child *c);
/*
 * Let it exec.  Returns 0 once the exec succeeded, or -errno of a failed
 * exec (the child has then exited with 127, or 126 when not executable).
 */
int kt_child_release(struct kt_child *c);

/*
 * Reap it if it has exited: 1 and *status (a waitpid status) when it
 * did, 0 while it runs, -errno on error.
 */
int kt_child_poll(struct kt_child *c, int *status);
/* Wait for it to exit. */
int kt_child_wait(struct kt_child *c, int *status);

/*
 * Before kt_child_release(): trace the child and the processes it forks
 * (ptrace, their execs and exits only), so that fn(pid, exec, priv) runs
 * after each exec (exec true: the new program is loaded, not run yet)
 * and as each exits (exec false), while its memory is still there to
 * read (record --user-stack reads their maps).  fn runs from
 * kt_child_poll() or kt_child_wait(), which then wait for any child of
 * the caller's.  Like any ptrace, it drops a set-user-ID program's
 * privileges at exec.  0 or -errno.
 */
typedef void (*kt_child_stop_fn)(pid_t pid, bool exec, void *priv);
int kt_child_watch(struct kt_child *c, kt_child_stop_fn fn, void *priv);

/*
 * Before kt_child_release(): follow the child's thread group alone
 * (record -F): ptrace sees its threads made and its forks, and each
 * process it forks, from any thread, is given to fn(pid, priv) before it
 * runs an instruction of its own (record puts it in
 * set_event_notrace_pid), then let go untraced.  fn runs from
 * kt_child_poll() or kt_child_wait(), as kt_child_watch()'s does, and
 * may be told the same pid twice.  0 or -errno.
 */
typedef void (*kt_child_fork_fn)(pid_t pid, void *priv);
int kt_child_forks(struct kt_child *c, kt_child_fork_fn fn, void *priv);

/*
 * Whether argv0 names something exec could run, as a shell decides
 * before forking: 0, -ENOENT (not found) or -EACCES.
 */
int kt_child_check(const char *argv0);

#endif
