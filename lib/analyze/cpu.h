/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analyze cpu: who used the CPUs.  From sched_switch: each task's CPU
 * time (the time from a switch that puts it on a CPU to the next switch
 * on that CPU) and each CPU's busy and idle time (idle: pid 0 on it);
 * from irq_handler_entry/exit, hard-irq time per handler name; from
 * softirq_entry/exit, softirq time per vector name.  Interrupt time is
 * inside the task time of whoever was interrupted, as the kernel's own
 * accounting has it without IRQ_TIME_ACCOUNTING.
 *
 * Who ran when, switches and missing switches are taskstate.h's model's,
 * each switch's run by runs.h's rule, as analyze sched's and offcpu's
 * are: time before a CPU's first switch in the window is not
 * attributed; a switch whose prev_pid is not the
 * task the CPU's last switch put there (a record the kernel dropped,
 * doctor's switch_records) leaves the time since that last switch
 * unattributed, and counted (gaps, gap_ns, the task's missing).
 */
#ifndef KT_ANALYZE_CPU_H
#define KT_ANALYZE_CPU_H

#include <stdbool.h>
#include <stddef.h>

#include "decode/decoder.h"

struct kt_cpu_task {
	int pid;
	char comm[32];
	unsigned long long ns;		/* on a CPU */
	unsigned long long switches;	/* times taken off a CPU */
	unsigned long long missing;	/* runs of its whose start is missing */
};

struct kt_cpu_cpu {
	int cpu;
	unsigned long long busy_ns, idle_ns;
	unsigned long long gap_ns;	/* not attributed: a switch missing */
};

struct kt_cpu_irq {
	const char *name;		/* handler name, or softirq vector */
	int irq;			/* -1 for a softirq */
	unsigned long long count, ns, max_ns;
};

/* One run of a task (pid 0: the CPU idle) on a CPU, as its switch out ends it. */
struct kt_cpu_run {
	int cpu, pid;
	const char *comm;		/* the switch's prev_comm */
	unsigned long long start, end;
};

struct kt_cpu_totals {
	unsigned long long gaps;	/* switches the file lacks */
	unsigned long long lost;
	bool lost_unknown;
	bool has_switch, has_irq, has_softirq;
};

struct tep_handle;
struct kt_cpu;
struct kt_taskstate;

struct kt_cpu *kt_cpu_new(struct tep_handle *tep);
/*
 * The same on model, another's task model (taskstate.h), before its
 * first record, with tep its events; the model's owner feeds it (not
 * kt_cpu_add()) and frees it after c.
 */
struct kt_cpu *kt_cpu_join(struct tep_handle *tep, struct kt_taskstate *model);
/*
 * fn is given each run the model knows (runs.h's KT_RUN_RAN: the time of a
 * task's that the tasks' figures add up), as it ends; non-zero ends the
 * record with that value.
 */
void kt_cpu_on_run(struct kt_cpu *c, int (*fn)(const struct kt_cpu_run *r, void *arg),
		   void *arg);
int kt_cpu_add(const struct kt_event *ev, void *arg);
/* Tasks by CPU time, the most first (the idle task left out). */
int kt_cpu_tasks(struct kt_cpu *c, struct kt_cpu_task ***v, size_t *n);
/* pid's row as it is now (NULL: in no switch yet, or the idle task). */
const struct kt_cpu_task *kt_cpu_task_of(struct kt_cpu *c, int pid);
/* CPUs in order, those that switched at least once. */
int kt_cpu_cpus(struct kt_cpu *c, struct kt_cpu_cpu **v, size_t *n);
/* Hard irqs then softirqs, each by time, the most first. */
int kt_cpu_irqs(struct kt_cpu *c, struct kt_cpu_irq ***v, size_t *n);
void kt_cpu_totals(const struct kt_cpu *c, struct kt_cpu_totals *t);
void kt_cpu_free(struct kt_cpu *c);

#endif
