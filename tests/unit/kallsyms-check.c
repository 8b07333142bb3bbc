// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms-check lib|ours FILE: load FILE's kallsyms text into a tep with
 * libtraceevent's tep_parse_kallsyms() or with lib/file/kallsyms.c, and print
 * the parse's return value and the resulting function table; the two
 * must print the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "file/kallsyms.h"

int main(int argc, char **argv)
{
	struct tep_handle *tep;
	char *text;
	long n;
	FILE *f;
	int ret;

	if (argc != 3 || !(f = fopen(argv[2], "r")))
		return 2;
	text = malloc(64 << 20);
	if (!text)
		return 2;
	n = (long)fread(text, 1, (64 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	tep = tep_alloc();
	tep_set_loglevel(TEP_LOG_NONE);
	ret = strcmp(argv[1], "lib") ? kt_kallsyms_parse(tep, text) :
				     tep_parse_kallsyms(tep, text);
	printf("ret %d\n", ret);
	tep_print_funcs(tep);
	tep_free(tep);
	free(text);
	return 0;
}
