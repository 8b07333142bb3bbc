// SPDX-License-Identifier: GPL-2.0
/*
 * ktvm: the VM tests' helper, linked statically into the guest's
 * initramfs.  It makes workloads with known counts and reads ktrace
 * channels, decoding ring-buffer pages on its own (no libtraceevent in
 * the guest), so every count a test compares comes from real records.
 *
 *   ktvm getppid N [MS]       N getppid() calls; prints our pid; MS:
 *                             a sleep of MS ms after each 1000 (a
 *                             workload that lasts, for record --rotate)
 *   ktvm sleeper N            N 1 ms sleeps (2N context switches)
 *   ktvm read DIR [opts]      drain DIR/trace*, print counts
 *       -f EVENTS_DIR         name records by EVENTS_DIR/<name>/format
 *       -m EV:F[|F]=V[,...]   count records of EV whose fields match
 *                             (F|G: either; ",": and); prints
 *                             "match <the argument> <count>"
 *       -s                    records are ktrace_sample events
 *       -o PREFIX             also save raw pages to PREFIX<cpu>
 *   ktvm formats EVENTS_DIR   check every format file parses
 *   ktvm pollwake TRACE EMIT  poll() on TRACE wakes when EMIT is written
 *   ktvm stopwake TRACE STATE a blocked read ends when STATE gets "stop"
 *   ktvm keepup DIR N         a reader of DIR/trace0 at SCHED_FIFO on
 *                             CPU 0 and a writer of N sample events
 *                             (DIR/emit) on CPU 0 that runs only while
 *                             the reader sleeps; prints what read
 *                             gives (records, seq_gaps ...)
 *   ktvm bench N              ns per getppid() over N calls
 *   ktvm rtc                  wait for one RTC update interrupt
 *   ktvm write FILE STRING    one write(2) of STRING; prints the error
 *   ktvm gate CMD ARGS...     print our pid, close stdout, wait for a
 *                             byte on stdin, then run CMD (getppid
 *                             then neither prints nor makes any
 *                             syscall but its calls and exit_group)
 *   ktvm tree                 a three-generation fork tree: 2 children
 *                             that each fork a grandchild that execs
 *                             "/ktvm exit 3"; children exit 2; pids on
 *                             stderr ("gen2 PID", "gen3 PID")
 *   ktvm exit CODE            exit with CODE
 *   ktvm asuid UID CMD...     setuid(UID), print our pid, exec CMD
 *   ktvm sigchild             fork a child, send it one SIGUSR1 once
 *                             its handler is set, reap it; "child PID"
 *                             on stderr
 *   read -d EV                also print "dump EV f=v ..." per record
 *   ktvm oncpu CPU            return once this process runs on CPU:
 *                             whatever CPU was running before has
 *                             then finished its context switch
 *   ktvm mapread [-s] [-f DIR] [-m M] [-L EMIT:N] [-n] DIR
 *                             as read, by mmap and ktrace-abi.h's
 *                             ioctls until each CPU is stopped and
 *                             drained (waits in poll()); -n: no copy,
 *                             no decoding, only pages counted; -L: after the
 *                             first GET_PRODUCED and copy of trace0,
 *                             write N to EMIT on CPU 0 so the flight
 *                             writer laps us, then PUT_CONSUMED; also
 *                             prints lost_pages and missed
 *   ktvm maphold TRACE [SIZEFILE] [close]
 *                             map TRACE, check it is read-only and
 *                             exclusive (and that SIZEFILE refuses a
 *                             resize), print "held", wait for a byte
 *                             on stdin (with "close": no fd left, only
 *                             the mapping), then try GET_PRODUCED,
 *                             read every page, munmap
 *   ktvm drain FILE           read FILE's pages into nothing until EOF
 *                             or a signal, the way each tracer is
 *                             read best: splice for ftrace's
 *                             trace_pipe_raw (waits for buffer_percent,
 *                             moves whole pages), read() otherwise;
 *                             then prints the number of read() calls
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtc.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kernel/ktrace-abi.h"

#define PAGE		4096
#define MAX_EVENTS	64
#define MAX_FIELDS	16
#define MAX_MATCH	8
#define SAMPLE_MAGIC	0x6b74736dU

struct field {
	char name[32];
	int offset, size, is_signed, is_char;
};

struct event {
	char name[256];
	int id;
	int nfields;
	struct field fields[MAX_FIELDS];
	long count;
};

/* -m EV:COND[,COND...], COND is FIELD[|FIELD]=VALUE; all must hold. */
#define MAX_CONDS 4
struct cond {
	char fields[2][32];
	int nfields;
	long long value;
};

struct match {
	char event[64];
	char text[128];
	struct cond conds[MAX_CONDS];
	int nconds;
	long count;
};

static struct event events[MAX_EVENTS];
static int nevents;
static struct match matches[MAX_MATCH];
static int nmatches;
static long long field_value(const struct event *ev, const char *name,
			     const unsigned char *rec, int len, int *found);
static const char *dumps[MAX_MATCH];
static int ndumps;

/* One record of ev as "dump EV field=value ...", strings for char[]. */
static void dump_record(const struct event *ev, const unsigned char *rec,
			int len)
{
	int i;

	printf("dump %s", ev->name);
	for (i = 0; i < ev->nfields; i++) {
		const struct field *f = &ev->fields[i];
		int found;
		long long v;

		if (f->offset + f->size > len)
			continue;
		if (f->size > 8) {
			if (f->is_char)
				printf(" %s=%.*s", f->name, f->size,
				       (const char *)rec + f->offset);
			continue;
		}
		v = field_value(ev, f->name, rec, len, &found);
		printf(" %s=%lld", f->name, v);
	}
	printf("\n");
}

static int die(const char *what)
{
	fprintf(stderr, "ktvm: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int parse_format(const char *path, struct event *ev)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	ev->id = -1;
	while (fgets(line, sizeof(line), f)) {
		char *p, *semi, *name;
		struct field *fl;

		if (sscanf(line, "ID: %d", &ev->id) == 1)
			continue;
		p = strstr(line, "field:");
		if (!p || ev->nfields >= MAX_FIELDS)
			continue;
		semi = strchr(p, ';');
		if (!semi)
			continue;
		*semi = '\0';
		name = strrchr(p, ' ');
		if (!name)
			continue;
		name++;
		fl = &ev->fields[ev->nfields];
		fl->is_char = !!strstr(p, "char ");
		snprintf(fl->name, sizeof(fl->name), "%s", name);
		p = strchr(fl->name, '[');
		if (p)
			*p = '\0';
		if (sscanf(semi + 1, "\toffset:%d;\tsize:%d;\tsigned:%d;",
			   &fl->offset, &fl->size, &fl->is_signed) != 3) {
			fclose(f);
			return -1;
		}
		ev->nfields++;
	}
	fclose(f);
	return ev->id >= 0 && ev->nfields >= 4 ? 0 : -1;
}

/* Load every events/<name>/format; returns the number of bad ones. */
static int load_formats(const char *dir)
{
	struct dirent *de;
	char path[512];
	int bad = 0;
	DIR *d = opendir(dir);

	if (!d)
		die(dir);
	while ((de = readdir(d)) && nevents < MAX_EVENTS) {
		struct event *ev = &events[nevents];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format", dir, de->d_name);
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->name, sizeof(ev->name), "%s", de->d_name);
		if (parse_format(path, ev)) {
			printf("badformat %s\n", de->d_name);
			bad++;
			continue;
		}
		nevents++;
	}
	closedir(d);
	return bad;
}

static struct event *find_event(int id)
{
	int i;

	for (i = 0; i < nevents; i++)
		if (events[i].id == id)
			return &events[i];
	return NULL;
}

static long long field_value(const struct event *ev, const char *name,
			     const unsigned char *rec, int len, int *found)
{
	int i;

	*found = 0;
	for (i = 0; i < ev->nfields; i++) {
		const struct field *f = &ev->fields[i];

		if (strcmp(f->name, name) || f->offset + f->size > len)
			continue;
		*found = 1;
		switch (f->size) {
		case 1:
			return f->is_signed ?
				(long long)*(int8_t *)(rec + f->offset) :
				(long long)*(uint8_t *)(rec + f->offset);
		case 2:
			return f->is_signed ?
				(long long)*(int16_t *)(rec + f->offset) :
				(long long)*(uint16_t *)(rec + f->offset);
		case 4:
			return f->is_signed ?
				(long long)*(int32_t *)(rec + f->offset) :
				(long long)*(uint32_t *)(rec + f->offset);
		case 8:
			return *(int64_t *)(rec + f->offset);
		}
		*found = 0;
	}
	return 0;
}

struct totals {
	long pages, records, bytes, bad, missed_pages, ts_back, unknown;
	/* sample mode */
	long long first_seq, last_seq;
	long seq_gaps, bad_magic;
};

static void record(struct totals *t, int sample, const unsigned char *rec,
		   int len)
{
	struct event *ev;
	int i, k, found;

	t->records++;
	t->bytes += len;
	if (sample) {
		uint64_t seq;

		if (len < 16 || *(uint32_t *)rec != SAMPLE_MAGIC) {
			t->bad_magic++;
			return;
		}
		seq = *(uint64_t *)(rec + 8);
		if (t->first_seq < 0)
			t->first_seq = seq;
		else if ((long long)seq != t->last_seq + 1)
			t->seq_gaps++;
		t->last_seq = seq;
		return;
	}
	if (!nevents)
		return;
	ev = find_event(*(uint16_t *)rec);
	if (!ev) {
		t->unknown++;
		return;
	}
	ev->count++;
	for (i = 0; i < ndumps; i++)
		if (!strcmp(dumps[i], ev->name))
			dump_record(ev, rec, len);
	for (i = 0; i < nmatches; i++) {
		struct match *m = &matches[i];
		int c, ok = 1;

		if (strcmp(m->event, ev->name))
			continue;
		for (c = 0; c < m->nconds && ok; c++) {
			struct cond *cd = &m->conds[c];

			ok = 0;
			for (k = 0; k < cd->nfields && !ok; k++) {
				long long v = field_value(ev, cd->fields[k],
							  rec, len, &found);

				ok = found && v == cd->value;
			}
		}
		if (ok)
			m->count++;
	}
}

/* Parse EV:FIELD[|FIELD]=VALUE[,...] into a match; -1 if malformed. */
static int parse_match(char *arg, struct match *m)
{
	char *colon = strchr(arg, ':'), *cond, *save = NULL;

	snprintf(m->text, sizeof(m->text), "%s", arg);
	if (!colon)
		return -1;
	*colon = '\0';
	snprintf(m->event, sizeof(m->event), "%s", arg);
	for (cond = strtok_r(colon + 1, ",", &save); cond;
	     cond = strtok_r(NULL, ",", &save)) {
		struct cond *cd = &m->conds[m->nconds];
		char *eq = strchr(cond, '='), *bar;

		if (!eq || m->nconds >= MAX_CONDS)
			return -1;
		*eq = '\0';
		cd->value = strtoll(eq + 1, NULL, 0);
		bar = strchr(cond, '|');
		if (bar)
			*bar = '\0';
		snprintf(cd->fields[0], 32, "%s", cond);
		cd->nfields = 1;
		if (bar) {
			snprintf(cd->fields[1], 32, "%s", bar + 1);
			cd->nfields = 2;
		}
		m->nconds++;
	}
	return m->nconds ? 0 : -1;
}

/* Walk one page in the ring buffer's format (see header_event). */
static void decode_page(struct totals *t, int sample, const unsigned char *pg,
			uint64_t *last_ts)
{
	uint64_t ts = *(uint64_t *)pg;
	uint64_t commit = *(uint64_t *)(pg + 8);
	const unsigned char *data = pg + 16;
	unsigned int off = 0, size;

	t->pages++;
	if (commit & (1ULL << 31))
		t->missed_pages++;
	size = commit & ((1U << 27) - 1);
	if (size > PAGE - 16) {
		t->bad++;
		return;
	}
	while (off + 4 <= size) {
		uint32_t hdr = *(uint32_t *)(data + off);
		unsigned int type = hdr & 31, delta = hdr >> 5, len;

		switch (type) {
		case 29:	/* padding */
			if (!delta)
				return;
			len = *(uint32_t *)(data + off + 4);
			off += 4 + len;
			continue;
		case 30:	/* time extend */
			ts += delta | (uint64_t)*(uint32_t *)(data + off + 4) << 27;
			off += 8;
			continue;
		case 31:	/* absolute time stamp */
			off += 8;
			continue;
		case 0:
			len = *(uint32_t *)(data + off + 4);
			if (len < 4) {
				t->bad++;
				return;
			}
			len -= 4;
			ts += delta;
			if (off + 8 + len > size) {
				t->bad++;
				return;
			}
			record(t, sample, data + off + 8, len);
			off += 8 + ((len + 3) & ~3U);
			break;
		default:
			len = type * 4;
			ts += delta;
			if (off + 4 + len > size) {
				t->bad++;
				return;
			}
			record(t, sample, data + off + 4, len);
			off += 4 + len;
			break;
		}
		if (ts < *last_ts)
			t->ts_back++;
		*last_ts = ts;
	}
}

/* What read and mapread found, one "key value" line each. */
static void print_totals(const struct totals *t, int sample, int bad_formats)
{
	int i;

	printf("pages %ld\nrecords %ld\nbytes %ld\nbad %ld\nmissed_pages %ld\n"
	       "ts_back %ld\nunknown %ld\nbad_formats %d\n", t->pages,
	       t->records, t->bytes, t->bad, t->missed_pages, t->ts_back,
	       t->unknown, bad_formats);
	if (sample)
		printf("first_seq %lld\nlast_seq %lld\nseq_gaps %ld\n"
		       "bad_magic %ld\n", t->first_seq, t->last_seq, t->seq_gaps,
		       t->bad_magic);
	for (i = 0; i < nevents; i++)
		printf("event %s %ld\n", events[i].name, events[i].count);
	for (i = 0; i < nmatches; i++)
		printf("match %s %ld\n", matches[i].text, matches[i].count);
}

static int cmd_read(int argc, char **argv)
{
	const char *dir, *save = NULL;
	struct totals t = { .first_seq = -1, .last_seq = -1 };
	unsigned char pg[PAGE];
	struct dirent *de;
	int opt, sample = 0, bad_formats = 0;
	DIR *d;

	while ((opt = getopt(argc, argv, "f:m:so:d:")) != -1) {
		switch (opt) {
		case 'd':
			if (ndumps >= MAX_MATCH)
				return 64;
			dumps[ndumps++] = optarg;
			break;
		case 'f':
			bad_formats = load_formats(optarg);
			break;
		case 'm':
			if (nmatches >= MAX_MATCH ||
			    parse_match(optarg, &matches[nmatches++]))
				return 64;
			break;
		case 's':
			sample = 1;
			break;
		case 'o':
			save = optarg;
			break;
		default:
			return 64;
		}
	}
	if (optind >= argc)
		return 64;
	dir = argv[optind];
	d = opendir(dir);
	if (!d)
		die(dir);
	while ((de = readdir(d))) {
		char path[512];
		uint64_t last_ts = 0;
		int fd, out = -1;
		ssize_t n;

		if (strncmp(de->d_name, "trace", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			die(path);
		if (save) {
			snprintf(path, sizeof(path), "%s%s", save,
				 de->d_name + 5);
			out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (out < 0)
				die(path);
		}
		while ((n = read(fd, pg, sizeof(pg))) > 0) {
			if (n != PAGE) {
				t.bad++;
				break;
			}
			decode_page(&t, sample, pg, &last_ts);
			if (out >= 0 && write(out, pg, n) != n)
				die("write");
		}
		if (n < 0 && errno != EAGAIN)
			die("read");
		close(fd);
		if (out >= 0)
			close(out);
	}
	closedir(d);
	print_totals(&t, sample, bad_formats);
	return 0;
}

static int cmd_formats(const char *dir)
{
	int bad = load_formats(dir), i, j;

	for (i = 0; i < nevents; i++)
		for (j = i + 1; j < nevents; j++)
			if (events[i].id == events[j].id) {
				printf("duplicate id %d\n", events[i].id);
				bad++;
			}
	printf("events %d bad %d\n", nevents, bad);
	return bad || !nevents;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(path);
	close(fd);
}

/* poll() on an empty channel must wake up once data arrives. */
static int cmd_pollwake(const char *trace, const char *emit)
{
	struct pollfd p;
	unsigned char pg[PAGE];
	pid_t child;
	int ret;

	p.fd = open(trace, O_RDONLY);
	if (p.fd < 0)
		die(trace);
	p.events = POLLIN;
	ret = poll(&p, 1, 0);
	if (ret != 0) {
		printf("poll ready before any data (%d)\n", ret);
		return 1;
	}
	child = fork();
	if (!child) {
		usleep(200000);
		write_file(emit, "10\n");
		_exit(0);
	}
	ret = poll(&p, 1, 10000);
	waitpid(child, NULL, 0);
	if (ret != 1 || !(p.revents & POLLIN)) {
		printf("poll did not wake (%d)\n", ret);
		return 1;
	}
	ret = read(p.fd, pg, sizeof(pg));
	printf("poll woke, read %d\n", ret);
	return ret != PAGE;
}

/* A read blocked on an empty running channel must end on stop. */
static int cmd_stopwake(const char *trace, const char *state)
{
	unsigned char pg[PAGE];
	pid_t child;
	int fd, ret;

	fd = open(trace, O_RDONLY);
	if (fd < 0)
		die(trace);
	child = fork();
	if (!child) {
		usleep(300000);
		write_file(state, "stop\n");
		_exit(0);
	}
	alarm(10);
	ret = read(fd, pg, sizeof(pg));
	waitpid(child, NULL, 0);
	printf("blocked read returned %d\n", ret);
	return ret != 0;
}

/*
 * A reader sleeping in read() must be woken while a writer fills the
 * buffer, not only by the channel's 50 ms timer.  The reader runs at
 * SCHED_FIFO on CPU 0 and its child, the writer, on CPU 0 at normal
 * priority: the writer runs only while the reader sleeps, and once woken
 * the reader preempts it at the next write() (each writes 256 events).
 * So whether records are lost depends on when the reader is woken, not
 * on timing: woken when a tenth of the buffer is full it loses none;
 * woken by the timer alone it loses most of a flood into a small buffer.
 */
static int cmd_keepup(const char *dir, long n)
{
	struct totals t = { .first_seq = -1, .last_seq = -1 };
	struct sched_param sp = { .sched_priority = 10 };
	unsigned char pg[PAGE];
	char path[512];
	uint64_t last_ts = 0;
	cpu_set_t set;
	pid_t child;
	ssize_t r;
	int fd, st;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	snprintf(path, sizeof(path), "%s/trace0", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	/* The child goes back to SCHED_OTHER; it keeps CPU 0. */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		die("sched_setscheduler");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		char num[32];
		long i, k;
		int efd, len;

		snprintf(path, sizeof(path), "%s/emit", dir);
		efd = open(path, O_WRONLY);
		if (efd < 0)
			die(path);
		for (i = 0; i < n; i += k) {
			k = n - i < 256 ? n - i : 256;
			len = snprintf(num, sizeof(num), "%ld\n", k);
			if (write(efd, num, len) != len)
				die("emit");
		}
		close(efd);
		snprintf(path, sizeof(path), "%s/state", dir);
		write_file(path, "stop\n");
		_exit(0);
	}
	while ((r = read(fd, pg, sizeof(pg))) > 0) {
		if (r != PAGE) {
			t.bad++;
			break;
		}
		decode_page(&t, 1, pg, &last_ts);
	}
	if (r < 0)
		die("read");
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		fprintf(stderr, "ktvm: the writer failed\n");
	printf("pages %ld\nrecords %ld\nbad %ld\nts_back %ld\n"
	       "first_seq %lld\nlast_seq %lld\nseq_gaps %ld\nbad_magic %ld\n",
	       t.pages, t.records, t.bad, t.ts_back, t.first_seq, t.last_seq,
	       t.seq_gaps, t.bad_magic);
	return !WIFEXITED(st) || WEXITSTATUS(st);
}

/* A hardware interrupt on demand: the CMOS clock's update interrupt. */
static int cmd_rtc(void)
{
	unsigned long data;
	int fd = open("/dev/rtc0", O_RDONLY);

	if (fd < 0)
		die("/dev/rtc0");
	if (ioctl(fd, RTC_UIE_ON, 0))
		die("RTC_UIE_ON");
	alarm(5);
	if (read(fd, &data, sizeof(data)) != sizeof(data))
		die("read /dev/rtc0");
	ioctl(fd, RTC_UIE_OFF, 0);
	close(fd);
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Three generations; every process's pid goes to stderr. */
static int cmd_tree(void)
{
	int i, status, bad = 0;

	for (i = 0; i < 2; i++) {
		pid_t c = fork();

		if (c < 0)
			die("fork");
		if (!c) {
			pid_t g = fork();

			if (g < 0)
				die("fork");
			if (!g) {
				execl("/ktvm", "ktvm", "exit", "3", (char *)NULL);
				_exit(127);
			}
			fprintf(stderr, "gen3 %d\n", g);
			waitpid(g, &status, 0);
			_exit(status == 3 << 8 ? 2 : 1);
		}
		fprintf(stderr, "gen2 %d\n", c);
	}
	for (i = 0; i < 2; i++)
		if (wait(&status) < 0 || status != 2 << 8)
			bad++;
	return bad ? 1 : 0;
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	got_usr1 = sig;
}

/* One SIGUSR1 to a child that waits for it in its handler. */
static int cmd_sigchild(void)
{
	int p[2], status;
	sigset_t block, old;
	pid_t c;
	char b;

	if (pipe(p))
		die("pipe");
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	c = fork();
	if (c < 0)
		die("fork");
	if (!c) {
		signal(SIGUSR1, on_usr1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		while (!got_usr1)
			sigsuspend(&old);
		_exit(0);
	}
	fprintf(stderr, "child %d\n", c);
	if (read(p[0], &b, 1) != 1)
		die("read");
	kill(c, SIGUSR1);
	waitpid(c, &status, 0);
	return status != 0;
}

/* One CPU's mapped ring, for mapread. */
struct mapped {
	int fd;
	unsigned char *map;
	struct ktrace_buf_pos pos;
	uint64_t last_ts;
	int done;
	int ready;	/* poll() said so: FLUSH when nothing is complete */
};

static long lost_pages, missed_total;
static int nocopy;	/* mapread -n */

/*
 * Read what is complete of m's ring: GET_PRODUCED, copy the pages out
 * (a flight writer may take them meanwhile), PUT_CONSUMED, decode those
 * PUT_CONSUMED says were intact.  Returns pages decoded.
 */
static long map_batch(struct mapped *m, struct totals *t, int sample,
		      const char *emit, long lap)
{
	static unsigned char copy[64][PAGE];
	struct ktrace_buf_pos pos;
	uint64_t i, c, p;
	long n = 0;

	if (ioctl(m->fd, KTRACE_BUF_GET_PRODUCED, &m->pos))
		die("GET_PRODUCED");
	c = m->pos.consumed;
	p = m->pos.produced;
	/* The page being written is closed only once poll() said so. */
	if (p == c && !m->ready && !(m->pos.flags & KTRACE_BUF_STOPPED))
		return 0;
	m->ready = 0;
	if (p == c) {
		if (ioctl(m->fd, KTRACE_BUF_FLUSH))
			die("FLUSH");
		if (ioctl(m->fd, KTRACE_BUF_GET_PRODUCED, &m->pos))
			die("GET_PRODUCED");
		c = m->pos.consumed;
		p = m->pos.produced;
		if (p == c) {
			m->done = !!(m->pos.flags & KTRACE_BUF_STOPPED);
			return 0;
		}
	}
	if (p - c > 64)
		p = c + 64;
	if (nocopy) {
		/* The transport alone: look at each page's commit, give back. */
		for (i = c; i < p; i++)
			t->bytes += *(volatile long *)(m->map + 8 +
					(i % m->pos.nr_pages) * PAGE);
		t->pages += p - c;
		pos = m->pos;
		pos.consumed = p;
		if (ioctl(m->fd, KTRACE_BUF_PUT_CONSUMED, &pos))
			die("PUT_CONSUMED");
		return p - c;
	}
	for (i = c; i < p; i++)
		memcpy(copy[i - c], m->map + (i % m->pos.nr_pages) * PAGE, PAGE);
	if (emit) {
		int fd = open(emit, O_WRONLY);
		char num[32];
		int len = snprintf(num, sizeof(num), "%ld", lap);

		if (fd < 0 || write(fd, num, len) != len)
			die(emit);
		close(fd);
	}
	pos = m->pos;
	pos.consumed = p;
	if (ioctl(m->fd, KTRACE_BUF_PUT_CONSUMED, &pos))
		die("PUT_CONSUMED");
	if (pos.valid < c || pos.valid > p) {
		t->bad++;
		return 0;
	}
	lost_pages += pos.valid - c;
	missed_total += pos.missed;
	for (i = pos.valid; i < p; i++, n++)
		decode_page(t, sample, copy[i - c], &m->last_ts);
	return n;
}

static int cmd_mapread(int argc, char **argv)
{
	struct totals t = { .first_seq = -1, .last_seq = -1 };
	struct mapped maps[64];
	struct pollfd pfd[64];
	char *emit = NULL;
	long lap = 0;
	int opt, sample = 0, bad_formats = 0, n = 0, i, left;
	struct dirent *de;
	DIR *d;

	while ((opt = getopt(argc, argv, "f:m:sL:n")) != -1) {
		switch (opt) {
		case 'n':
			nocopy = 1;
			break;
		case 'f':
			bad_formats = load_formats(optarg);
			break;
		case 'm':
			if (nmatches >= MAX_MATCH ||
			    parse_match(optarg, &matches[nmatches++]))
				return 64;
			break;
		case 's':
			sample = 1;
			break;
		case 'L':
			emit = optarg;
			if (!strchr(emit, ':'))
				return 64;
			lap = atol(strrchr(emit, ':') + 1);
			*strrchr(emit, ':') = '\0';
			break;
		default:
			return 64;
		}
	}
	if (optind >= argc)
		return 64;
	d = opendir(argv[optind]);
	if (!d)
		die(argv[optind]);
	while ((de = readdir(d)) && n < 64) {
		char path[512];
		struct mapped *m = &maps[n];

		if (strncmp(de->d_name, "trace", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[optind], de->d_name);
		memset(m, 0, sizeof(*m));
		m->fd = open(path, O_RDONLY);
		if (m->fd < 0)
			die(path);
		if (ioctl(m->fd, KTRACE_BUF_GET_PRODUCED, &m->pos)) {
			printf("mode read (%s)\n", strerror(errno));
			return 3;
		}
		if (!m->pos.nr_pages) {
			close(m->fd);
			continue;
		}
		m->map = mmap(NULL, (size_t)m->pos.nr_pages * PAGE, PROT_READ,
			      MAP_SHARED, m->fd, 0);
		if (m->map == MAP_FAILED)
			die("mmap");
		/* The lapping test works on trace0: keep it first. */
		if (!strcmp(de->d_name, "trace0") && n) {
			struct mapped tmp = maps[0];

			maps[0] = *m;
			*m = tmp;
		}
		n++;
	}
	closedir(d);
	if (emit) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
		/* Fill pages, read them, and be lapped before the PUT. */
		maps[0].ready = 1;
		if (map_batch(&maps[0], &t, sample, emit, lap) < 0)
			return 1;
		/* Then stop the channel (EMIT's sibling state) and drain. */
		strcpy(strrchr(emit, '/') + 1, "state");
		i = open(emit, O_WRONLY);
		if (i < 0 || write(i, "stop", 4) != 4)
			die(emit);
		close(i);
	}
	for (;;) {
		left = 0;
		for (i = 0; i < n; i++) {
			while (!maps[i].done &&
			       map_batch(&maps[i], &t, sample, NULL, 0) > 0)
				;
			if (!maps[i].done) {
				pfd[left].fd = maps[i].fd;
				pfd[left++].events = POLLIN;
			}
		}
		if (!left)
			break;
		poll(pfd, left, -1);
		for (i = 0; i < n; i++)
			maps[i].ready = 1;
	}
	for (i = 0; i < n; i++) {
		munmap(maps[i].map, (size_t)maps[i].pos.nr_pages * PAGE);
		close(maps[i].fd);
	}
	printf("mode mmap\nlost_pages %ld\nmissed %ld\n", lost_pages,
	       missed_total);
	print_totals(&t, sample, bad_formats);
	return 0;
}

/* "NAME ok" or "NAME errno-text", and whether it went as wanted. */
static int check(const char *name, int ret, int want_errno)
{
	int e = ret ? errno : 0;

	printf("%s %s\n", name, e ? strerror(e) : "ok");
	return e == want_errno;
}

static int cmd_maphold(const char *trace, const char *sizefile, int closefd)
{
	struct ktrace_buf_pos pos;
	unsigned char *map, *priv;
	unsigned long sum = 0;
	size_t len, i;
	int fd, fd2, bad = 0;
	static char rbuf[PAGE];
	char go;

	fd = open(trace, O_RDONLY);
	if (fd < 0)
		die(trace);
	if (ioctl(fd, KTRACE_BUF_GET_PRODUCED, &pos))
		die("GET_PRODUCED");
	len = (size_t)pos.nr_pages * PAGE;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	/* A private mapping could be made writable (copy on write): not ours. */
	priv = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (priv == MAP_FAILED)
		die("mmap private");
	bad |= !check("mprotect_write",
		      mprotect(priv, len, PROT_READ | PROT_WRITE), EACCES);
	munmap(priv, len);
	bad |= !check("map_too_big",
		      mmap(NULL, len + PAGE, PROT_READ, MAP_SHARED, fd, 0) ==
		      MAP_FAILED ? -1 : 0, EINVAL);
	fd2 = open(trace, O_RDONLY | O_NONBLOCK);
	if (fd2 < 0)
		die(trace);
	bad |= !check("other_read", read(fd2, rbuf, PAGE) < 0 ? -1 : 0, EBUSY);
	bad |= !check("other_get", ioctl(fd2, KTRACE_BUF_GET_PRODUCED, &pos), EBUSY);
	close(fd2);
	if (sizefile) {
		int sf = open(sizefile, O_WRONLY);

		if (sf < 0)
			die(sizefile);
		bad |= !check("resize", write(sf, "64", 2) < 0 ? -1 : 0, EBUSY);
		close(sf);
	}
	if (closefd) {
		close(fd);
		fd = -1;
	}
	printf("held\n");
	fflush(stdout);
	if (read(0, &go, 1) != 1)
		return 1;
	if (fd >= 0)
		check("get_after", ioctl(fd, KTRACE_BUF_GET_PRODUCED, &pos), 0);
	for (i = 0; i < len; i += sizeof(long))
		sum += *(unsigned long *)(map + i);
	if (munmap(map, len))
		die("munmap");
	if (fd >= 0)
		close(fd);
	printf("unmapped %lu\n", sum ? 1UL : 0UL);
	return bad;
}

static int cmd_drain(const char *path)
{
	static char buf[PAGE];
	int fd, nul, p[2];
	ssize_t n;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	if (!strstr(path, "trace_pipe_raw")) {
		long reads = 0;

		while ((n = read(fd, buf, sizeof(buf))) > 0)
			reads++;
		printf("%ld\n", reads);
		return n < 0;
	}
	nul = open("/dev/null", O_WRONLY);
	if (nul < 0 || pipe(p))
		die("pipe");
	while ((n = splice(fd, NULL, p[1], NULL, 16 * PAGE, SPLICE_F_MOVE)) > 0)
		if (splice(p[0], NULL, nul, NULL, n, SPLICE_F_MOVE) != n)
			die("splice to /dev/null");
	return n < 0;
}

int main(int argc, char **argv)
{
	long i, n;
	int gated = 0;
	char go;

	if (argc < 2)
		return 64;
	if (!strcmp(argv[1], "gate") && argc >= 3) {
		printf("%d\n", getpid());
		fflush(stdout);
		close(1);
		if (read(0, &go, 1) != 1)
			return 1;
		gated = 1;
		argc--;
		argv++;
	}
	if (!strcmp(argv[1], "getppid") && (argc == 3 || argc == 4)) {
		long ms = argc == 4 ? atol(argv[3]) : 0;

		n = atol(argv[2]);
		if (!gated) {
			printf("%d\n", getpid());
			fflush(stdout);
		}
		for (i = 0; i < n; i++) {
			syscall(SYS_getppid);
			if (ms && i % 1000 == 999)
				usleep(ms * 1000);
		}
		if (gated)
			_exit(0);
		return 0;
	}
	if (!strcmp(argv[1], "tree"))
		return cmd_tree();
	if (!strcmp(argv[1], "sigchild"))
		return cmd_sigchild();
	if (!strcmp(argv[1], "exit") && argc == 3)
		return atoi(argv[2]);
	if (!strcmp(argv[1], "asuid") && argc >= 4) {
		if (setuid(atoi(argv[2])))
			die("setuid");
		printf("%d\n", getpid());
		fflush(stdout);
		execv(argv[3], argv + 3);
		die(argv[3]);
	}
	if (!strcmp(argv[1], "sleeper") && argc == 3) {
		n = atol(argv[2]);
		printf("%d\n", getpid());
		fflush(stdout);
		for (i = 0; i < n; i++)
			usleep(1000);
		return 0;
	}
	if (!strcmp(argv[1], "bench") && argc == 3) {
		double t0;

		n = atol(argv[2]);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		printf("%.1f\n", (now_ns() - t0) / n);
		return 0;
	}
	if (!strcmp(argv[1], "write") && argc == 4) {
		int fd = open(argv[2], O_WRONLY);
		ssize_t n = strlen(argv[3]);

		if (fd < 0 || write(fd, argv[3], n) != n) {
			printf("%s\n", strerror(errno));
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[1], "oncpu") && argc == 3) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		/* Migration to CPU ends once we run there. */
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
		if (sched_getcpu() != atoi(argv[2])) {
			fprintf(stderr, "ktvm: on cpu %d, not %s\n",
				sched_getcpu(), argv[2]);
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[1], "drain") && argc == 3)
		return cmd_drain(argv[2]);
	if (!strcmp(argv[1], "rtc"))
		return cmd_rtc();
	if (!strcmp(argv[1], "read"))
		return cmd_read(argc - 1, argv + 1);
	if (!strcmp(argv[1], "mapread"))
		return cmd_mapread(argc - 1, argv + 1);
	if (!strcmp(argv[1], "maphold") && argc >= 3)
		return cmd_maphold(argv[2], argc >= 4 && strcmp(argv[3], "close") ?
				   argv[3] : NULL,
				   !strcmp(argv[argc - 1], "close"));
	if (!strcmp(argv[1], "formats") && argc == 3)
		return cmd_formats(argv[2]);
	if (!strcmp(argv[1], "pollwake") && argc == 4)
		return cmd_pollwake(argv[2], argv[3]);
	if (!strcmp(argv[1], "keepup") && argc == 4)
		return cmd_keepup(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "stopwake") && argc == 4)
		return cmd_stopwake(argv[2], argv[3]);
	fprintf(stderr, "ktvm: unknown command '%s'\n", argv[1]);
	return 64;
}
