// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace reset: put an instance back to a clean state.
 *
 * Everything goes through one directory fd and openat(), and an event's
 * filter or trigger is written only when it is set: a kernel has
 * thousands of events, and rewriting every filter costs an RCU grace
 * period each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/tracefs/tracefs.h"
#include "base/log.h"
#include "live/tracefs/reset.h"

/* Files that restrict the function tracers; emptied when the kernel lets us. */
static const char *const function_files[] = {
	"set_ftrace_filter", "set_ftrace_notrace",
	"set_ftrace_pid", "set_ftrace_notrace_pid",
	"set_graph_function", "set_graph_notrace",
};

#define FTRACE_ENABLED "/proc/sys/kernel/ftrace_enabled"

struct reset_ctx {
	int dfd;		/* the instance directory */
	const char *label;	/* for messages */
	char **refused;
	size_t nrefused;
	int err;		/* first hard failure */
	char err_rel[256];	/* its file: said once, though written twice */
};

void kt_reset_refused_free(char **refused)
{
	char **p;

	for (p = refused; p && *p; p++)
		free(*p);
	free(refused);
}

static void add_refused(struct reset_ctx *c, const char *name)
{
	char **n = realloc(c->refused, (c->nrefused + 2) * sizeof(*n));

	if (!n || !(n[c->nrefused] = strdup(name))) {
		if (n)
			c->refused = n;
		kt_err("cannot note refused file '%s': %s", name, strerror(ENOMEM));
		if (!c->err)
			c->err = -ENOMEM;
		return;
	}
	n[++c->nrefused] = NULL;
	c->refused = n;
}

/*
 * Write val to dfd/rel, opened with O_TRUNC (a value, or emptying a list
 * file) or O_APPEND (one more line, as echo >> does); 0 or -errno.
 */
static int write_at(int dfd, const char *rel, const char *val, int how)
{
	size_t len = strlen(val);
	ssize_t n = 0;
	int fd, ret = 0;

	fd = openat(dfd, rel, O_WRONLY | how | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (len)
		n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* Read at most size-1 bytes of dfd/rel; 0 or -errno. */
static int read_at(int dfd, const char *rel, char *buf, size_t size)
{
	ssize_t n;
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The files a locked-down kernel refuses to everyone, root included. */
static bool lockable(const char *rel)
{
	size_t i;

	for (i = 0; i < sizeof(function_files) / sizeof(function_files[0]); i++)
		if (!strcmp(rel, function_files[i]))
			return true;
	return false;
}

/*
 * One reset step.  A missing file is a feature this kernel lacks, and a
 * refused one is recorded for the caller's single warning; anything else
 * is a real failure.
 */
static void step(struct reset_ctx *c, const char *rel, const char *val)
{
	int ret = write_at(c->dfd, rel, val, O_TRUNC);

	if (!ret || ret == -ENOENT)
		return;
	/* Any other refused file means the reset did not happen: an error. */
	if ((ret == -EPERM || ret == -EACCES) && lockable(rel)) {
		add_refused(c, rel);
		return;
	}
	if (c->err && !strcmp(c->err_rel, rel))
		return;
	kt_err("cannot reset '%s' of instance '%s': %s", rel, c->label,
	       strerror(-ret));
	if (!c->err) {
		c->err = ret;
		snprintf(c->err_rel, sizeof(c->err_rel), "%s", rel);
	}
}

/* "none" for an event, a "### global filter ###" comment for a subsystem. */
static bool has_filter(const char *text)
{
	return *text && *text != '#' && *text != '\n' &&
	       strncmp(text, "none", 4) != 0;
}

/*
 * The command that removes one trigger line as the kernel shows it:
 * "!" + the line without its count (":unlimited", ":5"), its
 * " if FILTER" and a hist trigger's " [active]".  traceon, traceoff,
 * snapshot and stacktrace are matched by name alone, enable_event and
 * disable_event by name and target, hist by its keys and values.
 */
static void trigger_remover(const char *line, size_t len, char *out,
			    size_t size)
{
	const char *end = line + len, *p;
	int colons = 0;

	p = memmem(line, len, " if ", 4);
	if (p)
		end = p;
	p = memmem(line, end - line, " [", 2);
	if (p)
		end = p;
	if (!strncmp(line, "hist", 4)) {
		snprintf(out, size, "!%.*s", (int)(end - line), line);
		return;
	}
	/* Cut at the colon that starts the count. */
	for (p = line; p < end; p++) {
		if (*p != ':')
			continue;
		colons++;
		if ((strncmp(line, "enable_", 7) && strncmp(line, "disable_", 8)) ||
		    colons == 3)
			break;
	}
	snprintf(out, size, "!%.*s", (int)(p - line), line);
}

/*
 * Remove every trigger of a trigger file, one "!cmd" write each (O_TRUNC
 * only removes hist triggers).  Lines starting with '#' are the kernel's
 * help text.
 */
static void clear_triggers(struct reset_ctx *c, const char *rel, char *text)
{
	char cmd[4096];
	char *line = text, *nl;
	int ret;

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (*line == '#' || *line == '\n')
			continue;
		trigger_remover(line, nl ? (size_t)(nl - line) : strlen(line),
				cmd, sizeof(cmd));
		ret = write_at(c->dfd, rel, cmd, O_APPEND);
		if (ret == -EPERM || ret == -EACCES) {
			add_refused(c, rel);
			return;
		}
		if (ret && ret != -ENOENT) {
			kt_err("cannot remove trigger '%s' of '%s' in instance '%s': %s",
			       cmd + 1, rel, c->label, strerror(-ret));
			if (!c->err)
				c->err = ret;
		}
	}
}

/* Clear the triggers, or the filter, of dir/ (an event or a subsystem). */
static void clear_dir(struct reset_ctx *c, const char *dir, bool triggers)
{
	char rel[512], buf[8192];

	if (triggers) {
		snprintf(rel, sizeof(rel), "%s/trigger", dir);
		if (!read_at(c->dfd, rel, buf, sizeof(buf)))
			clear_triggers(c, rel, buf);
		return;
	}
	snprintf(rel, sizeof(rel), "%s/filter", dir);
	if (!read_at(c->dfd, rel, buf, sizeof(buf)) && has_filter(buf))
		step(c, rel, "0");
}

static DIR *opendir_at(int dfd, const char *rel)
{
	int fd = openat(dfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* One pass over events/: every trigger, or every filter. */
static void clear_events(struct reset_ctx *c, bool triggers)
{
	struct dirent *sde, *ede;
	char sys[300], ev[600];
	DIR *sd, *ed;

	sd = opendir_at(c->dfd, "events");
	if (!sd)
		return;
	while ((sde = readdir(sd))) {
		if (sde->d_name[0] == '.' || sde->d_type != DT_DIR)
			continue;
		snprintf(sys, sizeof(sys), "events/%s", sde->d_name);
		clear_dir(c, sys, triggers);
		ed = opendir_at(c->dfd, sys);
		if (!ed)
			continue;
		while ((ede = readdir(ed))) {
			if (ede->d_name[0] == '.' || ede->d_type != DT_DIR)
				continue;
			snprintf(ev, sizeof(ev), "%s/%s", sys, ede->d_name);
			clear_dir(c, ev, triggers);
		}
		closedir(ed);
	}
	closedir(sd);
}

/* ftrace_enabled is global; only written when it is not already on. */
static void reset_ftrace_enabled(struct reset_ctx *c)
{
	char buf[16];
	int ret;

	if (read_at(AT_FDCWD, FTRACE_ENABLED, buf, sizeof(buf)) ||
	    atoi(buf) == 1)
		return;
	ret = write_at(AT_FDCWD, FTRACE_ENABLED, "1", O_TRUNC);
	if (ret == -EPERM || ret == -EACCES) {
		add_refused(c, FTRACE_ENABLED);
	} else if (ret && ret != -ENOENT) {
		kt_err("cannot reset '%s': %s", FTRACE_ENABLED, strerror(-ret));
		if (!c->err)
			c->err = ret;
	}
}

int kt_instance_reset(struct tracefs_instance *inst, char ***refused)
{
	struct reset_ctx c = { .dfd = -1, .label = kt_instance_label(inst) };
	char *dir;
	size_t i;

	*refused = NULL;
	dir = inst ? tracefs_instance_get_dir(inst)
		   : strdup(tracefs_tracing_dir() ? tracefs_tracing_dir() : "");
	if (!dir)
		return -ENOMEM;
	c.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.dfd < 0) {
		c.err = -errno;
		kt_err("cannot open '%s': %s", dir, strerror(-c.err));
		free(dir);
		return c.err;
	}
	free(dir);

	/* Off first, so the buffer we empty below is not refilled meanwhile. */
	step(&c, "tracing_on", "0");
	step(&c, "current_tracer", "nop");
	/*
	 * Triggers first: they can turn tracing off or events on, and an
	 * event a trigger holds in soft mode stays enabled until it goes.
	 */
	clear_events(&c, true);
	step(&c, "events/enable", "0");
	clear_events(&c, false);
	step(&c, "set_event_pid", "");
	step(&c, "set_event_notrace_pid", "");
	for (i = 0; i < sizeof(function_files) / sizeof(function_files[0]); i++)
		step(&c, function_files[i], "");
	if (!inst)
		reset_ftrace_enabled(&c);
	/* Truncating "trace" empties every CPU's buffer. */
	step(&c, "trace", "");
	step(&c, "tracing_on", "1");

	close(c.dfd);
	*refused = c.refused;
	return c.err;
}

/* The command line of pid, arguments joined by spaces, into buf. */
static void read_cmdline(long pid, char *buf, size_t size)
{
	char path[64];
	size_t n = 0, i;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	while (n && !buf[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
}

long kt_instance_owner(const char *name, char *cmdline, size_t size)
{
	char path[64], comm[32] = "";
	const char *p;
	char *end;
	long pid;
	FILE *f;

	if (cmdline && size)
		cmdline[0] = '\0';
	if (!kt_instance_name_is_ours(name))
		return 0;
	p = name + strlen(KT_INSTANCE_PREFIX);
	pid = strtol(p, &end, 10);
	if (end == p || *end || pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	/* A reused pid of some other program does not hold the instance. */
	if (strncmp(comm, "ktrace", 6))
		return 0;
	if (cmdline && size)
		read_cmdline(pid, cmdline, size);
	return pid;
}

bool kt_instance_owner_alive(const char *name)
{
	return kt_instance_owner(name, NULL, 0) > 0;
}

struct remove_ctx {
	char **names;
	size_t n;
	int err;
};

static int collect_ours(const char *name, void *data)
{
	struct remove_ctx *r = data;
	char **n;

	if (!kt_instance_name_is_ours(name))
		return 0;
	n = realloc(r->names, (r->n + 1) * sizeof(*n));
	if (!n || !(n[r->n] = strdup(name))) {
		if (n)
			r->names = n;
		r->err = -ENOMEM;
		return -1;
	}
	r->names = n;
	r->n++;
	return 0;
}

int kt_instances_remove_ours(void (*cb)(const char *name, int err,
					void *ctx),
			     void *ctx)
{
	struct remove_ctx r = { 0 };
	const char *top = tracefs_tracing_dir();
	char path[4096];
	int failed = 0, ret;
	size_t i;

	if (!top)
		return -ENODEV;
	if (tracefs_instances_walk(collect_ours, &r) < 0 && !r.err)
		r.err = errno ? -errno : -EIO;
	if (r.err) {
		failed = r.err;
		goto out;
	}
	for (i = 0; i < r.n; i++) {
		if (kt_instance_owner_alive(r.names[i])) {
			ret = -EBUSY;
		} else {
			/* rmdir itself answers EBUSY while a file is held open. */
			snprintf(path, sizeof(path), "%s/instances/%s", top,
				 r.names[i]);
			ret = rmdir(path) ? -errno : 0;
			if (ret == -ENOENT)	/* went away meanwhile */
				continue;
		}
		if (ret)
			failed++;
		cb(r.names[i], ret, ctx);
	}
out:
	for (i = 0; i < r.n; i++)
		free(r.names[i]);
	free(r.names);
	return failed;
}
