// SPDX-License-Identifier: GPL-2.0
/* The live decoder of a session: see sink-print.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "decode/printer.h"
#include "live/events/evhome.h"
#include "live/buffers/livebuf.h"
#include "live/buffers/livestream.h"
#include "live/session/run.h"
#include "live/session/session.h"
#include "live/session/sink-print.h"
#include "live/tracefs/localtep.h"
#include "live/tracefs/tracefs.h"
#include "live/session/tracing.h"

/* pid_max is at most 2^22: a bitmap of 512 KB, allocated on first use. */
#define PID_MAX (1u << 22)

struct kt_print_sink {
	struct kt_print_sink_opts o;
	struct kt_session *s;
	struct tep_handle *tep;
	struct kt_livestream *ls;
	struct kt_printer *p;
	/*
	 * The pids learn_comm() has named.  The tep comes preloaded with
	 * saved_cmdlines, which may name an earlier task that had the same
	 * pid, so a pid registered there is not yet known: only one asked
	 * here is.
	 */
	unsigned char *learned;
};

struct kt_print_sink *kt_print_sink_new(const struct kt_print_sink_opts *o)
{
	struct kt_print_sink *p = calloc(1, sizeof(*p));

	if (p)
		p->o = *o;
	return p;
}

/* Systems the events come from, plus ftrace (trace_marker's print). */
static struct tep_handle *load_formats(const struct kt_event_list *events)
{
	size_t n = kt_event_list_count(events), i, j, k = 0;
	const char **systems = calloc(n + 2, sizeof(*systems));
	struct tep_handle *tep;

	if (!systems)
		return NULL;
	systems[k++] = "ftrace";
	for (i = 0; i < n; i++) {
		const char *sys = kt_event_list_at(events, i)->system;

		/* ktrace.ko's formats are in debugfs: kt_session_formats(). */
		if (kt_is_module_event(kt_event_list_at(events, i)))
			continue;
		for (j = 0; j < k && strcmp(systems[j], sys); j++)
			;
		if (j == k)
			systems[k++] = sys;
	}
	/* (libtracefs's reading of kallsyms costs 15 s under ASan: localtep.h) */
	tep = kt_local_tep_systems(systems);
	free(systems);
	return tep;
}

/* The kernel's last name for pid, from saved_cmdlines ("pid comm"). */
static int saved_comm(int pid, char *comm, size_t len)
{
	char *text = kt_tracefs_read(NULL, "saved_cmdlines"), *p, *nl;
	char key[24];
	int ret = -ENOENT;

	if (!text)
		return -errno;
	snprintf(key, sizeof(key), "%d ", pid);
	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, strlen(key))) {
			if (nl)
				*nl = '\0';
			snprintf(comm, len, "%s", p + strlen(key));
			ret = 0;
			break;
		}
	}
	free(text);
	return ret;
}

static bool learned_before(struct kt_print_sink *p, int pid)
{
	if (!p->learned)
		p->learned = calloc(PID_MAX / 8, 1);
	if (!p->learned || (unsigned int)pid >= PID_MAX)
		return false;
	if (p->learned[pid / 8] & (1u << (pid % 8)))
		return true;
	p->learned[pid / 8] |= 1u << (pid % 8);
	return false;
}

/*
 * Task names as events name pids: /proc while the task lives (the
 * truth, where saved_cmdlines may still hold an earlier task with the
 * same pid), then the command's own name, then saved_cmdlines, else
 * "<...>" for good.
 */
static void learn_comm(struct kt_print_sink *p, int pid)
{
	struct tep_handle *tep = p->tep;
	char path[64], comm[64];
	ssize_t n;
	int fd;

	if (pid <= 0 || learned_before(p, pid))
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		if (pid == kt_run_child_pid(kt_session_runner(p->s))) {
			char *const *cmd = kt_session_cfg(p->s)->t->cmd;
			const char *slash = strrchr(cmd[0], '/');

			/* What exec made its comm: the name, cut to 15. */
			snprintf(comm, 16, "%s", slash ? slash + 1 : cmd[0]);
			tep_override_comm(tep, comm, pid);
			return;
		}
		if (saved_comm(pid, comm, sizeof(comm)) == 0) {
			tep_override_comm(tep, comm, pid);
			return;
		}
		/* Gone already: remember that, so we ask once. */
		tep_override_comm(tep, "<...>", pid);
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	tep_override_comm(tep, comm, pid);
}

static int print_fn(const struct kt_event *ev, void *arg)
{
	struct kt_print_sink *p = arg;

	learn_comm(p, tep_data_pid(p->tep, ev->record));
	return kt_printer_print(p->p, ev);
}

static bool in_usecs(const char *clock)
{
	/* Clocks that count something other than nanoseconds. */
	return !clock || (strcmp(clock, "counter") && strcmp(clock, "uptime") &&
			  strcmp(clock, "x86-tsc") && strcmp(clock, "perf"));
}

/* ktrace.ko's traceN files merged with the instance's per-CPU buffers. */
static int add_page_files(struct kt_print_sink *p)
{
	struct kt_page_file pf;
	int i, ret;

	for (i = 0;; i++) {
		ret = kt_session_page_file(p->s, i, &pf);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		ret = kt_livestream_add_pages(p->ls, pf.path, pf.cpu);
		if (ret) {
			kt_err("cannot open %s: %s", pf.name, strerror(-ret));
			return ret;
		}
	}
}

static int print_begin(void *state, struct kt_session *s, enum kt_sink_step step)
{
	struct kt_print_sink *p = state;
	int ret;

	switch (step) {
	case KT_SINK_NEW:
		p->s = s;
		return 0;
	case KT_SINK_OPEN:
		p->tep = load_formats(kt_session_events(s));
		if (!p->tep) {
			ret = errno ? -errno : -ENOMEM;
			kt_err("cannot read the event formats: %s", strerror(-ret));
			return ret;
		}
		return 0;
	case KT_SINK_INSTANCE:
		p->ls = kt_livestream_new(kt_session_inst(s), kt_session_ncpus(s),
					  p->tep, kt_session_read_flags(s));
		if (!p->ls) {
			ret = -errno;
			kt_err("cannot open the per-CPU buffers: %s", strerror(errno));
			return ret;
		}
		return 0;
	case KT_SINK_ARMED:
		ret = kt_session_formats(s, p->tep);
		if (!ret)
			ret = add_page_files(p);
		if (ret)
			return ret;
		/* After the module's formats: the printer compiles what tep holds. */
		p->p = kt_printer_new_tep(p->tep, in_usecs(p->o.clock),
					  p->o.json ? KT_PRINT_JSON : KT_PRINT_TEXT,
					  (p->o.nsec ? KT_PRINT_NSEC : 0) |
					  KT_PRINT_COMPILED, p->o.out);
		return p->p ? 0 : -ENOMEM;
	default:
		return 0;
	}
}

/* The reader of out (fds[0]) and the buffers' files. */
static int print_poll_fds(void *state, struct pollfd *fds, int max)
{
	struct kt_print_sink *p = state;
	int n = kt_livestream_nfds(p->ls) + 1, i;

	if (!fds || max < n)
		return n;
	fds[0].fd = p->o.out_is_pipe ? fileno(p->o.out) : -1;
	fds[0].events = 0;
	for (i = 0; i + 1 < n; i++) {
		fds[i + 1].fd = kt_livestream_fd(p->ls, i);
		fds[i + 1].events = POLLIN;
	}
	return n;
}

/*
 * Decode and print what is committed now.  While tracing runs, one
 * bounded round: under a flood the loop must come back to poll() to
 * see signals and the end of the command.  At the end (all), until the
 * buffers are empty.  0, KT_STOP_OUTPUT when the reader left, -errno.
 */
static int drain(struct kt_print_sink *p, bool all)
{
	long n;

	for (;;) {
		n = kt_livestream_round(p->ls, print_fn, p);
		if (n < 0)
			break;
		/* Out at once: a line a reader waits for is not held back. */
		if (fflush(p->o.out)) {
			n = errno ? -errno : -EIO;
			break;
		}
		if (!n || !all)
			return 0;
	}
	return n == -EPIPE ? KT_STOP_OUTPUT : (int)n;
}

/* Before each wait: print what is there; a pipe whose reader left says POLLERR. */
static int print_pages(void *state, const struct pollfd *fds)
{
	struct kt_print_sink *p = state;

	if (!fds)
		return drain(p, false);
	return fds[0].revents & (POLLERR | POLLHUP) ? KT_STOP_OUTPUT : 0;
}

/* Nothing new in the buffers: print what is left in them. */
static int print_end(void *state, struct kt_session *s)
{
	struct kt_print_sink *p = state;
	enum kt_session_stop why = kt_session_stopped(s);

	if (why == KT_STOP_OUTPUT || why == KT_STOP_ERROR)
		return 0;
	return drain(p, true);
}

static void print_free(void *state)
{
	struct kt_print_sink *p = state;

	kt_printer_free(p->p);
	kt_livestream_free(p->ls);
	if (p->tep)
		tep_free(p->tep);
	free(p->learned);
	free(p);
}

void kt_print_sink_cpu_loss(const struct kt_print_sink *p, int cpu,
			    unsigned long long *overrun,
			    unsigned long long *dropped)
{
	struct kt_session_cpu c;

	kt_session_cpu(p->s, cpu, &c);
	*overrun = c.overrun + c.commit_overrun;
	*dropped = c.dropped;
}

void kt_print_sink_summary(const struct kt_print_sink *p,
			   struct kt_print_summary *sum)
{
	unsigned long long marks = 0;
	struct kt_session_cpu c;
	bool u;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	sum->ncpus = kt_session_ncpus(p->s);
	for (cpu = 0; p->ls && cpu < sum->ncpus; cpu++) {
		kt_session_cpu(p->s, cpu, &c);
		sum->events += kt_livestream_events(p->ls, cpu);
		sum->lost += c.lost;
		marks += kt_livestream_missed(p->ls, cpu, &u);
		sum->unknown |= u;
	}
	if (marks > sum->lost)
		sum->lost = marks;
	sum->mapped = p->ls ? kt_livestream_mapped(p->ls) : 0;
}

const struct kt_sink_ops kt_print_sink_ops = {
	.name = "stream",
	.flags = KT_SINK_LIVE,
	/* Any event wakes the readers: a line shows as soon as it happens. */
	.wake_percent = "0",
	.begin = print_begin,
	.poll_fds = print_poll_fds,
	.pages = print_pages,
	.end = print_end,
	.free = print_free,
};
