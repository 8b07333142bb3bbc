/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ring-buffer sub-buffer ("page") as trace_pipe_raw hands it out,
 * read in place: its header (data length, lost-event flags), a count of
 * its events by type id that decodes nothing but the 16-bit common_type
 * at the start of each record (pages from the running kernel, so host
 * byte order and the host's long size are assumed), and the full walk
 * of its records for a report (pages of a file, any byte order).
 */
#ifndef KT_RAWPAGE_H
#define KT_RAWPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct kbuffer;

/* Event type ids are the kernel's 16-bit common_type. */
#define KT_RAWPAGE_IDS 65536

struct kt_rawpage_hdr {
	size_t data_off;	/* where records start in the page */
	size_t len;		/* bytes of records committed */
	/* Events lost before this page: 0 none, > 0 that many, -1 some. */
	long long missed;
};

/*
 * Read the header of a page of page_size bytes.  The commit word is read
 * once, atomically, so a page the kernel is still writing (a mapped
 * reader page) gives a consistent length.  -EBADMSG if it does not fit.
 */
int kt_rawpage_header(const void *page, size_t page_size,
		      struct kt_rawpage_hdr *hdr);

/*
 * Count the records in [*off, hdr->len) of the data area: for each event
 * record, counts[slot[type id]]++.  *off (relative to the data area)
 * advances past what was counted.  Returns the number of event records
 * counted, or -EBADMSG for a record that runs past the committed length.
 */
int kt_rawpage_count(const void *page, const struct kt_rawpage_hdr *hdr,
		     size_t *off, const uint16_t *slot, uint64_t *counts);

/*
 * The same through libtraceevent's kbuffer (kb from kbuffer_alloc() with
 * host long size and endianness); kept to cross-check and benchmark the
 * walker above.
 */
int kt_rawpage_count_kbuffer(struct kbuffer *kb, void *page,
			     const struct kt_rawpage_hdr *hdr, size_t *off,
			     const uint16_t *slot, uint64_t *counts);

/*
 * The event records in one whole page (header and data).  -EBADMSG when
 * it does not parse; *events then holds those before the fault.
 */
int kt_rawpage_events(const void *page, size_t page_size, uint64_t *events);

/*
 * Count the event records in the whole pages of fd between the offsets
 * from and to: what a file cut short by a full disk leaves out, so the
 * loss is told in events, not only bytes.  -EBADMSG for a page that does
 * not parse (the count so far stays in *events).
 */
int kt_rawpage_count_file(int fd, unsigned long long from,
			  unsigned long long to, size_t page_size,
			  unsigned long long *events);

/*
 * The full walk, for a report: every record of a page in order with its
 * timestamp, checked as it is read, from pages of a file (any byte order
 * and long size).  Validation and walking are one pass: a record that
 * does not fit the committed length, or names no known event, or is
 * shorter than its event's fields, ends the page with a reason; what came
 * before it was already handed out.  Timestamps follow libtraceevent's
 * kbuffer exactly (time extends, absolute stamps keeping the top bits,
 * the deltas of discarded records), so the text matches trace-cmd's.
 */
struct kt_rawpage_fmt {
	bool swap;		/* the file's byte order is not the host's */
	bool big;		/* the file is big-endian */
	unsigned int type_off;	/* common_type: offset and size (1, 2, 4) */
	unsigned int type_size;
	unsigned int min_size;	/* bytes of the common fields */
	/* need[id]: bytes a record of event id needs; < 0: no such event. */
	const int32_t *need;
	unsigned int nids;	/* entries in need; 0: KT_RAWPAGE_IDS */
	/*
	 * Host byte order, a 16-bit common_type and nids set: the case
	 * kt_rawpage_next_inline() reads without a call.
	 */
	bool plain;
};

struct kt_rawpage_rec {
	uint64_t ts;		/* raw ring-buffer clock */
	unsigned int hdr;	/* offset of its header in the data area */
	unsigned int data;	/* offset of its payload */
	unsigned int size;	/* payload bytes */
	unsigned int id;	/* event type id */
};

/*
 * Read the next event record of the data area data[0, commit) at *pos,
 * advancing *pos past it and *ts (the running clock, starting at the
 * page's timestamp) to its time.  Returns 1 and *rec, 0 at the end of
 * the page, or -EBADMSG with *why naming the damage (*pos left at the
 * damaged record), -ENOENT the same for a record of an event id not in
 * f (rec->id says which: a format parsed late may give it, lazyfmt.c).
 * data must be followed by 8 readable bytes.
 */
int kt_rawpage_next(const struct kt_rawpage_fmt *f, const unsigned char *data,
		    unsigned int commit, unsigned int *pos, uint64_t *ts,
		    struct kt_rawpage_rec *rec, const char **why);

/*
 * kt_rawpage_next() inline for a plain format's data record (a time
 * record, padding, damage or any other format: the call).  The same
 * checks, in the same order; a report's every record comes through here.
 */
static inline int kt_rawpage_next_inline(const struct kt_rawpage_fmt *f,
					 const unsigned char *data,
					 unsigned int commit, unsigned int *pos,
					 uint64_t *ts, struct kt_rawpage_rec *rec,
					 const char **why)
{
	unsigned int p = *pos, w, tl, len, at;
	uint16_t id;

	if (!f->plain || p >= commit || commit - p < 8)
		goto call;
	memcpy(&w, data + p, 4);
	tl = w & 31;
	if (tl == 0) {		/* KT_RB_TYPE_DATA_LEN: the length follows */
		memcpy(&len, data + p + 4, 4);
		if (len < 4 || len - 4 > commit)
			goto call;
		len = ((len - 4) + 3) & ~3u;
		at = p + 8;
	} else if (tl <= 28) {	/* KT_RB_TYPE_DATA_MAX */
		len = tl * 4;
		at = p + 4;
	} else {
		goto call;
	}
	if (len > commit - at || len < f->min_size)
		goto call;
	memcpy(&id, data + at + f->type_off, 2);
	/* unsigned: no such event (need < 0) is a length no record has */
	if (id >= f->nids || len < (unsigned int)f->need[id])
		goto call;
	*ts += w >> 5;
	rec->ts = *ts;
	rec->hdr = p;
	rec->data = at;
	rec->size = len;
	rec->id = id;
	*pos = at + len;
	return 1;
call:
	return kt_rawpage_next(f, data, commit, pos, ts, rec, why);
}

#endif
