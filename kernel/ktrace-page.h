/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring-buffer page format ktrace.ko writes and lib/ reads, ftrace's
 * own (header_page and header_event describe it): a page is the u64 time
 * stamp of its first record, a long "commit" (bytes of records, flags in
 * the top bits), then records with a 4-byte header of type_len (5 bits)
 * and time_delta (27 bits).  Plain constants with no kernel types, so the
 * module and the ktrace tool include the same header, as ktrace-abi.h.
 */
#ifndef KTRACE_PAGE_H
#define KTRACE_PAGE_H

/*
 * Flags in a page's commit word: events were lost before the page, and
 * their number is stored after the records.  The kernel adds them as int
 * constants, sign-extended into the long: mask them off with
 * KT_RB_COMMIT_MASK to get the length.
 */
#define KT_RB_MISSED_EVENTS	(1UL << 31)
#define KT_RB_MISSED_STORED	(1UL << 30)
#define KT_RB_COMMIT_MASK	((1UL << 27) - 1)

/* A record's header (struct ring_buffer_event): type_len, time_delta. */
#define KT_RB_HDR_SIZE		4
#define KT_RB_DELTA_BITS	27

/* type_len values. */
#define KT_RB_TYPE_DATA_LEN	0	/* data length in array[0] */
#define KT_RB_TYPE_DATA_MAX	28	/* 1..28: type_len * 4 bytes of data */
#define KT_RB_TYPE_PADDING	29
#define KT_RB_TYPE_TIME_EXTEND	30
#define KT_RB_TYPE_TIME_STAMP	31

/* The most data a record gives its length in type_len. */
#define KT_RB_MAX_SMALL		(KT_RB_TYPE_DATA_MAX * 4)

#endif
