/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kt_modrec's private header, shared by lib/live/module/modrec.c (the readers
 * and the merge) and lib/live/module/modcomms.c (the names in their pages)
 * only; the public API is modrec.h.
 */
#ifndef KT_MODREC_INT_H
#define KT_MODREC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "live/module/modrec.h"

struct kbuffer;
struct kt_modring;

struct modrec_cpu {
	struct kt_modrec *mr;
	int cpu;
	int in_fd;
	int out_fd;
	int merged_fd;
	atomic_ullong bytes;
	pthread_t thread;
	bool started;
	int err;
	struct kt_modring *ring;
	unsigned long long missed;	/* told, not yet put in a page */
	/* bytes when out_fd was begun: out_fd holds bytes - base. */
	atomic_ullong base;
	/* A rotation (kt_modrec_rotate): the next file, the one left. */
	int rot_fd;			/* eventfd: wakes the waiting reader */
	atomic_bool rot_req;		/* cut now */
	int next_fd, old_fd;
	unsigned long long old_size;
	bool switched;			/* under mr->lock */
	bool exited;			/* the thread returned; under mr->lock */
	/* Records read before a chunk's cut time, after it: the next one's. */
	int carry_fd;
	unsigned long long carry_size;
	/* A snapshot (kt_modrec_flush): out_fd's bytes once flushed. */
	atomic_bool flush_req;		/* flush now */
	bool flushed;			/* under mr->lock */
	unsigned long long flushed_size;
};

struct kt_modrec {
	int ncpus;
	int page_size;
	char *tmpdir;
	struct modrec_cpu *cpus;
	/* Held by a reader while it writes a batch, and by a cut. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* A walk of the records of a file of pages, page by page. */
struct kt_modrec_cursor {
	int fd;
	unsigned long long size, off;
	char *page;
	struct kbuffer *kb;
	void *data;		/* the current record, NULL at the end */
	unsigned long long ts;
	bool missed;		/* events lost before the current page */
};

/* Load pages until one has a record; data NULL when none is left. */
int kt_modrec_cursor_load(struct kt_modrec_cursor *c, int page_size);
int kt_modrec_cursor_next(struct kt_modrec_cursor *c, int page_size);

#endif
