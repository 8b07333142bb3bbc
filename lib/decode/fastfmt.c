// SPDX-License-Identifier: GPL-2.0
/* The formatter's handle, and each event's program, compiled on first use. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode/fastfmt-int.h"

struct kt_fastfmt *kt_fastfmt_new(struct tep_handle *tep)
{
	struct kt_fastfmt *ff;

	if (!tep) {
		errno = EINVAL;
		return NULL;
	}
	ff = calloc(1, sizeof(*ff));
	if (!ff)
		return NULL;
	ff->tep = tep;
	ff->usable = tep_get_long_size(tep) == (int)sizeof(long) &&
		sizeof(long) == 8 &&
		tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	return ff;
}

void kt_fastfmt_free(struct kt_fastfmt *ff)
{
	struct arena_blk *b, *next;

	if (!ff)
		return;
	for (b = ff->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	if (ff->printk) {
		int i;

		for (i = 0; i < PRINTK_SLOTS; i++)
			free(ff->printk[i].str);
		free(ff->printk);
	}
	free(ff->progs);
	free(ff->scratch);
	free(ff->frames);
	free(ff->stacks);
	free(ff->ustacks);
	free(ff);
}

struct ff_prog *ff_prog_of(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg;

	if (ev->id < 0 || ev->id > 1 << 20)
		return NULL;
	if (ev->id >= ff->nprogs) {
		int n = ff->nprogs ? ff->nprogs : 256;
		struct ff_prog **np;

		while (n <= ev->id)
			n *= 2;
		np = realloc(ff->progs, sizeof(*np) * (size_t)n);
		if (!np)
			return NULL;
		memset(np + ff->nprogs, 0, sizeof(*np) * (size_t)(n - ff->nprogs));
		ff->progs = np;
		ff->nprogs = n;
	}
	pg = ff->progs[ev->id];
	if (pg && pg->ev == ev)
		return pg;
	pg = ff_compile(ff, ev);
	if (pg)
		ff_mark_fixed(pg);
	ff->progs[ev->id] = pg;
	return pg;
}

int kt_fastfmt_compiled(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg = ff_prog_of(ff, ev);

	return pg && !pg->why;
}

const char *kt_fastfmt_reason(struct kt_fastfmt *ff, struct tep_event *ev)
{
	struct ff_prog *pg = ff_prog_of(ff, ev);

	if (!pg)
		return "out of memory";
	return pg->why ? pg->why : "";
}
