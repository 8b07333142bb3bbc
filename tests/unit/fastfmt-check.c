// SPDX-License-Identifier: GPL-2.0
/*
 * Identity check of the report formatter (lib/decode/fastfmt.c) against
 * libtraceevent, which is what trace-cmd report prints with.
 *
 *   fastfmt-check [-i INSTANCE] [-T] [-e SYSTEM]... [-r SYS:EVENT]... -- CMD...
 *	records CMD's events live and compares, for every record,
 *	kt_fastfmt_info() with tep_print_event(..., "%s", TEP_PRINT_INFO);
 *	then feeds truncated and corrupted copies of each compiled event's
 *	records to kt_fastfmt_info() (build with ASan to catch any read
 *	outside the record).  -r: fail unless that event was seen and
 *	compiled.  -T: a kernel stack after each event (ftrace:kernel_stack).
 *   fastfmt-check --all
 *	compiles every event format of the running kernel and lists the
 *	ones left to libtraceevent, with the reason.
 *   fastfmt-check --synth N
 *	parses synthetic events with many printf specs, operators, flags,
 *	symbols, strings and arrays, and compares N random records of each.
 *
 * Prints per-event coverage and every mismatch with both strings; exits
 * 1 on any mismatch or unmet -r.  --inject spoils one fast output in
 * about a thousand, to show that the comparison catches differences.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>
#include <trace-seq.h>

#include "decode/fastfmt.h"
#include "fastfmt-capture.h"

struct stat_ev {
	struct tep_event *ev;
	unsigned long count, fast, slow, bad;
};

static int verbose;
static int max_shown = 20;
static int inject;	/* --inject: spoil some fast outputs (tests the check) */

static int cmp_count(const void *a, const void *b)
{
	const struct stat_ev *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void show(const char *what, struct tep_event *ev, const char *want,
		 const char *got)
{
	static int shown;

	if (shown++ >= max_shown)
		return;
	printf("MISMATCH %s %s:%s\n  libtraceevent: '%s'\n  fastfmt:       '%s'\n",
	       what, ev->system, ev->name, want, got);
}

/* Compare one record; returns 1 on a mismatch. */
static int compare(struct kt_fastfmt *ff, struct tep_handle *tep,
		   struct tep_record *rec, struct stat_ev *st, const char *what)
{
	static char out[1 << 16];
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	struct trace_seq s;
	int n, bad = 0;

	if (!ev)
		return 0;
	n = kt_fastfmt_info(ff, ev, rec->data, rec->size, out, sizeof(out));
	trace_seq_init(&s);
	tep_print_event(tep, &s, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	if (st) {
		st->ev = ev;
		st->count++;
	}
	if (n == -ENOTSUP) {
		if (st)
			st->slow++;
	} else if (n < 0) {
		printf("ERROR %s:%s: kt_fastfmt_info: %s\n", ev->system, ev->name,
		       strerror(-n));
		bad = 1;
	} else {
		if (st)
			st->fast++;
		if (inject && n > 0 && st && st->fast % 997 == 1)
			out[n - 1] ^= 1;
		/*
		 * the trace_seq flavour, appending to a nearly full seq: one
		 * trace_seq_puts leaves the seq as 4000 + pre trace_seq_putc
		 * calls would (length, buffer size), at a 4000th of the cost
		 */
		{
			static char dots[4097];
			struct trace_seq s2;
			unsigned int pre = (unsigned int)(st ? st->count % 97 : 0);
			int k;

			if (!dots[0])
				memset(dots, '.', 4096);
			trace_seq_init(&s2);
			trace_seq_puts(&s2, dots + 4096 - (4000 + pre));
			k = kt_fastfmt_seq(&s2, ev, rec, ff);
			trace_seq_terminate(&s2);
			if (k || strcmp(s2.buffer + 4000 + pre, s.buffer)) {
				show(what, ev, s.buffer, k ? "(kt_fastfmt_seq failed)" :
				     s2.buffer + 4000 + pre);
				bad = 1;
			}
			trace_seq_destroy(&s2);
		}
		if ((size_t)n != strlen(out)) {
			show(what, ev, s.buffer, "(length differs from strlen)");
			bad = 1;
		} else if (strcmp(out, s.buffer)) {
			show(what, ev, s.buffer, out);
			bad = 1;
		}
	}
	if (bad && st)
		st->bad++;
	if (verbose > 2)
		printf("%s:%s: '%s'\n", ev->system, ev->name, s.buffer);
	trace_seq_destroy(&s);
	return bad;
}

/*
 * Robustness: truncated and corrupted copies, each in a buffer of exactly
 * its size so ASan sees any read beyond it.  Only kt_fastfmt_info() runs
 * here: libtraceevent itself does not bound its reads.
 */
static void torture(struct kt_fastfmt *ff, struct tep_event *ev,
		    const unsigned char *data, int size, unsigned int seed)
{
	static char out[1 << 16];
	struct tep_format_field **fields = tep_event_fields(ev), *f;
	unsigned char *buf;
	int cut, i, k;

	for (cut = 0; cut <= size; cut++) {
		buf = malloc((size_t)cut + 1);
		if (!buf)
			break;
		memcpy(buf, data, (size_t)cut);
		kt_fastfmt_info(ff, ev, buf, cut, out, sizeof(out));
		free(buf);
	}
	/* garbage in every dynamic field, and random bytes everywhere */
	for (k = 0; k < 64; k++) {
		buf = malloc((size_t)size + 1);
		if (!buf)
			break;
		memcpy(buf, data, (size_t)size);
		for (i = 0; fields && fields[i]; i++) {
			f = fields[i];
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC) ||
			    f->offset + f->size > size)
				continue;
			seed = seed * 1103515245 + 12345;
			if (f->size == 4) {
				unsigned int v = seed;

				memcpy(buf + f->offset, &v, 4);
			} else if (f->size == 2) {
				unsigned short v = (unsigned short)seed;

				memcpy(buf + f->offset, &v, 2);
			}
		}
		if (k & 1) {
			for (i = 8; i < size; i++) {
				seed = seed * 1103515245 + 12345;
				if (!(seed & 0x300))
					buf[i] = (unsigned char)(seed >> 16);
			}
		}
		/* small output buffers must answer -ENOSPC, not overflow */
		kt_fastfmt_info(ff, ev, buf, size, out, (size_t)(k % 8) + 1);
		kt_fastfmt_info(ff, ev, buf, size, out, sizeof(out));
		free(buf);
	}
	free(fields);
}

/* The pids a record names: its task, and the tasks of a sched plugin. */
static int record_pids(struct tep_handle *tep, struct tep_record *rec,
		       int pids[4])
{
	static const char *const names[] = { "prev_pid", "next_pid", "pid" };
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	struct tep_format_field *f;
	unsigned long long v;
	int n = 0, k;

	pids[n++] = tep_data_pid(tep, rec);
	for (k = 0; ev && k < 3; k++) {
		f = tep_find_field(ev, names[k]);
		if (f && f->offset + f->size <= rec->size &&
		    !tep_read_number_field(f, rec->data, &v))
			pids[n++] = (int)v;
	}
	return n;
}

/*
 * The plugins' side effect: sched_switch and sched_wakeup register the
 * comms they print.  Format every record as a report would (comm lookup
 * for the line's prefix, then the info) once with libtraceevent alone and
 * once with the fast formatter, each on a tep of its own, and compare the
 * comm of every pid the records name.  (Each tep starts from the saved
 * cmdlines of its own moment: they are made to agree on those pids
 * first.)  Returns the number of differences.
 */
/* Whether a and b know the same comm for every pid in seen. */
static bool same_comms(struct tep_handle *a, struct tep_handle *b,
		       const unsigned char *seen)
{
	int pid;

	for (pid = 1; pid < (1 << 22); pid++)
		if (seen[pid] &&
		    (tep_is_pid_registered(a, pid) != tep_is_pid_registered(b, pid) ||
		     strcmp(tep_data_comm_from_pid(a, pid),
			    tep_data_comm_from_pid(b, pid))))
			return false;
	return true;
}

static int check_comms(struct capture *cap)
{
	struct tep_plugin_list *pa = NULL, *pb = NULL;
	struct tep_handle *a = NULL, *b = NULL;
	struct kt_fastfmt *ff;
	static char out[1 << 16];
	unsigned char *seen;
	struct trace_seq s;
	int bad = 0, pid, pids = 0, p4[4], n, k, fresh = 0, tries;
	size_t i;

	seen = calloc(1 << 22, 1);
	if (!seen)
		return 1;
	for (i = 0; i < cap->nrecs; i++) {
		struct tep_record rec;

		capture_record(&cap->recs[i], &rec);
		n = record_pids(cap->tep, &rec, p4);
		for (k = 0; k < n; k++)
			if (p4[k] > 0 && p4[k] < (1 << 22))
				seen[p4[k]] = 1;
	}
	/*
	 * Both teps load the saved cmdlines of their moment, which other
	 * processes change: make them until they agree on these pids.
	 */
	for (tries = 0; tries < 20; tries++) {
		a = capture_new_tep(&pa);
		b = capture_new_tep(&pb);
		if (!a || !b)
			return 1;
		if (same_comms(a, b, seen))
			break;
		tep_unload_plugins(pa, a);
		tep_unload_plugins(pb, b);
		tep_free(a);
		tep_free(b);
		a = b = NULL;
	}
	if (!a) {
		printf("COMM saved_cmdlines never stable enough to compare\n");
		free(seen);
		return 1;
	}
	for (pid = 1; pid < (1 << 22); pid++)
		fresh += seen[pid] && !tep_is_pid_registered(a, pid);
	ff = kt_fastfmt_new(a);
	trace_seq_init(&s);
	for (i = 0; i < cap->nrecs; i++) {
		struct tep_record rec;
		struct tep_event *ev;

		capture_record(&cap->recs[i], &rec);
		pid = tep_data_pid(a, &rec);
		tep_data_comm_from_pid(a, pid);
		tep_data_comm_from_pid(b, pid);
		ev = tep_find_event_by_record(a, &rec);
		if (ev && kt_fastfmt_info(ff, ev, rec.data, rec.size, out,
					  sizeof(out)) < 0) {
			trace_seq_reset(&s);
			tep_print_event(a, &s, &rec, "%s", TEP_PRINT_INFO);
		}
		trace_seq_reset(&s);
		tep_print_event(b, &s, &rec, "%s", TEP_PRINT_INFO);
	}
	for (pid = 1; pid < (1 << 22); pid++) {
		const char *ca, *cb;

		if (!seen[pid])
			continue;
		pids++;
		ca = tep_data_comm_from_pid(a, pid);
		cb = tep_data_comm_from_pid(b, pid);
		if (strcmp(ca, cb) && bad++ < 10)
			printf("COMM pid %d: libtraceevent '%s', fastfmt '%s'\n",
			       pid, cb, ca);
	}
	printf("comms: %d pids (%d not in saved_cmdlines), %d differences\n",
	       pids, fresh, bad);
	trace_seq_destroy(&s);
	kt_fastfmt_free(ff);
	free(seen);
	tep_unload_plugins(pa, a);
	tep_unload_plugins(pb, b);
	tep_free(a);
	tep_free(b);
	return bad;
}

/* ---------------------------------------------------------------- */
/* Synthetic events                                                  */

static const char synth_fields[] =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long b;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:short h;\toffset:24;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned char c;\toffset:26;\tsize:1;\tsigned:0;\n"
	"\tfield:char s[16];\toffset:27;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long arr[3];\toffset:48;\tsize:24;\tsigned:0;\n"
	"\tfield:__data_loc u8[] buf;\toffset:72;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char mac[6];\toffset:76;\tsize:6;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] mask;\toffset:84;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rname;\toffset:88;\tsize:4;\tsigned:0;\n"
	"\n";
#define SYNTH_FIXED 92

static const char *synth_prints[] = {
	"\"%d %i %u %x %X %o\", REC->a, REC->a, REC->a, REC->a, REC->a, REC->a",
	"\"%ld %lu %lx %lld %llu %llx\", REC->b, REC->b, REC->b, REC->b, REC->b, REC->b",
	"\"%hd %hu %hx %hhd %hhu %hhx\", REC->a, REC->a, REC->a, REC->a, REC->a, REC->a",
	"\"%zu %zd %Lu %zx\", REC->b, REC->b, REC->b, REC->b",
	"\"[%5d] [%-5d] [%05d] [%.3d] [%8.3d] [%-8.3d] [%08.3d]\", REC->a, REC->a, REC->a, REC->a, REC->a, REC->a, REC->a",
	"\"[%.0d] [%.0x] [%#x] [%#X] [%#o] [%#08x] [%#.5o] [%#5x]\", REC->c, REC->c, REC->c, REC->c, REC->c, REC->c, REC->c, REC->c",
	"\"[%20lu] [%-20ld] [%020lld] [%.20llx] [%#lx] [%016lx]\", REC->b, REC->b, REC->b, REC->b, REC->b, REC->b",
	"\"[%*d] [%-*d] [%.*d] [%*s] [%.*s] [%-*s]\", REC->c & 15, REC->a, REC->c & 15, REC->a, REC->c & 15, REC->a, REC->c & 15, REC->s, REC->c & 7, REC->s, REC->c & 15, REC->s",
	"\"[%s] [%10s] [%-10s] [%.3s] [%10.3s] [%-10.3s] [%05s]\", REC->s, REC->s, REC->s, REC->s, REC->s, REC->s, REC->s",
	"\"name=%s rname=%s [%20s]\", __get_str(name), __get_rel_str(rname), __get_str(name)",
	"\"%d %d %d %d %d %d\", REC->a + REC->u, REC->a - REC->u, REC->a * 3, REC->b / 7, REC->b % 10, -REC->a",
	"\"%lu %lu %lu %lu %lu %lu\", REC->b << 3, REC->b >> 2, REC->b & 0xff, REC->b | 0x100, ~REC->b, !REC->b",
	"\"%d %d %d %d %d %d %d %d\", REC->a < REC->u, REC->a > REC->u, REC->a <= 5, REC->a >= 5, REC->a == REC->u, REC->a != 0, REC->a && REC->u, REC->a || REC->u",
	"\"%d %lu %d %llu\", (int)REC->b, (unsigned long)REC->a, (u8)REC->b, (unsigned long long)REC->h",
	"\"%d %d %lu\", (short)REC->a, (char)REC->a, (u16)(REC->b >> 4)",
	"\"%s %s %d\", REC->a > 0 ? \"pos\" : \"neg\", REC->c & 1 ? __get_str(name) : REC->s, REC->c ? REC->a : REC->h",
	"\"flags=%s\", __print_flags(REC->u, \"|\", { 1, \"ONE\" }, { 2, \"TWO\" }, { 4, \"FOUR\" }, { 0x10, \"SIXTEEN\" })",
	"\"flags=%s z=%s\", __print_flags(REC->c & 3, \"\", { 0, \"NONE\" }, { 1, \"A\" }, { 2, \"B\" }), __print_flags(REC->c, \",\", { 0x80, \"HI\" })",
	"\"sym=%s [%-8s]\", __print_symbolic(REC->c & 7, { 0, \"zero\" }, { 1, \"one\" }, { 2, \"two\" }, { HI_SOFTIRQ, \"hi\" }, { 5, \"five\" }), __print_symbolic(REC->c & 3, { 1, \"x\" })",
	"\"vec=%u [action=%s]\", REC->c & 15, __print_symbolic(REC->c & 15, { 0, \"HI\" }, { 1, \"TIMER\" }, { 9, \"RCU\" })",
	"\"arr=%lx,%lx,%lx %lu\", REC->arr[0], REC->arr[1], REC->arr[2], REC->arr[REC->c & 1]",
	"\"hex=%s str=%s\", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), __print_hex_str(__get_dynamic_array(buf), __get_dynamic_array_len(buf))",
	"\"array=%s\", __print_array(__get_dynamic_array(buf), __get_dynamic_array_len(buf), 1)",
	"\"array=%s\", __print_array(REC->arr, 3, 8)",
	"\"mask=%s\", __get_bitmask(mask)",
	"\"cpus=%s [%-12s]\", __get_cpumask(mask), __get_cpumask(mask)",
	"\"neg=%s|%s\", __print_flags(REC->c & 7, \"+\", { 1, \"A\" }, { UNKNOWN_NAME, \"unk\" }, { 2, \"B\" }, { 4, \"C\" }), __print_flags(REC->c & 3, \",\", { 1, \"A\" }, { 2, \"B\" }, { NOPE, \"nope\" })",
	"\"mac=%pM %pm %pMR %pMF\", REC->mac, REC->mac, REC->mac, REC->mac",
	"\"ptr=%p %p %px\", REC->b, REC->arr[0] & 0, (void *)REC->b",
	"\"fn=%ps %pS %pf %pF\", REC->b, REC->b, REC->b, REC->b",
	"\"odd %c %+d % d 100%% \\t\\\\ %q\", REC->a, REC->a, REC->a",
	"\"%s\", REC->b",
	"\"[%s] %d %s [%-20s]\", __get_str(name), REC->a, REC->c ? \"y\" : \"n\", REC->b",
	"\"len=%u %d\", __get_dynamic_array_len(name), REC->u / 3",
	"\"dangling %d %\", REC->a",
	"\"%5p|%-20ps|%s\", REC->b, REC->b, \"lit\"",
	"\"%d %d\", REC->a",
	"\"%lld %llx\", REC->a - 1000, REC->h",
	"\"%hhd %hd %d %ld\", REC->b, REC->b, REC->b, REC->b",
	"\"%3$d %1$d\", REC->a, REC->a, REC->a",
	"\"%-#10x|%#-10o|%-010d|%0-10d\", REC->a, REC->a, REC->a, REC->a",
	"\"ip4=%pI4 %pi4 %pI4h %pI4n %pI4l %pI4b bad=%pI4\", REC->u, REC->u, REC->u, REC->u, REC->u, REC->u, REC->b",
	"\"ip6=%pI6 %pi6 %pI6c %pi6c bad=%pI6c sa=%pISpc\", REC->s, REC->s, REC->s, REC->s, REC->arr, REC->s",
	"\"ip6=%pI6c\", REC->s",
	"\"uuid=%pU %pUb %pUB %pUl %pUL bad=%pU\", REC->s, REC->s, REC->s, REC->s, REC->s, REC->arr",
	"\"sa=%pISpc %pIS %piS %pISc %pISp\", __get_dynamic_array(buf), __get_dynamic_array(buf), __get_dynamic_array(buf), __get_dynamic_array(buf), __get_dynamic_array(buf)",
};

static unsigned long long rnd_state = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A random interesting number of the given size. */
static unsigned long long rnd_num(void)
{
	static const unsigned long long special[] = {
		0, 1, 2, 3, 5, 7, 9, 10, 15, 16, 99, 100, 255, 256, 1000,
		0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, ~0ULL, ~0ULL - 1, 12345678901234ULL,
	};
	unsigned long long r = rnd();

	switch (r % 4) {
	case 0:
		return special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
	case 1:
		return (r >> 8) & 0xff;
	case 2:
		return -(long long)((r >> 8) & 0xffff);
	}
	return rnd();
}

static int synth_record(unsigned char *d, int id, int *size)
{
	static const char *words[] = { "", "x", "swapper/0", "kworker/u8:1",
				       "a-very-long-string-over-16", "12345" };
	unsigned long long v;
	unsigned short us;
	unsigned int dl;
	int off = SYNTH_FIXED, i, n;
	const char *w;

	memset(d, 0, 512);
	us = (unsigned short)id;
	memcpy(d, &us, 2);
	v = rnd_num();
	memcpy(d + 8, &v, 4);
	v = rnd_num();
	memcpy(d + 12, &v, 4);
	v = rnd_num();
	memcpy(d + 16, &v, 8);
	v = rnd_num();
	memcpy(d + 24, &v, 2);
	d[26] = (unsigned char)rnd_num();
	w = words[rnd() % 6];
	n = (int)strlen(w);
	memcpy(d + 27, w, (size_t)(n < 16 ? n : 16));	/* maybe unterminated */
	if (rnd() % 2) {
		/* an IPv6 address with zero runs, v4-mapped or ISATAP */
		for (i = 0; i < 16; i += 2) {
			v = rnd();
			d[27 + i] = v % 3 ? 0 : (unsigned char)(v >> 8);
			d[28 + i] = v % 3 ? 0 : (unsigned char)(v >> 16);
		}
		if (rnd() % 3 == 0) {
			memset(d + 27, 0, 10);
			d[37] = d[38] = 0xff;
		} else if (rnd() % 3 == 0) {
			d[35] = (unsigned char)(rnd() & 2);
			d[36] = 0;
			d[37] = 0x5e;
			d[38] = 0xfe;
		}
	}
	for (i = 0; i < 3; i++) {
		v = rnd_num();
		memcpy(d + 48 + 8 * i, &v, 8);
	}
	for (i = 0; i < 6; i++)
		d[76 + i] = (unsigned char)rnd();
	/* name */
	w = words[rnd() % 6];
	n = (int)strlen(w) + 1;
	dl = (unsigned int)off | (unsigned int)n << 16;
	memcpy(d + 44, &dl, 4);
	memcpy(d + off, w, (size_t)n);
	off += n;
	/* buf: bytes, or a sockaddr_in or _in6 (maybe cut short) */
	n = (int)(rnd() % 12);
	if (rnd() % 2)
		n = (int)(rnd() % 2 ? 16 : 28) - (int)(rnd() % 4 == 0);
	dl = (unsigned int)off | (unsigned int)n << 16;
	memcpy(d + 72, &dl, 4);
	for (i = 0; i < n; i++)
		d[off + i] = (unsigned char)(rnd() % 3 ? 0 : rnd());
	if (n >= 15) {
		unsigned short fam = n >= 27 ? 10 : 2;

		memcpy(d + off, &fam, 2);
		if (n >= 27 && rnd() % 2) {
			memset(d + off + 8, 0, 10);
			d[off + 18] = d[off + 19] = 0xff;
		}
	}
	off += n;
	/* mask: 1 or 2 longs (libtraceevent allocates gigabytes for an empty cpumask) */
	off = (off + 7) & ~7;
	n = (int)(rnd() % 2 + 1) * 8;
	dl = (unsigned int)off | (unsigned int)n << 16;
	memcpy(d + 84, &dl, 4);
	for (i = 0; i < n; i++)
		d[off + i] = (unsigned char)(rnd() & rnd());
	off += n;
	/* rname: relative to the end of its own field */
	w = words[rnd() % 6];
	n = (int)strlen(w) + 1;
	dl = (unsigned int)(off - 92) | (unsigned int)n << 16;
	memcpy(d + 88, &dl, 4);
	memcpy(d + off, w, (size_t)n);
	off += n;
	*size = off;
	return 0;
}

/* The prefix emitters against snprintf; returns the number of differences. */
static int check_helpers(int n)
{
	char want[128], got[128], *e;
	int bad = 0, i, w, prec, div;
	unsigned long long v;

	for (i = 0; i < n; i++) {
		v = rnd_num();
		w = (int)(rnd() % 24);
		snprintf(want, sizeof(want), "%*llu", w, v);
		*kt_fmt_udec(got, v, w, ' ') = 0;
		bad += !!strcmp(want, got);
		snprintf(want, sizeof(want), "%0*llu", w, v);
		*kt_fmt_udec(got, v, w, '0') = 0;
		bad += !!strcmp(want, got);
		snprintf(want, sizeof(want), "%*lld", w, (long long)v);
		*kt_fmt_sdec(got, (long long)v, w) = 0;
		bad += !!strcmp(want, got);
		snprintf(want, sizeof(want), "%llx", v);
		*kt_fmt_hex(got, v) = 0;
		bad += !!strcmp(want, got);
		snprintf(want, sizeof(want), "%-*s|%*s", w, "kworker", w, "sh");
		e = kt_fmt_str_left(got, "kworker", 7, w);
		*e++ = '|';
		*kt_fmt_str_right(e, "sh", 2, w) = 0;
		bad += !!strcmp(want, got);
		/* TEP_PRINT_TIME as libtraceevent prints it */
		prec = (int)(rnd() % 10);
		div = (int)(rnd() % 3 == 0 ? 0 : rnd() % 2 ? 1000 : 1);
		v = rnd() >> (rnd() % 40);
		{
			unsigned long long t = v, p10 = 1;
			int k;

			if (div)
				t = (t + (unsigned long long)(div / 2)) / (unsigned long long)div;
			for (k = 0; k < prec; k++)
				p10 *= 10;
			if (p10 > 1)
				snprintf(want, sizeof(want), "%5llu.%0*llu", t / p10, prec, t % p10);
			else
				snprintf(want, sizeof(want), "%12llu", t);
		}
		*kt_fmt_time(got, v, prec, div) = 0;
		if (strcmp(want, got)) {
			if (bad < 5)
				printf("helper mismatch: want '%s' got '%s'\n", want, got);
			bad++;
		}
	}
	printf("prefix helpers: %d cases, %d mismatches\n", n, bad);
	return bad;
}

/*
 * A random print format: up to four conversions with random flags,
 * width, precision ('*' too), length and conversion, and fitting
 * arguments (none of the undefined combinations: no length on %s or %p,
 * no negative '*').
 */
static void gen_format(char *out, size_t cap)
{
	static const char *const ints[] = {
		"REC->a", "REC->b", "REC->h", "REC->c", "REC->u", "(int)REC->b",
		"REC->a + REC->c", "REC->arr[1]", "REC->b >> 7", "-REC->h",
	};
	static const char *const strs[] = {
		"REC->s", "__get_str(name)", "\"lit\"", "REC->c & 1 ? \"yes\" : \"no\"",
	};
	static const char *const lens[] = { "", "", "h", "hh", "l", "ll", "z", "L" };
	static const char convs[] = "diuxXosdxup";
	char fmt[512] = "", args[1024] = "", spec[64], *q;
	int n = 1 + (int)(rnd() % 4), k;

	for (k = 0; k < n; k++) {
		char conv = convs[rnd() % (sizeof(convs) - 1)];
		int r = (int)(rnd() % 8);

		q = spec;
		*q++ = '%';
		if (rnd() % 3 == 0)
			*q++ = "-0#"[rnd() % 3];
		if (rnd() % 4 == 0)
			*q++ = "-0#"[rnd() % 3];
		if (r == 1) {
			*q++ = '*';
			strcat(args, ", REC->c & 31");
		} else if (r >= 4) {
			q += sprintf(q, "%d", (int)(rnd() % 25));
		}
		if (rnd() % 3 == 0) {
			if (rnd() % 3 == 0 && r != 1) {
				q += sprintf(q, ".*");
				strcat(args, ", REC->c & 15");
			} else {
				q += sprintf(q, ".%d", (int)(rnd() % 22));
			}
		}
		if (conv != 's' && conv != 'p')
			q += sprintf(q, "%s", lens[rnd() % 8]);
		*q++ = conv;
		*q = 0;
		strcat(fmt, k % 2 ? " [" : " ");
		strcat(fmt, spec);
		strcat(fmt, k % 2 ? "]" : "");
		strcat(args, ", ");
		strcat(args, conv == 's' ? strs[rnd() % 4] : ints[rnd() % 10]);
	}
	snprintf(out, cap, "\"%s\"%s", fmt + 1, args);
}

#define SYNTH_RANDOM 300

static int run_synth(int per_format)
{
	struct tep_handle *tep = tep_alloc();
	struct kt_fastfmt *ff;
	unsigned char data[512];
	size_t i, nfixed, nprints;
	int bad = 0, compiled = 0, j;
	char buf[4096], **prints;

	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	/* a few functions for %ps */
	tep_register_function(tep, "func_a", 0x1000, NULL);
	tep_register_function(tep, "func_b", 0x2000, NULL);
	tep_register_function(tep, "func_c", 0xffffffff81000000ULL, NULL);
	/* and strings for "%s" of a pointer */
	tep_register_print_string(tep, "\"hello printk\\n\"", 0x1000);
	tep_register_print_string(tep, "plain", 0x2000);
	nfixed = sizeof(synth_prints) / sizeof(synth_prints[0]);
	nprints = nfixed + SYNTH_RANDOM;
	prints = calloc(nprints, sizeof(*prints));
	if (!prints)
		return 1;
	for (i = 0; i < nprints; i++) {
		char gen[2048];
		int n;

		if (i >= nfixed)
			gen_format(gen, sizeof(gen));
		prints[i] = strdup(i < nfixed ? synth_prints[i] : gen);
		n = snprintf(buf, sizeof(buf), "name: synth%zu\nID: %zu\n%s"
			     "print fmt: %s\n", i, 100 + i, synth_fields, prints[i]);
		if (tep_parse_event(tep, buf, (size_t)n, "synth")) {
			printf("synthetic format %zu does not parse: %s\n", i,
			       prints[i]);
			bad++;
		}
	}
	ff = kt_fastfmt_new(tep);
	for (i = 0; i < nprints; i++) {
		struct tep_event *ev = tep_find_event(tep, (int)(100 + i));
		struct tep_record rec;
		struct stat_ev st = { 0 };

		if (!ev)
			continue;
		if (verbose > 1)
			fprintf(stderr, "synth%zu: %s\n", i, prints[i]);
		if (kt_fastfmt_compiled(ff, ev))
			compiled++;
		for (j = 0; j < per_format; j++) {
			int size;

			synth_record(data, (int)(100 + i), &size);
			/* %p/%ps of small values stay near the registered funcs */
			if (j & 1) {
				unsigned long long v = 0x1000 + (rnd() & 0x1fff);

				if (j % 4 == 3)
					v = rnd() % 2 ? 0x1000 : 0x2000;
				memcpy(data + 16, &v, 8);
			}
			memset(&rec, 0, sizeof(rec));
			rec.data = data;
			rec.size = size;
			if (compare(ff, tep, &rec, &st, "synthetic"))
				bad++;
		}
		if (verbose || !kt_fastfmt_compiled(ff, ev))
			printf("synth%-3zu %-9s %lu/%lu fast, %lu mismatches  %s\n",
			       i, kt_fastfmt_compiled(ff, ev) ? "compiled" : "fallback",
			       st.fast, st.count, st.bad,
			       kt_fastfmt_reason(ff, ev));
	}
	bad += check_helpers(per_format * 10);
	printf("synthetic: %zu formats, %d compiled, %d records each, %d mismatches\n",
	       nprints, compiled,
	       per_format, bad);
	kt_fastfmt_free(ff);
	tep_free(tep);
	for (i = 0; i < nprints; i++)
		free(prints[i]);
	free(prints);
	return bad ? 1 : 0;
}

/* ---------------------------------------------------------------- */

static const char *default_systems[] = {
	"sched", "irq", "timer", "kmem", "raw_syscalls", "syscalls", "block",
	"writeback", "net", "workqueue", "signal", "task", "filemap", "skb",
	"sock", "tcp", "napi", "ipi", "rcu", "mmap_lock", "vmscan", "ext4",
	"jbd2", "power", "page_pool", "qdisc", "tlb", "x86_fpu", "iomap",
	"fib", "neigh", "oom", "compaction", "migrate", "pagemap",
	"percpu", "cgroup", "lock", "io_uring",
	NULL,
};

/* Compile every event format of this kernel; print why some do not. */
static int run_all(void)
{
	struct tep_plugin_list *plugins;
	struct tep_handle *tep = capture_new_tep(&plugins);
	struct kt_fastfmt *ff;
	struct tep_event **evs;
	int i, n = 0, ok = 0;

	if (!tep)
		return 1;
	ff = kt_fastfmt_new(tep);
	evs = tep_list_events(tep, TEP_EVENT_SORT_SYSTEM);
	for (i = 0; evs && evs[i]; i++, n++) {
		const char *why = kt_fastfmt_reason(ff, evs[i]);

		if (!*why)
			ok++;
		else
			printf("%s:%s: %s\n", evs[i]->system, evs[i]->name, why);
	}
	printf("all formats: %d events, %d compiled\n", n, ok);
	kt_fastfmt_free(ff);
	tep_unload_plugins(plugins, tep);
	tep_free(tep);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fastfmt-check [-v] [-i INSTANCE] [-T] [-e SYSTEM]... [-r SYS:EVENT]... -- CMD...\n"
		"       fastfmt-check [-v] --synth N\n"
		"       fastfmt-check --all\n");
	exit(64);
}

int main(int argc, char **argv)
{
	static struct option lopts[] = {
		{ "synth", required_argument, NULL, 'S' },
		{ "inject", no_argument, &inject, 1 },
		{ "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	const char *systems[128], *required[64], *instance = NULL;
	int nsys = 0, nreq = 0, opt, bad = 0, i;
	struct capture cap = { 0 };
	struct kt_fastfmt *ff;
	struct stat_ev *st;
	unsigned long fast = 0, slow = 0, nbad = 0, seen_ev = 0, comp_ev = 0;
	char defname[64];
	size_t r;

	while ((opt = getopt_long(argc, argv, "+vi:e:r:m:T", lopts, NULL)) != -1) {
		switch (opt) {
		case 'T':
			cap.stacks = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'i':
			instance = optarg;
			break;
		case 'e':
			if (nsys < 127)
				systems[nsys++] = optarg;
			break;
		case 'r':
			if (nreq < 64)
				required[nreq++] = optarg;
			break;
		case 'm':
			max_shown = atoi(optarg);
			break;
		case 'S':
			return run_synth(atoi(optarg));
		case 0:
			break;
		case 'A':
			return run_all();
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	if (!nsys)
		for (; default_systems[nsys]; nsys++)
			systems[nsys] = default_systems[nsys];
	systems[nsys] = NULL;
	if (!instance) {
		snprintf(defname, sizeof(defname), "kt-ffcheck-%d", getpid());
		instance = defname;
	}
	if (capture_run(&cap, instance, systems, 8192, argv + optind))
		return 1;

	ff = kt_fastfmt_new(cap.tep);
	st = calloc(65536, sizeof(*st));
	if (!ff || !st)
		return 1;
	for (r = 0; r < cap.nrecs; r++) {
		struct tep_record rec;
		int id;

		capture_record(&cap.recs[r], &rec);
		id = tep_data_type(cap.tep, &rec);
		if (id < 0 || id >= 65536)
			continue;
		bad += compare(ff, cap.tep, &rec, &st[id], "live");
	}
	bad += check_comms(&cap);
	/* robustness on up to 4 records of each compiled event */
	for (i = 0; i < 65536; i++)
		st[i].count = 0;
	for (r = 0; r < cap.nrecs; r++) {
		struct tep_record rec;
		struct tep_event *ev;
		int id;

		capture_record(&cap.recs[r], &rec);
		id = tep_data_type(cap.tep, &rec);
		ev = id >= 0 && id < 65536 ? st[id].ev : NULL;
		if (!ev || st[id].count++ >= 4 || !kt_fastfmt_compiled(ff, ev))
			continue;
		torture(ff, ev, rec.data, rec.size, (unsigned int)r);
	}
	/* the recount above reused .count; redo it for the table */
	for (i = 0; i < 65536; i++)
		st[i].count = st[i].fast + st[i].slow;

	qsort(st, 65536, sizeof(*st), cmp_count);
	printf("%-40s %9s %9s %5s  %s\n", "event", "records", "compiled",
	       "bad", "status");
	for (i = 0; i < 65536 && st[i].count; i++) {
		const char *why = kt_fastfmt_reason(ff, st[i].ev);
		char name[128];

		snprintf(name, sizeof(name), "%s:%s", st[i].ev->system,
			 st[i].ev->name);
		printf("%-40s %9lu %9lu %5lu  %s\n", name, st[i].count,
		       st[i].fast, st[i].bad, *why ? why : "compiled");
		fast += st[i].fast;
		slow += st[i].slow;
		nbad += st[i].bad;
		seen_ev++;
		if (!*why)
			comp_ev++;
	}
	for (i = 0; i < nreq; i++) {
		char sys[128], *name;
		struct tep_event *ev;
		int k;

		snprintf(sys, sizeof(sys), "%s", required[i]);
		name = strchr(sys, ':');
		if (!name)
			usage();
		*name++ = 0;
		ev = tep_find_event_by_name(cap.tep, sys, name);
		for (k = 0; ev && k < 65536 && st[k].count; k++)
			if (st[k].ev == ev)
				break;
		if (!ev || k >= 65536 || !st[k].count) {
			printf("REQUIRED %s: no records\n", required[i]);
			bad++;
		} else if (!kt_fastfmt_compiled(ff, ev) || st[k].slow) {
			printf("REQUIRED %s: not compiled: %s\n", required[i],
			       kt_fastfmt_reason(ff, ev));
			bad++;
		}
	}
	printf("total: %zu records, %lu event kinds (%lu compiled), %lu formatted fast, %lu by libtraceevent, %lu mismatches\n",
	       cap.nrecs, seen_ev, comp_ev, fast, slow, nbad);
	kt_fastfmt_free(ff);
	free(st);
	capture_free(&cap);
	return bad ? 1 : 0;
}
