// SPDX-License-Identifier: GPL-2.0
/*
 * dat-zlib IN OUT: rewrite a trace.dat v7 file (none or zstd) as a v7
 * file compressed with zlib, section by section and chunk by chunk, the
 * way trace-cmd lays out compressed files.  trace-cmd here is built
 * without zlib, so this is how the tests get a zlib file to read.
 * Test tool only: it trusts its input (a file trace-cmd just wrote).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#define PAGES_PER_CHUNK 10

static unsigned char *in;
static size_t in_len;
static int zstd_in;
static uint32_t page_size;

static FILE *out;
static uint64_t out_pos;

static void die(const char *msg)
{
	fprintf(stderr, "dat-zlib: %s\n", msg);
	exit(1);
}

static uint16_t g16(size_t o) { uint16_t v; memcpy(&v, in + o, 2); return v; }
static uint32_t g32(size_t o) { uint32_t v; memcpy(&v, in + o, 4); return v; }
static uint64_t g64(size_t o) { uint64_t v; memcpy(&v, in + o, 8); return v; }

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("write failed");
	out_pos += n;
}

static void p16(uint16_t v) { put(&v, 2); }
static void p32(uint32_t v) { put(&v, 4); }
static void p64(uint64_t v) { put(&v, 8); }

static void unpack(const unsigned char *src, size_t slen, unsigned char *dst, size_t dlen)
{
	if (ZSTD_decompress(dst, dlen, src, slen) != dlen)
		die("zstd unpack failed");
}

/* The content of the section at off (unpacked), its id in *id. */
static unsigned char *section(uint64_t off, uint16_t *id, size_t *len)
{
	uint16_t flags = g16(off + 2);
	uint64_t size = g64(off + 8);
	unsigned char *buf;

	*id = g16(off);
	if (flags & 1) {
		uint32_t cs = g32(off + 16), us = g32(off + 20);

		buf = malloc(us ? us : 1);
		unpack(in + off + 24, cs, buf, us);
		*len = us;
	} else {
		buf = malloc(size ? size : 1);
		memcpy(buf, in + off + 16, size);
		*len = size;
	}
	return buf;
}

/* Write a zlib-compressed section; returns its offset. */
static uint64_t write_section(uint16_t id, const unsigned char *data, size_t len)
{
	uLongf clen = compressBound(len);
	unsigned char *z = malloc(clen);
	uint64_t at = out_pos;

	if (compress2(z, &clen, data, len, 9) != Z_OK)
		die("zlib failed");
	p16(id);
	p16(1);
	p32(0);
	p64(8 + clen);
	p32((uint32_t)clen);
	p32((uint32_t)len);
	put(z, clen);
	free(z);
	return at;
}

/* One CPU's raw data, unpacked: appended to *buf. */
static unsigned char *cpu_data(uint64_t off, uint64_t size, int packed, size_t *len)
{
	unsigned char *buf = NULL;
	size_t n = 0;

	if (!packed) {
		buf = malloc(size ? size : 1);
		memcpy(buf, in + off, size);
		*len = size;
		return buf;
	}
	uint32_t count = g32(off), i;
	size_t o = off + 4;

	for (i = 0; i < count; i++) {
		uint32_t cs = g32(o), us = g32(o + 4);

		buf = realloc(buf, n + us);
		unpack(in + o + 8, cs, buf + n, us);
		n += us;
		o += 8 + cs;
	}
	*len = n;
	return buf;
}

struct opt {
	uint16_t id;
	uint32_t len;
	unsigned char *data;
};

int main(int argc, char **argv)
{
	struct opt opts[256];
	int nopts = 0, i;
	uint64_t off, sec_new[32] = { 0 };
	FILE *f;
	size_t p;

	if (argc != 3)
		die("usage: dat-zlib IN OUT");
	f = fopen(argv[1], "rb");
	if (!f)
		die("cannot open input");
	fseek(f, 0, SEEK_END);
	in_len = (size_t)ftell(f);
	rewind(f);
	in = malloc(in_len);
	if (fread(in, 1, in_len, f) != in_len)
		die("short read");
	fclose(f);
	if (memcmp(in + 3, "tracing7", 9) || in[12] != 0)
		die("not a little-endian v7 file");
	page_size = g32(14);
	p = 18;
	zstd_in = !strcmp((char *)in + p, "zstd");
	p += strlen((char *)in + p) + 1;
	p += strlen((char *)in + p) + 1;
	off = g64(p);

	out = fopen(argv[2], "wb");
	if (!out)
		die("cannot create output");
	put(in, 18);
	put("zlib\0" ZLIB_VERSION, 6 + strlen(ZLIB_VERSION));
	uint64_t opt_ptr = out_pos;
	p64(0);

	/* Gather every option of the chain; re-write what they point at. */
	while (off) {
		uint16_t id;
		size_t len, q = 0;
		unsigned char *o = section(off, &id, &len);

		off = 0;
		while (q + 6 <= len) {
			uint16_t oid;
			uint32_t olen;

			memcpy(&oid, o + q, 2);
			memcpy(&olen, o + q + 2, 4);
			q += 6;
			if (oid == 0) {
				memcpy(&off, o + q, 8);
				break;
			}
			opts[nopts].id = oid;
			opts[nopts].len = olen;
			opts[nopts].data = malloc(olen);
			memcpy(opts[nopts].data, o + q, olen);
			nopts++;
			q += olen;
		}
		free(o);
	}
	for (i = 0; i < nopts; i++) {
		struct opt *o = &opts[i];

		if (o->id >= 16 && o->id <= 21) {
			uint64_t at;
			uint16_t sid;
			size_t len;
			unsigned char *d;

			memcpy(&at, o->data, 8);
			d = section(at, &sid, &len);
			sec_new[o->id] = write_section(sid, d, len);
			memcpy(o->data, &sec_new[o->id], 8);
			free(d);
		} else if (o->id == 3) {
			/* BUFFER: offset, name, clock, page size, cpus, (cpu, off, size)* */
			unsigned char *d = o->data;
			uint64_t boff;
			size_t q = 8;
			uint32_t ncpu, c;
			int packed;

			memcpy(&boff, d, 8);
			packed = g16(boff + 2) & 1;
			q += strlen((char *)d + q) + 1;
			q += strlen((char *)d + q) + 1;
			q += 4;
			memcpy(&ncpu, d + q, 4);
			q += 4;
			/* Section header, then each CPU's chunks. */
			uint64_t sec_at = out_pos;
			p16(3);
			p16(1);
			p32(0);
			p64(0);
			for (c = 0; c < ncpu; c++) {
				uint64_t coff, csize, start;
				size_t len, k;
				unsigned char *raw;
				uint32_t nchunks = 0;

				memcpy(&coff, d + q + 4, 8);
				memcpy(&csize, d + q + 12, 8);
				raw = cpu_data(coff, csize, packed && zstd_in, &len);
				start = out_pos;
				nchunks = (uint32_t)((len + page_size * PAGES_PER_CHUNK - 1) /
						     (page_size * PAGES_PER_CHUNK));
				p32(nchunks);
				for (k = 0; k < len; k += page_size * PAGES_PER_CHUNK) {
					size_t n = len - k < page_size * PAGES_PER_CHUNK ?
						   len - k : page_size * PAGES_PER_CHUNK;
					uLongf cl = compressBound(n);
					unsigned char *z = malloc(cl);

					if (compress2(z, &cl, raw + k, n, 9) != Z_OK)
						die("zlib failed");
					p32((uint32_t)cl);
					p32((uint32_t)n);
					put(z, cl);
					free(z);
				}
				free(raw);
				/* trace-cmd's size leaves out the chunk count. */
				csize = len ? out_pos - start - 4 : 0;
				coff = start;
				memcpy(d + q + 4, &coff, 8);
				memcpy(d + q + 12, &csize, 8);
				q += 20;
			}
			uint64_t sec_size = out_pos - sec_at - 16;

			fflush(out);
			fseek(out, (long)sec_at + 8, SEEK_SET);
			fwrite(&sec_size, 8, 1, out);
			fseek(out, 0, SEEK_END);
			memcpy(d, &sec_at, 8);
		}
	}
	/* One compressed options section holding them all. */
	unsigned char *ob = NULL;
	size_t olen = 0;

	for (i = 0; i < nopts; i++) {
		ob = realloc(ob, olen + 6 + opts[i].len);
		memcpy(ob + olen, &opts[i].id, 2);
		memcpy(ob + olen + 2, &opts[i].len, 4);
		memcpy(ob + olen + 6, opts[i].data, opts[i].len);
		olen += 6 + opts[i].len;
	}
	ob = realloc(ob, olen + 14);
	memset(ob + olen, 0, 14);
	ob[olen + 2] = 8;
	olen += 14;
	uint64_t opt_at = write_section(0, ob, olen);

	fflush(out);
	fseek(out, (long)opt_ptr, SEEK_SET);
	fwrite(&opt_at, 8, 1, out);
	if (fclose(out))
		die("write failed");
	return 0;
}
