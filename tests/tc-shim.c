// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim so that `trace-cmd record` runs on a machine where the
 * function-tracer control files answer EPERM: opens of those paths get
 * /dev/null instead.  The tests use it to make trace.dat oracles
 * (tests/bats/report.bats), the benches to time trace-cmd (bench/).
 *
 *   cc -O2 -shared -fPIC -o tc-shim.so tc-shim.c -ldl
 *   LD_PRELOAD=./tc-shim.so trace-cmd record ...
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

/* The mode argument of an open call, there only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, mode) do {					\
	va_list ap;							\
	va_start(ap, flags);						\
	mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;	\
	va_end(ap);							\
} while (0)

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	mode_t mode;

	MODE_ARG(flags, mode);
	if (!real)
		real = dlsym(RTLD_NEXT, "openat");
	if (blocked(path))
		return real(AT_FDCWD, "/dev/null", flags & ~(O_CREAT | O_TRUNC | O_EXCL));
	return real(dirfd, path, flags, mode);
}

/* open(path) is openat(AT_FDCWD, path): route it there. */
int open(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return openat(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
	__attribute__((alias("open")));

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (!real)
		real = dlsym(RTLD_NEXT, "fopen");
	return real(blocked(path) ? "/dev/null" : path, mode);
}

FILE *fopen64(const char *path, const char *mode)
	__attribute__((alias("fopen")));
