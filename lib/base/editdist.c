// SPDX-License-Identifier: GPL-2.0
/*
 * Levenshtein distance, for "did you mean": command names (ktrace.c),
 * list kinds, and event names, live or a recording's (base/evspec.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/editdist.h"

size_t kt_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *row, result;

	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best;

			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	result = row[lb];
	free(row);
	return result;
}
