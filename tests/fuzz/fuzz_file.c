// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: any bytes as a whole trace.dat file (v6 or v7). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_fuzz_read_file(data, size);
	return 0;
}
