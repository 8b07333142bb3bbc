// SPDX-License-Identifier: GPL-2.0
/*
 * The VM tests' stress module: writers of a ktrace channel in every
 * context at once, each counted, so a test can check that records read
 * plus records dropped or overwritten add up to records written.
 *
 * debugfs ktrace_stress/stress/ is a per-CPU channel (ktrace_sample's
 * record, so ktvm read -s decodes it).  An export sends its CPU an NMI
 * every nmi_every records committed to any ktrace channel: the NMI
 * comes while that record's writer is still inside its write, finds
 * the buffer busy if it was this channel's, and must have its record
 * dropped and counted.  Besides the channel's files:
 *   flood   write N: a kthread on every online CPU writes N records,
 *           preemptible between them; returns when all are done
 *   timers  write 1: on every online CPU an hrtimer (hard interrupt,
 *           also on PREEMPT_RT) every period_us writes a record, queues
 *           an irq_work (hard interrupt) that writes one, and arms a
 *           timer_list (the engine's timer_set event, from the hard
 *           interrupt; its expiry is a softirq) that writes one; 0 stops
 *           them all and waits for the last
 *           and sends this CPU an NMI that writes one
 *   fired   records written, dropped or not (the channel's sequence)
 *   nmis    NMIs handled, each of which wrote (or had dropped) a record
 *   armed   timer_set events the timer_list's arming fired
 *   timer_fn  the timer_list's function, as the engine's timer_set
 *           stores it, in signed decimal (ktvm read -m)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/timer.h>

#include <asm/apic.h>
#include <asm/nmi.h>

#include "ktrace.h"

#define STRESS_MAGIC	0x6b74736dU	/* ktrace_sample's "ktsm" */
#define STRESS_MAX_FLOOD	10000000

static uint flags;
module_param(flags, uint, 0444);
MODULE_PARM_DESC(flags, "channel flags: 2 flight");

static uint buf_nr = 64;
module_param(buf_nr, uint, 0444);
MODULE_PARM_DESC(buf_nr, "pages per CPU");

static uint period_us = 100;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "hrtimer period in microseconds");

static uint nmi_every = 16;
module_param(nmi_every, uint, 0444);
MODULE_PARM_DESC(nmi_every, "an NMI every so many exported records, 0 none");

struct stress_event {
	u32 magic;
	u32 cpu;
	u64 seq;
};

struct stress_cpu {
	struct hrtimer hrt;
	struct irq_work work;
	struct timer_list tl;
	bool on;
};

static struct ktrace_channel *chan;
static DEFINE_PER_CPU(struct stress_cpu, stress_cpus);
static atomic64_t next_seq;
static atomic64_t armed;
static atomic64_t nmis;
static DEFINE_PER_CPU(unsigned int, nmi_pending);
static DEFINE_PER_CPU(unsigned int, nmi_tick);
static DEFINE_MUTEX(timers_lock);
static bool timers_on;

static void stress_write(void)
{
	struct stress_event ev = { .magic = STRESS_MAGIC };

	ev.seq = atomic64_inc_return(&next_seq) - 1;
	ev.cpu = raw_smp_processor_id();
	/* A loss is counted by the channel. */
	ktrace_channel_write(chan, &ev, sizeof(ev));
}

/* An NMI to this CPU, which stress_nmi() takes as its own. */
static void stress_nmi_send(void)
{
	this_cpu_inc(nmi_pending);
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
}

static int stress_nmi(unsigned int type, struct pt_regs *regs)
{
	if (!this_cpu_read(nmi_pending))
		return NMI_DONE;
	this_cpu_dec(nmi_pending);
	atomic64_inc(&nmis);
	stress_write();
	return NMI_HANDLED;
}

/* Between reserve and commit of every ktrace record, interrupts off. */
static void stress_export(struct ktrace_export *e, u64 ts, const void *rec,
			  unsigned int len)
{
	if (nmi_every && !(this_cpu_inc_return(nmi_tick) % nmi_every))
		stress_nmi_send();
}

static struct ktrace_export stress_exp = { .write = stress_export };

static void stress_work_fn(struct irq_work *w)
{
	stress_write();
}

static void stress_tl_fn(struct timer_list *t)
{
	stress_write();
}

static enum hrtimer_restart stress_hrt_fn(struct hrtimer *h)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpus);

	stress_write();
	irq_work_queue(&sc->work);
	/* An NMI outside any write: its record is stored. */
	if (nmi_every)
		stress_nmi_send();
	/* Pinned, so only this CPU's interrupts touch it. */
	if (!timer_pending(&sc->tl)) {
		atomic64_inc(&armed);
		mod_timer(&sc->tl, jiffies + 1);
	}
	hrtimer_forward_now(h, ns_to_ktime(period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void stress_start_on(void *unused)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpus);

	sc->on = true;
	hrtimer_start(&sc->hrt, ns_to_ktime(period_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void stress_timers_stop(void)
{
	struct stress_cpu *sc;
	int cpu;

	for_each_possible_cpu(cpu) {
		sc = per_cpu_ptr(&stress_cpus, cpu);
		if (!sc->on)
			continue;
		hrtimer_cancel(&sc->hrt);
		irq_work_sync(&sc->work);
		timer_delete_sync(&sc->tl);
		sc->on = false;
	}
}

static int stress_timers_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	mutex_lock(&timers_lock);
	if (val && !timers_on) {
		cpus_read_lock();
		on_each_cpu(stress_start_on, NULL, 1);
		cpus_read_unlock();
	} else if (!val && timers_on) {
		stress_timers_stop();
	}
	timers_on = val;
	mutex_unlock(&timers_lock);
	return 0;
}

static unsigned long flood_n;
static atomic_t flood_left;
static DECLARE_COMPLETION(flood_done);

static int stress_flood_fn(void *unused)
{
	unsigned long i;

	for (i = 0; i < flood_n; i++) {
		stress_write();
		if (!(i & 1023))
			cond_resched();
	}
	if (atomic_dec_and_test(&flood_left))
		complete(&flood_done);
	return 0;
}

static int stress_flood_set(void *data, u64 n)
{
	struct task_struct *t;
	int cpu, ret = 0;

	if (!n || n > STRESS_MAX_FLOOD)
		return -EINVAL;
	mutex_lock(&timers_lock);
	flood_n = n;
	reinit_completion(&flood_done);
	/* One for this function, so no flooder completes it early. */
	atomic_set(&flood_left, 1);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		t = kthread_create_on_cpu(stress_flood_fn, NULL, cpu,
					  "ktstress/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		atomic_inc(&flood_left);
		wake_up_process(t);
	}
	cpus_read_unlock();
	if (atomic_dec_and_test(&flood_left))
		complete(&flood_done);
	wait_for_completion(&flood_done);
	mutex_unlock(&timers_lock);
	return ret;
}

static int stress_fired_get(void *data, u64 *val)
{
	*val = atomic64_read(&next_seq);
	return 0;
}

static int stress_armed_get(void *data, u64 *val)
{
	*val = atomic64_read(&armed);
	return 0;
}

static int stress_nmis_get(void *data, u64 *val)
{
	*val = atomic64_read(&nmis);
	return 0;
}

static int stress_timer_fn_get(void *data, u64 *val)
{
	*val = (unsigned long)stress_tl_fn;
	return 0;
}

static int stress_timer_fn_open(struct inode *inode, struct file *file)
{
	return simple_attr_open(inode, file, stress_timer_fn_get, NULL,
				"%lld\n");
}

static const struct file_operations stress_timer_fn_fops = {
	.owner = THIS_MODULE,
	.open = stress_timer_fn_open,
	.release = simple_attr_release,
	.read = simple_attr_read,
};

DEFINE_DEBUGFS_ATTRIBUTE(stress_timers_fops, NULL, stress_timers_set,
			 "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(stress_flood_fops, NULL, stress_flood_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(stress_fired_fops, stress_fired_get, NULL,
			 "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(stress_armed_fops, stress_armed_get, NULL,
			 "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(stress_nmis_fops, stress_nmis_get, NULL, "%llu\n");

static int __init stress_init(void)
{
	struct stress_cpu *sc;
	struct dentry *dir;
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		sc = per_cpu_ptr(&stress_cpus, cpu);
		hrtimer_init(&sc->hrt, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		sc->hrt.function = stress_hrt_fn;
		/* Hard on PREEMPT_RT too: a record from a hard interrupt. */
		sc->work = IRQ_WORK_INIT_HARD(stress_work_fn);
		timer_setup(&sc->tl, stress_tl_fn, TIMER_PINNED);
	}
	chan = ktrace_channel_setup("ktrace_stress", "stress", PAGE_SIZE,
				    buf_nr, flags);
	if (IS_ERR(chan))
		return PTR_ERR(chan);
	ret = register_nmi_handler(NMI_LOCAL, stress_nmi, 0, "ktrace_stress");
	if (ret)
		goto err_chan;
	ret = ktrace_register_export(&stress_exp);
	if (ret)
		goto err_nmi;
	dir = ktrace_channel_dir(chan);
	debugfs_create_file_unsafe("flood", 0200, dir, NULL,
				   &stress_flood_fops);
	debugfs_create_file_unsafe("timers", 0200, dir, NULL,
				   &stress_timers_fops);
	debugfs_create_file_unsafe("fired", 0400, dir, NULL,
				   &stress_fired_fops);
	debugfs_create_file_unsafe("armed", 0400, dir, NULL,
				   &stress_armed_fops);
	debugfs_create_file_unsafe("nmis", 0400, dir, NULL, &stress_nmis_fops);
	debugfs_create_file("timer_fn", 0400, dir, NULL,
			    &stress_timer_fn_fops);
	return 0;

err_nmi:
	unregister_nmi_handler(NMI_LOCAL, "ktrace_stress");
err_chan:
	ktrace_channel_cleanup(chan);
	return ret;
}

static void __exit stress_exit(void)
{
	stress_timers_set(NULL, 0);
	/* Waits for exports in flight, then for NMIs they sent. */
	ktrace_unregister_export(&stress_exp);
	unregister_nmi_handler(NMI_LOCAL, "ktrace_stress");
	ktrace_channel_cleanup(chan);
}

module_init(stress_init);
module_exit(stress_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktrace channel stress: writers in every context");
