/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recordings of several hosts on one timeline (report -i host.dat -i
 * guest.dat): each file's decoder, its records' times moved onto the
 * controller's clock by the offsets a remote recording stores
 * (KT_OPT_KTRACE_TSYNC, file/tsync.h; a file without them is the
 * controller's own: offset 0), merged in that time order, ties to the
 * file given first.  Each host has a name for its lines: the host name
 * the file stores (uname's), or the file's name when it stores none or
 * another file has the same.
 *
 *   kt_hosts_new()
 *   kt_hosts_add(h, r, d, path)    in the order given (d NULL: not run)
 *   kt_hosts_run(h, fn, arg)       the records, fn told whose
 *   kt_hosts_free()                (not the readers nor the decoders)
 */
#ifndef KT_DECODE_HOSTS_H
#define KT_DECODE_HOSTS_H

#include <stdbool.h>

struct kt_reader;
struct kt_decoder;
struct kt_event;

/* Whether a recording is a remote one (it stores clock offsets). */
bool kt_hosts_is_remote(const struct kt_reader *r);
/* The host name r stores (uname's second word), or NULL. */
const char *kt_hosts_stored_name(const struct kt_reader *r, char *buf, int len);

struct kt_hosts;
struct kt_hosts *kt_hosts_new(void);
void kt_hosts_free(struct kt_hosts *h);
/* 0, or -ENOMEM.  A damaged offsets text is read as none (warned). */
int kt_hosts_add(struct kt_hosts *h, struct kt_reader *r, struct kt_decoder *d,
		 const char *path);
int kt_hosts_count(const struct kt_hosts *h);

struct kt_host_info {
	const char *name;		/* its lines' name */
	const char *path;
	bool remote;			/* offsets stored: moved by them */
	long long first, last;		/* the first and last measure's offset (ns) */
	unsigned int measures;
	unsigned long long bound;	/* the widest error bound (ns) */
	const char *controller;		/* the controller it names, or "" */
	const char *controller_clock;
};
void kt_hosts_info(const struct kt_hosts *h, int i, struct kt_host_info *info);

/*
 * Host i's time ts on the controller's clock (its stored offsets
 * applied; ts itself for a file without them), as kt_hosts_run() moves
 * its records: for a reader of host i's records of its own (sql's).
 */
unsigned long long kt_hosts_time(const struct kt_hosts *h, int i, unsigned long long ts);

/*
 * Call fn(host, ev, arg) for every record in time order on the
 * controller's clock (ev->record->ts so moved).  0, or fn's negative.
 */
typedef int (*kt_host_event_fn)(int host, const struct kt_event *ev, void *arg);
int kt_hosts_run(struct kt_hosts *h, kt_host_event_fn fn, void *arg);

#endif
