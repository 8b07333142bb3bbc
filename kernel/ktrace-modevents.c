// SPDX-License-Identifier: GPL-2.0
/*
 * Events of other modules: what ktrace.h's KTRACE_EVENT() declares,
 * registered with ktrace.ko (debugfs events/<name>/, the info file),
 * written into the engine's channel, and taken away at unload with
 * nothing in flight.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>

#include "ktrace.h"
#include "ktrace-channel.h"
#include "ktrace-events.h"
#include "ktrace-modevents.h"
#include "ktrace-pidset.h"

/*
 * ktrace.ko's side of a module's event.  It outlives the module: an
 * event unregistered keeps its id and selection for a module that
 * registers it again with the same format (a recording going on
 * across the reload decodes it with the format it saved), and its
 * debugfs files may be open still.  Freed at ktrace.ko's exit.
 */
struct kt_mod_event {
	struct list_head list;
	char name[64];
	char *format;			/* the format file after its ID line */
	const char *print;		/* in format: the print fmt */
	struct ktrace_event *ev;	/* NULL while unregistered */
	char owner[MODULE_NAME_LEN];
	struct trace_event tev;
	struct dentry *dir;
	bool enabled;			/* events/<name>/enable */
};

static LIST_HEAD(kt_mod_events);
/* Guards the list, each event's selection and key, and kt_enabled. */
static DEFINE_MUTEX(kt_modev_lock);
/* The engine's "enabled" switch, as kt_modev_set_enabled() last had it. */
static bool kt_enabled;
static struct dentry *kt_events_dir;
static struct ktrace_channel *kt_chan;
static struct trace_event_functions kt_tev_funcs;

/* The static key on when the event is selected and the engine enabled. */
static void kt_mod_sync(struct kt_mod_event *me)
{
	if (!me->ev)
		return;
	if (kt_enabled && me->enabled)
		static_branch_enable(me->ev->key);
	else
		static_branch_disable(me->ev->key);
}

static struct kt_mod_event *kt_mod_find(const char *name)
{
	struct kt_mod_event *me;

	list_for_each_entry(me, &kt_mod_events, list)
		if (!strcmp(me->name, name))
			return me;
	return NULL;
}

/* The format file's text after its ID line, in a new buffer. */
static char *kt_mod_format(struct ktrace_event *ev, const char **print)
{
	struct ktrace_event_field f[KTRACE_MAX_FIELDS];
	size_t size = PAGE_SIZE, len;
	int n, i;
	char *buf;

	n = ev->fields(f);
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return NULL;
	len = scnprintf(buf, size, "format:\n%s", kt_common_fields);
	for (i = 0; i < n; i++)
		len += scnprintf(buf + len, size - len,
				 "\tfield:%s%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
				 f[i].is_string ? "__data_loc " : "", f[i].type,
				 f[i].name, f[i].offset, f[i].size,
				 f[i].is_signed);
	len += scnprintf(buf + len, size - len, "\nprint fmt: ");
	*print = buf + len;
	len += scnprintf(buf + len, size - len, "%s\n", ev->print);
	/* Cut short, it would mislead the decoders. */
	if (len >= size - 1) {
		kfree(buf);
		return ERR_PTR(-E2BIG);
	}
	return buf;
}

static int kt_mod_format_show(struct seq_file *m, void *v)
{
	struct kt_mod_event *me = m->private;

	seq_printf(m, "name: %s\nID: %d\n%s", me->name, me->tev.type,
		   me->format);
	return 0;
}

static int kt_mod_format_open(struct inode *inode, struct file *file)
{
	return single_open(file, kt_mod_format_show, inode->i_private);
}

static const struct file_operations kt_mod_format_fops = {
	.owner = THIS_MODULE,
	.open = kt_mod_format_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kt_mod_enable_get(void *data, u64 *val)
{
	struct kt_mod_event *me = data;

	*val = READ_ONCE(me->enabled);
	return 0;
}

static int kt_mod_enable_set(void *data, u64 val)
{
	struct kt_mod_event *me = data;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&kt_modev_lock);
	me->enabled = val;
	kt_mod_sync(me);
	mutex_unlock(&kt_modev_lock);
	return 0;
}

KT_DEFINE_ATTRIBUTE(kt_mod_enable_fops, kt_mod_enable_get,
		    kt_mod_enable_set);

static bool kt_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n && n < sizeof(((struct kt_mod_event *)NULL)->name) &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

/* A new kt_mod_event for ev, with an id of its own. */
static struct kt_mod_event *kt_mod_new(struct ktrace_event *ev, char *format,
				       const char *print)
{
	struct kt_mod_event *me = kzalloc(sizeof(*me), GFP_KERNEL);

	if (!me)
		return ERR_PTR(-ENOMEM);
	strscpy(me->name, ev->name, sizeof(me->name));
	me->format = format;
	me->print = print;
	me->tev.funcs = &kt_tev_funcs;
	if (!register_trace_event(&me->tev)) {
		kfree(me);
		return ERR_PTR(-EBUSY);
	}
	list_add_tail(&me->list, &kt_mod_events);
	return me;
}

static void kt_mod_free(struct kt_mod_event *me)
{
	list_del(&me->list);
	unregister_trace_event(&me->tev);
	kfree(me->format);
	kfree(me);
}

int ktrace_register_event(struct ktrace_event *ev)
{
	struct kt_mod_event *me;
	const char *print;
	char *format;
	int ret = 0;

	if (!ev->name || !kt_name_ok(ev->name) || !ev->fields || !ev->print ||
	    !ev->key)
		return -EINVAL;
	format = kt_mod_format(ev, &print);
	if (IS_ERR_OR_NULL(format))
		return format ? PTR_ERR(format) : -ENOMEM;
	mutex_lock(&kt_modev_lock);
	me = kt_mod_find(ev->name);
	if (kt_events_has(ev->name) || (me && me->ev)) {
		ret = -EEXIST;
		goto out;
	}
	/* The same event back: its id and selection; another: a new id. */
	if (me && strcmp(me->format, format)) {
		kt_mod_free(me);
		me = NULL;
	}
	if (!me) {
		me = kt_mod_new(ev, format, print);
		if (IS_ERR(me)) {
			ret = PTR_ERR(me);
			goto out;
		}
		format = NULL;
	}
	strscpy(me->owner, ev->owner ? module_name(ev->owner) : "kernel",
		sizeof(me->owner));
	ev->id = me->tev.type;
	ev->kt = me;
	me->ev = ev;
	WRITE_ONCE(ev->live, true);
	me->dir = debugfs_create_dir(me->name, kt_events_dir);
	debugfs_create_file_unsafe(KTRACE_FILE_ENABLE, 0600, me->dir, me,
				   &kt_mod_enable_fops);
	debugfs_create_file(KTRACE_FILE_FORMAT, 0400, me->dir, me,
			    &kt_mod_format_fops);
	kt_mod_sync(me);
out:
	mutex_unlock(&kt_modev_lock);
	kfree(format);
	return ret;
}
EXPORT_SYMBOL_GPL(ktrace_register_event);

void ktrace_unregister_event(struct ktrace_event *ev)
{
	struct kt_mod_event *me;
	struct dentry *dir;

	mutex_lock(&kt_modev_lock);
	me = ev->kt;
	if (!me) {
		mutex_unlock(&kt_modev_lock);
		return;
	}
	dir = me->dir;
	me->dir = NULL;
	mutex_unlock(&kt_modev_lock);
	/*
	 * Waits for every read and write of its files in progress; not
	 * under the lock, which a write of enable takes.
	 */
	debugfs_remove_recursive(dir);
	mutex_lock(&kt_modev_lock);
	static_branch_disable(ev->key);
	WRITE_ONCE(ev->live, false);
	me->ev = NULL;
	ev->kt = NULL;
	if (!kt_enabled)
		me->enabled = false;
	mutex_unlock(&kt_modev_lock);
	/*
	 * A writer that saw live reserves and commits with preemption off:
	 * once this returns none is left, and none starts.
	 */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(ktrace_unregister_event);

void *ktrace_event_reserve(struct ktrace_event *ev, u32 len,
			   struct ktrace_wctx *w)
{
	struct ktrace_event_common *c;
	unsigned char flags;
	unsigned int pc;

	if (!kt_pid_pass(current))
		return NULL;
	flags = kt_events_ctx_flags();
	pc = preempt_count() & 0xff;
	preempt_disable_notrace();
	if (likely(READ_ONCE(ev->live))) {
		c = ktrace_channel_reserve(kt_chan, len, w);
		if (c) {
			c->type = ev->id;
			c->flags = flags;
			c->preempt_count = pc;
			c->pid = current->pid;
			return c;
		}
	}
	preempt_enable_notrace();
	return NULL;
}
EXPORT_SYMBOL_GPL(ktrace_event_reserve);

void ktrace_event_commit(struct ktrace_event *ev, struct ktrace_wctx *w)
{
	ktrace_channel_commit(kt_chan, w);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(ktrace_event_commit);

void kt_modev_show(struct seq_file *m)
{
	struct kt_mod_event *me;

	mutex_lock(&kt_modev_lock);
	list_for_each_entry(me, &kt_mod_events, list) {
		if (!me->ev)
			continue;
		kt_events_line(m, me->name, me->print, me->tev.type,
			       me->enabled);
		seq_printf(m, " module %s\n", me->owner);
	}
	mutex_unlock(&kt_modev_lock);
}

void kt_modev_set_enabled(bool on)
{
	struct kt_mod_event *me;

	mutex_lock(&kt_modev_lock);
	kt_enabled = on;
	list_for_each_entry(me, &kt_mod_events, list) {
		/*
		 * An event whose module is gone keeps its selection only
		 * through the recording going on, to be recorded again
		 * when it is back.
		 */
		if (!on && !me->ev)
			me->enabled = false;
		kt_mod_sync(me);
	}
	mutex_unlock(&kt_modev_lock);
}

/*
 * A module going with events still registered (an exit that forgot,
 * an init that failed after registering) would leave ktrace.ko with
 * its freed descriptor and static key: unregister them now, before the
 * jump label notifier forgets the module's keys (hence the priority).
 */
static int kt_modev_notify(struct notifier_block *nb, unsigned long state,
			   void *data)
{
	struct module *mod = data;
	struct kt_mod_event *me;
	struct ktrace_event *ev;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_OK;
	do {
		ev = NULL;
		mutex_lock(&kt_modev_lock);
		list_for_each_entry(me, &kt_mod_events, list) {
			if (me->ev && me->ev->owner == mod) {
				ev = me->ev;
				break;
			}
		}
		mutex_unlock(&kt_modev_lock);
		if (ev) {
			pr_warn("%s left its event %s registered: unregistered\n",
				module_name(mod), ev->name);
			ktrace_unregister_event(ev);
		}
	} while (ev);
	return NOTIFY_OK;
}

static struct notifier_block kt_modev_nb = {
	.notifier_call = kt_modev_notify,
	.priority = 2,
};

int kt_modev_init(struct ktrace_channel *chan, struct dentry *events)
{
	kt_chan = chan;
	kt_events_dir = events;
	return register_module_notifier(&kt_modev_nb);
}

/* Their modules are gone: they used ktrace.ko's symbols. */
void kt_modev_exit(void)
{
	unregister_module_notifier(&kt_modev_nb);
	while (!list_empty(&kt_mod_events))
		kt_mod_free(list_first_entry(&kt_mod_events,
					     struct kt_mod_event, list));
}

