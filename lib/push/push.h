/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording into ClickHouse, on `ktrace sql`'s schema (sql/schema.h)
 * with host, trace_id, boot_id and wall_ts added: the tables made when
 * missing (MergeTree, ordered by host, trace_id, ts), the rows sent in
 * batches (Native blocks), and a `traces` row last, which marks the trace
 * complete.  A file's trace_id comes from its contents: pushing it again
 * sends nothing, and a push cut short is completed by the next one,
 * which first deletes what the cut one left.
 */
#ifndef KT_PUSH_PUSH_H
#define KT_PUSH_PUSH_H

#include <stdbool.h>
#include <stddef.h>

struct kt_ch;

struct kt_push_stats {
	unsigned long long events;	/* records sent */
	unsigned long long total;	/* records in the file */
	unsigned long long bytes;	/* Native bytes sent */
	unsigned int tables;		/* tables that got rows */
	bool no_wall;			/* the file has no realtime offsets */
	bool resumed;			/* an interrupted push's rows were deleted */
	char trace_id[40];
	char host[256];
};

struct kt_push_opts {
	const char *host;		/* NULL: the host the file names */
	size_t batch;			/* rows per INSERT and table; 0: default */
	/* Called now and then while rows are sent; NULL: never. */
	void (*progress)(void *arg, const char *path, const struct kt_push_stats *st);
	void *arg;
};

/*
 * Push the recording at path.  1 when that trace is there already (its
 * traces row: nothing sent), 0 when pushed, 2 when pushed as far as the
 * damaged file could be read (reported), or -errno with the reason in
 * msg (len bytes; "" when it was logged, as a file that cannot be read:
 * -EBADMSG for a damaged one).
 */
int kt_push_file(struct kt_ch *ch, const char *path, const struct kt_push_opts *o,
		 struct kt_push_stats *st, char *msg, size_t len);

#endif
