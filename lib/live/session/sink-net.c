// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's output: see sink-net.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/log.h"
#include "file/writer.h"
#include "net/wire.h"
#include "live/session/session-priv.h"
#include "live/session/sink-file.h"
#include "live/session/sink-net.h"

/* A clock round trip every second. */
#define TICK_NS		1000000000LL
/* What the controller has to answer a round trip or take a message. */
#define PEER_MS		10000
/* A HEAD message's bytes at most. */
#define SEND_CHUNK	(1U << 20)

struct kt_net_sink {
	int fd;
	pid_t parent;
	struct kt_session *s;
	struct kt_file_sink *file;
	char *dir;			/* private: the head (the pieces stay empty) */
	int timer;
	uint64_t sync_seq;
	/*
	 * One message at a time on the socket: the recorders' threads send
	 * their pages (net_put) while this one sends the rest.
	 */
	pthread_mutex_t lock;
	atomic_bool gone;		/* no more to send: the peer left, or a send failed */
	/*
	 * The agent left: the recording stops, the recorders' last pages
	 * still go (the controller's file has every CPU's pages up to the
	 * stop, no gap), then the connection drops without the end.
	 */
	atomic_bool orphan;
	bool stop;			/* the controller asked to stop */
};

struct kt_net_sink *kt_net_sink_new(int fd, pid_t parent)
{
	struct kt_net_sink *n = calloc(1, sizeof(*n));
	const char *tmp = getenv("TMPDIR");
	char *path = NULL;
	int err = ENOMEM;

	if (!n)
		return NULL;
	n->fd = fd;
	n->parent = parent;
	n->timer = -1;
	pthread_mutex_init(&n->lock, NULL);
	if (asprintf(&n->dir, "%s/ktrace-agent-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		n->dir = NULL;
	if (!n->dir)
		goto err;
	if (!mkdtemp(n->dir)) {
		err = errno;
		free(n->dir);
		n->dir = NULL;
		goto err;
	}
	n->file = kt_file_sink_new();
	if (!n->file || asprintf(&path, "%s/head.dat", n->dir) < 0)
		goto err;
	if (kt_file_sink_set_path(n->file, path))
		goto err;
	free(path);
	return n;
err:
	free(path);
	if (n->dir)
		rmdir(n->dir);
	free(n->dir);
	free(n->file);
	free(n);
	errno = err;
	return NULL;
}

bool kt_net_sink_gone(const struct kt_net_sink *n)
{
	return n->gone || n->orphan;
}

/*
 * The agent that started this worker is gone: the main thread sends
 * nothing more (the recorders' last pages still go), the connection
 * drops as it would.
 */
static bool agent_gone(struct kt_net_sink *n)
{
	if (!n->orphan && n->parent && getppid() != n->parent &&
	    !atomic_exchange(&n->orphan, true))
		kt_warn("the agent is gone: the connection is dropped");
	return n->gone || n->orphan;
}

/*
 * A send's outcome: a failed one means the controller is gone (said once,
 * by whoever failed first, after letting go of the lock: the log goes to
 * the controller too while it is there).
 */
static int sent(int ret, bool first)
{
	if (ret && first)
		kt_err("the controller left: %s; stopping",
		       ret == -ETIMEDOUT ? "it took nothing for 10 s" : strerror(-ret));
	return ret;
}

/* Under the lock: a failure marks the connection gone; whether first. */
static bool failed(struct kt_net_sink *n, int ret)
{
	return ret && !atomic_exchange(&n->gone, true);
}

static int send_msg(struct kt_net_sink *n, uint8_t type, const void *a,
		    size_t alen, const void *b, size_t blen)
{
	bool first;
	int ret = -EPIPE;

	if (agent_gone(n))
		return -EPIPE;
	pthread_mutex_lock(&n->lock);
	if (!n->gone)
		ret = kt_wire_send2(n->fd, type, a, alen, b, blen, PEER_MS);
	first = failed(n, ret);
	pthread_mutex_unlock(&n->lock);
	return sent(ret, first);
}

int kt_net_sink_log(struct kt_net_sink *n, uint8_t level, const char *msg,
		    size_t len)
{
	int ret = -EPIPE;

	pthread_mutex_lock(&n->lock);
	if (!n->gone)
		ret = kt_wire_send2(n->fd, KT_MSG_LOG, &level, 1, msg, len, 2000);
	pthread_mutex_unlock(&n->lock);
	return ret;
}

/*
 * The recorders' pages (recorder.h's put), one PAGES message for what one
 * splice took from a CPU's buffer: from the pipe to the socket, the
 * kernel's pages never copied on this side.
 */
static int net_put(void *arg, int cpu, int pipe_rd, size_t len)
{
	struct kt_net_sink *n = arg;
	uint8_t b[4] = { cpu, cpu >> 8, cpu >> 16, cpu >> 24 };
	bool first;
	int ret = -EPIPE;

	pthread_mutex_lock(&n->lock);
	if (!n->gone)
		ret = kt_wire_send_pipe(n->fd, KT_MSG_PAGES, b, sizeof(b),
					pipe_rd, len, PEER_MS);
	first = failed(n, ret);
	pthread_mutex_unlock(&n->lock);
	return sent(ret, first);
}

/* What the controller may send while recording. */
static const uint32_t peer_max[KT_MSG_MAX] = {
	[KT_MSG_SYNC_REPLY] = 16,
	[KT_MSG_STOP] = 1,
};

/* One message of the controller's; -errno when it left. */
static int take(struct kt_net_sink *n, struct kt_wire_msg *m, uint64_t deadline)
{
	int ret = kt_wire_recv(n->fd, m, peer_max, deadline);

	if (ret) {
		if (atomic_exchange(&n->gone, true))
			return ret;
		kt_err("the controller left: %s; stopping",
		       ret == -EPIPE || ret == -ECONNRESET ? "connection closed" :
		       ret == -ETIMEDOUT ? "no answer for 10 s" :
		       ret == -EPROTO ? "a message ktrace does not take" : strerror(-ret));
		return ret;
	}
	if (m->type == KT_MSG_STOP)
		n->stop = true;
	return 0;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * One round trip: the trace clock before and after the controller's
 * answer, and the controller's clock read between.
 */
static int round_trip(struct kt_net_sink *n, uint64_t *t1, uint64_t *t4, uint64_t *ctl)
{
	uint64_t deadline;
	struct kt_wire_msg m;
	uint8_t q[8];
	int ret;

	put64(q, ++n->sync_seq);
	*t1 = kt_session_trace_now(n->s);
	ret = send_msg(n, KT_MSG_SYNC, q, sizeof(q), NULL, 0);
	if (ret)
		return ret;
	deadline = kt_wire_now_ms() + PEER_MS;
	for (;;) {
		ret = take(n, &m, deadline);
		if (ret)
			return ret;
		if (m.type == KT_MSG_SYNC_REPLY && m.len == 16 &&
		    get64(m.body) == n->sync_seq)
			break;
		kt_wire_msg_free(&m);
	}
	*t4 = kt_session_trace_now(n->s);
	*ctl = get64(m.body + 8);
	kt_wire_msg_free(&m);
	return 0;
}

/*
 * A measure: the shortest of SYNC_TRIES round trips (the one least
 * delayed by the scheduler or the network); the controller's clock is
 * taken to be read in its middle, within half of it.  The measure goes
 * to the controller.
 */
#define SYNC_TRIES 5
static int sync_clock(struct kt_net_sink *n, const char *when)
{
	uint64_t t1, t4, ctl, b1 = 0, b4 = 0, bctl = 0;
	char line[160];
	int ret, len, k;

	if (agent_gone(n))
		return -EPIPE;
	for (k = 0; k < SYNC_TRIES; k++) {
		ret = round_trip(n, &t1, &t4, &ctl);
		if (ret)
			return ret;
		if (t1 && t4 >= t1 && ctl && (!bctl || t4 - t1 < b4 - b1)) {
			b1 = t1;
			b4 = t4;
			bctl = ctl;
		}
	}
	if (!bctl)
		return 0;
	len = snprintf(line, sizeof(line), "%s %" PRIu64 " %" PRId64 " %" PRIu64 "\n",
		       when, (b1 + b4) / 2,
		       (int64_t)(bctl - (b1 + b4) / 2), (b4 - b1 + 1) / 2);
	return send_msg(n, KT_MSG_OFFSET, line, (size_t)len, NULL, 0);
}

/* The recording's shape and the file's head. */
static int send_start(struct kt_net_sink *n)
{
	struct kt_session *s = n->s;
	const struct kt_session_config *cfg = s->cfg;
	struct utsname u;
	char *info = NULL, *clk;
	void *head;
	size_t len, at;
	int ret;

	ret = kt_file_sink_head(n->file, &head, &len);
	if (ret) {
		kt_err("cannot read the file's start: %s", strerror(-ret));
		return ret;
	}
	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "?");
	clk = kt_session_clock_name(s->clock);
	ret = asprintf(&info, "ncpus %d\npage_size %ld\nfile_version %d\ncompression %s\nclock %s\nhost %s\nuname %s %s %s %s\nhead %zu\ntrace_clock %s\n",
		       s->ncpus, sysconf(_SC_PAGESIZE),
		       cfg->file_version ? cfg->file_version : 7,
		       cfg->compression ? cfg->compression : "zstd",
		       clk ? clk : "local", u.nodename, u.sysname, u.nodename,
		       u.release, u.machine, len, s->clock ? s->clock : "") < 0 ? -ENOMEM : 0;
	free(clk);
	if (!ret)
		ret = send_msg(n, KT_MSG_INFO, info, strlen(info), NULL, 0);
	for (at = 0; !ret && at < len; at += SEND_CHUNK)
		ret = send_msg(n, KT_MSG_HEAD, (char *)head + at,
			       len - at < SEND_CHUNK ? len - at : SEND_CHUNK, NULL, 0);
	free(info);
	free(head);
	return ret;
}

static int net_begin(void *state, struct kt_session *s, enum kt_sink_step step)
{
	struct kt_net_sink *n = state;
	struct itimerspec its = {
		.it_interval = { TICK_NS / 1000000000, TICK_NS % 1000000000 },
		.it_value = { TICK_NS / 1000000000, TICK_NS % 1000000000 },
	};
	size_t i;
	int ret;

	if (step == KT_SINK_NEW)
		n->s = s;
	ret = kt_file_sink_ops.begin(n->file, s, step);
	if (ret)
		return ret;
	switch (step) {
	case KT_SINK_ARMED:
		for (i = 0; i < KT_SESSION_SOURCES; i++)
			if (s->src[i].state && !s->src[i].ops->stream) {
				kt_err("%s's pages cannot be sent while it records; record it locally",
				       !strcmp(s->src[i].ops->name, "module") ? "ktrace.ko" :
				       s->src[i].ops->name);
				return -EOPNOTSUPP;
			}
		/* The head first: the recorders' pages follow it. */
		ret = send_start(n);
		for (i = 0; !ret && i < KT_SESSION_SOURCES; i++)
			if (s->src[i].state)
				ret = s->src[i].ops->stream(s->src[i].state, net_put, n);
		return ret;
	case KT_SINK_STARTED:
		ret = sync_clock(n, "start");
		if (ret)
			return ret;
		n->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (n->timer < 0 || timerfd_settime(n->timer, 0, &its, NULL)) {
			ret = -errno;
			kt_err("cannot set the clock's timer: %s", strerror(-ret));
			return ret;
		}
		return 0;
	case KT_SINK_STOPPING:
		sync_clock(n, "end");
		return 0;
	default:
		return 0;
	}
}

static int net_poll_fds(void *state, struct pollfd *fds, int max)
{
	struct kt_net_sink *n = state;

	if (!fds)
		return 2;
	if (max < 2 || n->timer < 0)
		return 0;
	fds[0].fd = n->timer;
	fds[0].events = POLLIN;
	fds[1].fd = n->gone ? -1 : n->fd;
	fds[1].events = POLLIN;
	return 2;
}

static int net_pages(void *state, const struct pollfd *fds)
{
	struct kt_net_sink *n = state;
	struct kt_wire_msg m;
	uint64_t ticks;
	int ret;

	if (!fds || n->timer < 0)
		return 0;
	if (fds[1].fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
		ret = take(n, &m, kt_wire_now_ms() + PEER_MS);
		if (ret)
			return KT_STOP_OUTPUT;
		kt_wire_msg_free(&m);
	}
	if (n->stop)
		return KT_STOP_SIGNAL;
	if (fds[0].revents & POLLIN) {
		if (read(n->timer, &ticks, sizeof(ticks)) != sizeof(ticks))
			ticks = 1;
		if (agent_gone(n))
			return KT_STOP_OUTPUT;
		if (sync_clock(n, "during"))
			return KT_STOP_OUTPUT;
		if (n->stop)
			return KT_STOP_SIGNAL;
	}
	return 0;
}

static int net_end(void *state, struct kt_session *s)
{
	struct kt_net_sink *n = state;
	struct kt_writer *w;
	unsigned short id;
	const void *data;
	char *cmdl = NULL;
	uint8_t idb[2];
	size_t i, len;
	int ret;

	(void)s;
	/* The pages went as they came, the last ones as the recorders stopped. */
	if (agent_gone(n))
		return 1;
	ret = kt_file_sink_tail(n->file, &w, &cmdl);
	for (i = 0; !ret && !kt_writer_option_at(w, i, &id, &data, &len); i++) {
		idb[0] = id;
		idb[1] = id >> 8;
		ret = send_msg(n, KT_MSG_OPTION, idb, 2, data, len);
	}
	if (!ret && cmdl)
		ret = send_msg(n, KT_MSG_CMDLINES, cmdl,
			       strlen(cmdl) < KT_WIRE_MAX ? strlen(cmdl) : KT_WIRE_MAX, NULL, 0);
	free(cmdl);
	if (ret && !n->gone)
		kt_err("cannot send the end of the recording: %s", strerror(-ret));
	return ret ? 1 : 0;
}

static void net_free(void *state)
{
	struct kt_net_sink *n = state;

	kt_file_sink_ops.free(n->file);
	if (n->timer >= 0)
		close(n->timer);
	if (n->dir && rmdir(n->dir))
		kt_warn("cannot remove '%s': %s", n->dir, strerror(errno));
	free(n->dir);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

void kt_net_sink_close(struct kt_net_sink *n, int status)
{
	uint8_t b[8];

	if (!n || agent_gone(n))
		return;
	b[0] = (uint8_t)status;
	b[1] = (uint8_t)((unsigned int)status >> 8);
	b[2] = (uint8_t)((unsigned int)status >> 16);
	b[3] = (uint8_t)((unsigned int)status >> 24);
	memset(b + 4, 0, 4);
	send_msg(n, KT_MSG_END, b, sizeof(b), NULL, 0);
}

const struct kt_sink_ops kt_net_sink_ops = {
	.name = "network",
	.wake_percent = "10",
	.begin = net_begin,
	.poll_fds = net_poll_fds,
	.pages = net_pages,
	.end = net_end,
	.free = net_free,
};
