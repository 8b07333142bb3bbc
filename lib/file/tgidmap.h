/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread to process, for --by process: from the lines record stores
 * (KT_OPT_KTRACE_TGIDS, file/tracedat.h), "PID TGID" each.  A pid the
 * file does not name is taken to be its own process.
 */
#ifndef KT_TGIDMAP_H
#define KT_TGIDMAP_H

#include <stdbool.h>
#include <stddef.h>

struct kt_tgid_pair {
	int pid, tgid;
};

struct kt_tgidmap {
	struct kt_tgid_pair *v;		/* by pid */
	size_t n;
	bool stored;			/* the file said (even "none") */
};

/* Parse text (NULL: none).  0 or -ENOMEM; bad lines are skipped. */
int kt_tgidmap_load(struct kt_tgidmap *m, const char *text);
/* pid's process: its tgid, or pid itself when the file does not say. */
int kt_tgidmap_of(const struct kt_tgidmap *m, int pid);
void kt_tgidmap_free(struct kt_tgidmap *m);

#endif
