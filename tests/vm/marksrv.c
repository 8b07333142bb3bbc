// SPDX-License-Identifier: GPL-2.0
/*
 * marksrv: the guest's half of the agent test's "one moment" marks
 * (tests/vm/guest-agent.sh), linked statically into the initramfs.
 *
 *   marksrv PORT SECS
 *
 * Listens on TCP PORT (every address), prints "listening", and takes
 * one connection within SECS seconds.  It then waits (at most 120 s)
 * for the agent's recording: exactly one instance ktrace-* under
 * /sys/kernel/tracing/instances, recording (see open_marker), and says
 * "ready" to the peer (a peer that closes before gives the test up at
 * once).  For each line K the peer sends, it writes "RK" to that
 * instance's trace_marker, in one write, and only then answers "K": the
 * peer's marks before the send and after the answer bracket this one in
 * time, whatever the two clocks say.  At the peer's end of file it
 * prints "marks N" and exits 0; 1 on any failure, said on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define INSTANCES "/sys/kernel/tracing/instances"

static int fail(const char *what)
{
	fprintf(stderr, "marksrv: %s: %s\n", what, errno ? strerror(errno) : "failed");
	return 1;
}

/* wait_in FD MS: 1 when FD is readable within MS ms, 0 on a timeout. */
static int wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

/* The instance's tracing_on: 1, 0, or -1 when unreadable. */
static int tracing_on(const char *dir)
{
	char path[512], on[4];
	int fd, n;

	snprintf(path, sizeof(path), INSTANCES "/%s/tracing_on", dir);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, on, sizeof(on));
	if (fd >= 0)
		close(fd);
	return n > 0 ? on[0] == '1' : -1;
}

/*
 * The one recording instance, recording: its trace_marker open.  A new
 * instance starts with tracing_on at 1, which the recorder turns to 0
 * while it sets the instance up, then to 1 again.  So: 1 after a 0, or
 * a 1 that lasts 2 s (the set-up was done before the first look).  A
 * peer that leaves meanwhile (the host's recording failed) ends the
 * wait.
 */
static int open_marker(int c)
{
	char path[512], name[256] = "", b;
	int tries, found, on, seen_off = 0, ons = 0;
	struct dirent *de;
	DIR *d;

	for (tries = 0; tries < 120000; tries++) {
		d = opendir(INSTANCES);
		if (!d)
			return -1;
		found = 0;
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "ktrace-", 7)) {
				found++;
				snprintf(name, sizeof(name), "%s", de->d_name);
			}
		closedir(d);
		on = found == 1 ? tracing_on(name) : -1;
		seen_off |= on == 0;
		ons = on == 1 ? ons + 1 : 0;
		if (on == 1 && (seen_off || ons >= 2000)) {
			snprintf(path, sizeof(path), INSTANCES "/%s/trace_marker", name);
			return open(path, O_WRONLY);
		}
		if (wait_in(c, 0) && recv(c, &b, 1, MSG_PEEK) <= 0) {
			errno = ECONNRESET;
			return -1;
		}
		usleep(1000);
	}
	errno = ETIMEDOUT;
	return -1;
}

/*
 * write_mark FD TEXT LEN: one write; a buffer that does not record yet
 * (EBADF: the recorder still sets it up) is tried again every ms, 60 s
 * at most.
 */
static int write_mark(int fd, const char *text, int len)
{
	int tries;

	for (tries = 0; tries < 60000; tries++) {
		if (write(fd, text, len) == len)
			return 0;
		if (errno != EBADF)
			return -1;
		usleep(1000);
	}
	return -1;
}

static int serve(int c)
{
	char buf[64], mark[80];
	size_t have = 0;
	long marks = 0;
	ssize_t n;
	char *nl;
	int fd, len;

	fd = open_marker(c);
	if (fd < 0)
		return fail("no recording instance " INSTANCES "/ktrace-* with tracing on");
	if (write(c, "ready\n", 6) != 6)
		return fail("write ready");
	for (;;) {
		nl = memchr(buf, '\n', have);
		if (!nl) {
			if (have == sizeof(buf))
				return fail("a line too long");
			if (!wait_in(c, 120000)) {
				errno = ETIMEDOUT;
				return fail("no line from the peer");
			}
			n = read(c, buf + have, sizeof(buf) - have);
			if (n < 0)
				return fail("read");
			if (!n)
				break;
			have += n;
			continue;
		}
		*nl = 0;
		len = snprintf(mark, sizeof(mark), "R%s\n", buf);
		if (write_mark(fd, mark, len))
			return fail("write trace_marker");
		*nl = '\n';
		len = nl - buf + 1;
		if (write(c, buf, len) != len)
			return fail("write the answer");
		marks++;
		have -= len;
		memmove(buf, buf + len, have);
	}
	close(fd);
	printf("marks %ld\n", marks);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s, c, one = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: marksrv PORT SECS\n");
		return 64;
	}
	a.sin_port = htons(atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1))
		return fail("listen");
	printf("listening\n");
	fflush(stdout);
	if (!wait_in(s, atoi(argv[2]) * 1000)) {
		errno = ETIMEDOUT;
		return fail("no connection");
	}
	c = accept(s, NULL, NULL);
	if (c < 0)
		return fail("accept");
	close(s);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return serve(c);
}
