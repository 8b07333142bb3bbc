#!/usr/bin/env bats
# ktrace diff: on live recordings of a workload of known structure
# (tests/lockreg.c: four threads take one lock, beside fsyncs and naps),
# run unchanged and with a seeded regression (one thread holds the lock
# 2 ms longer each time).  The regression ranks first, as the lock's
# row, and is significant; unchanged runs give no significant row.  The
# workload runs at a real-time priority (chrt), and its fsyncs are on
# tmpfs, so that the machine's other load (CPU, and the disk, whose
# waits change between runs for real; on it, bench/diff-pairs.sh counts
# the pairs: BENCHMARKS.md) does not change it between runs.  Bad input
# says what to do.

load helpers

setup_file() {
	export KT_DF_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool lockreg "$KT_DF_BIN" -lpthread
	tracefs_dir
	cd "$BATS_FILE_TMPDIR"
	: >"$BATS_FILE_TMPDIR/ktrace.pids"
	export KT_DF_SYNC
	KT_DF_SYNC=$(mktemp -d /dev/shm/kt-diff.XXXXXX)
	# Three pairs each: base runs a1..a4, regressed runs b1..b3.
	for f in a1 b1 a2 b2 a3 b3 a4; do
		extra=0
		[ "${f#b}" != "$f" ] && extra=2000
		BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR rec -q -c --for offcpu --for cpu --for syscalls \
			-o "$BATS_FILE_TMPDIR/$f.dat" -- chrt -f 10 "$KT_DF_BIN/lockreg" "$extra" 50 "$KT_DF_SYNC" >/dev/null
	done
}

teardown_file() {
	rm -rf "$KT_DF_SYNC"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
}

teardown() {
	cd /
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
}

# The lock's rows: locker0's runs, the futex calls, the futex waits.
lock_row='(.kind == "task" and .name == "locker0") or (.kind == "syscall" and .name == "futex") or (.kind == "offcpu" and (.name | test("futex")))'

# The issue's bar is 9 pairs in 10; of three pairs, at least two (a
# diff that ranks right 9 times in 10 passes this 97 times in 100; one
# that ranks wrong fails it).  The hypervisor stealing a CPU for tens of
# ms in one run, at chrt's priority still, is the odd pair's cause.

@test "diff: the seeded regression (a lock held 2 ms longer) ranks first, significant, in at least 2 pairs of 3" {
	local good=0 g=0 task=0
	for i in 1 2 3; do
		run "$KTRACE" diff "$BATS_FILE_TMPDIR/a$i.dat" "$BATS_FILE_TMPDIR/b$i.dat" --format json
		assert_success
		# locker0's runs are cut where it waits: their lengths barely
		# move, its total does in every stretch of the run.
		jq -e '.rows[] | select(.kind == "task" and .name == "locker0") | .significant' \
			<<<"$output" >/dev/null && task=$((task + 1))
		if jq -e ".rows[0] | .significant and .delta.total_ns > 0 and ($lock_row)" <<<"$output" >/dev/null; then
			good=$((good + 1))
			[ "$g" -gt 0 ] || g=$i
		else
			echo "# pair $i: first row $(jq -c '.rows[0]' <<<"$output")" >&3
		fi
	done
	[ "$good" -ge 2 ] || fail "the regression ranked first in $good pairs of 3"
	[ "$task" -ge 2 ] || fail "locker0's run time was significant in $task pairs of 3"
	# In the first of those pairs:
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a$g.dat" "$BATS_FILE_TMPDIR/b$g.dat" --format json
	# locker0 ran 2 ms longer 50 times: 100 ms more on the CPU (its runs
	# are split where it waits for the lock, so their median need not move).
	jq -e '.rows[] | select(.kind == "task" and .name == "locker0") |
		.delta.total_ns > 80000000 and .delta.total_ns < 130000000' <<<"$output"
	# The table marks it, first.
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a$g.dat" "$BATS_FILE_TMPDIR/b$g.dat" --significant --top 1
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == "*  "* ]] || fail "not marked: ${lines[1]}"
}

@test "diff: two runs of the unchanged workload: no row significant, in at least 2 pairs of 3" {
	local quiet=0
	for p in "a1 a2" "a3 a4" "a2 a3"; do
		set -- $p
		run "$KTRACE" diff "$BATS_FILE_TMPDIR/$1.dat" "$BATS_FILE_TMPDIR/$2.dat" --format json
		assert_success
		if jq -e '[.rows[] | select(.significant)] | length == 0' <<<"$output" >/dev/null; then
			quiet=$((quiet + 1))
		else
			echo "# $1 against $2: $(jq -c '[.rows[] | select(.significant)]' <<<"$output")" >&3
		fi
		# Rows were tested all the same: the workload's calls and waits.
		jq -e '[.rows[] | select(.tested)] | length >= 5' <<<"$output"
	done
	[ "$quiet" -ge 2 ] || fail "a row was significant in $((3 - quiet)) unchanged pairs of 3"
}

@test "diff --format json: each row names its kind and name, both sides and the delta" {
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" "$BATS_FILE_TMPDIR/b1.dat" --format json
	assert_success
	jq -e '.a and .b and (.rows | length > 5) and
		all(.rows[]; (.kind | IN("task", "syscall", "offcpu", "irq", "softirq")) and
			(.name | length > 0) and .delta.total_ns == .b.total_ns - .a.total_ns and
			.delta.count == .b.count - .a.count and .rank >= 1)' <<<"$output"
	# Each side's figures are what analyze syscalls says of its file.
	for s in a b; do
		f=$BATS_FILE_TMPDIR/${s}1.dat
		want=$("$KTRACE" analyze syscalls -i "$f" --format json |
			jq -r '.rows[] | select(.syscall == "clock_nanosleep") | "\(.calls) \(.total_ns) \(.p50_ns) \(.p99_ns)"')
		got=$(jq -r --arg s "$s" '.rows[] | select(.kind == "syscall" and .name == "clock_nanosleep") | .[$s] | "\(.count) \(.total_ns) \(.p50_ns) \(.p99_ns)"' <<<"$output")
		[ "$got" = "$want" ] || fail "$s: diff $got, analyze $want"
	done
	# The workload's threads, by comm; sleeper's 50 naps on each side.
	jq -e '.rows[] | select(.kind == "syscall" and .name == "clock_nanosleep") | .a.count >= 300 and .b.count >= 300' <<<"$output"
	jq -e '[.rows[] | select(.kind == "task") | .name] | index("locker3") and index("syncer") and index("sleeper")' <<<"$output"
	# By impact alone: the largest change in total time first.
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" "$BATS_FILE_TMPDIR/b1.dat" --format json --rank impact
	assert_success
	jq -e '[.rows[] | (.delta.total_ns | fabs)] | . == (sort | reverse)' <<<"$output"
}

@test "diff --flamegraph: B's off-CPU stacks, coloured by their growth from A" {
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" "$BATS_FILE_TMPDIR/b1.dat" --flamegraph -o d.svg
	assert_success
	xmllint --noout d.svg
	grep -q 'class="flamegraph"' d.svg
	grep -q 'data-before=' d.svg
	# The lock's wait grew: a red frame.
	grep -E 'futex[^<]*: [0-9]+ us off-CPU, was [0-9]+ \(\+' d.svg | head -1 | grep -q .
	grep -q 'rgb(255,' d.svg
	# The root's total is B's off-CPU time, its data-before A's.
	b=$("$KTRACE" report -i "$BATS_FILE_TMPDIR/b1.dat" --stacks=offcpu | awk '{ s += $NF } END { print s }')
	grep -q "data-total=\"$b\"" d.svg
}

@test "diff: bad input says what and how, and fails" {
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" nosuch.dat
	assert_failure 1
	assert_output --partial "nosuch.dat"
	[ "${#lines[@]}" -eq 1 ]
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat"
	assert_failure 64
	assert_output --partial "give two recordings"
	# One file with system calls, the other without: what cannot be compared.
	rec -q -c --for cpu --stack sched_switch -o nosys.dat -- \
		chrt -f 10 "$KT_DF_BIN/lockreg" 0 5 "$KT_DF_SYNC" >/dev/null
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" nosys.dat
	assert_failure 1
	[ "${#lines[@]}" -eq 1 ]
	assert_output --partial "cannot compare"
	assert_output --partial "system call"
	assert_output --partial "--for syscalls"
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" "$BATS_FILE_TMPDIR/b1.dat" --flamegraph
	assert_failure 64
	run "$KTRACE" diff "$BATS_FILE_TMPDIR/a1.dat" "$BATS_FILE_TMPDIR/b1.dat" --alpha 2
	assert_failure 64
	head -c 100 "$BATS_FILE_TMPDIR/a1.dat" >cut.dat
	run "$KTRACE" diff cut.dat "$BATS_FILE_TMPDIR/b1.dat"
	assert_failure 2
}
