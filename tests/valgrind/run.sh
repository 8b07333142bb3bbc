#!/bin/bash
# make valgrind: a subset of the bats suite (the files given, or record,
# report, list, stat, reset) with KTRACE pointing at tests/valgrind/ktrace,
# which runs ./ktrace under memcheck.  A memory error or definite leak
# fails the test that met it (status 99, the report in its output).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
command -v valgrind >/dev/null || { echo "valgrind: not installed; apt-get install valgrind" >&2; exit 1; }
files=()
for f in "${@:-record report list stat reset}"; do
	for g in $f; do
		[ -f "tests/bats/$g.bats" ] && files+=("tests/bats/$g.bats")
	done
done
KTRACE="$top/tests/valgrind/ktrace" bats --tap "${files[@]}"
