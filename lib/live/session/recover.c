// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace record --recover: a killed recording's pieces back into a
 * trace.dat file.  The header piece is trusted no further than the
 * reader says (kt_reader_head()): every size is checked against the file
 * before it is used, and the part after the formats (kallsyms, printk
 * formats) is kept only when it is complete.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "live/tracefs/tracefs.h"
#include "file/pieces.h"
#include "file/rawpage.h"
#include "file/reader.h"
#include "live/session/recover.h"
#include "live/tracefs/reset.h"
#include "file/tracedat.h"
#include "file/writer.h"

#define META_MAGIC	"ktrace-pieces 1"

int kt_recover_meta_write(const char *prefix, int ncpus,
			  const char *clock_text, const char *clock_name)
{
	char *path, *text = NULL;
	int fd, len, ret = 0;

	if (!clock_text)
		clock_text = "";
	path = kt_pieces_meta(prefix);
	if (!path)
		return -ENOMEM;
	/* One line each: the trace_clock text ends in a newline of its own. */
	len = asprintf(&text, META_MAGIC "\nncpus %d\nclock %s\ntrace_clock %.*s\n",
		       ncpus, clock_name ? clock_name : "local",
		       (int)strcspn(clock_text, "\n"), clock_text);
	if (len < 0) {
		free(path);
		return -ENOMEM;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		ret = -errno;
	else
		ret = kt_write_all(fd, text, len);
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(path);
	free(text);
	free(path);
	return ret;
}

void kt_recover_meta_remove(const char *prefix)
{
	char *path;

	path = kt_pieces_meta(prefix);
	if (!path)
		return;
	unlink(path);
	free(path);
}

/* ---- finding the pieces ---- */

struct found {
	char *dir;		/* FILE's directory */
	char *base;		/* FILE's last component */
	pid_t pid;
	time_t mtime;
	int count;		/* interrupted recordings of FILE */
	pid_t busy;		/* one whose ktrace still runs */
};

static bool owner_runs(pid_t pid)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%d", KT_INSTANCE_PREFIX, (int)pid);
	return kt_instance_owner_alive(name);
}

static int find_pieces(const char *output, struct found *f)
{
	const char *slash = strrchr(output, '/');
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd;

	if (slash) {
		f->dir = strndup(output, slash == output ? 1 : slash - output);
		f->base = strdup(slash + 1);
	} else {
		f->dir = strdup(".");
		f->base = strdup(output);
	}
	if (!f->dir || !f->base)
		return -ENOMEM;
	if (!*f->base)
		return -EINVAL;
	d = opendir(f->dir);
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		pid_t pid = kt_pieces_pid(de->d_name, f->base);

		if (!pid || fstatat(dfd, de->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (owner_runs(pid)) {
			f->busy = pid;
			continue;
		}
		f->count++;
		if (!f->pid || st.st_mtime > f->mtime) {
			f->pid = pid;
			f->mtime = st.st_mtime;
		}
	}
	closedir(d);
	return 0;
}

/* ---- meta ---- */

struct meta {
	int ncpus;
	char clock[64];
	char *trace_clock;
};

static void read_meta(const char *prefix, struct meta *m)
{
	char *path, *text = NULL, *line, *save = NULL;
	size_t len;

	path = kt_pieces_meta(prefix);
	if (!path)
		return;
	if (kt_file_slurp(path, &text, &len) == 0 && len > strlen(META_MAGIC) &&
	    !strncmp(text, META_MAGIC "\n", strlen(META_MAGIC) + 1)) {
		char *t = realloc(text, len + 1);

		if (t) {
			text = t;
			text[len] = '\0';
			for (line = strtok_r(text, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				if (!strncmp(line, "ncpus ", 6))
					m->ncpus = atoi(line + 6);
				else if (!strncmp(line, "clock ", 6))
					snprintf(m->clock, sizeof(m->clock), "%s", line + 6);
				else if (!strncmp(line, "trace_clock ", 12) && !m->trace_clock)
					m->trace_clock = strdup(line + 12);
			}
		}
	}
	free(text);
	free(path);
}

/* Without a meta piece: CPUs are the cpuN pieces from 0 on. */
static int count_cpu_pieces(const char *prefix)
{
	char path[PATH_MAX];
	int n;

	for (n = 0; n < KT_DAT_MAX_CPUS; n++) {
		kt_pieces_cpu(path, sizeof(path), prefix, n);
		if (access(path, F_OK))
			break;
	}
	return n;
}

static void remove_pieces(const char *prefix, int ncpus)
{
	char path[PATH_MAX];
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		kt_pieces_cpu(path, sizeof(path), prefix, cpu);
		unlink(path);
	}
	kt_recover_meta_remove(prefix);
	unlink(prefix);
}

/* ---- what the kernel still holds ---- */

/*
 * Append every page left in one CPU's buffer of the instance to its
 * piece: read() hands out one page at a time, the last partly filled
 * one padded with zeros, as the recorders store them.
 */
static int drain_cpu(struct tracefs_instance *inst, int cpu, const char *prefix,
		     char *page, int page_size)
{
	char rel[64], path[PATH_MAX], *raw;
	int in, out, ret = 0;
	ssize_t n;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	raw = tracefs_instance_get_file(inst, rel);
	if (!raw)
		return -ENOMEM;
	in = open(raw, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	tracefs_put_tracing_file(raw);
	if (in < 0)
		return errno == ENOENT ? 0 : -errno;
	kt_pieces_cpu(path, sizeof(path), prefix, cpu);
	out = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (out < 0) {
		ret = -errno;
		goto out_in;
	}
	for (;;) {
		n = read(in, page, page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 && errno != EAGAIN ? -errno : 0;
			break;
		}
		memset(page + n, 0, page_size - n);
		ret = kt_write_all(out, page, page_size);
		if (ret)
			break;
	}
	close(out);
out_in:
	close(in);
	return ret;
}

/*
 * One CPU's CPUSTAT text, as record stores it ("CPU: N", the stats file,
 * the unwritten line), read before the drain.  The instance was made by
 * the dead recording, so its counters are that recording's alone.  The
 * kernel counts as read what the recorders took; what of it is not in
 * the piece was in flight when ktrace died: unwritten, lost, counted.
 */
static char *cpu_stat_text(struct tracefs_instance *inst, int cpu,
			   const char *prefix, int page_size)
{
	unsigned long long written = 0, unwritten = 0;
	struct kt_cpu_stats st;
	char file[64], path[PATH_MAX], *text, *out = NULL;
	struct stat ps;
	int fd;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = kt_tracefs_read(inst, file);
	if (!text)
		return NULL;
	kt_cpu_stats_parse(text, &st);
	kt_pieces_cpu(path, sizeof(path), prefix, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &ps) == 0 &&
	    kt_rawpage_count_file(fd, 0, (unsigned long long)ps.st_size,
				  (size_t)page_size, &written) == 0 &&
	    st.read > written)
		unwritten = st.read - written;
	if (fd >= 0)
		close(fd);
	if (asprintf(&out, "CPU: %d\n%s%s%llu\n", cpu, text,
		     KT_CPUSTAT_UNWRITTEN, unwritten) < 0)
		out = NULL;
	free(text);
	return out;
}

/*
 * The dead recording's instance, when nobody removed it yet, still holds
 * the events the recorders had not taken: stop it, keep its per-CPU
 * stats in stat_text[] (for the file's CPUSTAT) and take the events.
 * Returns the number of CPUs drained (0: no instance), or -errno.
 */
static int drain_instance(pid_t pid, const char *prefix, int ncpus,
			  char **stat_text)
{
	struct tracefs_instance *inst;
	int cpu, ret, page_size = getpagesize();
	char name[64], *page;

	snprintf(name, sizeof(name), "%s%d", KT_INSTANCE_PREFIX, (int)pid);
	ret = kt_instance_lookup(name, &inst);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	page = malloc(page_size);
	ret = page ? kt_tracefs_write(inst, "tracing_on", "0") : -ENOMEM;
	for (cpu = 0; !ret && cpu < ncpus; cpu++) {
		stat_text[cpu] = cpu_stat_text(inst, cpu, prefix, page_size);
		if (!stat_text[cpu])
			ret = errno ? -errno : -ENOMEM;
	}
	for (cpu = 0; !ret && cpu < ncpus; cpu++)
		ret = drain_cpu(inst, cpu, prefix, page, page_size);
	free(page);
	kt_instance_close(inst);
	return ret ? ret : ncpus;
}

/* ---- assembling ---- */

static int assemble(struct kt_writer *w, const char *prefix,
		    struct kt_recover_result *res, bool drain)
{
	struct meta m = { 0 };
	struct kt_writer_cpu *cpus = NULL;
	struct kt_writer_tail tail = { 0 };
	char *cmdlines = NULL, **stat_text = NULL;
	int cpu, ret;

	ret = kt_writer_resume_file(w, prefix, &res->kallsyms_lost);
	if (ret)
		goto out;

	read_meta(prefix, &m);
	res->ncpus = m.ncpus > 0 && m.ncpus <= KT_DAT_MAX_CPUS ? m.ncpus :
		     count_cpu_pieces(prefix);
	ret = -EBADMSG;
	if (res->ncpus <= 0)
		goto out;
	ret = -ENOMEM;
	stat_text = calloc(res->ncpus, sizeof(*stat_text));
	if (!stat_text)
		goto out;
	ret = drain ? drain_instance(res->pid, prefix, res->ncpus, stat_text) : 0;
	if (ret < 0)
		goto out;
	res->drained = ret > 0;
	ret = -ENOMEM;
	cpus = calloc(res->ncpus, sizeof(*cpus));
	if (!cpus)
		goto out;
	for (cpu = 0; cpu < res->ncpus; cpu++) {
		char path[PATH_MAX];
		struct stat cs;

		/* A missing piece is a CPU with no data. */
		kt_pieces_cpu(path, sizeof(path), prefix, cpu);
		cpus[cpu].fd = open(path, O_RDWR | O_CLOEXEC);
		if (cpus[cpu].fd >= 0 && fstat(cpus[cpu].fd, &cs) == 0)
			cpus[cpu].size = cs.st_size;
	}
	if (m.trace_clock)
		ret = kt_writer_add_option_str(w, KT_OPT_TRACECLOCK, m.trace_clock);
	else
		ret = 0;
	if (!ret)
		ret = kt_writer_add_option_str(w, KT_OPT_VERSION,
					       "ktrace " KTRACE_VERSION " (recovered)");
	/*
	 * Without the instance (reset -a removed it) the file has no
	 * CPUSTAT, and readers call its loss unknown rather than none.
	 */
	for (cpu = 0; !ret && res->drained && cpu < res->ncpus; cpu++)
		ret = kt_writer_add_option_str(w, KT_OPT_CPUSTAT, stat_text[cpu]);
	if (ret)
		goto out;
	/* The recording could not save them: today's are the best guess. */
	cmdlines = kt_tracefs_read(NULL, "saved_cmdlines");
	tail.cmdlines = cmdlines ? cmdlines : "";
	tail.cmdlines_len = cmdlines ? strlen(cmdlines) : 0;
	tail.clock = m.clock[0] ? m.clock : "local";
	ret = kt_writer_finish(w, &tail, res->ncpus, cpus);
	if (ret >= 0)
		for (cpu = 0; cpu < res->ncpus; cpu++)
			res->bytes += cpus[cpu].size;
	if (ret == 1)
		ret = -ENOSPC;
out:
	if (cpus)
		for (cpu = 0; cpu < res->ncpus; cpu++)
			if (cpus[cpu].fd >= 0)
				close(cpus[cpu].fd);
	free(cpus);
	if (stat_text)
		for (cpu = 0; cpu < res->ncpus; cpu++)
			free(stat_text[cpu]);
	free(stat_text);
	free(cmdlines);
	free(m.trace_clock);
	return ret;
}

static int recover_file(const char *output, struct kt_recover_result *res,
			bool drain)
{
	struct found f = { 0 };
	struct kt_writer *w = NULL;
	char *prefix = NULL, *path = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = find_pieces(output, &f);
	if (ret)
		goto out;
	if (!f.pid) {
		res->pid = f.busy;
		ret = f.busy ? -EBUSY : -ENOENT;
		goto out;
	}
	res->pid = f.pid;
	res->others = f.count - 1;
	if (asprintf(&path, "%s/%s", f.dir, f.base) < 0) {
		path = NULL;
		ret = -ENOMEM;
		goto out;
	}
	prefix = kt_pieces_prefix(path, f.pid);
	if (!prefix) {
		ret = -ENOMEM;
		goto out;
	}
	w = kt_writer_open(output);
	if (!w) {
		ret = -errno;
		goto out;
	}
	ret = assemble(w, prefix, res, drain);
	/* A full disk still leaves a valid file with what fit. */
	if (!ret || ret == -ENOSPC) {
		int err = kt_writer_commit(w);

		if (err)
			ret = err;
	}
	if (!ret || ret == -ENOSPC)
		remove_pieces(prefix, res->ncpus);
out:
	kt_writer_close(w);
	free(prefix);
	free(path);
	free(f.dir);
	free(f.base);
	return ret;
}

int kt_recover(const char *output, struct kt_recover_result *res)
{
	return recover_file(output, res, true);
}

/* ---- a series of chunks (sink-series.h) ---- */

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The chunks of dir with pieces (".ktrace-N.dat.part.tmp-PID"), their
 * numbers sorted into *nums; those finished but not yet named (the
 * ".part" alone) are named now, their leftover pieces removed.
 */
static int series_scan(const char *dir, long **nums, size_t *n,
		       unsigned int *named)
{
	char base[NAME_MAX + 1];
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t cap = 0;
	long num, *l;
	int ret = 0;

	*nums = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *tail;

		num = kt_pieces_chunk(de->d_name, true);
		if (num < 0)
			continue;
		tail = strstr(de->d_name, KT_SERIES_PART) + strlen(KT_SERIES_PART);
		if (!*tail) {
			char from[PATH_MAX], to[PATH_MAX];

			/* Whole: killed between its commit and its name. */
			snprintf(from, sizeof(from), "%s/%s", dir, de->d_name);
			snprintf(to, sizeof(to), "%s/" KT_SERIES_PREFIX "%06ld" KT_SERIES_SUFFIX,
				 dir, num);
			if (rename(from, to)) {
				ret = -errno;
				break;
			}
			(*named)++;
			continue;
		}
		snprintf(base, sizeof(base), "." KT_SERIES_PREFIX "%06ld"
			 KT_SERIES_SUFFIX KT_SERIES_PART, num);
		if (!kt_pieces_pid(de->d_name, base))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			l = realloc(*nums, cap * sizeof(*l));
			if (!l) {
				ret = -ENOMEM;
				break;
			}
			*nums = l;
		}
		(*nums)[(*n)++] = num;
	}
	closedir(d);
	if (!ret && *n)
		qsort(*nums, *n, sizeof(**nums), cmp_long);
	return ret;
}

/* What a chunk's committed-but-unnamed pieces left: removed. */
static void series_leftovers(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char path[PATH_MAX];
	long num;

	if (!d)
		return;
	while ((de = readdir(d))) {
		num = kt_pieces_chunk(de->d_name, true);
		if (num < 0 || !strstr(de->d_name, KT_PIECE_TMP))
			continue;
		snprintf(path, sizeof(path), "%s/" KT_SERIES_PREFIX "%06ld" KT_SERIES_SUFFIX,
			 dir, num);
		/* The chunk has its name: these pieces were in it. */
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

int kt_recover_series(const char *dir, struct kt_recover_result *res,
		      unsigned int *chunks)
{
	long *nums = NULL;
	size_t n = 0, i;
	char part[PATH_MAX], final[PATH_MAX];
	int ret;

	memset(res, 0, sizeof(*res));
	*chunks = 0;
	ret = series_scan(dir, &nums, &n, chunks);
	for (i = 0; !ret && i < n; i++) {
		struct kt_recover_result r;

		snprintf(part, sizeof(part), "%s/." KT_SERIES_PREFIX "%06ld"
			 KT_SERIES_SUFFIX KT_SERIES_PART, dir, nums[i]);
		snprintf(final, sizeof(final), "%s/" KT_SERIES_PREFIX "%06ld"
			 KT_SERIES_SUFFIX, dir, nums[i]);
		/* Only the newest chunk takes what the kernel still held. */
		ret = recover_file(part, &r, i == n - 1);
		if (ret && ret != -ENOSPC) {
			*res = r;
			break;
		}
		if (rename(part, final)) {
			ret = -errno;
			break;
		}
		res->pid = r.pid;
		res->ncpus = r.ncpus;
		res->bytes += r.bytes;
		res->kallsyms_lost |= r.kallsyms_lost;
		res->drained |= r.drained;
		(*chunks)++;
		if (ret)
			break;
	}
	series_leftovers(dir);
	free(nums);
	if (!ret && !*chunks)
		ret = -ENOENT;
	return ret;
}
