// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel function's name looked up in /proc/kallsyms.  See kfunc.h.
 * Only the error path of an event spec calls this: a scan of the whole
 * file (tens of ms) is cheap there.
 */
#include <stdio.h>
#include <string.h>

#include "live/kfunc.h"

bool kt_kernel_function_exists(const char *name)
{
	char line[512], type, sym[256];
	bool found = false;
	FILE *f;

	if (!*name || strlen(name) >= sizeof(sym))
		return false;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return false;
	/* "ffffffff8123 T do_sys_openat2" or "... t name\t[module]" */
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s", &type, sym) == 2 &&
		    (type == 't' || type == 'T') && !strcmp(sym, name))
			found = true;
	}
	fclose(f);
	return found;
}
