// SPDX-License-Identifier: MIT
/* Running a table of format detectors (common/detect.h). */
#include "common/detect_table.h"

const struct kt_detector *kt_detect_run(const struct kt_detector *const *table, size_t n,
					const void *head, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (table[i]->match && table[i]->match(head, len))
			return table[i];
	return NULL;
}
