// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace agent: serve recordings of this machine to `ktrace record
 * --remote`.  The options, the listening loop and the handshake; each
 * controller is served by a worker process (record_serve() in record.c,
 * whose session's output is lib/live/session/sink-net.h), one at a
 * time: another that comes meanwhile is refused ("busy").  The worker
 * dies with the agent (PR_SET_PDEATHSIG), stopping its recording and
 * removing its instance first.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "cmd.h"
#include "util-session-opts.h"
#include "net/auth.h"
#include "net/wire.h"

/* What a controller has to authenticate and say what to record. */
#define HANDSHAKE_MS	10000
/* Arguments of record at most. */
#define ARGS_MAX	65536
#define ARGC_MAX	1024

enum {
	OPT_LISTEN = 256,
	OPT_VSOCK,
	OPT_TOKEN_FILE,
	OPT_ALLOW,
};

struct agent_opts {
	const char *listen;
	long vsock;			/* -1: none */
	const char *token_file;
	char **allow;
	size_t nallow;
};

static const char args_doc[] = "";
static const char doc[] =
	"Serve recordings of this machine to 'ktrace record --remote HOST:PORT'."
	"\vRuns in the foreground until SIGINT/SIGTERM.  Listens on 127.0.0.1:"
	"6517 by default; any address that is not a loopback one needs "
	"--token-file, whose token the controller proves with an HMAC and "
	"never sends.  One controller at a time: another is refused while one "
	"records.  A controller chooses record's options (checked here by "
	"record's own parser); no shell, no files but the recording's; "
	"COMMAND only when --allow-command names it.  When the connection "
	"drops, or the agent is stopped, the recording stops and its instance "
	"is removed.";

static const struct argp_option options[] = {
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "listen on ADDR:PORT (default 127.0.0.1:6517; [V6]:PORT for IPv6)", 0 },
	{ "vsock", OPT_VSOCK, "PORT", 0, "listen on vsock PORT, for the VM host (any CID)", 0 },
	{ "token-file", OPT_TOKEN_FILE, "FILE", 0, "controllers must prove FILE's token (its first line; a file only its owner may read)", 0 },
	{ "allow-command", OPT_ALLOW, "CMD", 0, "let a controller run CMD (as it names it, exactly); repeatable", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct agent_opts *o = state->input;
	unsigned long long v;
	char **l;

	switch (key) {
	case OPT_LISTEN:
		if (!*arg)
			argp_error(state, "--listen needs ADDR:PORT, e.g. 127.0.0.1:6517");
		o->listen = arg;
		break;
	case OPT_VSOCK:
		if (parse_ulong(arg, 0xfffffffeULL, &v) || !v)
			argp_error(state, "bad vsock port '%s'; give a number, e.g. --vsock 6517", arg);
		o->vsock = (long)v;
		break;
	case OPT_TOKEN_FILE:
		if (!*arg)
			argp_error(state, "--token-file needs a file name");
		o->token_file = arg;
		break;
	case OPT_ALLOW:
		if (!*arg)
			argp_error(state, "--allow-command needs a command");
		l = realloc(o->allow, (o->nallow + 1) * sizeof(*l));
		if (!l)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "--allow-command");
		l[o->nallow++] = arg;
		o->allow = l;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (o->listen && o->vsock >= 0)
			argp_error(state, "--listen and --vsock conflict; run one agent for each");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };


/* One refusal: a line on each side. */
static void refuse(int fd, const char *peer, const char *why)
{
	kt_err("refused %s: %s", peer, why);
	kt_wire_send(fd, KT_MSG_REFUSE, why, strlen(why), 1000);
}

/* The worker: the handshake, then record's arguments and the recording. */
static int serve(int fd, pid_t agent, const struct agent_opts *o,
		 const uint8_t *key)
{
	static const uint32_t auth_max[KT_MSG_MAX] = { [KT_MSG_AUTH] = KT_AUTH_MAC };
	static const uint32_t start_max[KT_MSG_MAX] = { [KT_MSG_START] = ARGS_MAX };
	uint64_t deadline = kt_wire_now_ms() + HANDSHAKE_MS;
	uint8_t hello[4 + KT_NONCE_LEN] = { key ? KT_HELLO_AUTH : 0 };
	struct kt_wire_msg m;
	char peer[128], **argv;
	int argc, i, ret;
	size_t at;

	kt_wire_peer(fd, peer, sizeof(peer));
	if (kt_auth_nonce(hello + 4, KT_NONCE_LEN)) {
		refuse(fd, peer, "no random numbers for the challenge");
		return KT_EXIT_FAIL;
	}
	ret = kt_wire_send(fd, KT_MSG_HELLO, hello, sizeof(hello), HANDSHAKE_MS);
	if (!ret)
		ret = kt_wire_recv(fd, &m, auth_max, deadline);
	if (ret) {
		kt_err("refused %s: %s", peer,
		       ret == -ETIMEDOUT ? "no answer within 10 s" :
		       ret == -EPROTO ? "not ktrace's protocol" :
		       ret == -EPIPE || ret == -ECONNRESET ? "it left" : strerror(-ret));
		if (ret == -EPROTO)
			kt_wire_send(fd, KT_MSG_REFUSE, "not ktrace's protocol", 21, 1000);
		return KT_EXIT_FAIL;
	}
	ret = key ? kt_auth_check(key, hello + 4, KT_NONCE_LEN, m.body, m.len) : 0;
	kt_wire_msg_free(&m);
	if (ret) {
		refuse(fd, peer, "wrong token");
		return KT_EXIT_FAIL;
	}
	ret = kt_wire_send(fd, KT_MSG_OK, "ok", 2, HANDSHAKE_MS);
	if (!ret)
		ret = kt_wire_recv(fd, &m, start_max, deadline);
	if (ret) {
		kt_err("refused %s: %s", peer,
		       ret == -ETIMEDOUT ? "no arguments within 10 s" :
		       ret == -EPROTO ? "not ktrace's protocol" : "it left");
		return KT_EXIT_FAIL;
	}
	/* NUL-separated words, the last one ended. */
	for (at = 0, argc = 1; at < m.len; at++)
		argc += !m.body[at];
	if (m.len && m.body[m.len - 1]) {
		kt_wire_msg_free(&m);
		refuse(fd, peer, "not ktrace's protocol");
		return KT_EXIT_FAIL;
	}
	if (argc > ARGC_MAX) {
		kt_wire_msg_free(&m);
		refuse(fd, peer, "too many arguments");
		return KT_EXIT_FAIL;
	}
	argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv) {
		kt_wire_msg_free(&m);
		return KT_EXIT_FAIL;
	}
	argv[0] = "ktrace record";
	for (at = 0, i = 1; at < m.len; at += strlen((char *)m.body + at) + 1)
		argv[i++] = (char *)m.body + at;
	kt_info("%s: recording in instance ktrace-%d", peer, (int)getpid());
	kt_log_set_prog("ktrace agent");
	ret = record_serve(fd, agent, o->allow, o->nallow, argc, argv);
	kt_info("%s: done, status %d", peer, ret);
	free(argv);
	kt_wire_msg_free(&m);
	return ret;
}

static pid_t start_worker(int fd, int lfd, int sigfd, const sigset_t *old,
			  const struct agent_opts *o, const uint8_t *key)
{
	pid_t agent = getpid(), pid = fork();
	int status;

	if (pid != 0)
		return pid;
	/* The worker dies with the agent: SIGTERM, its recording stops cleanly. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != agent)
		_exit(KT_EXIT_FAIL);
	close(lfd);
	close(sigfd);
	sigprocmask(SIG_SETMASK, old, NULL);
	status = serve(fd, agent, o, key);
	fflush(NULL);
	close(fd);
	_exit(status & 0xff);
}

static int run(const struct agent_opts *o, int lfd, const uint8_t *key)
{
	struct pollfd p[2] = { { .fd = lfd, .events = POLLIN } };
	struct signalfd_siginfo si;
	sigset_t set, old;
	pid_t worker = 0, w;
	char peer[128];
	int fd, status;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, &old);
	sigdelset(&set, SIGPIPE);
	p[1].fd = signalfd(-1, &set, SFD_CLOEXEC);
	p[1].events = POLLIN;
	if (p[1].fd < 0) {
		kt_err("cannot take signals: %s", strerror(errno));
		return KT_EXIT_FAIL;
	}
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			kt_err("cannot wait: %s", strerror(errno));
			break;
		}
		if (p[1].revents & POLLIN) {
			if (read(p[1].fd, &si, sizeof(si)) != sizeof(si))
				continue;
			while ((w = waitpid(-1, &status, WNOHANG)) > 0)
				if (w == worker)
					worker = 0;
			if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
				break;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		fd = kt_wire_accept(lfd);
		if (fd < 0)
			continue;
		kt_wire_peer(fd, peer, sizeof(peer));
		if (worker) {
			refuse(fd, peer, "busy: the agent serves another controller; try again when it is done");
			close(fd);
			continue;
		}
		worker = start_worker(fd, lfd, p[1].fd, &old, o, key);
		if (worker < 0) {
			refuse(fd, peer, "cannot start a worker");
			worker = 0;
		}
		close(fd);
	}
	if (worker > 0) {
		/* Its recording stops and its instance goes. */
		kill(worker, SIGTERM);
		waitpid(worker, &status, 0);
	}
	close(p[1].fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return KT_EXIT_OK;
}

int cmd_agent(int argc, char **argv)
{
	struct agent_opts o = { .vsock = -1 };
	uint8_t key[KT_AUTH_KEY];
	bool loopback = false;
	int lfd, status;

	if (parse_args(&argp, argc, argv, &o)) {
		free(o.allow);
		return KT_EXIT_OK;
	}
	if (o.token_file && token_load(o.token_file, key)) {
		free(o.allow);
		return KT_EXIT_FAIL;
	}
	if (o.vsock >= 0) {
		lfd = kt_wire_listen_vsock((unsigned int)o.vsock);
		loopback = true;	/* the VM's host only */
	} else {
		lfd = kt_wire_listen(o.listen, &loopback);
	}
	if (lfd < 0) {
		kt_err("cannot listen on %s%s: %s", o.vsock >= 0 ? "vsock port " : "",
		       o.listen ? o.listen : o.vsock >= 0 ? argv[argc - 1] : "127.0.0.1:6517",
		       strerror(-lfd));
		free(o.allow);
		return KT_EXIT_FAIL;
	}
	if (!loopback && !o.token_file) {
		kt_err("--listen '%s' is not a loopback address: give --token-file FILE, the token controllers must prove",
		       o.listen);
		close(lfd);
		free(o.allow);
		return KT_EXIT_USAGE;
	}
	kt_info("listening on %s%s (one controller at a time%s)",
		o.vsock >= 0 ? "vsock port " : "",
		o.listen ? o.listen : o.vsock >= 0 ? "(any CID)" : "127.0.0.1:6517",
		o.token_file ? ", token required" : "");
	status = run(&o, lfd, o.token_file ? key : NULL);
	close(lfd);
	free(o.allow);
	return status;
}
