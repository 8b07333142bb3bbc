/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is this text safe to give libtraceevent?  Its parsers trust their
 * input, so event formats (from a trace.dat file or from the kernel) and
 * report's filters are checked here first (lib/file/reader.c,
 * lib/live/events/evformat.c, lib/decode/decoder.c).
 */
#ifndef KT_TEPCHECK_H
#define KT_TEPCHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * NULL when SIZE bytes of TEXT (NUL-terminated at TEXT[SIZE]) look like a
 * format libtraceevent parses safely, else what is wrong, for a message.
 */
const char *kt_format_problem(const char *text, size_t size);
/*
 * NULL when TEXT, a format of SYSTEM that kt_format_problem() accepts,
 * is also safe to print with, else what is wrong: the events libtraceevent
 * prints in a way of their own (ftrace:bprint).
 */
const char *kt_ftrace_format_problem(const char *system, const char *text);

/*
 * NULL when FILTER ("EVENTS: EXPRESSION", as tep_filter_add_filter_str()
 * takes it) is safe to parse, else what is wrong, for a message.
 */
const char *kt_filter_problem(const char *filter);

struct tep_handle;
struct tep_event_filter;

/*
 * libtraceevent reads a word it knows as no field of an event as FALSE,
 * so `-F 'sched_switch: nxt_pid == 1'` would select nothing and say
 * nothing.  After FILTER was added to F (and to nothing else), find a
 * word of its expression that is a field of none of the events F now
 * filters (nor COMM, CPU or a number): true, with the word in word and
 * the first event F filters in *event (for the message).
 */
bool kt_filter_unknown_word(struct tep_handle *tep,
			    struct tep_event_filter *f, const char *filter,
			    char *word, size_t len, const char **event);

#endif
