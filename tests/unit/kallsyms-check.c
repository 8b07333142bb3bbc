// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms-check lib|ours FILE: load FILE's kallsyms text into a tep with
 * libtraceevent's tep_parse_kallsyms() or with lib/file/kallsyms.c, and print
 * the parse's return value and the resulting function table; the two
 * must print the same.
 *
 * kallsyms-check find FILE: look up each function's address, the bytes
 * either side of it and a few others in kt_ksymtab and in a tep the text
 * is registered into; prints "ok N lookups", "shape" when kt_ksymtab
 * leaves the text to the tep, or the first lookups that differ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "file/kallsyms.h"

static int lookup(struct tep_handle *tep, struct kt_ksymtab *t,
		  unsigned long long addr, int *bad)
{
	unsigned long long s1 = 0, s2 = 0;
	const char *n1 = NULL, *n2;

	if (!tep_find_function_info(tep, addr, &n1, &s1, NULL))
		n1 = NULL;
	n2 = kt_ksymtab_find(t, addr, &s2);
	if ((!n1) != (!n2) || (n1 && (strcmp(n1, n2) || s1 != s2))) {
		if ((*bad)++ < 5)
			printf("%llx: tep %s %llx, ksymtab %s %llx\n", addr,
			       n1 ? n1 : "-", s1, n2 ? n2 : "-", s2);
	}
	return 1;
}

static int find(struct tep_handle *tep, char *text)
{
	char *copy = strdup(text);
	struct kt_ksymtab *t;
	const char *p, *nl;
	unsigned long long a;
	int n = 0, bad = 0;

	if (!copy)
		return 2;
	kt_kallsyms_parse(tep, text);
	t = kt_ksymtab_new(copy, copy);
	if (!t) {
		printf("shape\n");
		free(copy);
		tep_free(tep);
		free(text);
		return 0;
	}
	n += lookup(tep, t, 0, &bad);
	n += lookup(tep, t, ~0ULL, &bad);
	for (p = text; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		a = strtoull(p, NULL, 16);
		n += lookup(tep, t, a - 1, &bad);
		n += lookup(tep, t, a, &bad);
		n += lookup(tep, t, a + 1, &bad);
	}
	if (!bad)
		printf("ok %d lookups\n", n);
	kt_ksymtab_free(t);
	tep_free(tep);
	free(text);
	return bad ? 1 : 0;
}

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
	if (!strcmp(argv[1], "find"))
		return find(tep, text);
	ret = strcmp(argv[1], "lib") ? kt_kallsyms_parse(tep, text) :
				     tep_parse_kallsyms(tep, text);
	printf("ret %d\n", ret);
	tep_print_funcs(tep);
	tep_free(tep);
	free(text);
	return 0;
}
