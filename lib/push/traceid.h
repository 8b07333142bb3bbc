/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's trace_id: a 64-bit hash of the whole file's bytes, so
 * that pushing the same file again is known, and a rewritten file is a
 * new trace (the file holds a random TRACEID of its own: two recordings
 * differ even when their data are alike).
 */
#ifndef KT_PUSH_TRACEID_H
#define KT_PUSH_TRACEID_H

/* The id of the open file fd (the caller's, left open) into *id: 0, or -errno. */
int kt_traceid_fd(int fd, unsigned long long *id);
/*
 * A series' id: its chunks' bytes hashed in order as one file's (one
 * path: that file's id).  0, or -errno.
 */
int kt_traceid_paths(const char *const *paths, int n, unsigned long long *id);

#endif
