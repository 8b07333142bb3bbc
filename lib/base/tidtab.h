/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table by thread id: open addressing with linear probing, entries of
 * one size that each begin with an int tid (0: a free slot), never
 * removed (an entry is reset by its owner).  The trigger's open system
 * calls (live/trigger/watch.c) and waits (waits.c) look a thread up on
 * each record, so the lookup is inline and allocates nothing but the
 * doublings; a table it cannot grow stops adding at one free slot, so
 * a probe always ends.
 */
#ifndef KT_TIDTAB_H
#define KT_TIDTAB_H

#include <stddef.h>

struct kt_tidtab {
	unsigned char *v;
	size_t esize;			/* an entry's bytes, its int tid first */
	size_t size, used;		/* slots (a power of two), taken */
};

/* 0, or -ENOMEM. */
int kt_tidtab_init(struct kt_tidtab *t, size_t esize);
void kt_tidtab_fini(struct kt_tidtab *t);
/* Twice the slots, the entries moved over; on ENOMEM the table stays. */
void kt_tidtab_grow(struct kt_tidtab *t);

/* tid's entry, or the free slot where it would go (its tid 0). */
static inline void *kt_tidtab_find(const struct kt_tidtab *t, int tid)
{
	size_t i = ((unsigned int)tid * 2654435761u) & (t->size - 1);
	unsigned char *e;

	for (;;) {
		e = t->v + i * t->esize;
		if (!*(int *)e || *(int *)e == tid)
			return e;
		i = (i + 1) & (t->size - 1);
	}
}

/* tid's entry, added (zeroed, but its tid) when missing; NULL: no room. */
static inline void *kt_tidtab_get(struct kt_tidtab *t, int tid)
{
	int *e;

	if (t->used * 2 >= t->size)
		kt_tidtab_grow(t);
	e = kt_tidtab_find(t, tid);
	if (!*e) {
		if (t->used + 1 >= t->size)
			return NULL;
		*e = tid;
		t->used++;
	}
	return e;
}

#endif
