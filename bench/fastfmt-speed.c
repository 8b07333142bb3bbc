// SPDX-License-Identifier: GPL-2.0
/*
 * Speed of the report formatter: ns per event to produce an event's info
 * text with libtraceevent (tep_print_event(..., "%s", TEP_PRINT_INFO),
 * what trace-cmd report does per event) and with kt_fastfmt_info()
 * (falling back to libtraceevent where it must), over the same live
 * records, per event kind, in interleaved repetitions.
 *
 *   fastfmt-speed [-n REPS] [-k KINDS] [-p SECONDS] [-e SYSTEM]... -- CMD...
 *
 * -p: instead, spin SECONDS in kt_fastfmt_info() alone (to profile it).
 *
 * Prints, per event kind (the KINDS most frequent, and the frequent
 * kinds of a typical report whenever recorded) and in total, the
 * median over REPS of each side's ns/event and their ratio.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode/fastfmt.h"
#include "fastfmt-capture.h"

struct kind {
	struct tep_event *ev;
	struct tep_record *recs;
	unsigned char *pack;	/* the records' data, contiguous */
	size_t n;
	double *tep_ns, *ff_ns;		/* per repetition, ns/event */
};

static unsigned long long sink;

/*
 * The thread's CPU time: the machine is shared, and time spent preempted
 * by other processes would be noise on both sides.
 */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double run_tep(struct tep_handle *tep, struct trace_seq *s,
		      struct tep_record *recs, size_t n)
{
	double t0 = now_ns();
	size_t i;

	for (i = 0; i < n; i++) {
		trace_seq_reset(s);
		tep_print_event(tep, s, &recs[i], "%s", TEP_PRINT_INFO);
		sink += s->len;
	}
	return now_ns() - t0;
}

static double run_ff(struct kt_fastfmt *ff, struct tep_handle *tep,
		     struct trace_seq *s, struct tep_event *ev,
		     struct tep_record *recs, size_t n)
{
	static char out[1 << 16];
	double t0 = now_ns();
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		k = kt_fastfmt_info(ff, ev, recs[i].data, recs[i].size, out,
				    sizeof(out));
		if (k < 0) {
			trace_seq_reset(s);
			tep_print_event(tep, s, &recs[i], "%s", TEP_PRINT_INFO);
			k = (int)s->len;
		}
		sink += (unsigned long long)k;
	}
	return now_ns() - t0;
}

/*
 * ns/event of one side over one kind's records: the batch repeated until
 * MIN_NS passed, so short batches are not lost in the clock's noise.
 */
#define MIN_NS 3e6

static double timed_tep(struct tep_handle *tep, struct trace_seq *s,
			const struct kind *k)
{
	double t = 0;
	size_t n = 0;

	do {
		t += run_tep(tep, s, k->recs, k->n);
		n += k->n;
	} while (t < MIN_NS);
	return t / (double)n;
}

static double timed_ff(struct kt_fastfmt *ff, struct tep_handle *tep,
		       struct trace_seq *s, const struct kind *k)
{
	double t = 0;
	size_t n = 0;

	do {
		t += run_ff(ff, tep, s, k->ev, k->recs, k->n);
		n += k->n;
	} while (t < MIN_NS);
	return t / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	double tmp[64];

	memcpy(tmp, v, sizeof(double) * (size_t)n);
	qsort(tmp, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static int cmp_kind(const void *a, const void *b)
{
	const struct kind *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

/* Always shown, if recorded: the frequent events a report must do fast. */
static const char *const watch[] = {
	"sched_switch", "sched_wakeup", "sched_waking", "irq_handler_entry",
	"irq_handler_exit", "softirq_entry", "softirq_exit", "hrtimer_start",
	"hrtimer_expire_entry", "timer_start", "mm_page_alloc", "mm_page_free",
	"kmalloc", "kfree", "block_rq_issue", "block_rq_complete",
	"net_dev_xmit", "netif_receive_skb", "sys_enter", "sys_exit",
	"sys_enter_futex", "workqueue_execute_start", NULL,
};

static bool watched(const char *name)
{
	int i;

	for (i = 0; watch[i]; i++)
		if (!strcmp(watch[i], name))
			return true;
	return false;
}

static const char *systems[] = {
	"sched", "irq", "timer", "kmem", "raw_syscalls", "syscalls", "block",
	"writeback", "net", "workqueue", "signal", "task", "skb", "sock",
	"napi", "ipi", "filemap", "ext4", "jbd2", "mmap_lock", "pagemap",
	"tlb", "x86_fpu", "power", "rcu", NULL,
};

int main(int argc, char **argv)
{
	struct capture cap = { 0 };
	struct kind *kinds;
	struct kt_fastfmt *ff;
	struct trace_seq s;
	int reps = 7, top = 25, opt, r, nk = 0, i;
	double profile = 0;
	const char *mysys[64];
	int nsys = 0;
	double tot_tep[64], tot_ff[64];
	size_t j, total = 0;
	char name[64];

	while ((opt = getopt(argc, argv, "+n:k:p:e:")) != -1) {
		switch (opt) {
		case 'e':
			if (nsys < 63)
				mysys[nsys++] = optarg;
			break;
		case 'p':
			profile = atof(optarg);
			break;
		case 'n':
			reps = atoi(optarg);
			break;
		case 'k':
			top = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || reps < 1 || reps > 64)
		goto usage;
	snprintf(name, sizeof(name), "kt-ffspeed-%d", getpid());
	mysys[nsys] = NULL;
	if (capture_run(&cap, name, nsys ? mysys : systems, 8192, argv + optind))
		return 1;

	kinds = calloc(65536, sizeof(*kinds));
	if (!kinds)
		return 1;
	for (j = 0; j < cap.nrecs; j++) {
		struct tep_record rec;
		int id;

		capture_record(&cap.recs[j], &rec);
		id = tep_data_type(cap.tep, &rec);
		if (id < 0 || id >= 65536)
			continue;
		if (!kinds[id].n) {
			kinds[id].ev = tep_find_event(cap.tep, id);
			kinds[id].recs = malloc(sizeof(rec) * cap.nrecs);
		}
		if (!kinds[id].ev || !kinds[id].recs)
			continue;
		kinds[id].recs[kinds[id].n++] = rec;
	}
	qsort(kinds, 65536, sizeof(*kinds), cmp_kind);
	while (nk < 65536 && kinds[nk].n)
		nk++;
	/*
	 * A report formats records right after reading them from a page:
	 * the data is in cache.  Pack each kind's records contiguously so
	 * that both sides stream through them instead of chasing 400k
	 * scattered allocations (which would time the memory, not the code).
	 */
	for (i = 0; i < nk; i++) {
		size_t bytes = 0, off = 0;
		unsigned char *pack;

		for (j = 0; j < kinds[i].n; j++)
			bytes += ((size_t)kinds[i].recs[j].size + 7) & ~(size_t)7;
		pack = malloc(bytes + 8);
		if (!pack)
			return 1;
		for (j = 0; j < kinds[i].n; j++) {
			struct tep_record *rec = &kinds[i].recs[j];

			memcpy(pack + off, rec->data, (size_t)rec->size);
			rec->data = pack + off;
			off += ((size_t)rec->size + 7) & ~(size_t)7;
		}
		kinds[i].pack = pack;
	}
	for (i = 0; i < nk; i++) {
		kinds[i].tep_ns = calloc((size_t)reps, sizeof(double));
		kinds[i].ff_ns = calloc((size_t)reps, sizeof(double));
		total += kinds[i].n;
	}

	ff = kt_fastfmt_new(cap.tep);
	trace_seq_init(&s);
	/* warm up: compile everything, fault in the data */
	for (i = 0; i < nk; i++) {
		run_ff(ff, cap.tep, &s, kinds[i].ev, kinds[i].recs, kinds[i].n);
		run_tep(cap.tep, &s, kinds[i].recs, kinds[i].n);
	}
	if (profile > 0) {
		time_t end = time(NULL) + (time_t)profile;

		while (time(NULL) < end)
			for (i = 0; i < nk; i++)
				run_ff(ff, cap.tep, &s, kinds[i].ev, kinds[i].recs,
				       kinds[i].n);
		reps = 0;
	}
	for (r = 0; r < reps; r++) {
		tot_tep[r] = tot_ff[r] = 0;
		for (i = 0; i < nk; i++) {
			struct kind *k = &kinds[i];
			double a, b;

			/* alternate which side goes first */
			if (r & 1) {
				b = timed_ff(ff, cap.tep, &s, k);
				a = timed_tep(cap.tep, &s, k);
			} else {
				a = timed_tep(cap.tep, &s, k);
				b = timed_ff(ff, cap.tep, &s, k);
			}
			k->tep_ns[r] = a;
			k->ff_ns[r] = b;
			a *= (double)k->n;
			b *= (double)k->n;
			tot_tep[r] += a;
			tot_ff[r] += b;
		}
		tot_tep[r] /= (double)total;
		tot_ff[r] /= (double)total;
	}

	if (!reps)
		goto out;
	printf("%-38s %8s %9s %9s %7s  %s\n", "event", "records", "tep ns",
	       "fast ns", "ratio", "");
	for (i = 0; i < nk; i++) {
		struct kind *k = &kinds[i];
		double a = median(k->tep_ns, reps), b = median(k->ff_ns, reps);
		char ev[80];

		if (i >= top && !watched(k->ev->name))
			continue;
		snprintf(ev, sizeof(ev), "%s:%s", k->ev->system, k->ev->name);
		printf("%-38s %8zu %9.0f %9.0f %6.1fx  %s\n", ev, k->n, a, b,
		       a / b, kt_fastfmt_compiled(ff, k->ev) ? "" : "(fallback)");
	}
	printf("%-38s %8zu %9.0f %9.0f %6.1fx  (%d kinds, median of %d interleaved runs)\n",
	       "all events", total, median(tot_tep, reps), median(tot_ff, reps),
	       median(tot_tep, reps) / median(tot_ff, reps), nk, reps);
out:
	fprintf(stderr, "checksum %llu\n", sink);
	trace_seq_destroy(&s);
	kt_fastfmt_free(ff);
	capture_free(&cap);
	return 0;
usage:
	fprintf(stderr, "usage: fastfmt-speed [-n REPS] [-k KINDS] [-p SECONDS] [-e SYSTEM]... -- CMD...\n");
	return 64;
}
