#!/usr/bin/env bats
# ktrace record --uprobe/--uretprobe (by symbol, on this host) and
# --kprobe (refused here: this kernel has no kprobe_events), read back
# with trace-cmd; every probe is ktrace's own (group ktrace_<pid>) and
# gone when the recording ends, on every path but SIGKILL, after which
# reset -a removes it.

load helpers

setup_file() {
	export KT_PROBE_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool probe_target "$KT_PROBE_BIN" -O1 -g
	kt_tool getppid_n "$KT_PROBE_BIN"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
}

teardown() {
	cd /
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids" KILL
	# No probe of ours outlives its recording.
	if grep -q ':ktrace_[0-9]*/' "$TRACEFS/dynamic_events"; then
		left=$(grep ':ktrace_[0-9]*/' "$TRACEFS/dynamic_events")
		"$KTRACE" reset -a >/dev/null 2>&1 || true
		fail "probes left: $left"
	fi
}

json() { "$KTRACE" report -i "$1" --format json; }

@test "--uprobe and --uretprobe by symbol: every call, its argument and return value, as trace-cmd reads them" {
	local bin=$KT_PROBE_BIN/probe_target
	run rec -q -F -o p.dat --uprobe "$bin:kt_probe_target x=%di:s32" \
		--uretprobe "$bin:kt_probe_target r=\$retval:s32" -- "$bin" 100
	assert_success
	# 100 entries with x = 0..99, 100 returns with 2x + 1.
	[ "$(json p.dat | jq -s '[.[] | select(.event == "kt_probe_target") | .x] == [range(100)]')" = true ]
	[ "$(json p.dat | jq -s '[.[] | select(.event == "kt_probe_target_ret") | .r] == [range(100) | 2 * . + 1]')" = true ]
	json p.dat | jq -r .system | sort -u | grep -qx "ktrace_[0-9]*"
	"$KTRACE" report -i p.dat | cmp - <(trace-cmd report -i p.dat 2>/dev/null | tail -n +2)
}

@test "--uprobe libc:syscall finds libc as ld.so does: one event per call" {
	run rec -q -F -o g.dat --uprobe libc:syscall -- "$KT_PROBE_BIN/getppid_n" 50
	assert_success
	[ "$(json g.dat | jq -s '[.[] | select(.event == "syscall")] | length')" = 50 ]
	"$KTRACE" report -i g.dat | cmp - <(trace-cmd report -i g.dat 2>/dev/null | tail -n +2)
}

@test "probe refusals: one line each, exit 1, no probe, instance or file left" {
	run rec -q -o r.dat --uprobe libc:mallocc -- true
	assert_failure 1
	assert_output --regexp "^ktrace record: no symbol 'mallocc' in /.*/libc\\.so\\.6; did you mean 'malloc'\\?$"
	run rec -q -o r.dat --uprobe nosuchlib_zz:malloc -- true
	assert_failure 1
	assert_output --partial "no binary or library 'nosuchlib_zz'"
	# A bad fetch argument: the kernel's own reason, quoted.
	run rec -q -o r.dat --uprobe 'libc:malloc size=%zz:u64' -- true
	assert_failure 1
	[ "${#lines[@]}" = 1 ] || fail "more than one line: $output"
	assert_output --regexp "^ktrace record: --uprobe 'libc:malloc size=%zz:u64': the kernel refuses it: .+ \\(at 'size=%zz:u64'\\)$"
	# A second probe failing takes the first one away too.
	run rec -q -o r.dat --uprobe libc:malloc --uprobe 'libc:free p=%zz' -- true
	assert_failure 1
	[ ! -e r.dat ]
	# kprobes: this kernel has no kprobe_events.
	if [ ! -e "$TRACEFS/kprobe_events" ]; then
		run rec -q -o r.dat --kprobe 'do_sys_openat2 dfd=%di:s32' -- true
		assert_failure 1
		assert_output "ktrace record: --kprobe 'do_sys_openat2 dfd=%di:s32': this kernel has no kprobe_events (CONFIG_KPROBE_EVENTS); uprobes (--uprobe), stacks (-T, --stack) and events work here (see 'ktrace doctor')"
	fi
	[ ! -e r.dat ]
}

@test "--uprobe by symbol without libelf: one line naming libelf1, exit 1, no probe, instance or file left" {
	# libelf is loaded when an ELF file is read (lib/decode/elffns.h):
	# here its file reads as /dev/null, in a mount namespace of its own.
	local so
	so=$(ldconfig -p | awk '$1 == "libelf.so.1" && /x86-64/ { print $NF; exit }')
	[ -n "$so" ] || fail "no libelf.so.1 in ldconfig -p"
	so=$(readlink -f "$so")
	run unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$so" \
		"$KTRACE" record -q -o r.dat --uprobe libc:malloc -- true
	assert_failure 1
	[ "${#lines[@]}" = 1 ] || fail "not one line: $output"
	assert_output --regexp "^ktrace record: --uprobe 'libc:malloc': cannot load libelf to find 'malloc': .+; install libelf1$"
	[ ! -e r.dat ]
}

@test "SIGINT ends a recording with probes and takes them away; SIGKILL leaves them for reset -a" {
	local bin=$KT_PROBE_BIN/probe_target
	rec_started -q -o i.dat --uprobe "$bin:kt_probe_target"
	grep -q "^p:ktrace_$pid/kt_probe_target " "$TRACEFS/dynamic_events"
	run "$KTRACE" stat
	assert_line --regexp "^  uprobe +ktrace_$pid/kt_probe_target .*\\(ktrace $pid's\\)$"
	"$bin" 10
	kill -INT "$pid"
	wait "$pid"
	! grep -q "ktrace_$pid/" "$TRACEFS/dynamic_events"
	[ "$(json i.dat | jq -s '[.[] | select(.event == "kt_probe_target")] | length')" -ge 10 ]
	rec_started -q -o k.dat --uprobe "$bin:kt_probe_target"
	kill -KILL "$pid"
	wait "$pid" || true
	grep -q "ktrace_$pid/kt_probe_target" "$TRACEFS/dynamic_events"
	run "$KTRACE" reset -a
	assert_success
	assert_output --partial "removed uprobe 'ktrace_$pid/kt_probe_target'"
	! grep -q "ktrace_$pid/" "$TRACEFS/dynamic_events"
}
