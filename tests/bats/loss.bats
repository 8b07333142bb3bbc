#!/usr/bin/env bats
# Exact loss accounting: a workload that numbers its events (tests/marks.c,
# one pinned writer per CPU into the instance's trace_marker) overflows a
# small buffer on a loaded machine; every event is then either in the
# file or counted as lost, the gaps in each CPU's numbering sit exactly
# where the file marks a loss, and ktrace's numbers, the file's CPU
# statistics and the kernel's counters agree.

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	export KT_LOSS_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool marks "$KT_LOSS_BIN"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	load_pid=
}

teardown() {
	cd /
	if [ -n "$load_pid" ]; then
		kill "$load_pid" 2>/dev/null || true
		wait "$load_pid" 2>/dev/null || true
	fi
}

# Record N marks per CPU, each CPU's writer pinned to it, into FILE with
# the record options given; ktrace's stderr lands in FILE.log.
record_marks() { # FILE N OPTIONS...
	local out=$1 n=$2
	shift 2
	run "$KTRACE" record -o "$out" "$@" -e ftrace:print -- sh -c '
		m=/sys/kernel/tracing/instances/ktrace-$PPID/trace_marker
		cpu=0 pids=
		while [ $cpu -lt "$2" ]; do
			taskset -c $cpu "$0" "$1" "$m" cpu$cpu &
			pids="$pids $!"
			cpu=$((cpu + 1))
		done
		st=0
		for p in $pids; do wait $p || st=$?; done
		exit $st' "$KT_LOSS_BIN/marks" "$n" "$(nproc)"
	printf '%s\n' "$output" >"$out.log"
}

# Every CPU busy with stress-ng (stopped by teardown).
start_load() {
	stress-ng --cpu "$(nproc)" --timeout 60 -q &
	load_pid=$!
}

# The per-CPU rows of ktrace's summary: "CPU events overrun dropped".
summary_rows() { # LOG
	awk '/CPU +events +bytes +overrun +dropped/ { on = 1; next }
	     on && $1 ~ /^[0-9]+$/ { print $1, $2, $(NF - 1), $NF; next }
	     on { on = 0 }' "$1"
}

# One CPUSTAT field of CPU from the file, as trace-cmd shows it.
file_stat() { # FILE CPU FIELD
	trace-cmd report -i "$1" --stat 2>/dev/null |
		awk -v cpu="CPU: $2" -v f="$3: " '$0 == cpu { on = 1; next }
			/^CPU: / { on = 0 }
			on && index($0, f) == 1 { print substr($0, length(f) + 1); exit }'
}

@test "a 16 KB buffer under stress-ng: every mark read or counted lost, gaps where the file says" {
	local n=50000 cpu events overrun dropped total_lost=0
	start_load
	record_marks l.dat "$n" -b 16
	assert_success
	trace-cmd report -i l.dat >l.txt 2>/dev/null
	# Gaps and drop marks agree, per CPU; "cpuK read lost unknown".
	run awk -f "$TOP/tests/lossgaps.awk" l.txt
	assert_success
	gaps=$output
	# ktrace report shows the same marks and the same losses.
	"$KTRACE" report -i l.dat >l.kt
	run awk -f "$TOP/tests/lossgaps.awk" l.kt
	assert_success
	[ "$(sort <<<"$output")" = "$(sort <<<"$gaps")" ] ||
		fail "ktrace report: $output; trace-cmd: $gaps"
	rows=$(summary_rows l.dat.log)
	[ "$(wc -l <<<"$rows")" -eq "$(nproc)" ] || fail "summary: $(cat l.dat.log)"
	while read -r cpu events overrun dropped; do
		# Every event of the workload is read or lost, exactly.
		[ $((events + overrun + dropped)) -eq "$n" ] ||
			fail "CPU $cpu: $events read + $overrun overrun + $dropped dropped != $n"
		# What the file holds is what ktrace says it read ...
		read -r _ fread flost unknown < <(grep "^cpu$cpu " <<<"$gaps")
		[ "$fread" -eq "$events" ] || fail "CPU $cpu: $fread marks in the file, ktrace read $events"
		# ... and the gaps in the numbering are what it says was lost.
		[ "$flost" -eq $((overrun + dropped)) ] ||
			fail "CPU $cpu: gaps of $flost in the file, ktrace lost $((overrun + dropped))"
		# The file's CPU statistics agree (a fresh instance: the counters
		# over the run are the counters at the end).
		[ "$(file_stat l.dat "$cpu" overrun)" -eq "$overrun" ] || fail "CPU $cpu: file overrun"
		[ "$(file_stat l.dat "$cpu" "read events")" -eq "$events" ] || fail "CPU $cpu: file read events"
		[ "$(file_stat l.dat "$cpu" "commit overrun")" -eq 0 ] || fail "CPU $cpu: commit overrun"
		total_lost=$((total_lost + overrun + dropped))
	done <<<"$rows"
	# The test means something only when the buffer did overflow.
	[ "$total_lost" -gt 0 ] || fail "nothing was lost; the test proved nothing"
	grep -q "warning: LOST $total_lost events" l.dat.log || fail "loss not reported: $(cat l.dat.log)"
	grep -q "DROPPED" l.txt || fail "no drop marks in the file"
	echo "# lost $total_lost of $((n * $(nproc))); $gaps" >&3
}

@test "a buffer big enough: nothing lost, no drop mark, every mark in order" {
	local n=20000
	record_marks b.dat "$n" -b 8192
	assert_success
	refute_output --partial "LOST"
	trace-cmd report -i b.dat >b.txt 2>/dev/null
	run awk -f "$TOP/tests/lossgaps.awk" b.txt
	assert_success
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		assert_line "cpu$cpu $n 0 0"
	done
	! grep -q "DROPPED" b.txt || fail "a drop mark with nothing lost"
}

@test "--max-lost 0 fails with status 3 on the same overflow, and the file is still whole" {
	start_load
	record_marks m.dat 50000 -b 16 -q --max-lost 0
	assert_failure 3
	assert_output --partial "more than --max-lost 0"
	trace-cmd report -i m.dat >m.txt 2>/dev/null
	run awk -f "$TOP/tests/lossgaps.awk" m.txt
	assert_success
}

@test "a loss the kernel could not count is shown as unknown, never as 0" {
	# A recording whose first page carries the "events missed" flag
	# without a stored count, as the kernel leaves a page with no room
	# for it (a fuzz seed too).
	f=$TOP/tests/fuzz/corpus/file/ktrace-v6-unknown-loss.dat
	run trace-cmd report -i "$f"
	assert_line "CPU:0 [EVENTS DROPPED]"
	run "$KTRACE" report -i "$f"
	assert_success
	assert_line "CPU:0 [EVENTS DROPPED]"
	refute_output --regexp '\[0 EVENTS'
	run "$KTRACE" report --stat -i "$f"
	assert_output --partial "some events lost"
	refute_output --regexp '(^| )0 events lost'
}
