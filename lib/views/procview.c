// SPDX-License-Identifier: GPL-2.0
/*
 * The process view (see procview.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/symbols.h"
#include "views/procview.h"

#define CLONE_THREAD_FLAG	0x00010000ULL
/* x86_64 numbers of the calls that carry an exit code. */
#define NR_EXIT_X86_64		60
#define NR_EXIT_GROUP_X86_64	231
/* Past this many live tasks the view stops remembering (codes print ?). */
#define MAX_TASKS		(1u << 22)

enum kind {
	K_NEWTASK,
	K_FORK,		/* sched_process_fork: no clone flags */
	K_EXEC,
	K_EXIT,
	K_EXIT_GROUP,	/* syscalls:sys_enter_exit_group */
	K_EXIT_THREAD,	/* syscalls:sys_enter_exit */
	K_SIGNAL,
	K_GENERATE,	/* signal:signal_generate, in the sender */
	K_SYS_ENTER,
	K_SYS_EXIT,
	/* ktrace.ko's process tracer: the same facts, its own fields. */
	K_KT_FORK,
	K_KT_EXEC,
	K_KT_EXIT,	/* with the exit status itself */
	K_KT_SIGNAL,
	K_KT_GENERATE,
	K_KT_SYS_ENTER,
	K_KT_SYS_EXIT,
	K_NKINDS,
};

static const struct {
	const char *system, *name;
} kind_events[K_NKINDS] = {
	[K_NEWTASK]	= { "task", "task_newtask" },
	[K_FORK]	= { "sched", "sched_process_fork" },
	[K_EXEC]	= { "sched", "sched_process_exec" },
	[K_EXIT]	= { "sched", "sched_process_exit" },
	[K_EXIT_GROUP]	= { "syscalls", "sys_enter_exit_group" },
	[K_EXIT_THREAD]	= { "syscalls", "sys_enter_exit" },
	[K_SIGNAL]	= { "signal", "signal_deliver" },
	[K_GENERATE]	= { "signal", "signal_generate" },
	[K_SYS_ENTER]	= { "raw_syscalls", "sys_enter" },
	[K_SYS_EXIT]	= { "raw_syscalls", "sys_exit" },
	[K_KT_FORK]	= { "ktrace", "process_fork" },
	[K_KT_EXEC]	= { "ktrace", "process_exec" },
	[K_KT_EXIT]	= { "ktrace", "process_exit" },
	[K_KT_SIGNAL]	= { "ktrace", "process_signal" },
	[K_KT_GENERATE]	= { "ktrace", "process_signal_generate" },
	[K_KT_SYS_ENTER] = { "ktrace", "process_syscall_entry" },
	[K_KT_SYS_EXIT]	= { "ktrace", "process_syscall_exit" },
};

/* The fields the view reads, looked up once per event. */
struct kind_fields {
	int id;				/* -1: not in the file */
	struct tep_format_field *pid;	/* common_pid */
	struct tep_format_field *f[6];
};

/* What is known of one live task. */
struct task {
	int pid;			/* 0: free slot */
	int tgid;
	int own_code;			/* exit(code); -1 unknown */
	int group_code;			/* exit_group(code), on the leader */
	int killed_by;			/* a fatal signal it took, or 0 */
	int sent_fatal;			/* on the leader: a fatal signal sent */
	unsigned int threads;		/* on the leader: live threads known */
	bool gone;			/* on the leader: it has exited */
};

struct kt_procview {
	struct tep_handle *tep;
	bool x86_64;
	struct kind_fields k[K_NKINDS];
	struct task *tasks;
	unsigned int cap, used;
};

bool kt_procview_marked(const char *version)
{
	const char *p = version ? strstr(version, KT_PROCVIEW_MARK) : NULL;

	/* A word of its own. */
	return p && (p == version || p[-1] == ' ') &&
	       (p[strlen(KT_PROCVIEW_MARK)] == '\0' ||
		p[strlen(KT_PROCVIEW_MARK)] == ' ');
}

/* ---- the task table: open addressing on pid, backward-shift delete ---- */

static unsigned int slot_of(const struct kt_procview *pv, int pid)
{
	return ((unsigned int)pid * 2654435761u) & (pv->cap - 1);
}

static struct task *task_find(struct kt_procview *pv, int pid)
{
	unsigned int i;

	if (!pv->cap || pid <= 0)
		return NULL;
	for (i = slot_of(pv, pid); pv->tasks[i].pid; i = (i + 1) & (pv->cap - 1))
		if (pv->tasks[i].pid == pid)
			return &pv->tasks[i];
	return NULL;
}

static int task_grow(struct kt_procview *pv)
{
	unsigned int old_cap = pv->cap, i, cap = old_cap ? old_cap * 2 : 256;
	struct task *old = pv->tasks, *t;

	if (cap > MAX_TASKS * 2)
		return -ENOSPC;
	pv->tasks = calloc(cap, sizeof(*pv->tasks));
	if (!pv->tasks) {
		pv->tasks = old;
		return -ENOMEM;
	}
	pv->cap = cap;
	for (i = 0; i < old_cap; i++) {
		if (!old[i].pid)
			continue;
		for (t = &pv->tasks[slot_of(pv, old[i].pid)]; t->pid;
		     t = &pv->tasks[(t - pv->tasks + 1) & (cap - 1)])
			;
		*t = old[i];
	}
	free(old);
	return 0;
}

/* The task's entry, made (as its own process) when new; NULL when full. */
static struct task *task_get(struct kt_procview *pv, int pid)
{
	struct task *t = task_find(pv, pid);
	unsigned int i;

	if (t || pid <= 0)
		return t;
	if ((pv->used + 1) * 2 > pv->cap && task_grow(pv))
		return NULL;
	for (i = slot_of(pv, pid); pv->tasks[i].pid; i = (i + 1) & (pv->cap - 1))
		;
	t = &pv->tasks[i];
	*t = (struct task){ .pid = pid, .tgid = pid, .own_code = -1,
			    .group_code = -1, .killed_by = 0 };
	pv->used++;
	return t;
}

static void task_del(struct kt_procview *pv, struct task *t)
{
	unsigned int mask = pv->cap - 1, i = t - pv->tasks, j = i, home;

	/* Shift later members of the probe run back into the hole. */
	for (;;) {
		j = (j + 1) & mask;
		if (!pv->tasks[j].pid)
			break;
		home = slot_of(pv, pv->tasks[j].pid);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			pv->tasks[i] = pv->tasks[j];
			i = j;
		}
	}
	pv->tasks[i].pid = 0;
	pv->used--;
}

static int tgid_of(struct kt_procview *pv, int pid)
{
	struct task *t = task_find(pv, pid);

	return t ? t->tgid : pid;
}

/* ---- reading fields, never outside the record ---- */

static bool read_num(const struct tep_record *rec,
		     const struct tep_format_field *f, long long *out)
{
	unsigned long long v;

	if (!f || f->size <= 0 || f->size > 8 || f->offset < 0 ||
	    f->offset + f->size > rec->size)
		return false;
	if (tep_read_number_field((struct tep_format_field *)f, rec->data, &v))
		return false;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 &&
	    (v & (1ULL << (f->size * 8 - 1))))
		v |= ~0ULL << (f->size * 8);
	*out = (long long)v;
	return true;
}

/*
 * A __data_loc / __rel_loc string, or a char array in the record (as
 * ktrace.ko's are): pointer and length inside the record.
 */
static bool read_str(const struct tep_record *rec,
		     const struct tep_format_field *f, const char **str,
		     int *len)
{
	long long loc;
	unsigned int off, n;
	const char *p;

	if (f && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
	    (f->flags & TEP_FIELD_IS_ARRAY) && f->offset >= 0 && f->size > 0 &&
	    f->offset + f->size <= rec->size) {
		*str = (const char *)rec->data + f->offset;
		*len = strnlen(*str, f->size);
		return true;
	}
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4 ||
	    !read_num(rec, f, &loc))
		return false;
	off = loc & 0xffff;
	n = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	if (off > (unsigned int)rec->size || n > rec->size - off)
		return false;
	p = (const char *)rec->data + off;
	*str = p;
	*len = strnlen(p, n);
	return true;
}

static void lookup_kind(struct kt_procview *pv, enum kind k)
{
	static const char *const fields[K_NKINDS][6] = {
		[K_NEWTASK]	= { "pid", "clone_flags" },
		[K_FORK]	= { "child_pid" },
		[K_EXEC]	= { "filename", "pid", "old_pid" },
		[K_EXIT]	= { "pid" },
		[K_EXIT_GROUP]	= { "error_code" },
		[K_EXIT_THREAD]	= { "error_code" },
		[K_SIGNAL]	= { "sig", "errno", "code", "sa_handler" },
		[K_GENERATE]	= { "sig", "errno", "code", "pid", "group",
				    "result" },
		[K_SYS_ENTER]	= { "id", "args" },
		[K_SYS_EXIT]	= { "id", "ret" },
		/* The task is common_pid; NULL: a field it has not. */
		[K_KT_FORK]	= { "child_pid", "clone_flags" },
		[K_KT_EXEC]	= { "filename", NULL, "old_pid" },
		[K_KT_EXIT]	= { "exit_code" },
		[K_KT_SIGNAL]	= { "signo", "errno", "code" },
		[K_KT_GENERATE]	= { "signo", "errno", "code", "pid", "group",
				    "result" },
		[K_KT_SYS_ENTER] = { "nr", "args" },
		[K_KT_SYS_EXIT]	= { "nr", "ret" },
	};
	struct tep_event *ev = tep_find_event_by_name(pv->tep, kind_events[k].system,
						      kind_events[k].name);
	int i;

	pv->k[k].id = -1;
	if (!ev)
		return;
	pv->k[k].id = ev->id;
	pv->k[k].pid = tep_find_common_field(ev, "common_pid");
	for (i = 0; i < 6; i++)
		if (fields[k][i])
			pv->k[k].f[i] = tep_find_field(ev, fields[k][i]);
}

struct kt_procview *kt_procview_new(struct tep_handle *tep, const char *machine)
{
	struct kt_procview *pv;
	int k;

	if (!tep) {
		errno = EINVAL;
		return NULL;
	}
	pv = calloc(1, sizeof(*pv));
	if (!pv)
		return NULL;
	pv->tep = tep;
	pv->x86_64 = !machine || !strcmp(machine, "x86_64");
	for (k = 0; k < K_NKINDS; k++)
		lookup_kind(pv, k);
	return pv;
}

void kt_procview_free(struct kt_procview *pv)
{
	if (!pv)
		return;
	free(pv->tasks);
	free(pv);
}

/* ---- the lines ---- */

static void put_num(struct trace_seq *s, bool ok, long long v)
{
	if (ok)
		trace_seq_printf(s, "%lld", v);
	else
		trace_seq_puts(s, "?");
}

static void remember_exit_code(struct kt_procview *pv, int pid, bool group,
			       long long code)
{
	struct task *t;

	if (group) {
		t = task_get(pv, tgid_of(pv, pid));
		if (t)
			t->group_code = code & 0xff;
	} else {
		t = task_get(pv, pid);
		if (t)
			t->own_code = code & 0xff;
	}
}

static void show_newtask(struct kt_procview *pv, struct trace_seq *s,
			 const struct kind_fields *k, struct tep_record *rec)
{
	long long parent, child, flags;
	bool have_parent = read_num(rec, k->pid, &parent);
	bool have_child = read_num(rec, k->f[0], &child);
	bool have_flags = read_num(rec, k->f[1], &flags);
	bool thread = have_flags && (flags & CLONE_THREAD_FLAG);
	struct task *t;

	if (have_child && (t = task_find(pv, child)))
		task_del(pv, t);	/* a reused pid starts afresh */
	if (have_child && thread && have_parent) {
		int tgid = tgid_of(pv, parent);

		struct task *leader = task_get(pv, tgid);

		t = leader && tgid != child ? task_get(pv, child) : NULL;
		if (t) {
			t->tgid = tgid;
			/* task_get may have moved the leader: look again. */
			task_find(pv, tgid)->threads++;
		}
	}
	trace_seq_puts(s, thread ? "thread " : "fork ");
	put_num(s, have_child, child);
	if (have_flags)
		trace_seq_printf(s, " flags 0x%llx", (unsigned long long)flags);
	else
		trace_seq_puts(s, " flags ?");
}

static void show_exec(struct trace_seq *s, const struct kind_fields *k,
		      struct tep_record *rec)
{
	const char *file;
	long long pid, old;
	int len;

	trace_seq_puts(s, "exec ");
	if (read_str(rec, k->f[0], &file, &len))
		trace_seq_printf(s, "%.*s", len, file);
	else
		trace_seq_puts(s, "?");
	/* A thread that execs takes the leader's pid: say which it was. */
	if (read_num(rec, k->f[1] ? k->f[1] : k->pid, &pid) &&
	    read_num(rec, k->f[2], &old) && pid != old)
		trace_seq_printf(s, " old_pid %lld", old);
}

static void task_gone(struct kt_procview *pv, struct task *t,
		      struct task *leader);

/* "killed by 9 SIGKILL" after "exit ?" */
static void put_killed(struct trace_seq *s, int sig)
{
	const char *name = sig > 0 && sig < NSIG ? sigabbrev_np(sig) : NULL;

	trace_seq_printf(s, " killed by %d SIG%s", sig, name ?: "?");
}

static void show_exit(struct kt_procview *pv, struct trace_seq *s,
		      const struct kind_fields *k, struct tep_record *rec)
{
	long long pid;
	struct task *t = NULL, *leader;
	int code = -1;

	if (read_num(rec, k->f[0], &pid) || read_num(rec, k->pid, &pid))
		t = task_find(pv, pid);
	if (t && t->own_code >= 0)
		code = t->own_code;
	leader = t ? task_find(pv, t->tgid) : NULL;
	if (code < 0 && leader && leader->group_code >= 0)
		code = leader->group_code;
	trace_seq_puts(s, "exit ");
	put_num(s, code >= 0, code);
	if (!t)
		return;
	/*
	 * No exit call: say which signal ended it, when one did.  A fatal
	 * signal reaches every thread as SIGKILL: name the one sent.
	 */
	if (code < 0 && t->killed_by)
		put_killed(s, t->killed_by == SIGKILL && leader &&
			      leader->sent_fatal ? leader->sent_fatal :
						   t->killed_by);
	task_gone(pv, t, leader);
}

/*
 * ktrace.ko's exit carries the wait status: the code, or the signal
 * that ended the task, printed as the ftrace exit line prints them.
 */
static void show_kt_exit(struct kt_procview *pv, struct trace_seq *s,
			 const struct kind_fields *k, struct tep_record *rec)
{
	long long pid, status;
	struct task *t = NULL;

	trace_seq_puts(s, "exit ");
	if (!read_num(rec, k->f[0], &status))
		trace_seq_puts(s, "?");
	else if (status & 0x7f) {
		trace_seq_puts(s, "?");
		put_killed(s, status & 0x7f);
	}
	else
		trace_seq_printf(s, "%lld", (status >> 8) & 0xff);
	if (read_num(rec, k->pid, &pid))
		t = task_find(pv, pid);
	if (t)
		task_gone(pv, t, task_find(pv, t->tgid));
}

/* The task exited: forget it, or keep what its threads still need. */
static void task_gone(struct kt_procview *pv, struct task *t,
		      struct task *leader)
{
	/*
	 * The leader keeps the group's code for the threads still to go,
	 * and goes with the last of them.
	 */
	if (t->pid != t->tgid) {
		task_del(pv, t);
		if (leader && (leader = task_find(pv, leader->pid)) &&
		    leader->threads && !--leader->threads && leader->gone)
			task_del(pv, leader);
	} else if (!t->threads) {
		task_del(pv, t);
	} else {
		t->own_code = -1;
		t->gone = true;
	}
}

/* Signals whose default action ends the process (signal(7)). */
static bool fatal_by_default(long long sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	}
	return sig > 0 && sig < 32;
}

/* "10 SIGUSR1", with '?' for what the record lacks. */
static void put_signal(struct trace_seq *s, bool ok, long long sig)
{
	const char *name = ok && sig > 0 && sig < NSIG ?
			   sigabbrev_np((int)sig) : NULL;

	put_num(s, ok, sig);
	if (name)
		trace_seq_printf(s, " SIG%s", name);
}

/* " errno 0 code 0x0": si_code in hex, as siginfo.h's tables write it. */
static void put_siginfo(struct trace_seq *s, const struct kind_fields *k,
			const struct tep_record *rec)
{
	long long err, code;
	bool have_err = read_num(rec, k->f[1], &err);
	bool have_code = read_num(rec, k->f[2], &code);

	trace_seq_puts(s, " errno ");
	put_num(s, have_err, err);
	trace_seq_puts(s, " code ");
	if (!have_code)
		trace_seq_putc(s, '?');
	else if (code < 0)
		trace_seq_printf(s, "-0x%llx", -(unsigned long long)code);
	else
		trace_seq_printf(s, "0x%llx", (unsigned long long)code);
}

static void show_signal(struct kt_procview *pv, struct trace_seq *s,
			const struct kind_fields *k, struct tep_record *rec)
{
	long long sig, handler, pid;
	bool have_sig = read_num(rec, k->f[0], &sig);
	struct task *t, *leader = NULL;

	/*
	 * SIGKILL always ends it; others when their handler is SIG_DFL.
	 * (An ignored one is not delivered.)
	 */
	if (have_sig && fatal_by_default(sig) && read_num(rec, k->pid, &pid) &&
	    (sig == SIGKILL || (read_num(rec, k->f[3], &handler) && handler == 0)) &&
	    (t = task_get(pv, pid)))
		t->killed_by = sig;
	/* After task_get(), which may move the entries. */
	if (have_sig && read_num(rec, k->pid, &pid) && (t = task_find(pv, pid)))
		leader = task_find(pv, t->tgid);

	trace_seq_puts(s, "signal ");
	put_signal(s, have_sig, sig);
	put_siginfo(s, k, rec);
	if (!leader || !leader->sent_fatal)
		return;
	/*
	 * The kernel ends a group on a fatal signal by sending its threads
	 * SIGKILL; one delivered the usual way (to a handler, or once
	 * unblocked) is no longer pending.
	 */
	if (sig == SIGKILL && leader->sent_fatal != SIGKILL) {
		trace_seq_puts(s, " sent as ");
		put_signal(s, true, leader->sent_fatal);
	} else if (sig == leader->sent_fatal) {
		leader->sent_fatal = 0;
	}
}

/*
 * signal_generate, in the sender's context: what was sent to whom and
 * what became of it (the kernel's enum trace_signal_result).  A fatal
 * one is remembered on the target's group for the lines of its end.
 */
static void show_generate(struct kt_procview *pv, struct trace_seq *s,
			  const struct kind_fields *k, struct tep_record *rec)
{
	static const char *const results[] = {
		"delivered", "ignored", "already pending", "overflow",
		"lose_info",
	};
	long long sig, pid, group, result;
	bool have_sig = read_num(rec, k->f[0], &sig);
	bool have_pid = read_num(rec, k->f[3], &pid);
	bool have_res = read_num(rec, k->f[5], &result);
	struct task *leader;

	if (have_sig && have_pid && have_res && result == 0 &&
	    fatal_by_default(sig) && (leader = task_get(pv, tgid_of(pv, pid))))
		leader->sent_fatal = sig;

	trace_seq_puts(s, "signal ");
	put_signal(s, have_sig, sig);
	trace_seq_puts(s, " sent to ");
	if (read_num(rec, k->f[4], &group))
		trace_seq_puts(s, group ? "process " : "thread ");
	put_num(s, have_pid, pid);
	put_siginfo(s, k, rec);
	trace_seq_puts(s, " result ");
	if (have_res && result >= 0 &&
	    result < (long long)(sizeof(results) / sizeof(results[0])))
		trace_seq_puts(s, results[result]);
	else
		put_num(s, have_res, result);
}

static void put_call(struct kt_procview *pv, struct trace_seq *s, bool have_id,
		     long long id, int *nargs)
{
	const char *name = NULL;

	*nargs = 6;
	if (have_id && pv->x86_64)
		name = kt_syscall_name(NULL, id, nargs);
	trace_seq_puts(s, "syscall ");
	if (name)
		trace_seq_puts(s, name);
	else if (have_id)
		trace_seq_printf(s, "syscall_%lld", id);
	else
		trace_seq_puts(s, "?");
}

static void show_sys_enter(struct kt_procview *pv, struct trace_seq *s,
			   const struct kind_fields *k, struct tep_record *rec)
{
	const struct tep_format_field *args = k->f[1];
	long long id = 0, pid;
	bool have_id = read_num(rec, k->f[0], &id);
	int nargs, i, es;

	put_call(pv, s, have_id, id, &nargs);
	trace_seq_putc(s, '(');
	es = args && args->arraylen ? args->size / (int)args->arraylen : 0;
	for (i = 0; i < nargs; i++) {
		const unsigned char *p;

		if (i)
			trace_seq_puts(s, ", ");
		if (!args || (es != 4 && es != 8) || i >= (int)args->arraylen ||
		    args->offset < 0 || args->offset + (i + 1) * es > rec->size) {
			trace_seq_puts(s, "?");
			continue;
		}
		p = (const unsigned char *)rec->data + args->offset + i * es;
		trace_seq_printf(s, "0x%llx", tep_read_number(pv->tep, p, es));
	}
	trace_seq_putc(s, ')');
	/* An exit call carries the code the exit line will show. */
	if (have_id && pv->x86_64 && read_num(rec, k->pid, &pid) && args &&
	    (es == 4 || es == 8) && args->offset >= 0 &&
	    args->offset + es <= rec->size &&
	    (id == NR_EXIT_GROUP_X86_64 || id == NR_EXIT_X86_64))
		remember_exit_code(pv, pid, id == NR_EXIT_GROUP_X86_64,
				   tep_read_number(pv->tep,
						   (char *)rec->data + args->offset, es));
}

static void show_sys_exit(struct kt_procview *pv, struct trace_seq *s,
			  const struct kind_fields *k, struct tep_record *rec)
{
	long long id = 0, ret;
	bool have_id = read_num(rec, k->f[0], &id);
	const char *ename;
	int nargs;

	put_call(pv, s, have_id, id, &nargs);
	if (!read_num(rec, k->f[1], &ret)) {
		trace_seq_puts(s, " rc ? error ?");
		return;
	}
	if (ret < 0 && ret >= -4095) {
		ename = kt_errno_name(-ret);
		trace_seq_printf(s, " rc -1 error %lld", -ret);
		if (ename)
			trace_seq_printf(s, " %s", ename);
	} else if (ret > 0xffff || ret < 0) {
		/* An address (mmap, brk): hex reads better. */
		trace_seq_printf(s, " rc 0x%llx error 0", (unsigned long long)ret);
	} else {
		trace_seq_printf(s, " rc %lld error 0", ret);
	}
}

bool kt_procview_hides(const struct kt_procview *pv,
		       const struct tep_event *event)
{
	return (pv->k[K_EXIT_GROUP].id >= 0 && event->id == pv->k[K_EXIT_GROUP].id) ||
	       (pv->k[K_EXIT_THREAD].id >= 0 && event->id == pv->k[K_EXIT_THREAD].id);
}

int kt_procview_format(struct kt_procview *pv, struct trace_seq *s,
		       struct tep_event *event, struct tep_record *record)
{
	const struct kind_fields *k;
	long long pid = 0, code;
	bool ok;
	int kind;

	for (kind = 0; kind < K_NKINDS; kind++)
		if (pv->k[kind].id >= 0 && pv->k[kind].id == event->id)
			break;
	if (kind == K_NKINDS)
		return -ENOENT;
	k = &pv->k[kind];
	switch (kind) {
	case K_NEWTASK:
	case K_KT_FORK:
		show_newtask(pv, s, k, record);
		break;
	case K_FORK:
		ok = read_num(record, k->f[0], &pid);
		trace_seq_puts(s, "fork ");
		put_num(s, ok, pid);
		trace_seq_puts(s, " flags ?");
		break;
	case K_EXEC:
	case K_KT_EXEC:
		show_exec(s, k, record);
		break;
	case K_EXIT:
		show_exit(pv, s, k, record);
		break;
	case K_KT_EXIT:
		show_kt_exit(pv, s, k, record);
		break;
	case K_EXIT_GROUP:
	case K_EXIT_THREAD:
		if (read_num(record, k->pid, &pid) &&
		    read_num(record, k->f[0], &code))
			remember_exit_code(pv, pid, kind == K_EXIT_GROUP, code);
		return KT_PROCVIEW_HIDDEN;
	case K_SIGNAL:
	case K_KT_SIGNAL:
		show_signal(pv, s, k, record);
		break;
	case K_GENERATE:
	case K_KT_GENERATE:
		show_generate(pv, s, k, record);
		break;
	case K_SYS_ENTER:
	case K_KT_SYS_ENTER:
		show_sys_enter(pv, s, k, record);
		break;
	case K_SYS_EXIT:
	case K_KT_SYS_EXIT:
		show_sys_exit(pv, s, k, record);
		break;
	}
	return KT_PROCVIEW_SHOWN;
}
