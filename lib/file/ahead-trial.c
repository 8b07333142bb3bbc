// SPDX-License-Identifier: GPL-2.0
/* Whether a reader's second thread earns its CPU.  See ahead-trial.h. */
#include <time.h>

#include "file/ahead-trial.h"

/* The plan: -1 a warm-up (serial, not counted), then 0 serial, 1 ahead. */
static const int plan[] = { -1, 0, 1, 1, 0 };
#define NPHASES		((int)(sizeof(plan) / sizeof(plan[0])))
/* A phase: this part of the file. */
#define PHASE_DIV	20
/* Reading ahead is kept when it costs at most CPU_MAX of serial's CPU... */
#define CPU_MAX		1.10
/* ... and takes at most WALL_MAX of serial's wall time. */
#define WALL_MAX	0.95

static double seconds(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void kt_ahead_trial_start(struct kt_ahead_trial *t, uint64_t total_bytes)
{
	*t = (struct kt_ahead_trial){ 0 };
	t->phase_bytes = total_bytes / PHASE_DIV;
	if (!t->phase_bytes)
		t->phase_bytes = 1;
	t->left = t->phase_bytes;
}

/*
 * Every read-ahead phase against every serial one, not their sums: a
 * phase is a twentieth of the file, tens of ms on most, and one phase
 * that a noisy neighbour slowed could carry a sum (the quiet bench saw
 * the trial choose the thread and pay 1.2x for it).  When in doubt,
 * serial: its CPU is the one the issue bounds.
 */
static void decide(struct kt_ahead_trial *t)
{
	int a, s;

	t->ahead = true;
	for (a = 0; a < NPHASES; a++)
		for (s = 0; plan[a] == 1 && s < NPHASES; s++)
			if (plan[s] == 0 &&
			    (t->ph_cpu[a] > CPU_MAX * t->ph_cpu[s] ||
			     t->ph_wall[a] > WALL_MAX * t->ph_wall[s]))
				t->ahead = false;
}

bool kt_ahead_trial_step(struct kt_ahead_trial *t, uint64_t bytes)
{
	double cpu, wall;
	int mode;

	if (t->phase >= NPHASES)
		return t->ahead;
	if (bytes < t->left) {
		t->left -= bytes;
		return t->ahead;
	}
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
	wall = seconds(CLOCK_MONOTONIC);
	mode = plan[t->phase];
	if (mode >= 0) {
		t->cpu[mode] += cpu - t->cpu0;
		t->wall[mode] += wall - t->wall0;
		t->ph_cpu[t->phase] = cpu - t->cpu0;
		t->ph_wall[t->phase] = wall - t->wall0;
	}
	t->cpu0 = cpu;
	t->wall0 = wall;
	t->left = t->phase_bytes;
	if (++t->phase < NPHASES)
		t->ahead = plan[t->phase] == 1;
	else
		decide(t);
	return t->ahead;
}

bool kt_ahead_trial_decided(const struct kt_ahead_trial *t, bool *ahead)
{
	*ahead = t->ahead;
	return t->phase >= NPHASES;
}
