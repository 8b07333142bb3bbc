#!/bin/sh
# The VM tests, run inside the guest by /init (busybox sh).  Every result
# is one console line "KT: ok NAME" or "KT: not ok NAME", diagnostics
# "KT: # ...", and "KT: end" when all ran; tests/vm/run.sh turns them
# into TAP.  Each test must be able to fail: it compares counts from
# real records with counts known from the workload or from ftrace.
D=/sys/kernel/debug/ktrace
S=/sys/kernel/debug/ktrace_sample
T=/sys/kernel/tracing
# Possible CPUs, not online ones: the module has a trace file for each,
# and run.sh boots with one that is not online (tests/vm/guest-reliab.sh).
NCPU=$(($(cut -d- -f2 /sys/devices/system/cpu/possible) + 1))
GETPPID_NR=110		# x86_64

# t NAME CMD...: run one test, report it with its output on failure.
t() {
	name=$1
	shift
	if "$@" >/tmp/out 2>&1; then
		echo "KT: ok $name"
	else
		echo "KT: not ok $name"
		sed 's/^/KT: # /' /tmp/out | head -40
	fi
}

# val KEY FILE: the value after "KEY " in a ktvm read output.
val() {
	sed -n "s/^$1 //p" "$2" | head -n1
}

# expect WHAT GOT WANT: compare and say so.
expect() {
	if [ "$2" = "$3" ]; then
		return 0
	fi
	echo "$1: got '$2', want '$3'"
	return 1
}

fail() {
	echo "$*"
	return 1
}

test_load() {
	insmod /ktrace.ko || return 1
	for f in state dropped enabled info overflow reset buffer_size_kb \
		header_page header_event version events stats/cpu0; do
		[ -e "$D/$f" ] || fail "missing $D/$f" || return 1
	done
	i=0
	while [ $i -lt "$NCPU" ]; do
		[ -e "$D/trace$i" ] || fail "missing trace$i" || return 1
		[ -e "$D/stats/cpu$i" ] || fail "missing stats/cpu$i" || return 1
		i=$((i + 1))
	done
	[ ! -e "$D/trace$NCPU" ] || fail "trace$NCPU beyond $NCPU cpus" || return 1
	[ ! -e "$D/overrun" ] || fail "overrun file in a drop-mode channel" || return 1
	expect "state" "$(cat $D/state)" stopped &&
	expect "enabled" "$(cat $D/enabled)" 0 &&
	expect "version" "$(cat $D/version)" 1 &&
	expect "mode of state" "$(stat -c %a $D/state)" 600 &&
	expect "mode of trace0" "$(stat -c %a $D/trace0)" 400 &&
	expect "mode of events/sched_schedule/format" \
		"$(stat -c %a $D/events/sched_schedule/format)" 400 &&
	expect "mode of events/sched_schedule/enable" \
		"$(stat -c %a $D/events/sched_schedule/enable)" 600
}

test_formats() {
	/ktvm formats $D/events || return 1
	for e in sched_schedule syscall_entry syscall_exit; do
		[ -e "$D/events/$e/format" ] || fail "no event $e" || return 1
	done
	# Our ids come from ftrace's allocator: no ftrace event has them.
	for e in $D/events/*/format; do
		id=$(sed -n 's/^ID: //p' "$e")
		if grep -qx "$id" $T/events/*/*/id; then
			fail "id $id of $e collides with an ftrace event"
			return 1
		fi
	done
}

# events_off: select nothing, switch the engine off, empty the buffer.
events_off() {
	echo stop >$D/state
	echo 0 >$D/enabled
	for e in $D/events/*/enable; do
		echo 0 >"$e"
	done
	echo 1 >$D/reset
}

test_state() {
	echo start >$D/state || return 1
	expect "after start" "$(cat $D/state)" running || return 1
	echo stop >$D/state || return 1
	expect "after stop" "$(cat $D/state)" stopped
}

# matched MATCH: the count ktvm read printed for -m MATCH in /tmp/r.
matched() {
	grep -F "match $1 " /tmp/r | awk '{print $NF}'
}

test_getppid() {
	events_off
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/events/syscall_exit/enable
	echo 1 >$D/enabled
	echo start >$D/state
	/ktvm getppid 1000 >/tmp/pid
	echo stop >$D/state
	echo 0 >$D/enabled
	pid=$(cat /tmp/pid)
	me="common_pid=$pid,nr=$GETPPID_NR"
	/ktvm read -f $D/events -m "syscall_entry:$me" -m "syscall_exit:$me" \
		-m "syscall_exit:$me,ret=$$" $D >/tmp/r || return 1
	cat /tmp/r
	expect bad "$(val bad /tmp/r)" 0 &&
	expect dropped "$(cat $D/dropped)" 0 &&
	expect "getppid entries of $pid" "$(matched "syscall_entry:$me")" 1000 &&
	expect "getppid exits of $pid" "$(matched "syscall_exit:$me")" 1000 &&
	expect "exits returning our pid $$" "$(matched "syscall_exit:$me,ret=$$")" 1000
}

# Both recorders see the same switches of the sleeper only if neither is
# stopped while one of them is still inside its last switch.  A reaped
# task has not necessarily switched out for good: wait4 returns at
# exit_notify(), before do_task_dead(); and the tracepoint calls ftrace's
# probe before ours, so one switch could land in ftrace's buffer, then
# both be stopped, then our probe find the channel stopped (seen once in
# "make check": ftrace 402, ktrace.ko 401).  So the window ends only
# once ftrace's trace_pipe has given the final switch (state X or Z) and
# another task has run on that CPU, which ends that __schedule() and
# with it every probe of its tracepoint.
test_sched_vs_ftrace() {
	events_off
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$D/events/sched_schedule/enable
	echo 1 >$D/enabled
	echo start >$D/state
	echo 1 >$T/tracing_on
	rm -f /tmp/ft /tmp/cpu
	/ktvm sleeper 200 >/tmp/pid
	pid=$(cat /tmp/pid)
	# Everything ftrace holds up to the sleeper's final switch, whose
	# CPU goes to /tmp/cpu.
	timeout 60 awk -v p="$pid" '{ print > "/tmp/ft" }
		$0 ~ ("prev_pid=" p " prev_prio=[0-9]+ prev_state=[XZ] ") {
			match($0, /\[[0-9]+\]/)
			print substr($0, RSTART + 1, RLENGTH - 2) + 0 > "/tmp/cpu"
			exit
		}' $T/trace_pipe
	cpu=$(cat /tmp/cpu 2>/dev/null)
	[ -n "$cpu" ] || fail "ftrace gave no final switch of $pid" || return 1
	/ktvm oncpu "$cpu" || return 1
	echo 0 >$T/tracing_on
	echo stop >$D/state
	echo 0 >$D/enabled
	echo 0 >$T/events/sched/sched_switch/enable
	want=$(grep -cE "(prev|next)_pid=$pid " /tmp/ft)
	# prev_state as ftrace prints it: S is 1 (TASK_INTERRUPTIBLE).
	sleeps=$(grep -c "prev_pid=$pid prev_prio=[0-9]* prev_state=S " /tmp/ft)
	/ktvm read -f $D/events -m "sched_schedule:prev_pid|next_pid=$pid" \
		-m "sched_schedule:prev_pid=$pid,prev_state=1" $D >/tmp/r || return 1
	cat /tmp/r
	echo "ftrace lost: $(grep -c LOST /tmp/ft)"
	[ "$want" -ge 200 ] || fail "ftrace saw only $want switches of $pid" || return 1
	[ "$sleeps" -ge 100 ] || fail "ftrace saw only $sleeps sleeps of $pid" || return 1
	expect "ftrace lost" "$(grep -c LOST /tmp/ft)" 0 &&
	expect dropped "$(cat $D/dropped)" 0 &&
	expect "sched_schedule records of pid $pid (ftrace's count)" \
		"$(matched "sched_schedule:prev_pid|next_pid=$pid")" "$want" &&
	expect "switches out of $pid asleep (ftrace's count)" \
		"$(matched "sched_schedule:prev_pid=$pid,prev_state=1")" "$sleeps"
}

workload() {
	# The clock's interrupt handler gives irq_entry/irq_exit.
	/ktvm rtc
	ip link set lo up
	ping -c 3 -i 0.2 127.0.0.1 >/dev/null
	/ktvm sleeper 20 >/dev/null
	/ktvm getppid 10 >/dev/null
	/bin/true
	/ktvm sigchild 2>/dev/null
	dd if=/dev/zero of=/tmp/zero bs=64k count=64 2>/dev/null
	rm -f /tmp/zero
}

test_all_events() {
	events_off
	for e in $D/events/*/enable; do
		echo 1 >"$e"
	done
	echo 1 >$D/process_trace_syscalls
	echo 1 >$D/process_trace_signals
	echo 1 >$D/enabled
	echo start >$D/state
	workload
	echo stop >$D/state
	echo 0 >$D/enabled
	/ktvm read -f $D/events -o /tmp/all.cpu $D >/tmp/r || return 1
	cat /tmp/r
	cp /tmp/r /tmp/all.counts
	expect dropped "$(cat $D/dropped)" 0 &&
	expect bad "$(val bad /tmp/r)" 0 &&
	expect "unknown ids" "$(val unknown /tmp/r)" 0 &&
	expect "timestamps going back" "$(val ts_back /tmp/r)" 0 &&
	expect "bad formats" "$(val bad_formats /tmp/r)" 0 || return 1
	missing=$(sed -n 's/^event \(.*\) 0$/\1/p' /tmp/r)
	[ -z "$missing" ] || fail "no records for: $missing" || return 1
	total=$(sed -n 's/^event [^ ]* //p' /tmp/r | awk '{s += $1} END {print s}')
	expect "sum of event counts" "$total" "$(val records /tmp/r)"
}

# garbage FILE VALUE...: each write must fail and leave FILE as it was.
garbage() {
	f=$1
	shift
	before=$(cat $D/$f 2>/dev/null)
	for g in garbage -1 "start stop" 99999999999999999999999 1x \
		"$(printf 'x%.0s' $(seq 100))" "$@"; do
		if /ktvm write $D/$f "$g" >/tmp/err; then
			echo "$f accepted '$g'"
			rc=1
		elif ! grep -q 'Invalid argument' /tmp/err; then
			echo "$f refused '$g' without EINVAL: $(cat /tmp/err)"
			rc=1
		fi
	done
	after=$(cat $D/$f 2>/dev/null)
	expect "$f after garbage" "$after" "$before" || rc=1
}

# Send the pages and formats of test_all_events to the host on the
# second serial port, where run.sh has trace-cmd report decode them.
test_export() {
	x=/tmp/export
	mkdir -p $x/events
	cat $D/header_page >$x/header_page
	cat $D/header_event >$x/header_event
	for e in $D/events/*; do
		mkdir $x/events/${e##*/}
		cat $e/format >$x/events/${e##*/}/format
	done
	i=0
	while [ $i -lt "$NCPU" ]; do
		cp /tmp/all.cpu$i $x/cpu$i 2>/dev/null || : >$x/cpu$i
		i=$((i + 1))
	done
	cp /tmp/all.counts $x/counts || return 1
	[ -c /dev/ttyS1 ] || fail "no /dev/ttyS1" || return 1
	stty -F /dev/ttyS1 raw -echo
	(cd $x && tar c . | base64) >/dev/ttyS1
}

test_garbage() {
	rc=0
	echo 1 >$D/events/sched_schedule/enable
	garbage state 1 running stopped
	garbage enabled 2 on
	garbage reset 0 2
	garbage buffer_size_kb 0 1k 4194304
	garbage events/sched_schedule/enable 2 on
	echo 0 >$D/events/sched_schedule/enable
	return $rc
}

# Every event has one info line: name, format string, id (its format
# file's), enabled/disabled (its enable file), then key-value columns.
test_info_lines() {
	grep '^event ' $D/info >/tmp/info
	expect "info's event lines" "$(wc -l </tmp/info)" "$(ls $D/events | wc -l)" ||
		return 1
	grep -q '^event sched_schedule "prev_pid=%d next_pid=%d [^"]*" [0-9]* enabled tracepoint sched_switch size [0-9]* probe attached$' /tmp/info ||
		fail "info's sched_schedule line: $(grep sched_schedule /tmp/info)" ||
		return 1
	for e in $(ls $D/events); do
		id=$(sed -n 's/^ID: //p' $D/events/$e/format)
		fmt=$(sed -n 's/^print fmt: \("[^"]*"\).*/\1/p' $D/events/$e/format)
		on=disabled
		[ "$(cat $D/events/$e/enable)" = 1 ] && on=enabled
		grep -qF "event $e $fmt $id $on" /tmp/info ||
			fail "info's $e line: $(grep "^event $e " /tmp/info), want '$e $fmt $id $on'" ||
			return 1
	done
}

test_files() {
	events_off
	echo 1 >$D/events/sched_schedule/enable
	echo 1 >$D/enabled
	echo start >$D/state
	/ktvm sleeper 10 >/dev/null
	if echo 512 >$D/buffer_size_kb 2>/dev/null; then
		fail "buffer_size_kb changed while running"
		return 1
	fi
	echo stop >$D/state
	grep -q '^entries: [1-9]' $D/stats/cpu0 $D/stats/cpu1 ||
		fail "stats show no entries" || return 1
	for k in entries overrun "commit overrun" bytes "oldest event ts" \
		"now ts" "dropped events" "read events"; do
		grep -q "^$k: " $D/stats/cpu0 || fail "stats lacks '$k'" || return 1
	done
	test_info_lines || return 1
	expect overflow "$(cat $D/overflow)" "$(cat $D/dropped)" || return 1
	grep -q 'field: u64 timestamp' $D/header_page || return 1
	grep -q 'type_len    :    5 bits' $D/header_event || return 1
	echo 1 >$D/reset
	/ktvm read $D >/tmp/r
	expect "records after reset" "$(val records /tmp/r)" 0 || return 1
	echo 512 >$D/buffer_size_kb || return 1
	expect buffer_size_kb "$(cat $D/buffer_size_kb)" 512
}

# sample NAME FLAGS SIZE NR: load the sample module with its channel.
sample() {
	insmod /ktrace_sample.ko name="$1" flags="$2" buf_size="$3" buf_nr="$4"
}

unsample() {
	rmmod ktrace_sample
}

# emit_on CPU N: write N sample events from CPU.
emit_on() {
	taskset -c "$1" sh -c "echo $2 >$C/emit"
}

# fill NAME FLAGS NR CPU:N...: a sample channel of NR pages, started,
# given N events from each CPU at once, stopped and drained into /tmp/r;
# sets got, dropped, overrun and unloads the sample.
fill() {
	sample "$1" "$2" 4096 "$3" || return 1
	C=$S/$1
	shift 3
	echo start >$C/state
	for w in "$@"; do
		emit_on "${w%:*}" "${w#*:}" &
	done
	wait
	echo stop >$C/state
	/ktvm read -s $C >/tmp/r
	got=$(val records /tmp/r)
	dropped=$(cat $C/dropped)
	overrun=$(cat $C/overrun 2>/dev/null || echo none)
	cat /tmp/r
	echo "dropped $dropped overrun $overrun"
	unsample
}

# Whatever the channel, records are intact and in time order.
intact() {
	expect "bad pages" "$(val bad /tmp/r)" 0 &&
	expect "bad records" "$(val bad_magic /tmp/r)" 0 &&
	expect "timestamps going back" "$(val ts_back /tmp/r)" 0
}

test_drop() {
	fill drop 0 4 0:100000 || return 1
	intact &&
	expect "overrun file" "$overrun" none || return 1
	[ "$got" -gt 0 ] && [ "$got" -lt 100000 ] || fail "kept $got of 100000" || return 1
	expect "records + dropped" "$((got + dropped))" 100000 &&
	expect "first seq (oldest kept)" "$(val first_seq /tmp/r)" 0 &&
	expect "seq gaps" "$(val seq_gaps /tmp/r)" 0 &&
	expect "missed pages" "$(val missed_pages /tmp/r)" 0
}

test_flight() {
	fill flight 2 4 0:100000 || return 1
	intact || return 1
	[ "$got" -gt 0 ] && [ "$got" -lt 100000 ] || fail "kept $got of 100000" || return 1
	expect "records + overrun" "$((got + overrun))" 100000 &&
	expect "last seq (newest kept)" "$(val last_seq /tmp/r)" 99999 &&
	expect "first seq" "$(val first_seq /tmp/r)" "$overrun" &&
	expect "seq gaps" "$(val seq_gaps /tmp/r)" 0 &&
	expect dropped "$dropped" 0
}

test_global() {
	sample global 1 4096 4 || return 1
	[ -e $S/global/trace0 ] && [ ! -e $S/global/trace1 ] ||
		fail "a global channel has trace0 only" || return 1
	unsample
	fill global 1 64 0:4000 1:4000 || return 1
	intact &&
	expect records "$got" 8000 &&
	expect dropped "$dropped" 0
}

test_global_flight() {
	fill gflight 3 4 0:50000 || return 1
	intact &&
	expect "records + overrun" "$((got + overrun))" 50000 &&
	expect "last seq" "$(val last_seq /tmp/r)" 49999 &&
	expect "seq gaps" "$(val seq_gaps /tmp/r)" 0 &&
	expect "missed pages" "$(val missed_pages /tmp/r)" 1
}

test_global_drop() {
	fill gdrop 1 4 1:50000 || return 1
	intact &&
	expect "records + dropped" "$((got + dropped))" 50000 &&
	expect "first seq" "$(val first_seq /tmp/r)" 0 &&
	expect "seq gaps" "$(val seq_gaps /tmp/r)" 0
}

test_nostate() {
	sample nostate 4 4096 4 || return 1
	C=$S/nostate
	[ ! -e $C/state ] || fail "state file despite KTRACE_DISABLE_STATE" || return 1
	emit_on 0 100
	/ktvm read -s $C >/tmp/r
	unsample
	[ ! -e $C ] || fail "$C left behind" || return 1
	expect records "$(val records /tmp/r)" 100
}

test_poll() {
	sample poll 0 4096 4 || return 1
	C=$S/poll
	echo start >$C/state
	taskset -c 0 /ktvm pollwake $C/trace0 $C/emit
	rc=$?
	taskset -c 0 /ktvm stopwake $C/trace0 $C/state || rc=1
	unsample
	return $rc
}

# A reader asleep in read() is woken when a CPU has written a tenth of
# its buffer, not only by the 50 ms timer: a flood of 100000 records into
# 64 KiB reaches it whole (ktvm keepup: the writer runs only while the
# reader sleeps, so the outcome does not depend on the machine's speed).
test_keepup() {
	# 16 pages a CPU; on PREEMPT_RT 64: there the wake-up's irq_work
	# runs in a thread, a scheduling delay after the tenth is written,
	# and the module's own writer fills 16 pages faster than that
	# (2 in 18 first runs after boot dropped records, counted).
	kp=16
	case $(uname -r) in *-rt-*) kp=64 ;; esac
	sample keepup 0 4096 $kp || return 1
	C=$S/keepup
	echo start >$C/state
	/ktvm keepup $C 100000 >/tmp/r
	rc=$?
	dropped=$(cat $C/dropped)
	cat /tmp/r
	echo "dropped $dropped"
	unsample
	[ $rc = 0 ] || return 1
	expect dropped "$dropped" 0 &&
	expect records "$(val records /tmp/r)" 100000 &&
	expect "seq gaps" "$(val seq_gaps /tmp/r)" 0 &&
	expect "bad pages" "$(val bad /tmp/r)" 0 &&
	expect "bad records" "$(val bad_magic /tmp/r)" 0
}

test_busy() {
	exec 3<$D/trace0
	if rmmod ktrace 2>/tmp/err; then
		fail "rmmod succeeded with trace0 open"
		return 1
	fi
	cat /tmp/err
	# The kernel refuses a module in use with EAGAIN (EWOULDBLOCK).
	grep -q 'Resource temporarily unavailable' /tmp/err || return 1
	grep -q '^ktrace ' /proc/modules || fail "module gone" || return 1
	exec 3<&-
	rmmod ktrace || return 1
	! grep -q '^ktrace ' /proc/modules || fail "still loaded"
}

test_unload_busy() {
	insmod /ktrace.ko || return 1
	for e in $D/events/*/enable; do
		echo 1 >"$e"
	done
	echo 1 >$D/enabled
	echo start >$D/state
	(workload; workload) &
	wl=$!
	/ktvm getppid 200000 >/dev/null &
	gp=$!
	sleep 0.3
	rmmod ktrace || return 1
	wait $wl $gp
	[ ! -e $D ] || fail "$D left behind" || return 1
	insmod /ktrace.ko || return 1
	rmmod ktrace
}

# A channel whose module goes while a reader holds its trace0: reads
# fail, the close frees the buffer, nothing breaks.
test_sample_gone() {
	insmod /ktrace.ko || return 1
	sample gone 0 4096 4 || return 1
	C=$S/gone
	echo start >$C/state
	emit_on 0 10
	exec 4<$C/trace0
	unsample || return 1
	[ ! -e $C ] || fail "$C left behind" || return 1
	if dd bs=4096 count=1 <&4 >/dev/null 2>/tmp/err; then
		fail "read from a removed channel worked"
		return 1
	fi
	exec 4<&-
	# ktrace.ko still works and can go.
	sample again 0 4096 4 && unsample && rmmod ktrace
}

# The engine in flight mode: overwrites, counts it, overflow adds up.
test_engine_flight() {
	insmod /ktrace.ko flight=1 buf_kb=16 || return 1
	[ -e $D/overrun ] || fail "no overrun file in flight mode" || return 1
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/enabled
	echo start >$D/state
	taskset -c 0 /ktvm getppid 20000 >/tmp/pid
	echo stop >$D/state
	echo 0 >$D/enabled
	pid=$(cat /tmp/pid)
	/ktvm read -f $D/events -m "syscall_entry:common_pid=$pid,nr=$GETPPID_NR" \
		$D >/tmp/r
	cat /tmp/r
	overrun=$(cat $D/overrun)
	dropped=$(cat $D/dropped)
	kept=$(matched "syscall_entry:common_pid=$pid,nr=$GETPPID_NR")
	stats=$(cat $D/stats/cpu* | sed -n 's/^overrun: //p' |
		awk '{s += $1} END {print s}')
	echo "overrun $overrun dropped $dropped overflow $(cat $D/overflow) stats $stats"
	grep -q '^mode flight' $D/info || fail "info does not say flight" || return 1
	[ "$overrun" -gt 0 ] && [ "$kept" -gt 0 ] && [ "$kept" -lt 20000 ] ||
		fail "kept $kept, overrun $overrun" || return 1
	expect overflow "$(cat $D/overflow)" "$((dropped + overrun))" &&
	expect "overrun in stats/cpu*" "$stats" "$overrun" &&
	expect dropped "$dropped" 0 &&
	expect bad "$(val bad /tmp/r)" 0 &&
	rmmod ktrace
}

test_dmesg() {
	if dmesg | grep -E 'BUG:|Oops|WARNING:|Call Trace|general protection'; then
		return 1
	fi
	true
}

echo "KT: kernel $(uname -r) cpus $NCPU"
# While working on it: KT_VM_APPEND=kt_only=reliab boots (a kernel
# parameter the kernel does not know reaches /init's environment) run
# tests/vm/guest-reliab.sh alone.
if [ "${kt_only:-}" = reliab ]; then
	. /guest-reliab.sh
	t "no kernel warnings" test_dmesg
	echo "KT: end"
	exit 0
fi
# kt_only=mmap: tests/vm/guest-mmap.sh, then guest-cli.sh (and
# guest-agent.sh, which runs only in the boot run.sh gives kt_agent).
if [ "${kt_only:-}" = mmap ]; then
	. /guest-mmap.sh
	. /guest-cli.sh
	. /guest-agent.sh
	t "no kernel warnings" test_dmesg
	echo "KT: end"
	exit 0
fi
# kt_only=cli: tests/vm/guest-cli.sh alone (host-proccli's checks fail),
# and guest-agent.sh.
if [ "${kt_only:-}" = cli ]; then
	. /guest-cli.sh
	. /guest-agent.sh
	t "no kernel warnings" test_dmesg
	echo "KT: end"
	exit 0
fi
# kt_only=agent: tests/vm/guest-agent.sh alone (the host's checks of
# the other parts fail).
if [ "${kt_only:-}" = agent ]; then
	. /guest-agent.sh
	t "no kernel warnings" test_dmesg
	echo "KT: end"
	exit 0
fi
# kt_only=process: the process tracer and record --process alone
# (tests/vm/guest-process.sh, guest-proccli.sh; the export and cli
# checks on the host fail).
if [ "${kt_only:-}" = process ]; then
	. /guest-process.sh
	. /guest-proccli.sh
	t "no kernel warnings" test_dmesg
	echo "KT: end"
	exit 0
fi
t "load ktrace.ko, files and modes" test_load
t "format files parse, ids unique and not ftrace's" test_formats
t "state start/stop" test_state
t "1000 getppid calls give 1000 syscall_entry and syscall_exit records of the pid" test_getppid
t "sched_schedule count equals ftrace sched_switch count" test_sched_vs_ftrace
t "every event gives decodable records under a workload" test_all_events
t "pages and formats sent to the host" test_export
t "garbage to control files is refused and changes nothing" test_garbage
t "stats, info, overflow, reset, buffer_size_kb" test_files
t "sample module: drop channel keeps oldest, counts dropped exactly" test_drop
t "sample module: flight channel keeps newest, counts overrun exactly" test_flight
t "sample module: global channel from two CPUs" test_global
t "sample module: global flight channel" test_global_flight
t "sample module: global drop channel" test_global_drop
t "sample module: KTRACE_DISABLE_STATE" test_nostate
t "poll wakes on data, stop ends a blocked read" test_poll
t "a blocked reader is woken at a tenth of the buffer and keeps up with a flood" test_keepup
t "rmmod fails while trace0 is open, works after close" test_busy
t "unload while events are enabled and firing" test_unload_busy
t "sample module unloads under an open reader" test_sample_gone
# Reading by mmap (tests/vm/guest-mmap.sh).
. /guest-mmap.sh
. /guest-cli.sh
# ktrace agent on the network, for the host (tests/vm/guest-agent.sh).
. /guest-agent.sh
t "engine in flight mode counts overrun, overflow = dropped + overrun" test_engine_flight
# The process tracer, pid set and exports (tests/vm/guest-process.sh).
. /guest-process.sh
# record --process on the process tracer (tests/vm/guest-proccli.sh).
. /guest-proccli.sh
# Load/unload cycles and CPU hotplug (tests/vm/guest-reliab.sh).
. /guest-reliab.sh
t "no kernel warnings" test_dmesg
echo "KT: end"
