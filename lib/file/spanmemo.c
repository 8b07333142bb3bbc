// SPDX-License-Identifier: GPL-2.0
/*
 * The spans of finished files' CPU data (spanmemo.h).  Finding where a
 * packed CPU's data ends walks the header of every block in it (an
 * 8-byte read each); a trigger's ring does that for every chunk in a
 * snapshot's window at every snapshot, the same unchanged files each
 * time.  A file is known by its device, inode, size and both times to
 * the nanosecond: a chunk is written under another name and renamed, so
 * the file a name holds is never changed in place, and an inode number
 * the filesystem gives again comes with a new file's times.  A small
 * table, one lock: readers of several threads share it.
 */
#include <pthread.h>
#include <string.h>

#include "file/spanmemo.h"

#define MEMOS	128		/* a ring's chunks times its CPUs, with room */

struct memo {
	dev_t dev;
	ino_t ino;
	off_t fsize;
	struct timespec mtime, ctime;
	uint64_t off, size, first, last;
	uint64_t used;		/* 0: a free slot */
};

static struct memo memos[MEMOS];
static uint64_t clock_of_use;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool matches(const struct memo *m, const struct stat *st, uint64_t off,
		    uint64_t size)
{
	return m->used && m->dev == st->st_dev && m->ino == st->st_ino &&
	       m->fsize == st->st_size && same_time(&m->mtime, &st->st_mtim) &&
	       same_time(&m->ctime, &st->st_ctim) && m->off == off &&
	       m->size == size;
}

bool kt_spanmemo_get(const struct stat *st, uint64_t off, uint64_t size,
		     uint64_t *first, uint64_t *last)
{
	bool found = false;
	int i;

	pthread_mutex_lock(&memo_lock);
	for (i = 0; i < MEMOS && !found; i++) {
		if (!matches(&memos[i], st, off, size))
			continue;
		*first = memos[i].first;
		*last = memos[i].last;
		memos[i].used = ++clock_of_use;
		found = true;
	}
	pthread_mutex_unlock(&memo_lock);
	return found;
}

void kt_spanmemo_put(const struct stat *st, uint64_t off, uint64_t size,
		     uint64_t first, uint64_t last)
{
	struct memo *m = &memos[0];
	int i;

	pthread_mutex_lock(&memo_lock);
	for (i = 1; i < MEMOS && m->used; i++)
		if (memos[i].used < m->used)
			m = &memos[i];
	*m = (struct memo){
		.dev = st->st_dev, .ino = st->st_ino, .fsize = st->st_size,
		.mtime = st->st_mtim, .ctime = st->st_ctim,
		.off = off, .size = size, .first = first, .last = last,
		.used = ++clock_of_use,
	};
	pthread_mutex_unlock(&memo_lock);
}
