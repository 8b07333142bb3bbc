/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader's second thread, which does jobs posted to it in order: the
 * streams (stream.c) post the reading and unpacking of their next window
 * there while the current one is decoded.  Internal to lib/file.
 */
#ifndef KT_AHEAD_H
#define KT_AHEAD_H

#include <stdbool.h>

enum { KT_AHEAD_IDLE, KT_AHEAD_QUEUED, KT_AHEAD_BUSY, KT_AHEAD_DONE };

/* Embedded in the poster's own struct; fn runs in the thread. */
struct kt_ahead_job {
	void (*fn)(struct kt_ahead_job *j);
	struct kt_ahead_job *next;
	int state;
};

struct kt_ahead;

/* The thread started, or NULL (errno set). */
struct kt_ahead *kt_ahead_new(void);
/* Stops and joins it; every job posted must have been waited for. */
void kt_ahead_free(struct kt_ahead *a);
/* Queue j (idle or done) behind the others. */
void kt_ahead_post(struct kt_ahead *a, struct kt_ahead_job *j);
/*
 * Take j back: true when its fn has run (waiting for it to end if it is
 * running), false when it had not started (it is taken off the queue
 * unrun) or was never posted.  j is idle after.
 */
bool kt_ahead_wait(struct kt_ahead *a, struct kt_ahead_job *j);

#endif
