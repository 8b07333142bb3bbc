// SPDX-License-Identifier: GPL-2.0
/*
 * A test driver for lib/views/procview.c: builds records of the live kernel's
 * own event formats (read from tracefs) from a script on stdin, one per
 * line, and prints what the process view makes of each:
 *
 *   system:event [common_pid=N] [field=value ...] [size=N] [loc=N]
 *
 * Numbers go into the field at its offset and size (an array takes
 * a,b,c); a __data_loc string field takes the text, stored after the
 * fixed part.  size= cuts the record short, loc= overrides a string's
 * raw data_loc word: damaged records the view must survive.
 * Output per line: "shown TEXT", "hidden" or "other".
 * A third argument names a directory with ktrace.ko's formats
 * (DIR/events/ktrace/process_NAME/format): its process events load too,
 * and a char array field takes text.
 *
 * `make unit` builds it, with the sanitizers, as build/asan/unit/procview-feed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "views/procview.h"

#define REC_MAX 4096

static struct tep_event *load_event(struct tep_handle *tep, const char *dir,
				    const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);
	char path[512], *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f;

	if (ev)
		return ev;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				exit(1);
		}
		size_t n = fread(buf + len, 1, cap - len, f);

		if (!n)
			break;
		len += n;
	}
	fclose(f);
	if (tep_parse_format(tep, &ev, buf, len, sys))
		ev = NULL;
	free(buf);
	return ev;
}

static void put(unsigned char *rec, int off, int size, unsigned long long v)
{
	memcpy(rec + off, &v, size);	/* little endian */
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/sys/kernel/tracing";
	struct tep_handle *tep = tep_alloc();
	struct kt_procview *pv;
	char line[4096], *save, *tok;
	int n = 0;

	if (!tep)
		return 1;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	/* Every event the view knows, so it finds them all at new(). */
	static const char *const evs[][2] = {
		{ "task", "task_newtask" }, { "sched", "sched_process_fork" },
		{ "sched", "sched_process_exec" }, { "sched", "sched_process_exit" },
		{ "syscalls", "sys_enter_exit_group" }, { "syscalls", "sys_enter_exit" },
		{ "signal", "signal_deliver" }, { "signal", "signal_generate" },
		{ "raw_syscalls", "sys_enter" },
		{ "raw_syscalls", "sys_exit" }, { "sched", "sched_switch" },
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		if (!load_event(tep, dir, evs[i][0], evs[i][1])) {
			fprintf(stderr, "no format for %s:%s\n", evs[i][0], evs[i][1]);
			return 1;
		}
	static const char *const kt_evs[] = {
		"process_fork", "process_exec", "process_exit", "process_signal",
		"process_signal_generate",
		"process_syscall_entry", "process_syscall_exit",
	};
	for (size_t i = 0; argc > 3 && i < sizeof(kt_evs) / sizeof(kt_evs[0]); i++)
		if (!load_event(tep, argv[3], "ktrace", kt_evs[i])) {
			fprintf(stderr, "no format for ktrace:%s\n", kt_evs[i]);
			return 1;
		}
	pv = kt_procview_new(tep, argc > 2 && *argv[2] ? argv[2] : NULL);
	if (!pv)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		unsigned char rec[REC_MAX] = { 0 };
		struct tep_record r = { .data = rec };
		struct tep_event *ev;
		struct trace_seq s;
		char *colon, *name;
		int size, ret;

		line[strcspn(line, "\n")] = '\0';
		tok = strtok_r(line, " ", &save);
		if (!tok || !(colon = strchr(tok, ':')))
			continue;
		*colon = '\0';
		name = colon + 1;
		ev = tep_find_event_by_name(tep, tok, name);
		if (!ev) {
			fprintf(stderr, "line %d: no event %s:%s\n", n + 1, tok, name);
			return 1;
		}
		put(rec, 0, 2, ev->id);
		size = 0;
		for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
			if (f->offset + f->size > size)
				size = f->offset + f->size;
		r.size = -1;
		while ((tok = strtok_r(NULL, " ", &save))) {
			char *eq = strchr(tok, '='), *val;
			struct tep_format_field *f;

			if (!eq)
				continue;
			*eq = '\0';
			val = eq + 1;
			if (!strcmp(tok, "size")) {
				r.size = atoi(val);
				continue;
			}
			f = tep_find_any_field(ev, !strcmp(tok, "loc") ? "filename" : tok);
			if (!f) {
				fprintf(stderr, "line %d: no field %s\n", n + 1, tok);
				return 1;
			}
			if (!strcmp(tok, "loc")) {
				put(rec, f->offset, 4, strtoull(val, NULL, 0));
			} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				int len = strlen(val) + 1;

				memcpy(rec + size, val, len);
				put(rec, f->offset, 4, (unsigned)len << 16 | size);
				size += len;
			} else if (f->flags & TEP_FIELD_IS_STRING &&
				   f->flags & TEP_FIELD_IS_ARRAY) {
				strncpy((char *)rec + f->offset, val, f->size);
			} else if (f->flags & TEP_FIELD_IS_ARRAY && f->arraylen) {
				int es = f->size / f->arraylen, i = 0;

				for (char *v = strtok(val, ","); v && i < (int)f->arraylen;
				     v = strtok(NULL, ","), i++)
					put(rec, f->offset + i * es, es, strtoull(v, NULL, 0));
			} else {
				put(rec, f->offset, f->size, strtoull(val, NULL, 0));
			}
		}
		if (r.size < 0)
			r.size = size;
		trace_seq_init(&s);
		ret = kt_procview_format(pv, &s, ev, &r);
		trace_seq_terminate(&s);
		if (ret == KT_PROCVIEW_SHOWN)
			printf("shown %s\n", s.buffer);
		else if (ret == KT_PROCVIEW_HIDDEN)
			printf("hidden\n");
		else if (ret == -ENOENT)
			printf("other\n");
		else
			printf("error %d\n", ret);
		trace_seq_destroy(&s);
		n++;
	}
	kt_procview_free(pv);
	tep_free(tep);
	return 0;
}
