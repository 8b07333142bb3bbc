/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a reader's second thread earns its CPU, tried on the file being
 * read and the machine reading it.  Internal to lib/file.
 *
 * Two threads on two CPUs are not twice one: where the CPUs are one
 * core's hyperthreads (most clouds' vCPU pairs), each thread runs slower
 * beside the other, so reading ahead costs far more CPU than it saves
 * wall time (1.47x the CPU for 7% of the wall time on a 2-vCPU machine).
 * No file in /sys says so inside a VM, so the reader measures: over the
 * file's first quarter, after a warm-up, it alternates serial and
 * read-ahead phases of one twentieth of the file each (serial, ahead,
 * ahead, serial: a cost that drifts along the file weighs on both
 * alike), takes the process's CPU time and the wall time of each, and
 * reads ahead for the rest only when each read-ahead phase cost at most
 * 10% more CPU than each serial one and took at most 95% of its wall
 * time.  The trial's own cost is bounded
 * by its two read-ahead phases: a tenth of the file.
 */
#ifndef KT_AHEAD_TRIAL_H
#define KT_AHEAD_TRIAL_H

#include <stdbool.h>
#include <stdint.h>

struct kt_ahead_trial {
	uint64_t phase_bytes;	/* file bytes a phase reads */
	uint64_t left;		/* bytes left in this phase */
	int phase;		/* index in the plan; past its end: decided */
	double cpu0, wall0;	/* the clocks at this phase's start */
	double cpu[2], wall[2];	/* summed per mode: [0] serial, [1] ahead */
	double ph_cpu[8], ph_wall[8];	/* each phase's */
	bool ahead;		/* the mode now */
};

/* A trial over a file of total_bytes of trace data, starting serial. */
void kt_ahead_trial_start(struct kt_ahead_trial *t, uint64_t total_bytes);
/* bytes more of the file were read: whether to read ahead from now on. */
bool kt_ahead_trial_step(struct kt_ahead_trial *t, uint64_t bytes);
/* Once decided: whether the thread earned its CPU. */
bool kt_ahead_trial_decided(const struct kt_ahead_trial *t, bool *ahead);

#endif
