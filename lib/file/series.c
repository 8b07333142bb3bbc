// SPDX-License-Identifier: GPL-2.0
/*
 * A series: the chunks of one recording (record --rotate's directory, or
 * several files) read as one trace (see kt_reader_open_list() in
 * reader.h).  The first chunk is opened as a file is and gives the
 * series its formats and metadata; every other chunk is opened once to
 * check that it belongs and to note where its CPUs' data lie and the
 * times they span, then closed.  Its data is read later, by the chunk
 * readers the series' streams open one at a time (stream.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "file/reader-int.h"
#include "file/spanmemo.h"
#include "file/tracedat.h"

struct names {
	char **v;
	int n;
};

static int names_add(struct names *l, char *s)
{
	char **v;

	if (!s)
		return -ENOMEM;
	v = realloc(l->v, sizeof(*v) * (size_t)(l->n + 1));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	l->v = v;
	l->v[l->n++] = s;
	return 0;
}

static void names_free(struct names *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int cmp_vers(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/*
 * 1: a regular file that starts with the trace.dat magic; 0: a directory,
 * skipped without a word; -1: another file.
 */
static int is_chunk(int dfd, const char *name)
{
	char magic[KT_DAT_MAGIC_LEN];
	struct stat st;
	int fd, ok;

	if (!fstatat(dfd, name, &st, 0) && S_ISDIR(st.st_mode))
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	     !memcmp(magic, KT_DAT_MAGIC, KT_DAT_MAGIC_LEN) ? 1 : -1;
	close(fd);
	return ok;
}

/*
 * dir's chunks in strverscmp() order; hidden files are chunks in progress,
 * and directories are no business of the series: both skipped quietly.
 */
static int list_dir(const char *dir, struct names *out)
{
	struct names l = { 0 };
	const char *slash;
	char *other = NULL;
	int others = 0, ret = 0, i, ok;
	struct dirent *e;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		ret = -errno;
		kt_err("cannot open '%s': %s", dir, strerror(errno));
		return ret;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ok = is_chunk(dirfd(d), e->d_name);
		if (!ok)
			continue;
		if (ok < 0) {
			if (!others++)
				other = strdup(e->d_name);
			continue;
		}
		ret = names_add(&l, strdup(e->d_name));
		if (ret)
			break;
	}
	closedir(d);
	if (!ret && others)
		kt_warn("'%s': skipping %d file%s that %s no trace.dat chunk ('%s'%s)",
			dir, others, others == 1 ? "" : "s",
			others == 1 ? "is" : "are", other ? other : "?",
			others > 1 ? ", ..." : "");
	free(other);
	if (!ret && !l.n) {
		kt_err("no trace.dat chunks in '%s'; give the directory 'ktrace record --rotate' wrote, or a file",
		       dir);
		ret = -ENOENT;
	}
	if (!ret)
		qsort(l.v, (size_t)l.n, sizeof(*l.v), cmp_vers);
	/* DIR/ as the shell completes it names its chunks DIR/x, not DIR//x. */
	slash = *dir && dir[strlen(dir) - 1] == '/' ? "" : "/";
	for (i = 0; !ret && i < l.n; i++) {
		char *p;

		if (asprintf(&p, "%s%s%s", dir, slash, l.v[i]) < 0)
			ret = -ENOMEM;
		else
			ret = names_add(out, p);
	}
	names_free(&l);
	return ret;
}

void kt_series_free(struct kt_series *se)
{
	int k, b;

	if (!se)
		return;
	for (k = 0; k < se->n; k++) {
		struct kt_chunk *c = &se->chunks[k];

		for (b = 0; b < c->nbufs; b++) {
			free(c->bufs[b].name);
			free(c->bufs[b].streams);
		}
		free(c->bufs);
		free(c->path);
	}
	free(se->chunks);
	free(se);
}

int kt_chunk_find(const struct kt_chunk *c, const char *name, int cpu,
		  int *b, int *i)
{
	int x, y;

	for (x = 0; x < c->nbufs; x++) {
		if (strcmp(c->bufs[x].name, name))
			continue;
		for (y = 0; y < c->bufs[x].nstreams; y++) {
			if (c->bufs[x].streams[y].cpu == cpu) {
				*b = x;
				*i = y;
				return 0;
			}
		}
	}
	return -ENOENT;
}

struct kt_reader *kt_chunk_reader_open(const struct kt_reader *se,
				       struct kt_chunk *c)
{
	static const char *const comp_names[] = {
		[COMP_NONE] = "none", [COMP_ZSTD] = "zstd", [COMP_ZLIB] = "zlib",
	};
	struct kt_reader *cr = calloc(1, sizeof(*cr));

	if (!cr)
		return NULL;
	cr->fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (cr->fd < 0) {
		kt_warn("cannot read '%s': %s; its events are left out",
			c->path, strerror(errno));
		free(cr);
		return NULL;
	}
	cr->path = c->path;
	cr->fsize = c->fsize;
	cr->version = c->version;
	cr->big = se->big;
	cr->swap = se->swap;
	cr->long_size = se->long_size;
	cr->page_size = se->page_size;
	cr->comp = c->comp;
	snprintf(cr->comp_name, sizeof(cr->comp_name), "%s", comp_names[c->comp]);
	cr->bufs = c->bufs;
	cr->nbufs = c->nbufs;
	cr->window = se->window;
	return cr;
}

void kt_chunk_reader_close(struct kt_reader *cr)
{
	if (!cr)
		return;
	kt_unpack_free(cr->unpack);
	close(cr->fd);
	free(cr);
}

/* ---- CPUSTATs: a chunk's losses are its own; the series' their sum ---- */

/* The CPU a CPUSTAT text is of: its "CPU:" line, or its place in its buffer. */
static int stat_cpu(const struct kt_reader *r, int i)
{
	int j, n = 0;

	if (!strncmp(r->cpustat[i], "CPU: ", 5))
		return atoi(r->cpustat[i] + 5);
	for (j = 0; j < i; j++)
		if (!strcmp(r->cpustat_buf[j], r->cpustat_buf[i]))
			n++;
	return n;
}

static bool stat_summed(const char *key, size_t n)
{
	static const char *const keys[] = {
		"entries", "overrun", "commit overrun", "bytes",
		"dropped events", "read events", "ktrace unwritten events",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i]) == n && !memcmp(keys[i], key, n))
			return true;
	return false;
}

/* The value of line key (n bytes) in text, or NULL. */
static const char *stat_value(const char *text, const char *key, size_t n)
{
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, n) && l[n] == ':')
			return l + n + 1;
	return NULL;
}

/*
 * a's lines with b added: the counts summed, "now ts" b's (the later),
 * the rest a's.  NULL when out of memory.
 */
static char *stat_sum(const char *a, const char *b)
{
	char *out = NULL;
	size_t len = 0;
	const char *l, *v;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (l = a; *l; ) {
		size_t ln = strcspn(l, "\n"), kn = strcspn(l, ":\n");

		if (kn < ln && stat_summed(l, kn) && (v = stat_value(b, l, kn)))
			fprintf(f, "%.*s: %llu\n", (int)kn, l,
				strtoull(l + kn + 1, NULL, 10) + strtoull(v, NULL, 10));
		else if (kn < ln && kn == 6 && !memcmp(l, "now ts", 6) &&
			 (v = stat_value(b, l, kn)))
			fprintf(f, "now ts:%.*s\n", (int)strcspn(v, "\n"), v);
		else
			fprintf(f, "%.*s\n", (int)ln, l);
		l += ln;
		if (*l)
			l++;
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static int stat_append(struct kt_reader *r, const char *buf, const char *text)
{
	char **v, **vb;

	v = realloc(r->cpustat, sizeof(*v) * (size_t)(r->ncpustat + 1));
	if (!v)
		return -ENOMEM;
	r->cpustat = v;
	vb = realloc(r->cpustat_buf, sizeof(*vb) * (size_t)(r->ncpustat + 1));
	if (!vb)
		return -ENOMEM;
	r->cpustat_buf = vb;
	v[r->ncpustat] = strdup(text);
	vb[r->ncpustat] = strdup(buf);
	if (!v[r->ncpustat] || !vb[r->ncpustat]) {
		free(v[r->ncpustat]);
		free(vb[r->ncpustat]);
		return -ENOMEM;
	}
	r->ncpustat++;
	return 0;
}

/* Add chunk ck's CPUSTATs to the series' (r's), and note its losses in c. */
static int stat_merge(struct kt_reader *r, const struct kt_reader *ck,
		      struct kt_chunk *c, bool first)
{
	const char *v;
	int i, j, cpu;

	for (i = 0; i < ck->ncpustat; i++) {
		c->has_stat = true;
		if ((v = stat_value(ck->cpustat[i], "overrun", 7)))
			c->st_lost += strtoull(v, NULL, 10);
		if ((v = stat_value(ck->cpustat[i], "dropped events", 14)))
			c->st_lost += strtoull(v, NULL, 10);
		if (first)
			continue;
		cpu = stat_cpu(ck, i);
		for (j = 0; j < r->ncpustat; j++)
			if (!strcmp(r->cpustat_buf[j], ck->cpustat_buf[i]) &&
			    stat_cpu(r, j) == cpu)
				break;
		if (j == r->ncpustat) {
			if (stat_append(r, ck->cpustat_buf[i], ck->cpustat[i]))
				return -ENOMEM;
			continue;
		}
		v = stat_sum(r->cpustat[j], ck->cpustat[i]);
		if (!v)
			return -ENOMEM;
		free(r->cpustat[j]);
		r->cpustat[j] = (char *)v;
	}
	return 0;
}

/* ---- whether a chunk belongs with the first ---- */

static bool same_events(struct tep_handle *a, struct tep_handle *b)
{
	int i, n = tep_get_events_count(b);

	if (n != tep_get_events_count(a))
		return false;
	for (i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(b, i), *f;

		f = e ? tep_find_event(a, e->id) : NULL;
		if (!f || strcmp(f->name, e->name) || strcmp(f->system, e->system))
			return false;
	}
	return true;
}

static const char *clock_name(const struct kt_reader *r)
{
	return r->clock && *r->clock ? r->clock : "unknown";
}

/* Why ck is no chunk of r's recording, in why; false when it is one. */
static bool mismatch(const struct kt_reader *r, const struct kt_reader *ck,
		     char *why, size_t n)
{
	if (ck->latency)
		snprintf(why, n, "it is a latency trace (the tracer's text), not a recording's chunk");
	else if (ck->cpus != r->cpus)
		snprintf(why, n, "it has %d CPUs, the first chunk %d", ck->cpus, r->cpus);
	else if (ck->big != r->big || ck->long_size != r->long_size)
		snprintf(why, n, "it is %s-endian with %d-byte longs, the first chunk %s-endian with %d",
			 ck->big ? "big" : "little", ck->long_size,
			 r->big ? "big" : "little", r->long_size);
	else if (ck->page_size != r->page_size)
		snprintf(why, n, "its pages are %u bytes, the first chunk's %u",
			 ck->page_size, r->page_size);
	else if (strcmp(clock_name(ck), clock_name(r)))
		snprintf(why, n, "its trace clock is %s, the first chunk's %s",
			 clock_name(ck), clock_name(r));
	else if (ck->ts_offset != r->ts_offset || ck->tsc_mult != r->tsc_mult ||
		 ck->tsc_shift != r->tsc_shift)
		snprintf(why, n, "its clock's offset or multiplier differs from the first chunk's");
	else if (!same_events(kt_reader_tep(r), kt_reader_tep(ck)))
		snprintf(why, n, "its event formats differ from the first chunk's");
	else
		return false;
	return true;
}

/* ---- the series ---- */

/* Note chunk c of ck: its spans, path, compression; ck's buffers move to c. */
static void chunk_take(struct kt_chunk *c, struct kt_reader *ck)
{
	struct stat st;
	bool known = !fstat(ck->fd, &st) && S_ISREG(st.st_mode);
	int b, i;

	c->first = 1;
	c->last = 0;
	for (b = 0; b < ck->nbufs; b++) {
		for (i = 0; i < ck->bufs[b].nstreams; i++) {
			struct cpu_data *d = &ck->bufs[b].streams[i];

			d->first = 1;
			d->last = 0;
			/* A ring's snapshots open the same chunks again. */
			if (d->size && (!known ||
			    !kt_spanmemo_get(&st, d->off, d->size, &d->first, &d->last))) {
				kt_stream_span(ck, b, i, &d->first, &d->last);
				if (known)
					kt_spanmemo_put(&st, d->off, d->size,
							d->first, d->last);
			}
			if (d->first > d->last)
				continue;
			if (c->first > c->last) {
				c->first = d->first;
				c->last = d->last;
			}
			if (d->first < c->first)
				c->first = d->first;
			if (d->last > c->last)
				c->last = d->last;
		}
	}
	c->path = ck->path;
	ck->path = NULL;
	c->version = ck->version;
	c->comp = ck->comp;
	c->fsize = ck->fsize;
	c->bufs = ck->bufs;
	c->nbufs = ck->nbufs;
	ck->bufs = NULL;
	ck->nbufs = 0;
}

/*
 * Chunks named one by one, in time order: by a CPU both hold, whose
 * times run on from one chunk to the next.  Not by a chunk's first time:
 * a quiet CPU's page is written when it fills, chunks later, so a chunk
 * may start before the ones ahead of it.  Chunks that share no CPU go by
 * their last time.
 */
static int cmp_chunks(const void *a, const void *b)
{
	const struct kt_chunk *x = a, *y = b;
	uint64_t lx = x->first > x->last ? UINT64_MAX : x->last;
	uint64_t ly = y->first > y->last ? UINT64_MAX : y->last;
	int k, i, pb, pi;

	for (k = 0; k < x->nbufs; k++) {
		for (i = 0; i < x->bufs[k].nstreams; i++) {
			const struct cpu_data *d = &x->bufs[k].streams[i], *p;

			if (d->first > d->last ||
			    kt_chunk_find(y, x->bufs[k].name, d->cpu, &pb, &pi))
				continue;
			p = &y->bufs[pb].streams[pi];
			if (p->first > p->last)
				continue;
			if (d->last <= p->first && d->first < p->last)
				return -1;
			if (p->last <= d->first && p->first < d->last)
				return 1;
		}
	}
	return (lx > ly) - (lx < ly);
}

/* Each CPU's times follow on from the last chunk's: -EINVAL and one line if not. */
static int check_order(const struct kt_reader *r, const struct kt_series *se)
{
	int k, j, b, i, pb, pi;

	for (k = 1; k < se->n; k++) {
		const struct kt_chunk *c = &se->chunks[k];

		for (b = 0; b < c->nbufs; b++) {
			for (i = 0; i < c->bufs[b].nstreams; i++) {
				const struct cpu_data *d = &c->bufs[b].streams[i], *p;
				unsigned long long at, end;

				if (d->first > d->last)
					continue;
				for (j = k - 1; j >= 0; j--) {
					if (kt_chunk_find(&se->chunks[j], c->bufs[b].name,
							  d->cpu, &pb, &pi))
						continue;
					p = &se->chunks[j].bufs[pb].streams[pi];
					if (p->first <= p->last)
						break;
				}
				if (j < 0 || d->first >= p->last)
					continue;
				at = kt_reader_ts(r, d->first);
				end = kt_reader_ts(r, p->last);
				kt_err("'%s' is not the next chunk after '%s': its CPU %d%s%s%s starts at %llu.%06llu, before that chunk's ends at %llu.%06llu; give the chunks of one recording",
				       c->path, se->chunks[j].path, d->cpu,
				       *c->bufs[b].name ? " (buffer '" : "",
				       c->bufs[b].name, *c->bufs[b].name ? "')" : "",
				       at / 1000000000, at % 1000000000 / 1000,
				       end / 1000000000, end % 1000000000 / 1000);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int union_add(struct buffer **bufs, int *nbufs, const struct buffer *cb)
{
	struct buffer *u = NULL;
	struct cpu_data *s;
	int b, i, j;

	for (b = 0; b < *nbufs; b++)
		if (!strcmp((*bufs)[b].name, cb->name))
			u = &(*bufs)[b];
	if (!u) {
		u = realloc(*bufs, sizeof(*u) * (size_t)(*nbufs + 1));
		if (!u)
			return -ENOMEM;
		*bufs = u;
		u = &u[(*nbufs)++];
		memset(u, 0, sizeof(*u));
		u->name = strdup(cb->name);
		if (!u->name)
			return -ENOMEM;
	}
	u->compressed = u->compressed || cb->compressed;
	for (i = 0; i < cb->nstreams; i++) {
		for (j = 0; j < u->nstreams; j++)
			if (u->streams[j].cpu == cb->streams[i].cpu)
				break;
		if (j == u->nstreams) {
			s = realloc(u->streams, sizeof(*s) * (size_t)(j + 1));
			if (!s)
				return -ENOMEM;
			u->streams = s;
			memset(&s[j], 0, sizeof(s[j]));
			s[j].cpu = cb->streams[i].cpu;
			s[j].first = 1;
			u->nstreams++;
		}
		u->streams[j].size += cb->streams[i].size;
	}
	return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct cpu_data *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* r's buffers: each chunk's, their CPUs together, their sizes summed. */
static int make_union(struct kt_reader *r, const struct kt_series *se)
{
	int k, b;

	for (k = 0; k < se->n; k++)
		for (b = 0; b < se->chunks[k].nbufs; b++)
			if (union_add(&r->bufs, &r->nbufs, &se->chunks[k].bufs[b]))
				return -ENOMEM;
	for (b = 0; b < r->nbufs; b++)
		qsort(r->bufs[b].streams, (size_t)r->bufs[b].nstreams,
		      sizeof(*r->bufs[b].streams), cmp_cpu);
	return 0;
}

/* A chunk named twice (-i x -i x, or -i DIR -i DIR/x): one line, -EINVAL. */
struct fileid {
	dev_t dev;
	ino_t ino;
	int i;
};

static int cmp_fileid(const void *a, const void *b)
{
	const struct fileid *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int check_twice(const struct names *l)
{
	struct fileid *ids = calloc((size_t)l->n, sizeof(*ids));
	struct stat st;
	int i, n = 0, ret = 0;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		if (stat(l->v[i], &st))
			continue;	/* said when it is opened */
		ids[n++] = (struct fileid){ st.st_dev, st.st_ino, i };
	}
	qsort(ids, (size_t)n, sizeof(*ids), cmp_fileid);
	for (i = 1; i < n; i++) {
		if (ids[i].dev != ids[i - 1].dev || ids[i].ino != ids[i - 1].ino)
			continue;
		if (!strcmp(l->v[ids[i - 1].i], l->v[ids[i].i]))
			kt_err("'%s' is named twice (a directory's chunks are all of it); give each chunk once",
			       l->v[ids[i].i]);
		else
			kt_err("'%s' and '%s' are the same chunk; give each chunk once",
			       l->v[ids[i - 1].i], l->v[ids[i].i]);
		ret = -EINVAL;
		break;
	}
	free(ids);
	return ret;
}

static int gather(const char *const *paths, int n, struct names *l)
{
	struct stat st;
	int i, ret;

	for (i = 0; i < n; i++) {
		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode))
			ret = list_dir(paths[i], l);
		else
			ret = names_add(l, strdup(paths[i]));
		if (ret)
			return ret;
	}
	/* A directory's names are its own, once each. */
	return n > 1 ? check_twice(l) : 0;
}

static struct kt_reader *open_list(const char *const *paths, int n, bool index)
{
	struct kt_reader *r = NULL, *ck;
	struct kt_series *se;
	struct names l = { 0 };
	bool damaged = false;
	char why[256];
	struct stat st;
	int k, ret;

	if (n == 1 && (stat(paths[0], &st) || !S_ISDIR(st.st_mode)))
		return index ? kt_reader_open_index(paths[0]) : kt_reader_open(paths[0]);
	se = calloc(1, sizeof(*se));
	if (!se)
		return NULL;
	ret = gather(paths, n, &l);
	if (ret)
		goto err;
	se->chunks = calloc((size_t)l.n, sizeof(*se->chunks));
	if (!se->chunks) {
		ret = -ENOMEM;
		goto err;
	}
	for (k = 0; k < l.n; k++) {
		/* The first chunk is the series' reader; the others, its index. */
		ck = k || index ? kt_reader_open_index(l.v[k]) : kt_reader_open(l.v[k]);
		if (!ck) {
			ret = errno ? -errno : -EIO;
			goto err;
		}
		if (r ? mismatch(r, ck, why, sizeof(why)) :
		    ck->latency && snprintf(why, sizeof(why), "it is a latency trace (the tracer's text), not a recording's chunk")) {
			kt_err("'%s' is not a chunk of the recording of '%s': %s",
			       l.v[k], l.v[0], why);
			if (ck != r)
				kt_reader_close(ck);
			ret = -EINVAL;
			goto err;
		}
		damaged |= ck->damaged;
		ret = stat_merge(r ? r : ck, ck, &se->chunks[k], !r);
		chunk_take(&se->chunks[k], ck);
		se->n++;
		if (!r)
			r = ck;
		else
			kt_reader_close(ck);
		if (ret)
			goto err;
	}
	/* Files named one by one go in time order; a directory's in name order. */
	if (n > 1)
		qsort(se->chunks, (size_t)se->n, sizeof(*se->chunks), cmp_chunks);
	ret = check_order(r, se);
	if (ret)
		goto err;
	ret = make_union(r, se);
	if (ret)
		goto err;
	free(r->path);
	r->path = strdup(paths[0]);
	if (!r->path) {
		ret = -ENOMEM;
		goto err;
	}
	r->series = se;
	r->damaged = damaged;
	kt_reader_set_window(r);
	names_free(&l);
	return r;
err:
	if (ret == -ENOMEM)
		kt_err("cannot read '%s': out of memory", paths[0]);
	if (r)
		r->path = r->path ? r->path : strdup(paths[0]);
	kt_reader_close(r);
	kt_series_free(se);
	names_free(&l);
	errno = -ret;
	return NULL;
}

const char *kt_reader_head_path(const struct kt_reader *r)
{
	return r->series ? r->series->chunks[0].path : r->path;
}

int kt_reader_chunks(const struct kt_reader *r)
{
	return r->series ? r->series->n : 0;
}

int kt_reader_chunk(const struct kt_reader *r, int k, struct kt_reader_chunk *c)
{
	static const char *const comp_names[] = {
		[COMP_NONE] = "none", [COMP_ZSTD] = "zstd", [COMP_ZLIB] = "zlib",
	};
	const struct kt_chunk *ch;

	if (!r->series || k < 0 || k >= r->series->n)
		return -EINVAL;
	ch = &r->series->chunks[k];
	memset(c, 0, sizeof(*c));
	c->path = ch->path;
	c->version = ch->version;
	c->compression = ch->version >= 7 ? comp_names[ch->comp] : "none";
	c->has_span = ch->first <= ch->last;
	if (c->has_span) {
		c->first = kt_reader_ts(r, ch->first);
		c->last = kt_reader_ts(r, ch->last);
	}
	c->has_stat = ch->has_stat;
	c->lost = ch->st_lost;
	return 0;
}

struct kt_reader *kt_reader_open_list(const char *const *paths, int n)
{
	return open_list(paths, n, false);
}

struct kt_reader *kt_reader_open_list_index(const char *const *paths, int n)
{
	return open_list(paths, n, true);
}

int kt_reader_chunk_cpu(struct kt_reader *r, int k, int cpu,
			struct kt_reader_chunk_cpu *c)
{
	const struct buffer *b;
	bool one = !r->series && !k;
	int i;

	if (!one && (!r->series || k < 0 || k >= r->series->n))
		return -ENOENT;
	b = one ? r->bufs : r->series->chunks[k].bufs;
	if (!b || (one ? r->nbufs : r->series->chunks[k].nbufs) < 1)
		return -ENOENT;
	for (i = 0; i < b->nstreams; i++) {
		const struct cpu_data *d = &b->streams[i];

		if (d->cpu != cpu || !d->size)
			continue;
		c->off = d->off;
		c->size = d->size;
		c->packed = b->compressed;
		c->first = d->first;
		c->last = d->last;
		/* A file alone: its span is read now. */
		if (one)
			kt_stream_span(r, 0, i, &c->first, &c->last);
		return 0;
	}
	return -ENOENT;
}

int kt_reader_chunk_events(struct kt_reader *r, int k,
			   unsigned long long *events, unsigned long long *lost,
			   bool *unknown)
{
	struct kt_reader *cr;
	struct kt_stream *s;
	int b, i, ret = 0;

	*events = 0;
	*lost = 0;
	*unknown = false;
	if (!r->series || k < 0 || k >= r->series->n)
		return -EINVAL;
	cr = kt_chunk_reader_open(r, &r->series->chunks[k]);
	if (!cr) {
		r->damaged = true;
		return -EBADMSG;
	}
	/* Its damage is the decoder's to report, when it reads the series. */
	cr->quiet = true;
	for (b = 0; b < cr->nbufs && !ret; b++) {
		for (i = 0; i < cr->bufs[b].nstreams; i++) {
			uint64_t last, nev, off;
			long long missed;
			void *page;

			s = kt_stream_open(cr, b, i);
			if (!s) {
				ret = -ENOMEM;
				break;
			}
			while ((ret = kt_stream_next_page(s, &page, &off)) == 1) {
				kt_page_scan(cr, page, &last, &nev, &missed);
				*events += nev;
				if (missed > 0)
					*lost += (unsigned long long)missed;
				else if (missed < 0)
					*unknown = true;
			}
			kt_stream_close(s);
			if (ret == -EBADMSG)
				ret = 0;
			if (ret)
				break;
		}
	}
	if (cr->damaged)
		r->damaged = true;
	kt_chunk_reader_close(cr);
	return ret;
}
