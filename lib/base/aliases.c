// SPDX-License-Identifier: GPL-2.0
/*
 * The classic event names, part of the one grammar of event specs
 * (base/evspec.c) on the running kernel and on a recording alike.
 */
#include <string.h>

#include "base/aliases.h"

/*
 * The classic names of the original ktrace/LTTng event set, and the
 * events a stock kernel has for them.  The one table of aliases.
 */
static const struct kt_alias aliases[] = {
	{ "dev_receive",      "net",          "netif_receive_skb",  "packet received by a device" },
	{ "dev_xmit",         "net",          "net_dev_xmit",       "packet sent by a device" },
	{ "irq_entry",        "irq",          "irq_handler_entry",  "hard interrupt handler entry" },
	{ "irq_exit",         "irq",          "irq_handler_exit",   "hard interrupt handler exit" },
	{ "napi_poll",        "napi",         "napi_poll",          "NAPI poll of a device" },
	{ "page_alloc",       "kmem",         "mm_page_alloc",      "page allocated" },
	{ "page_free",        "kmem",         "mm_page_free",       "page freed" },
	{ "sched_schedule",   "sched",        "sched_switch",       "context switch" },
	{ "sched_try_wakeup", "sched",        "sched_wakeup",       "task woken up" },
	{ "softirq_entry",    "irq",          "softirq_entry",      "softirq handler entry" },
	{ "softirq_exit",     "irq",          "softirq_exit",       "softirq handler exit" },
	{ "syscall_entry",    "raw_syscalls", "sys_enter",          "system call entry" },
	{ "syscall_exit",     "raw_syscalls", "sys_exit",           "system call exit" },
	{ "timer_set",        "timer",        "timer_start",        "timer armed" },
};

const struct kt_alias *kt_alias_table(size_t *count)
{
	*count = sizeof(aliases) / sizeof(aliases[0]);
	return aliases;
}

const struct kt_alias *kt_alias_find(const char *classic)
{
	size_t i, n;
	const struct kt_alias *t = kt_alias_table(&n);

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].classic, classic))
			return &t[i];
	return NULL;
}
