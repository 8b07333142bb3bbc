/* SPDX-License-Identifier: GPL-2.0 */
/* Sizes as people read them. */
#ifndef KT_HUMAN_H
#define KT_HUMAN_H

#include <stddef.h>

/* "12 B", "3.4 KB", "5.6 MB", "12.3 GB" into buf. */
void kt_human_bytes(unsigned long long b, char *buf, size_t len);

#endif
