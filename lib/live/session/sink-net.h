/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's output (`ktrace agent`), a sink (sink.h): the recording
 * sent to the controller over a connection (net/wire.h) while it runs.
 * It is a trace.dat file sink (sink-file.h) whose file stays in a
 * private directory: the file's head (header, formats, kallsyms, printk
 * formats) is sent as tracing starts; then, on a timer, the sources'
 * recorders move to fresh pieces at a page boundary per CPU (as a
 * series rotates) and the pages of the old ones are sent and removed;
 * at the end the rest, the options and the cmdlines.  The controller
 * writes the file (net/remote.h).  Round trips measure the trace
 * clock against the controller's at the start, every second and at
 * the end.  A controller that leaves stops the recording
 * (KT_STOP_OUTPUT); so does the agent's own end (its worker's parent
 * gone), and then nothing more is sent.
 */
#ifndef KT_SINK_NET_H
#define KT_SINK_NET_H

#include <stdbool.h>
#include <sys/types.h>

#include "live/session/sink.h"

struct kt_net_sink;

extern const struct kt_sink_ops kt_net_sink_ops;

/*
 * A sink on connection fd (not closed by it); parent is the agent's pid:
 * when it is gone the connection is dropped as the agent's would be.
 * NULL + errno.
 */
struct kt_net_sink *kt_net_sink_new(int fd, pid_t parent);
/*
 * After the recording, before kt_session_free(): the END message with
 * record's exit status; nothing when the controller or the agent is gone.
 */
void kt_net_sink_close(struct kt_net_sink *n, int status);
/* The controller asked to stop, or left. */
bool kt_net_sink_gone(const struct kt_net_sink *n);

#endif
