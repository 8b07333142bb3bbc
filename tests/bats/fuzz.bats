#!/usr/bin/env bats
# The fuzz targets' seed corpus (files ktrace and trace-cmd write, v6 and
# v7, compressed or not, and raw pages) and every input a fuzzer ever
# crashed on (tests/fuzz/regress) replay clean through the ASan/UBSan
# build of the read path.  make check builds the replayers (make
# fuzz-replay) with gcc; its suite fuzz-link (scripts/check.sh) links the
# libFuzzer targets, which make fuzz runs.

load helpers

setup_file() {
	local t
	for t in file page format filter; do
		if [ ! -x "$TOP/build/replay/fuzz_$t" ]; then
			make -s -C "$TOP" fuzz-replay >/dev/null
			break
		fi
	done
}

replay() { # TARGET
	run env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99:max_allocation_size_mb=256 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		KT_FUZZ_TEMPLATE="$TOP/tests/fuzz/page-template.bin" \
		KT_FUZZ_FILTER_TRACE="$TOP/tests/fuzz/filter-trace.bin" \
		"$TOP/build/replay/fuzz_$1" "$TOP/tests/fuzz/corpus/$1" "$TOP/tests/fuzz/regress/$1"
	assert_success
	refute_output --partial "runtime error"
	refute_output --partial "ERROR: AddressSanitizer"
	n=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' <<<"$output")
	want=$(find "$TOP/tests/fuzz/corpus/$1" "$TOP/tests/fuzz/regress/$1" -type f ! -name '.*' | wc -l)
	[ "$n" -eq "$want" ] || fail "replayed $n of $want inputs"
	[ "$n" -gt 0 ]
}

@test "every whole-file fuzz input replays clean under ASan/UBSan" {
	replay file
}

@test "every page fuzz input replays clean under ASan/UBSan" {
	replay page
}

@test "every event format fuzz input replays clean under ASan/UBSan" {
	replay format
}

@test "every filter fuzz input replays clean under ASan/UBSan" {
	replay filter
}

@test "every event format of this kernel passes the format check, multi-line strings too" {
	# ext4_fc_stats and ext4_fsmap_* have newlines inside their print fmt
	# strings: report once refused files with them as damaged.
	local n out
	out=$BATS_TEST_TMPDIR/ext4.dat
	run "$KTRACE" record --backend=ftrace -q -o "$out" -e ext4:ext4_fc_stats \
		-e ext4:ext4_fsmap_high_key -e sched:sched_switch -s 0.1
	assert_success
	run "$KTRACE" report -i "$out"
	assert_success
	run "$KTRACE" list --fields ext4:ext4_fc_stats
	assert_success
	assert_output --partial "fc_ineligible_rc"
	# The rest through list --fields would take minutes: the replayer of
	# fuzz_format runs every format file, and its verbose mode names each
	# one the check refuses.
	# One awk copies them all (a cp each took 30 s where a fork costs 8 ms).
	mkdir "$BATS_TEST_TMPDIR/formats"
	n=$(awk -v dir="$BATS_TEST_TMPDIR/formats" '
		FNR == 1 { close(out); out = dir "/" n++ }
		{ print >out }
		END { print n }' /sys/kernel/tracing/events/*/*/format)
	[ "$n" -gt 100 ]
	run env KT_FUZZ_VERBOSE=1 KT_FUZZ_TEMPLATE="$TOP/tests/fuzz/page-template.bin" \
		"$TOP/build/replay/fuzz_format" "$BATS_TEST_TMPDIR/formats"
	assert_success
	refute_output --partial "found text that does not parse"
	assert_output --partial "replayed $n inputs"
}

@test "report -F: filters libtraceevent would free twice or divide by zero are refused with a message" {
	run "$KTRACE" report -i "$TOP/tests/fuzz/filter-trace.bin" -F 'sched_switch: (prev_prio + 1) > 2'
	assert_failure
	assert_output --partial "bad filter 'sched_switch: (prev_prio + 1) > 2'"
	refute_output --partial "AddressSanitizer"
	# A typo after && made libtraceevent free twice: parsed in a child first.
	run "$KTRACE" report -i "$TOP/tests/fuzz/filter-trace.bin" -F 'sched_switch: prev_pid == 1 && next_pid == nosuch'
	assert_failure 1
	assert_output --partial "bad filter 'sched_switch: prev_pid == 1 && next_pid == nosuch'"
	refute_output --partial "double free"
	# libtraceevent folds "1 / 0" while parsing: SIGFPE.
	run "$KTRACE" report -i "$TOP/tests/fuzz/filter-trace.bin" -F 'sched_switch: 1 / 0'
	assert_failure 1
	assert_output --partial "bad filter 'sched_switch: 1 / 0'"
	run "$KTRACE" report -i "$TOP/tests/fuzz/filter-trace.bin" -F 'sched_switch: (prev_pid != 0) && next_pid != 0'
	assert_success
	assert_output --partial "sched_switch"
}

@test "the seed corpus is what trace-cmd reads: ktrace and trace-cmd files, v6 and v7" {
	for f in "$TOP"/tests/fuzz/corpus/file/*.dat; do
		run trace-cmd report -i "$f"
		assert_success
		run "$KTRACE" report -i "$f"
		assert_success
	done
	ls "$TOP"/tests/fuzz/corpus/file | grep -q 'v7-zstd'
	ls "$TOP"/tests/fuzz/corpus/file | grep -q 'v6'
}

@test "field lines libtraceevent reads otherwise (into the next line, an open bracket) are refused: no crash after a __print_flags() format" {
	# The pair crashed tep_parse_format() only in this order, in one
	# process: the first's __print_flags() of no field leaves libtraceevent
	# in a state that a second format crashes on, where the check and
	# libtraceevent disagree on its fields: "field:__u8 dst[" running into
	# the next line, "field:u64 sptep[<tab>offset:24;" (the 30-minute run).
	run env ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=99 \
		KT_FUZZ_TEMPLATE="$TOP/tests/fuzz/page-template.bin" \
		"$TOP/build/replay/fuzz_format" "$TOP/tests/fuzz/regress/format/field-line-pair-1" \
		"$TOP/tests/fuzz/regress/format/field-line-pair-2" \
		"$TOP/tests/fuzz/regress/format/field-line-pair-1" \
		"$TOP/tests/fuzz/regress/format/field-bracket-after-pair-1"
	assert_success
	assert_output --partial "replayed 4 inputs"
	refute_output --partial "AddressSanitizer"
}
