#!/bin/bash
# Run every test: the link of the fuzz targets, the bats suite against the
# normal build and again under AddressSanitizer/UndefinedBehaviorSanitizer,
# then the VM tests of the kernel module.  The last line is "N passed, N failed" over all of them.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logdir=${KT_CHECK_LOGS:-$top/build/check}
mkdir -p "$logdir"
rm -f "$logdir"/*.retries

passed=0 failed=0 skipped=0
# Each suite's wall time, summed up at the end: CI stops at 90 minutes,
# and the log should say where they went.
times=()

# count LOG: add a TAP log's results to the totals.
count() {
	local p f s
	p=$(grep -c '^ok ' "$1")
	s=$(grep -c '^ok .* # skip' "$1")
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
}

# suite NAME CMD...: run one TAP-producing suite, show and count it.
suite() {
	local name=$1 log="$logdir/$1.tap"
	shift
	local start=$SECONDS
	echo "== $name"
	: >"$logdir/$name.retries"
	KT_RETRY_LOG="$logdir/$name.retries" "$@" 2>&1 | tee "$log"
	# (The VM suites ran before, side by side: vm_suites times them.)
	[[ $name == vm-* ]] || times+=("$name $((SECONDS - start)) s")
	if ! grep -q '^1\.\.' "$log"; then
		# A runner that died before its plan counts as one failure.
		echo "not ok 1 $name did not run to completion" >>"$log"
	fi
	count "$log"
}

# Each fuzz target links with libFuzzer (clang), against the normal
# build's lib objects and ktrace's libraries (make fuzz-link: seconds):
# a lib room that brings a new library cannot break make fuzz unseen.
fuzz_link() {
	local src t n=0 out
	set -- tests/fuzz/fuzz_*.c
	echo "1..$(($# - 1))"
	for src; do
		t=$(basename "$src" .c)
		[ "$t" = fuzz_common ] && continue
		n=$((n + 1))
		rm -f "build/fuzz-link/$t"
		if out=$(make -s "build/fuzz-link/$t" 2>&1); then
			echo "ok $n $t builds and links with libFuzzer"
		else
			echo "not ok $n $t builds and links with libFuzzer"
			printf '%s\n' "$out" | sed 's/^/# /'
		fi
	done
}

suite fuzz-link fuzz_link
suite bats env KTRACE="$top/ktrace" bats --tap --timing tests/bats
# A file whose every test runs only ASan-built tools (tests/unit's
# drivers), never $KTRACE, says so on a line "# check.sh: ASan-built
# only": the second pass would run it again byte for byte.
# shellcheck disable=SC2046 # one word a file
suite bats-asan env KTRACE="$top/build/asan/ktrace" \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	bats --tap --timing $(grep -L '^# check.sh: ASan-built only' tests/bats/*.bats)
# The VM tests: one tests/vm/run.sh per kernel, all at once, each in a
# build directory of its own.  A TCG boot runs its vCPUs on one host
# thread, so one after another they left a core idle: 26 minutes in CI;
# side by side on 2 cores they took 13 (measured at load 6).  Each kernel
# gets the load/unload cycles it got in turn: 100 in the first, 25 in
# the others.
vm_suites() {
	local s cycles=${KT_VM_CYCLES:-100} start=$SECONDS
	# Download what is missing once, before the boots ask apt at once.
	tests/vm/fetch-kernels.sh "$@" >/dev/null 2>"$logdir/vm-fetch.log"
	for s; do
		mkdir -p "build/vm/$s"
		KT_VM_SERIES=$s KT_VM_OUT="$top/build/vm/$s" KT_VM_CYCLES=$cycles \
			tests/vm/run.sh >"$logdir/vm-$s.out" 2>&1 &
		cycles=${KT_VM_CYCLES:-25}
	done
	wait
	times+=("vm, the kernels side by side, $((SECONDS - start)) s")
	for s; do
		suite "vm-$s" cat "$logdir/vm-$s.out"
	done
}
if [ -x tests/vm/run.sh ]; then
	# shellcheck disable=SC2086 # a list of series
	vm_suites ${KT_VM_SERIES:-6.1 6.12 6.1-rt}
fi

# Repeat each failure with the start of its diagnostics just above the
# summary: a CI page that keeps only the end of the output still names
# what failed and why.
if [ "$failed" -gt 0 ]; then
	echo "== failures"
	for log in "$logdir"/*.tap; do
		awk -v suite="$(basename "$log" .tap)" '
			/^not ok / { shown = 0; print suite ": " $0; inside = 1; next }
			/^(ok|not ok) / { inside = 0 }
			inside && /^#/ && shown < 12 { print "  " $0; shown++ }
		' "$log"
	done
fi
# Tests that passed only on their second try (helpers.bash): shown, so a
# race is fixed rather than lived with.
retried=$(cat "$logdir"/*.retries 2>/dev/null | wc -l)
if [ "$retried" -gt 0 ]; then
	echo "== passed on a second try ($retried)"
	for r in "$logdir"/*.retries; do
		sed "s/^/$(basename "$r" .retries): /" "$r"
	done
fi
# The slowest tests, so that the time CI has left is spent knowingly.
echo "== time: ${times[*]/%/;} in all $((SECONDS / 60)) min"
for log in "$logdir"/bats*.tap; do
	[ -f "$log" ] || continue
	sed -nE "s/^ok ([0-9]+) (.*) in ([0-9]+)ms$/\3 $(basename "$log" .tap) \1 \2/p" "$log"
done | sort -rn | head -n 8 | awk '{ printf "%6.1f s %s\n", $1 / 1000, substr($0, length($1) + 2) }'
if [ "$skipped" -gt 0 ]; then
	echo "$skipped skipped"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
