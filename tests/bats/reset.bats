#!/usr/bin/env bats
# ktrace reset: every test dirties a tracefs instance with direct writes,
# resets it, and reads each file back.  Only the test of plain `reset`
# touches the top-level buffer; it saves and restores what it changes.

load helpers

setup() {
	INST=$(kt_test_instance)
	D=$TRACEFS/instances/$INST
}

teardown() {
	if [ -n "${SAVED:-}" ]; then
		restore_top
	fi
	[ -n "${HOLD_PID:-}" ] && kill "$HOLD_PID" 2>/dev/null
	rm -rf "${HOLD_DIR:-/nonexistent}"
	for d in "$TRACEFS/instances/ktrace-99999$$" "$TRACEFS/instances/mine-$$"; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null || true
	done
	kt_cleanup_instances
}

# dirty DIR: enable events, set filters, a trigger, pid filters, a marker.
dirty() {
	# The marker first: the traceoff trigger below stops the buffer.
	echo 'reset test marker' > "$1/trace_marker"
	echo 1 > "$1/events/sched/sched_switch/enable"
	echo 1 > "$1/events/irq/enable"
	echo 'prev_pid != 0' > "$1/events/sched/sched_switch/filter"
	echo 'common_pid < 10' > "$1/events/timer/filter"
	echo 'traceoff' > "$1/events/sched/sched_wakeup/trigger"
	echo 'stacktrace:5 if common_pid > 1' > "$1/events/sched/sched_process_exit/trigger"
	echo 'enable_event:irq:softirq_entry:2 if pid > 1' > "$1/events/sched/sched_process_exec/trigger"
	echo $$ > "$1/set_event_pid"
	echo $$ > "$1/set_event_notrace_pid"
	echo 0 > "$1/tracing_on"
	[ -n "$(cat "$1/set_event")" ]
	grep -q 'reset test marker' "$1/trace"
}

# assert_clean DIR: what reset promises, read back from tracefs.
assert_clean() {
	local f
	[ -z "$(cat "$1/set_event")" ] || fail "events still enabled: $(cat "$1/set_event")"
	[ "$(cat "$1/events/enable")" = 0 ] || fail "events/enable is $(cat "$1/events/enable")"
	[ "$(cat "$1/events/sched/sched_switch/filter")" = none ] || fail "sched_switch filter left"
	[ "$(cat "$1/events/timer/timer_start/filter")" = none ] || fail "timer subsystem filter left"
	grep -q '^###' "$1/events/timer/filter" || fail "timer subsystem filter string left"
	for f in sched_wakeup sched_process_exit sched_process_exec; do
		! grep -v '^#' "$1/events/sched/$f/trigger" | grep -q . ||
			fail "$f trigger left: $(cat "$1/events/sched/$f/trigger")"
	done
	[ -z "$(cat "$1/set_event_pid")" ] || fail "set_event_pid left"
	[ -z "$(cat "$1/set_event_notrace_pid")" ] || fail "set_event_notrace_pid left"
	[ "$(cat "$1/tracing_on")" = 1 ] || fail "tracing_on is $(cat "$1/tracing_on")"
	[ "$(cat "$1/current_tracer")" = nop ] || fail "current_tracer is $(cat "$1/current_tracer")"
	! grep -q 'reset test marker' "$1/trace" || fail "buffer not emptied"
	for f in "$1"/per_cpu/cpu*/stats; do
		grep -q '^entries: 0$' "$f" || fail "$f: $(grep entries "$f")"
	done
}

save_top() {
	SAVED=$(mktemp -d)
	cat "$TRACEFS/set_event" > "$SAVED/set_event"
	cat "$TRACEFS/tracing_on" > "$SAVED/tracing_on"
	cat "$TRACEFS/current_tracer" > "$SAVED/current_tracer"
	cat "$TRACEFS/set_event_pid" > "$SAVED/set_event_pid"
	cat "$TRACEFS/set_event_notrace_pid" > "$SAVED/set_event_notrace_pid"
	# The filters of the enabled events; the buffer's contents are lost.
	: > "$SAVED/filters"
	while IFS=: read -r sys ev; do
		f=$(cat "$TRACEFS/events/$sys/$ev/filter")
		[ "$f" = none ] || printf '%s/%s\t%s\n' "$sys" "$ev" "$f" >> "$SAVED/filters"
	done < "$SAVED/set_event"
}

restore_top() {
	local pid ev path filter
	echo "$(cat "$SAVED/current_tracer")" > "$TRACEFS/current_tracer" || true
	while IFS=$'\t' read -r path filter; do
		echo "$filter" > "$TRACEFS/events/$path/filter" || true
	done < "$SAVED/filters"
	while read -r ev; do
		echo "$ev" >> "$TRACEFS/set_event" || true
	done < "$SAVED/set_event"
	for pid in $(cat "$SAVED/set_event_pid"); do
		echo "$pid" >> "$TRACEFS/set_event_pid" || true
	done
	for pid in $(cat "$SAVED/set_event_notrace_pid"); do
		echo "$pid" >> "$TRACEFS/set_event_notrace_pid" || true
	done
	cat "$SAVED/tracing_on" > "$TRACEFS/tracing_on"
	rm -rf "$SAVED"
	SAVED=
}

@test "reset -B cleans every file of a dirtied instance" {
	mkdir "$D"
	dirty "$D"
	run ktrace reset -B "$INST"
	assert_success
	assert_clean "$D"
	[ -d "$D" ]
}

@test "reset names the files the kernel refuses in one warning line and exits 0" {
	mkdir "$D"
	# Which function-tracer files this kernel refuses, probed directly.
	refused=()
	for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid; do
		[ -e "$D/$f" ] || continue
		( : > "$D/$f" ) 2>/dev/null || refused+=("$f")
	done
	[ ${#refused[@]} -gt 0 ] || skip "this kernel refuses no function-tracer file"
	dirty "$D"
	run ktrace reset -B "$INST"
	assert_success
	[ "$(grep -c warning <<<"$output")" = 1 ] || fail "not one warning line: $output"
	for f in "${refused[@]}"; do
		assert_output --partial "$f"
	done
	assert_clean "$D"
}

@test "reset of a file the kernel does not refuse names no such file" {
	mkdir "$D"
	run ktrace reset -B "$INST"
	assert_success
	refute_output --partial "set_event_pid"
	refute_output --partial "tracing_on"
}

@test "reset -B of a missing instance fails in one line and creates nothing" {
	run ktrace reset -B "$INST"
	assert_failure 1
	assert_output "ktrace reset: no instance '$INST'; see 'ls $TRACEFS/instances'"
	[ ! -d "$D" ]
}

@test "reset with an instance name holding a slash, or an empty one, is refused" {
	run ktrace reset -B "../x"
	assert_failure 1
	assert_output --partial "bad instance name '../x'"
	run ktrace reset -B ""
	assert_failure 1
	assert_output --partial "bad instance name ''"
}

@test "reset with no -B resets the top-level buffer (state saved and restored)" {
	save_top
	echo 1 > "$TRACEFS/events/sched/sched_process_free/enable"
	echo 'pid == 1' > "$TRACEFS/events/sched/sched_process_free/filter"
	echo 2 >> "$TRACEFS/set_event_notrace_pid"
	echo 'reset test marker' > "$TRACEFS/trace_marker"
	grep -q 'reset test marker' "$TRACEFS/trace"
	run ktrace reset
	assert_success
	[ "$(cat "$TRACEFS/events/sched/sched_process_free/enable")" = 0 ]
	[ "$(cat "$TRACEFS/events/sched/sched_process_free/filter")" = none ]
	[ -z "$(cat "$TRACEFS/set_event")" ]
	[ -z "$(cat "$TRACEFS/set_event_notrace_pid")" ]
	[ "$(cat "$TRACEFS/tracing_on")" = 1 ]
	! grep -q 'reset test marker' "$TRACEFS/trace"
}

@test "reset -a removes ktrace-* instances and keeps the user's" {
	mkdir "$D" "$TRACEFS/instances/ktrace-999991" "$TRACEFS/instances/mine-$$"
	echo 1 > "$TRACEFS/instances/mine-$$/events/sched/sched_switch/enable"
	run ktrace reset -B "$INST" -a
	assert_success
	assert_output --partial "removed instance 'ktrace-999991'"
	[ ! -d "$TRACEFS/instances/ktrace-999991" ]
	[ -d "$TRACEFS/instances/mine-$$" ]
	# A user's instance is not even reset by -a.
	[ "$(cat "$TRACEFS/instances/mine-$$/events/sched/sched_switch/enable")" = 1 ]
	[ -d "$D" ]
}

@test "reset -a leaves an instance in use and says so" {
	mkdir "$D" "$TRACEFS/instances/ktrace-99999$$"
	# An open file holds the instance: rmdir answers EBUSY.
	sleep 1000 < "$TRACEFS/instances/ktrace-99999$$/trace_pipe" &
	holder=$!
	run ktrace reset -B "$INST" -a
	kill "$holder"
	wait "$holder" || true
	assert_success
	assert_output --partial "instance 'ktrace-99999$$' is in use"
	[ -d "$TRACEFS/instances/ktrace-99999$$" ]
}

@test "reset -a leaves the instance of a running ktrace" {
	mkdir "$D"
	# A process named ktrace whose pid names an instance owns it.
	HOLD_DIR=$(mktemp -d)
	cp /bin/sleep "$HOLD_DIR/ktrace"
	"$HOLD_DIR/ktrace" 1000 &
	pid=$!
	mkdir "$TRACEFS/instances/ktrace-$pid"
	run ktrace reset -B "$INST" -a
	kill "$pid"
	wait "$pid" || true
	rmdir "$TRACEFS/instances/ktrace-$pid"
	assert_success
	assert_output --partial "instance 'ktrace-$pid' is in use"
}

@test "reset -a removes ktrace's leftover probes, and no one else's; stat shows them all" {
	local up=$TRACEFS/uprobe_events
	# (A first try's probes, if this is the second.)
	echo "-:ktrace_999991/kt_left" >>"$up" 2>/dev/null || true
	echo "-:mine_$$/kt_users" >>"$up" 2>/dev/null || true
	# A probe of a ktrace that is gone, one of a running ktrace, the user's.
	mkdir "$D"
	HOLD_DIR=$(mktemp -d)
	cp /bin/sleep "$HOLD_DIR/ktrace"
	"$HOLD_DIR/ktrace" 1000 >/dev/null 2>&1 &
	pid=$!
	HOLD_PID=$pid
	echo "p:ktrace_999991/kt_left /usr/bin/true:0x1000" >>"$up"
	echo "p:ktrace_$pid/kt_running /usr/bin/true:0x1000" >>"$up"
	echo "p:mine_$$/kt_users /usr/bin/true:0x1000" >>"$up"
	run ktrace stat
	assert_line --regexp "^  uprobe +ktrace_999991/kt_left .*left behind; 'ktrace reset -a' removes it"
	assert_line --regexp "^  uprobe +ktrace_$pid/kt_running .*\(ktrace $pid's\)"
	assert_line --regexp "^  uprobe +mine_$$/kt_users +p:mine_$$/kt_users /usr/bin/true:0x0*1000$"
	ktrace stat --json | jq -e --arg g "mine_$$" \
		'.dynamic_events | map(select(.group == $g and .kind == "uprobe" and .ktrace == false)) | length == 1' >/dev/null
	run ktrace reset -B "$INST" -a
	left=$(cat "$TRACEFS/dynamic_events")
	kill "$pid"
	wait "$pid" || true
	echo "-:ktrace_$pid/kt_running" >>"$up" || true
	echo "-:mine_$$/kt_users" >>"$up" || true
	assert_success
	assert_output --partial "removed uprobe 'ktrace_999991/kt_left'"
	[[ "$left" != *kt_left* ]] || fail "the leftover probe is still there"
	[[ "$left" == *kt_running* ]] || fail "a running ktrace's probe was removed"
	[[ "$left" == *kt_users* ]] || fail "the user's probe was removed"
}

@test "reset as a user without tracefs access fails in one line" {
	run as_nobody "$KTRACE" reset -B "$INST"
	assert_failure 1
	assert_output --partial "Permission denied; run as root"
	[ "$(printf '%s\n' "$output" | wc -l)" = 1 ]
}

@test "reset rejects a stray argument as usage" {
	run ktrace reset foo
	assert_failure 64
}
