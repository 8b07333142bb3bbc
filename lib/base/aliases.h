/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classic ktrace/LTTng event names and the ftrace events they stand
 * for: one table, for the one resolver (base/evspec.h) and 'ktrace list
 * aliases'.
 */
#ifndef KT_ALIASES_H
#define KT_ALIASES_H

#include <stddef.h>

/* A classic event name and the modern ftrace event it stands for. */
struct kt_alias {
	const char *classic;
	const char *system;
	const char *event;
	const char *what;
};

const struct kt_alias *kt_alias_table(size_t *count);
const struct kt_alias *kt_alias_find(const char *classic);

#endif
