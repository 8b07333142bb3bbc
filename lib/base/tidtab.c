// SPDX-License-Identifier: GPL-2.0
/*
 * A table by thread id.  See tidtab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/tidtab.h"

int kt_tidtab_init(struct kt_tidtab *t, size_t esize)
{
	*t = (struct kt_tidtab){ .esize = esize, .size = 1024 };
	t->v = calloc(t->size, esize);
	return t->v ? 0 : -ENOMEM;
}

void kt_tidtab_fini(struct kt_tidtab *t)
{
	free(t->v);
	t->v = NULL;
}

void kt_tidtab_grow(struct kt_tidtab *t)
{
	struct kt_tidtab big = { .esize = t->esize, .size = t->size * 2, .used = t->used };
	size_t i;

	big.v = calloc(big.size, big.esize);
	if (!big.v)
		return;
	for (i = 0; i < t->size; i++) {
		unsigned char *e = t->v + i * t->esize;

		if (*(int *)e)
			memcpy(kt_tidtab_find(&big, *(int *)e), e, t->esize);
	}
	free(t->v);
	*t = big;
}
