// SPDX-License-Identifier: GPL-2.0
/* ktrace reset: not written yet. */
#include "cmd.h"
#include "log.h"

int cmd_reset(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	kt_err("not implemented yet");
	return KT_EXIT_FAIL;
}
