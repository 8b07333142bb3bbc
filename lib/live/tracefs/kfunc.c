// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel function's name looked up in /proc/kallsyms.  See kfunc.h.
 * Only the error path of an event spec calls this: a scan of the whole
 * file (tens of ms) is cheap there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <tracefs.h>

#include "live/tracefs/kfunc.h"

int kt_kernel_function_known(const char *name)
{
	char line[512], type, sym[256];
	bool found = false, any = false;
	FILE *f;

	if (!*name || strlen(name) >= sizeof(sym))
		return 0;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -1;
	/* "ffffffff8123 T do_sys_openat2" or "... t name\t[module]" */
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s", &type, sym) != 2)
			continue;
		any = true;
		if ((type == 't' || type == 'T') && !strcmp(sym, name))
			found = true;
	}
	fclose(f);
	return found ? 1 : any ? 0 : -1;
}

bool kt_kernel_function_exists(const char *name)
{
	return kt_kernel_function_known(name) == 1;
}

/*
 * "name", "name [module]" (available_filter_functions), or "addr t name"
 * and "addr t name\t[module]" (kallsyms): the name and module of a line.
 */
static int walk(FILE *f, bool kallsyms, kt_kfunc_fn fn, void *arg)
{
	char line[512], type, name[256], mod[128];
	int n, ret = 0;

	while (!ret && fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		if (kallsyms) {
			n = sscanf(line, "%*s %c %255s [%127[^]]]", &type, name, mod);
			if (n < 2 || (type != 't' && type != 'T'))
				continue;
		} else if (sscanf(line, "%255s [%127[^]]]", name, mod) < 1) {
			continue;
		}
		ret = fn(name, mod[0] ? mod : NULL, arg);
	}
	return ret;
}

int kt_kernel_functions(kt_kfunc_fn fn, void *arg, enum kt_kfunc_source *src,
			int *first_err)
{
	char *path = tracefs_get_tracing_file("available_filter_functions");
	FILE *f = path ? fopen(path, "re") : NULL;
	int ret;

	*first_err = f ? 0 : path ? errno : ENOENT;
	tracefs_put_tracing_file(path);
	*src = KT_KFUNC_FTRACE;
	if (!f) {
		*src = KT_KFUNC_KALLSYMS;
		f = fopen("/proc/kallsyms", "re");
		if (!f)
			return -errno;
	}
	ret = walk(f, *src == KT_KFUNC_KALLSYMS, fn, arg);
	fclose(f);
	return ret > 0 ? 0 : ret;
}
