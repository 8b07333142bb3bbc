/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batches sent by a few threads, each with a connection of its own, while
 * the caller makes the next ones: the server's time on the batches in
 * flight and ours on the next overlap.  A batch goes to whichever thread
 * is idle, so one table's last batch need not wait behind its others,
 * nor behind another table's.  A batch's failure is returned by the next
 * call.
 */
#ifndef KT_PUSH_SENDER_H
#define KT_PUSH_SENDER_H

#include <stddef.h>

struct kt_block;
struct kt_ch;
struct kt_sender;

/* n threads, each on a connection like ch's.  NULL and errno on failure. */
struct kt_sender *kt_sender_new(const struct kt_ch *ch, int n);
/* Waits for the batches in flight, then stops the threads. */
void kt_sender_free(struct kt_sender *s);
/*
 * Run on the sending thread and its connection before a batch goes (its
 * table made or checked there, not on the caller's; two batches of a
 * table may run it at once): 0, or -errno with the reason in msg, and
 * the batch is not sent.
 */
typedef int (*kt_sender_prep_fn)(void *arg, struct kt_ch *ch, char *msg, size_t len);

/*
 * Wait for an idle thread; on a failure of a batch before, return its
 * -errno with the reason in msg.  Else the thread takes sql (an INSERT
 * ... FORMAT Native) and starts sending block's rows, after
 * prep(prep_arg, ...) when prep is given; 0.  block is the sender's
 * until kt_sender_wait_block() for it returns: it sends it as it is, then
 * clears it (or frees it, kt_block_sent()).
 */
int kt_sender_send(struct kt_sender *s, const char *sql, struct kt_block *block,
		   kt_sender_prep_fn prep, void *prep_arg,
		   const char *what, char *msg, size_t len);
/* Wait until block is not being sent: 0, or a failure's -errno with its reason in msg. */
int kt_sender_wait_block(struct kt_sender *s, const struct kt_block *block, char *msg, size_t len);
/* Wait for every batch in flight: 0, or the first failure's -errno with its reason in msg. */
int kt_sender_wait(struct kt_sender *s, char *msg, size_t len);

#endif
