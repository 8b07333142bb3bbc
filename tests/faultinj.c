// SPDX-License-Identifier: GPL-2.0
/*
 * A fault injector for the tests, loaded with LD_PRELOAD: it makes chosen
 * system calls fail the way a kernel or a file system would, since root
 * ignores file modes and cannot be refused a tracefs file otherwise.
 *
 *   KT_FAULT_OPEN='PATTERN:ERRNO;...'   open/openat of a matching path
 *   KT_FAULT_WRITE='PATTERN:ERRNO;...'  write, pwrite or copy_file_range to a file opened
 *                                       at such a path
 *   KT_FAULT_FULL='PATTERN:BYTES;...'   the same to such a file past BYTES of it:
 *                                       ENOSPC, as a disk with room for BYTES
 *   KT_FAULT_MOUNT='PATTERN:ERRNO;...'  mount on a matching target
 *   KT_FAULT_PREAD='PATTERN:ERRNO;...'  pread of a file opened at such a path,
 *                                       of at least KT_FAULT_PREAD_MIN bytes
 *   KT_FAULT_RENAME='PATTERN:ERRNO;...' rename of a matching path (the old name)
 *   KT_FAULT_FALLOCATE='PATTERN:ERRNO;...'  fallocate on a file opened at such a
 *                                       path; KT_FAULT_FULL's rules refuse one
 *                                       past BYTES with ENOSPC too
 *   KT_FAULT_SLOW_OPEN='PATTERN:MS;...' open/openat of a matching path waits
 *                                       MS milliseconds first, then opens
 *   KT_FAULT_LOG=FILE                   append one line per injected fault
 *
 * PATTERN is an fnmatch(3) glob over the absolute path ('*' crosses '/'),
 * ERRNO a name (EPERM, EACCES, ENOSPC, EIO, EROFS, ENODEV ...) or a
 * number.  Relative paths and openat() are resolved through the working
 * directory and /proc/self/fd, so a glob matches however the file is named.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EPERM", EPERM }, { "EACCES", EACCES }, { "ENOENT", ENOENT },
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EROFS", EROFS },
	{ "ENODEV", ENODEV }, { "EBUSY", EBUSY }, { "EINVAL", EINVAL },
	{ "ENOMEM", ENOMEM }, { "EEXIST", EEXIST }, { "EFBIG", EFBIG },
	{ "EDQUOT", EDQUOT }, { "EAGAIN", EAGAIN }, { "EOPNOTSUPP", EOPNOTSUPP },
};

static int errno_of(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(s, errnos[i].name))
			return errnos[i].err;
	return atoi(s) > 0 ? atoi(s) : EIO;
}

static void note(const char *what, const char *path, int err)
{
	const char *log = getenv("KT_FAULT_LOG");
	char line[PATH_MAX + 64];
	int fd, n;

	if (!log)
		return;
	n = snprintf(line, sizeof(line), "%s %s %d\n", what, path, err);
	fd = syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (syscall(SYS_write, fd, line, n) < 0)
		n = 0;
	close(fd);
}

/* What the first rule in env matching path says (into val), or 0. */
static int rule_text(const char *env, const char *path, char *val, size_t len)
{
	const char *rules = getenv(env);
	char buf[4096], *rule, *save = NULL, *colon;

	if (!rules || !*rules || !path)
		return 0;
	snprintf(buf, sizeof(buf), "%s", rules);
	for (rule = strtok_r(buf, ";", &save); rule; rule = strtok_r(NULL, ";", &save)) {
		colon = strrchr(rule, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (fnmatch(rule, path, 0) == 0) {
			snprintf(val, len, "%s", colon + 1);
			return 1;
		}
	}
	return 0;
}

/* The errno the rules in env give path, or 0. */
static int rule_for(const char *env, const char *path)
{
	char val[64];

	return rule_text(env, path, val, sizeof(val)) ? errno_of(val) : 0;
}

/* dirfd/path as an absolute path (best effort: not normalised). */
static void absolute(int dirfd, const char *path, char *out, size_t len)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	if (path[0] == '/') {
		snprintf(out, len, "%s", path);
		return;
	}
	if (dirfd == AT_FDCWD) {
		if (!getcwd(dir, sizeof(dir)))
			dir[0] = '\0';
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		n = readlink(link, dir, sizeof(dir) - 1);
		dir[n > 0 ? n : 0] = '\0';
	}
	snprintf(out, len, "%s/%s", dir, path);
}

/* The path fd was opened at, into path: false when /proc does not say. */
static int fd_path(int fd, char *path, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, len - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return 1;
}

/* Zero, or the errno (set) an open of dirfd/path must fail with. */
static int open_fault(int dirfd, const char *path)
{
	char abs[PATH_MAX];
	int err;

	if ((!getenv("KT_FAULT_OPEN") && !getenv("KT_FAULT_SLOW_OPEN")) || !path)
		return 0;
	absolute(dirfd, path, abs, sizeof(abs));
	err = rule_for("KT_FAULT_SLOW_OPEN", abs);
	if (err) {
		note("slow open", abs, err);
		usleep((useconds_t)err * 1000);
	}
	err = rule_for("KT_FAULT_OPEN", abs);
	if (err)
		note("open", abs, err);
	return err;
}

static int mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;
}

#define NEXT(name) \
	static __typeof__(name) *next_##name; \
	if (!next_##name) \
		next_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* open(path, flags[, mode]) and openat(dirfd, path, flags[, mode]). */
#define WRAP_OPEN(name) \
int name(const char *path, int flags, ...) \
{ \
	va_list ap; \
	int mode, err; \
	NEXT(name); \
	va_start(ap, flags); \
	mode = mode_arg(flags, ap); \
	va_end(ap); \
	err = open_fault(AT_FDCWD, path); \
	if (err) { \
		errno = err; \
		return -1; \
	} \
	return next_##name(path, flags, mode); \
}

#define WRAP_OPENAT(name) \
int name(int dirfd, const char *path, int flags, ...) \
{ \
	va_list ap; \
	int mode, err; \
	NEXT(name); \
	va_start(ap, flags); \
	mode = mode_arg(flags, ap); \
	va_end(ap); \
	err = open_fault(dirfd, path); \
	if (err) { \
		errno = err; \
		return -1; \
	} \
	return next_##name(dirfd, path, flags, mode); \
}

WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

/*
 * KT_FAULT_FULL: a write at or past BYTES of the file fails with
 * ENOSPC, one across it is cut short there, as a disk that had room for
 * BYTES of it would.  at: the pwrite's offset, or -1 for the file's.
 */
static ssize_t full_write(int fd, const char *path, size_t *len, off_t at)
{
	char val[64];
	off_t limit;

	if (!rule_text("KT_FAULT_FULL", path, val, sizeof(val)))
		return 0;
	limit = (off_t)strtoull(val, NULL, 0);
	if (at < 0)
		at = lseek(fd, 0, SEEK_CUR);
	if (at < 0)
		return 0;
	if (at >= limit) {
		note("write", path, ENOSPC);
		return -ENOSPC;
	}
	if (at + (off_t)*len > limit)
		*len = (size_t)(limit - at);
	return 0;
}

/* Zero, or the errno a write of *len bytes at at (-1: the file's offset) must fail with; *len cut to the room. */
static int write_fault(int fd, size_t *len, off_t at)
{
	char path[PATH_MAX];
	ssize_t full;
	int err;

	if ((!getenv("KT_FAULT_WRITE") && !getenv("KT_FAULT_FULL")) ||
	    !fd_path(fd, path, sizeof(path)))
		return 0;
	err = rule_for("KT_FAULT_WRITE", path);
	if (err) {
		note("write", path, err);
		return err;
	}
	full = full_write(fd, path, len, at);
	return full < 0 ? (int)-full : 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	int err = write_fault(fd, &len, -1);
	NEXT(write);

	if (err) {
		errno = err;
		return -1;
	}
	return next_write(fd, buf, len);
}

/*
 * pread/pwrite(fd, buf, len, off) and their 64-bit names: fail with the
 * errno fault (an expression of fd, len and off) gives, else go on.
 */
#define WRAP_AT(name, buf_t, fault) \
ssize_t name(int fd, buf_t buf, size_t len, off_t off) \
{ \
	int err = (fault); \
	NEXT(name); \
	if (err) { \
		errno = err; \
		return -1; \
	} \
	return next_##name(fd, buf, len, off); \
}

/* pwrite's and pwrite64's: write's rules at the offset they write. */
WRAP_AT(pwrite, const void *, write_fault(fd, &len, off))
WRAP_AT(pwrite64, const void *, write_fault(fd, &len, off))

/*
 * fallocate(fd, mode, off, len): refused by a KT_FAULT_FALLOCATE rule,
 * or with ENOSPC when it reaches past a KT_FAULT_FULL rule's BYTES.
 */
static int fallocate_fault(int fd, off_t off, off_t len)
{
	char path[PATH_MAX], val[64];
	int err;

	if ((!getenv("KT_FAULT_FALLOCATE") && !getenv("KT_FAULT_FULL")) ||
	    !fd_path(fd, path, sizeof(path)))
		return 0;
	err = rule_for("KT_FAULT_FALLOCATE", path);
	if (!err && rule_text("KT_FAULT_FULL", path, val, sizeof(val)) &&
	    off + len > (off_t)strtoull(val, NULL, 0))
		err = ENOSPC;
	if (err)
		note("fallocate", path, err);
	return err;
}

#define WRAP_FALLOCATE(name) \
int name(int fd, int mode, off_t off, off_t len) \
{ \
	int err = fallocate_fault(fd, off, len); \
	NEXT(name); \
	if (err) { \
		errno = err; \
		return -1; \
	} \
	return next_##name(fd, mode, off, len); \
}

WRAP_FALLOCATE(fallocate)
WRAP_FALLOCATE(fallocate64)

/* rename(old, new): refused when a KT_FAULT_RENAME rule matches old. */
int rename(const char *old, const char *new)
{
	char abs[PATH_MAX];
	int err = 0;
	NEXT(rename);

	if (getenv("KT_FAULT_RENAME") && old) {
		absolute(AT_FDCWD, old, abs, sizeof(abs));
		err = rule_for("KT_FAULT_RENAME", abs);
		if (err)
			note("rename", abs, err);
	}
	if (err) {
		errno = err;
		return -1;
	}
	return next_rename(old, new);
}

/*
 * copy_file_range: a write into fd_out as far as the rules go (the
 * writer copies whole blocks file to file, in the kernel).
 */
ssize_t copy_file_range(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out,
			size_t len, unsigned int flags)
{
	int err = write_fault(fd_out, &len, off_out ? (off_t)*off_out : -1);
	NEXT(copy_file_range);

	if (err) {
		errno = err;
		return -1;
	}
	return next_copy_file_range(fd_in, off_in, fd_out, off_out, len, flags);
}

/* Zero, or the errno a pread of len bytes from fd must fail with. */
static int pread_fault(int fd, size_t len)
{
	const char *min = getenv("KT_FAULT_PREAD_MIN");
	char path[PATH_MAX];
	int err;

	if (!getenv("KT_FAULT_PREAD") || (min && len < strtoull(min, NULL, 0)) ||
	    !fd_path(fd, path, sizeof(path)))
		return 0;
	err = rule_for("KT_FAULT_PREAD", path);
	if (err)
		note("pread", path, err);
	return err;
}

WRAP_AT(pread, void *, pread_fault(fd, len))
WRAP_AT(pread64, void *, pread_fault(fd, len))

int mount(const char *src, const char *target, const char *type,
	  unsigned long flags, const void *data)
{
	int err = target ? rule_for("KT_FAULT_MOUNT", target) : 0;
	NEXT(mount);

	if (err) {
		note("mount", target, err);
		errno = err;
		return -1;
	}
	return next_mount(src, target, type, flags, data);
}
