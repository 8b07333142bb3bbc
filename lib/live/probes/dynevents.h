/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's dynamic events (kprobes, uprobes, eprobes, synthetic
 * events): what tracefs' dynamic_events lists (or, on kernels without
 * it, uprobe_events and kprobe_events), for `ktrace stat` to show and
 * `ktrace reset -a` to clean.  ktrace's own probes live in a group of
 * their own, KT_DYN_GROUP_PREFIX<pid> ("ktrace_1234"), never anyone
 * else's, so a recording killed with SIGKILL leaves only probes that
 * reset -a can tell apart as its.
 */
#ifndef KT_DYNEVENTS_H
#define KT_DYNEVENTS_H

#include <stdbool.h>
#include <stddef.h>

#define KT_DYN_GROUP_PREFIX "ktrace_"

struct kt_dynevent {
	const char *kind;	/* "kprobe", "kretprobe", "uprobe", "uretprobe", ... */
	char group[64];
	char name[64];
	char *def;		/* the kernel's line, as it lists it */
	long owner;		/* ours: the ktrace that made it, if running; else 0 */
	bool ours;		/* in a KT_DYN_GROUP_PREFIX<pid> group */
};

/* Every dynamic event.  0, or -errno; *out is the caller's to free. */
int kt_dynevents_read(struct kt_dynevent **out, size_t *n);
void kt_dynevents_free(struct kt_dynevent *v, size_t n);

/*
 * Remove each of ktrace's probes whose ktrace is gone; cb hears of each
 * (err: 0, or -errno: -EBUSY while something still has it enabled).
 * Returns how many could not be removed, or -errno when the list could
 * not be read.
 */
int kt_dynevents_remove_ours(void (*cb)(const struct kt_dynevent *e, int err,
					void *ctx),
			     void *ctx);

#endif
