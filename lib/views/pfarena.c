// SPDX-License-Identifier: GPL-2.0
/*
 * A packet's memory, in chunks reused from packet to packet.  See pfarena.h.
 */
#include <stdlib.h>
#include <string.h>

#include "views/pfarena.h"

#define CHUNK (64 * 1024)

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(8) unsigned char data[];
};

struct kt_pfarena {
	struct chunk *head;	/* in use: the one handing out */
	struct chunk *spare;	/* emptied by a reset */
};

struct kt_pfarena *kt_pfarena_new(void)
{
	return calloc(1, sizeof(struct kt_pfarena));
}

static void free_chunks(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		free(c);
		c = next;
	}
}

void kt_pfarena_free(struct kt_pfarena *a)
{
	if (!a)
		return;
	free_chunks(a->head);
	free_chunks(a->spare);
	free(a);
}

void *kt_pfarena_alloc(struct kt_pfarena *a, size_t n)
{
	struct chunk *c = a->head;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		if (a->spare && n <= a->spare->size) {
			c = a->spare;
			a->spare = c->next;
		} else {
			size_t size = n > CHUNK ? n : CHUNK;

			c = malloc(sizeof(*c) + size);
			if (!c)
				return NULL;
			c->size = size;
		}
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *kt_pfarena_strndup(struct kt_pfarena *a, const char *s, size_t len)
{
	size_t n = strnlen(s, len);
	char *d = kt_pfarena_alloc(a, n + 1);

	if (d)
		memcpy(d, s, n);
	return d;
}

void kt_pfarena_reset(struct kt_pfarena *a)
{
	struct chunk *c = a->head;

	while (c) {
		struct chunk *next = c->next;

		/* Big one-off pieces go; the chunks are kept. */
		if (c->size > CHUNK) {
			free(c);
		} else {
			c->next = a->spare;
			a->spare = c;
		}
		c = next;
	}
	a->head = NULL;
}
