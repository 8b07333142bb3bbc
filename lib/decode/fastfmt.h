/* SPDX-License-Identifier: GPL-2.0 */
/* The compiled formatter: an event's info text as libtraceevent prints it. */
/*
 * The report hot path: each event's print format (and the libtraceevent
 * plugin handlers of the frequent events) compiled once into a small
 * program of field loads and integer/hex/string emitters, producing
 * byte for byte the text tep_print_event(..., "%s", TEP_PRINT_INFO)
 * prints, an order of magnitude faster.
 *
 * Compiled: the whole print-format language (numbers with any printf
 * flags, operators, casts, ?:, arrays, __get_str, __print_flags,
 * __print_symbolic, __print_hex[_str], __print_array, __get_bitmask,
 * __get_cpumask, %p %ps %pS %pM %pI4 %pI6 %pI6c %pIS %pU, %s of kernel
 * string pointers) and the plugin texts of sched_switch, sched_wakeup
 * [_new], kmem (kmalloc, kfree, kmem_cache_*), hrtimer_start,
 * hrtimer_expire_entry, tlb_flush, sys_enter_futex and ftrace's
 * kernel_stack (each frame's line kept by address): 2293 of the 2323
 * formats of a 6.18 kernel.  Whatever is not (bprint, %ph, print
 * functions and other plugins' handlers, formats libtraceevent failed to
 * parse, files of another endianness or 32-bit longs) answers -ENOTSUP
 * and the caller prints that event with libtraceevent: correctness never
 * depends on coverage.
 *
 * Reads are bounded by the record size: fields beyond a short record
 * read as 0 (as libtraceevent has them), dynamic-array offsets outside it
 * are treated as libtraceevent treats them, strings stop at the end of the
 * record, and what libtraceevent would read out of bounds (or divide by
 * zero for) answers -ENOTSUP.
 *
 * Assumptions, as in a report: one thread per kt_fastfmt; the tep's
 * function and printk tables are complete before the first event is
 * formatted (results are cached per address); comms are looked up (which
 * turns libtraceevent's cmdline list into its array) before the first
 * sched_switch is formatted.  Free the kt_fastfmt before its tep.
 */
#ifndef KT_FASTFMT_H
#define KT_FASTFMT_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;
struct tep_record;
struct trace_seq;

/* Compiled events of one tep_handle, compiled lazily on first use. */
struct kt_fastfmt;

struct kt_fastfmt *kt_fastfmt_new(struct tep_handle *tep);
void kt_fastfmt_free(struct kt_fastfmt *ff);

/*
 * Append the event's info text (what trace-cmd prints after
 * "event_name: ") to out, NUL-terminated.  Returns the length written
 * (without the NUL), -ENOTSUP when this event or this record is not
 * handled (print it with tep_print_event), or -ENOSPC when cap is too
 * small (nothing usable was written; retry with a larger buffer).
 *
 * Like libtraceevent's plugin for sched_switch/sched_wakeup, it registers
 * the comms it prints with tep_register_comm(), so later comm lookups see
 * what trace-cmd's would.  data must be the record's data (its address is
 * printed by formats that print __get_dynamic_array() as a pointer, as
 * libtraceevent does).  The text never contains a NUL; a trailing '\n'
 * of a format is kept, as libtraceevent keeps it.
 */
int kt_fastfmt_info(struct kt_fastfmt *ff, struct tep_event *ev,
		    const void *data, int size, char *out, size_t cap);

/*
 * The same appended to a trace_seq (grown as needed), with the signature
 * of a report's per-event info hook: priv is the struct kt_fastfmt.
 * Returns 0, or -ENOTSUP (s unchanged) to print the record with
 * tep_print_event().
 */
int kt_fastfmt_seq(struct trace_seq *s, struct tep_event *ev,
		   struct tep_record *rec, void *priv);

/* 1 when the event is compiled (after compiling it if needed), else 0. */
int kt_fastfmt_compiled(struct kt_fastfmt *ff, struct tep_event *ev);

/* Why an event was not compiled ("" when it was), for coverage reports. */
const char *kt_fastfmt_reason(struct kt_fastfmt *ff, struct tep_event *ev);

/*
 * Fast emitters for the line prefix.  Each writes at p (which must have
 * room: 24 bytes for a number, more when width says so) and returns the
 * end; no NUL is written.
 */
/* printf("%*llu", width, v); pad ' ' or '0' on the left. */
char *kt_fmt_udec(char *p, uint64_t v, int width, char pad);
/* printf("%*lld", width, v) */
char *kt_fmt_sdec(char *p, int64_t v, int width);
/* printf("%-*s", width, s) for s of length len. */
char *kt_fmt_str_left(char *p, const char *s, size_t len, int width);
/* printf("%*s", width, s) for s of length len. */
char *kt_fmt_str_right(char *p, const char *s, size_t len, int width);
/* printf("%llx", v) */
char *kt_fmt_hex(char *p, uint64_t v);
/*
 * libtraceevent's TEP_PRINT_TIME with "%<prec>.<div>d": ts rounded and
 * divided by div (0: none), then "%5llu.%0<prec>llu" (prec > 0) or
 * "%12llu".  trace-cmd report's default is prec 6, div 1000.  prec <= 9
 * (libtraceevent's int power of ten overflows beyond).
 */
char *kt_fmt_time(char *p, unsigned long long ts, int prec, int div);

#endif
