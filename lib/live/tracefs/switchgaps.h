/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this kernel keeps every sched_switch record, found by trying:
 * on each CPU a switch's prev_pid is the next_pid of the switch before
 * it, so a record the kernel dropped shows as a gap in that chain, even
 * where no counter (overrun, dropped events) shows a loss.  Some kernels
 * drop records around idle that way (seen on 6.18 guests), and report's
 * off-CPU times then estimate what they cannot see.
 */
#ifndef KT_LIVE_SWITCHGAPS_H
#define KT_LIVE_SWITCHGAPS_H

struct tracefs_instance;

struct kt_switch_gaps {
	unsigned long switches;		/* sched_switch records read */
	unsigned long gaps;		/* chain breaks: records missing */
	unsigned long long counted;	/* what the buffer's counters lost */
};

/*
 * Record sched_switch in inst (an empty instance of the caller's) while
 * this process sleeps and wakes ms_total milliseconds in 1 ms steps, then
 * read the chain.  0, or -errno (the event cannot be enabled or read).
 */
int kt_switch_gaps_probe(struct tracefs_instance *inst, int ms_total,
			 struct kt_switch_gaps *out);

#endif
