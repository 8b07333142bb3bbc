// SPDX-License-Identifier: GPL-2.0
/*
 * `ktrace record --remote`'s side: see remote.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/log.h"
#include "file/piecepack.h"
#include "file/pieces.h"
#include "file/tracedat.h"
#include "file/writer.h"
#include "net/auth.h"
#include "net/remote.h"
#include "net/wire.h"

/* The connection and the handshake. */
#define CONNECT_MS	10000
/* The agent says something at least every second (its clock round trips). */
#define IDLE_MS		30000
/* What one recording may bring at most of each kind. */
#define HEAD_MAX	(512ULL << 20)
#define OPTIONS_MAX	(256ULL << 20)
#define OPTIONS_COUNT	100000
#define TSYNC_MAX	(4U << 20)
#define CPUS_MAX	4096
/*
 * The pages packed as they come wait in memory for a group of each CPU:
 * at most this much in all (an agent's page size and CPU count are its
 * word), or they are spooled.
 */
#define PACK_MEM_MAX	(256ULL << 20)
/* The pipe that carries pages: a PAGES message's at most (the kernel caps it). */
#define PIPE_WANT	(1 << 20)

struct opt {
	unsigned short id;
	size_t len;
	char *data;
};

struct rec {
	const struct kt_remote_opts *o;
	struct kt_remote_result *r;
	int fd;
	/* INFO */
	bool have_info;
	int ncpus, page_size, version;
	char compression[16];
	char clock[32];
	char uname[256];
	char *trace_clock;
	unsigned long long head_len;
	/* the file */
	struct kt_writer *w;
	char *head;
	unsigned long long head_got;
	bool head_done;
	int *spool;
	unsigned long long *size;
	int pipe[2];			/* the pages' way from the socket to a spool */
	struct kt_piecepack *pk;	/* v7 packed: the pages packed as they come */
	struct opt *opts;
	size_t nopts;
	unsigned long long opts_bytes;
	char *cmdlines;
	char *tsync;
	size_t tsync_len;
	bool ended;
	bool started;			/* START sent: a refusal is of the arguments */
	bool recording;			/* the agent's first clock measure came */
};

static const uint32_t hello_max[KT_MSG_MAX] = {
	[KT_MSG_HELLO] = 64,
};
static const uint32_t ok_max[KT_MSG_MAX] = {
	[KT_MSG_OK] = 64,
};
static const uint32_t rec_max[KT_MSG_MAX] = {
	[KT_MSG_LOG] = 4096,
	[KT_MSG_INFO] = 8192,
	[KT_MSG_HEAD] = KT_WIRE_MAX,
	[KT_MSG_PAGES] = KT_WIRE_MAX,
	[KT_MSG_OPTION] = KT_WIRE_MAX,
	[KT_MSG_CMDLINES] = KT_WIRE_MAX,
	[KT_MSG_SYNC] = 8,
	[KT_MSG_OFFSET] = 256,
	[KT_MSG_END] = 8,
};

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A drop: the reason, once. */
static int drop(struct rec *c, const char *fmt, const char *arg)
{
	if (!c->r->dropped) {
		c->r->dropped = true;
		snprintf(c->r->why, sizeof(c->r->why), fmt, arg);
	}
	return -ECONNRESET;
}

static const char *wire_err(int err)
{
	switch (err) {
	case -EPIPE:
	case -ECONNRESET:
		return "the agent closed the connection";
	case -ETIMEDOUT:
		return "no word from the agent for 30 s";
	case -EPROTO:
		return "the agent sent what ktrace does not take";
	default:
		return strerror(-err);
	}
}

/* Text "key value" lines of INFO. */
static const char *info_val(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return p + kl + 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void copy_val(char *dst, size_t len, const char *v)
{
	size_t n = v ? strcspn(v, "\n") : 0;

	if (n >= len)
		n = len - 1;
	if (v)
		memcpy(dst, v, n);
	dst[n] = '\0';
}

static int open_file(struct rec *c)
{
	char name[PATH_MAX];
	int cpu, ret;

	c->w = kt_writer_open(c->o->output);
	if (!c->w) {
		ret = -errno;
		kt_err("cannot open '%s': %s; try -o in a writable directory",
		       c->o->output, strerror(errno));
		return ret;
	}
	ret = kt_writer_set_format(c->w, c->version, c->version == 6 ? NULL : c->compression);
	if (ret) {
		kt_err("the agent's file format (version %d, %s) is not one ktrace writes",
		       c->version, c->compression);
		return ret;
	}
	kt_writer_set_page_size(c->w, c->page_size);
	c->spool = calloc((size_t)c->ncpus, sizeof(*c->spool));
	c->size = calloc((size_t)c->ncpus, sizeof(*c->size));
	if (!c->spool || !c->size)
		return -ENOMEM;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		c->spool[cpu] = -1;
	/*
	 * A packed file: the pages are received into memory and packed as
	 * they come, never written unpacked (a spool is a page-cache copy
	 * and a read back, 26% and 5% of the controller's CPU).
	 */
	if (c->version >= 7 && strcmp(kt_writer_compression(c->w), "none") &&
	    (unsigned long long)c->ncpus * KT_DAT_CHUNK_PAGES * c->page_size <= PACK_MEM_MAX) {
		c->pk = kt_piecepack_new(c->ncpus, c->page_size,
					 kt_writer_compression(c->w),
					 kt_writer_tmp_name(c->w));
		if (!c->pk) {
			ret = -errno;
			kt_err("cannot pack beside '%s': %s", c->o->output, strerror(errno));
			return ret;
		}
		return 0;
	}
	if (pipe2(c->pipe, O_CLOEXEC))
		return -errno;
	/* A big pipe: a message's pages in few splices (best effort). */
	fcntl(c->pipe[1], F_SETPIPE_SZ, PIPE_WANT);
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		if (kt_pieces_cpu(name, sizeof(name), kt_writer_tmp_name(c->w), cpu))
			return -ENAMETOOLONG;
		c->spool[cpu] = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (c->spool[cpu] < 0) {
			ret = -errno;
			kt_err("cannot write '%s': %s", name, strerror(errno));
			return ret;
		}
	}
	return 0;
}

static int take_info(struct rec *c, const struct kt_wire_msg *m)
{
	const char *text = (const char *)m->body, *v;
	char num[32];
	long n;

	if (c->have_info)
		return -EPROTO;
	c->have_info = true;
	copy_val(num, sizeof(num), info_val(text, "ncpus"));
	n = atol(num);
	if (n < 1 || n > CPUS_MAX)
		return -EPROTO;
	c->ncpus = (int)n;
	copy_val(num, sizeof(num), info_val(text, "page_size"));
	n = atol(num);
	if (n < 4096 || n > (1 << 20) || (n & (n - 1)))
		return -EPROTO;
	c->page_size = (int)n;
	copy_val(num, sizeof(num), info_val(text, "file_version"));
	c->version = atoi(num);
	copy_val(c->compression, sizeof(c->compression), info_val(text, "compression"));
	copy_val(c->clock, sizeof(c->clock), info_val(text, "clock"));
	copy_val(c->r->host, sizeof(c->r->host), info_val(text, "host"));
	copy_val(c->uname, sizeof(c->uname), info_val(text, "uname"));
	copy_val(num, sizeof(num), info_val(text, "head"));
	c->head_len = strtoull(num, NULL, 10);
	if (!c->head_len || c->head_len > HEAD_MAX)
		return -EPROTO;
	v = info_val(text, "trace_clock");
	c->trace_clock = strndup(v ? v : "", v ? strcspn(v, "\n") : 0);
	if (!c->trace_clock)
		return -ENOMEM;
	c->r->ncpus = c->ncpus;
	c->head = malloc(c->head_len);
	if (!c->head)
		return -ENOMEM;
	return open_file(c);
}

static int take_head(struct rec *c, const struct kt_wire_msg *m)
{
	int ret;

	if (!c->head || c->head_done || m->len > c->head_len - c->head_got)
		return -EPROTO;
	memcpy(c->head + c->head_got, m->body, m->len);
	c->head_got += m->len;
	if (c->head_got < c->head_len)
		return 0;
	ret = kt_writer_resume(c->w, c->head, c->head_len);
	if (ret) {
		kt_err("the agent's file head is not one ktrace writes: %s", strerror(-ret));
		return -EPROTO;
	}
	c->head_done = true;
	free(c->head);
	c->head = NULL;
	return 0;
}

/* n bytes of cpu's pages from the socket into the pack's memory. */
static int recv_packed(struct rec *c, uint32_t cpu, uint32_t n, uint64_t deadline)
{
	size_t room;
	char *at;
	int ret = 0;

	while (!ret && n) {
		at = kt_piecepack_space(c->pk, (int)cpu, &room);
		if (!at)
			return -errno;
		if (room > n)
			room = n;
		ret = kt_wire_recv_bytes(c->fd, at, room, deadline);
		if (!ret)
			ret = kt_piecepack_filled(c->pk, (int)cpu, room);
		n -= (uint32_t)room;
	}
	return ret;
}

/*
 * A PAGES message, its header read: u32 cpu, then whole pages, moved
 * from the socket into the CPU's spool by splice, or packed as they come
 * (c->pk).  -EPROTO for a CPU or a length that cannot be.
 */
static int take_pages(struct rec *c, const struct kt_wire_msg *m, uint64_t deadline)
{
	uint8_t b[4];
	uint32_t cpu, n;
	int ret;

	if (!c->head_done || m->len < 4)
		return -EPROTO;
	n = m->len - 4;
	if (n % (uint32_t)c->page_size)
		return -EPROTO;
	ret = kt_wire_recv_bytes(c->fd, b, sizeof(b), deadline);
	if (ret)
		return ret;
	cpu = get32(b);
	if (cpu >= (uint32_t)c->ncpus)
		return -EPROTO;
	if (c->pk)
		ret = recv_packed(c, cpu, n, deadline);
	else
		ret = kt_wire_recv_file(c->fd, c->pipe, c->spool[cpu],
					(off_t)c->size[cpu], n, deadline);
	if (ret == -ENOSPC || ret == -EIO || ret == -EFBIG || ret == -EDQUOT) {
		/* The spool's, not the socket's. */
		kt_err("cannot write beside '%s': %s", c->o->output, strerror(-ret));
		return drop(c, "%s", strerror(-ret));
	}
	if (ret)
		return ret;
	c->size[cpu] += n;
	c->r->bytes += n;
	return 0;
}

static int take_option(struct rec *c, struct kt_wire_msg *m)
{
	struct opt *o;

	if (m->len < 2 || c->nopts >= OPTIONS_COUNT ||
	    c->opts_bytes + m->len > OPTIONS_MAX)
		return -EPROTO;
	o = realloc(c->opts, (c->nopts + 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	c->opts = o;
	o += c->nopts;
	o->id = (unsigned short)(m->body[0] | m->body[1] << 8);
	o->len = m->len - 2;
	o->data = malloc(o->len ? o->len : 1);
	if (!o->data)
		return -ENOMEM;
	memcpy(o->data, m->body + 2, o->len);
	c->nopts++;
	c->opts_bytes += m->len;
	return 0;
}

static int take_offset(struct rec *c, const struct kt_wire_msg *m)
{
	char when[16];
	long long ts, off, bound;
	char *t;

	/* Only lines of the form the option holds. */
	if (sscanf((const char *)m->body, "%15s %lld %lld %lld", when, &ts, &off, &bound) != 4 ||
	    (strcmp(when, "start") && strcmp(when, "during") && strcmp(when, "end")) ||
	    strchr((const char *)m->body, '\n') != (const char *)m->body + m->len - 1 ||
	    memchr(m->body, '\0', m->len))
		return -EPROTO;
	if (c->tsync_len + m->len + 1 > TSYNC_MAX)
		return 0;	/* enough measures: the rest is left out */
	t = realloc(c->tsync, c->tsync_len + m->len + 1);
	if (!t)
		return -ENOMEM;
	memcpy(t + c->tsync_len, m->body, m->len + 1);
	c->tsync = t;
	c->tsync_len += m->len;
	c->r->offsets++;
	return 0;
}

static int reply_sync(struct rec *c, const struct kt_wire_msg *m)
{
	uint8_t b[16];
	uint64_t now = c->o->clock_now(c->o->arg);

	if (m->len != 8)
		return -EPROTO;
	memcpy(b, m->body, 8);
	put64(b + 8, now);
	return kt_wire_send(c->fd, KT_MSG_SYNC_REPLY, b, sizeof(b), CONNECT_MS);
}

/*
 * A clock measure: answered.  The first comes as tracing goes on at the
 * agent: from then on it records, which ready_fd is told.
 */
static int take_sync(struct rec *c, const struct kt_wire_msg *m)
{
	int ret = reply_sync(c, m);

	if (ret)
		return ret;
	if (!c->recording && c->o->ready_fd >= 0 &&
	    write(c->o->ready_fd, "r", 1) != 1) {
		/* the waiter is gone: there is no one to tell */
	}
	c->recording = true;
	return 0;
}

static int take(struct rec *c, struct kt_wire_msg *m)
{
	switch (m->type) {
	case KT_MSG_LOG:
		/* One line of the agent's log, as it is, printable only. */
		if (m->len < 1)
			return -EPROTO;
		for (uint32_t i = 1; i < m->len; i++)
			if (m->body[i] < ' ' || m->body[i] == 0x7f)
				m->body[i] = '?';
		kt_log(m->body[0] == KT_LOG_ERROR ? KT_LOG_ERROR :
		       m->body[0] == KT_LOG_WARN ? KT_LOG_WARN : KT_LOG_INFO,
		       "agent %s: %s", c->o->addr, (char *)m->body + 1);
		return 0;
	case KT_MSG_INFO:
		return take_info(c, m);
	case KT_MSG_HEAD:
		return take_head(c, m);
	case KT_MSG_OPTION:
		return take_option(c, m);
	case KT_MSG_CMDLINES:
		if (c->cmdlines || memchr(m->body, '\0', m->len))
			return -EPROTO;
		c->cmdlines = (char *)m->body;
		m->body = NULL;
		return 0;
	case KT_MSG_SYNC:
		return take_sync(c, m);
	case KT_MSG_OFFSET:
		return take_offset(c, m);
	case KT_MSG_END:
		if (m->len != 8)
			return -EPROTO;
		c->r->status = (int)get32(m->body);
		c->ended = true;
		return 0;
	case KT_MSG_REFUSE:
		for (uint32_t i = 0; i < m->len; i++)
			if (m->body[i] < ' ' || m->body[i] == 0x7f)
				m->body[i] = ' ';
		kt_err("the agent at %s refused: %s", c->o->addr, (char *)m->body);
		c->r->refused = true;
		c->r->usage = c->started && !c->have_info;
		return -EACCES;
	}
	return -EPROTO;
}

/* Connect, HELLO, AUTH, OK, START.  0 or -errno (said). */
static int handshake(struct rec *c)
{
	const struct kt_remote_opts *o = c->o;
	uint64_t deadline = kt_wire_now_ms() + CONNECT_MS;
	uint8_t mac[KT_AUTH_MAC];
	struct kt_wire_msg m;
	size_t len = 0, at;
	char *args;
	int i, ret;

	c->fd = kt_wire_connect(o->addr, CONNECT_MS);
	if (c->fd < 0 && !strncmp(o->addr, "vsock:", 6) &&
	    (c->fd == -ENODEV || c->fd == -EAFNOSUPPORT || c->fd == -ENETUNREACH)) {
		kt_err("cannot connect to the agent at '%s': %s; this machine has no vsock way to its guests (load vhost_vsock, and give the guest a vhost-vsock-pci device with its guest-cid), or use --remote with a forwarded port",
		       o->addr, strerror(-c->fd));
		return c->fd;
	}
	if (c->fd < 0) {
		kt_err("cannot connect to the agent at '%s': %s; is 'ktrace agent' running there?",
		       o->addr, strerror(-c->fd));
		return c->fd;
	}
	ret = kt_wire_recv(c->fd, &m, hello_max, deadline);
	if (ret) {
		kt_err("the agent at '%s' did not greet: %s", o->addr, wire_err(ret));
		return ret;
	}
	if (m.type == KT_MSG_REFUSE) {
		take(c, &m);
		kt_wire_msg_free(&m);
		return -EACCES;
	}
	if (m.len != 4 + KT_NONCE_LEN) {
		kt_wire_msg_free(&m);
		kt_err("the agent at '%s' did not greet as ktrace's agent does", o->addr);
		return -EPROTO;
	}
	if ((get32(m.body) & KT_HELLO_AUTH) && !o->key) {
		kt_wire_msg_free(&m);
		kt_err("the agent at '%s' wants a token; give --token-file FILE (the agent's)", o->addr);
		return -EACCES;
	}
	if (o->key)
		kt_auth_answer(o->key, m.body + 4, KT_NONCE_LEN, mac);
	kt_wire_msg_free(&m);
	ret = kt_wire_send(c->fd, KT_MSG_AUTH, mac, o->key ? sizeof(mac) : 0, CONNECT_MS);
	if (!ret)
		ret = kt_wire_recv(c->fd, &m, ok_max, deadline);
	if (ret) {
		kt_err("the agent at '%s' did not answer: %s", o->addr, wire_err(ret));
		return ret;
	}
	if (m.type == KT_MSG_REFUSE) {
		take(c, &m);
		kt_wire_msg_free(&m);
		return -EACCES;
	}
	kt_wire_msg_free(&m);
	for (i = 0; i < o->argc; i++)
		len += strlen(o->argv[i]) + 1;
	if (len > 65536) {
		kt_err("record's arguments are too long for the agent (%zu bytes; 64 KB at most)", len);
		return -E2BIG;
	}
	args = malloc(len + 1);
	if (!args)
		return -ENOMEM;
	for (i = 0, at = 0; i < o->argc; i++) {
		memcpy(args + at, o->argv[i], strlen(o->argv[i]) + 1);
		at += strlen(o->argv[i]) + 1;
	}
	ret = kt_wire_send(c->fd, KT_MSG_START, args, len, CONNECT_MS);
	free(args);
	c->started = true;
	if (ret)
		kt_err("cannot send to the agent at '%s': %s", o->addr, wire_err(ret));
	return ret;
}

static int stop_agent(struct rec *c)
{
	uint8_t z = 0;

	return kt_wire_send(c->fd, KT_MSG_STOP, &z, 1, CONNECT_MS);
}

static int run(struct rec *c)
{
	struct pollfd p[2] = {
		{ .fd = c->fd, .events = POLLIN },
		{ .fd = c->o->sigfd, .events = POLLIN },
	};
	struct signalfd_siginfo si;
	struct kt_wire_msg m;
	bool stopping = false;
	uint64_t deadline;
	int ret;

	while (!c->ended) {
		ret = poll(p, 2, IDLE_MS);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret == 0)
			return drop(c, "%s", wire_err(-ETIMEDOUT));
		if (p[1].fd >= 0 && (p[1].revents & POLLIN)) {
			if (read(p[1].fd, &si, sizeof(si)) < 0)
				si.ssi_signo = 0;
			if (!stopping && stop_agent(c))
				return drop(c, "%s", "the agent took no stop");
			stopping = true;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		deadline = kt_wire_now_ms() + IDLE_MS;
		ret = kt_wire_recv_head(c->fd, &m, rec_max, deadline);
		if (ret)
			return drop(c, "%s", wire_err(ret));
		if (m.type == KT_MSG_PAGES) {
			ret = take_pages(c, &m, deadline);
			if (ret)
				return drop(c, "%s", wire_err(ret));
		} else {
			ret = kt_wire_recv_body(c->fd, &m, deadline);
			if (ret)
				return drop(c, "%s", wire_err(ret));
			ret = take(c, &m);
		}
		kt_wire_msg_free(&m);
		if (ret == -EACCES)
			return ret;
		if (ret == -EPROTO)
			return drop(c, "%s", wire_err(ret));
		if (ret)
			return drop(c, "%s", strerror(-ret));
	}
	return 0;
}

/* The measures, with who measured against whom. */
static int add_tsync(struct rec *c)
{
	struct utsname u;
	char *text;
	int ret;

	if (!c->tsync_len)
		return 0;
	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "?");
	if (asprintf(&text, "agent %s %s\ncontroller %s %s\n%s",
		     *c->r->host ? c->r->host : "?", *c->clock ? c->clock : "?",
		     u.nodename, c->o->clock_name, c->tsync) < 0)
		return -ENOMEM;
	ret = kt_writer_add_option(c->w, KT_OPT_KTRACE_TSYNC, text, strlen(text) + 1);
	free(text);
	return ret;
}

static int write_file(struct rec *c)
{
	struct kt_writer_tail tail = { 0 };
	struct kt_writer_cpu *cpus;
	unsigned long long cut = 0;
	bool unknown = false;
	size_t i;
	int cpu, ret = 0;

	if (c->r->dropped) {
		/* What the agent says at its end, said as it began. */
		if (*c->trace_clock)
			ret = kt_writer_add_option_str(c->w, KT_OPT_TRACECLOCK, c->trace_clock);
		if (!ret && *c->uname)
			ret = kt_writer_add_option_str(c->w, KT_OPT_UNAME, c->uname);
		if (!ret)
			ret = kt_writer_add_option_str(c->w, KT_OPT_VERSION, "ktrace " KTRACE_VERSION);
	}
	for (i = 0; !ret && i < c->nopts; i++)
		ret = kt_writer_add_option(c->w, c->opts[i].id, c->opts[i].data, c->opts[i].len);
	if (!ret)
		ret = add_tsync(c);
	if (ret)
		return ret;
	cpus = calloc((size_t)c->ncpus, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	ret = c->pk ? kt_piecepack_flush(c->pk) : 0;
	if (ret) {
		/* The pages of the short groups are lost; say so. */
		kt_err("cannot pack the last pages beside '%s': %s", c->o->output,
		       strerror(-ret));
		ret = 0;
	}
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		if (c->pk) {
			kt_piecepack_apply_alone(c->pk, cpu, &cpus[cpu]);
			continue;
		}
		cpus[cpu].fd = c->spool[cpu];
		cpus[cpu].size = c->size[cpu];
	}
	tail.cmdlines = c->cmdlines ? c->cmdlines : "";
	tail.cmdlines_len = strlen(tail.cmdlines);
	tail.clock = *c->clock ? c->clock : "local";
	ret = kt_writer_finish(c->w, &tail, c->ncpus, cpus);
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		cut += cpus[cpu].cut_events;
		unknown |= cpus[cpu].cut_unknown;
	}
	free(cpus);
	if (ret < 0)
		return ret;
	if (ret == 1)
		kt_err("disk full writing '%s': the newest pages (%s%llu events) did not fit; free space or use -o elsewhere",
		       c->o->output, unknown ? "at least " : "", cut);
	cpu = kt_writer_commit(c->w);
	return cpu ? cpu : ret;
}

static void rec_free(struct rec *c)
{
	char name[PATH_MAX];
	size_t i;
	int cpu;

	for (cpu = 0; c->spool && cpu < c->ncpus; cpu++) {
		if (c->spool[cpu] >= 0)
			close(c->spool[cpu]);
		if (c->w && !kt_pieces_cpu(name, sizeof(name), kt_writer_tmp_name(c->w), cpu))
			unlink(name);
	}
	kt_piecepack_free(c->pk);
	kt_writer_close(c->w);
	if (c->pipe[0] >= 0) {
		close(c->pipe[0]);
		close(c->pipe[1]);
	}
	free(c->spool);
	free(c->size);
	for (i = 0; i < c->nopts; i++)
		free(c->opts[i].data);
	free(c->opts);
	free(c->cmdlines);
	free(c->tsync);
	free(c->head);
	free(c->trace_clock);
	if (c->fd >= 0)
		close(c->fd);
}

int kt_remote_record(const struct kt_remote_opts *o, struct kt_remote_result *r)
{
	struct rec c = { .o = o, .r = r, .fd = -1, .pipe = { -1, -1 } };
	int ret;

	memset(r, 0, sizeof(*r));
	ret = handshake(&c);
	if (!ret)
		ret = run(&c);
	if (ret == -ECONNRESET && c.head_done)
		ret = 0;	/* a drop after the head: the file up to it */
	else if (ret == -ECONNRESET)
		kt_err("the connection to the agent at '%s' dropped before the recording began: %s; no file written",
		       o->addr, r->why);
	if (!ret && !c.head_done) {
		ret = -EPROTO;
		kt_err("the agent at '%s' ended without a recording; no file written", o->addr);
	}
	if (!ret) {
		ret = write_file(&c);
		if (ret < 0)
			kt_err("cannot write '%s': %s", o->output, strerror(-ret));
	}
	rec_free(&c);
	return ret < 0 ? ret : 0;
}
