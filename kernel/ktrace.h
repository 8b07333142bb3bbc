/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace channels: named trace buffers in debugfs that any module can
 * write compact records into.  A channel lives in <root>/<name>/ (or in
 * <root>/ when name is NULL) with one traceN file per possible CPU (one
 * trace0 for a global channel) that hands out whole pages in the ftrace
 * ring-buffer page format, so trace-cmd's tools decode them.
 */
#ifndef KTRACE_H
#define KTRACE_H

#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include "ktrace-abi.h"

struct ktrace_channel;
struct dentry;
struct ring_buffer_event;

/* Writer state between reserve and commit; lives on the writer's stack. */
struct ktrace_wctx {
	struct ring_buffer_event *event;
	unsigned long irqflags;
	void *rec;		/* the reserved record, for exports */
	u32 len;
};

/*
 * Create a stopped channel of buf_size * buf_nr bytes per CPU (in all for
 * a global one).  Returns an ERR_PTR(): -EINVAL for bad arguments,
 * -EEXIST when <root>/<name> is taken, -ENOMEM.
 */
struct ktrace_channel *ktrace_channel_setup(const char *root,
					    const char *name, u32 buf_size,
					    u32 buf_nr, u32 flags);
int ktrace_channel_start(struct ktrace_channel *chan);
int ktrace_channel_stop(struct ktrace_channel *chan);
void ktrace_channel_cleanup(struct ktrace_channel *chan);

/*
 * Reserve len bytes for one record; NULL when the channel is stopped or
 * the record cannot be stored (counted in "dropped" while running).
 * Every non-NULL reserve must be followed by ktrace_channel_commit() in
 * the same context; interrupts stay off in between.  Never sleeps;
 * callable from any context.
 */
void *ktrace_channel_reserve(struct ktrace_channel *chan, u32 len,
			     struct ktrace_wctx *w);
void ktrace_channel_commit(struct ktrace_channel *chan,
			   struct ktrace_wctx *w);
/* Reserve, copy and commit in one call. */
int ktrace_channel_write(struct ktrace_channel *chan, const void *data,
			 u32 len);

/* The channel's directory, for callers that add files of their own. */
struct dentry *ktrace_channel_dir(struct ktrace_channel *chan);
bool ktrace_channel_running(struct ktrace_channel *chan);
u64 ktrace_channel_dropped(struct ktrace_channel *chan);
u64 ktrace_channel_overrun(struct ktrace_channel *chan);
/* Discard every stored record and zero the counters. */
void ktrace_channel_reset(struct ktrace_channel *chan);
/* NULL: channels write buffers of their own, not the kernel's ring buffer. */
struct trace_buffer *ktrace_channel_buffer(struct ktrace_channel *chan);

/*
 * Exports: every record committed to any ktrace channel is also handed
 * to each registered export's write(), with a time stamp and the whole
 * record (common header and payload).  The stamp is a trace_clock_local()
 * read as the record is committed: the clock the channels' buffers use,
 * but a read of its own, so it trails the stored record's stamp by the
 * few ns between the two (the ring buffer does not hand its stamp to
 * modules).  Records the buffer dropped are not exported.  write() runs in the context of the
 * event, which may be NMI: it must not sleep or take locks an
 * interrupted context could hold.
 */
struct ktrace_export {
	struct ktrace_export __rcu *next;
	void (*write)(struct ktrace_export *e, u64 ts, const void *rec,
		      unsigned int len);
};

/* -EINVAL without a write callback, -EEXIST when already registered. */
int ktrace_register_export(struct ktrace_export *e);
/*
 * Returns once no call of e->write() is running or can start; -ENOENT
 * when e was not registered.
 */
int ktrace_unregister_export(struct ktrace_export *e);

/*
 * Events of other modules.  A module declares an event once, in one of
 * its source files, with its fields and a printf-style format:
 *
 *	KTRACE_EVENT(mydrv_rx, "len=%u dev=%s state=%s",
 *		KTRACE_FIELD(u32, len),
 *		KTRACE_STRING(dev),
 *		KTRACE_SYMBOLIC(int, state, { 0, "idle" }, { 1, "busy" }));
 *
 * registers it from its init and unregisters it from its exit:
 *
 *	ktrace_register_event(ktrace_event(mydrv_rx));
 *	ktrace_unregister_event(ktrace_event(mydrv_rx));
 *
 * and records one with a call:
 *
 *	ktrace_emit(mydrv_rx, skb->len, dev->name, state);
 *
 * The format is checked by the compiler against the fields, in order
 * (a string or symbolic field is a %s); it and the fields make the
 * event's format file, the arguments after the format in its print fmt
 * are the fields.  A string is stored as an ftrace __data_loc string of
 * at most KTRACE_STR_MAX bytes with its NUL; a symbolic field is an
 * integer printed through __print_symbolic() with the { value, "name" }
 * pairs given (numbers or macros: enum constants would be left as
 * names the decoders do not know).  At most 8 fields.
 *
 * While the event is not selected (events/<name>/enable, and the
 * engine's enabled switch) ktrace_emit() is a static key's patched-out
 * jump, and its arguments are not evaluated.  Records go to the
 * engine's channel, through its pid set.  The declaration is static to
 * its source file.
 */
#define KTRACE_STR_MAX		256
#define KTRACE_MAX_FIELDS	8

/* ftrace's common header, first in every record. */
struct ktrace_event_common {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};

struct ktrace_event_field {
	const char *type;
	const char *name;
	u16 offset;
	u16 size;
	bool is_signed;
	bool is_string;		/* a __data_loc char[]: offset | len << 16 */
};

struct kt_mod_event;

/* What KTRACE_EVENT() defines; its members are not for the module. */
struct ktrace_event {
	const char *name;
	const char *print;	/* the format file's print fmt */
	int (*fields)(struct ktrace_event_field *f);
	struct static_key_false *key;
	struct module *owner;
	/* ktrace.ko's, between register and unregister. */
	bool live;		/* records may be written */
	unsigned short id;
	struct kt_mod_event *kt;
};

/*
 * Offer the event in debugfs ktrace/events/<name>/ and the info file.
 * An event unregistered before keeps its id and its selection when it
 * comes back with the same format, so a recording going on across an
 * unload and a load decodes it and goes on recording it.  -EEXIST when
 * the name is taken, -EINVAL for a bad name, -ENOMEM, -EBUSY when
 * ftrace has no event id left.
 */
int ktrace_register_event(struct ktrace_event *ev);
/*
 * Take the event away; returns once no record of it is being written
 * and nobody reads or writes its files.  Call it before the memory of
 * ev goes (a module's exit).
 */
void ktrace_unregister_event(struct ktrace_event *ev);
/*
 * Reserve a record of len bytes with its common header filled in, NULL
 * when it is not to be or cannot be written (counted as dropped);
 * a non-NULL reserve must be followed by ktrace_event_commit() in the
 * same context.  For KTRACE_EVENT(), or a hand-made record.
 */
void *ktrace_event_reserve(struct ktrace_event *ev, u32 len,
			   struct ktrace_wctx *w);
void ktrace_event_commit(struct ktrace_event *ev, struct ktrace_wctx *w);

#define KTRACE_FIELD(type, name)	(__ktf_scalar, type, name)
#define KTRACE_STRING(name)		(__ktf_string, const char *, name)
#define KTRACE_SYMBOLIC(type, name, ...)				\
	(__ktf_symbolic, type, name, __VA_ARGS__)

#define ktrace_event(_ev)		(&__ktrace_event_##_ev)
#define ktrace_emit(_ev, ...)						\
	do {								\
		if (static_branch_unlikely(&__ktrace_key_##_ev))	\
			__ktrace_emit_##_ev(__VA_ARGS__);		\
	} while (0)

/* The compiler's check of a format against the fields, never called. */
static inline __printf(1, 2) void __ktrace_check_format(const char *fmt, ...)
{
}

#define __KT_SIGNED(t)		(((t)(-1)) < (t)1)

static inline u32 __ktrace_str_size(const char *s)
{
	return s ? strnlen(s, KTRACE_STR_MAX - 1) + 1 : sizeof("(null)");
}

/*
 * Copy s to rec + off, at most size bytes with the NUL (the string may
 * have changed since it was measured), and point *loc at it.
 */
static inline u32 __ktrace_str_put(void *rec, u32 off, u32 size, u32 *loc,
				   const char *s)
{
	u32 n = min(__ktrace_str_size(s), size);

	if (!n)
		return off;
	memcpy(rec + off, s ? s : "(null)", n - 1);
	((char *)rec)[off + n - 1] = '\0';
	*loc = off | n << 16;
	return off + n;
}

/* Apply m to each field: m (kind, type, name, ...) */
#define __KT_NARG(...)		__KT_NARG_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1)
#define __KT_NARG_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...)	n
#define __KT_CAT(a, b)		__KT_CAT_(a, b)
#define __KT_CAT_(a, b)		a##b
#define __KT_MAP(m, ...)						\
	__KT_CAT(__KT_MAP, __KT_NARG(__VA_ARGS__))(m, __VA_ARGS__)
#define __KT_MAP1(m, a)		m a
#define __KT_MAP2(m, a, ...)	m a __KT_MAP1(m, __VA_ARGS__)
#define __KT_MAP3(m, a, ...)	m a __KT_MAP2(m, __VA_ARGS__)
#define __KT_MAP4(m, a, ...)	m a __KT_MAP3(m, __VA_ARGS__)
#define __KT_MAP5(m, a, ...)	m a __KT_MAP4(m, __VA_ARGS__)
#define __KT_MAP6(m, a, ...)	m a __KT_MAP5(m, __VA_ARGS__)
#define __KT_MAP7(m, a, ...)	m a __KT_MAP6(m, __VA_ARGS__)
#define __KT_MAP8(m, a, ...)	m a __KT_MAP7(m, __VA_ARGS__)
/* The same, comma-separated. */
#define __KT_MAPC(m, ...)						\
	__KT_CAT(__KT_MAPC, __KT_NARG(__VA_ARGS__))(m, __VA_ARGS__)
#define __KT_MAPC1(m, a)	m a
#define __KT_MAPC2(m, a, ...)	m a, __KT_MAPC1(m, __VA_ARGS__)
#define __KT_MAPC3(m, a, ...)	m a, __KT_MAPC2(m, __VA_ARGS__)
#define __KT_MAPC4(m, a, ...)	m a, __KT_MAPC3(m, __VA_ARGS__)
#define __KT_MAPC5(m, a, ...)	m a, __KT_MAPC4(m, __VA_ARGS__)
#define __KT_MAPC6(m, a, ...)	m a, __KT_MAPC5(m, __VA_ARGS__)
#define __KT_MAPC7(m, a, ...)	m a, __KT_MAPC6(m, __VA_ARGS__)
#define __KT_MAPC8(m, a, ...)	m a, __KT_MAPC7(m, __VA_ARGS__)

/* The record's member. */
#define __KT_STRUCT(k, ...)	__KT_STRUCT_##k(__VA_ARGS__)
#define __KT_STRUCT___ktf_scalar(t, n)		t n;
#define __KT_STRUCT___ktf_string(t, n)		u32 n;
#define __KT_STRUCT___ktf_symbolic(t, n, ...)	t n;

/* The format file's field line. */
#define __KT_DESC(k, ...)	__KT_DESC_##k(__VA_ARGS__)
#define __KT_DESC_SET(_t, _n, sz, sg, st)				\
	f[i++] = (struct ktrace_event_field){				\
		.type = _t, .name = #_n,				\
		.offset = offsetof(typeof(*r), _n), .size = sz,		\
		.is_signed = sg, .is_string = st }
#define __KT_DESC___ktf_scalar(t, n)					\
	__KT_DESC_SET(#t, n, sizeof(t), __KT_SIGNED(t), false);
#define __KT_DESC___ktf_string(t, n)					\
	__KT_DESC_SET("char[]", n, sizeof(u32), false, true);
#define __KT_DESC___ktf_symbolic(t, n, ...)				\
	__KT_DESC_SET(#t, n, sizeof(t), __KT_SIGNED(t), false);

/* The print fmt's argument after the format. */
#define __KT_PRINT(k, ...)	__KT_PRINT_##k(__VA_ARGS__)
#define __KT_PRINT___ktf_scalar(t, n)		", REC->" #n
#define __KT_PRINT___ktf_string(t, n)		", __get_str(" #n ")"
#define __KT_PRINT___ktf_symbolic(t, n, ...)				\
	", __print_symbolic(REC->" #n ", " #__VA_ARGS__ ")"

/* The emit function's parameter, and its argument for the check. */
#define __KT_PARAM(k, ...)	__KT_PARAM_##k(__VA_ARGS__)
#define __KT_PARAM___ktf_scalar(t, n)		t n
#define __KT_PARAM___ktf_string(t, n)		t n
#define __KT_PARAM___ktf_symbolic(t, n, ...)	t n
#define __KT_CHECK(k, ...)	__KT_CHECK_##k(__VA_ARGS__)
#define __KT_CHECK___ktf_scalar(t, n)		n
#define __KT_CHECK___ktf_string(t, n)		n
#define __KT_CHECK___ktf_symbolic(t, n, ...)	""

/* The record's size, and filling it in. */
#define __KT_LEN(k, ...)	__KT_LEN_##k(__VA_ARGS__)
#define __KT_LEN___ktf_scalar(t, n)
#define __KT_LEN___ktf_string(t, n)		+ __ktrace_str_size(n)
#define __KT_LEN___ktf_symbolic(t, n, ...)
#define __KT_ASSIGN(k, ...)	__KT_ASSIGN_##k(__VA_ARGS__)
#define __KT_ASSIGN___ktf_scalar(t, n)		__kt_e->n = n;
#define __KT_ASSIGN___ktf_string(t, n)					\
	__kt_off = __ktrace_str_put(__kt_e, __kt_off, __kt_len - __kt_off,	\
				     &__kt_e->n, n);
#define __KT_ASSIGN___ktf_symbolic(t, n, ...)	__kt_e->n = n;

#define KTRACE_EVENT(_ev, fmt, ...)					\
struct __ktrace_rec_##_ev {						\
	struct ktrace_event_common common;				\
	__KT_MAP(__KT_STRUCT, __VA_ARGS__)				\
};									\
static int __ktrace_fields_##_ev(struct ktrace_event_field *f)	\
{									\
	const struct __ktrace_rec_##_ev *r = NULL;			\
	int i = 0;							\
									\
	(void)r;							\
	__KT_MAP(__KT_DESC, __VA_ARGS__)				\
	return i;							\
}									\
static DEFINE_STATIC_KEY_FALSE(__ktrace_key_##_ev);			\
static struct ktrace_event __ktrace_event_##_ev = {			\
	.name = #_ev,							\
	.print = #fmt __KT_MAP(__KT_PRINT, __VA_ARGS__),		\
	.fields = __ktrace_fields_##_ev,				\
	.key = &__ktrace_key_##_ev,					\
	.owner = THIS_MODULE,						\
};									\
static noinline __maybe_unused void					\
__ktrace_emit_##_ev(__KT_MAPC(__KT_PARAM, __VA_ARGS__))		\
{									\
	struct __ktrace_rec_##_ev *__kt_e;				\
	struct ktrace_wctx __kt_w;					\
	u32 __kt_len = sizeof(*__kt_e) __KT_MAP(__KT_LEN, __VA_ARGS__);	\
	u32 __kt_off = sizeof(*__kt_e);					\
									\
	if (0)								\
		__ktrace_check_format(fmt,				\
				      __KT_MAPC(__KT_CHECK, __VA_ARGS__)); \
	__kt_e = ktrace_event_reserve(&__ktrace_event_##_ev, __kt_len,	\
				      &__kt_w);				\
	if (!__kt_e)							\
		return;							\
	__KT_MAP(__KT_ASSIGN, __VA_ARGS__)				\
	(void)__kt_off;							\
	ktrace_event_commit(&__ktrace_event_##_ev, &__kt_w);		\
}

#endif /* KTRACE_H */
