/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trigger's condition (`record --trigger COND`): its grammar, parsed
 * into a struct kt_cond with one line naming the bad part and a
 * suggestion, the events it needs recorded, and its name in a file
 * name.  Evaluating conditions on a stream of records is watch.h's.
 *
 *   syscall>DUR           a system call that took longer than DUR
 *   syscall:NAME>DUR      ... the system call NAME (syscall:fsync>20ms)
 *   wakeup>DUR            a task waited longer than DUR between its wakeup
 *                         (sched_waking, else sched_wakeup[_new]) and
 *                         the sched_switch that put it on a CPU
 *   offcpu>DUR            a task blocked longer than DUR: from the switch
 *                         that took it off in a sleeping state (not R or
 *                         R+) to the switch that put it back
 *   exit                  the traced COMMAND exits non-zero or is killed
 *   event SYS:EVENT [if FILTER]
 *                         an event (that matches the kernel's filter
 *                         grammar's FILTER, e.g. 'sig == 11')
 *
 * DUR is a number and a unit: ns, us, ms, s, m, h.
 */
#ifndef KT_COND_H
#define KT_COND_H

#include <stddef.h>
#include <stdint.h>

enum kt_cond_kind {
	KT_COND_SYSCALL,
	KT_COND_EXIT,
	KT_COND_EVENT,
	KT_COND_WAKEUP,
	KT_COND_OFFCPU,
};

struct kt_cond {
	const char *text;		/* as given (not owned) */
	enum kt_cond_kind kind;
	long nr;			/* syscall:NAME's number, or -1: any */
	uint64_t ns;			/* the duration it must exceed */
	/* event: its "system:event", its filter (or NULL), the list of it */
	char spec[128];
	const char *filter;
	const char *events[2];
};

/* A condition that held. */
struct kt_fire {
	int cond;			/* its index */
	uint64_t ts;			/* the firing record's time, trace clock */
	int cpu;
	int pid;
	uint64_t since;			/* what it measured began (sys_enter, a
					   wait's start), or ts */
	char what[256];			/* the firing event, in words */
};

/*
 * Parse text into c.  0, or -EINVAL with why (len bytes) saying what is
 * wrong and what to try ("unknown condition 'sycall'; did you mean
 * 'syscall'?").
 */
int kt_cond_parse(const char *text, struct kt_cond *c, char *why, size_t len);

/*
 * A duration "80ms", "1s", "500us": 0 with *ns, or -EINVAL with why.
 */
int kt_cond_duration(const char *text, uint64_t *ns, char *why, size_t len);

/*
 * The events c needs recorded, "system:event", NULL-terminated (a
 * static list).
 */
const char *const *kt_cond_events(const struct kt_cond *c);

/*
 * c's text made safe for a file name ("syscall-gt-50ms"): letters,
 * digits, '-', '_', '.' kept, '>' as "-gt-", the rest '_'.  Returns buf.
 */
char *kt_cond_slug(const struct kt_cond *c, char *buf, size_t len);

#endif
