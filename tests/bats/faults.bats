#!/usr/bin/env bats
# Faults: signals at random moments, SIGKILL and --recover, refused
# tracefs files (injected with tests/faultinj.c), tracefs not mounted or
# not mountable, not root, a full disk, and traced commands that die,
# fail or fork.  After each: a valid file or none, no ktrace-* instance
# and no event left enabled.

load helpers

bats_require_minimum_version 1.5.0

# An event nobody else on this machine records: if it is enabled
# anywhere after a test, one of our recordings left it on.
OURS=syscalls:sys_exit_getppid

setup_file() {
	export FAULTINJ="$TOP/build/faultinj.so"
	[ -f "$FAULTINJ" ] || make -s -C "$TOP" build/faultinj.so >/dev/null
	export KT_FLT_BIN="$BATS_FILE_TMPDIR/bin"
	# marks N FILE [TAG]: N numbered writes "TAG i" to FILE, one each.
	kt_tool marks "$KT_FLT_BIN"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >pids
	top_events_before=$(cat "$TRACEFS/set_event")
	events_before=$(our_event_map)
}

teardown() {
	cd /
	umount_tmpfs
	# A test that failed half-way: stop its recording first.
	assert_no_instances "$BATS_TEST_TMPDIR/pids" INT
	[ "$(cat "$TRACEFS/set_event")" = "$top_events_before" ] ||
		fail "top-level set_event changed: $(cat "$TRACEFS/set_event")"
	kt_cleanup_instances
}

# Every instance's set_event, as "name<TAB>has-our-event" lines.
our_event_map() {
	local f name
	for f in "$TRACEFS/set_event" "$TRACEFS"/instances/*/set_event; do
		name=${f#"$TRACEFS"/}
		if grep -qx "$OURS" "$f" 2>/dev/null; then
			printf '%s\t1\n' "$name"
		else
			printf '%s\t0\n' "$name"
		fi
	done
}

# No instance that had our event off before the test has it on now
# (other tests on this machine change their own instances meanwhile, so
# only our event is compared), and the top level is as it was.
nothing_enabled() {
	local name on
	while IFS=$'\t' read -r name on; do
		[ "$on" = 0 ] || continue
		! grep -qx "$OURS" "$TRACEFS/$name" 2>/dev/null ||
			fail "$OURS left enabled in $TRACEFS/$name"
	done <<<"$events_before"
	[ "$(cat "$TRACEFS/set_event")" = "$top_events_before" ] ||
		fail "top-level set_event changed: $(cat "$TRACEFS/set_event")"
}

# No piece or temporary file of ours in DIR.
no_pieces() {
	run ls -A "${1:-.}"
	refute_output --partial ".tmp-"
}

# Run ktrace ARGS... in the background, remembering its pid; sets $pid.
bg_ktrace() {
	# bash starts background jobs with SIGINT ignored, and a SIGINT that
	# comes before ktrace takes it back (kt_signals_block) would be lost
	# and leave it recording forever: start it as a foreground job would.
	env --default-signal=INT "$KTRACE" "$@" &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/pids"
}

# Wait until the instance of ktrace $pid records (tracing_on 1).
wait_recording() {
	for _ in $(seq 500); do
		[ "$(cat "$TRACEFS/instances/ktrace-$pid/tracing_on" 2>/dev/null)" = 1 ] && return 0
		sleep 0.01
	done
	fail "ktrace $pid never started recording"
}

# The marks "TAG i" in a file, as numbers, sorted.  Without kallsyms
# trace-cmd names the print's function by address: ": TAG i" either way.
marks_in() { # FILE [TAG]
	trace-cmd report -i "$1" 2>/dev/null |
		sed -n "s/.*: ${2:-mark} \([0-9]*\)\$/\1/p" | sort -n
}

# Run ktrace with the fault injector; one line of output, exit 1.
injected() { # VAR=RULE ktrace-args...
	local rule=$1
	shift
	run env "$rule" LD_PRELOAD="$FAULTINJ" KT_FAULT_LOG="$BATS_TEST_TMPDIR/faults.log" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$KTRACE" "$@"
}

# killed_recording FILE [ARGS...]: a recording of 3000 marks into FILE,
# killed with SIGKILL once its recorders have taken pages out of the
# buffer and its ktrace-ksyms thread has written kallsyms (slow under
# ASan on a loaded machine); $pid is the dead ktrace.
killed_recording() {
	local out=$1
	shift
	bg_ktrace record -q -o "$out" -b 64 -e ftrace:print "$@"
	wait_recording
	"$KT_FLT_BIN/marks" 3000 "$TRACEFS/instances/ktrace-$pid/trace_marker"
	for _ in $(seq 300); do
		[ "$(cat "$out.tmp-$pid".cpu* 2>/dev/null | wc -c)" -gt 0 ] && break
		sleep 0.01
	done
	for _ in $(seq 3000); do
		grep -qx ktrace-ksyms /proc/"$pid"/task/*/comm 2>/dev/null || break
		sleep 0.01
	done
	kill -KILL "$pid"
	wait "$pid" || true
}

# ---- signals ----

# signal_taken PID SIG: has PID blocked SIG (ktrace takes its signals
# over through a signalfd)?  From then on no signal may lose the file.
signal_taken() {
	local mask
	mask=$(awk '/^SigBlk:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$mask" ] && (( (0x$mask >> ($(kill -l "$2") - 1)) & 1 ))
}

@test "SIGINT, SIGTERM and SIGHUP at random moments: 50 runs, each a valid file" {
	local i sig st
	sigs=(INT TERM HUP)
	for i in $(seq 50); do
		sig=${sigs[i % 3]}
		# Odd runs trace a command, even ones the whole system.
		if [ $((i % 2)) = 1 ]; then
			bg_ktrace record -q -o "r$i.dat" -e ftrace:print -e "$OURS" -- \
				sh -c 'exec sleep 5'
		else
			bg_ktrace record -q -o "r$i.dat" -e ftrace:print -e "$OURS" -e sched:sched_switch
		fi
		# From the moment ktrace holds its signals (before that, a
		# signal's default action ends any program) to well into the
		# recording: setting up, starting, recording.
		for _ in $(seq 3000); do
			signal_taken "$pid" "$sig" && break
			sleep 0.002
		done
		signal_taken "$pid" "$sig" || fail "run $i: ktrace never blocked SIG$sig"
		sleep "0.$(printf '%03d' $((RANDOM % 250)))"
		kill -"$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		[ ! -d "$TRACEFS/instances/ktrace-$pid" ] || fail "run $i (SIG$sig): instance left"
		[ -e "r$i.dat" ] || fail "run $i (SIG$sig, status $st): no file"
		trace-cmd report -i "r$i.dat" >/dev/null 2>"r$i.err" ||
			fail "run $i (SIG$sig, status $st): trace-cmd cannot read the file: $(cat "r$i.err")"
		"$KTRACE" report -i "r$i.dat" >/dev/null 2>"r$i.err" ||
			fail "run $i (SIG$sig, status $st): ktrace report cannot read the file: $(cat "r$i.err")"
		rm -f "r$i.dat"
		# A whole-system recording ends cleanly; a command's, as the
		# command, which got the signal passed on.
		if [ $((i % 2)) = 0 ]; then
			[ "$st" -eq 0 ] || fail "run $i (SIG$sig): status $st"
		else
			[ "$st" -eq $((128 + $(kill -l "$sig"))) ] ||
				fail "run $i (SIG$sig): status $st, not the command's 128+SIG$sig"
		fi
		no_pieces .
	done
	nothing_enabled
}

@test "SIGKILL leaves the instance and the pieces; reset -a removes the one, --recover assembles the other; the next record sweeps its registry entry" {
	mkdir "$TRACEFS/instances/$(kt_test_instance)"
	export KTRACE_RUN_DIR="$BATS_TEST_TMPDIR/run"
	killed_recording k.dat -e "$OURS"
	[ -d "$TRACEFS/instances/ktrace-$pid" ] || fail "SIGKILL left no instance?"
	[ -f "$KTRACE_RUN_DIR/$pid" ] || fail "SIGKILL left no registry entry? $(ls -A "$KTRACE_RUN_DIR")"
	[ -f "k.dat.tmp-$pid" ] && [ -f "k.dat.tmp-$pid.cpu0" ] && [ -f "k.dat.tmp-$pid.meta" ] ||
		fail "pieces missing: $(ls -A)"
	[ ! -e k.dat ] || fail "a file under the final name"

	run "$KTRACE" reset -B "$(kt_test_instance)" -a
	assert_success
	assert_output --partial "removed instance 'ktrace-$pid'"
	[ ! -d "$TRACEFS/instances/ktrace-$pid" ] || fail "reset -a left ktrace-$pid"
	nothing_enabled

	run "$KTRACE" record --recover k.dat
	assert_success
	assert_output --partial "recovered 'k.dat' from pid $pid"
	no_pieces .
	# The dead recording's registry entry goes with the next recording.
	run "$KTRACE" record -q -o next.dat -e ftrace:print -- true
	assert_success
	[ -z "$(ls -A "$KTRACE_RUN_DIR")" ] || fail "left in the registry: $(ls -A "$KTRACE_RUN_DIR")"
	rm -f next.dat
	# Both readers agree on it, line for line.
	"$KTRACE" report -i k.dat >k.kt
	trace-cmd report -i k.dat >k.tc 2>/dev/null
	run diff <(grep -v '^cpus=' k.tc) k.kt
	assert_success
	run trace-cmd report -i k.dat
	assert_success
	# The marks the recorders took, in order; a gap only where the
	# 64 KB buffer overflowed, and then the file says so.
	inorder=$(sed -n 's/.*: mark \([0-9]*\)$/\1/p' <<<"$output")
	marks=$(sort -nu <<<"$inorder")
	n=$(wc -l <<<"$marks")
	[ "$n" -gt 0 ] || fail "no marks recovered"
	[ "$inorder" = "$marks" ] || fail "marks out of order or repeated"
	if [ "$(tail -n 1 <<<"$marks")" != "$n" ]; then
		assert_output --partial "EVENTS DROPPED"
	fi
	# kallsyms was in: functions resolve.
	[ "$(trace-cmd report -i k.dat -f | wc -l)" -gt 10000 ] || fail "kallsyms lost"
	# The instance and its counters are gone: the loss is unknown, or
	# what the marks show, never "no events lost".
	run "$KTRACE" stat -i k.dat
	assert_success
	refute_output --partial "no events lost"
	assert_output --regexp "loss unknown|events lost on"

	run "$KTRACE" record --recover k.dat
	assert_failure 1
	assert_output --partial "nothing to recover for 'k.dat'"
}

@test "--recover before reset -a takes the events the instance still held: every mark" {
	mkdir "$TRACEFS/instances/$(kt_test_instance)"
	bg_ktrace record -q -o a.dat -b 2048 -e ftrace:print -e "$OURS"
	wait_recording
	"$KT_FLT_BIN/marks" 3000 "$TRACEFS/instances/ktrace-$pid/trace_marker"
	kill -KILL "$pid"
	wait "$pid" || true
	run "$KTRACE" record --recover a.dat
	assert_success
	assert_output --partial "with the events its instance still held"
	# Tracing in the dead instance is off now; reset -a removes it.
	[ "$(cat "$TRACEFS/instances/ktrace-$pid/tracing_on")" = 0 ]
	run "$KTRACE" reset -B "$(kt_test_instance)" -a
	assert_output --partial "removed instance 'ktrace-$pid'"
	[ "$(marks_in a.dat | paste -sd' ')" = "$(seq 3000 | paste -sd' ')" ] ||
		fail "$(marks_in a.dat | wc -l) marks"
	# The instance's counters went into the file: every mark is there,
	# and the file knows that nothing was lost.
	run "$KTRACE" stat -i a.dat
	assert_success
	assert_output --partial "no events lost"
	"$KTRACE" report -i a.dat --stat --format json |
		jq -e '[.cpus[] | select(.overrun != null)] | length > 0' >/dev/null ||
		fail "no record-time stats in the recovered file"
	no_pieces .
	nothing_enabled
}

@test "--recover refuses the pieces of a recording still running, and bad usage" {
	bg_ktrace record -q -o live.dat -e "$OURS"
	wait_recording
	run "$KTRACE" record --recover live.dat
	kill -INT "$pid"
	wait "$pid"
	assert_failure 1
	assert_output --partial "pid $pid is still running"
	[ "$(wc -l <<<"$output")" -eq 1 ]
	run trace-cmd report -i live.dat
	assert_success
	run "$KTRACE" record --recover live.dat -e sched_switch
	assert_failure 64
}

@test "--recover of a recording killed while kallsyms was written keeps the events" {
	killed_recording g.dat
	rmdir "$TRACEFS/instances/ktrace-$pid"
	# What a kill in the middle of kallsyms leaves: the header piece ends
	# inside that section (the formats before it are whole).
	size=$(stat -c %s "g.dat.tmp-$pid")
	truncate -s $((size / 2)) "g.dat.tmp-$pid"
	run "$KTRACE" record --recover g.dat
	assert_success
	assert_output --partial "kallsyms left out of 'g.dat'"
	run trace-cmd report -i g.dat
	assert_success
	# Without kallsyms the print's function shows as an address.  (The
	# 64 KB buffer may have lost the first marks under load.)
	assert_output --regexp "print: +0x[0-9a-f]+: mark [0-9]+
"
	no_pieces .

	# A header piece cut inside the formats cannot be recovered.
	bg_ktrace record -q -o b.dat -e ftrace:print
	wait_recording
	kill -KILL "$pid"
	wait "$pid" || true
	rmdir "$TRACEFS/instances/ktrace-$pid"
	truncate -s 100 "b.dat.tmp-$pid"
	run "$KTRACE" record --recover b.dat
	assert_failure 1
	assert_output --partial "the pieces of pid $pid are damaged"
	[ ! -e b.dat ]
}

# ---- refused files ----

@test "record: a refused enable file is one line, exit 1, nothing left" {
	injected KT_FAULT_OPEN="*/instances/ktrace-*/events/sched/sched_switch/enable:EPERM" \
		record -o e.dat -e "$OURS" -e sched:sched_switch -- true
	assert_failure 1
	assert_output "ktrace record: cannot enable 'sched:sched_switch': Operation not permitted"
	grep -q 'sched_switch/enable 1$' faults.log || fail "the fault was not injected"
	[ ! -e e.dat ] || fail "file written"
	no_pieces .
	nothing_enabled
}

@test "record: refused buffer size, pid filter, filter, trace_pipe_raw, tracing_on: one line each, nothing left" {
	for rule in \
		"*/instances/ktrace-*/buffer_size_kb:EPERM|-b 2048|cannot set a 2048 KB buffer: Operation not permitted" \
		"*/instances/ktrace-*/set_event_pid:EACCES|-F|cannot limit tracing to pids" \
		"*/instances/ktrace-*/events/syscalls/sys_exit_getppid/filter:EPERM|-f ret==1|bad filter 'ret==1' for 'syscalls:sys_exit_getppid': Operation not permitted" \
		"*/instances/ktrace-*/per_cpu/cpu1/trace_pipe_raw:EIO|-q|cannot open the per-CPU buffers: Input/output error" \
		"*/instances/ktrace-*/tracing_on:EPERM|-q|cannot stop tracing in 'ktrace-"; do
		IFS='|' read -r pat opt msg <<<"$rule"
		: >faults.log
		# shellcheck disable=SC2086
		injected KT_FAULT_OPEN="$pat" record -o x.dat -e "$OURS" $opt -- true
		assert_failure 1
		assert_output --partial "ktrace record: $msg"
		[ "$(wc -l <<<"$output")" -eq 1 ] || fail "$pat: more than one line: $output"
		[ -s faults.log ] || fail "$pat: the fault was not injected"
		[ ! -e x.dat ] || fail "$pat: file written"
		no_pieces .
		nothing_enabled
	done
	[ -z "$(ls "$TRACEFS/instances" | grep -E "^ktrace-($(paste -sd'|' pids))$" || true)" ]
}

@test "record: a write error on the output is one line, no file, nothing left" {
	injected KT_FAULT_WRITE="*/w.dat.tmp-*:EIO" record -o w.dat -e "$OURS" -- true
	assert_failure 1
	assert_output --regexp "^ktrace record: cannot write 'w.dat': Input/output error"
	[ "$(wc -l <<<"$output")" -eq 1 ]
	[ ! -e w.dat ] || fail "file written"
	no_pieces .
	nothing_enabled
}

@test "record: a kernel without set_event_notrace_pid records ktrace's own threads, said in one warning" {
	injected KT_FAULT_OPEN="*/instances/ktrace-*/set_event_notrace_pid:ENOENT" \
		record -q -o self.dat -e raw_syscalls -- sleep 0.2
	assert_success
	assert_output "ktrace record: warning: cannot leave ktrace's own threads out of the recording (set_event_notrace_pid: No such file or directory); their events are in it"
	[ -s faults.log ] || fail "the fault was not injected"
	n=$(trace-cmd report -i self.dat 2>/dev/null | grep -cE -- "(^| )ktrace(-[a-z]+)?-[0-9]+ +\[[0-9]+\] +[0-9.]+: sys_enter:") || true
	[ "$n" -gt 10 ] || fail "only $n of ktrace's own system calls in the file"
	nothing_enabled
}

@test "reset and stat: a refused file is one line, exit 1" {
	inst=$(kt_test_instance)
	mkdir "$TRACEFS/instances/$inst"
	echo 1 >"$TRACEFS/instances/$inst/events/syscalls/sys_exit_getppid/enable"
	injected KT_FAULT_OPEN="*/instances/$inst/tracing_on:EPERM" reset -B "$inst"
	assert_failure 1
	assert_line "ktrace reset: cannot reset 'tracing_on' of instance '$inst': Operation not permitted"
	[ "$(grep -c 'ktrace reset: cannot' <<<"$output")" -eq 1 ] || fail "$output"
	# Everything else was still reset.
	[ -z "$(cat "$TRACEFS/instances/$inst/set_event")" ] || fail "events left on"

	injected KT_FAULT_OPEN="*/instances/$inst/per_cpu/cpu1/stats:EPERM" stat -B "$inst"
	assert_failure 1
	assert_output "ktrace stat: cannot read the state of '$inst': Operation not permitted"

	# A file this kernel refuses for real: one warning, the reset done.
	echo 1 >"$TRACEFS/instances/$inst/events/syscalls/sys_exit_getppid/enable"
	run "$KTRACE" reset -B "$inst"
	assert_success
	[ "$(wc -l <<<"$output")" -le 1 ]
	[ -z "$(cat "$TRACEFS/instances/$inst/set_event")" ] || fail "events left on"
}

@test "enable: a refused enable file is one line, exit 1, nothing enabled" {
	inst=$(kt_test_instance)
	mkdir "$TRACEFS/instances/$inst"
	injected KT_FAULT_OPEN="*/events/syscalls/sys_exit_getppid/enable:EPERM" \
		enable -B "$inst" "$OURS"
	assert_failure 1
	[ "$(wc -l <<<"$output")" -eq 1 ] || fail "$output"
	assert_output --regexp '^ktrace enable: '
	[ -z "$(cat "$TRACEFS/instances/$inst/set_event")" ] || fail "enabled: $(cat "$TRACEFS/instances/$inst/set_event")"
	nothing_enabled
}

# ---- tracefs missing, not root ----

# In a private mount namespace without tracefs (and debugfs, whose
# tracing/ is tracefs too): run the rest of the arguments.
without_tracefs() {
	unshare -m sh -c '
		for m in $(awk '\''$3 == "tracefs" || $3 == "debugfs" { print $2 }'\'' /proc/mounts | sort -r); do
			umount -l "$m"
		done
		! grep -qE " (tracefs|debugfs) " /proc/mounts || exit 99
		"$@"
		st=$?
		grep -q " tracefs " /proc/mounts && echo "(tracefs mounted)"
		exit $st' sh "$@"
}

@test "tracefs not mounted: ktrace mounts it itself and records" {
	run without_tracefs "$KTRACE" record -q -o n.dat -e ftrace:print -- \
		sh -c 'echo "mark 1" >/sys/kernel/tracing/instances/ktrace-$PPID/trace_marker'
	assert_success
	assert_output "(tracefs mounted)"
	[ "$(marks_in n.dat)" = 1 ] || fail "the mark is not in the file"
	run without_tracefs "$KTRACE" stat
	assert_success
}

@test "tracefs cannot be mounted: one line, exit 1, for every command" {
	for c in "record -o m.dat -- true" "reset" "stat" "enable $OURS" "list"; do
		# shellcheck disable=SC2086
		run without_tracefs env KT_FAULT_MOUNT='*:EPERM' LD_PRELOAD="$FAULTINJ" \
			ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$KTRACE" $c
		assert_failure 1
		assert_output "ktrace ${c%% *}: tracefs is not available and could not be mounted; try: mount -t tracefs nodev /sys/kernel/tracing"
	done
	[ ! -e m.dat ]
}

@test "not root: record, reset, stat, enable and list say so in one line, exit 1" {
	chmod 777 "$BATS_TEST_TMPDIR"
	for c in "record -o nb.dat -- true" "record --recover nb.dat" "reset" "stat" "enable $OURS" "list"; do
		# shellcheck disable=SC2086
		run as_nobody "$KTRACE" $c
		assert_failure 1
		assert_output "ktrace ${c%% *}: cannot write tracefs: Permission denied; run as root (or with CAP_SYS_ADMIN and write access to /sys/kernel/tracing)"
	done
	[ ! -e nb.dat ]
	no_pieces .
}

# ---- disk full ----

@test "a disk too full for the header: one line, exit 1, no file, nothing left" {
	# One page: less than any header (the ftrace formats alone are tens of
	# KB; at 64k a header without kallsyms was seen to fit).
	tmpfs_at mnt-tiny 4k
	bg_ktrace record -q -o mnt-tiny/t.dat -e "$OURS" -- true
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 1 ] || fail "status $st"
	no_pieces mnt-tiny
	[ ! -e mnt-tiny/t.dat ] || fail "file written"
	nothing_enabled
}

@test "a disk that fills while recording: a valid file with the marks up to the cut, pieces gone" {
	ksz=$(wc -c </proc/kallsyms)
	tmpfs_at mnt-full $(((ksz + 2 * 1024 * 1024) / 1024))k
	bg_ktrace record -q -o mnt-full/f.dat -e ftrace:print -e "$OURS" -- \
		sh -c 'exec "$0" 1000000 /sys/kernel/tracing/instances/ktrace-$PPID/trace_marker 2>/dev/null' \
		"$KT_FLT_BIN/marks" 2>err
	st=0
	wait "$pid" || st=$?
	grep -q "disk full" err || fail "no disk-full error: $(cat err)"
	[ "$st" -eq 1 ] || fail "status $st"
	no_pieces mnt-full
	# The marks kept: the oldest ones, in order; a gap only with the loss
	# reported: LOST (the recorders fell behind on a loaded machine) or
	# the newest data of a CPU that did not fit (each CPU is cut on its
	# own, so a writer that moved between CPUs leaves a gap).
	inorder=$(trace-cmd report -i mnt-full/f.dat 2>/dev/null | sed -n 's/.*: mark \([0-9]*\)$/\1/p')
	marks=$(sort -nu <<<"$inorder")
	n=$(wc -l <<<"$marks")
	[ "$n" -gt 1000 ] || fail "only $n marks kept"
	[ "$inorder" = "$marks" ] || fail "marks out of order or repeated"
	if [ "$(head -n 1 <<<"$marks")" != 1 ] || [ "$(tail -n 1 <<<"$marks")" != "$n" ]; then
		grep -qE "[1-9][0-9]* more were not written" err || fail "marks missing without a reported loss: $(cat err)"
	fi
	# One account of it: what the file holds, what it does not, and why.
	[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
	grep -qE "^ktrace record: disk full: 'mnt-full/f.dat' holds [0-9]+ events, [0-9]+ more were not written( \([0-9]+ of them lost in the kernel buffers\))?; free space or record elsewhere \(-o\)$" err ||
		fail "not the one line: $(cat err)"
	nothing_enabled
}

# full_disk_exact [RECORD OPTIONS...]: the disk fills while recording;
# every mark written is in the file or counted in record's one line of
# it (not written, overwritten in the buffer among them), exactly.  The
# file format decides how the file is assembled on the full disk: v7
# packs the pages in chunks (its output is smaller than the pieces), v7
# none and v6 copy them.
full_disk_exact() {
	ksz=$(wc -c </proc/kallsyms)
	tmpfs_at mnt-exact $(((ksz + 2 * 1024 * 1024) / 1024))k
	# One writer on one CPU: its marks are that CPU's only events.
	bg_ktrace record "$@" -o mnt-exact/e.dat -b 4096 -e ftrace:print -- \
		sh -c 'exec taskset -c 0 "$0" 5000000 /sys/kernel/tracing/instances/ktrace-$PPID/trace_marker 2>"$1"' \
		"$KT_FLT_BIN/marks" "$PWD/marks.err" 2>err
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 1 ] || fail "status $st: $(cat err)"
	grep -q "disk full" err || fail "no disk-full error: $(cat err)"
	# The writer stopped at its first refused write: n - 1 went in.
	written=$(sed -n 's/^marks: write \([0-9]*\) of .*/\1/p' marks.err)
	[ -n "$written" ] || fail "the writer was not stopped by the end of tracing: $(cat marks.err)"
	written=$((written - 1))
	# One line: the events in the file, those not written (with those
	# overwritten in the kernel buffer after the recorders stopped).
	[ "$(grep -cE "disk full|NOT WRITTEN|did not fit|LOST|refused" err)" -eq 1 ] || fail "more than one account: $(cat err)"
	held=$(sed -n "s/.*disk full: 'mnt-exact\/e.dat' holds \([0-9]*\) events, .*/\1/p" err)
	notw=$(sed -n 's/.* \([0-9]*\) more were not written.*/\1/p' err)
	[ -n "$notw" ] && [ -n "$held" ] || fail "no counts in: $(cat err)"
	lost=$(sed -n 's/.*(\([0-9]*\) of them lost in the kernel buffers).*/\1/p' err)
	kept=$(marks_in mnt-exact/e.dat | wc -l)
	[ "$(marks_in mnt-exact/e.dat | tail -n 1)" = "$kept" ] || fail "the kept marks are not 1..$kept"
	echo "# $written marks written: $kept in the file, $notw not written (${lost:-0} of them lost in the kernel buffers)" >&3
	[ "$held" -eq "$kept" ] || fail "record says the file holds $held, it holds $kept"
	[ $((kept + notw)) -eq "$written" ] ||
		fail "$kept in the file + $notw not written != $written written: $(cat err)"
	# The file says so too: its statistics carry what the recorders
	# could not write (all but the part cut when the file was assembled).
	run "$KTRACE" report --stat -i mnt-exact/e.dat
	assert_output --partial "refused by the output"
	refute_output --partial "no events lost"
	# A bigger buffer would not have kept what the disk refused.
	if [ -z "$lost" ]; then
		run "$KTRACE" stat -i mnt-exact/e.dat
		assert_output --partial "refused by the output (a full disk)"
		refute_output --partial "rerun with -b"
	fi
	no_pieces mnt-exact
	nothing_enabled
}

@test "a full disk loses no event silently, in one line: marks in the file + not written = marks written, exactly" {
	full_disk_exact
}

@test "a full disk, v7 uncompressed and v6: marks in the file + not written = marks written, exactly" {
	full_disk_exact --compression none
	umount_tmpfs
	rm -f marks.err err
	full_disk_exact --file-version 6
}

# ---- the traced command ----

@test "a command that fails: every mark recorded, its status passed on" {
	bg_ktrace record -q -o c.dat -e ftrace:print -- \
		sh -c '"$0" 5000 /sys/kernel/tracing/instances/ktrace-$PPID/trace_marker; exit 9' \
		"$KT_FLT_BIN/marks"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 9 ] || fail "status $st"
	[ "$(marks_in c.dat | wc -l)" -eq 5000 ] || fail "$(marks_in c.dat | wc -l) marks"
	[ "$(marks_in c.dat | tail -n 1)" -eq 5000 ]
}

@test "a command that kills itself: every mark recorded, status 128+9" {
	bg_ktrace record -q -o k.dat -e ftrace:print -- \
		sh -c '"$0" 5000 /sys/kernel/tracing/instances/ktrace-$PPID/trace_marker; kill -KILL $$' \
		"$KT_FLT_BIN/marks"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 137 ] || fail "status $st"
	[ "$(marks_in k.dat | wc -l)" -eq 5000 ] || fail "$(marks_in k.dat | wc -l) marks"
}

@test "a command killed from outside: every mark recorded, status 128+15" {
	mkfifo ready
	bg_ktrace record -q -o o.dat -e ftrace:print -- \
		sh -c '"$0" 3000 /sys/kernel/tracing/instances/ktrace-$PPID/trace_marker; echo $$ >ready; exec sleep 60' \
		"$KT_FLT_BIN/marks"
	read -r cmdpid <ready
	kill -TERM "$cmdpid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ] || fail "status $st"
	[ "$(marks_in o.dat | wc -l)" -eq 3000 ] || fail "$(marks_in o.dat | wc -l) marks"
}

@test "a command that execs 200 children: every child's marks recorded" {
	bg_ktrace record -q -o m.dat -e ftrace:print -- sh -c '
		m=/sys/kernel/tracing/instances/ktrace-$PPID/trace_marker
		i=0
		while [ $i -lt 200 ]; do
			i=$((i + 1))
			"$0" 25 "$m" "c$i" &
		done
		wait
		exit 3' "$KT_FLT_BIN/marks"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 3 ] || fail "status $st"
	n=$(trace-cmd report -i m.dat 2>/dev/null | grep -cE 'tracing_mark_write: c[0-9]+ [0-9]+$')
	[ "$n" -eq 5000 ] || fail "$n marks of 5000"
	for c in 1 100 200; do
		[ "$(marks_in m.dat "c$c" | paste -sd' ')" = "$(seq 25 | paste -sd' ')" ] ||
			fail "child $c's marks: $(marks_in m.dat "c$c" | paste -sd' ')"
	done
}
