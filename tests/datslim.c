// SPDX-License-Identifier: GPL-2.0
/*
 * datslim IN OUT NAMES: rewrite a little-endian trace.dat v6 file with its
 * kallsyms cut down to the symbols named in NAMES (one word a line) and the
 * symbol after each (which bounds it), and its saved cmdlines to the pids
 * named in NAMES, so that a corpus file holds a few kilobytes of them
 * instead of megabytes.  Every other byte is kept: the CPU data moves up by
 * whole pages, and the offsets that point at it (the flyrecord tables, the
 * BUFFER options) move with it.
 *
 * tests/data/make-corpus.sh gives NAMES as every word of trace-cmd's
 * report of IN, and checks that trace-cmd prints the same report for OUT.
 * Test tool only: it trusts its input (a file trace-cmd or ktrace wrote).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *in;
static size_t in_len;

static void die(const char *msg)
{
	fprintf(stderr, "datslim: %s\n", msg);
	exit(1);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		die("cannot open input");
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* The little-endian number of n bytes (4 or 8) at in + o. */
static uint64_t get(size_t o, size_t n)
{
	uint64_t v = 0;

	if (o + n > in_len)
		die("truncated");
	memcpy(&v, in + o, n);
	return v;
}

#define g32(o) ((uint32_t)get(o, 4))
#define g64(o) get(o, 8)

static char **names;
static size_t nnames;

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int wanted(const char *name)
{
	return bsearch(&name, names, nnames, sizeof(*names), cmpstr) != NULL;
}

struct sym {
	uint64_t addr;
	const char *line;
	size_t len;
	int keep;
};

static int cmpsym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kept lines of kallsyms text KS (len n), into a new buffer. */
static char *slim_kallsyms(const char *ks, size_t n, size_t *out_len)
{
	struct sym *s = NULL;
	size_t ns = 0, cap = 0, i, o = 0;
	const char *p = ks, *end = ks + n;
	char *out;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char name[512];
		unsigned long long a;
		char type;

		nl = nl ? nl + 1 : end;
		if (ns == cap) {
			cap = cap ? cap * 2 : 4096;
			s = realloc(s, cap * sizeof(*s));
			if (!s)
				die("out of memory");
		}
		if (sscanf(p, "%llx %c %511s", &a, &type, name) == 3) {
			s[ns] = (struct sym){ a, p, nl - p, wanted(name) };
			ns++;
		}
		p = nl;
	}
	qsort(s, ns, sizeof(*s), cmpsym);
	for (i = 0; i + 1 < ns; i++)
		if (s[i].keep == 1 && !s[i + 1].keep)
			s[i + 1].keep = 2;
	out = malloc(n + 1);
	if (!out)
		die("out of memory");
	for (i = 0; i < ns; i++)
		if (s[i].keep) {
			memcpy(out + o, s[i].line, s[i].len);
			o += s[i].len;
		}
	free(s);
	*out_len = o;
	return out;
}

/* The lines of saved cmdlines text CL (len n) whose pid is in NAMES. */
static char *slim_cmdlines(const char *cl, size_t n, size_t *out_len)
{
	const char *p = cl, *end = cl + n;
	char *out = malloc(n + 1);
	size_t o = 0;

	if (!out)
		die("out of memory");
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char pid[32];

		nl = nl ? nl + 1 : end;
		if (sscanf(p, "%31s", pid) == 1 && wanted(pid)) {
			memcpy(out + o, p, nl - p);
			o += nl - p;
		}
		p = nl;
	}
	*out_len = o;
	return out;
}

static void load_names(const char *path)
{
	size_t len, cap = 0;
	char *t = (char *)slurp(path, &len), *line;

	for (line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
		if (nnames == cap) {
			cap = cap ? cap * 2 : 4096;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				die("out of memory");
		}
		names[nnames++] = line;
	}
	qsort(names, nnames, sizeof(*names), cmpstr);
}

int main(int argc, char **argv)
{
	size_t o, ks_at, ks_len, slim_len, hdr_end, region = SIZE_MAX, new_region;
	size_t buf_at[64], nbuf = 0, fly_at, i, j, delta, page, cl_at, cl_len, cls_len;
	uint32_t n, cpus, k;
	unsigned char *out;
	char *slim, *cls;
	FILE *f;

	if (argc != 4)
		die("usage: datslim IN OUT NAMES");
	in = slurp(argv[1], &in_len);
	load_names(argv[3]);
	if (in_len < 20 || memcmp(in, "\x17\x08\x44tracing6", 11) || in[12] != 0)
		die("not a little-endian trace.dat v6 file");
	page = g32(14);
	o = 18;
	if (memcmp(in + o, "header_page", 12))
		die("no header_page");
	o += 12;
	o += 8 + g64(o);
	if (memcmp(in + o, "header_event", 13))
		die("no header_event");
	o += 13;
	o += 8 + g64(o);
	for (n = g32(o), o += 4; n; n--)	/* ftrace formats */
		o += 8 + g64(o);
	for (n = g32(o), o += 4; n; n--) {	/* event systems */
		o += strlen((char *)in + o) + 1;
		for (k = g32(o), o += 4; k; k--)
			o += 8 + g64(o);
	}
	ks_at = o;
	ks_len = g32(o);
	o += 4 + ks_len;
	o += 4 + g32(o);			/* printk formats */
	cl_at = o;				/* saved cmdlines */
	cl_len = g64(o);
	o += 8 + cl_len;
	cpus = g32(o);
	o += 4;
	if (!memcmp(in + o, "options  ", 10)) {
		for (o += 10;;) {
			uint16_t id = in[o] | in[o + 1] << 8;
			uint32_t sz;

			o += 2;
			if (!id)
				break;
			sz = g32(o);
			o += 4;
			if (id == 3) {		/* BUFFER: offset, name */
				if (nbuf == 64)
					die("too many buffers");
				buf_at[nbuf++] = o;
			}
			o += sz;
		}
	}
	if (memcmp(in + o, "flyrecord", 10))
		die("not a flyrecord file");
	fly_at = o + 10;
	hdr_end = fly_at + 16 * (size_t)cpus;
	for (i = 0; i < cpus; i++)
		if (g64(fly_at + 16 * i + 8) && g64(fly_at + 16 * i) < region)
			region = g64(fly_at + 16 * i);
	for (i = 0; i < nbuf; i++)
		if (g64(buf_at[i]) < region)
			region = g64(buf_at[i]);
	if (region == SIZE_MAX)
		region = in_len;
	if (region < hdr_end || region > in_len)
		die("data before the end of the header");

	slim = slim_kallsyms((char *)in + ks_at + 4, ks_len, &slim_len);
	cls = slim_cmdlines((char *)in + cl_at + 8, cl_len, &cls_len);
	delta = (ks_len - slim_len + cl_len - cls_len) / page * page;
	new_region = region - delta;
	out = calloc(1, in_len - delta);
	if (!out)
		die("out of memory");
	memcpy(out, in, ks_at);
	memcpy(out + ks_at, &(uint32_t){ slim_len }, 4);
	memcpy(out + ks_at + 4, slim, slim_len);
	j = ks_at + 4 + slim_len;
	memcpy(out + j, in + ks_at + 4 + ks_len, cl_at - (ks_at + 4 + ks_len));
	j += cl_at - (ks_at + 4 + ks_len);
	memcpy(out + j, &(uint64_t){ cls_len }, 8);
	memcpy(out + j + 8, cls, cls_len);
	j += 8 + cls_len;
	memcpy(out + j, in + cl_at + 8 + cl_len, hdr_end - (cl_at + 8 + cl_len));
	if (j + hdr_end - (cl_at + 8 + cl_len) > new_region)
		die("internal: header overlaps data");
	memcpy(out + new_region, in + region, in_len - region);

	/* Patch the offsets, now in out: SHIFT(x) is where in's byte x went. */
#define SHIFT(x) ((x) < ks_at + 4 + ks_len ? (x) : \
		  (x) < cl_at + 8 + cl_len ? (x) - (ks_len - slim_len) : \
		  (x) < region ? (x) - (ks_len - slim_len) - (cl_len - cls_len) : \
		  (x) - delta)
	for (i = 0; i < cpus; i++) {
		size_t at = SHIFT(fly_at + 16 * i);
		uint64_t v = g64(fly_at + 16 * i);

		if (v >= region)
			v -= delta;
		memcpy(out + at, &v, 8);
	}
	for (i = 0; i < nbuf; i++) {
		uint64_t v = g64(buf_at[i]), w;

		memcpy(out + SHIFT(buf_at[i]), &(uint64_t){ v - delta }, 8);
		if (memcmp(in + v, "flyrecord", 10))
			die("a BUFFER option points at no flyrecord table");
		for (k = 0; k < cpus; k++) {
			w = g64(v + 10 + 16 * k);
			if (w >= region)
				w -= delta;
			memcpy(out + v - delta + 10 + 16 * k, &w, 8);
		}
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out, 1, in_len - delta, f) != in_len - delta || fclose(f))
		die("cannot write output");
	fprintf(stderr, "datslim: kallsyms %zu -> %zu bytes, cmdlines %zu -> %zu, file %zu -> %zu\n",
		ks_len, slim_len, cl_len, cls_len, in_len, in_len - delta);
	return 0;
}
