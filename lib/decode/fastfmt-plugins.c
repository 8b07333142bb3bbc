// SPDX-License-Identifier: GPL-2.0
/* The texts of libtraceevent's plugins (sched, kmem, hrtimer, tlb, futex, function). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode/fastfmt-int.h"

static inline uint64_t pfield(const struct run *r, const struct ff_field *f)
{
	return load(r->data + f->off, f->size);
}

/*
 * The sched plugin's comm: "%.*s" of the field, and registered with its
 * pid as the plugin does (tep_register_comm() only adds unknown pids, so
 * one call per pid suffices).
 */
static void put_comm(struct run *r, const struct ff_field *f, uint64_t pid)
{
	const char *c = (const char *)r->data + f->off;
	size_t n = strnlen(c, (size_t)f->size);
	int *slot = &r->ff->comm_pid[(unsigned int)pid % COMM_CACHE];
	/* pid + 1 (0: an empty slot), in unsigned: INT_MAX + 1 is UB. */
	int key = (int)((unsigned int)pid + 1u);

	if (room(r, n)) {
		memcpy(r->p, c, n);
		r->p += n;
	}
	if (*slot != key) {
		char comm[256];

		memcpy(comm, c, n < sizeof(comm) ? n : sizeof(comm) - 1);
		comm[n < sizeof(comm) ? n : sizeof(comm) - 1] = 0;
		tep_register_comm(r->ff->tep, comm, (int)pid);
		*slot = key;
	}
}

static void put_state(struct run *r, int val)
{
	static const char states[] = "SDTtZXxW";
	bool found = false;
	int i;

	if (!room(r, 16))
		return;
	for (i = 0; i < (int)sizeof(states) - 1; i++) {
		if (!(val & (1 << i)))
			continue;
		if (found)
			*r->p++ = '|';
		found = true;
		*r->p++ = states[i];
	}
	if (!found)
		*r->p++ = 'R';
}

/* "comm:pid [prio]" as the plugin prints each side of a switch. */
static void put_task(struct run *r, const struct ff_field *comm,
		     const struct ff_field *pidf, const struct ff_field *prio)
{
	uint64_t pid = pfield(r, pidf);

	put_comm(r, comm, pid);
	if (!room(r, 40))
		return;
	*r->p++ = ':';
	r->p = put_sdec(r->p, (int64_t)pid);
	memcpy(r->p, " [", 2);
	r->p = put_sdec(r->p + 2, (int)pfield(r, prio));
	*r->p++ = ']';
}

void ff_run_sched_switch(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;

	put_task(r, &f[SW_PREV_COMM], &f[SW_PREV_PID], &f[SW_PREV_PRIO]);
	putch(r, ' ');
	put_state(r, (int)pfield(r, &f[SW_PREV_STATE]));
	put(r, " ==> ", 5);
	put_task(r, &f[SW_NEXT_COMM], &f[SW_NEXT_PID], &f[SW_NEXT_PRIO]);
}

void ff_run_sched_wakeup(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;
	uint64_t pid = pfield(r, &f[WK_PID]);

	if (f[WK_COMM].ok) {
		put_comm(r, &f[WK_COMM], pid);
		putch(r, ':');
	}
	if (!room(r, 96))
		return;
	r->p = put_sdec(r->p, (int64_t)pid);
	if (f[WK_PRIO].ok) {
		memcpy(r->p, " [", 2);
		r->p = put_sdec(r->p + 2, (int64_t)pfield(r, &f[WK_PRIO]));
		*r->p++ = ']';
	}
	if (f[WK_SUCCESS].ok) {
		memcpy(r->p, " success=", 9);
		r->p = put_sdec(r->p + 9, (int64_t)pfield(r, &f[WK_SUCCESS]));
	}
	if (f[WK_TARGET_CPU].ok) {
		memcpy(r->p, " CPU:", 5);
		r->p = udec_pad(r->p + 5, pfield(r, &f[WK_TARGET_CPU]), 3, '0');
	}
}

void ff_run_kmem(struct run *r, const struct ff_prog *pg)
{
	uint64_t v = pfield(r, &pg->pf[KM_CALL_SITE]);
	const struct func_ent *fe = ff_func_lookup(r->ff, v);

	if (!fe->name)
		return;
	put(r, "(", 1);
	put(r, fe->name, fe->len);
	if (!room(r, 16))
		return;
	memcpy(r->p, "+0x", 3);
	r->p = put_hex(r->p + 3, (unsigned int)(int)(v - fe->start));
	*r->p++ = ')';
	*r->p++ = ' ';
}

/* tep_print_func_field()'s " function=%s" text. */
static void put_func_field(struct run *r, uint64_t v)
{
	const struct func_ent *fe = ff_func_lookup(r->ff, v);
	size_t n;

	put(r, " function=", 10);
	/* (the plugin formats it in a 128-byte buffer) */
	if (fe->name) {
		/* "%s/0x%llx" of name and start - v (sic), cut at 127 bytes */
		char *p0;

		n = fe->len;
		if (!room(r, n + 19))
			return;
		p0 = r->p;
		memcpy(r->p, fe->name, n);
		memcpy(r->p + n, "/0x", 3);
		r->p = put_hex(r->p + n + 3, fe->start - v);
		if (r->p - p0 > 127)
			r->p = p0 + 127;
		return;
	}
	if (!room(r, 18))
		return;
	memcpy(r->p, "0x", 2);
	r->p += 2;
	n = (size_t)((v ? (67 - __builtin_clzll(v)) / 4 : 1));
	for (; n < 8; n++)
		*r->p++ = '0';
	r->p = put_hex(r->p, v);
}

void ff_run_hrtimer(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;

	if (!room(r, 64))
		return;
	memcpy(r->p, "hrtimer=0x", 10);
	r->p = put_hex(r->p + 10, pfield(r, &f[HR_TIMER]));
	if (pg->plug == P_HRTIMER_EXPIRE) {
		memcpy(r->p, " now=", 5);
		r->p = put_udec(r->p + 5, pfield(r, &f[HR_NOW]));
		if (f[HR_FUNCTION].ok)
			put_func_field(r, pfield(r, &f[HR_FUNCTION]));
		return;
	}
	if (f[HR_FUNCTION].ok)
		put_func_field(r, pfield(r, &f[HR_FUNCTION]));
	if (!room(r, 64))
		return;
	memcpy(r->p, " expires=", 9);
	r->p = put_udec(r->p + 9, pfield(r, &f[HR_EXPIRES]));
	memcpy(r->p, " softexpires=", 13);
	r->p = put_udec(r->p + 13, pfield(r, &f[HR_SOFTEXPIRES]));
}

void ff_run_tlb_flush(struct run *r, const struct ff_prog *pg)
{
	static const char *const reasons[] = {
		"flush on task switch", "remote shootdown", "local shootdown",
		"local mm shootdown",
	};
	uint64_t reason = pfield(r, &pg->pf[TLB_REASON]);

	if (!room(r, 64))
		return;
	memcpy(r->p, "pages=", 6);
	r->p = put_sdec(r->p + 6, (int64_t)pfield(r, &pg->pf[TLB_PAGES]));
	memcpy(r->p, " reason=", 8);
	r->p += 8;
	if (reason < 4)
		put(r, reasons[reason], strlen(reasons[reason]));
	if (!room(r, 24))
		return;
	memcpy(r->p, " (", 2);
	r->p = put_sdec(r->p + 2, (int64_t)reason);
	*r->p++ = ')';
}

/* " name=0x%08llx" */
static void put_hex8(struct run *r, const char *name, uint64_t v)
{
	char tmp[16];
	int n = (int)(put_hex(tmp, v) - tmp);

	if (!room(r, 40))
		return;
	*r->p++ = ' ';
	r->p = stpcpy(r->p, name);
	memcpy(r->p, "=0x", 3);
	r->p += 3;
	for (; n < 8; n++)
		*r->p++ = '0';
	r->p = put_hex(r->p, v);
}

/* " name=%llu" */
static void put_named_u(struct run *r, const char *name, uint64_t v)
{
	if (!room(r, 40))
		return;
	*r->p++ = ' ';
	r->p = stpcpy(r->p, name);
	*r->p++ = '=';
	r->p = put_udec(r->p, v);
}

/* The futex plugin's table: how each op prints val, utime, uaddr2, val3. */
enum { FX_NO, FX_HEX, FX_DEC };
static const struct {
	const char *name;
	unsigned char val, utime, uaddr2, val3;	/* utime FX_DEC: "val2" */
} futex_ops[] = {
	{ "FUTEX_WAIT", FX_HEX, FX_HEX, FX_NO, FX_NO },
	{ "FUTEX_WAKE", FX_DEC, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_FD", FX_DEC, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_REQUEUE", FX_DEC, FX_DEC, FX_HEX, FX_NO },
	{ "FUTEX_CMP_REQUEUE", FX_DEC, FX_DEC, FX_HEX, FX_HEX },
	{ "FUTEX_WAKE_OP", FX_DEC, FX_DEC, FX_HEX, FX_HEX },
	{ "FUTEX_LOCK_PI", FX_NO, FX_HEX, FX_NO, FX_NO },
	{ "FUTEX_UNLOCK_PI", FX_NO, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_TRYLOCK_PI", FX_NO, FX_NO, FX_NO, FX_NO },
	{ "FUTEX_WAIT_BITSET", FX_HEX, FX_HEX, FX_NO, FX_HEX },
	{ "FUTEX_WAKE_BITSET", FX_DEC, FX_NO, FX_NO, FX_HEX },
	{ "FUTEX_WAIT_REQUEUE_PI", FX_HEX, FX_HEX, FX_HEX, FX_HEX },
	{ "FUTEX_CMP_REQUEUE_PI", FX_DEC, FX_DEC, FX_HEX, FX_HEX },
};

/* Returns false when the plugin leaves the event to its format. */
bool ff_run_futex(struct run *r, const struct ff_prog *pg)
{
	const struct ff_field *f = pg->pf;
	uint64_t op = pfield(r, &f[FX_OP]), cmd = op & ~(uint64_t)(128 | 256);
	uint64_t v;

	if (cmd >= sizeof(futex_ops) / sizeof(futex_ops[0]))
		return false;
	put(r, "op=", 3);
	put(r, futex_ops[cmd].name, strlen(futex_ops[cmd].name));
	if (op & 128)
		put(r, "|FUTEX_PRIVATE_FLAG", 19);
	if (op & 256)
		put(r, "|FUTEX_CLOCK_REALTIME", 21);
	put_hex8(r, "uaddr", pfield(r, &f[FX_UADDR]));
	v = pfield(r, &f[FX_VAL]);
	if (futex_ops[cmd].val == FX_HEX)
		put_hex8(r, "val", v);
	else if (futex_ops[cmd].val == FX_DEC)
		put_named_u(r, "val", v);
	v = pfield(r, &f[FX_UTIME]);
	if (futex_ops[cmd].utime == FX_HEX)
		put_hex8(r, "utime", v);
	else if (futex_ops[cmd].utime == FX_DEC)
		put_named_u(r, "val2", v);
	if (futex_ops[cmd].uaddr2)
		put_hex8(r, "uaddr2", pfield(r, &f[FX_UADDR2]));
	if (futex_ops[cmd].val3)
		put_hex8(r, "val3", pfield(r, &f[FX_VAL3]));
	return true;
}

/*
 * One frame's line as the function plugin prints it (its "offset"
 * option off, as nothing here sets it): "=> name (addr)\n", or
 * "=> addr\n" for an address no function holds.  Writes into buf of
 * size cap; returns the length, or 0 when it does not fit.
 */
static size_t frame_line(struct kt_fastfmt *ff, uint64_t addr, char *buf,
			 size_t cap)
{
	const struct func_ent *fe = ff_func_lookup(ff, addr);
	char *p = buf;

	if (cap < fe->len + 24)
		return 0;
	memcpy(p, "=> ", 3);
	p += 3;
	if (fe->name) {
		memcpy(p, fe->name, fe->len);
		p += fe->len;
		memcpy(p, " (", 2);
		p = put_hex(p + 2, addr);
		*p++ = ')';
	} else {
		p = put_hex(p, addr);
	}
	*p++ = '\n';
	return (size_t)(p - buf);
}

/* The frame's line, from the cache (NULL: not kept, out of memory or too long). */
static const struct frame_ent *frame_of(struct kt_fastfmt *ff, uint64_t addr)
{
	struct frame_ent *fe;
	size_t n;

	if (!ff->frames) {
		ff->frames = calloc(FRAME_SLOTS, sizeof(*ff->frames));
		if (!ff->frames)
			return NULL;
	}
	fe = &ff->frames[(unsigned int)((addr * 0x9e3779b97f4a7c15ULL) >> 50) &
			 (FRAME_SLOTS - 1)];
	if (fe->len && fe->addr == addr)
		return fe;
	n = frame_line(ff, addr, fe->text, sizeof(fe->text));
	if (!n) {
		fe->len = 0;
		return NULL;
	}
	fe->addr = addr;
	fe->len = (uint16_t)n;
	return fe;
}

/*
 * ftrace:kernel_stack as the function plugin prints it: "<stack trace >"
 * and a line for each 8-byte address from caller[] to the record's end
 * (as many as the stack had, whatever caller[8] declares), up to the
 * first of all ones or of low 32 bits all ones.  A record that ends
 * inside an address (the plugin reads past it) answers -ENOTSUP.
 */
static void kstack_frames(struct run *r, int off)
{
	const struct frame_ent *fe;
	uint64_t addr;
	size_t n;

	for (; off < r->size; off += 8) {
		if (r->size - off < 8) {
			r->err = -ENOTSUP;
			return;
		}
		addr = load(r->data + off, 8);
		if (addr == UINT64_MAX || (uint32_t)addr == UINT32_MAX)
			break;
		fe = frame_of(r->ff, addr);
		if (fe) {
			put(r, fe->text, fe->len);
			continue;
		}
		n = frame_line(r->ff, addr, r->p, (size_t)(r->end - r->p));
		if (!n) {
			/* no room: the caller retries with more */
			r->err = -ENOSPC;
			return;
		}
		r->p += n;
	}
}

/*
 * run_kept()'s miss, out of its frame: the text printed and kept in se.
 * Its words (caller[]'s, to the record's end) are found again here: the
 * hit path then keeps fewer values across its memcmp().
 */
static __attribute__((noinline)) void
kept_fill(struct run *r, const struct ff_prog *pg, struct stack_ent *se,
	  void (*fill)(struct run *, const struct ff_prog *, int))
{
	int off = pg->pf[KS_CALLER].off;
	size_t n = (size_t)(r->size - off);
	char *start = r->p;

	fill(r, pg, off);
	if (r->err || (size_t)(r->p - start) > sizeof(se->text)) {
		se->nbytes = 0;
		return;
	}
	memcpy(se->words, r->data + off, n);
	se->nbytes = (uint16_t)n;
	se->len = (uint16_t)(r->p - start);
	memcpy(se->text, start, se->len);
}

/*
 * A stack's slot in a table of slots entries (a power of two): its n
 * bytes of words (a multiple of 8) hashed a word at a time.
 */
static inline unsigned int stack_slot(const unsigned char *key, size_t n,
				      unsigned int slots)
{
	uint64_t h = n, w;
	size_t i;

	for (i = 0; i < n; i += 8) {
		memcpy(&w, key + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	return (unsigned int)(h >> 48) & (slots - 1);
}

/*
 * The text fill() prints for the n bytes of words at r->data + off (off
 * caller[]'s, to the record's end), from *tab (slots entries, allocated
 * here) or printed and kept there.  Inlined into its two callers: fill
 * is then a direct call, slots a constant (a kernel stack 13
 * instructions fewer).
 */
static inline __attribute__((always_inline))
void run_kept(struct run *r, const struct ff_prog *pg, struct stack_ent **tab,
	      unsigned int slots,
	      void (*fill)(struct run *, const struct ff_prog *, int))
{
	int off = pg->pf[KS_CALLER].off;
	size_t n = off < r->size ? (size_t)(r->size - off) : 0;
	const unsigned char *key = r->data + off;
	struct stack_ent *se;

	if (!n || n % 8 || n > sizeof(se->words)) {
		fill(r, pg, off);
		return;
	}
	if (!*tab) {
		*tab = calloc(slots, sizeof(**tab));
		if (!*tab) {
			fill(r, pg, off);
			return;
		}
	}
	se = &(*tab)[stack_slot(key, n, slots)];
	if (se->nbytes == n && !memcmp(se->words, key, n)) {
		put(r, se->text, se->len);
		return;
	}
	kept_fill(r, pg, se, fill);
}

/* The line's "<stack trace >" kept with the frames: one copy for both. */
static void kstack_fill(struct run *r, const struct ff_prog *pg, int off)
{
	(void)pg;
	put(r, "<stack trace >\n", 15);
	kstack_frames(r, off);
}

void ff_run_kstack(struct run *r, const struct ff_prog *pg)
{
	run_kept(r, pg, &r->ff->stacks, STACK_SLOTS, kstack_fill);
}

int ff_kstack_kept(struct kt_fastfmt *ff, const struct ff_prog *pg,
		   const unsigned char *data, int size, char *out, size_t cap)
{
	int off = pg->pf[KS_CALLER].off;
	size_t n = off < size ? (size_t)(size - off) : 0;
	const unsigned char *key = data + off;
	const struct stack_ent *se;

	/* run_kept()'s slot, its test of a hit and put()'s of the room. */
	if (!ff->stacks || !n || n % 8 || n > sizeof(se->words))
		return -1;
	se = &ff->stacks[stack_slot(key, n, STACK_SLOTS)];
	if (se->nbytes != n || se->len > cap - 1 || memcmp(se->words, key, n))
		return -1;
	memcpy(out, se->text, se->len);
	out[se->len] = '\0';
	return se->len;
}

static void ustack_fill(struct run *r, const struct ff_prog *pg, int off)
{
	(void)off;
	ff_run_segs(r, pg);
}

/*
 * ftrace:user_stack: its format's text (run_segs()), kept by the bytes
 * after the common fields, which are all the format reads.
 */
void ff_run_ustack(struct run *r, const struct ff_prog *pg)
{
	run_kept(r, pg, &r->ff->ustacks, USTACK_SLOTS, ustack_fill);
}
