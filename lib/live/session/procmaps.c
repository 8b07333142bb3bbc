// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps to the lines of KT_OPT_KTRACE_MAPS.  See procmaps.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/session/procmaps.h"

/* A process seen: at its exec, or when its maps were read. */
struct proc {
	pid_t pid;
	bool read;			/* its maps are in text */
	unsigned long long exec_at;	/* its last exec's trace time, or 0 */
};

struct kt_procmaps {
	char *text;
	size_t len, cap;
	struct proc *procs;
	size_t nprocs, capprocs;
};

struct kt_procmaps *kt_procmaps_new(void)
{
	struct kt_procmaps *m = calloc(1, sizeof(*m));

	if (m && !(m->text = calloc(1, 1))) {
		free(m);
		return NULL;
	}
	if (m)
		m->cap = 1;
	return m;
}

void kt_procmaps_free(struct kt_procmaps *m)
{
	if (!m)
		return;
	free(m->text);
	free(m->procs);
	free(m);
}

/* pid's entry, added when new; NULL when out of memory. */
static struct proc *proc_of(struct kt_procmaps *m, pid_t pid)
{
	struct proc *grown;
	size_t i;

	for (i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	if (m->nprocs == m->capprocs) {
		m->capprocs = m->capprocs ? m->capprocs * 2 : 64;
		grown = realloc(m->procs, m->capprocs * sizeof(*grown));
		if (!grown)
			return NULL;
		m->procs = grown;
	}
	m->procs[m->nprocs] = (struct proc){ .pid = pid };
	return &m->procs[m->nprocs++];
}

int kt_procmaps_exec(struct kt_procmaps *m, pid_t pid, unsigned long long when)
{
	struct proc *p = proc_of(m, pid);

	if (!p)
		return -ENOMEM;
	p->exec_at = when;
	return 0;
}

static int append(struct kt_procmaps *m, const char *s, size_t n)
{
	char *grown;
	size_t cap = m->cap;

	while (m->len + n + 1 > cap)
		cap *= 2;
	if (cap != m->cap) {
		grown = realloc(m->text, cap);
		if (!grown)
			return -ENOMEM;
		m->text = grown;
		m->cap = cap;
	}
	memcpy(m->text + m->len, s, n);
	m->len += n;
	m->text[m->len] = '\0';
	return 0;
}

/*
 * One /proc/PID/maps line as ours, when it is an executable mapping of
 * a file: "START-END PERMS PGOFF DEV INODE PATH".  A deleted file's
 * " (deleted)" stays in the path: report then finds no file, as it is.
 */
static int line_of(pid_t pid, unsigned long long from, const char *l,
		   char *out, size_t len)
{
	unsigned long long start, end, pgoff;
	char perms[8];
	int n = 0;
	const char *path;

	if (sscanf(l, "%llx-%llx %7s %llx %*s %*u %n", &start, &end, perms,
		   &pgoff, &n) < 4 || !n)
		return 0;
	path = l + n;
	if (perms[2] != 'x' || path[0] != '/')
		return 0;
	return snprintf(out, len, "%x %llx %llx %llx %llx %s", (unsigned int)pid,
			from, start, end, pgoff, path);
}

int kt_procmaps_read(struct kt_procmaps *m, pid_t pid)
{
	struct proc *p = proc_of(m, pid);
	char path[64], *line = NULL, out[4200];
	size_t cap = 0;
	ssize_t n;
	int ret = 0, k;
	FILE *f;

	if (!p)
		return -ENOMEM;
	if (p->read)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		k = line_of(pid, p->exec_at, line, out, sizeof(out) - 1);
		if (k <= 0 || (size_t)k >= sizeof(out) - 1)
			continue;
		out[k++] = '\n';
		ret = append(m, out, (size_t)k);
	}
	free(line);
	fclose(f);
	/* A kernel thread's maps are empty: read all the same. */
	if (!ret)
		p->read = true;
	return ret;
}

int kt_procmaps_read_alive(struct kt_procmaps *m)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0, r;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		r = kt_procmaps_read(m, (pid_t)atoi(de->d_name));
		/* Gone meanwhile, or not ours to read: skipped. */
		if (r == -ENOMEM)
			ret = r;
	}
	closedir(d);
	return ret;
}

const char *kt_procmaps_text(const struct kt_procmaps *m, size_t *len)
{
	*len = m->len;
	return m->text;
}
