#!/bin/bash
# make valgrind: a subset of the bats suite (the files given, or record,
# report, list, stat, reset, stream) with KTRACE pointing at tests/valgrind/ktrace,
# which runs a copy of ./ktrace under memcheck (a copy, so a rebuild
# meanwhile does not change the binary under test).  A memory error or
# definite leak fails the test that met it (status 99, the report in its
# output); the last lines count the reports.  Tests that need ktrace's
# full speed (zero loss under dbench) may fail under valgrind's 20-50x
# slowdown without any report: those are not findings.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
command -v valgrind >/dev/null || { echo "valgrind: not installed; apt-get install valgrind" >&2; exit 1; }
mkdir -p build/valgrind
cp ktrace build/valgrind/ktrace || exit 1
export KT_VALGRIND_BIN=$top/build/valgrind/ktrace
files=()
for f in ${@:-record report list stat reset stream}; do
	[ -f "tests/bats/$f.bats" ] && files+=("tests/bats/$f.bats")
done
log=build/valgrind/run.tap
KTRACE="$top/tests/valgrind/ktrace" bats --tap "${files[@]}" | tee "$log"
reports=$(grep -cE '^# +==[0-9]+== (Invalid|Conditional|Syscall param|Mismatched|.*definitely lost)' "$log")
failed=$(grep -c '^not ok' "$log")
echo "valgrind: $reports memcheck reports, $failed failed tests"
[ "$reports" -eq 0 ] && [ "$failed" -eq 0 ]
