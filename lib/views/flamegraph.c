// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph SVG of folded stacks.  See flamegraph.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "views/flamegraph.h"

#define WIDTH		1200.0	/* the picture, px */
#define PAD		10.0	/* left and right */
#define FRAME_H		16	/* one level */
#define TOP		50	/* title and subtitle */
#define MIN_W		0.1	/* narrower frames are not drawn */
#define CHAR_W		7.0	/* of the 12px monospace text, about */

/* One frame of the merged stacks: a name at a depth, below its children. */
struct node {
	char *name;
	unsigned long long count;	/* itself and every frame above */
	unsigned long long before;	/* a differential graph's: in A */
	struct node **kids;		/* sorted by name when drawn */
	size_t nkids, cap;
};

struct graph {
	struct node root;
	int depth;			/* the deepest level, root 0 */
	int err;
	bool diff;			/* colours by growth from before */
	bool adding_before;		/* stacks go to before, not count */
};

static struct node *kid(struct node *n, const char *name, size_t len)
{
	struct node *k, **v;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (!strncmp(n->kids[i]->name, name, len) && !n->kids[i]->name[len])
			return n->kids[i];
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 4;

		v = realloc(n->kids, cap * sizeof(*v));
		if (!v)
			return NULL;
		n->kids = v;
		n->cap = cap;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->name = strndup(name, len);
	if (!k->name) {
		free(k);
		return NULL;
	}
	n->kids[n->nkids++] = k;
	return k;
}

/* Add "a;b;c COUNT" along the path root -> a -> b -> c. */
static int add_stack(const char *key, unsigned long long count, void *arg)
{
	struct graph *g = arg;
	struct node *n = &g->root;
	const char *p = key, *semi;
	int depth = 0;

	*(g->adding_before ? &n->before : &n->count) += count;
	for (;;) {
		semi = strchr(p, ';');
		n = kid(n, p, semi ? (size_t)(semi - p) : strlen(p));
		if (!n)
			return -ENOMEM;
		*(g->adding_before ? &n->before : &n->count) += count;
		if (++depth > g->depth)
			g->depth = depth;
		if (!semi)
			return 0;
		p = semi + 1;
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static void put_escaped(FILE *out, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(s[i], out);
		}
	}
}

/*
 * A warm colour from the name, fixed: the same function has the same
 * colour in every graph (FNV-1a of the name).
 */
static void colour(const char *name, char *buf, size_t len)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50, 80 + (h >> 8) % 130,
		 (h >> 16) % 55);
}

/*
 * A differential graph's colour: red as the frame grew from A to B, blue
 * as it shrank, white unchanged; its share of the larger side.
 */
static void growth(const struct node *n, char *buf, size_t len)
{
	double a = (double)n->before, b = (double)n->count;
	double d = (b - a) / (a > b ? a : b);
	unsigned int fade = (unsigned int)(255 - 200 * (d < 0 ? -d : d));

	if (d >= 0)
		snprintf(buf, len, "rgb(255,%u,%u)", fade, fade);
	else
		snprintf(buf, len, "rgb(%u,%u,255)", fade, fade);
}

static void draw(struct graph *g, struct node *n, int depth, double x,
		 double px_per, const char *unit, FILE *out)
{
	double w = (double)n->count * px_per, y, cx;
	size_t i, fit;
	char fill[32];

	if (w < MIN_W)
		return;
	y = TOP + (double)(g->depth - depth) * FRAME_H;
	if (g->diff)
		growth(n, fill, sizeof(fill));
	else
		colour(n->name, fill, sizeof(fill));
	fprintf(out, "<g class=\"frame\" data-count=\"%llu\" data-depth=\"%d\"", n->count, depth);
	if (g->diff)
		fprintf(out, " data-before=\"%llu\"", n->before);
	fputs("><title>", out);
	put_escaped(out, n->name, SIZE_MAX);
	if (g->diff)
		fprintf(out, ": %llu %s, was %llu (%+lld)</title>", n->count, unit, n->before,
			(long long)(n->count - n->before));
	else
		fprintf(out, ": %llu %s, %.2f%%</title>", n->count, unit,
			100.0 * (double)n->count / (double)g->root.count);
	fprintf(out, "<rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
		x, y, w, FRAME_H - 1, depth || g->diff ? fill : "rgb(200,200,200)");
	fit = (size_t)((w - 6) / CHAR_W);
	if (fit >= 3) {
		fprintf(out, "<text x=\"%.3f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4);
		if (strlen(n->name) <= fit) {
			put_escaped(out, n->name, SIZE_MAX);
		} else {
			put_escaped(out, n->name, fit - 2);
			fputs("..", out);
		}
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), cmp_name);
	for (i = 0, cx = x; i < n->nkids; i++) {
		draw(g, n->kids[i], depth + 1, cx, px_per, unit, out);
		cx += (double)n->kids[i]->count * px_per;
	}
}

static void free_node(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		free_node(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

/* The SVG of g, its stacks added. */
static int write_graph(struct graph *g, const char *title, const char *unit,
		       FILE *out)
{
	double height = TOP + (double)(g->depth + 1) * FRAME_H + PAD;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flamegraph\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"data-total=\"%llu\" data-unit=\"%s\" data-px-per-count=\"%.9g\">\n",
		WIDTH, height, WIDTH, height, g->root.count, unit,
		g->root.count ? (WIDTH - 2 * PAD) / (double)g->root.count : 0.0);
	fputs("<style>text { font: 12px monospace; fill: #000; pointer-events: none; }"
	      " .frame:hover rect { stroke: #000; stroke-width: 0.5; }"
	      " .title { font: 17px sans-serif; } .sub { font: 12px sans-serif; fill: #555; }</style>\n",
	      out);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(250,250,240)\"/>\n"
		"<text class=\"title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\">", WIDTH / 2);
	put_escaped(out, title, SIZE_MAX);
	if (g->diff)
		fprintf(out, "</text>\n<text class=\"sub\" x=\"%.0f\" y=\"40\" text-anchor=\"middle\">"
			"%llu %s in all, %llu before; red grew, blue shrank; hover a frame for both</text>\n",
			WIDTH / 2, g->root.count, unit, g->root.before);
	else
		fprintf(out, "</text>\n<text class=\"sub\" x=\"%.0f\" y=\"40\" text-anchor=\"middle\">"
			"%llu %s in all; hover a frame for its share</text>\n",
			WIDTH / 2, g->root.count, unit);
	if (g->root.count)
		draw(g, &g->root, 0, PAD, (WIDTH - 2 * PAD) / (double)g->root.count, unit, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int kt_flamegraph_write(struct kt_folded *f, const char *title,
			const char *unit, FILE *out)
{
	struct graph g = { 0 };
	int ret;

	g.root.name = strdup("all");
	if (!g.root.name)
		return -ENOMEM;
	ret = kt_folded_each(f, add_stack, &g);
	if (!ret)
		ret = write_graph(&g, title, unit, out);
	free_node(&g.root);
	return ret;
}

int kt_flamegraph_write_diff(struct kt_folded *a, struct kt_folded *b,
			     const char *title, const char *unit, FILE *out)
{
	struct graph g = { .diff = true };
	int ret;

	g.root.name = strdup("all");
	if (!g.root.name)
		return -ENOMEM;
	ret = kt_folded_each(b, add_stack, &g);
	g.adding_before = true;
	if (!ret)
		ret = kt_folded_each(a, add_stack, &g);
	if (!ret)
		ret = write_graph(&g, title, unit, out);
	free_node(&g.root);
	return ret;
}
