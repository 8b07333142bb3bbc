/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --on-trigger CMD: a command run for each snapshot (base/shot.h),
 * without a shell, with the snapshot in its environment:
 *
 *   KTRACE_SNAPSHOT    the file's path
 *   KTRACE_CONDITION   the condition that fired ("snapshot": ktrace snapshot, SIGUSR2)
 *   KTRACE_TIME        when, ISO 8601 UTC to the nanosecond (2026-11-28T14:33:29.123456789Z)
 *   KTRACE_FIRE_TS     when, the trace clock's ns (a record's ts)
 *   KTRACE_EVENT       the firing event as report prints it ("" for none)
 *   KTRACE_SUPPRESSED  firings held back since the last snapshot
 *
 * CMD is split into words here, never by a shell: blanks separate them,
 * '...' keeps its text as it is, "..." too but for \" and \\, and a \
 * outside quotes keeps the next character.  Nothing is expanded ($, *, ~
 * and ` are plain characters): the event's data reaches CMD only as the
 * values of those variables.
 *
 * kt_hook_run() only starts CMD (posix_spawn: no shell, its own process
 * group, stdin /dev/null, stdout onto the caller's stderr, which may be
 * the trace) and returns: a thread per running CMD reaps it and says in
 * one line when it failed.  At most KT_HOOK_MAX run at once; a snapshot
 * while they all run gets no CMD: skipped, said, counted.
 */
#ifndef KT_LIVE_SESSION_HOOK_H
#define KT_LIVE_SESSION_HOOK_H

#include <stdbool.h>

#include "base/shot.h"

#define KT_HOOK_MAX	4

struct kt_hook;

/*
 * CMD's words: 0, or -EINVAL with *why (a static phrase: "an unclosed
 * quote", "no command") and -ENOMEM.
 */
int kt_hook_check(const char *cmd, const char **why);

/* NULL and errno (EINVAL: kt_hook_check() refuses cmd, ENOMEM). */
struct kt_hook *kt_hook_new(const char *cmd);
/* Start CMD for shot; never waits for it.  0, or -errno (said). */
int kt_hook_run(struct kt_hook *h, const struct kt_shot *shot);
/*
 * The end: wait up to ms for the running CMDs, stop (SIGTERM, then
 * SIGKILL) those still running after it, and say the skipped ones.
 */
void kt_hook_wait(struct kt_hook *h, int ms);
void kt_hook_free(struct kt_hook *h);

struct kt_hook_stats {
	unsigned int started, failed, skipped, stopped;
};
void kt_hook_stats(struct kt_hook *h, struct kt_hook_stats *st);

#endif
