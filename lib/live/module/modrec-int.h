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
};

struct kt_modrec {
	int ncpus;
	int page_size;
	char *tmpdir;
	struct modrec_cpu *cpus;
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
