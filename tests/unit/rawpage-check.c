// SPDX-License-Identifier: GPL-2.0
/*
 * rawpage-check [PAGES]: random well-formed ring-buffer pages (short and
 * long data records, discarded records, time extends, absolute time
 * stamps, tail padding), each walked by lib/file/rawpage.c's kt_rawpage_next()
 * and by libtraceevent's kbuffer; every record must agree: timestamp,
 * header offset, payload offset and size.  Prints "ok N records".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "file/rawpage.h"

#define PAGE	4096
#define HDR	16

static uint64_t seed = 88172645463325252ULL;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Fill a page with records; returns the committed length. */
static unsigned int fill(unsigned char *page)
{
	unsigned char *d = page + HDR;
	unsigned int pos = 0, cap = PAGE - HDR, len, i;
	uint64_t ts = rnd() >> (rnd() % 64), commit;

	memcpy(page, &ts, 8);
	while (pos + 140 < cap && rnd() % 50) {
		uint32_t delta = (uint32_t)(rnd() % 8 ? rnd() % 5000 : rnd()) & ((1u << 27) - 1);
		unsigned int kind = (unsigned int)(rnd() % 10);

		if (kind < 5) {			/* short data */
			len = 1 + (unsigned int)(rnd() % 28);
			put32(d + pos, len | delta << 5);
			for (i = 0; i < len * 4; i++)
				d[pos + 4 + i] = (unsigned char)rnd();
			pos += 4 + len * 4;
		} else if (kind < 7) {		/* long data, any length */
			len = 4 + (unsigned int)(rnd() % 120);
			put32(d + pos, 0 | delta << 5);
			put32(d + pos + 4, len + 4);
			for (i = 0; i < len; i++)
				d[pos + 8 + i] = (unsigned char)rnd();
			pos += 8 + ((len + 3) & ~3u);
		} else if (kind == 7) {		/* discarded record */
			len = 4 + 4 * (unsigned int)(rnd() % 20);
			put32(d + pos, 29 | (delta ? delta : 1) << 5);
			put32(d + pos + 4, len);
			pos += 4 + len;
		} else {			/* time extend / absolute stamp */
			put32(d + pos, (kind == 8 ? 30 : 31) | delta << 5);
			put32(d + pos + 4, (uint32_t)rnd());
			pos += 8;
		}
	}
	if (rnd() % 2 && pos + 8 <= cap) {	/* tail padding */
		put32(d + pos, 29);
		put32(d + pos + 4, cap - pos - 4);
		commit = rnd() % 2 ? cap : pos + 8;
	} else {
		commit = pos;
	}
	memcpy(page + 8, &commit, 8);
	return (unsigned int)commit;
}

int main(int argc, char **argv)
{
	static unsigned char page[PAGE + 64];
	static int32_t need[KT_RAWPAGE_IDS];
	struct kt_rawpage_fmt f = { .type_size = 2, .min_size = 4, .need = need };
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	long pages = argc > 1 ? atol(argv[1]) : 20000, n, recs = 0;
	int i;

	for (i = 0; i < KT_RAWPAGE_IDS; i++)
		need[i] = 4;
	for (n = 0; n < pages; n++) {
		unsigned int commit = fill(page), pos = 0;
		struct kt_rawpage_rec rr;
		unsigned long long kts;
		const char *why;
		uint64_t ts;
		void *rec;
		int ret;

		memcpy(&ts, page, 8);
		kbuffer_load_subbuffer(kb, page);
		for (rec = kbuffer_read_event(kb, &kts);; rec = kbuffer_next_event(kb, &kts)) {
			ret = kt_rawpage_next(&f, page + HDR, commit, &pos, &ts, &rr, &why);
			if (ret < 0) {
				printf("page %ld: walker: %s at %u\n", n, why, pos);
				return 1;
			}
			if (!rec || !ret) {
				if (rec || ret) {
					printf("page %ld: kbuffer %s, walker %s\n", n,
					       rec ? "has a record" : "ends",
					       ret ? "has a record" : "ends");
					return 1;
				}
				break;
			}
			if (rr.ts != kts || rr.hdr + HDR != (unsigned int)kbuffer_curr_offset(kb) ||
			    page + HDR + rr.data != (unsigned char *)rec ||
			    rr.size != (unsigned int)kbuffer_event_size(kb)) {
				printf("page %ld record %ld: walker ts %llu hdr %u size %u, kbuffer ts %llu hdr %d size %d\n",
				       n, recs, (unsigned long long)rr.ts, rr.hdr + HDR, rr.size,
				       kts, kbuffer_curr_offset(kb), kbuffer_event_size(kb));
				return 1;
			}
			recs++;
		}
	}
	kbuffer_free(kb);
	printf("ok %ld records\n", recs);
	return 0;
}
