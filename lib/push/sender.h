/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batches sent on a thread and a connection of their own, one in flight
 * while the next is made: the server's time on a batch and ours on the
 * next one overlap.  A batch's failure is returned by the next call.
 */
#ifndef KT_PUSH_SENDER_H
#define KT_PUSH_SENDER_H

#include <stddef.h>

struct kt_block;
struct kt_ch;
struct kt_sender;

/* A sender on a connection like ch's.  NULL and errno on failure. */
struct kt_sender *kt_sender_new(const struct kt_ch *ch);
/* Waits for the batch in flight, then stops the thread. */
void kt_sender_free(struct kt_sender *s);
/*
 * Run on the sender's thread and connection before a batch goes (its
 * table made or checked there, not on the caller's): 0, or -errno with
 * the reason in msg, and the batch is not sent.
 */
typedef int (*kt_sender_prep_fn)(void *arg, struct kt_ch *ch, char *msg, size_t len);

/*
 * Wait for the batch in flight; on its failure return its -errno with
 * the reason in msg.  Else take sql (an INSERT ... FORMAT Native) and
 * start sending block's rows, after prep(prep_arg, ...) when prep is
 * given; 0.  block is the sender's until its next call returns (or
 * kt_sender_wait): it sends it as it is, then clears it.
 */
int kt_sender_send(struct kt_sender *s, const char *sql, struct kt_block *block,
		   kt_sender_prep_fn prep, void *prep_arg,
		   const char *what, char *msg, size_t len);
/* Wait for the batch in flight: 0, or its -errno with the reason in msg. */
int kt_sender_wait(struct kt_sender *s, char *msg, size_t len);

#endif
