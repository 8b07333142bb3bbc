#!/bin/bash
# make fuzz: link each target with libFuzzer (clang) against the lib/
# objects make fuzz built in build/fuzz, then fuzz it for SECONDS of CPU
# time (user + system, read from /proc, so a busy machine stretches the
# wall time but not the work done), one target at a time, under nice.
# New inputs go to build/fuzz/corpus-TARGET (seeded from
# tests/fuzz/corpus/TARGET); a crash, leak, slow input or excess
# allocation is written to tests/fuzz/regress/TARGET/, where make check
# replays it from then on: commit it with the fix.  The log of each run is
# build/fuzz/TARGET.log; its last lines give the executions and coverage.
#   tests/fuzz/run.sh SECONDS TARGET...
# Limits (RELIABILITY.md "Untrusted files"): 1 s per input, 256 MB in all
# and per allocation.  ASan's quarantine of freed memory is cut to 32 MB
# so that the RSS limit measures the reader rather than the sanitizer.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=$1
shift
flags="-fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer"
cflags="-g -O1 -std=gnu11 -D_GNU_SOURCE -Ilib $(pkg-config --cflags libtracefs libtraceevent)"
libs="$(pkg-config --libs libtracefs libtraceevent) -lzstd -lz"
limits="-timeout=1 -rss_limit_mb=256 -malloc_limit_mb=256"
hz=$(getconf CLK_TCK)

# CPU seconds (user + system) PID has used so far.
cpu_of() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	echo $(( (${12} + ${13}) / hz ))
}

status=0
for t in "$@"; do
	bin=build/fuzz/fuzz_$t
	# shellcheck disable=SC2086
	clang $flags $cflags -o "$bin" "tests/fuzz/fuzz_$t.c" tests/fuzz/fuzz_common.c \
		build/fuzz/lib/*.o $libs
	mkdir -p "build/fuzz/corpus-$t" "tests/fuzz/regress/$t"
	echo "== fuzz_$t for $secs CPU seconds (log: build/fuzz/$t.log)"
	# shellcheck disable=SC2086
	ASAN_OPTIONS=quarantine_size_mb=32 \
	LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
	KT_FUZZ_TEMPLATE=$top/tests/fuzz/page-template.bin \
		/usr/bin/time -f '%e %U %S' -o "build/fuzz/$t.time" \
		nice -n 10 "$bin" $limits -print_final_stats=1 \
		-artifact_prefix="tests/fuzz/regress/$t/" \
		"build/fuzz/corpus-$t" "tests/fuzz/corpus/$t" >"build/fuzz/$t.log" 2>&1 &
	pid=$!
	# libFuzzer's -max_total_time counts wall time: stop it by CPU time
	# instead.  On SIGINT it prints its final statistics and exits 72.
	# (time's child is the fuzzer: nice execs it.)
	while kill -0 "$pid" 2>/dev/null; do
		fpid=$(pgrep -P "$pid" || true)
		if [ -n "$fpid" ] && [ "$(cpu_of "$fpid")" -ge "$secs" ]; then
			kill -INT "$fpid"
			break
		fi
		sleep 5
	done
	rc=0
	wait "$pid" || rc=$?
	read -r wall user sys < <(tail -1 "build/fuzz/$t.time") || true
	grep -E '^#[0-9]+' "build/fuzz/$t.log" | tail -1 || true
	grep -E '^stat::|^SUMMARY|ERROR: libFuzzer|^artifact_prefix|Test unit written' \
		"build/fuzz/$t.log" || true
	echo "== fuzz_$t: ${user:-?} s user + ${sys:-?} s system CPU in ${wall:-?} s, exit $rc"
	# 0: -runs or -max_total_time reached; 72: stopped here at the limit.
	[ "$rc" -eq 0 ] || [ "$rc" -eq 72 ] || status=1
done
exit $status
