// SPDX-License-Identifier: GPL-2.0
/* Sizes and times as people read them.  See human.h. */
#include <stdio.h>

#include "base/human.h"

void kt_human_bytes(unsigned long long b, char *buf, size_t len)
{
	if (b >= 10ULL << 30)
		snprintf(buf, len, "%.1f GB", b / 1073741824.0);
	else if (b >= 1ULL << 20)
		snprintf(buf, len, "%.1f MB", b / 1048576.0);
	else if (b >= 1ULL << 10)
		snprintf(buf, len, "%.1f KB", b / 1024.0);
	else
		snprintf(buf, len, "%llu B", b);
}

void kt_human_ts(unsigned long long ts, char *buf, size_t len)
{
	unsigned long long secs = ts / 1000000000ULL;
	unsigned long long usecs = (ts % 1000000000ULL + 500) / 1000ULL;

	if (usecs >= 1000000ULL) {
		usecs -= 1000000ULL;
		secs++;
	}
	snprintf(buf, len, "%llu.%06llu", secs, usecs);
}
