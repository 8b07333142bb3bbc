/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wire of `ktrace agent` and `ktrace record --remote`: framed
 * messages over a stream socket (TCP or vsock), and the sockets
 * themselves (listen, accept, connect with a timeout).
 *
 * A message is a header of 12 bytes, then its body:
 *   "KT"  magic, 2 bytes
 *   u8    protocol version (KT_WIRE_VERSION)
 *   u8    type (enum kt_wire_type)
 *   u32   body length, little-endian
 *   u32   reserved, 0
 * A receiver names the longest body it takes of each type and refuses
 * a longer one before it reads or allocates anything: a hostile peer
 * never makes it hold more than that.  Every read has a deadline.
 */
#ifndef KT_WIRE_H
#define KT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KT_WIRE_VERSION		1
#define KT_WIRE_HDR		12
/* The longest body of any message. */
#define KT_WIRE_MAX		(4U << 20)
/* The default port of `ktrace agent`. */
#define KT_WIRE_PORT		6517

enum kt_wire_type {
	KT_MSG_HELLO = 1,	/* agent: version, flags, nonce[32] */
	KT_MSG_AUTH,		/* controller: HMAC of the nonce (auth.h) */
	KT_MSG_OK,		/* agent: authenticated (or none needed) */
	KT_MSG_REFUSE,		/* either: one line, then the connection ends */
	KT_MSG_START,		/* controller: record's arguments, NUL-separated */
	KT_MSG_LOG,		/* agent: u8 level, one line of its log */
	KT_MSG_INFO,		/* agent: the recording's shape (struct below) */
	KT_MSG_HEAD,		/* agent: a piece of the file's head */
	KT_MSG_PAGES,		/* agent: u32 cpu, whole pages of that CPU */
	KT_MSG_OPTION,		/* agent: u16 id, an option of the file */
	KT_MSG_CMDLINES,	/* agent: saved_cmdlines' text */
	KT_MSG_SYNC,		/* agent: a clock round trip's question (u64 seq) */
	KT_MSG_SYNC_REPLY,	/* controller: u64 seq, u64 its clock (ns) */
	KT_MSG_OFFSET,		/* agent: one measured offset (text line) */
	KT_MSG_STOP,		/* controller: stop recording */
	KT_MSG_END,		/* agent: i32 status, u32 why; the stream is whole */
	KT_MSG_MAX,
};

/* HELLO's flags. */
#define KT_HELLO_AUTH		1	/* the agent wants AUTH with a token */
#define KT_NONCE_LEN		32

struct kt_wire_msg {
	uint8_t type;
	uint32_t len;
	uint8_t *body;		/* malloc'ed, len bytes plus a NUL; NULL if len 0 */
};

/* ms of CLOCK_MONOTONIC, for deadlines. */
uint64_t kt_wire_now_ms(void);

/*
 * Send one message, whole, within timeout_ms.  0 or -errno (-ETIMEDOUT,
 * -EPIPE when the peer left).
 */
int kt_wire_send(int fd, uint8_t type, const void *body, size_t len,
		 int timeout_ms);
/* ... a body in two parts (a small header of its own, then data). */
int kt_wire_send2(int fd, uint8_t type, const void *a, size_t alen,
		  const void *b, size_t blen, int timeout_ms);
/*
 * ... a body of a small header of its own (at most 16 bytes), then len
 * bytes of in_fd from off, moved by sendfile(2): from the page cache to
 * the socket, never through a buffer of ours.  The message header waits
 * for its data (MSG_MORE).
 */
int kt_wire_send_file(int fd, uint8_t type, const void *a, size_t alen,
		      int in_fd, off_t off, size_t len, int timeout_ms);
/*
 * ... a body of a small header of its own (at most 16 bytes), then len
 * bytes taken out of the pipe pipe_rd (which holds them) by splice(2):
 * the pages the pipe holds go to the socket, never through a buffer of
 * ours.  On a failure the pipe may still hold some of them.
 */
int kt_wire_send_pipe(int fd, uint8_t type, const void *a, size_t alen,
		      int pipe_rd, size_t len, int timeout_ms);
/*
 * Receive one message by deadline_ms (kt_wire_now_ms()'s clock).  max[]
 * holds the longest body taken of each type (KT_MSG_MAX entries; 0 with
 * a type not taken).  0 or -errno: -ECONNRESET when the peer closed
 * (-EPIPE when it did so between messages), -ETIMEDOUT, -EPROTO for a
 * bad header, a type not taken or a body over its limit.
 */
int kt_wire_recv(int fd, struct kt_wire_msg *m, const uint32_t *max,
		 uint64_t deadline_ms);
void kt_wire_msg_free(struct kt_wire_msg *m);
/*
 * kt_wire_recv in steps: the header (its type and length, checked as
 * kt_wire_recv checks them; no body read or allocated), then the body
 * whole, or taken in parts: len bytes into buf, or len bytes moved into
 * out_fd at off through the pipe pipe_fds (empty; splice(2): from the
 * socket to the page cache, never through a buffer of ours).  The parts
 * add up to the header's length, no more.  0 or -errno as kt_wire_recv;
 * after a failure the stream is out of step: drop the connection.
 */
int kt_wire_recv_head(int fd, struct kt_wire_msg *m, const uint32_t *max,
		      uint64_t deadline_ms);
int kt_wire_recv_body(int fd, struct kt_wire_msg *m, uint64_t deadline_ms);
int kt_wire_recv_bytes(int fd, void *buf, size_t len, uint64_t deadline_ms);
int kt_wire_recv_file(int fd, const int pipe_fds[2], int out_fd, off_t off,
		      size_t len, uint64_t deadline_ms);

/* The peer's address as "HOST:PORT" (or "vsock:CID:PORT"). */
void kt_wire_peer(int fd, char *buf, size_t len);

/*
 * "ADDR:PORT", "[V6]:PORT", "HOST:PORT" or "HOST" (KT_WIRE_PORT): a
 * listening socket.  NULL addr: 127.0.0.1.  *loopback says whether
 * every address it listens on is a loopback one.  fd or -errno.
 */
int kt_wire_listen(const char *addr, bool *loopback);
/* A connection on lfd, sent without delay (TCP_NODELAY); fd or -errno. */
int kt_wire_accept(int lfd);
/* vsock: listen on PORT of any CID.  fd or -errno. */
int kt_wire_listen_vsock(unsigned int port);
/*
 * Connect to "HOST:PORT", or "vsock:CID[:PORT]" (a VM guest's context id
 * and vsock port), within timeout_ms.  fd or -errno (-EINVAL: a vsock
 * address that does not parse).
 */
int kt_wire_connect(const char *addr, int timeout_ms);

#endif
