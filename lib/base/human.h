/* SPDX-License-Identifier: GPL-2.0 */
/* Sizes and times as people read them. */
#ifndef KT_HUMAN_H
#define KT_HUMAN_H

#include <stddef.h>

/* "12 B", "3.4 KB", "5.6 MB", "12.3 GB" into buf. */
void kt_human_bytes(unsigned long long b, char *buf, size_t len);
/*
 * A timestamp in ns as report's text prints it, "SECS.USECS", rounded to
 * the microsecond as libtraceevent rounds it (896.1378325 -> .137833),
 * so a time one command prints can be found in another's output.
 */
void kt_human_ts(unsigned long long ts, char *buf, size_t len);

#endif
