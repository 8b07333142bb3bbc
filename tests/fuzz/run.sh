#!/bin/bash
# make fuzz: link each target with libFuzzer (clang) against the lib/
# objects make fuzz built in build/fuzz, then fuzz it for SECONDS.
# New inputs go to build/fuzz/corpus-TARGET (seeded from
# tests/fuzz/corpus/TARGET); a crash is written to tests/fuzz/regress/
# TARGET/, where make check replays it from then on: commit it with the fix.
#   tests/fuzz/run.sh SECONDS TARGET...
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=$1
shift
flags="-fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer"
cflags="-g -O1 -std=gnu11 -D_GNU_SOURCE -Ilib $(pkg-config --cflags libtracefs libtraceevent)"
libs="$(pkg-config --libs libtracefs libtraceevent) -lzstd -lz"
status=0
for t in "$@"; do
	bin=build/fuzz/fuzz_$t
	# shellcheck disable=SC2086
	clang $flags $cflags -o "$bin" "tests/fuzz/fuzz_$t.c" tests/fuzz/fuzz_common.c \
		build/fuzz/lib/*.o $libs
	mkdir -p "build/fuzz/corpus-$t" "tests/fuzz/regress/$t"
	echo "== fuzz_$t for $secs s"
	LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
	KT_FUZZ_TEMPLATE=$top/tests/fuzz/page-template.bin \
		"$bin" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="tests/fuzz/regress/$t/" \
		"build/fuzz/corpus-$t" "tests/fuzz/corpus/$t" || status=1
done
exit $status
