/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every event of the ktrace engine, declared once.  This file is an
 * X-macro table: it is included several times with different meanings
 * of KT_EVENT() to generate the record structs, the probes, the format
 * files and the event list.  No include guard, on purpose.
 *
 * KT_EVENT(name, tracepoint, proto, fields, assign, print)
 * KT_EVENT_X(name, tracepoint, pass, group, proto, fields, assign, print)
 *   name        the event name (events/<name>/)
 *   tracepoint  the kernel tracepoint it attaches to, found by name
 *   proto       KT_PROTO(): the tracepoint's prototype, checked against
 *               the kernel's own <trace/events/...> declaration
 *   fields      KT_FIELDS(): KT_FIELD(type, name); and
 *               KT_ARRAY(type, name, count); after the common header
 *   assign      KT_ASSIGN(): statements filling record e from proto
 *   print       KT_PRINT(fmt, args...): the format file's "print fmt:"
 *               line, the arguments as C text (REC-> fields)
 *   pass        KT_PASS(expr): whether the probe records at all, tested
 *               first; KT_EVENT's is the pid set's verdict on current
 *   group       the KT_GRP_* switch that must also be on for the probe
 *               to be attached (KT_GRP_NONE: none)
 *
 * Types are plain C types: they are printed into the format files as
 * written here, for libtraceevent to parse.
 */

/* A switch concerns both tasks, as in ftrace's pid filter. */
KT_EVENT_X(sched_schedule, sched_switch,
	KT_PASS(kt_pid_pass(prev) || kt_pid_pass(next)), KT_GRP_NONE,
	KT_PROTO(bool preempt, struct task_struct *prev,
		 struct task_struct *next, unsigned int prev_state),
	KT_FIELDS(
		KT_FIELD(int, prev_pid);
		KT_FIELD(int, next_pid);
		KT_FIELD(unsigned int, prev_state);
		KT_FIELD(int, prev_prio);
		KT_FIELD(int, next_prio);),
	KT_ASSIGN(
		e->prev_pid = prev->pid;
		e->next_pid = next->pid;
		e->prev_state = kt_switch_state(preempt, prev_state, prev);
		e->prev_prio = prev->prio;
		e->next_prio = next->prio;),
	KT_PRINT("\"prev_pid=%d next_pid=%d prev_state=0x%x prev_prio=%d next_prio=%d\"",
		 REC->prev_pid, REC->next_pid, REC->prev_state, REC->prev_prio,
		 REC->next_prio))

KT_EVENT_X(sched_try_wakeup, sched_waking,
	KT_PASS(kt_pid_pass(current) || kt_pid_pass(p)), KT_GRP_NONE,
	KT_PROTO(struct task_struct *p),
	KT_FIELDS(
		KT_FIELD(int, pid);
		KT_FIELD(int, prio);
		KT_FIELD(int, target_cpu);),
	KT_ASSIGN(
		e->pid = p->pid;
		e->prio = p->prio;
		e->target_cpu = task_cpu(p);),
	KT_PRINT("\"pid=%d prio=%d target_cpu=%d\"",
		 REC->pid, REC->prio, REC->target_cpu))

KT_EVENT(syscall_entry, sys_enter,
	KT_PROTO(struct pt_regs *regs, long id),
	KT_FIELDS(
		KT_FIELD(long, nr);
		KT_ARRAY(unsigned long, args, 6);),
	KT_ASSIGN(
		e->nr = id;
		syscall_get_arguments(current, regs, e->args);),
	KT_PRINT("\"nr=%ld args=(0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx)\"",
		 REC->nr, REC->args[0], REC->args[1], REC->args[2],
		 REC->args[3], REC->args[4], REC->args[5]))

KT_EVENT(syscall_exit, sys_exit,
	KT_PROTO(struct pt_regs *regs, long ret),
	KT_FIELDS(
		KT_FIELD(long, nr);
		KT_FIELD(long, ret);),
	KT_ASSIGN(
		e->nr = syscall_get_nr(current, regs);
		e->ret = ret;),
	KT_PRINT("\"nr=%ld ret=%ld\"",
		 REC->nr, REC->ret))

KT_EVENT(softirq_entry, softirq_entry,
	KT_PROTO(unsigned int vec_nr),
	KT_FIELDS(
		KT_FIELD(unsigned int, vec);),
	KT_ASSIGN(
		e->vec = vec_nr;),
	KT_PRINT("\"vec=%u\"",
		 REC->vec))

KT_EVENT(softirq_exit, softirq_exit,
	KT_PROTO(unsigned int vec_nr),
	KT_FIELDS(
		KT_FIELD(unsigned int, vec);),
	KT_ASSIGN(
		e->vec = vec_nr;),
	KT_PRINT("\"vec=%u\"",
		 REC->vec))

KT_EVENT(irq_entry, irq_handler_entry,
	KT_PROTO(int irq, struct irqaction *action),
	KT_FIELDS(
		KT_FIELD(int, irq);),
	KT_ASSIGN(
		e->irq = irq;),
	KT_PRINT("\"irq=%d\"",
		 REC->irq))

KT_EVENT(irq_exit, irq_handler_exit,
	KT_PROTO(int irq, struct irqaction *action, int ret),
	KT_FIELDS(
		KT_FIELD(int, irq);
		KT_FIELD(int, ret);),
	KT_ASSIGN(
		e->irq = irq;
		e->ret = ret;),
	KT_PRINT("\"irq=%d ret=%d\"",
		 REC->irq, REC->ret))

KT_EVENT(timer_set, timer_start,
	KT_PROTO(KT_TIMER_START_PROTO),
	KT_FIELDS(
		KT_FIELD(unsigned long, function);
		KT_FIELD(unsigned long, expires);),
	KT_ASSIGN(
		e->function = (unsigned long)timer->function;
		e->expires = timer->expires;),
	KT_PRINT("\"function=%ps expires=%lu\"",
		 (void *)REC->function, REC->expires))

KT_EVENT(page_alloc, mm_page_alloc,
	KT_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags,
		 int migratetype),
	KT_FIELDS(
		KT_FIELD(unsigned long, pfn);
		KT_FIELD(unsigned int, order);
		KT_FIELD(unsigned int, gfp_flags);),
	KT_ASSIGN(
		e->pfn = page ? page_to_pfn(page) : -1UL;
		e->order = order;
		e->gfp_flags = (__force unsigned int)gfp_flags;),
	KT_PRINT("\"pfn=0x%lx order=%u gfp_flags=0x%x\"",
		 REC->pfn, REC->order, REC->gfp_flags))

KT_EVENT(page_free, mm_page_free,
	KT_PROTO(struct page *page, unsigned int order),
	KT_FIELDS(
		KT_FIELD(unsigned long, pfn);
		KT_FIELD(unsigned int, order);),
	KT_ASSIGN(
		e->pfn = page_to_pfn(page);
		e->order = order;),
	KT_PRINT("\"pfn=0x%lx order=%u\"",
		 REC->pfn, REC->order))

KT_EVENT(dev_xmit, net_dev_xmit,
	KT_PROTO(struct sk_buff *skb, int rc, struct net_device *dev,
		 unsigned int skb_len),
	KT_FIELDS(
		KT_FIELD(unsigned int, len);
		KT_FIELD(int, rc);
		KT_FIELD(int, ifindex);),
	KT_ASSIGN(
		e->len = skb_len;
		e->rc = rc;
		e->ifindex = dev->ifindex;),
	KT_PRINT("\"len=%u rc=%d ifindex=%d\"",
		 REC->len, REC->rc, REC->ifindex))

KT_EVENT(dev_receive, netif_receive_skb,
	KT_PROTO(struct sk_buff *skb),
	KT_FIELDS(
		KT_FIELD(unsigned int, len);
		KT_FIELD(int, ifindex);
		KT_FIELD(unsigned short, protocol);),
	KT_ASSIGN(
		e->len = skb->len;
		e->ifindex = skb->dev ? skb->dev->ifindex : 0;
		e->protocol = ntohs(skb->protocol);),
	KT_PRINT("\"len=%u ifindex=%d protocol=0x%04x\"",
		 REC->len, REC->ifindex, REC->protocol))

KT_EVENT(napi_poll, napi_poll,
	KT_PROTO(struct napi_struct *napi, int work, int budget),
	KT_FIELDS(
		KT_FIELD(int, ifindex);
		KT_FIELD(int, work);
		KT_FIELD(int, budget);),
	KT_ASSIGN(
		e->ifindex = napi->dev ? napi->dev->ifindex : 0;
		e->work = work;
		e->budget = budget;),
	KT_PRINT("\"ifindex=%d work=%d budget=%d\"",
		 REC->ifindex, REC->work, REC->budget))

KT_EVENT(sched_process_fork, sched_process_fork,
	KT_PROTO(struct task_struct *parent, struct task_struct *child),
	KT_FIELDS(
		KT_FIELD(int, parent_pid);
		KT_FIELD(int, child_pid);
		KT_ARRAY(char, child_comm, 16);),
	KT_ASSIGN(
		e->parent_pid = parent->pid;
		e->child_pid = child->pid;
		memcpy(e->child_comm, child->comm, sizeof(e->child_comm));),
	KT_PRINT("\"parent_pid=%d child_pid=%d child_comm=%s\"",
		 REC->parent_pid, REC->child_pid, REC->child_comm))

KT_EVENT(sched_process_exec, sched_process_exec,
	KT_PROTO(struct task_struct *p, pid_t old_pid,
		 struct linux_binprm *bprm),
	KT_FIELDS(
		KT_FIELD(int, pid);
		KT_FIELD(int, old_pid);
		KT_ARRAY(char, comm, 16);),
	KT_ASSIGN(
		e->pid = p->pid;
		e->old_pid = old_pid;
		memcpy(e->comm, p->comm, sizeof(e->comm));),
	KT_PRINT("\"pid=%d old_pid=%d comm=%s\"",
		 REC->pid, REC->old_pid, REC->comm))

KT_EVENT(sched_process_exit, sched_process_exit,
	KT_PROTO(struct task_struct *p),
	KT_FIELDS(
		KT_FIELD(int, pid);
		KT_ARRAY(char, comm, 16);),
	KT_ASSIGN(
		e->pid = p->pid;
		memcpy(e->comm, p->comm, sizeof(e->comm));),
	KT_PRINT("\"pid=%d comm=%s\"",
		 REC->pid, REC->comm))

/*
 * The process tracer: what the processes in the pid set do, with the
 * task's comm in every record.  Its filters (uid, comm) come after the
 * pid set; its groups are switched by process_trace_* files.
 */
KT_EVENT_X(process_fork, task_newtask,
	KT_PASS(kt_proc_pass()), KT_GRP_LIFECYCLE,
	KT_PROTO(struct task_struct *task, unsigned long clone_flags),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(int, child_pid);
		KT_FIELD(unsigned long, clone_flags);),
	KT_ASSIGN(
		memcpy(e->comm, current->comm, sizeof(e->comm));
		e->child_pid = task->pid;
		e->clone_flags = clone_flags;),
	KT_PRINT("\"comm=%s child_pid=%d clone_flags=0x%lx\"",
		 REC->comm, REC->child_pid, REC->clone_flags))

KT_EVENT_X(process_exec, sched_process_exec,
	KT_PASS(kt_proc_pass()), KT_GRP_LIFECYCLE,
	KT_PROTO(struct task_struct *p, pid_t old_pid,
		 struct linux_binprm *bprm),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(int, old_pid);
		KT_ARRAY(char, filename, 256);),
	KT_ASSIGN(
		memcpy(e->comm, p->comm, sizeof(e->comm));
		e->old_pid = old_pid;
		/* Padded: the buffer's old contents must not leak out. */
		strscpy_pad(e->filename, bprm->filename, sizeof(e->filename));),
	KT_PRINT("\"comm=%s old_pid=%d filename=%s\"",
		 REC->comm, REC->old_pid, REC->filename))

KT_EVENT_X(process_exit, sched_process_exit,
	KT_PASS(kt_proc_pass()), KT_GRP_LIFECYCLE,
	KT_PROTO(struct task_struct *p),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(int, exit_code);),
	KT_ASSIGN(
		memcpy(e->comm, p->comm, sizeof(e->comm));
		e->exit_code = p->exit_code;),
	KT_PRINT("\"comm=%s exit_code=0x%x\"",
		 REC->comm, REC->exit_code))

KT_EVENT_X(process_signal, signal_deliver,
	KT_PASS(kt_proc_pass()), KT_GRP_SIGNALS,
	KT_PROTO(int sig, struct kernel_siginfo *info, struct k_sigaction *ka),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(int, signo);
		KT_FIELD(int, errno);
		KT_FIELD(int, code);),
	KT_ASSIGN(
		memcpy(e->comm, current->comm, sizeof(e->comm));
		e->signo = sig;
		kt_siginfo(info, &e->errno, &e->code);),
	KT_PRINT("\"comm=%s signo=%d errno=%d code=%d\"",
		 REC->comm, REC->signo, REC->errno, REC->code))

/*
 * A signal as it was sent, in the sender: a fatal one reaches every
 * thread of its target as SIGKILL, so only this has the signal itself.
 * Kept when the sender or the target is traced, so a signal sent to the
 * tree from outside says who sent it.
 */
KT_EVENT_X(process_signal_generate, signal_generate,
	KT_PASS(kt_proc_pass() || kt_proc_pass_task(task)), KT_GRP_SIGNALS,
	KT_PROTO(int sig, struct kernel_siginfo *info, struct task_struct *task,
		 int group, int result),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(int, signo);
		KT_FIELD(int, errno);
		KT_FIELD(int, code);
		KT_FIELD(int, pid);
		KT_FIELD(int, group);
		KT_FIELD(int, result);),
	KT_ASSIGN(
		memcpy(e->comm, current->comm, sizeof(e->comm));
		e->signo = sig;
		kt_siginfo(info, &e->errno, &e->code);
		e->pid = task->pid;
		e->group = group;
		e->result = result;),
	KT_PRINT("\"comm=%s signo=%d errno=%d code=%d pid=%d group=%d result=%d\"",
		 REC->comm, REC->signo, REC->errno, REC->code, REC->pid,
		 REC->group, REC->result))

KT_EVENT_X(process_syscall_entry, sys_enter,
	KT_PASS(kt_proc_pass()), KT_GRP_SYSCALLS,
	KT_PROTO(struct pt_regs *regs, long id),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(long, nr);
		KT_ARRAY(unsigned long, args, 6);),
	KT_ASSIGN(
		memcpy(e->comm, current->comm, sizeof(e->comm));
		e->nr = id;
		syscall_get_arguments(current, regs, e->args);),
	KT_PRINT("\"comm=%s nr=%ld args=(0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx)\"",
		 REC->comm, REC->nr, REC->args[0], REC->args[1], REC->args[2],
		 REC->args[3], REC->args[4], REC->args[5]))

KT_EVENT_X(process_syscall_exit, sys_exit,
	KT_PASS(kt_proc_pass()), KT_GRP_SYSCALLS,
	KT_PROTO(struct pt_regs *regs, long ret),
	KT_FIELDS(
		KT_ARRAY(char, comm, 16);
		KT_FIELD(long, nr);
		KT_FIELD(long, ret);
		KT_FIELD(int, errno);),
	KT_ASSIGN(
		memcpy(e->comm, current->comm, sizeof(e->comm));
		e->nr = syscall_get_nr(current, regs);
		e->ret = ret;
		e->errno = IS_ERR_VALUE(ret) ? (int)-ret : 0;),
	KT_PRINT("\"comm=%s nr=%ld ret=%ld errno=%d\"",
		 REC->comm, REC->nr, REC->ret, REC->errno))
