#!/usr/bin/env bats
# record --trigger's wakeup>, offcpu> and syscall> conditions (lib/live/trigger/
# watch.c) on stored recordings, through the unit driver trigger-replay:
# their firings against what ktrace sql and analyze offcpu say of the
# same file.  Reads tests/data only: it never touches tracefs.

load helpers

setup_file() {
	kt_build_units
}

setup() {
	RD=$(mktemp -d)
}

teardown() {
	rm -rf "$RD"
}

# ns DUR: DUR (100us, 5ms) in ns.
ns() {
	case $1 in
	*us) echo $((${1%us} * 1000)) ;;
	*ms) echo $((${1%ms} * 1000000)) ;;
	esac
}

# fires FILE COND [-c MS]: "PID SINCE TS" of each firing, sorted.
fires() {
	local f=$1 c=$2
	shift 2
	"$UNIT/trigger-replay" "$@" "$TOP/tests/data/$f.dat" "$c" >"$RD/out" ||
		return 1
	awk -F'\t' 'NF > 2 { print $2, $3, $4 }' "$RD/out" | sort
}

# The wakeups table's waits above X_NS, each from the task's latest
# wakeup before its switch in: a task woken twice before it was seen
# running ran between (its records dropped), and the trigger counts from
# the latest, where the table keeps the first.  The files hold no
# sched_waking.
wakeups_sql() { # X_NS
	cat <<EOF
WITH w AS (SELECT pid, run_ts, (SELECT max(u.ts) FROM sched_wakeup u
           WHERE u.field_pid = wakeups.pid AND u.ts <= wakeups.run_ts) AS ts FROM wakeups)
SELECT pid, ts, run_ts FROM w WHERE run_ts - ts > $1
EOF
}

@test "wakeup>X fires once per wakeup the wakeups table has above X, from the latest wakeup" {
	for f in kt-sched tc-sched; do
		# The wakeups table (analyze sched's) leaves out the tasks
		# with no record of their own in the file: so does the oracle.
		ktrace sql -i "$TOP/tests/data/$f.dat" \
			'SELECT DISTINCT pid FROM events' | tail -n +2 >"$RD/own"
		for x in 100us 500us 1ms 2ms 5ms; do
			fires "$f" "wakeup>$x" >"$RD/all"
			awk 'NR == FNR { own[$1] = 1; next } own[$1]' "$RD/own" "$RD/all" >"$RD/got"
			ktrace sql -i "$TOP/tests/data/$f.dat" --format csv "$(wakeups_sql "$(ns $x)")" |
				tail -n +2 | tr ',' ' ' | sort >"$RD/want"
			[ -s "$RD/want" ] || fail "$f: no wakeup above $x: pick a smaller one"
			diff "$RD/want" "$RD/got" || fail "$f wakeup>$x: the firings differ from the wakeups table"
			# The rest are the left-out tasks' own.
			n=$(awk 'NR == FNR { own[$1] = 1; next } !own[$1]' "$RD/own" "$RD/all" | wc -l)
			[ "$(wc -l <"$RD/all")" -eq $(($(wc -l <"$RD/want") + n)) ]
		done
	done
}

# The off-CPU intervals by the runs rule (analyze/runs.h): from a switch
# out in a sleeping state to the task's next switch in, unless an event
# of its own (not a stack, written after its switch) came between; the
# files hold no sched_wakeup_new.
offcpu_sql() { # X_NS
	cat <<EOF
WITH outs AS (SELECT ts, prev_pid AS p FROM sched_switch
              WHERE (prev_state & 255) != 0 AND prev_pid > 0),
ins AS (SELECT ts, next_pid AS p FROM sched_switch WHERE next_pid > 0),
pairs AS (SELECT o.p AS p, o.ts AS out_ts,
                 (SELECT min(i.ts) FROM ins i WHERE i.p = o.p AND i.ts > o.ts) AS in_ts
          FROM outs o)
SELECT p, out_ts, in_ts FROM pairs
WHERE in_ts IS NOT NULL AND in_ts - out_ts > $1
AND NOT EXISTS (SELECT 1 FROM events e WHERE e.pid = pairs.p
                AND e.ts > pairs.out_ts AND e.ts < pairs.in_ts
                AND NOT (e.system = 'ftrace' AND e.event IN ('kernel_stack', 'user_stack')))
EOF
}

@test "offcpu>X fires once per off-CPU interval above X, the same ones" {
	for f in kt-sched tc-sched; do
		for x in 1ms 10ms 50ms 100ms; do
			fires "$f" "offcpu>$x" >"$RD/got"
			ktrace sql -i "$TOP/tests/data/$f.dat" --format csv "$(offcpu_sql "$(ns $x)")" |
				tail -n +2 | tr ',' ' ' | sort >"$RD/want"
			[ -s "$RD/want" ] || fail "$f: no interval above $x: pick a smaller one"
			diff "$RD/want" "$RD/got" || fail "$f offcpu>$x: the firings differ from the intervals"
		done
	done
}

@test "offcpu>1ns per task: no more times and no more time than analyze offcpu's" {
	for f in kt-sched tc-sched; do
		"$UNIT/trigger-replay" "$TOP/tests/data/$f.dat" 'offcpu>1ns' |
			awk -F'\t' 'NF > 2 { n[$2]++; s[$2] += $5 } END { for (p in n) print p, n[p], s[p] }' |
			sort >"$RD/got"
		ktrace analyze offcpu -i "$TOP/tests/data/$f.dat" --format json 2>/dev/null |
			jq -r '.rows[] | "\(.pid) \(.times) \(.blocked_ns)"' | sort >"$RD/analyze"
		[ -s "$RD/got" ]
		# analyze ends a stretch whose switch in was dropped at the
		# task's next event; the trigger forgets it: never more.
		run join "$RD/got" "$RD/analyze"
		assert_success
		[ "$(echo "$output" | wc -l)" -eq "$(wc -l <"$RD/got")" ]
		echo "$output" | awk '$2 > $4 || $3 > $5 { print "more than analyze:", $0; bad = 1 } END { exit bad }'
	done
}

@test "records read CPU by CPU, as the sink reads pages: only firings read merged, in time order" {
	for f in kt-sched tc-sched; do
		"$UNIT/trigger-replay" "$TOP/tests/data/$f.dat" 'wakeup>100us' 'offcpu>1ms' >"$RD/merged"
		grep -q '^wakeup>100us	[1-9]' "$RD/merged"
		grep -q '^offcpu>1ms	[1-9]' "$RD/merged"
		for c in 50 200 400; do
			"$UNIT/trigger-replay" -c "$c" "$TOP/tests/data/$f.dat" 'wakeup>100us' 'offcpu>1ms' >"$RD/bycpu"
			# A task's run read before its wait's beginning (another
			# CPU's page first) drops that wait: one may be missed,
			# never one made up, and they come in time order.
			awk -F'\t' 'NF > 2' "$RD/bycpu" >"$RD/b"
			awk -F'\t' 'NF > 2' "$RD/merged" >"$RD/m"
			run comm -23 <(sort "$RD/b") <(sort "$RD/m")
			[ -z "$output" ] || fail "$f -c $c: firings not read merged: $output"
			sort -t'	' -k4,4n -s "$RD/b" | cmp - "$RD/b" || fail "$f -c $c: not in time order"
			# (14 of 20 at -c 200 on tc-sched: 2 CPUs, tasks moving.)
			[ "$(wc -l <"$RD/b")" -ge $(($(wc -l <"$RD/m") * 2 / 3)) ] ||
				fail "$f -c $c: $(wc -l <"$RD/b") of $(wc -l <"$RD/m") firings"
		done
	done
}

@test "syscall>X read CPU by CPU: a task that moved CPUs has each of its 20 slow calls fire once" {
	# kt-trig-hop.dat: taskset -c 1 taskset -c 0 stall: its first system
	# calls on CPU 1, then 20 nanosleeps of 2 ms on CPU 0.  Read CPU by
	# CPU, CPU 1's older records come after CPU 0's newer ones; an old
	# exit once made the watch forget the first nanosleep (19 at -c 50).
	local f=$TOP/tests/data/kt-trig-hop.dat c n
	for c in 0 10 50 100 200 400; do
		if [ "$c" -eq 0 ]; then
			"$UNIT/trigger-replay" "$f" 'syscall:nanosleep>1ms' >"$RD/out"
		else
			"$UNIT/trigger-replay" -c "$c" "$f" 'syscall:nanosleep>1ms' >"$RD/out"
		fi
		n=$(awk -F'\t' 'NF == 2 { print $2 }' "$RD/out")
		[ "$n" = 20 ] || fail "-c $c: $n firings, not 20: $(cat "$RD/out")"
		awk -F'\t' 'NF > 2 && ($5 < 2000000 || $5 > 1000000000) { bad = 1 } END { exit bad }' "$RD/out" ||
			fail "-c $c: a firing not timed as a 2 ms call: $(cat "$RD/out")"
	done
}

@test "one switch in that ends a wakeup's wait and a block fires both conditions" {
	"$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'wakeup>100us' 'offcpu>1ms' >"$RD/out"
	awk -F'\t' 'NF > 2 && $1 == "wakeup>100us" { print $2, $4 }' "$RD/out" | sort >"$RD/w"
	awk -F'\t' 'NF > 2 && $1 == "offcpu>1ms" { print $2, $4 }' "$RD/out" | sort >"$RD/o"
	[ -n "$(comm -12 "$RD/w" "$RD/o")" ] || fail "no switch in fired both: $(cat "$RD/out")"
}

@test "a firing's text names the task, its waker or its state, and the time" {
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'wakeup>10ms' 'offcpu>100ms'
	assert_success
	assert_line --partial 'sched:sched_switch pid 24802: sleep woken by pid '
	assert_output --regexp 'waited [0-9]+\.[0-9]{6} ms for cpu [0-9]'
	assert_output --regexp 'blocked \(S\) [0-9]+\.[0-9]{6} ms'
	# since is the wait's start: the window covers it.
	echo "$output" | awk -F'\t' 'NF > 2 && !($3 < $4 && $5 == $4 - $3) { bad = 1 } END { exit bad }'
}

@test "bad wakeup> and offcpu> conditions: one line naming the bad part, and a suggestion" {
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'wakup>5ms'
	assert_failure 64
	assert_output "trigger-replay: bad condition 'wakup>5ms': unknown condition 'wakup'; did you mean 'wakeup'?"
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'ofcpu>5ms'
	assert_failure 64
	assert_output --partial "did you mean 'offcpu'?"
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'offcpu>5'
	assert_failure 64
	assert_output --partial "duration '5' has no unit; e.g. 5ms"
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'wakeup'
	assert_failure 64
	assert_output --partial "no '>DURATION'; e.g. 'wakeup>20ms'"
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'wakeup>'
	assert_failure 64
	assert_output --partial "no duration after 'wakeup>'; e.g. 'wakeup>20ms'"
	run "$UNIT/trigger-replay" "$TOP/tests/data/tc-sched.dat" 'offcpu:foo>5ms'
	assert_failure 64
	assert_output --partial "unexpected ':foo>5ms' after 'offcpu'"
}
