/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's output (`ktrace agent`), a sink (sink.h): the recording
 * sent to the controller over a connection (net/wire.h) while it runs.
 * It is a trace.dat file sink (sink-file.h) whose file stays in a
 * private directory: the file's head (header, formats, kallsyms, printk
 * formats) is sent before tracing starts; then the sources' recorders
 * send their pages themselves as they take them (source.h's stream):
 * each splice's pages of a CPU, one PAGES message, moved from the
 * kernel's buffer through a pipe to the socket with no copy and no
 * piece on disk; the messages of the CPUs' threads and of this one go
 * one at a time.  Every 100 ms each CPU's partly filled page goes too
 * (recorder.h), so no CPU's events wait for the end.  At the end the
 * last pages (as the recorders stop), the options and the cmdlines.
 * The controller writes the file (net/remote.h).  Round trips measure
 * the trace clock against the controller's at the start, every second
 * and at the end.  A controller that leaves stops the recording
 * (KT_STOP_OUTPUT), and then nothing more is sent; so does the agent's
 * own end (its worker's parent gone), but then the recorders' last
 * pages still go before the connection drops without the end: the
 * controller's file holds every CPU's events up to the stop.
 */
#ifndef KT_SINK_NET_H
#define KT_SINK_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
/*
 * One line of the worker's log to the controller (a LOG message: u8
 * level, then the text), between the pages' messages.  0 or -errno.
 */
int kt_net_sink_log(struct kt_net_sink *n, uint8_t level, const char *msg,
		    size_t len);
/* The controller asked to stop, or left. */
bool kt_net_sink_gone(const struct kt_net_sink *n);

#endif
