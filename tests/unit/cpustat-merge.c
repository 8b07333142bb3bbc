// SPDX-License-Identifier: GPL-2.0
/*
 * A test driver for a CPU's stats text as a recording stores it
 * (CPUSTAT): reads a per_cpu/cpuN/stats text on stdin, prints what
 * kt_cpu_stats_parse() makes of it on stderr, then writes on stdout the
 * text lib/live/session/source-ftrace.c stores for it, its counters replaced by
 * the arguments' when given (else the parse's).
 *
 *   cpustat-merge [ENTRIES OVERRUN COMMIT_OVERRUN BYTES DROPPED READ] <stats
 *
 * `make unit` builds it, with the sanitizers, as build/asan/unit/cpustat-merge.
 */
#include "../../lib/live/session/source-ftrace.c"

static char *slurp(FILE *in)
{
	char *buf = NULL;
	size_t len = 0, n;
	FILE *out = open_memstream(&buf, &len);
	char chunk[4096];

	if (!out)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, n, out);
	if (fclose(out))
		return NULL;
	return buf;
}

int main(int argc, char **argv)
{
	struct kt_cpu_stats st;
	char *raw = slurp(stdin), *text;

	if (!raw || (argc != 1 && argc != 7)) {
		fprintf(stderr, "usage: cpustat-merge [ENTRIES OVERRUN COMMIT_OVERRUN BYTES DROPPED READ] <stats\n");
		return 64;
	}
	kt_cpu_stats_parse(raw, &st);
	fprintf(stderr, "entries=%llu overrun=%llu commit_overrun=%llu bytes=%llu "
		"oldest_ts=%.6f now_ts=%.6f dropped=%llu read=%llu\n",
		st.entries, st.overrun, st.commit_overrun, st.bytes,
		st.oldest_ts, st.now_ts, st.dropped, st.read);
	if (argc == 7) {
		st.entries = strtoull(argv[1], NULL, 10);
		st.overrun = strtoull(argv[2], NULL, 10);
		st.commit_overrun = strtoull(argv[3], NULL, 10);
		st.bytes = strtoull(argv[4], NULL, 10);
		st.dropped = strtoull(argv[5], NULL, 10);
		st.read = strtoull(argv[6], NULL, 10);
	}
	text = stat_text_merged(raw, &st);
	if (!text)
		return 1;
	fputs(text, stdout);
	free(text);
	free(raw);
	return 0;
}
