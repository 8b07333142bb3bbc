/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks by name: each return address of a user_stack record as
 * the file it lies in, its offset there, and the function holding it,
 * from the memory maps record --user-stack stored (KT_OPT_KTRACE_MAPS,
 * file/tracedat.h) and the files' ELF symbol tables (decode/elfsym.h).
 */
#ifndef KT_USTACK_H
#define KT_USTACK_H

#include <stdbool.h>
#include <stdint.h>

struct kt_reader;
struct tep_event;
struct tep_handle;
struct tep_record;
struct trace_seq;

struct kt_ustack;

/*
 * From the maps the file holds: NULL with errno ENOENT when it holds
 * none (a file of trace-cmd's, or recorded without --user-stack), else
 * NULL + errno on failure.
 */
struct kt_ustack *kt_ustack_new(struct kt_reader *r);
void kt_ustack_free(struct kt_ustack *u);

/* The kernel's user_stack holds caller[8]; room for more. */
#define KT_USTACK_MAX	64

/* One frame: where addr of process tgid lies, in a record of time ts. */
struct kt_uframe {
	const char *path;	/* NULL: in no mapping the file holds */
	uint64_t off;		/* offset in path */
	const char *sym;	/* NULL: no function found there */
	uint64_t delta;		/* from sym's start */
};
void kt_ustack_frame(struct kt_ustack *u, int tgid, uint64_t ts, uint64_t addr,
		     struct kt_uframe *f);

/* Whether e is ftrace's user_stack. */
bool kt_ustack_is_event(const struct tep_event *e);

/*
 * The text line's info for a user_stack record, a kt_info_fn
 * (decode/printer.h) with priv the kt_ustack: the lines trace-cmd
 * prints, "\t=> 0x7f...", with each address found in the maps given as
 *   "\t=> FUNC+0xDELTA (PATH+0xOFF)"  or  "\t=> PATH+0xOFF"
 * (no function there).  Frames outside the maps stay bare addresses.
 */
int kt_ustack_info(struct trace_seq *s, struct tep_event *event,
		   struct tep_record *record, void *priv);
/*
 * The frames of a user_stack record, one for each caller[] address it
 * holds, up to max: how many.
 */
int kt_ustack_frames(struct kt_ustack *u, struct tep_event *event,
		     struct tep_record *record, struct kt_uframe *f, int max);

#endif
