#!/usr/bin/env bats
# ktrace stream: live decoding of a private instance.  Events come from
# trace_marker writes into the instance, so every line is accounted for.

load helpers

bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	top_events_before=$(cat "$TRACEFS/set_event")
	SPID=
}

teardown() {
	exec 7<&- 2>/dev/null || true
	if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then
		kill -KILL "$SPID" 2>/dev/null || true
	fi
	# stream works in its own instance: the top-level events are as
	# they were.
	[ "$(cat "$TRACEFS/set_event")" = "$top_events_before" ] ||
		fail "the top-level set_event changed"
}

# Start `ktrace stream ARGS` in the background, stdout to out, and wait
# for its start line on stderr (a fifo): tracing is on from then.
stream_start() {
	mkfifo err.fifo
	"$KTRACE" stream "$@" >out 2>err.fifo &
	SPID=$!
	exec 7<err.fifo
	local line
	read -r -t 60 line <&7 || fail "no start line from ktrace stream"
	[[ $line == *"streaming from instance 'ktrace-$SPID'"* ]] ||
		fail "unexpected start line: $line"
	INST="$TRACEFS/instances/ktrace-$SPID"
	[ "$(cat "$INST/tracing_on")" = 1 ] || fail "tracing is not on in $INST"
}

# Stop it with SIGNAL; STATUS and ERR (the rest of stderr) after.
stream_stop() { # SIGNAL
	kill -"$1" "$SPID"
	STATUS=0
	wait "$SPID" || STATUS=$?
	ERR=$(cat <&7)
	exec 7<&-
}

check_text() { # N PATH(mapped|read)
	stream_start -e ftrace:print
	markers "$1" "$INST" m
	stream_stop INT
	[ "$STATUS" -eq 0 ] || fail "status $STATUS: $ERR"
	assert_no_instance "$SPID"
	# Exactly N lines, each a marker, in order.
	[ "$(wc -l <out)" -eq "$1" ] || fail "$(wc -l <out) lines for $1 markers: $(head -n 5 out)"
	diff <(sed -n 's/.*tracing_mark_write: //p' out) <(seq -f 'm%g' "$1") ||
		fail "markers missing, doubled or out of order"
	grep -q ' \[00[0-9]\] *[0-9]*\.[0-9]\{6\}: print: ' out || fail "not report's line format: $(head -n 1 out)"
	[[ $ERR == *"$1 events on "*"($2)"* ]] || fail "summary: $ERR"
}

@test "N markers appear as exactly N lines, reading the mapped buffer" {
	check_text 200 mapped
}

@test "N markers appear as exactly N lines through read() (KTRACE_NO_MMAP=1)" {
	KTRACE_NO_MMAP=1 check_text 200 read
}

@test "markers written from both CPUs come out merged in time order" {
	local i ncpu
	ncpu=$(nproc)
	[ "$ncpu" -ge 2 ] || fail "needs 2 CPUs"
	stream_start -t -e ftrace:print
	for i in $(seq 40); do
		taskset -c $((i % 2)) sh -c "echo o$i >$INST/trace_marker"
	done
	stream_stop INT
	[ "$STATUS" -eq 0 ] || fail "status $STATUS: $ERR"
	[ "$(wc -l <out)" -eq 40 ]
	# Both CPUs, in order of the writes and of the timestamps.
	# (By pattern, not column: a comm may hold a space, "tmux: client".)
	[ "$(grep -oE ' \[[0-9]{3}\] ' out | sort -u | wc -l)" -eq 2 ] || fail "not two CPUs: $(cat out)"
	diff <(sed -n 's/.*tracing_mark_write: //p' out) <(seq -f 'o%g' 40)
	sed -E 's/.* \[[0-9]{3}\] +([0-9.]+):.*/\1/' out | sort -c -n
}

check_json() { # N PATH
	stream_start --format json -e ftrace:print
	markers "$1" "$INST" j
	stream_stop TERM
	[ "$STATUS" -eq 0 ] || fail "status $STATUS: $ERR"
	assert_no_instance "$SPID"
	[ "$(wc -l <out)" -eq "$1" ] || fail "$(wc -l <out) lines for $1 markers"
	# Every line a JSON object; the markers' text in order.
	jq -e -s "length == $1 and all(.[]; .event == \"print\" and .system == \"ftrace\" and (.ts | type) == \"number\")" out >/dev/null ||
		fail "bad JSON lines: $(head -n 2 out)"
	diff <(jq -r '.buf | rtrimstr("\n")' out) <(seq -f 'j%g' "$1") ||
		fail "JSON markers missing, doubled or out of order"
	[[ $ERR == *"($2)"* ]] || fail "summary: $ERR"
}

@test "--format json: N markers are N JSON objects, mapped" {
	check_json 150 mapped
}

@test "--format json: N markers are N JSON objects, read()" {
	KTRACE_NO_MMAP=1 check_json 150 read
}

@test "-- COMMAND exits with its status after its last events are printed" {
	"$KTRACE" stream -e ftrace:print -- sh -c '
		for i in $(seq 30); do
			echo "c$i" >'"$TRACEFS"'/instances/ktrace-$PPID/trace_marker
		done
		exit 7' >out 2>err &
	SPID=$!
	STATUS=0
	wait "$SPID" || STATUS=$?
	[ "$STATUS" -eq 7 ] || fail "status $STATUS, not the command's 7: $(cat err)"
	assert_no_instance "$SPID"
	[ "$(wc -l <out)" -eq 30 ] || fail "$(wc -l <out) lines, not 30"
	[ "$(tail -n 1 out | sed 's/.*tracing_mark_write: //')" = c30 ] ||
		fail "the last event is missing: $(tail -n 1 out)"
	# The command's own name, not <...>, though it is gone when printed.
	grep -q '^ *sh-[0-9]* ' out || fail "comm of the command: $(head -n 1 out)"
}

@test "-- COMMAND killed by a signal: 128+N, nothing left" {
	"$KTRACE" stream -q -e ftrace:print -- sh -c 'kill -TERM $$' >out 2>err &
	SPID=$!
	STATUS=0
	wait "$SPID" || STATUS=$?
	[ "$STATUS" -eq 143 ] || fail "status $STATUS: $(cat err)"
	assert_no_instance "$SPID"
}

@test "SIGINT and SIGTERM end a whole-system stream with no instance left" {
	local sig
	for sig in INT TERM; do
		rm -f err.fifo
		stream_start
		[ -d "$INST" ] || fail "no instance while streaming"
		grep -q 1 "$INST/events/sched/sched_switch/enable" || fail "sched_switch not enabled"
		stream_stop "$sig"
		[ "$STATUS" -eq 0 ] || fail "SIG$sig: status $STATUS: $ERR"
		assert_no_instance "$SPID"
	done
}

# ktrace stream ARGS must fail with one line matching WHAT, exit 1,
# print nothing and leave no instance.
fails_cleanly() { # WHAT ARGS...
	local what=$1
	shift
	"$KTRACE" stream "$@" >out 2>err &
	SPID=$!
	STATUS=0
	wait "$SPID" || STATUS=$?
	[ "$STATUS" -eq 1 ] || fail "status $STATUS"
	[ "$(wc -l <err)" -eq 1 ] || fail "not one line: $(cat err)"
	grep -q -- "$what" err || fail "not about $what: $(cat err)"
	[ ! -s out ]
	assert_no_instance "$SPID"
}

@test "an unknown event: one line, exit 1, nothing left" {
	fails_cleanly no_such_event_zz -e sched:no_such_event_zz
}

@test "a bad filter: one line with the kernel's reason, exit 1, nothing left" {
	fails_cleanly "bad filter 'no_such_field == 1'" -e sched:sched_switch -f 'no_such_field == 1'
}

@test "| head -n 3 ends quietly with status 0 and no instance left" {
	mkfifo err.fifo
	( set -o pipefail; "$KTRACE" stream -e ftrace:print 2>err.fifo | head -n 3 >got
	  echo $? >status ) &
	local job=$! line
	exec 7<err.fifo
	read -r -t 60 line <&7 || fail "no start line"
	SPID=$(sed -n "s/.*instance 'ktrace-\([0-9]*\)'.*/\1/p" <<<"$line")
	[ -n "$SPID" ] || fail "no pid in: $line"
	INST="$TRACEFS/instances/ktrace-$SPID"
	markers 10 "$INST" h
	wait "$job"
	ERR=$(cat <&7)
	[ "$(cat status)" = 0 ] || fail "status $(cat status): $ERR"
	[ "$(wc -l <got)" -eq 3 ]
	[[ $ERR != *error* && $ERR != *cannot* ]] || fail "not quiet: $ERR"
	assert_no_instance "$SPID"
}

@test "lost events show inline as report prints them, and in the summary" {
	stream_start -b 4 -e ftrace:print
	# Stopped, it cannot read: a tiny buffer overwrites its oldest pages.
	kill -STOP "$SPID"
	markers 3000 "$INST" x
	kill -CONT "$SPID"
	stream_stop INT
	[ "$STATUS" -eq 0 ] || fail "status $STATUS: $ERR"
	grep -Eq '^CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$' out || fail "no inline mark: $(head -n 3 out)"
	[[ $ERR == *"LOST "* ]] || fail "no loss in the summary: $ERR"
	# What is printed plus what is lost is what was written.
	assert_no_instance "$SPID"
}

@test "usage errors exit 64" {
	run -64 "$KTRACE" stream --format xml
	run -64 "$KTRACE" stream -f 'x == 1'
	run -64 "$KTRACE" stream -F
}

@test "bash completes --format with what stream takes, report with its own" {
	run complete_words ktrace stream --format ""
	assert_success
	assert_output "text
json"
	run complete_words ktrace report --format p
	assert_success
	assert_output "process
perfetto"
}

@test "the session owns its sinks: one too many refused (E2BIG), a failed one (ENOMEM), each freed once (session-sinks check)" {
	kt_build_units
	run "$UNIT/session-sinks"
	echo "$output"
	assert_success
	assert_output "ok"
}
