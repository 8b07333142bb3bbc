#!/usr/bin/env bats
# Kernel stacks: ktrace record -T and --stack EVENT on the live tracefs,
# read back with trace-cmd (the oracle); everything goes with the private
# instance, nothing is left set in the top-level buffer.  report --stacks
# (folded stacks) against folded stacks made from trace-cmd's text
# (tests/folded.awk).

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	export KT_STACK_BIN="$BATS_FILE_TMPDIR/bin"
	# Frame pointers: the kernel walks a user stack by them.
	kt_tool getppid_n "$KT_STACK_BIN" -fno-omit-frame-pointer
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	top_stack_before=$(cat "$TRACEFS/options/stacktrace")
	top_trigger_before=$(grep -v '^#' "$TRACEFS/events/sched/sched_switch/trigger" || true)
}

teardown() {
	cd /
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
	[ "$(cat "$TRACEFS/options/stacktrace")" = "$top_stack_before" ] ||
		fail "the top-level stacktrace option changed"
	[ "$(grep -v '^#' "$TRACEFS/events/sched/sched_switch/trigger" || true)" = "$top_trigger_before" ] ||
		fail "the top-level sched_switch trigger changed"
}

# json FILE: each record as "cpu event", in time order.
events_by_cpu() {
	"$KTRACE" report -i "$1" --format json | jq -r '"\(.cpu) \(.event)"'
}

# after FILE: the event each kernel_stack follows on its CPU, counted.
stack_follows() {
	events_by_cpu "$1" | awk '
		$2 == "kernel_stack" { print last[$1]; next }
		{ last[$1] = $2 }' | sort | uniq -c
}

# The counts below are exact: getppid_n's syscalls are events of a busy
# task.  Around idle, this host's 6.18 kernel drops records (a switch, a
# stack) without counting them, as a plain instance's own text shows; so
# these tests count stacks of syscalls, not of switches.
@test "-T: a kernel stack after every event, as trace-cmd reads it" {
	run rec -q -T -F -e syscalls:sys_enter_getppid -e sched_switch -o t.dat -- "$KT_STACK_BIN/getppid_n" 200
	assert_success
	"$KTRACE" report -i t.dat >kt.txt
	trace-cmd report -i t.dat 2>/dev/null | tail -n +2 >tc.txt
	cmp kt.txt tc.txt
	grep -q '<stack trace >' kt.txt
	grep -q '^=> do_syscall_64 (' kt.txt
	# A stack right after every one of the 200 syscalls.
	run stack_follows t.dat
	assert_success
	assert_line --regexp '^ +200 sys_enter_getppid$'
	n_ev=$(events_by_cpu t.dat | grep -c ' sys_enter_getppid$')
	[ "$n_ev" = 200 ] || fail "$n_ev syscalls of 200"
	# JSON: the frames as an array.
	"$KTRACE" report -i t.dat --format json -e kernel_stack --head 1 |
		jq -e '.caller | type == "array" and length > 2' >/dev/null
}

# Pread64 calls in pread.txt of more than $1 bytes.
big_reads() {
	awk -v big="$1" -F', ' '/pread64/ { split($3, a, ")"); if (a[1] + 0 > big) n++ } END { print n + 0 }' pread.txt
}

# t.dat's kallsyms (the section read in one call of more than BIG bytes)
# read only at the first address to name: none for a count, one for the
# stacks' names (kt.txt, as trace-cmd prints them); that read failing
# then, one warning, the report whole, its addresses unnamed.
lazy_kallsyms_check() {
	local big=$1
	# LeakSanitizer cannot run under ptrace: the ASan build checks leaks elsewhere.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	strace -f -e trace=pread64 -o pread.txt "$KTRACE" report -i t.dat --stat >/dev/null
	run big_reads "$big"
	assert_output 0
	strace -f -e trace=pread64 -o pread.txt "$KTRACE" report -i t.dat >kt.txt
	run big_reads "$big"
	assert_output 1
	grep -q '^=> do_syscall_64 (' kt.txt
	cmp kt.txt <(trace-cmd report -i t.dat 2>/dev/null | tail -n +2)
	[ -f "$TOP/build/faultinj.so" ] || make -s -C "$TOP" build/faultinj.so >/dev/null
	run --separate-stderr env LD_PRELOAD="$TOP/build/faultinj.so" KT_FAULT_PREAD="*/t.dat:EIO" \
		KT_FAULT_PREAD_MIN="$big" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		"$KTRACE" report -i t.dat
	assert_success
	assert_equal "$stderr" "ktrace report: warning: cannot read the kallsyms of 't.dat': Input/output error; kernel addresses are not named"
	refute_output --partial '=> do_syscall_64 ('
	[ "$(grep -c '^=> ' <<<"$output")" = "$(grep -c '^=> ' kt.txt)" ] || fail "frames lost"
}

@test "kallsyms is read from the file at the first address to name, not at the open" {
	run rec -q -T --file-version 6 -e syscalls:sys_enter_getppid -o t.dat -- "$KT_STACK_BIN/getppid_n" 20
	assert_success
	# v6: the section's text as it is, /proc/kallsyms' (MBs).
	lazy_kallsyms_check $(($(wc -c </proc/kallsyms) / 2))
}

@test "a packed kallsyms (v7) is unpacked at the first address to name, not at the open; unreadable or damaged then, a warning" {
	local big at
	run rec -q -T -e syscalls:sys_enter_getppid -o t.dat -- "$KT_STACK_BIN/getppid_n" 20
	assert_success
	# v7: the section packed, a fifth of the text or more (the data's
	# blocks are a few KB).
	big=$(($(wc -c </proc/kallsyms) / 16))
	lazy_kallsyms_check "$big"
	# The packed bytes damaged (their zstd magic zeroed, where the big
	# read began): the count still reads, the report warns.
	strace -f -e trace=pread64 -o pread.txt "$KTRACE" report -i t.dat >/dev/null
	at=$(awk -v big="$big" -F', ' '/pread64/ { split($3, a, ")"); split($4, b, ")"); if (a[1] + 0 > big) print b[1] + 0 }' pread.txt)
	[ -n "$at" ] || fail "no offset for the section"
	cp t.dat d.dat
	printf '\0\0\0\0' | dd of=d.dat bs=1 seek="$at" conv=notrunc status=none
	run --separate-stderr "$KTRACE" report -i d.dat --stat
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr "$KTRACE" report -i d.dat
	assert_success
	assert_equal "$stderr" "ktrace report: warning: cannot read the kallsyms of 'd.dat': its packed section is damaged; kernel addresses are not named"
	[ "$(grep -c '^=> ' <<<"$output")" = "$(grep -c '^=> ' kt.txt)" ] || fail "frames lost"
}

@test "--stack EVENT: stacks with that event only, and EVENT is recorded" {
	run rec -q -F -e syscalls:sys_exit_getppid --stack syscalls:sys_enter_getppid -o s.dat -- "$KT_STACK_BIN/getppid_n" 100
	assert_success
	run stack_follows s.dat
	assert_success
	assert_output --regexp '^ +100 sys_enter_getppid$'
	n_ex=$(events_by_cpu s.dat | grep -c ' sys_exit_getppid$')
	[ "$n_ex" = 100 ] || fail "$n_ex syscall exits of 100"
	"$KTRACE" report -i s.dat | cmp - <(trace-cmd report -i s.dat 2>/dev/null | tail -n +2)
	# With -T too: still one stack per event, not two.
	run rec -q -T -F -e syscalls:sys_exit_getppid --stack syscalls:sys_enter_getppid -o b.dat -- "$KT_STACK_BIN/getppid_n" 100
	assert_success
	run stack_follows b.dat
	assert_success
	assert_line --regexp '^ +100 sys_enter_getppid$'
	assert_line --regexp '^ +100 sys_exit_getppid$'
	n_st=$(events_by_cpu b.dat | grep -c ' kernel_stack$')
	n_ev=$(events_by_cpu b.dat | grep -vc ' kernel_stack$')
	[ "$n_st" = "$n_ev" ] || fail "-T --stack: $n_st stacks for $n_ev events"
}

@test "--user-stack: a user stack after every event, as trace-cmd reads it" {
	top_ustack=$(cat "$TRACEFS/options/userstacktrace")
	run rec -q --user-stack -F -e syscalls:sys_enter_getppid -o u.dat -- "$KT_STACK_BIN/getppid_n" 50
	assert_success
	# --format trace-cmd: trace-cmd's bytes, bare addresses.  trace-cmd
	# reads the file, maps and all, with nothing to say.
	"$KTRACE" report -i u.dat --format trace-cmd >kt.txt
	trace-cmd report -i u.dat 2>tc.err | tail -n +2 >tc.txt
	[ "${PIPESTATUS[0]}" = 0 ]
	cmp kt.txt tc.txt
	[ ! -s tc.err ] || fail "trace-cmd: $(cat tc.err)"
	n_sc=$(events_by_cpu u.dat | grep -c ' sys_enter_getppid$')
	n_us=$(events_by_cpu u.dat | grep -c ' user_stack$')
	[ "$n_sc" = 50 ] && [ "$n_us" = 50 ] || fail "$n_us user stacks for $n_sc syscalls"
	# The syscalls' stacks: return addresses in user space.
	grep -q '=> 0x[0-9a-f]\{6,\}' kt.txt
	[ "$(cat "$TRACEFS/options/userstacktrace")" = "$top_ustack" ]
}

@test "--user-stack: report names the frames: the program's functions and libc's" {
	run rec -q --user-stack -F -e syscalls:sys_enter_getppid -o u.dat -- "$KT_STACK_BIN/getppid_n" 20 3
	[ "$status" = 3 ]	# traced to its exit, its status still passes through
	"$KTRACE" report -i u.dat >kt.txt
	bin="$KT_STACK_BIN/getppid_n"
	libc=$(ldd "$bin" | awk '$1 ~ /^libc\.so/ { print $3 }')
	libc=$(readlink -f "$libc")
	# Every stack: libc's syscall() and, the frame above, main.
	n_sys=$(grep -c "	=> syscall+0x[0-9a-f]* ($libc+0x[0-9a-f]*)$" kt.txt || true)
	n_main=$(grep -c "^	=> main+0x[0-9a-f]* ($bin+0x[0-9a-f]*)$" kt.txt || true)
	[ "$n_sys" = 20 ] && [ "$n_main" = 20 ] || fail "$n_sys syscall frames, $n_main main frames of 20 stacks"
	# libc is stripped: its static functions come from its debug file
	# when one is installed (libc6-dbg), found by build ID.
	id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
	if [ -r "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
		n_start=$(grep -c "^	=> __libc_start_call_main+0x[0-9a-f]* ($libc+0x[0-9a-f]*)$" kt.txt || true)
		[ "$n_start" = 20 ] || fail "$n_start __libc_start_call_main frames of 20 stacks"
	fi
	# The offsets are the files': main's entry as nm gives it, and the
	# file offset of its frame inside main.
	grep -m1 "=> main+" kt.txt >frame.txt
	read -r delta off < <(sed 's/.*main+0x\([0-9a-f]*\) (.*+0x\([0-9a-f]*\))$/\1 \2/' frame.txt)
	main_at=$(nm "$bin" | awk '$3 == "main" { print $1 }')
	[ $((16#$off)) = $((16#$main_at + 16#$delta)) ] || fail "main+0x$delta at 0x$off, main at 0x$main_at"
	# Only user_stack lines change: the rest is trace-cmd's.
	"$KTRACE" report -i u.dat --format trace-cmd >tc.txt
	diff <(grep -v '^	=>' kt.txt | grep -v user_stack) <(grep -v '^	=>' tc.txt | grep -v user_stack)
	# JSON: the frames by name beside the addresses.
	"$KTRACE" report -i u.dat --format json |
		jq -e -s '[.[] | select(.event == "user_stack")] | length == 20 and
			all(.caller_names[0] == "syscall" and .caller_names[1] == "main" and
			    (.caller_files[1] | startswith("'"$bin"'+0x")) and
			    (.caller_names | length) == (.caller | length))' >/dev/null
	# A file cut down by report -o keeps the maps, and the names.
	"$KTRACE" report -i u.dat -e user_stack -o cut.dat
	"$KTRACE" report -i cut.dat | grep -q "^	=> main+0x[0-9a-f]* ($bin+0x"
}

@test "--user-stack: a command that execs another (env PROG) has PROG's frames named" {
	run rec -q --user-stack -F -e syscalls:sys_enter_getppid -e syscalls:sys_enter_execve \
		-o u.dat -- env "$KT_STACK_BIN/getppid_n" 10
	assert_success
	"$KTRACE" report -i u.dat >kt.txt
	n_main=$(grep -c "^	=> main+0x[0-9a-f]* ($KT_STACK_BIN/getppid_n+0x[0-9a-f]*)$" kt.txt || true)
	[ "$n_main" = 10 ] || fail "$n_main main frames of 10 stacks"
	# env's own stacks, before the exec, are not named by getppid_n's maps.
	awk '/sys_enter_execve:/ { getline; print; exit }' kt.txt | grep -v '(' | grep -q '=> 0x'
	trace-cmd report -i u.dat >/dev/null 2>tc.err
	[ ! -s tc.err ]
}

@test "--user-stack -c: the frames of the command's short-lived children are named too" {
	bin="$KT_STACK_BIN/getppid_n"
	run rec -q --user-stack -c -e syscalls:sys_enter_getppid -o u.dat -- \
		sh -c "'$bin' 5 >/dev/null; ('$bin' 4 >/dev/null); '$bin' 3 >/dev/null & wait"
	assert_success
	"$KTRACE" report -i u.dat >kt.txt
	n_main=$(grep -c "^	=> main+0x[0-9a-f]* ($bin+0x[0-9a-f]*)$" kt.txt || true)
	[ "$n_main" = 12 ] || fail "$n_main main frames of 12 stacks"
	trace-cmd report -i u.dat >/dev/null 2>tc.err
	[ ! -s tc.err ]
}

@test "--user-stack: the traced command's signals reach it and its end passes through" {
	# A signal it handles, then one that kills it: ptrace passes both on.
	run rec -q --user-stack -e sched_process_exit -o u.dat -- \
		sh -c 'trap "echo caught" USR1; kill -USR1 $$; echo went on; kill -TERM $$'
	[ "$status" = 143 ] || fail "status $status: $output"
	assert_output --partial caught
	assert_output --partial "went on"
	trace-cmd report -i u.dat >/dev/null 2>tc.err
	[ ! -s tc.err ]
}

@test "--stack refusals: one line, exit 1, nothing left set" {
	run rec -q --stack ftrace:function -o f.dat -- true
	assert_failure 1
	assert_output --partial "ktrace record: 'ftrace:function' is written by the function tracer"
	[ ! -e f.dat ]
	# ftrace:print (trace_marker's) is one, but takes no trigger.
	run rec -q --stack ftrace:print -o f.dat -- true
	assert_failure 1
	assert_output "ktrace record: 'ftrace:print' takes no stacktrace trigger; use -T for a stack with every event"
	[ ! -e f.dat ]
	run rec -q --stack sched_swich -o f.dat -- true
	assert_failure
	assert_output --partial "unknown event 'sched_swich'"
	assert_output --partial "did you mean"
	[ ! -e f.dat ]
	run rec -T --recover f.dat
	[ "$status" = 64 ]
}

@test "--stack completes event names" {
	run complete_words ktrace record --stack sched : sched_swi
	assert_success
	assert_output sched_switch
}

# folded_oracle FILE [EVENT]: tests/folded.awk over trace-cmd's text, sorted.
folded_oracle() {
	trace-cmd report -i "$1" 2>/dev/null | awk -v only="${2:-}" -f "$TOP/tests/folded.awk" | sort
}

@test "report --stacks: folded stacks, as made from trace-cmd's text, of every stored file with stacks" {
	local f
	# tc-ustack's user stacks, with no maps: frames as addresses.
	for f in tc-stack tc-v7-stack tc-ustack; do
		cmp <("$KTRACE" report -i "$TOP/tests/data/$f.dat" --stacks | sort) \
			<(folded_oracle "$TOP/tests/data/$f.dat")
		cmp <("$KTRACE" report -i "$TOP/tests/data/$f.dat" --stacks -e sched_switch | sort) \
			<(folded_oracle "$TOP/tests/data/$f.dat" sched_switch)
	done
	# The heaviest first; the tracing machinery's frames are left out.
	"$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --stacks >f.txt
	sort -t' ' -k2,2nr -s f.txt | cmp - f.txt
	grep -q ';__schedule [0-9]*$' f.txt
	if grep -q 'trace_event_raw_event\|__traceiter_' f.txt; then fail "tracing frames kept"; fi
	# -o FILE writes the same.
	"$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --stacks -o g.txt
	cmp f.txt g.txt
}

# rec_sleep FILE SECS: record sleep SECS with a stack at each of its
# switches, until trace-cmd's text of FILE has the sleep's switch out of
# do_nanosleep with its stack: the kernel here may drop either (above),
# and what is tested is what report makes of them.  At most 5 tries.
rec_sleep() {
	local i
	for i in 1 2 3 4 5; do
		rec -q -F --stack sched_switch -o "$1" -- sleep "$2" || return 1
		trace-cmd report -i "$1" 2>/dev/null |
			grep -A12 'sched_switch: *sleep:[0-9]* .* S ==>' | grep -q '^=> do_nanosleep' &&
			return 0
		echo "# try $i: the kernel dropped the sleep's switch or its stack" >&3
	done
	return 1
}

@test "report --stacks of a live recording; --stacks=offcpu weighs a sleep by its time off the CPU" {
	run rec_sleep s.dat 0.3
	assert_success
	cmp <("$KTRACE" report -i s.dat --stacks | sort) <(folded_oracle s.dat)
	run "$KTRACE" report -i s.dat --stacks=offcpu
	assert_success
	# The sleep's own stack: about 300000 microseconds off the CPU.
	us=$(grep '^sleep;.*do_nanosleep;' <<<"$output" | awk '{ s += $NF } END { print s + 0 }')
	[ "$us" -ge 290000 ] && [ "$us" -lt 1000000 ] || fail "sleep 0.3 off the CPU for $us us: $output"
	# The switch that puts the sleep back, cut out (as a kernel that
	# drops it uncounted leaves the file): its time off ends at its next
	# event, and report says so.
	p=$("$KTRACE" report -i s.dat --format json -e sched_switch |
		jq -r 'select(.prev_comm == "sleep") | .prev_pid' | head -n 1)
	"$KTRACE" report -i s.dat --pid "$p" -o cut.dat
	if "$KTRACE" report -i cut.dat | grep -q "==> sleep:$p "; then fail "the switch in is still there"; fi
	run "$KTRACE" report -i cut.dat --stacks=offcpu
	assert_success
	# At least the one after its nap (a busy host preempts the sleep
	# too, and the kernel may have dropped others).
	assert_line --index 0 --regexp "^ktrace report: warning: [0-9]+ switch(es)? back onto a CPU (is|are) missing from 'cut.dat' \(dropped uncounted\); each such time off ends at the task's next event$"
	us=$(grep '^sleep;.*do_nanosleep;' <<<"$output" | awk '{ s += $NF } END { print s + 0 }')
	[ "$us" -ge 290000 ] && [ "$us" -lt 1000000 ] || fail "cut: sleep 0.3 off the CPU for $us us: $output"
}

@test "report --stacks=offcpu with --stack sched_switch and --user-stack together: the kernel stacks are found" {
	kt_tool naps "$KT_STACK_BIN"
	# 10 naps of 30 ms: at least 300 ms blocked in do_nanosleep.
	run rec -q --stack sched_switch --user-stack -o su.dat -- "$KT_STACK_BIN/naps" 10 30000
	assert_success
	# Each switch's user stack comes between it and its kernel stack.
	"$KTRACE" report -i su.dat -e user_stack | grep -q user_stack || fail "no user stacks"
	output=$("$KTRACE" report -i su.dat --stacks=offcpu 2>/dev/null) || fail "report --stacks=offcpu failed"
	us=$(grep '^naps;.*do_nanosleep;' <<<"$output" | awk '{ s += $NF } END { print s + 0 }')
	[ "$us" -ge 290000 ] || fail "naps off the CPU in do_nanosleep for $us us: $output"
	# The same as analyze offcpu folds it.
	cmp <("$KTRACE" analyze offcpu -i su.dat --format folded 2>/dev/null) <(echo "$output")
}

# user_then_kernel FILE: deepstack's folded lines that hold its whole
# call chain, user frames outermost first, then the kernel's down to the
# nanosleep it blocks in (leaf_block makes the syscall itself, so the
# kernel's frame-pointer walk of the user stack starts in it).
user_then_kernel() {
	grep -E '^deepstack;([^;]*;)*main;level1;level2;level3;level4;leaf_block;entry_SYSCALL_64[^;]*;([^;]*;)*do_nanosleep;([^;]*;)*__schedule [0-9]+$' "$1"
}

# joined_stacks FILE: report's folded stacks and flame graphs of FILE,
# recorded with kernel and user stacks of deepstack's switches.
joined_stacks() {
	"$KTRACE" report -i "$1" --stacks -e sched_switch >f.txt
	user_then_kernel f.txt >deep.txt || fail "no joined stack: $(cat f.txt)"
	# As many stacks as trace-cmd's text gives, its frames addresses.
	[ "$(awk '{ s += $NF } END { print s }' f.txt)" = \
	  "$(folded_oracle "$1" sched_switch | awk '{ s += $NF } END { print s }')" ]
	# Off the CPU: 10 naps of 20 ms in leaf_block (the kernel may drop
	# a switch around idle: at least half of it).
	"$KTRACE" report -i "$1" --stacks=offcpu >off.txt 2>/dev/null
	us=$(user_then_kernel off.txt | awk '{ s += $NF } END { print s + 0 }')
	[ "$us" -ge 100000 ] || fail "leaf_block off the CPU for $us us: $(cat off.txt)"
	cmp <("$KTRACE" analyze offcpu -i "$1" --format folded 2>/dev/null) off.txt
	# The flame graph: leaf_block's frame stands on level4's, and the
	# kernel's entry on leaf_block's.
	"$KTRACE" report -i "$1" --flamegraph --stacks=offcpu -o off.svg 2>/dev/null
	grep -q 'class="title"[^>]*>Off-CPU time by kernel and user stack of ' off.svg
	python3 - off.svg <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# Each frame: its <title> (name: count...) and its rect's x, y, width.
frames = re.findall(r'<g[^>]*>\s*<title>([^<:]+):[^<]*</title>\s*<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)"', text)
assert frames, "no frames"
def at(name):
    return [(float(x), float(y), float(w)) for (n, x, y, w) in frames if n == name]
def on(upper, lower):
    return any(ly > uy and lx - 0.01 <= ux and ux + uw <= lx + lw + 0.01
               for (ux, uy, uw) in at(upper) for (lx, ly, lw) in at(lower))
for (u, l) in (("level1", "main"), ("leaf_block", "level4"),
               ("entry_SYSCALL_64_after_hwframe", "leaf_block"),
               ("do_nanosleep", "hrtimer_nanosleep")):
    assert on(u, l), (u, l, at(u), at(l))
PY
}

@test "--stack sched_switch --user-stack: each switch's user frames, then its kernel frames, in folded stacks and flame graphs" {
	kt_tool deepstack "$KT_STACK_BIN" -O0 -g -fno-omit-frame-pointer
	# The trigger's kernel stack follows the switch's user stack.
	run rec -q --stack sched_switch --user-stack -F -o su.dat -- "$KT_STACK_BIN/deepstack" 10 20000
	assert_success
	joined_stacks su.dat
}

@test "-T --user-stack: each switch's kernel stack, then its user stack, joined the same way" {
	kt_tool deepstack "$KT_STACK_BIN" -O0 -g -fno-omit-frame-pointer
	run rec -q -T --user-stack -F -e sched_switch -o tu.dat -- "$KT_STACK_BIN/deepstack" 10 20000
	assert_success
	joined_stacks tu.dat
	# A user stack alone is folded too (its event's kernel stack cut out).
	"$KTRACE" report -i tu.dat -e sched_switch -e user_stack -o u.dat
	"$KTRACE" report -i u.dat --stacks >u.txt
	grep -qE '^deepstack;([^;]*;)*main;level1;level2;level3;level4;leaf_block [0-9]+$' u.txt ||
		fail "no user-only stack: $(cat u.txt)"
	# Without libelf (loaded when a user frame is named, elffns.h; here
	# its file reads as /dev/null): one warning naming libelf1, and the
	# same stacks with their user frames as FILE+0xOFF.
	local so
	so=$(ldconfig -p | awk '$1 == "libelf.so.1" && /x86-64/ { print $NF; exit }')
	so=$(readlink -f "$so")
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$so" \
		"$KTRACE" report -i u.dat --stacks >noelf.txt 2>noelf.err
	[ "$(wc -l <noelf.err)" = 1 ] || fail "not one line: $(cat noelf.err)"
	grep -qE "^ktrace report: warning: cannot load libelf: .+; install libelf1 to name user-space frames \(shown as FILE\+0xOFF\)$" noelf.err ||
		fail "$(cat noelf.err)"
	grep -qE '^deepstack;([^;]*;)*[^;]*deepstack\+0x[0-9a-f]+;([^;]*;)*[^;]*deepstack\+0x[0-9a-f]+ [0-9]+$' noelf.txt ||
		fail "no FILE+0xOFF frames: $(head -c 600 noelf.txt)"
	! grep -q leaf_block noelf.txt
	[ "$(awk '{ s += $NF } END { print s }' noelf.txt)" = "$(awk '{ s += $NF } END { print s }' u.txt)" ]
}

@test "report --stacks: no stacks, a loss and bad options each say so" {
	# No stacks: one line with the way to record some; exit 1.
	run "$KTRACE" report -i "$TOP/tests/data/tc-sched.dat" --stacks
	assert_failure 1
	assert_output "ktrace report: no kernel stacks in '$TOP/tests/data/tc-sched.dat'; record them with 'ktrace record -T' or '--stack EVENT'"
	# A loss is never silent, here before that line.
	run "$KTRACE" report -i "$TOP/tests/data/tc-v7-lost.dat" --stacks
	assert_failure 1
	assert_line --index 0 --regexp "^ktrace report: warning: (at least )?[0-9]+ events were lost in '.*tc-v7-lost.dat'; the stack counts may be short$"
	run "$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --stacks=bogus
	[ "$status" = 64 ]
	run "$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --stacks --raw
	[ "$status" = 64 ]
	run "$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --flamegraph --format json
	[ "$status" = 64 ]
}

@test "report --flamegraph: one SVG, each frame as wide as its count, a share in each tooltip; Chromium draws it" {
	"$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --flamegraph -o f.svg
	xmllint --noout f.svg
	total=$("$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --stacks | awk '{ s += $NF } END { print s }')
	python3 - f.svg "$total" <<'PY'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
total = int(sys.argv[2])
assert int(root.get("data-total")) == total, (root.get("data-total"), total)
ppc = float(root.get("data-px-per-count"))
frames = root.findall(NS + "g[@class='frame']")
assert frames, "no frames"
byd = {}
for g in frames:
    r = g.find(NS + "rect")
    c = int(g.get("data-count"))
    w, x = float(r.get("width")), float(r.get("x"))
    assert abs(w - c * ppc) < 0.01, (w, c * ppc)
    t = g.find(NS + "title").text
    assert t.endswith("%"), t
    byd.setdefault(int(g.get("data-depth")), []).append((x, x + w, c))
assert len(byd[0]) == 1 and byd[0][0][2] == total, byd[0]
# Every frame stands on one of the level below, within its width.
for d in sorted(byd)[1:]:
    for (a, b, c) in byd[d]:
        assert any(pa - 0.01 <= a and b <= pb + 0.01 for (pa, pb, _) in byd[d - 1]), (d, a, b)
# The comms are level 1, and their counts add up to the total.
assert sum(c for (_, _, c) in byd[1]) == total
print("frames %d" % len(frames))
PY
	grep -q '<title>__schedule: [0-9]* events, [0-9.]*%</title>' f.svg
	grep -q 'class="title"[^>]*>Kernel stacks of ' f.svg
	# Off-CPU time, and in a browser.
	run rec_sleep s.dat 0.2
	assert_success
	"$KTRACE" report -i s.dat --flamegraph --stacks=offcpu -o off.svg
	grep -q 'data-unit="us off-CPU"' off.svg
	grep -q '<title>do_nanosleep: [0-9]* us off-CPU' off.svg
	screenshot "$BATS_TEST_TMPDIR/f.svg" "$BATS_TEST_TMPDIR/f.png" 1200,500
	[ "$(stat -c %s f.png)" -gt 20000 ] || fail "a trivial PNG"
}

@test "--format json: a kernel stack's caller_names name its frames as trace-cmd's text does" {
	local f
	for f in tc-stack tc-v7-stack; do
		# (python: jq's numbers are doubles, short of 64-bit addresses)
		"$KTRACE" report -i "$TOP/tests/data/$f.dat" --format json -e kernel_stack |
			python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    assert len(e["caller"]) == len(e["caller_names"])
    for a, n in zip(e["caller"], e["caller_names"]):
        if a == 2**64 - 1:
            break
        print("=> %s (%x)" % (n or "", a))' >json.txt
		trace-cmd report -i "$TOP/tests/data/$f.dat" 2>/dev/null | grep '^=> ' >tc.txt
		[ -s tc.txt ]
		cmp json.txt tc.txt
	done
}
