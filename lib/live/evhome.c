// SPDX-License-Identifier: GPL-2.0
/*
 * Where an event lives: the backend choice (--backend) and what it
 * makes of each event.  See evhome.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "live/evhome.h"
#include "live/module.h"

static enum kt_backend backend = KT_BACKEND_AUTO;

void kt_events_set_backend(enum kt_backend b)
{
	backend = b;
}

enum kt_backend kt_events_backend(void)
{
	return backend;
}

int kt_backend_parse(const char *name, enum kt_backend *out)
{
	if (!strcmp(name, "ftrace"))
		*out = KT_BACKEND_FTRACE;
	else if (!strcmp(name, "module"))
		*out = KT_BACKEND_MODULE;
	else
		return -EINVAL;
	return 0;
}

bool kt_events_use_module(void)
{
	return backend == KT_BACKEND_MODULE ||
	       (backend == KT_BACKEND_AUTO && kt_module_present());
}
