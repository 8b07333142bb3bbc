#!/usr/bin/env bats
# ktrace doctor: each check compared with what the test finds itself by
# probing tracefs, /proc and /sys directly.

load helpers

setup() {
	FAKE=
}

teardown() {
	[ -n "$FAKE" ] && rm -rf "$FAKE"
	# The switch_records oracle's instance, on every path.
	[ ! -d "$TRACEFS/instances/kt-test-chain" ] || rmdir "$TRACEFS/instances/kt-test-chain"
	true
}

# The doctor line whose text (after the status) starts with $1; fails if none.
line_of() {
	local l found=1
	while IFS= read -r l; do
		if [[ "$l" =~ ^(ok|warn|fail)\ +(.*)$ ]] && [[ "${BASH_REMATCH[2]}" == "$1"* ]]; then
			printf '%s\n' "$l"
			found=0
		fi
	done <<<"$output"
	return $found
}

@test "doctor as root: every line is ok, warn or fail, and it exits 0" {
	run ktrace doctor
	assert_success
	while IFS= read -r l; do
		[[ "$l" =~ ^(ok\ \ |warn|fail)\ \ [a-z] ]] || fail "bad line: $l"
		# warn and fail lines carry their fix.
		[[ "$l" =~ ^ok ]] || [[ "$l" == *"; fix: "* ]] || fail "no fix: $l"
	done <<<"$output"
	line_of "tracefs: mounted at $TRACEFS"
	line_of "tracefs access: writable"
	[[ "$(line_of 'event recording')" =~ ^ok\ .*recorded\ [1-9][0-9]*\ events ]]
	refute_output --regexp '^fail'
}

@test "doctor names exactly the function-tracer files the kernel refuses" {
	refused=() allowed=()
	for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid \
		 set_ftrace_notrace_pid set_graph_function set_graph_notrace; do
		[ -e "$TRACEFS/$f" ] || continue
		# >> opens for writing without truncating: no change.
		if ( : >> "$TRACEFS/$f" ) 2>/dev/null; then allowed+=("$f"); else refused+=("$f"); fi
	done
	v=$(cat /proc/sys/kernel/ftrace_enabled)
	if ( echo "$v" > /proc/sys/kernel/ftrace_enabled ) 2>/dev/null; then
		allowed+=(/proc/sys/kernel/ftrace_enabled)
	else
		refused+=(/proc/sys/kernel/ftrace_enabled)
	fi
	# On these machines the kernel refuses them; the test says so loudly.
	[ ${#refused[@]} -gt 0 ] || fail "expected refused function-tracer files on this machine"
	run ktrace doctor
	assert_success
	l=$(line_of "function-tracer files")
	[[ "$l" =~ ^warn ]] || fail "not a warn line: $l"
	[[ "$l" == *"set_ftrace_filter"* ]] || fail "set_ftrace_filter not named: $l"
	for f in "${refused[@]}"; do
		[[ "$l" == *"$f"* ]] || fail "$f not named: $l"
	done
	for f in "${allowed[@]}"; do
		[[ "$l" != *"$f,"* && "$l" != *"$f:"* ]] || fail "$f named but writable: $l"
	done
	[[ "$l" == *"event tracing still works"* ]]
	run ktrace doctor --json
	[ "$(jq -r '.checks[] | select(.id == "function_files") | .items | join(" ")' <<<"$output")" = "${refused[*]}" ]
}

@test "doctor leaves no scratch instance behind and touches no top-level state" {
	before_on=$(cat "$TRACEFS/tracing_on")
	before_ev=$(cat "$TRACEFS/set_event")
	"$KTRACE" doctor > "$BATS_TEST_TMPDIR/out" &
	pid=$!
	wait "$pid"
	[ ! -d "$TRACEFS/instances/ktrace-$pid" ]
	[ "$(cat "$TRACEFS/tracing_on")" = "$before_on" ]
	[ "$(cat "$TRACEFS/set_event")" = "$before_ev" ]
	[ "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 ]
}

@test "doctor --json: ok is true and the checks carry ids, status and fixes" {
	run ktrace doctor --json
	assert_success
	jq -e '.ok == true' <<<"$output"
	for id in tracefs tracefs_access control_files event_recording switch_records function_files \
		  kernel_config lockdown syscall_events kprobe_events uprobe_events \
		  kernel_stacks stack_triggers user_stacks \
		  hist_triggers function_tracer buffer_mmap clocks event_formats module; do
		jq -e ".checks[] | select(.id == \"$id\")" <<<"$output" >/dev/null ||
			fail "no check $id"
	done
	jq -e '[.checks[] | select(.status != "ok" and .fix == null)] | length == 0' <<<"$output"
	jq -e '[.checks[] | select(.status == "ok" and .fix != null)] | length == 0' <<<"$output"
}

# The oracle: an instance of the test's own, the same naps, the kernel's
# text; its gaps, printed.
chain_gaps() {
	mkdir "$TRACEFS/instances/kt-test-chain"
	echo 1 >"$TRACEFS/instances/kt-test-chain/events/sched/sched_switch/enable"
	for i in $(seq 100); do sleep 0.002; done
	echo 0 >"$TRACEFS/instances/kt-test-chain/tracing_on"
	grep -v '^#' "$TRACEFS/instances/kt-test-chain/trace" | awk '
		{ cpu = $2; match($0, / prev_pid=[0-9]+/); p = substr($0, RSTART + 10, RLENGTH - 10)
		  match($0, / next_pid=[0-9]+/); n = substr($0, RSTART + 10, RLENGTH - 10)
		  if ((cpu in last) && last[cpu] != p) g++; last[cpu] = n }
		END { print g + 0 }'
	rmdir "$TRACEFS/instances/kt-test-chain"
}

# Doctor and the oracle each sample 0.2 s: this kernel's drops come in
# bursts, so one may see a few where the other, a moment later, sees
# none (a loaded machine, CI 2026-11-28: doctor none in 1560 switches,
# the oracle 2).  When the kernel's text shows gaps, doctor must have
# warned in one of three tries; a doctor that never counts a gap the
# kernel's text shows fails all three.
@test "doctor's switch_records: the gaps in each CPU's chain of sched_switch, as tracefs's own text shows them" {
	local try gaps
	for try in 1 2 3; do
		run ktrace doctor --json
		msg=$(jq -r '.checks[] | select(.id == "switch_records") | .message' <<<"$output")
		st=$(jq -r '.checks[] | select(.id == "switch_records") | .status' <<<"$output")
		if [[ "$msg" =~ ^sched_switch\ records:\ ([0-9]+)\ gaps\ in\ ([0-9]+)\ switches ]]; then
			[ "$st" = warn ] && [ "${BASH_REMATCH[1]}" -gt 0 ] &&
				[ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] || fail "$st: $msg"
		elif [[ "$msg" =~ ^sched_switch\ records:\ complete\ \(([0-9]+)\ switches ]]; then
			[ "$st" = ok ] && [ "${BASH_REMATCH[1]}" -gt 100 ] || fail "$st: $msg"
		else
			fail "$st: $msg"
		fi
		gaps=$(chain_gaps)
		if [ "$gaps" -eq 0 ] || [ "$st" = warn ]; then
			return 0
		fi
		echo "try $try: tracefs's text has $gaps gaps; doctor: $msg"
	done
	fail "tracefs's text showed gaps three times, doctor none"
}

@test "doctor checks every event format under events/" {
	n=$(find "$TRACEFS/events" -mindepth 3 -maxdepth 3 -name format | wc -l)
	run ktrace doctor --json
	msg=$(jq -r '.checks[] | select(.id == "event_formats") | .message' <<<"$output")
	[[ "$msg" == "event formats: all $n parse" || "$msg" =~ ^event\ formats:\ [0-9]+\ of\ $n\ do\ not\ parse ]] ||
		fail "$msg (expected $n formats)"
}

@test "doctor names every event trace-cmd check-events finds broken" {
	# trace-cmd (the oracle) names some failures as "[system:event] why".
	theirs=$(trace-cmd check-events -N --verbose 3 2>&1 | sed -n 's/^ *\[\([a-z0-9_]*:[a-z0-9_]*\)\].*/\1/p' | sort -u)
	run ktrace doctor --json
	ours=$(jq -r '.checks[] | select(.id == "event_formats") | .items[]' <<<"$output" | sed 's/ .*//' | sort -u)
	for ev in $theirs; do
		grep -qx "$ev" <<<"$ours" || fail "trace-cmd finds $ev broken, doctor does not"
	done
}

@test "doctor names the event formats libtraceevent cannot parse" {
	FAKE=$(mktemp -d)
	mkdir -p "$FAKE/events/good/sw" "$FAKE/events/bad/print" "$FAKE/events/bad/junk"
	cp "$TRACEFS/events/sched/sched_switch/format" "$FAKE/events/good/sw/"
	printf 'name: print\nID: 9999\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: "abc\n' \
		> "$FAKE/events/bad/print/format"
	printf 'not a format\n' > "$FAKE/events/bad/junk/format"
	KTRACE_FORMATS_DIR=$FAKE run ktrace doctor
	l=$(line_of "event formats")
	[[ "$l" =~ ^warn\ \ event\ formats:\ 2\ of\ 3\ do\ not\ parse ]] || fail "$l"
	[[ "$l" == *"bad:print (failed to read event print fmt)"* ]] || fail "$l"
	[[ "$l" == *"bad:junk ("* ]] || fail "$l"
	[[ "$l" != *"good:sw"* ]] || fail "$l"
}

@test "doctor lists the clocks of trace_clock and the one in use" {
	run ktrace doctor
	l=$(line_of "trace clocks")
	in_use=$(sed 's/.*\[\(.*\)\].*/\1/' "$TRACEFS/trace_clock")
	for c in $(tr -d '[]' < "$TRACEFS/trace_clock"); do
		[[ "$l" == *"$c"* ]] || fail "$c missing: $l"
	done
	[[ "$l" == *"(in use: $in_use)" ]] || fail "$l"
}

@test "doctor's feature lines match what tracefs offers" {
	run ktrace doctor
	check() { # NAME PRESENT
		if [ "$2" = 1 ]; then
			[[ "$(line_of "$1")" =~ ^ok\ .*available ]] || fail "$1: $(line_of "$1")"
		else
			[[ "$(line_of "$1")" =~ ^warn ]] || fail "$1: $(line_of "$1")"
		fi
	}
	check "syscall events" "$([ -d "$TRACEFS/events/syscalls" ] && echo 1)"
	check "kprobe events" "$([ -e "$TRACEFS/kprobe_events" ] && echo 1)"
	check "uprobe events" "$([ -e "$TRACEFS/uprobe_events" ] && echo 1)"
	check "kernel stacks (record -T)" "$([ -e "$TRACEFS/options/stacktrace" ] && echo 1)"
	check "stacktrace triggers (record --stack EVENT)" \
		"$([ -e "$TRACEFS/options/stacktrace" ] && [ -e "$TRACEFS/events/sched/sched_switch/trigger" ] && echo 1)"
	check "user stacks (options/userstacktrace)" "$([ -e "$TRACEFS/options/userstacktrace" ] && echo 1)"
	check "hist triggers" "$([ -e "$TRACEFS/events/sched/sched_switch/hist" ] && echo 1)"
	check "function_graph tracer" "$(grep -qw function_graph "$TRACEFS/available_tracers" && echo 1)"
}

@test "doctor reads the kernel config and falls back to probing without one" {
	run ktrace doctor
	if [ -e /proc/config.gz ]; then
		line_of "kernel config: /proc/config.gz"
		zcat /proc/config.gz | grep -q '^CONFIG_FTRACE_SYSCALLS=y' &&
			line_of "syscall events: available (CONFIG_FTRACE_SYSCALLS=y)"
	fi
	KTRACE_KCONFIG=/nonexistent run ktrace doctor
	assert_success
	[[ "$(line_of 'kernel config')" =~ ^warn\ .*probing\ tracefs ]]
	if [ -d "$TRACEFS/events/syscalls" ]; then
		[ "$(line_of "syscall events")" = "ok    syscall events: available" ]
	fi
}

@test "doctor reports the lockdown mode, or why it cannot" {
	run ktrace doctor
	if [ -r /sys/kernel/security/lockdown ]; then
		mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/security/lockdown)
		line_of "lockdown: $mode"
	elif [ ! -e /sys/kernel/security/lsm ]; then
		[[ "$(line_of lockdown)" =~ ^warn\ .*securityfs\ is\ not\ mounted ]]
	else
		line_of "lockdown: none"
	fi
}

@test "doctor says whether the ktrace module is loaded" {
	run ktrace doctor
	if [ -d /sys/module/ktrace ]; then
		line_of "ktrace module: loaded"
	else
		[[ "$(line_of 'ktrace module')" =~ ^warn\ .*not\ loaded.*insmod ]]
	fi
}

@test "doctor colours the status only on a terminal" {
	run ktrace doctor
	refute_output --partial $'\033['
	run script -qec "'$KTRACE' doctor" /dev/null
	assert_output --partial $'\033[32mok'
	assert_output --partial $'\033[33mwarn'
}

@test "doctor as a user without tracefs access reports fail and exits 1" {
	run as_nobody "$KTRACE" doctor
	assert_failure 1
	[[ "$(line_of 'tracefs access')" =~ ^fail\ .*Permission\ denied.*fix:\ run\ as\ root ]] ||
		fail "$output"
	# The checks that need no tracefs still run.
	line_of "kernel config"
	line_of "ktrace module"
	run as_nobody "$KTRACE" doctor --json
	assert_failure 1
	jq -e '.ok == false' <<<"$output"
	jq -e '.checks[] | select(.id == "tracefs_access" and .status == "fail")' <<<"$output"
}

@test "doctor rejects a stray argument as usage" {
	run ktrace doctor foo
	assert_failure 64
}
