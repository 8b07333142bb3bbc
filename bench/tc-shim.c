// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim so that trace-cmd record runs on a machine where the
 * function-tracer control files (set_ftrace_*, set_graph_*) and
 * /proc/sys/kernel/ftrace_enabled answer EPERM: opening one of them opens
 * /dev/null instead, so trace-cmd's unconditional resets succeed and do
 * nothing.  Every other path goes to the real libc call untouched.
 *
 * Build: cc -O2 -shared -fPIC -o tc-shim.so tc-shim.c -ldl
 * Use:   LD_PRELOAD=./tc-shim.so trace-cmd record ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

static int locked_path(const char *path)
{
	const char *base;

	if (!path)
		return 0;
	if (strstr(path, "/proc/sys/kernel/ftrace_enabled"))
		return 1;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strncmp(base, "set_ftrace_", 11) ||
	       !strncmp(base, "set_graph_", 10);
}

typedef int (*openat_fn)(int, const char *, int, ...);
typedef FILE *(*fopen_fn)(const char *, const char *);

/* Every open flavour ends here; sym names the libc call to forward to. */
static int shim_open(const char *sym, int dirfd, const char *path, int flags,
		     mode_t mode)
{
	void *real = dlsym(RTLD_NEXT, sym);

	if (locked_path(path)) {
		path = "/dev/null";
		flags &= ~(O_CREAT | O_TRUNC | O_EXCL);
	}
	if (dirfd == -1)
		return ((int (*)(const char *, int, ...))real)(path, flags, mode);
	return ((openat_fn)real)(dirfd, path, flags, mode);
}

#define MODE_ARG(flags, mode) do { \
	va_list ap; \
	va_start(ap, flags); \
	mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0; \
	va_end(ap); \
} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return shim_open("open", -1, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return shim_open("open64", -1, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return shim_open("openat", dirfd == -1 ? AT_FDCWD : dirfd, path, flags,
			 mode);
}

static FILE *shim_fopen(const char *sym, const char *path, const char *how)
{
	fopen_fn real = (fopen_fn)dlsym(RTLD_NEXT, sym);

	return real(locked_path(path) ? "/dev/null" : path, how);
}

FILE *fopen(const char *path, const char *how)
{
	return shim_fopen("fopen", path, how);
}

FILE *fopen64(const char *path, const char *how)
{
	return shim_fopen("fopen64", path, how);
}
