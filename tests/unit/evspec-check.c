// SPDX-License-Identifier: GPL-2.0
/*
 * evspec-check [-a] SPEC...: resolve each SPEC with lib/base/evspec.c
 * against a catalog read from stdin ("system name" a line; "prefer
 * system" names the preferred system) and print what it names, or the
 * error and the suggestions.  -a: a bare name in several systems names
 * all of them (KT_EVSPEC_EVERY_SYSTEM), as on a recording.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/evspec.h"

int main(int argc, char **argv)
{
	unsigned int flags = 0;
	struct kt_catalog *cat = kt_catalog_new();
	char sys[256], name[256], hint[512];
	int i = 1, ret;
	size_t j;

	if (!cat)
		return 2;
	if (argc > 1 && !strcmp(argv[1], "-a")) {
		flags = KT_EVSPEC_EVERY_SYSTEM;
		i++;
	}
	while (scanf("%255s %255s", sys, name) == 2) {
		ret = strcmp(sys, "prefer") ? kt_catalog_add_event(cat, sys, name) :
					     kt_catalog_prefer(cat, name);
		if (ret)
			return 2;
	}
	kt_catalog_sort(cat);
	for (; i < argc; i++) {
		struct kt_event_list *out = kt_event_list_new();

		if (!out)
			return 2;
		ret = kt_evspec_resolve(cat, argv[i], flags, out);
		printf("%s: %s", argv[i], ret > 0 ? "" : ret == -ENOENT ?
		       "ENOENT" : ret == -EEXIST ? "EEXIST" : "error");
		for (j = 0; j < kt_event_list_count(out); j++)
			printf("%s%s:%s", j ? " " : "",
			       kt_event_list_at(out, j)->system,
			       kt_event_list_at(out, j)->name);
		if (ret == -ENOENT && !kt_evspec_suggest(cat, argv[i], hint, sizeof(hint)))
			printf("; did you mean %s?", hint);
		putchar('\n');
		kt_event_list_free(out);
	}
	kt_catalog_free(cat);
	return 0;
}
