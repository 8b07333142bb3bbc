// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim so that `trace-cmd record` runs on a machine where the
 * function-tracer control files answer EPERM: opens of those paths get
 * /dev/null instead.  Only the tests use it, to make trace.dat oracles.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int blocked(const char *path)
{
	static const char *const names[] = {
		"set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_pid",
		"set_graph_function", "set_graph_notrace", "ftrace_enabled",
		"set_ftrace_notrace_pid", "max_graph_depth",
	};
	const char *base;
	size_t i;

	if (!path)
		return 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(base, names[i]))
			return 1;
	return 0;
}

static mode_t get_mode(int flags, va_list ap)
{
	if (flags & (O_CREAT | O_TMPFILE))
		return va_arg(ap, mode_t);
	return 0;
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = get_mode(flags, ap);
	va_end(ap);
	if (!real)
		real = dlsym(RTLD_NEXT, "open");
	if (blocked(path))
		return real("/dev/null", flags & ~(O_CREAT | O_TRUNC | O_EXCL));
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = get_mode(flags, ap);
	va_end(ap);
	if (!real)
		real = dlsym(RTLD_NEXT, "open64");
	if (blocked(path))
		return real("/dev/null", flags & ~(O_CREAT | O_TRUNC | O_EXCL));
	return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = get_mode(flags, ap);
	va_end(ap);
	if (!real)
		real = dlsym(RTLD_NEXT, "openat");
	if (blocked(path))
		return real(AT_FDCWD, "/dev/null", flags & ~(O_CREAT | O_TRUNC | O_EXCL));
	return real(dirfd, path, flags, mode);
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (!real)
		real = dlsym(RTLD_NEXT, "fopen");
	if (blocked(path))
		return real("/dev/null", mode);
	return real(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (!real)
		real = dlsym(RTLD_NEXT, "fopen64");
	if (blocked(path))
		return real("/dev/null", mode);
	return real(path, mode);
}
