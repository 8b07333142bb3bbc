/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --push URL: each snapshot (base/shot.h) into ClickHouse on
 * `ktrace push`'s schema (push.h), and a row of its own in `snapshots`
 * (host, trace_id, time, wall_ts, condition, fire_event, fire_ts,
 * first_ts, last_ts, suppressed, path), from a thread of its own with a
 * queue: kt_shotpush_add() never waits for the server.
 *
 * A server that cannot be reached, or refuses, is tried again with a
 * backoff (0.25 s doubling to 5 s), the snapshots kept on disk, in
 * order.  Each arrives once: a trace pushed already sends nothing again,
 * one cut short is completed (push.h), and its `snapshots` row is
 * written only when the server has none for its (host, trace_id).
 */
#ifndef KT_PUSH_SHOTPUSH_H
#define KT_PUSH_SHOTPUSH_H

#include <stddef.h>

#include "base/shot.h"

struct kt_shotpush;

/* The thread starts; NULL and errno (EINVAL: not http://HOST:PORT[/DB]). */
struct kt_shotpush *kt_shotpush_new(const char *url, const char *user,
				    const char *password);
/* Queue shot (copied): 0 or -ENOMEM (said). */
int kt_shotpush_add(struct kt_shotpush *q, const struct kt_shot *shot);
/*
 * The end: wait up to ms for the queue to be pushed, then stop the
 * thread (a push under way is given a few seconds more).  The number of
 * snapshots not pushed; kt_shotpush_left() names them.
 */
size_t kt_shotpush_finish(struct kt_shotpush *q, int ms);
/* After finish: the i-th snapshot not pushed, or NULL past the last. */
const char *kt_shotpush_left(const struct kt_shotpush *q, size_t i);
/* The snapshots pushed, each once. */
size_t kt_shotpush_pushed(const struct kt_shotpush *q);
void kt_shotpush_free(struct kt_shotpush *q);

#endif
