/* SPDX-License-Identifier: GPL-2.0 */
/* The typo distance behind every "did you mean": see editdist.c. */
#ifndef KT_EDITDIST_H
#define KT_EDITDIST_H

#include <stddef.h>

/* Levenshtein distance, shared by command and event suggestions. */
size_t kt_edit_distance(const char *a, const char *b);

#endif
