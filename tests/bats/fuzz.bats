#!/usr/bin/env bats
# The fuzz targets' seed corpus (files ktrace and trace-cmd write, v6 and
# v7, compressed or not, and raw pages) and every input a fuzzer ever
# crashed on (tests/fuzz/regress) replay clean through the ASan/UBSan
# build of the read path.  make check builds the replayers (make
# fuzz-replay); gcc is enough, libFuzzer is only for make fuzz.

load helpers

setup_file() {
	if [ ! -x "$TOP/build/replay/fuzz_file" ] || [ ! -x "$TOP/build/replay/fuzz_page" ]; then
		make -s -C "$TOP" fuzz-replay >/dev/null
	fi
}

replay() { # TARGET
	run env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		KT_FUZZ_TEMPLATE="$TOP/tests/fuzz/page-template.bin" \
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
