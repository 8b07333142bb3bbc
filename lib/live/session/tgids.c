// SPDX-License-Identifier: GPL-2.0
/*
 * Thread to process ids for KT_OPT_KTRACE_TGIDS.  See tgids.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/session/tgids.h"
#include "live/tracefs/tracefs.h"

struct pair {
	int pid, tgid;
};

struct kt_tgids {
	struct pair *v;
	size_t n, cap;
	char *text;
};

struct kt_tgids *kt_tgids_new(void)
{
	return calloc(1, sizeof(struct kt_tgids));
}

void kt_tgids_free(struct kt_tgids *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->text);
	free(t);
}

static int add(struct kt_tgids *t, int pid, int tgid)
{
	struct pair *v;

	if (pid <= 0 || tgid <= 0 || pid == tgid)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct pair){ pid, tgid };
	return 0;
}

/* The threads of process tgid, from /proc/TGID/task/. */
static int scan_task_dir(struct kt_tgids *t, int tgid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return 0;	/* gone meanwhile */
	while (!ret && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			ret = add(t, atoi(de->d_name), tgid);
	closedir(d);
	return ret;
}

static int scan_proc(struct kt_tgids *t)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			ret = scan_task_dir(t, atoi(de->d_name));
	closedir(d);
	return ret;
}

/* saved_tgids: "PID TGID" lines, one per task seen while recorded. */
static int scan_saved(struct kt_tgids *t)
{
	char *text = kt_tracefs_read(NULL, "saved_tgids"), *line, *save = NULL, *end;
	int pid, tgid, ret = 0;

	if (!text)
		return 0;
	/*
	 * strtol, not sscanf: with pid_max at 4194304 the file is long, and
	 * a --rotate series scans it at each chunk, a trigger at each
	 * snapshot.
	 */
	for (line = strtok_r(text, "\n", &save); !ret && line;
	     line = strtok_r(NULL, "\n", &save)) {
		pid = (int)strtol(line, &end, 10);
		if (end == line)
			continue;
		line = end;
		tgid = (int)strtol(line, &end, 10);
		if (end != line)
			ret = add(t, pid, tgid);
	}
	free(text);
	return ret;
}

int kt_tgids_merge(struct kt_tgids *to, const struct kt_tgids *from)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < from->n; i++)
		ret = add(to, from->v[i].pid, from->v[i].tgid);
	return ret;
}

int kt_tgids_scan(struct kt_tgids *t)
{
	int ret = scan_saved(t);

	return ret ? ret : scan_proc(t);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

const char *kt_tgids_text(struct kt_tgids *t, size_t *len)
{
	size_t i, n = 0, at = 0;
	char *s;

	qsort(t->v, t->n, sizeof(*t->v), cmp_pair);
	/* Each pair once; a pid reused by another process keeps both. */
	for (i = 0; i < t->n; i++)
		if (!i || cmp_pair(&t->v[i - 1], &t->v[i]))
			t->v[n++] = t->v[i];
	t->n = n;
	free(t->text);
	t->text = malloc(n * 24 + 1);
	if (!t->text) {
		*len = 0;
		return "";
	}
	s = t->text;
	s[0] = '\0';
	for (i = 0; i < n; i++)
		at += (size_t)sprintf(s + at, "%d %d\n", t->v[i].pid, t->v[i].tgid);
	*len = at;
	return s;
}
