// SPDX-License-Identifier: GPL-2.0
/*
 * User stack frames by name.  See ustack.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/log.h"
#include "decode/elfsym.h"
#include "decode/ustack.h"
#include "file/reader.h"

/* A file some process mapped, its symbols loaded when first needed. */
struct ufile {
	char *path;
	struct kt_elf_syms *syms;
	bool tried;
};

struct umap {
	int pid;
	uint64_t from;		/* records before it ran another program */
	uint64_t start, end, pgoff;
	struct ufile *file;
};

struct kt_ustack {
	struct umap *maps;	/* by pid, then start */
	size_t n;
	struct ufile **files;
	size_t nfiles;
	bool said_no_elf;	/* libelf did not load: said once */
};

static int by_pid_start(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static struct ufile *file_of(struct kt_ustack *u, const char *path)
{
	struct ufile **grown, *f;
	size_t i;

	/* A recording maps a few dozen files: a list will do. */
	for (i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i]->path, path))
			return u->files[i];
	grown = realloc(u->files, (u->nfiles + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	u->files = grown;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return NULL;
	}
	u->files[u->nfiles++] = f;
	return f;
}

/* One line "PID FROM START END PGOFF PATH"; a malformed one is skipped. */
static int add_line(struct kt_ustack *u, char *line, size_t *cap)
{
	unsigned long long from, start, end, pgoff;
	unsigned int pid;
	struct umap *grown;
	int n = 0;

	if (sscanf(line, "%x %llx %llx %llx %llx %n", &pid, &from, &start, &end, &pgoff,
		   &n) < 5 ||
	    !n || !line[n] || end <= start)
		return 0;
	if (u->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		grown = realloc(u->maps, *cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		u->maps = grown;
	}
	u->maps[u->n].file = file_of(u, line + n);
	if (!u->maps[u->n].file)
		return -ENOMEM;
	u->maps[u->n].pid = (int)pid;
	u->maps[u->n].from = from;
	u->maps[u->n].start = start;
	u->maps[u->n].end = end;
	u->maps[u->n].pgoff = pgoff;
	u->n++;
	return 0;
}

struct kt_ustack *kt_ustack_new(struct kt_reader *r)
{
	const char *text = kt_reader_user_maps(r);
	char *copy, *line, *save = NULL;
	struct kt_ustack *u;
	size_t cap = 0;
	int ret = 0;

	if (!text || !*text) {
		errno = ENOENT;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	copy = strdup(text);
	if (!u || !copy) {
		free(u);
		free(copy);
		errno = ENOMEM;
		return NULL;
	}
	for (line = strtok_r(copy, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = add_line(u, line, &cap);
	free(copy);
	if (ret) {
		kt_ustack_free(u);
		errno = -ret;
		return NULL;
	}
	qsort(u->maps, u->n, sizeof(*u->maps), by_pid_start);
	return u;
}

void kt_ustack_free(struct kt_ustack *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nfiles; i++) {
		kt_elf_syms_free(u->files[i]->syms);
		free(u->files[i]->path);
		free(u->files[i]);
	}
	free(u->files);
	free(u->maps);
	free(u);
}

void kt_ustack_frame(struct kt_ustack *u, int tgid, uint64_t ts, uint64_t addr,
		     struct kt_uframe *f)
{
	struct umap key = { .pid = tgid, .start = addr }, *m;
	size_t lo = 0, hi = u->n;

	memset(f, 0, sizeof(*f));
	/* The last mapping of tgid starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_pid_start(&u->maps[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	m = &u->maps[lo - 1];
	/* Before from, the process ran a program whose maps are not known. */
	if (m->pid != tgid || addr >= m->end || ts < m->from)
		return;
	f->path = m->file->path;
	f->off = addr - m->start + m->pgoff;
	if (!m->file->tried) {
		/* A file gone or stripped since: its frames keep PATH+0xOFF. */
		m->file->syms = kt_elf_syms_load(m->file->path);
		m->file->tried = true;
		if (!m->file->syms && errno == ELIBACC && !u->said_no_elf) {
			kt_warn("cannot load libelf: %s; install libelf1 to name user-space frames (shown as FILE+0xOFF)",
				kt_elf_missing());
			u->said_no_elf = true;
		}
	}
	if (m->file->syms)
		kt_elf_syms_find(m->file->syms, f->off, &f->sym, &f->delta);
}

bool kt_ustack_is_event(const struct tep_event *e)
{
	return e && e->system && e->name && !strcmp(e->system, "ftrace") &&
	       !strcmp(e->name, "user_stack");
}

/*
 * The record's tgid (the process whose maps hold its addresses) and its
 * caller[] array: false when the record is not as its format says.
 */
static bool frames_of(struct tep_handle *tep, struct tep_event *e,
		      struct tep_record *rec, int *tgid, int *n,
		      unsigned int *off, int *ls)
{
	struct tep_format_field *fc = tep_find_field(e, "caller");
	struct tep_format_field *ft = tep_find_field(e, "tgid");

	*ls = tep_get_long_size(tep);
	if (!fc || fc->offset < 0 || fc->offset > rec->size || (*ls != 4 && *ls != 8))
		return false;
	if (ft && ft->offset >= 0 && ft->size == 4 && ft->offset + 4 <= rec->size)
		*tgid = (int)tep_read_number(tep, (char *)rec->data + ft->offset, 4);
	else
		*tgid = tep_data_pid(tep, rec);
	*off = (unsigned int)fc->offset;
	/* As many as the record holds, as kernel_stack's (decode/decoder.c). */
	*n = (rec->size - fc->offset) / *ls;
	if (fc->arraylen && *n > (int)fc->arraylen)
		*n = (int)fc->arraylen;
	return true;
}

int kt_ustack_info(struct trace_seq *s, struct tep_event *event,
		   struct tep_record *record, void *priv)
{
	struct tep_handle *tep = event->tep;
	struct kt_ustack *u = priv;
	struct kt_uframe f;
	unsigned int off;
	uint64_t a;
	int tgid, n, ls, i;

	if (!frames_of(tep, event, record, &tgid, &n, &off, &ls))
		return -1;
	for (i = 0; i < n; i++) {
		a = tep_read_number(tep, (char *)record->data + off + i * ls, ls);
		kt_ustack_frame(u, tgid, record->ts, a, &f);
		if (f.sym)
			trace_seq_printf(s, "\t=> %s+0x%" PRIx64 " (%s+0x%" PRIx64 ")\n",
					 f.sym, f.delta, f.path, f.off);
		else if (f.path)
			trace_seq_printf(s, "\t=> %s+0x%" PRIx64 "\n", f.path, f.off);
		else
			trace_seq_printf(s, "\t=> 0x%" PRIx64 "\n", a);
	}
	return 0;
}

int kt_ustack_frames(struct kt_ustack *u, struct tep_event *event,
		     struct tep_record *record, struct kt_uframe *f, int max)
{
	struct tep_handle *tep = event->tep;
	unsigned int off;
	int tgid, n, ls, i;

	if (!frames_of(tep, event, record, &tgid, &n, &off, &ls))
		return 0;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		kt_ustack_frame(u, tgid, record->ts,
				tep_read_number(tep, (char *)record->data + off + i * ls, ls),
				&f[i]);
	return n;
}
