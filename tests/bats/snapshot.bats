#!/usr/bin/env bats
# ktrace snapshot and SIGUSR2: a whole trace.dat of a running record
# (plain, --flight, --rotate), read by trace-cmd as the oracle, counted
# against a workload that counts itself (marks into the instance's
# trace_marker, one ftrace:print each, phase by phase: "a 1".."a N",
# "b 1"..): each snapshot holds exactly the marks written before it was
# asked, the recording goes on and its file holds every mark once; the
# bad cases say one line, exit nonzero and leave nothing behind.  The
# registry is the test's own ($KTRACE_RUN_DIR).

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	export KT_SNAP_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool marks "$KT_SNAP_BIN"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	export KTRACE_RUN_DIR="$BATS_TEST_TMPDIR/run"
	top_events_before=$(cat "$TRACEFS/set_event")
}

teardown() {
	cd /
	umount_tmpfs
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids" INT
	[ "$(cat "$TRACEFS/set_event")" = "$top_events_before" ] ||
		fail "top-level set_event changed: $(cat "$TRACEFS/set_event")"
}

# ktrace record -e ftrace:print ARGS... in the background, until SIGINT;
# $pid once it is in the registry (tracing on).
started() {
	env --default-signal=INT "$KTRACE" record -q -e ftrace:print "$@" 2>"$BATS_TEST_TMPDIR/rec.err" &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	for _ in $(seq 1000); do
		[ -e "$KTRACE_RUN_DIR/$pid" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	fail "ktrace record $* never started: $(cat "$BATS_TEST_TMPDIR/rec.err")"
}

# stop: SIGINT to the recording, its status 0, its registry entries gone.
stop() {
	kill -INT "$pid"
	wait "$pid" || fail "ktrace record exited $?: $(cat "$BATS_TEST_TMPDIR/rec.err")"
	[ -z "$(ls -A "$KTRACE_RUN_DIR" 2>/dev/null | grep "^\.\?$pid\b")" ] ||
		fail "left in the registry: $(ls -A "$KTRACE_RUN_DIR")"
}

# marks N TAG [RATE]: "TAG 1".."TAG N" into the recording's instance.
marks() {
	"$KT_SNAP_BIN/marks" "$1" "$TRACEFS/instances/ktrace-$pid/trace_marker" "$2" ${3:+"$3"} ||
		fail "marks $* failed"
}

# tagged FILE... TAG: the numbers of TAG's marks in the files, as
# trace-cmd reads each file on its own, in order.
tagged() {
	local tag=${*: -1} f
	for f in "${@:1:$#-1}"; do
		trace-cmd report -i "$f" 2>/dev/null | sed -n "s/.*: $tag \([0-9]*\)\$/\1/p"
	done
}

# exact TAG N FILE...: TAG's marks in the files, one after the other (a
# series), are 1..N in order, once each.
exact() {
	local tag=$1 n=$2
	shift 2
	tagged "$@" "$tag" >got
	cmp -s got <(seq "$n") ||
		fail "'$tag' marks in $*: $(wc -l <got), not 1..$n ($(sort -n got | uniq -d | head -3 | tr '\n' ' ')dup)"
}

# The one line a snapshot prints: its file, span, events and losses.
line_ok() { # OUTPUT FILE
	[ "${#lines[@]}" -eq 1 ] || fail "not one line: $1"
	[[ $1 =~ ^snapshot\ \'$2\':\ [0-9]+\.[0-9]{6}\ s,\ [0-9]+\ events,\ [0-9]+\ lost$ ]] ||
		fail "not the snapshot line: $1 (of $2)"
}

# events_in OUTPUT: the events the line says.
events_in() {
	sed -n 's/.* s, \([0-9]*\) events,.*/\1/p' <<<"$1"
}

@test "plain: a snapshot mid-run holds every mark so far, the recording goes on and keeps them all once" {
	started -o rec.dat
	marks 3000 a
	run -0 "$KTRACE" snapshot -o s1.dat
	line_ok "$output" "$PWD/s1.dat"
	[ "$(events_in "$output")" -eq 3000 ] || fail "$output: not 3000 events"
	marks 2000 b
	run -0 "$KTRACE" snapshot "$pid" -o s2.dat
	line_ok "$output" "$PWD/s2.dat"
	marks 1000 c
	stop
	exact a 3000 s1.dat
	exact b 0 s1.dat
	exact a 3000 s2.dat
	exact b 2000 s2.dat
	exact c 0 s2.dat
	exact a 3000 rec.dat
	exact b 2000 rec.dat
	exact c 1000 rec.dat
	# v7 zstd as record writes, its losses stored as record's are.
	[ "$(dd if=s1.dat bs=1 skip=10 count=1 2>/dev/null)" = 7 ] || fail "s1.dat is not v7"
	run -0 trace-cmd report --stat -i s2.dat
	[[ $output == *"ktrace unwritten events: 0"* ]] || fail "no CPUSTAT in s2.dat"
	[ "$(ls -A | grep -v '^rec.err$' | sort | tr '\n' ' ')" = "got ktrace.pids rec.dat run s1.dat s2.dat " ] ||
		fail "stray files: $(ls -A)"
}

@test "--flight: snapshotted many times, each holds every mark so far, and the recording ends with all of them" {
	started --flight -b 4096 -o rec.dat
	local k
	for k in 1 2 3 4; do
		marks 500 "m$k"
		run -0 "$KTRACE" snapshot -o "s$k.dat"
		line_ok "$output" "$PWD/s$k.dat"
	done
	marks 500 m5
	stop
	for k in 1 2 3 4; do
		exact "m$k" 500 "s$k.dat"
		exact "m$k" 500 s4.dat
		exact "m$k" 500 rec.dat
		exact "m$((k + 1))" 0 "s$k.dat"
	done
	exact m5 500 rec.dat
}

@test "--rotate: a snapshot holds the finished files and the one being written; the series keeps every mark once" {
	started --rotate 100ms -o d
	# Over a second at 1000 a second: several files finish meanwhile.
	marks 1200 a 1000
	run -0 "$KTRACE" snapshot -o s.dat
	line_ok "$output" "$PWD/s.dat"
	local finished
	finished=$(find d -name 'ktrace-*.dat' | wc -l)
	marks 300 b
	stop
	[ "$finished" -ge 2 ] || fail "only $finished files finished before the snapshot"
	exact a 1200 s.dat
	exact b 0 s.dat
	exact a 1200 $(find d -name 'ktrace-*.dat' | sort)
	exact b 300 $(find d -name 'ktrace-*.dat' | sort)
	# The series is read as one still; nothing else in DIR.
	[ -z "$(find d -name '.*' -o -name '*snapshot*')" ] || fail "stray: $(ls -A d)"
}

@test "--rotate: a snapshot says and stores what its finished files lost, not only the file being written" {
	local n lost stored
	started --rotate 100ms -b 4 -o d
	# The recorder stopped, a burst into a one-page buffer: losses in the
	# file being written, which then finishes.
	kill -STOP "$pid"
	# SIGSTOP lands when it lands: every thread stopped before the burst.
	for _ in $(seq 500); do
		! grep -qv '^T' <(sed 's/.*) //' /proc/"$pid"/task/*/stat) && break
		sleep 0.01
	done
	! grep -qv '^T' <(sed 's/.*) //' /proc/"$pid"/task/*/stat) || fail "ktrace record never stopped"
	marks 3000 x || true
	kill -CONT "$pid"
	n=$(find d -name 'ktrace-*.dat' | wc -l)
	for _ in $(seq 500); do
		[ "$(find d -name 'ktrace-*.dat' | wc -l)" -ge $((n + 3)) ] && break
		sleep 0.01
	done
	[ "$(find d -name 'ktrace-*.dat' | wc -l)" -ge $((n + 3)) ] || fail "no files finished after the burst"
	run -0 "$KTRACE" snapshot -o s.dat
	line_ok "$output" "$PWD/s.dat"
	lost=$(sed -n 's/.* events, \([0-9]*\) lost$/\1/p' <<<"$output")
	stop
	# The burst overran the buffer: at least 1000 of the 3000 were lost.
	[ "$lost" -ge 1000 ] || fail "the snapshot says $lost lost: $output"
	stored=$("$KTRACE" stat -i s.dat --json | jq .lost)
	[ "$stored" -eq "$lost" ] || fail "the snapshot stores $stored lost, its line says $lost"
}

@test "SIGUSR2: a snapshot beside the file, its line on record's stderr" {
	started -o rec.dat
	marks 700 a
	kill -USR2 "$pid"
	local f=
	for _ in $(seq 1000); do
		f=$(sed -n "s/^ktrace record: snapshot '\(.*\)': .*/\1/p" rec.err)
		[ -n "$f" ] && break
		sleep 0.01
	done
	[ -n "$f" ] || fail "no snapshot line: $(cat rec.err)"
	[[ $f == "$PWD"/rec.snapshot-[0-9]*-[0-9]*.dat || $f == rec.snapshot-[0-9]*-[0-9]*.dat ]] ||
		fail "not beside rec.dat: $f"
	marks 300 b
	stop
	exact a 700 "$f"
	exact b 0 "$f"
	exact a 700 rec.dat
	exact b 300 rec.dat
	[ "$(grep -c . rec.err)" -eq 1 ] || fail "more on stderr: $(cat rec.err)"
}

@test "--rotate and SIGUSR2: the snapshot beside DIR, the series still reads as one" {
	started --rotate 1G -o d
	marks 400 a
	kill -USR2 "$pid"
	for _ in $(seq 1000); do
		grep -q "^ktrace record: snapshot '" rec.err && break
		sleep 0.01
	done
	stop
	local s
	s=$(find . -maxdepth 1 -name 'd.snapshot-*.dat')
	[ -n "$s" ] || fail "no snapshot beside d: $(ls -A); $(cat rec.err)"
	exact a 400 "$s"
	run -0 "$KTRACE" report -i d
	[ "$(grep -c ': a [0-9]*$' <<<"$output")" -eq 400 ] || fail "report -i d: not the 400 marks"
}

@test "--last: the newest pages only, every mark of the window in" {
	started -o rec.dat
	marks 3000 a
	# The window's start falls in the gap.
	sleep 4
	marks 300 b
	run -0 "$KTRACE" snapshot --last 3s -o s.dat
	line_ok "$output" "$PWD/s.dat"
	stop
	exact b 300 s.dat
	tagged s.dat a >a
	[ "$(wc -l <a)" -lt 3000 ] || fail "--last 3s kept every older mark"
	! grep -qx 1 a || fail "--last 3s kept the oldest page"
	exact a 3000 rec.dat
	exact b 300 rec.dat
}

# file_events FILE: the events FILE's per-CPU table holds, summed.
file_events() {
	"$KTRACE" stat -i "$1" | awk '$1 == "top" && $2 ~ /^[0-9]+$/ { s += $3 } END { print s + 0 }'
}

@test "--trigger: a snapshot of the ring holds every mark of its window, zstd as the recording asked, its events counted as its file holds them; --packed-ring the same" {
	local ring n
	for ring in "" --packed-ring; do
		rm -rf m s.dat
		# --before 2s --after 100ms: the ring's chunks are 0.525 s
		# long, 8 kept: over 4 s, so the whole run is in it.
		started --trigger 'syscall>10s' --before 2s --after 100ms $ring -o m
		marks 1500 a 1000
		run -0 "$KTRACE" snapshot -o s.dat
		line_ok "$output" "$PWD/s.dat"
		n=$(events_in "$output")
		marks 200 b
		stop
		exact a 1500 s.dat
		exact b 0 s.dat
		[ "$("$KTRACE" stat -i s.dat | head -n 1 | grep -c 'v7, compression zstd')" -eq 1 ] ||
			fail "${ring:-unpacked}: $("$KTRACE" stat -i s.dat | head -n 1)"
		[ "$n" -eq "$(file_events s.dat)" ] ||
			fail "${ring:-unpacked}: the line says $n events, the file holds $(file_events s.dat)"
		[ -z "$(find m -name '.ktrace-ring-*')" ] || fail "${ring:-unpacked}: the ring is left: $(ls -A m)"
	done
}

@test "a snapshot reads each CPU's partly filled page once, though a recording of raw_syscalls feeds its own buffer as it reads" {
	strace -f -y -qq -e trace=read -e signal=none -o st.txt \
		env ASAN_OPTIONS="$(kt_asan_unleaked)" "$KTRACE" record -q -e raw_syscalls -o k.dat -- sleep 4 &
	tracer=$!
	echo "$tracer" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	for _ in $(seq 1000); do
		[ -n "$(ls "$KTRACE_RUN_DIR" 2>/dev/null)" ] && break
		sleep 0.01
	done
	for i in 1 2 3 4 5; do
		run -0 "$KTRACE" snapshot -o "s$i.dat"
		sleep 0.2
	done
	wait "$tracer" || fail "ktrace record exited $?"
	raw_reads_check st.txt 5
	trace-cmd report -i s5.dat >/dev/null 2>err || fail "trace-cmd cannot read s5.dat: $(cat err)"
}

@test "no recording, several, a stale entry, a pid that is not a recording: one line, status 1, the registry cleaned" {
	run -1 "$KTRACE" snapshot
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"no recording running"* ]] || fail "$output"
	mkdir -p "$KTRACE_RUN_DIR"
	sleep 0 &
	local dead=$!
	wait "$dead"
	printf 'pid %d\nmode plain\noutput x.dat\nstart 1\n' "$dead" >"$KTRACE_RUN_DIR/$dead"
	printf 'pid %d\nmode plain\noutput x.dat\nstart 1\n' "$$" >"$KTRACE_RUN_DIR/$$"
	run -1 "$KTRACE" snapshot
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"no recording running"* ]] || fail "$output"
	[ -z "$(ls -A "$KTRACE_RUN_DIR")" ] || fail "stale entries left: $(ls -A "$KTRACE_RUN_DIR")"
	run -1 "$KTRACE" snapshot "$dead"
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"no recording with pid $dead"* ]] || fail "$output"
	started -o one.dat
	local first=$pid
	started -o two.dat
	run -1 "$KTRACE" snapshot
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"2 recordings running"*"$first"*"$pid"* ]] ||
		fail "$output"
	stop
	pid=$first
	stop
	[ -z "$(ls -A "$KTRACE_RUN_DIR")" ] || fail "left in the registry: $(ls -A "$KTRACE_RUN_DIR")"
	[ "$(ls -A | sort | tr '\n' ' ')" = "ktrace.pids one.dat rec.err run two.dat " ] || fail "stray files: $(ls -A)"
}

@test "bad PID, bad --last: usage, status 64" {
	run -64 "$KTRACE" snapshot abc
	[[ ${lines[0]} == *"bad PID 'abc'"* ]] || fail "$output"
	run -64 "$KTRACE" snapshot 0
	[[ ${lines[0]} == *"bad PID '0'"* ]] || fail "$output"
	run -64 "$KTRACE" snapshot --last 5x
	[[ ${lines[0]} == *"bad --last '5x'"* ]] || fail "$output"
	run -64 "$KTRACE" snapshot --last 0s
	[[ ${lines[0]} == *"bad --last '0s'"* ]] || fail "$output"
	run -64 "$KTRACE" snapshot --last 5M
	[[ ${lines[0]} == *"bad --last '5M'"* ]] || fail "$output"
}

@test "unwritable -o, a full disk: one line, status 1, nothing left, the recording goes on" {
	started -o rec.dat
	marks 500 a
	run -1 "$KTRACE" snapshot -o /nonexistent/s.dat
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"cannot write '/nonexistent/s.dat'"* ]] || fail "$output"
	# Refused by the recorder: it answers why.
	run -1 "$KTRACE" snapshot -o /proc/s.dat
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"cannot write '/proc/s.dat'"* ]] || fail "$output"
	tmpfs_at mnt 64K
	run -1 "$KTRACE" snapshot -o mnt/s.dat
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"No space left on device"* ]] || fail "$output"
	[ -z "$(ls -A mnt)" ] || fail "left in mnt: $(ls -A mnt)"
	# Room for the file's start, not for its pages: the pages are read
	# only, never cut (the recording's file below still has them all).
	marks 300000 p
	tmpfs_at mnt2 1100K
	run -1 "$KTRACE" snapshot -o mnt2/s.dat
	[ "${#lines[@]}" -eq 1 ] && [[ $output == *"No space left on device"* ]] || fail "$output"
	[ -z "$(ls -A mnt2)" ] || fail "left in mnt2: $(ls -A mnt2)"
	marks 500 b
	run -0 "$KTRACE" snapshot -o s.dat
	stop
	exact a 500 s.dat
	exact b 500 s.dat
	exact a 500 rec.dat
	exact p 300000 rec.dat
	exact b 500 rec.dat
	[ "$(ls -A | sort | tr '\n' ' ')" = "got ktrace.pids mnt mnt2 rec.dat rec.err run s.dat " ] || fail "stray files: $(ls -A)"
}
