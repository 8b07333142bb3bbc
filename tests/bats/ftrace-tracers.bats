#!/usr/bin/env bats
# ktrace record -p function|function_graph on this host, whose kernel
# refuses the function tracer's files (EPERM) and has no function_graph:
# one line naming the file and the reason, exit 1, nothing left set in
# the instance or the top level.  The tracers themselves are tested in
# the VM (tests/vm/guest-cli.sh), their report text against trace-cmd's
# here on a file recorded there (tests/data/vm-fgraph.dat).

load helpers

# The top level's function-tracer settings, to compare before and after.
top_state() {
	local f
	for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace \
		set_ftrace_pid set_graph_function options/func_stack_trace \
		options/function-fork set_event_pid; do
		[ -e "$TRACEFS/$f" ] && printf '%s: %s\n' "$f" "$(cat "$TRACEFS/$f" 2>&1)"
	done
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	top_state >top.before
}

teardown() {
	cd "$BATS_TEST_TMPDIR"
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids" KILL
	top_state >top.after
	diff -u top.before top.after || fail "the top level changed"
}

refused_here() {
	! echo function >"$TRACEFS/instances/$(kt_test_instance)/current_tracer" 2>/dev/null
}

@test "-p function -l FUNC, refused by this kernel: one line with set_ftrace_filter and the reason, exit 1, no file" {
	run rec -o f.dat -p function -l vfs_read -l 'vfs_write*' -- true
	assert_failure 1
	assert_output "ktrace record: cannot set -l 'vfs_read': set_ftrace_filter: Operation not permitted; this kernel refuses the function tracer's files (see 'ktrace doctor')"
	! ls f.dat* 2>/dev/null || fail "a file or its pieces were left"
}

@test "-p function -n FUNC names set_ftrace_notrace; -p function alone names current_tracer" {
	run rec -o f.dat -p function -n 'rcu_*' -- true
	assert_failure 1
	assert_output --partial "set_ftrace_notrace: Operation not permitted"
	[ "${#lines[@]}" = 1 ]
	run rec -q -o f.dat -p function --func-stack -e sched:sched_switch -- true
	assert_failure 1
	assert_output "ktrace record: cannot start the function tracer: current_tracer: Operation not permitted; this kernel refuses the function tracer's files (see 'ktrace doctor')"
	[ ! -e f.dat ]
}

@test "-p function with -P PID and -c: refused alike, the pid's set_ftrace_pid not left set" {
	sleep 30 &
	local victim=$!
	run rec -o f.dat -p function -P "$victim" -c -s 1
	kill "$victim"
	assert_failure 1
	assert_output --regexp "set_ftrace_pid: Operation not permitted|current_tracer: Operation not permitted"
	[ "${#lines[@]}" = 1 ]
}

@test "-p function_graph where the kernel has none: said, exit 1" {
	if grep -qw function_graph "$TRACEFS/available_tracers"; then
		skip "this kernel has function_graph"
	fi
	run rec -o g.dat -p function_graph -g vfs_read --max-graph-depth 3 -- true
	assert_failure 1
	assert_output "ktrace record: this kernel has no 'function_graph' tracer (not in available_tracers); see 'ktrace doctor'"
	[ ! -e g.dat ]
}

@test "the tracer options: usage errors (64) for what does not go together" {
	run ktrace record -p fn -- true
	assert_failure 64
	assert_output --partial "bad tracer 'fn'; ktrace runs function or function_graph (or give a pid with -P)"
	run ktrace record -l vfs_read -- true
	assert_failure 64
	assert_output --partial "go with -p function or -p function_graph"
	run ktrace record -p function -g vfs_read -- true
	assert_failure 64
	assert_output --partial "-g and --max-graph-depth go with -p function_graph"
	run ktrace record -p function_graph --func-stack -- true
	assert_failure 64
	assert_output --partial "--func-stack goes with -p function"
	run ktrace record -p function_graph --max-graph-depth 0 -- true
	assert_failure 64
	run ktrace record -p function -l 'a b' -- true
	assert_failure 64
	run ktrace stream -p function
	assert_failure 64
	assert_output --partial "stream runs no tracer"
}

@test "-p with a number is still a pid, as -P" {
	sleep 30 &
	local victim=$!
	run rec -q -o p.dat -p "$victim" -e sched:sched_switch -s 0.3
	assert_success
	run rec -q -o p2.dat -P "$victim" -e sched:sched_switch -s 0.3
	kill "$victim"
	assert_success
	[ -s p.dat ] && [ -s p2.dat ]
}

@test "-e ftrace:function points at -p function" {
	run rec -o f.dat -e ftrace:function -- true
	assert_failure 1
	assert_output --partial "use -p function"
	run rec -o f.dat -e ftrace:funcgraph_entry -- true
	assert_failure 1
	assert_output --partial "use -p function_graph"
}

@test "doctor: the function tracers in instances, only at the top level, or refused" {
	run ktrace doctor
	fn=$(grep 'function tracer (record -p function)' <<<"$output")
	fg=$(grep 'function_graph tracer (record -p function_graph)' <<<"$output")
	[ -n "$fn" ] && [ -n "$fg" ] || fail "no tracer lines: $output"
	if refused_here; then
		[[ "$fn" =~ ^warn\ .*refused ]] || fail "$fn"
	else
		[[ "$fn" =~ ^ok\ .*available\ in\ instances ]] || fail "$fn"
	fi
	if ! grep -qw function_graph "$TRACEFS/available_tracers"; then
		[[ "$fg" =~ ^warn\ .*not\ in\ this\ kernel ]] || fail "$fg"
	fi
}

# tests/data/vm-fgraph.dat: function_graph recorded in the 6.1 VM (its
# text is trace-cmd's: corpus.bats).
@test "report of function_graph: JSON has every record's depth and each exit's duration; a leaf takes its exit's line" {
	local f=$TOP/tests/data/vm-fgraph.dat
	run bash -c "'$KTRACE' report -i '$f' --format json | jq -s -c '
		([.[] | select(.event == \"funcgraph_exit\") | .duration == .rettime - .calltime] | unique),
		([.[] | select(.event | startswith(\"funcgraph_\")) | has(\"depth\")] | unique),
		([.[] | select(.event == \"funcgraph_exit\")] | length)'"
	assert_success
	assert_line --index 0 '[true]'
	assert_line --index 1 '[true]'
	exits=${lines[2]}
	[ "$exits" -gt 5 ]
	# The text: every exit is a '}' line or a leaf's 'func();' line.
	"$KTRACE" report -i "$f" >g.txt
	closes=$(grep -c 'funcgraph_exit: .*|  *}$' g.txt)
	leaves=$(grep -c 'funcgraph_entry: .* us .*|  *[0-9a-f_A-Za-z.]*();$' g.txt)
	[ $((closes + leaves)) = "$exits" ] || fail "$closes closes + $leaves leaves for $exits exits"
	[ "$leaves" -gt 0 ] && [ "$closes" -gt 0 ]
}
