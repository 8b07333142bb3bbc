// SPDX-License-Identifier: GPL-2.0
/*
 * The wire of the agent and its controller: see wire.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#include "net/wire.h"

uint64_t kt_wire_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Wait for events on fd until deadline.  0 or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int ret;

	for (;;) {
		now = kt_wire_now_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		ret = poll(&p, 1, (int)(deadline - now > 1000000 ? 1000000 : deadline - now));
		if (ret > 0)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
}

static int write_all(int fd, const void *buf, size_t len, uint64_t deadline,
		     int more)
{
	const uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT | more);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return errno == ECONNRESET ? -EPIPE : -errno;
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

/* 0, -ECONNRESET at an end of stream, -ETIMEDOUT, -errno. */
static int read_all(int fd, void *buf, size_t len, uint64_t deadline)
{
	uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		ret = wait_fd(fd, POLLIN, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

int kt_wire_send2(int fd, uint8_t type, const void *a, size_t alen,
		  const void *b, size_t blen, int timeout_ms)
{
	uint64_t deadline = kt_wire_now_ms() + (uint64_t)timeout_ms;
	uint8_t h[KT_WIRE_HDR] = { 'K', 'T', KT_WIRE_VERSION, type };
	int ret;

	if (alen + blen > KT_WIRE_MAX)
		return -EMSGSIZE;
	put32(h + 4, (uint32_t)(alen + blen));
	ret = write_all(fd, h, sizeof(h), deadline, alen + blen ? MSG_MORE : 0);
	if (!ret && alen)
		ret = write_all(fd, a, alen, deadline, blen ? MSG_MORE : 0);
	if (!ret && blen)
		ret = write_all(fd, b, blen, deadline, 0);
	return ret;
}

int kt_wire_send(int fd, uint8_t type, const void *body, size_t len,
		 int timeout_ms)
{
	return kt_wire_send2(fd, type, body, len, NULL, 0, timeout_ms);
}

/*
 * The header of a message of alen bytes of a followed by len more, sent
 * with MSG_MORE: it waits for the pages it heads, one segment, not two.
 */
static int send_head(int fd, uint8_t type, const void *a, size_t alen,
		     size_t len, uint64_t deadline)
{
	uint8_t h[KT_WIRE_HDR + 16] = { 'K', 'T', KT_WIRE_VERSION, type };

	if (alen > 16 || alen + len > KT_WIRE_MAX)
		return -EMSGSIZE;
	put32(h + 4, (uint32_t)(alen + len));
	if (alen)
		memcpy(h + KT_WIRE_HDR, a, alen);
	return write_all(fd, h, KT_WIRE_HDR + alen, deadline, MSG_MORE);
}

int kt_wire_send_file(int fd, uint8_t type, const void *a, size_t alen,
		      int in_fd, off_t off, size_t len, int timeout_ms)
{
	uint64_t deadline = kt_wire_now_ms() + (uint64_t)timeout_ms;
	int ret = send_head(fd, type, a, alen, len, deadline);
	ssize_t n;

	while (!ret && len) {
		n = sendfile(fd, in_fd, &off, len);
		if (n > 0) {
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -EIO;	/* the file is shorter than said */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return errno == ECONNRESET ? -EPIPE : -errno;
		ret = wait_fd(fd, POLLOUT, deadline);
	}
	return ret;
}

int kt_wire_send_pipe(int fd, uint8_t type, const void *a, size_t alen,
		      int pipe_rd, size_t len, int timeout_ms)
{
	uint64_t deadline = kt_wire_now_ms() + (uint64_t)timeout_ms;
	int ret = send_head(fd, type, a, alen, len, deadline);
	ssize_t n;

	while (!ret && len) {
		n = splice(pipe_rd, NULL, fd, NULL, len,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -EIO;	/* the pipe holds less than said */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return errno == ECONNRESET ? -EPIPE : -errno;
		ret = wait_fd(fd, POLLOUT, deadline);
	}
	return ret;
}

int kt_wire_recv_head(int fd, struct kt_wire_msg *m, const uint32_t *max,
		      uint64_t deadline_ms)
{
	uint8_t h[KT_WIRE_HDR];
	uint32_t len;
	int ret;

	m->body = NULL;
	m->len = 0;
	ret = read_all(fd, h, 1, deadline_ms);
	if (ret)
		return ret == -ECONNRESET ? -EPIPE : ret;
	ret = read_all(fd, h + 1, sizeof(h) - 1, deadline_ms);
	if (ret)
		return ret;
	len = get32(h + 4);
	if (h[0] != 'K' || h[1] != 'T' || h[2] != KT_WIRE_VERSION ||
	    h[3] == 0 || h[3] >= KT_MSG_MAX || get32(h + 8) != 0)
		return -EPROTO;
	m->type = h[3];
	if (!max[m->type] && m->type != KT_MSG_REFUSE)
		return -EPROTO;
	if (len > (m->type == KT_MSG_REFUSE ? 1024 : max[m->type]))
		return -EPROTO;
	m->len = len;
	return 0;
}

int kt_wire_recv_body(int fd, struct kt_wire_msg *m, uint64_t deadline_ms)
{
	int ret;

	m->body = malloc((size_t)m->len + 1);
	if (!m->body)
		return -ENOMEM;
	ret = read_all(fd, m->body, m->len, deadline_ms);
	if (ret) {
		kt_wire_msg_free(m);
		return ret;
	}
	m->body[m->len] = '\0';
	return 0;
}

int kt_wire_recv(int fd, struct kt_wire_msg *m, const uint32_t *max,
		 uint64_t deadline_ms)
{
	int ret = kt_wire_recv_head(fd, m, max, deadline_ms);

	return ret ? ret : kt_wire_recv_body(fd, m, deadline_ms);
}

int kt_wire_recv_bytes(int fd, void *buf, size_t len, uint64_t deadline_ms)
{
	return read_all(fd, buf, len, deadline_ms);
}

int kt_wire_recv_file(int fd, const int pipe_fds[2], int out_fd, off_t off,
		      size_t len, uint64_t deadline_ms)
{
	ssize_t n, m;
	int ret;

	while (len) {
		n = splice(fd, NULL, pipe_fds[1], NULL, len,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n < 0) {
			ret = wait_fd(fd, POLLIN, deadline_ms);
			if (ret)
				return ret;
			continue;
		}
		len -= (size_t)n;
		while (n > 0) {
			m = splice(pipe_fds[0], NULL, out_fd, &off, (size_t)n,
				   SPLICE_F_MOVE);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				return m < 0 ? -errno : -EIO;
			n -= m;
		}
	}
	return 0;
}

void kt_wire_msg_free(struct kt_wire_msg *m)
{
	free(m->body);
	m->body = NULL;
	m->len = 0;
}

void kt_wire_peer(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";

	snprintf(buf, len, "?");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl))
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(a->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(a->sin6_port));
	} else if (ss.ss_family == AF_VSOCK) {
		struct sockaddr_vm *a = (struct sockaddr_vm *)&ss;

		snprintf(buf, len, "vsock:%u:%u", a->svm_cid, a->svm_port);
	}
}

/* "HOST:PORT", "[V6]:PORT" or "HOST": host and port, malloc'ed host. */
static int split_addr(const char *addr, char **host, char **port)
{
	const char *colon;
	char *h;

	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');

		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		h = strndup(addr + 1, (size_t)(end - addr - 1));
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strrchr(addr, ':');
		if (colon && strchr(addr, ':') != colon)
			return -EINVAL;	/* a bare v6 address: use [V6]:PORT */
		h = colon ? strndup(addr, (size_t)(colon - addr)) : strdup(addr);
	}
	if (!h)
		return -ENOMEM;
	if (colon && (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
		      atol(colon + 1) < 1 || atol(colon + 1) > 65535)) {
		free(h);
		return -EINVAL;
	}
	*host = h;
	*port = colon ? strdup(colon + 1) : NULL;
	if (colon && !*port) {
		free(h);
		return -ENOMEM;
	}
	return 0;
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

static int resolve(const char *addr, bool passive, struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = passive ? AI_PASSIVE : 0,
	};
	char *host = NULL, *port = NULL, def[16];
	int ret;

	ret = split_addr(addr, &host, &port);
	if (ret)
		return ret;
	snprintf(def, sizeof(def), "%u", KT_WIRE_PORT);
	ret = getaddrinfo(*host ? host : NULL, port ? port : def, &hints, res);
	free(host);
	free(port);
	if (ret == EAI_SYSTEM)
		return -errno;
	return ret ? -EADDRNOTAVAIL : 0;
}

int kt_wire_listen(const char *addr, bool *loopback)
{
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, ret;

	ret = resolve(addr ? addr : "127.0.0.1", true, &res);
	if (ret)
		return ret;
	ret = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, 8) == 0) {
			*loopback = is_loopback(ai->ai_addr);
			break;
		}
		ret = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : ret;
}

int kt_wire_accept(int lfd)
{
	/* Non-blocking: every read and write here has a deadline. */
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), one = 1;

	if (fd < 0)
		return -errno;
	/*
	 * Each message goes at once: no 40 ms wait (Nagle's, for the ACK
	 * delayed on the other side) on a clock round trip; vsock has none.
	 */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int kt_wire_listen_vsock(unsigned int port)
{
	struct sockaddr_vm a = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = port,
	};
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* A socket of family connected to sa by deadline: fd or -errno. */
static int connect_one(int family, const struct sockaddr *sa, socklen_t salen,
		       uint64_t deadline)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	socklen_t el = sizeof(int);
	int ret, err = 0;

	if (fd < 0)
		return -errno;
	if (connect(fd, sa, salen) == 0)
		return fd;
	if (errno == EINPROGRESS) {
		ret = wait_fd(fd, POLLOUT, deadline);
		if (!ret && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && !err)
			return fd;
		if (!ret)
			ret = -err;
	} else {
		ret = -errno;
	}
	close(fd);
	return ret;
}

/* "vsock:CID:PORT" (PORT: KT_WIRE_PORT when left out): fd or -errno. */
static int connect_vsock(const char *addr, uint64_t deadline)
{
	struct sockaddr_vm a = { .svm_family = AF_VSOCK, .svm_port = KT_WIRE_PORT };
	unsigned long cid, port;
	char *end;

	errno = 0;
	cid = strtoul(addr, &end, 10);
	if (end == addr || errno || cid > UINT32_MAX || (*end && *end != ':'))
		return -EINVAL;
	if (*end == ':') {
		addr = end + 1;
		port = strtoul(addr, &end, 10);
		if (end == addr || *end || errno || port > UINT32_MAX)
			return -EINVAL;
		a.svm_port = (unsigned int)port;
	}
	a.svm_cid = (unsigned int)cid;
	return connect_one(AF_VSOCK, (struct sockaddr *)&a, sizeof(a), deadline);
}

int kt_wire_connect(const char *addr, int timeout_ms)
{
	uint64_t deadline = kt_wire_now_ms() + (uint64_t)timeout_ms;
	struct addrinfo *res, *ai;
	int fd = -1, ret, one = 1;

	if (!strncmp(addr, "vsock:", 6))
		return connect_vsock(addr + 6, deadline);
	ret = resolve(addr, false, &res);
	if (ret)
		return ret;
	ret = -EHOSTUNREACH;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = connect_one(ai->ai_family, ai->ai_addr, ai->ai_addrlen, deadline);
		if (fd < 0)
			ret = fd;
	}
	freeaddrinfo(res);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd >= 0 ? fd : ret;
}
