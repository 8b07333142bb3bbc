# Shared helpers for the ktrace bats suite.
# Tests run the in-tree binary ($KTRACE, set by make check) as root on the
# live tracefs, inside private instances wherever they can.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

# These tests drive the live kernel on a small shared machine: a test that
# loses a timing race (a loaded CPU, trace-cmd's oracle file) gets one more
# try.  A test that fails twice fails the run; make the race go, not the try.
BATS_TEST_RETRIES=1
# A test that hangs (LeakSanitizer's exit scan was once seen to wedge a
# process under ptrace for good) is stopped, and tried again, rather than
# holding the whole run until CI's limit.
BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}
# A second try is not hidden: scripts/check.sh lists every test that
# needed one (KT_RETRY_LOG) above its summary.
if [ "${BATS_TEST_TRY_NUMBER:-1}" -gt 1 ] && [ -n "${KT_RETRY_LOG:-}" ]; then
	echo "$(basename "$BATS_TEST_FILENAME"): $BATS_TEST_NAME" >>"$KT_RETRY_LOG"
fi

KTRACE=${KTRACE:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/ktrace}
TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
export KTRACE TOP

# The drivers of lib code, tests/unit/NAME.c, as `make unit` builds them
# (with ASan+UBSan; make check and make test build them before the suite).
UNIT=$TOP/build/asan/unit

# kt_build_units: make them up to date, for a file that runs one: quiet and
# quick when they are, and a bats file run alone after a change to lib/
# checks the new code, not the last build.
kt_build_units() {
	make -s -C "$TOP" unit >&2
}

tracefs_dir() {
	if [ -z "${TRACEFS:-}" ]; then
		TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
		if [ -z "$TRACEFS" ]; then
			mount -t tracefs nodev /sys/kernel/tracing
			TRACEFS=/sys/kernel/tracing
		fi
		export TRACEFS
	fi
	echo "$TRACEFS"
}
TRACEFS=$(tracefs_dir)

ktrace() {
	"$KTRACE" "$@"
}

# A tracefs instance name unique to this test; removed by kt_cleanup.
kt_test_instance() {
	echo "kt-test-$$-${BATS_TEST_NUMBER:-0}"
}

kt_cleanup_instances() {
	local d
	for d in "$TRACEFS"/instances/kt-test-$$-*; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null || true
	done
}

# assert_no_instance PID: ktrace PID took its instance away with it (one
# left behind is removed, and the test fails).
assert_no_instance() {
	[ -d "$TRACEFS/instances/ktrace-$1" ] || return 0
	rmdir "$TRACEFS/instances/ktrace-$1" 2>/dev/null || true
	fail "instance ktrace-$1 was left behind"
}

# assert_no_instances FILE [SIGNAL]: assert_no_instance for each pid in
# FILE, one a line (rec and rec_started note theirs in ktrace.pids).  With
# SIGNAL, a ktrace still running (its test failed half-way) gets SIGNAL
# and is waited for first.
assert_no_instances() {
	local pid
	while read -r pid; do
		[ -n "$pid" ] || continue
		if [ -n "${2:-}" ] && kill -"$2" "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
		fi
		assert_no_instance "$pid"
	done <"$1"
}

# markers N DIR [PREFIX]: N writes to DIR/trace_marker, N ftrace:print
# events, PREFIX1 to PREFIXN (PREFIX: kt-marker-).
markers() {
	local i
	for ((i = 1; i <= $1; i++)); do
		echo "${3:-kt-marker-}$i" >"$2/trace_marker"
	done
}

# tmpfs_at DIR SIZE: a tmpfs of SIZE at DIR, in the test's directory
# (mnt*, for umount_tmpfs) when it is a relative path.
tmpfs_at() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" tmpfs "$1"
}

# umount_tmpfs: unmount the test's tmpfs ($BATS_TEST_TMPDIR/mnt*), for
# its teardown.
umount_tmpfs() {
	local m
	for m in "$BATS_TEST_TMPDIR"/mnt*; do
		if [ -d "$m" ]; then
			umount "$m" 2>/dev/null
		fi
	done
}

# kt_tool NAME DIR [CC-ARGS...]: compile tests/NAME.c, a workload or test
# program that holds no lib code (the drivers of lib code are the units
# above), into DIR/NAME.
kt_tool() {
	local name=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	cc -O2 -o "$dir/$name" "$TOP/tests/$name.c" "$@"
}

# Fail unless the named instance file has the given content.
assert_tracefs() { # FILE EXPECTED
	local got
	got=$(cat "$TRACEFS/$1")
	[ "$got" = "$2" ] || {
		echo "$TRACEFS/$1: expected '$2', got '$got'" >&2
		return 1
	}
}

# Run a command as an unprivileged user (nobody).
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# ktrace record ARGS..., its pid noted in $BATS_TEST_TMPDIR/ktrace.pids for
# the test's teardown to check (assert_no_instances).
rec() {
	"$KTRACE" record "$@" &
	local pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	wait "$pid"
}

# Start ktrace record ARGS... in the background; $pid is its pid once its
# instance's tracing_on reads 1 (recording has begun).  The pid goes to
# $BATS_TEST_TMPDIR/ktrace.pids for the test's teardown to check.
rec_started() {
	"$KTRACE" record "$@" &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	# A new instance starts with tracing_on 1 until record turns it off
	# to set up: ready is tracing on with the events already enabled.
	local d="$TRACEFS/instances/ktrace-$pid"
	for _ in $(seq 500); do
		[ "$(cat "$d/tracing_on" 2>/dev/null)" = 1 ] &&
			[ -n "$(cat "$d/set_event" 2>/dev/null)" ] && return 0
		sleep 0.01
	done
	fail "ktrace record $* never started"
}

# Complete the words as bash splits them (at ':') and print the replies.
complete_words() { # WORD...
	source "$TOP/completions/ktrace.bash"
	PATH="$(dirname "$KTRACE"):$PATH"
	# LeakSanitizer's exit scan (ptrace) was seen to hang a completion's
	# ktrace for good: off here; other tests check for leaks.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_ktrace
	printf '%s\n' "${COMPREPLY[@]}"
}

# screenshot FILE PNG WIDTH,HEIGHT: headless Chromium draws FILE into PNG
# (a fresh profile, removed after); fails unless a real picture came out.
screenshot() {
	local prof out
	prof=$(mktemp -d)
	out=$(timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$prof" \
		--screenshot="$2" --window-size="$3" "file://$1" 2>&1)
	rm -rf "$prof"
	[ -s "$2" ] || { echo "no screenshot: $out" >&2; return 1; }
	file "$2" | grep -q 'PNG image data'
}

# packed_check MODE NAME FULLMODE MIN: tests/unit/writer-packed.c's MODE
# (split, alone) on in.dat into ./MODE: MODE/NAME.dat, its pages packed
# as they came, must read as MODE/ref.dat, packed by the writer at the
# end, by ktrace and by trace-cmd (in.dat holding over MIN events).
# Then FULLMODE (full, alonefull) into ./full, under disks with room for
# a third, then three quarters, of the data past the head: the writer
# must cut the file (result 1), trace-cmd must read what it kept, and the
# events kept plus those it counted as cut must be in.dat's.
packed_check() {
	local mode=$1 name=$2 fullmode=$3 events head size frac limit cut kept
	[ -f "$TOP/build/faultinj.so" ] || make -s -C "$TOP" build/faultinj.so >/dev/null
	mkdir -p "$mode"
	run -0 "$UNIT/writer-packed" in.dat "$mode" "$mode"
	events=$(sed -n 's/^events //p' <<<"$output")
	head=$(sed -n 's/^head //p' <<<"$output" | head -1)
	[ "$events" -gt "$4" ] || fail "too few events to cut: $output"
	cmp <("$KTRACE" report -i "$mode/ref.dat") <("$KTRACE" report -i "$mode/$name.dat") ||
		fail "the pages packed as they came read differently"
	cmp <(trace-cmd report -i "$mode/$name.dat" 2>&1) <(trace-cmd report -i "$mode/ref.dat" 2>&1) ||
		fail "trace-cmd reads the two differently"
	size=$(stat -c %s "$mode/ref.dat")
	for frac in "1 3" "3 4"; do
		set -- $frac
		limit=$((head + (size - head) * $1 / $2))
		rm -rf full && mkdir full
		run -0 env LD_PRELOAD="$TOP/build/faultinj.so" KT_FAULT_FULL="*/full/$fullmode.dat*:$limit" \
			ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
			"$UNIT/writer-packed" in.dat full "$fullmode"
		cut=$(sed -n 's/^cut //p' <<<"$output")
		[[ $output == *"result 1"* ]] || fail "the disk did not cut it (limit $limit): $output"
		run -0 trace-cmd report -i "full/$fullmode.dat"
		[[ $output != *"rror"* ]] || fail "trace-cmd: $(grep -m3 rror <<<"$output")"
		kept=$("$KTRACE" report -i "full/$fullmode.dat" --stat --format json | jq '[.events[].total] | add // 0')
		[ "$cut" -gt 0 ] && [ "$kept" -gt 0 ] || fail "limit $limit: kept $kept, cut $cut"
		[ $((kept + cut)) -eq "$events" ] ||
			fail "limit $limit: kept $kept + cut $cut != $events"
	done
}

# ASAN_OPTIONS for a command run under strace: LeakSanitizer cannot
# work under ptrace, so leaks are not looked for there.
kt_asan_unleaked() {
	echo "${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

# raw_reads_check STRACE_FILE FLUSHES: strace -f -y's reads of a
# recording; each CPU's trace_pipe_raw must have been read (read(2), the
# partly filled page) at most once a flush (a cut, a snapshot) and a few
# times at the end.  A recording of raw_syscalls feeds its own buffer
# with each read, so a recorder that read on until the buffer was empty
# read hundreds of nearly empty pages a flush.
raw_reads_check() {
	local most
	most=$(sed -n 's/.*per_cpu\/\(cpu[0-9]*\)\/trace_pipe_raw>, .*) = [1-9][0-9]*$/\1/p' "$1" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
	echo "# at most ${most:-0} reads of a CPU's trace_pipe_raw for $2 flushes" >&3
	[ "${most:-0}" -ge 1 ] || fail "no read of a trace_pipe_raw in $1: $(head -3 "$1")"
	[ "$most" -le $(($2 + 3)) ] || fail "a CPU's trace_pipe_raw read $most times for $2 flushes"
}
