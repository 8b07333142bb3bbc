// SPDX-License-Identifier: GPL-2.0
/* ktrace list: not written yet. */
#include "cmd.h"
#include "log.h"

int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	kt_err("not implemented yet");
	return KT_EXIT_FAIL;
}
