#!/usr/bin/env bats
# ktrace analyze critpath: on a live recording (record --for sched) of
# tests/pipeline.c, three threads of known structure: C hands a token to
# A and waits on a condition variable; A computes, sleeps and writes a
# pipe; B reads it, computes and signals C.  C's waits must be given to
# A's and B's running and sleeping as the program itself measured them.

load helpers

setup_file() {
	export KT_CP_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool pipeline "$KT_CP_BIN" -pthread
	cd "$BATS_FILE_TMPDIR"
	: >"$BATS_FILE_TMPDIR/ktrace.pids"
	# 8 rounds of A 30 ms on the CPU, A 20 ms asleep, B 25 ms on the CPU.
	# The CPUs' steal time meanwhile (/proc/stat, in clock ticks): on
	# this VM the hypervisor takes a CPU now and then, and that time is
	# in a task's time on the CPU by the trace but not by its CPU clock.
	steal0=$(awk '$1 == "cpu" { print $9 }' /proc/stat)
	BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR rec -q --for sched -o "$BATS_FILE_TMPDIR/p.dat" -- \
		"$KT_CP_BIN/pipeline" 8 30 20 25 >"$BATS_FILE_TMPDIR/p.out"
	steal1=$(awk '$1 == "cpu" { print $9 }' /proc/stat)
	# A tick each side for the counters' rounding.
	echo $(((steal1 - steal0 + 2) * 1000000000 / $(getconf CLK_TCK))) >"$BATS_FILE_TMPDIR/steal_ns"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
}

teardown() {
	cd /
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
}

# ns COMM STATE: the critpath JSON's row of that task and state (0: none).
ns() {
	jq --arg c "$1" --arg s "$2" '[.rows[] | select(.comm == $c and .state == $s) | .ns] | add // 0' <<<"$cp"
}

# within GOT UNKNOWN WANT: GOT at most 5% above WANT (and the time the
# hypervisor stole from the CPUs meanwhile), and GOT with the time the
# file cannot tell (the switches it lacks) at most 5% below.
within() {
	local steal
	steal=$(cat "$BATS_FILE_TMPDIR/steal_ns")
	[ $(($1 * 100)) -le $(($3 * 105 + steal * 100)) ] && [ $((($1 + $2) * 100)) -ge $(($3 * 95)) ] ||
		fail "$4: $1 ns (and $2 ns unknown), the program's $3 ns (steal time meanwhile $steal ns)"
}

@test "analyze critpath: C's waits are A's running and sleeping and B's running, as the pipeline measured them" {
	read -r _ ta tb tc a_run a_sleep b_run c_wait <"$BATS_FILE_TMPDIR/p.out"
	cp=$("$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --format json 2>/dev/null)
	jq -e --argjson c "$tc" '.targets | length == 1 and .[0].pid == $c and .[0].comm == "stageC"' <<<"$cp"
	unknown=$(jq '[.rows[] | select(.state == "unknown") | .ns] | add // 0' <<<"$cp")
	within "$(ns stageA running)" "$unknown" "$a_run" "stageA running"
	within "$(ns stageB running)" "$unknown" "$b_run" "stageB running"
	# Asleep: from A's switch-out to the timer's wakeup, 8 naps of 20 ms
	# each (and its timer slack); the program's clock around nanosleep
	# adds A's wait for a CPU after it, so it is the most.
	sleep_ns=$(ns stageA sleep-S)
	within "$sleep_ns" "$unknown" 160000000 "stageA sleep-S"
	[ "$sleep_ns" -le "$a_sleep" ] || fail "stageA asleep $sleep_ns ns, more than the program's $a_sleep"
	# A timer, not a task, ends A's naps: nothing is followed past them;
	# other tasks (a kernel thread that woke one of the stages) hold
	# under 1% of C's time.
	jq -e '([.rows[] | select(.comm != "stageA" and .comm != "stageB" and .comm != "stageC") | .ns] | add // 0) < .ns / 100' <<<"$cp"
	# C's waits that a task ended, and its waits for a CPU after: what C
	# measured.  Its runnable time is all of it, also where C was
	# preempted outside the waits it measured (on a loaded host, another
	# task's slice now and then: one ASan run at load 5 had the two
	# 205 ms, 15%, above C's measure): only the bound below counts it.
	woken=$(jq '.targets[0].woken_ns' <<<"$cp")
	within "$woken" "$((unknown + $(ns stageC runnable)))" "$c_wait" "stageC woken"
	jq -e '([.rows[].ns] | add) == .ns and ([.rows[].share] | add | . > 0.999 and . < 1.001)' <<<"$cp"
	# --pid is the same target as --comm.
	[ "$("$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --pid "$tc" --format json 2>/dev/null)" = "$cp" ]
}

@test "analyze critpath: the table and the folded stacks (target;waker;...;state) say the same" {
	read -r _ ta tb tc _ <"$BATS_FILE_TMPDIR/p.out"
	cp=$("$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --format json 2>/dev/null)
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC
	assert_success
	assert_line --regexp "^critical path of stageC \\(tid $tc\\): +[0-9]+\\.[0-9]{3} ms"
	assert_line --regexp "^ +$ta stageA +running +[0-9]+\\.[0-9]{3} +[0-9.]+%$"
	assert_line --regexp "^ +$tb stageB +running +[0-9]+\\.[0-9]{3} +[0-9.]+%$"
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --format folded
	assert_success
	assert_line --regexp "^stageC-$tc;stageB-$tb;stageA-$ta;sleep-S [0-9]+$"
	assert_line --regexp "^stageC-$tc;stageB-$tb;stageA-$ta;running [0-9]+$"
	assert_line --regexp "^stageC-$tc;stageB-$tb;running [0-9]+$"
	# Each path's microseconds, cut: their sum is the JSON's, to a
	# microsecond a line; and A's running by path is its row.
	lines=$(grep -c . <<<"$output")
	sum=$(awk '{ s += $NF } END { print s }' <<<"$output")
	total=$(jq '.ns / 1000 | floor' <<<"$cp")
	[ "$sum" -le "$total" ] && [ "$sum" -ge $((total - lines)) ] || fail "folded $sum us, JSON $total us"
	a=$(awk -v k="stageA-$ta;running" 'index($1, k) { s += $NF } END { print s }' <<<"$output")
	want=$(($(ns stageA running) / 1000))
	[ "$a" -le "$want" ] && [ "$a" -ge $((want - lines)) ] || fail "folded A running $a us, row $want us"
}

@test "analyze critpath --flamegraph: the folded paths as one SVG, stageC at the root, A's running above B" {
	read -r _ ta tb tc _ <"$BATS_FILE_TMPDIR/p.out"
	"$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --flamegraph -o cp.svg 2>/dev/null
	xmllint --noout cp.svg
	total=$("$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --format folded 2>/dev/null |
		awk '{ s += $NF } END { print s }')
	python3 - cp.svg "$total" "stageC-$tc" "stageB-$tb" "stageA-$ta" <<'PY'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
total, c, b, a = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
assert int(root.get("data-total")) == total, (root.get("data-total"), total)
names = {}
for g in root.findall(NS + "g[@class='frame']"):
    t = g.find(NS + "title").text
    names.setdefault(int(g.get("data-depth")), set()).add(t.split(":")[0])
assert names[1] == {c}, names[1]
assert b in names[2], names[2]
assert a in names[3] and "running" in names[4] and "sleep-S" in names[4], names
PY
	grep -q 'data-unit="us"' cp.svg
	grep -q 'class="title"[^>]*>Critical path (target;waker;...;state) of .*p.dat --comm stageC<' cp.svg
	# Where it cannot be written: one line, nothing left under the name.
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --flamegraph -o no/such/dir/cp.svg
	assert_failure 1
	assert_output --partial "cannot create 'no/such/dir/cp.svg'"
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --flamegraph --format json -o x.svg
	assert_failure 64
	[ ! -e x.svg ]
}

@test "analyze critpath: a file without wakeups is refused naming --for sched; no target, --by, --sort are usage errors" {
	"$KTRACE" report -i "$BATS_FILE_TMPDIR/p.dat" -e sched_switch --format dat -o sw.dat
	run "$KTRACE" analyze critpath -i sw.dat --comm stageC
	assert_failure 1
	assert_output --partial "holds no sched_waking or sched_wakeup events"
	assert_output --partial "ktrace record --for sched"
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat"
	assert_failure 64
	assert_output --partial "analyze critpath needs --pid or --comm"
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm stageC --by comm
	assert_failure 64
	run "$KTRACE" analyze sched -i "$BATS_FILE_TMPDIR/p.dat" --format folded
	assert_failure 64
	assert_output --partial "--format folded is analyze offcpu's and critpath's"
	run "$KTRACE" analyze critpath -i "$BATS_FILE_TMPDIR/p.dat" --comm no-such-task
	assert_failure 1
	assert_output --partial "no task of"
}

@test "analyze critpath on the stored files: a target's own running time and the missing switches are analyze sched's (one rule, runs.h)" {
	local f pid s c
	for f in kt-sched tc-sched tc-multi; do
		s=$("$KTRACE" analyze sched -i "$TOP/tests/data/$f.dat" --format json 2>/dev/null)
		for pid in $(jq -r '.rows[:4][] | .pid' <<<"$s"); do
			c=$("$KTRACE" analyze critpath -i "$TOP/tests/data/$f.dat" --pid "$pid" --format json 2>/dev/null)
			jq -e '.targets | length == 1' <<<"$c"
			want=$(jq --argjson p "$pid" '.rows[] | select(.pid == $p) | .run_ns' <<<"$s")
			got=$(jq --argjson p "$pid" '[.rows[] | select(.pid == $p and .state == "running") | .ns] | add // 0' <<<"$c")
			[ "$got" = "$want" ] || fail "$f: task $pid ran $got ns by critpath, $want ns by sched"
			[ "$(jq .missing_switches <<<"$c")" = "$(jq .missing_switches <<<"$s")" ] ||
				fail "$f: the missing switches differ"
			# Every nanosecond of the target is in some row.
			jq -e '([.rows[].ns] | add) == .ns and .ns == .targets[0].ns' <<<"$c"
		done
	done
}
