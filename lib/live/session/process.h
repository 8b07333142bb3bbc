/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --process: process events (fork, exec, exit, signals, system
 * calls) on ktrace.ko's process tracer when it is loaded, else on
 * ftrace's events.
 */
#ifndef KT_PROCESS_H
#define KT_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "live/session/session-config.h"

/*
 * Which tracer --process uses (*module: ktrace.ko's), saying through
 * kt_log() why the options cannot be had.  0 or -EINVAL.
 */
int kt_process_backend(const struct kt_session_config *cfg, bool *module);
/*
 * The event specs --process records, then cfg's -e ones: *out is
 * malloc'ed (its strings are not), *n long.  0 or -ENOMEM.
 */
int kt_process_specs(const struct kt_session_config *cfg, bool module,
		     struct kt_evspec **out, size_t *n);

#endif
