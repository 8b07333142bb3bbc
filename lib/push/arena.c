// SPDX-License-Identifier: GPL-2.0
/*
 * Pieces from 2 MB-page mappings.  See arena.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base/lsan.h"
#include "push/arena.h"

/*
 * Under ASan the arena's bytes not handed out are poisoned, and each piece
 * is followed by ALIGN of them: a write past a piece's end is caught, as
 * it is past a block of malloc's.
 */
#ifdef KT_LSAN
#include <sanitizer/asan_interface.h>
#define poison(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define unpoison(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define poison(p, n)	do { (void)(p); (void)(n); } while (0)
#define unpoison(p, n)	do { (void)(p); (void)(n); } while (0)
#endif

#define HUGE_PAGE	(2ul << 20)
#define REGION		(32ul << 20)	/* a mapping's bytes, or a piece's if more */
#define ALIGN		64ul

struct region {
	struct region *next;
	unsigned char *p;
	size_t len;
};

struct kt_arena {
	struct region *regions;		/* the newest first */
	unsigned char *at, *end;	/* what the newest has left */
};

struct kt_arena *kt_arena_new(void)
{
	return calloc(1, sizeof(struct kt_arena));
}

void kt_arena_free(struct kt_arena *a)
{
	struct region *r, *next;

	if (!a)
		return;
	for (r = a->regions; r; r = next) {
		next = r->next;
		unpoison(r->p, r->len);
		munmap(r->p, r->len);
		free(r);
	}
	free(a);
}

/* A mapping of len bytes (a multiple of 2 MB) that starts on a 2 MB boundary. */
static unsigned char *map_aligned(size_t len)
{
	unsigned char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (m == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (a > (uintptr_t)m)
		munmap(m, a - (uintptr_t)m);
	munmap((unsigned char *)a + len, (uintptr_t)m + HUGE_PAGE - a);
	/* A hint: a kernel without transparent huge pages says EINVAL, and 4 KB pages it is. */
	madvise((void *)a, len, MADV_HUGEPAGE);
	return (unsigned char *)a;
}

static int add_region(struct kt_arena *a, size_t n)
{
	size_t len = n > REGION ? (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1) : REGION;
	struct region *r = malloc(sizeof(*r));

	if (!r || len < n)
		goto err;
	r->p = map_aligned(len);
	if (!r->p)
		goto err;
	r->len = len;
	poison(r->p, len);
	r->next = a->regions;
	a->regions = r;
	a->at = r->p;
	a->end = r->p + len;
	return 0;

err:
	free(r);
	return -1;
}

void *kt_arena_take(struct kt_arena *a, size_t n)
{
	size_t span = ((n + ALIGN - 1) & ~(ALIGN - 1)) + ALIGN;
	void *p;

	if (!n || span < n)
		return NULL;
	if ((size_t)(a->end - a->at) < span && add_region(a, span))
		return NULL;
	p = a->at;
	a->at += span;
	unpoison(p, n);
	return p;
}
