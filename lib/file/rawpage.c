// SPDX-License-Identifier: GPL-2.0
/*
 * Ring-buffer pages read in place, without copies.  The counting walks
 * serve top's counter (cheap at high event rates: no timestamps, no
 * per-record function calls), the writer, the recorder and recover (the
 * events in a page or in a file cut short); the full walk with
 * timestamps serves the decoder.  See rawpage.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbuffer.h>

#include "base/byteorder.h"
#include "file/rawpage.h"
#include "ktrace-page.h"

static inline uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline unsigned int type_len(uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return w & 31;
#else
	return w >> 27;
#endif
}

static inline uint32_t time_delta(uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return w >> 5;
#else
	return w & ((1U << 27) - 1);
#endif
}

int kt_rawpage_header(const void *page, size_t page_size,
		      struct kt_rawpage_hdr *hdr)
{
	const unsigned char *p = page;
	size_t off = sizeof(uint64_t) + sizeof(long);
	unsigned long commit;

	if (page_size < off)
		return -EBADMSG;
	/* Pairs with the kernel's commit update: records below it are whole. */
	commit = __atomic_load_n((const unsigned long *)(p + sizeof(uint64_t)),
				 __ATOMIC_ACQUIRE);
	hdr->data_off = off;
	hdr->len = commit & KT_RB_COMMIT_MASK;
	hdr->missed = 0;
	if (hdr->len > page_size - off)
		return -EBADMSG;
	if (commit & KT_RB_MISSED_EVENTS) {
		hdr->missed = -1;
		if ((commit & KT_RB_MISSED_STORED) &&
		    hdr->len + sizeof(long) <= page_size - off) {
			unsigned long n;

			memcpy(&n, p + off + hdr->len, sizeof(n));
			if (n)
				hdr->missed = (long long)n;
		}
	}
	return 0;
}

int kt_rawpage_count(const void *page, const struct kt_rawpage_hdr *hdr,
		     size_t *off, const uint16_t *slot, uint64_t *counts)
{
	const unsigned char *d = (const unsigned char *)page + hdr->data_off;
	size_t pos = *off, end = hdr->len, len;
	const unsigned char *rec;
	uint32_t w, a;
	uint16_t id;
	int n = 0;

	while (pos + 4 <= end) {
		w = load32(d + pos);
		switch (type_len(w)) {
		case KT_RB_TYPE_PADDING:
			/* A padding record with no delta ends the page. */
			if (!time_delta(w)) {
				pos = end;
				continue;
			}
			if (pos + 8 > end)
				goto bad;
			len = (size_t)load32(d + pos + 4) + 4;
			rec = NULL;
			break;
		case KT_RB_TYPE_TIME_EXTEND:
		case KT_RB_TYPE_TIME_STAMP:
			len = 8;
			rec = NULL;
			break;
		case KT_RB_TYPE_DATA_LEN:
			if (pos + 8 > end)
				goto bad;
			/* array[0] counts itself and the data. */
			a = load32(d + pos + 4);
			if (a < 4 + sizeof(id))
				goto bad;
			len = (size_t)a + 4;
			rec = d + pos + 8;
			break;
		default:
			len = 4 + 4 * (size_t)type_len(w);
			rec = d + pos + 4;
			break;
		}
		if (len > end - pos)
			goto bad;
		if (rec) {
			memcpy(&id, rec, sizeof(id));
			counts[slot[id]]++;
			n++;
		}
		pos += len;
	}
	*off = end;
	return n;
bad:
	*off = end;
	return -EBADMSG;
}

int kt_rawpage_count_kbuffer(struct kbuffer *kb, void *page,
			     const struct kt_rawpage_hdr *hdr, size_t *off,
			     const uint16_t *slot, uint64_t *counts)
{
	void *rec;
	uint16_t id;
	int n = 0;

	if (kbuffer_load_subbuffer(kb, page) < 0)
		return -EBADMSG;
	for (rec = kbuffer_read_event(kb, NULL); rec;
	     rec = kbuffer_next_event(kb, NULL)) {
		if ((size_t)kbuffer_curr_index(kb) < *off)
			continue;
		if ((size_t)kbuffer_curr_index(kb) >= hdr->len)
			break;
		memcpy(&id, rec, sizeof(id));
		counts[slot[id]]++;
		n++;
	}
	*off = hdr->len;
	return n;
}

/* Every type id counts in slot 0: kt_rawpage_events() wants a total. */
static const uint16_t one_slot[KT_RAWPAGE_IDS];

int kt_rawpage_events(const void *page, size_t page_size, uint64_t *events)
{
	struct kt_rawpage_hdr hdr;
	size_t off = 0;

	*events = 0;
	if (kt_rawpage_header(page, page_size, &hdr))
		return -EBADMSG;
	return kt_rawpage_count(page, &hdr, &off, one_slot, events) < 0 ?
		-EBADMSG : 0;
}

int kt_rawpage_count_file(int fd, unsigned long long from,
			  unsigned long long to, size_t page_size,
			  unsigned long long *events)
{
	unsigned char *page;
	uint64_t count;
	ssize_t n;
	int ret = 0;

	*events = 0;
	if (page_size < 16)
		return -EINVAL;
	page = malloc(page_size);
	if (!page)
		return -ENOMEM;
	for (; from + page_size <= to; from += page_size) {
		n = pread(fd, page, page_size, (off_t)from);
		if (n < 0 && errno == EINTR) {
			from -= page_size;
			continue;
		}
		if (n != (ssize_t)page_size) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = kt_rawpage_events(page, page_size, &count);
		if (ret)
			break;
		*events += count;
	}
	free(page);
	return ret;
}

/* kbuffer keeps these top bits of the clock across an absolute stamp. */
#define TS_MSB (0xf8ULL << 56)

static inline uint64_t rd_type(const struct kt_rawpage_fmt *f,
			       const unsigned char *p)
{
	switch (f->type_size) {
	case 1: return *p;
	case 2: return kt_get16(f->swap, p);
	case 4: return kt_get32(f->swap, p);
	case 8: return (uint32_t)kt_get64(f->swap, p);
	default: return 0;	/* as tep_read_number() */
	}
}

int kt_rawpage_next(const struct kt_rawpage_fmt *f, const unsigned char *data,
		    unsigned int commit, unsigned int *pos, uint64_t *ts,
		    struct kt_rawpage_rec *rec, const char **why)
{
	unsigned int p = *pos, w, tl, delta, len, at;
	uint64_t id, ext;
	int32_t need;

	while (p < commit) {
		if (commit - p < 4) {
			*why = "a record header runs past the commit size";
			goto bad;
		}
		w = kt_get32(f->swap, data + p);
		tl = f->big ? w >> 27 : w & 31;
		delta = f->big ? w & ((1U << 27) - 1) : w >> 5;
		switch (tl) {
		case KT_RB_TYPE_PADDING:
			/*
			 * Discarded records and the page's tail alike are
			 * skipped by their length; kbuffer adds their delta.
			 */
			if (commit - p < 8)
				goto end;
			len = kt_get32(f->swap, data + p + 4);
			if (len > INT32_MAX) {
				*why = "a padding record has a negative length";
				goto bad;
			}
			if ((uint64_t)p + 4 + len >= commit)
				goto end;
			*ts += delta;
			p += 4 + len;
			continue;
		case KT_RB_TYPE_TIME_EXTEND:
		case KT_RB_TYPE_TIME_STAMP:
			if (commit - p < 8) {
				*why = "a time record runs past the commit size";
				goto bad;
			}
			ext = ((uint64_t)kt_get32(f->swap, data + p + 4) << 27) + delta;
			if (tl == KT_RB_TYPE_TIME_STAMP)
				*ts = ext | (*ts & TS_MSB);
			else
				*ts += ext;
			p += 8;
			continue;
		case KT_RB_TYPE_DATA_LEN:
			if (commit - p < 8) {
				*why = "a record length runs past the commit size";
				goto bad;
			}
			len = kt_get32(f->swap, data + p + 4);
			if (len < 4 || len - 4 > commit) {
				*why = "a record length is out of range";
				goto bad;
			}
			len = ((len - 4) + 3) & ~3u;
			at = p + 8;
			break;
		default:
			len = tl * 4;
			at = p + 4;
			break;
		}
		if (len > commit - at) {
			*why = "a record runs past the commit size";
			goto bad;
		}
		if (len < f->min_size) {
			*why = "a record is shorter than the common fields";
			goto bad;
		}
		id = rd_type(f, data + at + f->type_off);
		need = id < (f->nids ? f->nids : KT_RAWPAGE_IDS) ? f->need[id] : -1;
		if (need < 0) {
			*why = "a record names an event id not in the file's formats";
			rec->id = (unsigned int)id;
			*pos = p;
			return -ENOENT;
		}
		if (len < (unsigned int)need) {
			*why = "a record is shorter than its event's fields";
			goto bad;
		}
		*ts += delta;
		rec->ts = *ts;
		rec->hdr = p;
		rec->data = at;
		rec->size = len;
		rec->id = (unsigned int)id;
		*pos = at + len;
		return 1;
	}
end:
	*pos = commit;
	return 0;
bad:
	*pos = p;
	return -EBADMSG;
}
