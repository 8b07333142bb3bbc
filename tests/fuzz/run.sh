#!/bin/bash
# make fuzz: build each target with libFuzzer (clang; make fuzz-build,
# into build/fuzz), then fuzz it for SECONDS of CPU
# time (user + system, read from /proc, so a busy machine stretches the
# wall time but not the work done), one target at a time, under nice -n 19.
# New inputs go to build/fuzz/corpus-TARGET (seeded from
# tests/fuzz/corpus/TARGET and build/fuzz/seeds/TARGET: the pages, formats
# and files of tests/data/*.dat, made here by tests/fuzz/mkseed.py --seeds);
# a crash, leak, slow input or excess
# allocation is written to tests/fuzz/regress/TARGET/, where make check
# replays it from then on: commit it with the fix.  The log of each run is
# build/fuzz/TARGET.log; its last lines give the executions and coverage.
#   tests/fuzz/run.sh SECONDS TARGET...
#   tests/fuzz/run.sh merge TARGET...
# The second makes tests/fuzz/corpus/TARGET anew from itself, the seeds
# and build/fuzz/corpus-TARGET: the inputs that add coverage (-merge=1),
# so that the stored corpus stays small.
# Limits (RELIABILITY.md "Untrusted files"): 1 s per input, 256 MB in all
# and per allocation.  ASan's quarantine of freed memory is cut to 32 MB
# so that the RSS limit measures the reader rather than the sanitizer.
# Leaks are checked on every input the fuzzer keeps, not on every input
# it tries: libFuzzer's check after each input that allocates more than
# it frees (libtraceevent's parser does, on most formats it rejects) is
# a scan of the whole heap, and took two thirds of format's and file's
# time.  So fuzzing runs with -detect_leaks=0, keeps ASan's stacks of an
# allocation to 2 frames (a crash's own stack stays whole; replay it with
# the gcc build for the rest) and does not fill new memory with 0xbe
# (uninitialised reads are not ASan's to find), and at the end of each
# target's run
# every input it added is run again with the leak check (leak_pass);
# make check replays the committed corpus with it too (fuzz.bats).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=$1
shift
# KT_FUZZ_TIMEOUT: libFuzzer's -timeout, which counts wall time; on a
# loaded machine, where a niced fuzzer gets a third of a core, a longer
# one saves restarts (a timeout still counts only if the input alone
# takes a CPU second: see the loop below).
limits="-timeout=${KT_FUZZ_TIMEOUT:-1} -rss_limit_mb=256 -malloc_limit_mb=256"
# libFuzzer's entropic schedule keeps every feature seen fewer than
# -entropic_feature_frequency_threshold times (255) as "rare" and, for
# each feature an input hits, looks it up in that list: with the
# 17,000-19,000 features of file and format, that linear search was 17%
# of format's CPU time (perf) and 38% while the corpus loads.  At 16 the
# list stays short: 1055 rather than 779 format inputs per CPU second,
# 510 rather than 448 for file (-runs=20000 and 6000, -seed=1, from the
# committed corpus), the schedule otherwise the same.
fast="-detect_leaks=0 -entropic_feature_frequency_threshold=16"
# The file target's inputs are whole trace.dat files: left to grow, its
# corpus reached 180 KB inputs and 39 inputs per CPU second (the
# 2026-11-25 run); 32 KB holds every kind of file the seeds have.
# Its time goes to the reader's open (perf -g, dwarf, 3000 runs: 77%):
# libtraceevent parsing the formats (38%, half of it ASan's allocator),
# tepcheck (15%: a strstr() over the whole format for each REC->, which
# ASan's interceptor makes a strlen() too; now bounded memmem()s) and
# the plugins, loaded for each file (12%; now only once the file reaches
# its formats).  -runs=20000 -seed=1 from the committed corpus, inputs
# per CPU second: 428 then 534 (and 347, 420 then 435, 476 in two more
# pairs on a machine at a load of 8).
fast_file="-max_len=32768"
# UBSan reports and goes on by default (the fuzz build is compiled to
# recover), so a run printed signed overflows in file's log and kept
# fuzzing (2026-11-28: regress/file/date-option-times-1000-overflows,
# json-fgraph-duration-overflows): halting makes each one a crash that
# libFuzzer writes to regress/, as make check's replay already does.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
hz=$(getconf CLK_TCK)
mkdir -p build/fuzz
python3 tests/fuzz/mkseed.py --seeds build/fuzz/seeds tests/data/*.dat

# The sanitizers' options for target $t.  fuzz_filter's trial child dies
# on libtraceevent's double frees by design: a symbolized report of each
# takes a second of wall time (a false timeout), so its reports are not
# symbolized (replay a crash input with the gcc build to read one).
asan_opts() {
	echo "quarantine_size_mb=32${1:-}$([ "$t" = filter ] && echo :symbolize=0)"
}

# The target's corpus directories: new inputs go to the first.
dirs() {
	echo "build/fuzz/corpus-$t tests/fuzz/corpus/$t"
	[ -d "build/fuzz/seeds/$t" ] && echo "build/fuzz/seeds/$t"
	true
}

# CPU seconds (user + system) PID has used so far.
cpu_of() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	echo $(( (${12} + ${13}) / hz ))
}

# One stretch of fuzzing of target $t until $1 CPU seconds: sets rc,
# used (CPU seconds, hundredths) and wall; appends to the target's log.
run_once() {
	local left=$1 pid fpid user sys
	# shellcheck disable=SC2086,SC2046
	ASAN_OPTIONS=$(asan_opts :malloc_context_size=2:max_malloc_fill_size=0) \
	LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
	KT_FUZZ_TEMPLATE=$top/tests/fuzz/page-template.bin \
	KT_FUZZ_FILTER_TRACE=$top/tests/fuzz/filter-trace.bin \
		/usr/bin/time -f '%e %U %S' -o "build/fuzz/$t.time" \
		nice -n 19 "$bin" $limits $fast $([ "$t" = file ] && echo "$fast_file") -print_final_stats=1 \
		-artifact_prefix="tests/fuzz/regress/$t/" \
		$(dirs) >"build/fuzz/$t.run.log" 2>&1 &
	pid=$!
	# libFuzzer's -max_total_time counts wall time: stop it by CPU time
	# instead.  On SIGINT it prints its final statistics and exits 72.
	# (time's child is the fuzzer: nice execs it.)
	while kill -0 "$pid" 2>/dev/null; do
		fpid=$(pgrep -P "$pid" || true)
		if [ -n "$fpid" ] && [ "$(cpu_of "$fpid")" -ge "$left" ]; then
			kill -INT "$fpid"
			break
		fi
		sleep 5
	done
	rc=0
	wait "$pid" || rc=$?
	cat "build/fuzz/$t.run.log" >>"build/fuzz/$t.log"
	read -r wall user sys < <(tail -1 "build/fuzz/$t.time")
	used=$(echo "$user $sys" | awk '{ printf "%d", ($1 + $2) * 100 }')
}

# CPU seconds (user + system) the target takes on one input, alone, up
# to 5 (ulimit -t: an input that hangs would run on for minutes).
cpu_on() {
	(
		ulimit -t 5
		ASAN_OPTIONS=$(asan_opts) \
		LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
		KT_FUZZ_TEMPLATE=$top/tests/fuzz/page-template.bin \
		KT_FUZZ_FILTER_TRACE=$top/tests/fuzz/filter-trace.bin \
			nice -n 19 /usr/bin/time -f '%U %S' -o "build/fuzz/$t.time1" \
			"$bin" "$1" >/dev/null 2>&1
	) || true
	tail -1 "build/fuzz/$t.time1" | awk '{ printf "%.2f", $1 + $2 }'
}

# Every input of build/fuzz/corpus-$t (what this and earlier runs added)
# once more, with the leak check: sets rc as a run does (a leak: the
# input is written to tests/fuzz/regress/$t/leak-*).
leak_pass() {
	echo "   leak check of the $(find "build/fuzz/corpus-$t" -type f | wc -l) inputs in build/fuzz/corpus-$t"
	ASAN_OPTIONS=$(asan_opts) \
	LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
	KT_FUZZ_TEMPLATE=$top/tests/fuzz/page-template.bin \
	KT_FUZZ_FILTER_TRACE=$top/tests/fuzz/filter-trace.bin \
		nice -n 19 "$bin" $limits -detect_leaks=1 -runs=0 \
		-artifact_prefix="tests/fuzz/regress/$t/" \
		"build/fuzz/corpus-$t" >"build/fuzz/$t.leaks.log" 2>&1 || {
		rc=$?
		grep -E '^SUMMARY|ERROR:|Test unit written' "build/fuzz/$t.leaks.log" || true
		return
	}
}

# The targets are the Makefile's (the lib objects and libraries they
# link): make fuzz has built them, this is for a run by hand.
make -s -j2 fuzz-build >/dev/null

if [ "$secs" = merge ]; then
	for t in "$@"; do
		bin=build/fuzz/fuzz_$t
		rm -rf "build/fuzz/merged-$t"
		mkdir -p "build/fuzz/merged-$t" "build/fuzz/corpus-$t"
		# shellcheck disable=SC2046,SC2086
		ASAN_OPTIONS=$(asan_opts) \
		LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
		KT_FUZZ_TEMPLATE=$top/tests/fuzz/page-template.bin \
		KT_FUZZ_FILTER_TRACE=$top/tests/fuzz/filter-trace.bin \
			nice -n 19 "$bin" $limits -merge=1 "build/fuzz/merged-$t" \
			$(dirs) >"build/fuzz/$t.merge.log" 2>&1
		# The named files (fuzz.bats reads each *.dat with trace-cmd
		# too) stay under their names: libFuzzer names an input by
		# the SHA-1 of its bytes.
		for f in "tests/fuzz/corpus/$t"/*.*; do
			[ -f "$f" ] || continue
			rm -f "build/fuzz/merged-$t/$(sha1sum <"$f" | cut -d' ' -f1)"
			cp "$f" "build/fuzz/merged-$t/"
		done
		rm -rf "tests/fuzz/corpus/$t"
		mv "build/fuzz/merged-$t" "tests/fuzz/corpus/$t"
		echo "== fuzz_$t: $(find "tests/fuzz/corpus/$t" -type f | wc -l) inputs," \
			"$(du -sk "tests/fuzz/corpus/$t" | cut -f1) KB in tests/fuzz/corpus/$t"
	done
	exit 0
fi

status=0
for t in "$@"; do
	bin=build/fuzz/fuzz_$t
	mkdir -p "build/fuzz/corpus-$t" "tests/fuzz/regress/$t"
	echo "== fuzz_$t for $secs CPU seconds (log: build/fuzz/$t.log)"
	: >"build/fuzz/$t.log"
	total=0
	while :; do
		run_once $(( secs - total / 100 ))
		total=$(( total + used ))
		echo "   $(date -u +%H:%M:%S) stretch: $(awk -v u="$used" 'BEGIN { printf "%.1f", u / 100 }') CPU s in $wall s, exit $rc"
		unit=$(sed -n 's/.*Test unit written to //p' "build/fuzz/$t.run.log" | tail -1)
		# -timeout counts wall time too, and on a shared machine under
		# nice a fast input can wait a second for a CPU: a timeout
		# counts only if the input alone takes a CPU second.  If not,
		# note it, drop it and go on.
		if [ "$rc" -eq 70 ] && [ -n "$unit" ]; then
			c=$(cpu_on "$unit")
			if awk -v c="$c" 'BEGIN { exit !(c < 1) }'; then
				echo "   false timeout (the input alone: $c CPU s): $unit dropped, going on"
				rm -f "$unit"
				[ $(( total / 100 )) -lt "$secs" ] && continue
				rc=72
			fi
		fi
		break
	done
	[ "$rc" -eq 0 ] || [ "$rc" -eq 72 ] && leak_pass
	grep -E '^#[0-9]+' "build/fuzz/$t.log" | tail -1 || true
	grep -E '^stat::|^SUMMARY|ERROR: libFuzzer|Test unit written' \
		"build/fuzz/$t.run.log" || true
	echo "== fuzz_$t: $(( total / 100 )) CPU seconds in all, last exit $rc"
	# 0: -runs or -max_total_time reached; 72: stopped here at the limit.
	[ "$rc" -eq 0 ] || [ "$rc" -eq 72 ] || status=1
done
exit $status
