// SPDX-License-Identifier: GPL-2.0
/*
 * The ktrace event engine: the record layouts, probes and format files
 * generated from the one event table (events/ktrace-events.h), and the
 * attaching of probes to the kernel's tracepoints.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

/*
 * The kernel's own tracepoint declarations: they give us
 * check_trace_callback_type_<tp>(), so a probe whose prototype does not
 * match the running kernel's tracepoint fails to build.
 */
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/napi.h>
#include <trace/events/net.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>
#include <trace/events/timer.h>

#include "compat.h"
#include "ktrace.h"
#include "ktrace-channel.h"
#include "ktrace-events.h"
#include "ktrace-modevents.h"
#include "ktrace-pidset.h"
#include "ktrace-process.h"

/* ftrace's common header, so libtraceevent finds type, flags and pid. */
struct kt_common {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

/* ftrace's TRACE_FLAG_* values for common_flags. */
#define KT_FLAG_IRQS_OFF	0x01
#define KT_FLAG_HARDIRQ		0x08
#define KT_FLAG_SOFTIRQ		0x10
#define KT_FLAG_NMI		0x40

#define KT_SIGNED(t)		(((t)(-1)) < (t)1)

#define KT_PROTO(...)		__VA_ARGS__
#define KT_PASS(...)		(__VA_ARGS__)
/* A plain event records what the pid set lets through of current. */
#define KT_EVENT(name, tp, proto, fields, assign, print)		\
	KT_EVENT_X(name, tp, KT_PASS(kt_pid_pass(current)), KT_GRP_NONE,	\
		   KT_PROTO(proto), KT_FIELDS(fields), KT_ASSIGN(assign),	\
		   print)
#define KT_FIELDS(...)		__VA_ARGS__
#define KT_ASSIGN(...)		__VA_ARGS__
/* The format string, then its arguments as they are written. */
#define KT_PRINT(fmt, ...)	fmt ", " #__VA_ARGS__

/*
 * Pass 1: the record structs, at most 512 bytes each.  A one-member
 * anonymous struct has the member's size and alignment, so the layout is
 * that of plain members.
 */
#define KT_FIELD(t, n)		struct { t n; }
#define KT_ARRAY(t, n, c)	struct { t n[c]; }
#define KT_EVENT_X(name, tp, pass, group, proto, fields, assign, print)		\
	struct kt_rec_##name {						\
		struct kt_common common;				\
		fields							\
	};								\
	static inline void kt_size_check_##name(void)			\
	{								\
		BUILD_BUG_ON(sizeof(struct kt_rec_##name) > 512);	\
	}
#include "events/ktrace-events.h"
#undef KT_EVENT_X
#undef KT_FIELD
#undef KT_ARRAY

/* Pass 2: event indexes. */
#define KT_EVENT_X(name, tp, pass, group, proto, fields, assign, print)	KT_EV_##name,
enum {
#include "events/ktrace-events.h"
	KT_NR_EVENTS
};
#undef KT_EVENT_X

struct kt_field {
	const char *type;
	const char *name;
	unsigned short offset;
	unsigned short size;
	unsigned short count;	/* array length, 0 for a scalar */
	bool is_signed;
};

#define KT_MAX_FIELDS		16

static void kt_field_set(struct kt_field *f, const char *type,
			 const char *name, unsigned short offset,
			 unsigned short size, unsigned short count,
			 bool is_signed)
{
	f->type = type;
	f->name = name;
	f->offset = offset;
	f->size = size;
	f->count = count;
	f->is_signed = is_signed;
}

/* Pass 3: field descriptions for the format files. */
#define KT_FIELD(t, n)							\
	kt_field_set(&f[i++], #t, #n, offsetof(typeof(*r), n),		\
		     sizeof(t), 0, KT_SIGNED(t))
#define KT_ARRAY(t, n, c)						\
	kt_field_set(&f[i++], #t, #n, offsetof(typeof(*r), n),		\
		     sizeof(t) * (c), c, KT_SIGNED(t))
#define KT_EVENT_X(name, tp, pass, group, proto, fields, assign, print)		\
	static int kt_fields_##name(struct kt_field *f)			\
	{								\
		const struct kt_rec_##name *r = NULL;			\
		int i = 0;						\
									\
		fields							\
		return i;						\
	}
#include "events/ktrace-events.h"
#undef KT_EVENT_X
#undef KT_FIELD
#undef KT_ARRAY

static struct ktrace_channel *kt_chan;
/* Event ids from register_trace_event(), indexed by KT_EV_*. */
static unsigned short kt_ids[KT_NR_EVENTS];

static __always_inline unsigned char kt_ctx_flags(void)
{
	unsigned char f = 0;

	if (irqs_disabled())
		f |= KT_FLAG_IRQS_OFF;
	if (in_nmi())
		f |= KT_FLAG_NMI;
	if (in_hardirq())
		f |= KT_FLAG_HARDIRQ;
	if (in_serving_softirq())
		f |= KT_FLAG_SOFTIRQ;
	return f;
}

/*
 * Reserve a record and fill the common header.  The context's flags are
 * read first: the reserve turns interrupts off.  A probe that fires
 * inside another one's write on the same CPU (an NMI's) finds the buffer
 * busy; such records are counted as dropped.
 */
static __always_inline void *kt_rec_begin(struct ring_buffer_event **evp,
					  int idx, u32 size)
{
	unsigned char flags = kt_ctx_flags();
	struct kt_common *c;
	unsigned int pc;

	c = kt_rb_reserve(kt_chan, size, evp);
	if (unlikely(!c))
		return NULL;
	c->type = kt_ids[idx];
	c->flags = flags;
	/* Leave out the level the tracepoint itself added, as ftrace does. */
	pc = preempt_count() & 0xff;
	c->preempt_count = pc ? pc - 1 : 0;
	c->pid = current->pid;
	return c;
}

/*
 * prev_state as ftrace's sched_switch reports it: one TASK_REPORT bit,
 * or TASK_REPORT_MAX for a preempted task, so the same print flags apply.
 */
static __always_inline unsigned int kt_switch_state(bool preempt,
						     unsigned int state,
						     struct task_struct *p)
{
	unsigned int idx;

	if (preempt)
		return TASK_REPORT_MAX;
	idx = __task_state_index(state, p->exit_state);
	return idx ? 1U << (idx - 1) : 0;
}

/* siginfo as the signal tracepoints store it, special values included. */
static __always_inline void kt_siginfo(struct kernel_siginfo *info,
				       int *err, int *code)
{
	if (info == SEND_SIG_NOINFO || info == SEND_SIG_PRIV) {
		*err = 0;
		*code = info == SEND_SIG_NOINFO ? SI_USER : SI_KERNEL;
		return;
	}
	*err = info->si_errno;
	*code = info->si_code;
}

/* Pass 4: the probes, type-checked against the kernel's tracepoints. */
#define KT_FIELD(t, n)
#define KT_ARRAY(t, n, c)
#define KT_EVENT_X(name, tp, pass, group, proto, fields, assign, print)		\
	static void kt_probe_##name(void *data, proto)			\
	{								\
		struct kt_rec_##name *e;				\
		struct ring_buffer_event *ev;				\
									\
		if (!pass)						\
			return;						\
		e = kt_rec_begin(&ev, KT_EV_##name, sizeof(*e));	\
		if (unlikely(!e))					\
			return;						\
		assign							\
		kt_rb_commit_rec(kt_chan, ev, e, sizeof(*e));		\
	}								\
	static inline void kt_check_##name(void)			\
	{								\
		check_trace_callback_type_##tp(kt_probe_##name);	\
	}
#include "events/ktrace-events.h"
#undef KT_EVENT_X

struct kt_event {
	const char *name;
	const char *tp_name;
	void *probe;
	int (*fields)(struct kt_field *f);
	const char *print;
	unsigned int size;
	int group;			/* KT_GRP_*: must be on too */
	struct tracepoint *tp;		/* NULL: not in this kernel */
	struct trace_event tev;
	bool registered;		/* holds an id from ftrace */
	bool enabled;			/* selected by events/<name>/enable */
	bool attached;			/* probe registered on tp */
};

/* Pass 5: the event list. */
#define KT_EVENT_X(_name, _tp, _pass, _group, _proto, _fields, _assign, _print)		\
	[KT_EV_##_name] = {						\
		.name = #_name,						\
		.tp_name = #_tp,					\
		.probe = kt_probe_##_name,				\
		.fields = kt_fields_##_name,				\
		.print = _print,					\
		.size = sizeof(struct kt_rec_##_name),			\
		.group = _group,					\
	},
static struct kt_event kt_events[KT_NR_EVENTS] = {
#include "events/ktrace-events.h"
};
#undef KT_EVENT_X

static DEFINE_MUTEX(kt_events_lock);
static bool kt_enabled;
/* The process tracer's switches; lifecycle events are on by default. */
static bool kt_groups[KT_NR_GROUPS] = {
	[KT_GRP_NONE] = true,
	[KT_GRP_LIFECYCLE] = true,
};
static struct trace_event_functions kt_tev_funcs;

static void kt_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < KT_NR_EVENTS; i++)
		if (!strcmp(tp->name, kt_events[i].tp_name))
			kt_events[i].tp = tp;
}

static int kt_attach(struct kt_event *ev)
{
	int ret;

	if (ev->attached)
		return 0;
	ret = tracepoint_probe_register(ev->tp, ev->probe, NULL);
	if (ret)
		pr_warn("cannot attach to tracepoint %s: %d\n", ev->tp_name,
			ret);
	else
		ev->attached = true;
	return ret;
}

static void kt_detach(struct kt_event *ev)
{
	if (!ev->attached)
		return;
	tracepoint_probe_unregister(ev->tp, ev->probe, NULL);
	ev->attached = false;
}

/* Make the attached probes match the selection; called under the lock. */
static int kt_sync_probes(void)
{
	int i, ret = 0;

	for (i = 0; i < KT_NR_EVENTS; i++) {
		struct kt_event *ev = &kt_events[i];

		if (!ev->tp)
			continue;
		if (kt_enabled && ev->enabled && kt_groups[ev->group])
			ret = ret ?: kt_attach(ev);
		else
			kt_detach(ev);
	}
	return ret;
}

int kt_events_set_enabled(bool on)
{
	int ret;

	mutex_lock(&kt_events_lock);
	kt_enabled = on;
	ret = kt_sync_probes();
	kt_modev_set_enabled(on);
	mutex_unlock(&kt_events_lock);
	return ret;
}

bool kt_events_enabled(void)
{
	return READ_ONCE(kt_enabled);
}

int kt_events_set_group(int group, bool on)
{
	int ret;

	mutex_lock(&kt_events_lock);
	kt_groups[group] = on;
	ret = kt_sync_probes();
	mutex_unlock(&kt_events_lock);
	return ret;
}

bool kt_events_group(int group)
{
	return READ_ONCE(kt_groups[group]);
}

struct kt_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void kt_match_tp(struct tracepoint *tp, void *priv)
{
	struct kt_tp_search *s = priv;

	if (!strcmp(tp->name, s->name))
		s->tp = tp;
}

struct tracepoint *kt_find_tracepoint(const char *name)
{
	struct kt_tp_search s = { .name = name };

	for_each_kernel_tracepoint(kt_match_tp, &s);
	return s.tp;
}

const char kt_common_fields[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

static int kt_format_show(struct seq_file *m, void *v)
{
	struct kt_event *ev = m->private;
	struct kt_field fields[KT_MAX_FIELDS], *f;
	int n = ev->fields(fields);

	seq_printf(m, "name: %s\nID: %d\nformat:\n%s", ev->name, ev->tev.type,
		   kt_common_fields);
	for (f = fields; f < fields + n; f++) {
		seq_printf(m, "\tfield:%s %s", f->type, f->name);
		if (f->count)
			seq_printf(m, "[%u]", f->count);
		seq_printf(m, ";\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			   f->offset, f->size, f->is_signed);
	}
	seq_printf(m, "\nprint fmt: %s\n", ev->print);
	return 0;
}

static int kt_format_open(struct inode *inode, struct file *file)
{
	return single_open(file, kt_format_show, inode->i_private);
}

static const struct file_operations kt_format_fops = {
	.owner = THIS_MODULE,
	.open = kt_format_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kt_enable_get(void *data, u64 *val)
{
	struct kt_event *ev = data;

	*val = READ_ONCE(ev->enabled);
	return 0;
}

static int kt_enable_set(void *data, u64 val)
{
	struct kt_event *ev = data;
	int ret;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&kt_events_lock);
	ev->enabled = val;
	ret = kt_sync_probes();
	mutex_unlock(&kt_events_lock);
	return ret;
}

KT_DEFINE_ATTRIBUTE(kt_enable_fops, kt_enable_get, kt_enable_set);

/*
 * The length of the format string that opens a print fmt: a C string
 * literal, up to its closing quote.
 */
static int kt_print_fmt_len(const char *print)
{
	const char *p = print + 1;

	if (*print != '"')
		return 0;
	for (; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 - print : p - print;
}

/*
 * One line of the info file: name, format, id, enabled or disabled,
 * then the columns only some events have, as "key value" pairs.
 */
void kt_events_line(struct seq_file *m, const char *name, const char *print,
		    int id, bool enabled)
{
	seq_printf(m, KTRACE_INFO_EVENT " %s %.*s %d %s", name,
		   kt_print_fmt_len(print), print, id,
		   enabled ? KTRACE_INFO_ENABLED : KTRACE_INFO_DISABLED);
}

bool kt_events_has(const char *name)
{
	int i;

	for (i = 0; i < KT_NR_EVENTS; i++)
		if (!strcmp(kt_events[i].name, name))
			return true;
	return false;
}

unsigned char kt_events_ctx_flags(void)
{
	return kt_ctx_flags();
}

void kt_events_show(struct seq_file *m)
{
	int i;

	mutex_lock(&kt_events_lock);
	for (i = 0; i < KT_NR_EVENTS; i++) {
		struct kt_event *ev = &kt_events[i];

		if (!ev->registered)
			continue;
		kt_events_line(m, ev->name, ev->print, ev->tev.type,
			       ev->enabled);
		seq_printf(m, " tracepoint %s size %u probe %s\n", ev->tp_name,
			   ev->size, ev->attached ? "attached" : "detached");
	}
	mutex_unlock(&kt_events_lock);
	kt_modev_show(m);
}

static void kt_unregister_ids(void)
{
	int i;

	for (i = 0; i < KT_NR_EVENTS; i++) {
		if (kt_events[i].registered)
			unregister_trace_event(&kt_events[i].tev);
		kt_events[i].registered = false;
	}
}

int kt_events_init(struct ktrace_channel *chan, struct dentry *dir)
{
	struct dentry *events, *d;
	int i;

	/* The probes write with the per-CPU fast path. */
	if (WARN_ON(chan->gbuf))
		return -EINVAL;
	kt_chan = chan;
	for_each_kernel_tracepoint(kt_find_tp, NULL);
	events = debugfs_create_dir(KTRACE_DIR_EVENTS, dir);
	for (i = 0; i < KT_NR_EVENTS; i++) {
		struct kt_event *ev = &kt_events[i];

		/* Events whose tracepoint this kernel lacks do not exist. */
		if (!ev->tp) {
			pr_info("no tracepoint %s: event %s not offered\n",
				ev->tp_name, ev->name);
			continue;
		}
		/* An id from ftrace's own space never collides with its events. */
		ev->tev.funcs = &kt_tev_funcs;
		if (!register_trace_event(&ev->tev)) {
			pr_err("cannot get an event id for %s\n", ev->name);
			goto err;
		}
		ev->registered = true;
		kt_ids[i] = ev->tev.type;
		d = debugfs_create_dir(ev->name, events);
		debugfs_create_file_unsafe(KTRACE_FILE_ENABLE, 0600, d, ev,
					   &kt_enable_fops);
		debugfs_create_file(KTRACE_FILE_FORMAT, 0400, d, ev,
				    &kt_format_fops);
	}
	/* Other modules' events go next to them. */
	if (kt_modev_init(chan, events))
		goto err;
	return 0;
err:
	kt_unregister_ids();
	return -EBUSY;
}

void kt_events_exit(void)
{
	int i;

	mutex_lock(&kt_events_lock);
	kt_enabled = false;
	for (i = 0; i < KT_NR_EVENTS; i++)
		kt_detach(&kt_events[i]);
	mutex_unlock(&kt_events_lock);
	/* No probe may still be running when the channel goes away. */
	tracepoint_synchronize_unregister();
	kt_unregister_ids();
	kt_modev_exit();
}
