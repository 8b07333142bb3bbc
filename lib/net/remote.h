/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The controller's side of `ktrace record --remote HOST:PORT`: connect
 * to an agent (cmd/agent.c), prove the token, send record's arguments,
 * and write the stream it sends into a trace.dat file (file/writer.h):
 * the head it sent as it is, each CPU's pages spooled beside the output
 * while they come, the agent's options, the clock offsets it measured
 * (KT_OPT_KTRACE_TSYNC).  A connection that drops leaves a valid file
 * of what came before the drop.
 */
#ifndef KT_REMOTE_H
#define KT_REMOTE_H

#include <stdbool.h>
#include <stdint.h>

struct kt_remote_opts {
	const char *addr;		/* HOST:PORT */
	const char *output;		/* the file */
	const uint8_t *key;		/* the token's key (auth.h), or NULL */
	char **argv;			/* record's arguments for the agent */
	int argc;
	/* The controller's clock now, in ns, and its name. */
	uint64_t (*clock_now)(void *arg);
	const char *clock_name;
	void *arg;
	int sigfd;			/* readable on SIGINT/SIGTERM: stop; or -1 */
	/*
	 * Written one byte once the agent records (its first clock measure,
	 * sent as tracing goes on there), so that a COMMAND run here waits
	 * for every agent; or -1.
	 */
	int ready_fd;
};

struct kt_remote_result {
	int status;			/* the agent's record's exit status */
	bool dropped;			/* the connection dropped: the file is partial */
	bool refused;			/* the agent refused (said) */
	bool usage;			/* ... the arguments (status 64) */
	char why[160];			/* why it dropped */
	unsigned long long bytes;	/* of pages */
	int ncpus;
	char host[64];			/* the agent's host name */
	unsigned int offsets;		/* clock measures stored */
};

/*
 * Record through the agent at o->addr into o->output.  0 when the file
 * is written (r->dropped: up to a drop), -errno when not (said).
 */
int kt_remote_record(const struct kt_remote_opts *o, struct kt_remote_result *r);

#endif
