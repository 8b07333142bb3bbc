// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs control shared by every live command.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "live/tracefs/tracefs.h"

int kt_tracefs_open(const char **dir)
{
	const char *path = NULL;
	char probe[4096];

	/*
	 * tracefs_tracing_dir() mounts tracefs when it is not mounted and
	 * caches the answer; tracefs_tracing_dir_is_mounted() would leak a
	 * copy of the path on every call (libtracefs 1.6).
	 */
	path = tracefs_tracing_dir();
	if (!path)
		return geteuid() ? -EACCES : -ENODEV;
	snprintf(probe, sizeof(probe), "%s/tracing_on", path);
	if (access(probe, W_OK) != 0)
		return errno == ENOENT ? -ENODEV : -EACCES;
	if (dir)
		*dir = path;
	return 0;
}

bool kt_instance_name_is_ours(const char *name)
{
	return name && !strncmp(name, KT_INSTANCE_PREFIX,
				strlen(KT_INSTANCE_PREFIX));
}

const char *kt_instance_label(struct tracefs_instance *inst)
{
	const char *name = inst ? tracefs_instance_get_name(inst) : NULL;

	return name ? name : "top";
}

int kt_instance_open(const char *name, bool create,
		     struct tracefs_instance **out, bool *created)
{
	struct tracefs_instance *inst;
	bool exists;

	if (created)
		*created = false;
	*out = NULL;
	if (!name || !*name)
		return 0;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	exists = tracefs_instance_exists(name);
	if (!exists && !create)
		return -ENOENT;
	inst = tracefs_instance_create(name);
	if (!inst)
		return errno ? -errno : -ENOMEM;
	if (created)
		*created = !exists;
	*out = inst;
	return 0;
}

void kt_instance_close(struct tracefs_instance *inst)
{
	if (inst)
		tracefs_instance_free(inst);
}

int kt_instance_remove(struct tracefs_instance *inst)
{
	int ret = 0;

	if (!inst)
		return 0;
	if (tracefs_instance_destroy(inst) < 0)
		ret = errno ? -errno : -EIO;
	tracefs_instance_free(inst);
	return ret;
}

int kt_cpu_count(void)
{
	char path[4096];
	const char *dir = tracefs_tracing_dir();
	int n = 0;

	if (!dir)
		return -ENODEV;
	for (;;) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", dir, n);
		if (access(path, F_OK) != 0)
			break;
		n++;
	}
	return n ? n : -ENODEV;
}

/*
 * The lines of per_cpu/cpuN/stats ktrace reads ("KEY: VALUE", as the
 * kernel's ring buffer writes them) and the field of struct kt_cpu_stats
 * each fills: one table for the parse and for a recording's CPUSTAT
 * text, so that a key is spelled once.  summed: a count every source of
 * a recording adds to (ktrace.ko's records and losses join the
 * instance's); bytes and the timestamps are the instance's alone.
 */
static const struct stat_key {
	const char *key;		/* without its ": " */
	size_t off;			/* of the field */
	bool ts;			/* a double, else an unsigned long long */
	bool summed;
} stat_keys[] = {
#define OFF(field) offsetof(struct kt_cpu_stats, field)
	/* key, field, ts, summed */
	{ "entries", OFF(entries), false, true },
	{ "overrun", OFF(overrun), false, true },
	{ "commit overrun", OFF(commit_overrun), false, true },
	{ "bytes", OFF(bytes), false, false },
	{ "oldest event ts", OFF(oldest_ts), true, false },
	{ "now ts", OFF(now_ts), true, false },
	{ "dropped events", OFF(dropped), false, true },
	{ "read events", OFF(read), false, true },
#undef OFF
};

/* The table's entry of the line at line (up to its '\n'), *value after its colon. */
static const struct stat_key *stat_key_of(const char *line, const char **value)
{
	size_t klen = strcspn(line, ":\n"), i;

	if (line[klen] != ':')
		return NULL;
	for (i = 0; i < sizeof(stat_keys) / sizeof(stat_keys[0]); i++)
		if (strlen(stat_keys[i].key) == klen && !strncmp(line, stat_keys[i].key, klen)) {
			*value = line + klen + 1;
			return &stat_keys[i];
		}
	return NULL;
}

int kt_cpu_stats_parse(const char *text, struct kt_cpu_stats *st)
{
	const struct stat_key *k;
	const char *line, *nl, *value;
	char *field;

	memset(st, 0, sizeof(*st));
	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		k = stat_key_of(line, &value);
		if (!k)
			continue;
		field = (char *)st + k->off;
		if (k->ts)
			*(double *)field = strtod(value, NULL);
		else
			*(unsigned long long *)field = strtoull(value, NULL, 10);
	}
	return 0;
}

const char *kt_cpu_stats_summed(const char *line, const struct kt_cpu_stats *st,
				unsigned long long *val)
{
	const char *value;
	const struct stat_key *k = stat_key_of(line, &value);

	if (!k || !k->summed || *value != ' ')
		return NULL;
	*val = *(const unsigned long long *)((const char *)st + k->off);
	return k->key;
}

int kt_cpu_stats_read(struct tracefs_instance *inst, int cpu,
		      struct kt_cpu_stats *st)
{
	char file[64];
	char *text;
	int ret;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = kt_tracefs_read(inst, file);
	if (!text)
		return -errno;
	ret = kt_cpu_stats_parse(text, st);
	free(text);
	return ret;
}

static int write_how(struct tracefs_instance *inst, const char *file,
		     const char *val, int how)
{
	char *path = tracefs_instance_get_file(inst, file);
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = 0;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | how | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_path;
	}
	n = len ? write(fd, val, len) : 0;
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
out_path:
	tracefs_put_tracing_file(path);
	return ret;
}

int kt_tracefs_write(struct tracefs_instance *inst, const char *file,
		     const char *val)
{
	/* O_TRUNC is what clears list files such as set_event_pid. */
	return write_how(inst, file, val, O_TRUNC);
}

int kt_tracefs_append(struct tracefs_instance *inst, const char *file,
		      const char *val)
{
	return write_how(inst, file, val, O_APPEND);
}

char *kt_tracefs_read(struct tracefs_instance *inst, const char *file)
{
	char *text;
	int size = 0;

	errno = 0;
	text = tracefs_instance_file_read(inst, file, &size);
	if (!text && !errno)
		errno = ENOENT;
	return text;
}

static char *event_file(const char *system, const char *event,
			const char *file)
{
	char *rel;

	if (asprintf(&rel, "events/%s/%s/%s", system, event, file) < 0)
		return NULL;
	return rel;
}

int kt_event_set_enable(struct tracefs_instance *inst, const char *system,
			const char *event, bool on)
{
	char *rel = event_file(system, event, "enable");
	int ret;

	if (!rel)
		return -ENOMEM;
	ret = kt_tracefs_write(inst, rel, on ? "1" : "0");
	free(rel);
	return ret;
}

int kt_event_set_filter(struct tracefs_instance *inst, const char *system,
			const char *event, const char *filter, char **why)
{
	char *rel = event_file(system, event, "filter");
	int ret;

	if (why)
		*why = NULL;
	if (!rel)
		return -ENOMEM;
	/* "0" is how the kernel spells "no filter". */
	ret = kt_tracefs_write(inst, rel, filter && *filter ? filter : "0");
	free(rel);
	if (ret == -EINVAL && why)
		*why = tracefs_error_last(inst);
	return ret;
}

int kt_instance_lookup(const char *name, struct tracefs_instance **out)
{
	*out = NULL;
	if (!name || !*name)
		return 0;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (!tracefs_instance_exists(name))
		return -ENOENT;
	/* alloc, not create: a vanished instance must not be recreated. */
	*out = tracefs_instance_alloc(NULL, name);
	return *out ? 0 : (errno ? -errno : -ENOMEM);
}

int kt_instance_explain(const char *name, int err)
{
	const char *dir = tracefs_tracing_dir();

	switch (err) {
	case 0:
		break;
	case -ENOENT:
		kt_err("no instance '%s'; see 'ls %s/instances'", name,
		       dir ? dir : "/sys/kernel/tracing");
		break;
	case -EINVAL:
		kt_err("bad instance name '%s'; a name is not empty and has no '/'", name);
		break;
	default:
		kt_err("cannot open instance '%s': %s", name, strerror(-err));
	}
	return err;
}
