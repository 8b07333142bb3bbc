#!/bin/sh
# Reliability tests of ktrace.ko, sourced by guest.sh (busybox sh; t,
# expect, fail, val, matched, sample, unsample, emit_on and intact come
# from there):
#
# - 100 load/unload cycles (fewer in later boots, see run.sh's
#   KT_VM_CYCLES) under load: a nice 19 fork/exec/getppid loop and busy
#   loop on every online CPU while ktrace.ko is loaded, given 7 events
#   (syscalls, the scheduler, the process tracer with its syscall
#   group), started, and removed while its probes fire.  Every cycle
#   must leave no module, no directory and a zero module refcount
#   behind; dmesg must stay clean; and the load after the last cycle
#   (event ids taken from ftrace 23 per load) must have formats
#   that parse with unique ids, count its readers in its refcount and
#   record an exact workload exactly.  The tracepoints stay held by
#   ftrace during all these tests (see keys_on).
# - CPU hotplug while recording: cpu1 goes offline and comes back while
#   the engine, a sample drop channel and a sample flight channel run,
#   and while `ktrace record` records the engine and ftrace.  What cpu1
#   wrote before it went away is still read (drained from its trace1
#   while it is offline), recording goes on once it is back, and every
#   count is exact: the workloads count themselves (getppid calls of a
#   pinned pid, numbered sample events), records + dropped or overrun
#   must add up to them.  run.sh boots with one CPU more than it brings
#   up (qemu -smp 3, kernel maxcpus=2), so cpu2 is possible but has never
#   been online when ktrace.ko is loaded: it has no buffer yet.  Its
#   trace2 must open anyway, and a reader that opened it before the
#   CPU's first start must get what it records after.
# - Writers in every context (the stress module, tests/vm/stress):
#   hard and soft interrupts and NMIs writing while tasks flood, the
#   engine and channels of both modes; every count exact.
HP=/sys/devices/system/cpu
K=${K:-/ktrace}
# run.sh passes KT_VM_CYCLES as the kernel parameter kt_cycles.
CYCLES=${kt_cycles:-100}

# ---- load/unload cycles ----

# load_start: on every online CPU a loop of fork, exec and 200 getppid
# calls, and a busy loop; their shells' pids in LOAD.  At nice 19 they
# take every cycle the test leaves, and the test's own steps (probe
# registration, RCU grace periods on rmmod) are not slowed threefold.
load_start() {
	LOAD=
	for c in $(seq 0 $((NCPU - 1))); do
		[ "$(cat $HP/cpu$c/online 2>/dev/null || echo 1)" = 1 ] || continue
		taskset -c "$c" sh -c 'renice -n 19 $$ >/dev/null
			while :; do /ktvm getppid 200 >/dev/null; done' &
		LOAD="$LOAD $!"
		taskset -c "$c" sh -c 'renice -n 19 $$ >/dev/null
			while :; do :; done' &
		LOAD="$LOAD $!"
	done
}

load_stop() {
	# shellcheck disable=SC2086
	kill $LOAD 2>/dev/null
	# shellcheck disable=SC2086
	wait $LOAD 2>/dev/null
	LOAD=
}

# The events each cycle turns on: syscalls, the scheduler, the process
# tracer with its syscall group.
CYCLE_EVENTS="syscall_entry syscall_exit sched_schedule process_fork
	process_exec process_exit process_syscall_entry"

# The tracepoints these tests use, each held by two probes of two ftrace
# instances (not recording) while they run.  Then a probe of ours, or of
# ktrace record's instance, that comes or goes only changes the
# tracepoint's list of functions: its static key stays on and its static
# call stays on the iterator, so the kernel patches none of its code.
# Without this every cycle flips keys and calls, and under qemu's TCG
# the guest crashed in the kernel's own text patching, in the cycles and
# once in test_hotplug_record: "Oops: int3" in syscall_trace_enter (6.12
# at a jump label, 6.1-rt at the static call), on an int3 the kernel had
# already replaced, right after the IPI that makes every CPU see the new
# code: a stale translated block of the emulator.  6.1 showed a soft
# lockup instead.
KEYS="$T/instances/ktrace-vm-keys0 $T/instances/ktrace-vm-keys1"
KEY_EVENTS="raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch
	task/task_newtask sched/sched_process_exec sched/sched_process_exit
	timer/timer_start irq/softirq_entry irq/softirq_exit
	irq/irq_handler_entry irq/irq_handler_exit"

keys_on() {
	for k in $KEYS; do
		mkdir "$k" && echo 0 >"$k/tracing_on" || return 1
		for e in $KEY_EVENTS; do
			echo 1 >"$k/events/$e/enable" || return 1
		done
	done
}

keys_off() {
	for k in $KEYS; do
		for e in $KEY_EVENTS; do
			echo 0 >"$k/events/$e/enable"
		done
		rmdir "$k"
	done
}

# cycle I: one load, start, events, removal while running.
cycle() {
	insmod /ktrace.ko buf_kb=128 flight=$(($1 % 2)) ||
		fail "cycle $1: insmod failed" || return 1
	expect "cycle $1: refcnt after insmod" "$(cat /sys/module/ktrace/refcnt)" 0 ||
		return 1
	for e in $CYCLE_EVENTS; do
		echo 1 >$D/events/$e/enable || fail "cycle $1: enable $e" || return 1
	done
	echo 1 >$D/process_trace_syscalls &&
	echo 1 >$D/enabled &&
	echo start >$D/state || fail "cycle $1: cannot start" || return 1
	/ktvm getppid 50 >/dev/null
	# Every tenth cycle: the records so far decode, then on again.
	if [ $(($1 % 10)) = 0 ]; then
		echo stop >$D/state
		/ktvm read -f $D/events $D >/tmp/r || fail "cycle $1: read" || return 1
		[ "$(val records /tmp/r)" -gt 0 ] || fail "cycle $1: no records" || return 1
		expect "cycle $1: bad pages" "$(val bad /tmp/r)" 0 &&
		expect "cycle $1: unknown ids" "$(val unknown /tmp/r)" 0 || return 1
		echo start >$D/state
		/ktvm getppid 50 >/dev/null
	fi
	expect "cycle $1: state before rmmod" "$(cat $D/state)" running || return 1
	rmmod ktrace || fail "cycle $1: rmmod failed" || return 1
	[ ! -e $D ] || fail "cycle $1: $D left behind" || return 1
	! grep -q '^ktrace ' /proc/modules || fail "cycle $1: still loaded"
}

test_cycles() {
	rmmod ktrace 2>/dev/null
	mark=$(dmesg | wc -l)
	load_start
	i=0
	rc=0
	t0=$(date +%s)
	while [ $i -lt "$CYCLES" ]; do
		cycle $i || { rc=1; break; }
		i=$((i + 1))
		# Progress on the console, in case a cycle hangs the boot.
		[ $((i % 20)) != 0 ] || echo "KT: # cycle $i at $(($(date +%s) - t0)) s" >/dev/console
	done
	load_stop
	echo "$i cycles in $(($(date +%s) - t0)) s"
	dmesg | tail -n +$((mark + 1)) >/tmp/dmesg-cycles
	if grep -E 'BUG:|Oops|WARNING:|Call Trace|general protection|refcount_t' \
		/tmp/dmesg-cycles; then
		rc=1
	fi
	[ $rc = 0 ] || return 1
	# The last load records an exact workload exactly (guest.sh's
	# test_getppid), with fresh ids, and counts its readers.
	insmod /ktrace.ko || return 1
	/ktvm formats $D/events >/tmp/f || fail "formats: $(cat /tmp/f)" || return 1
	test_getppid || return 1
	(exec 5<$D/trace0) || return 1
	exec 5<$D/trace0
	expect "refcnt with trace0 open" "$(cat /sys/module/ktrace/refcnt)" 1 || return 1
	exec 5<&-
	expect "refcnt after close" "$(cat /sys/module/ktrace/refcnt)" 0 &&
	rmmod ktrace
}

# ---- CPU hotplug ----

# The possible CPU that has never been online, if the boot left one.
NEWCPU=
for c in $(seq 0 $((NCPU - 1))); do
	[ "$(cat $HP/cpu$c/online 2>/dev/null)" = 0 ] && NEWCPU=$c
done

cpu_set() {
	echo "$2" >$HP/cpu$1/online || fail "cannot set cpu$1 online to $2" || return 1
	expect "cpu$1 online" "$(cat $HP/cpu$1/online)" "$2"
}

# with_cpus TEST: run TEST, then put the CPUs back as the boot had them.
with_cpus() {
	"$@"
	rc=$?
	echo 1 >$HP/cpu1/online 2>/dev/null
	[ -z "$NEWCPU" ] || echo 0 >$HP/cpu$NEWCPU/online 2>/dev/null
	return $rc
}

# only DIR CPU: /tmp/only/traceCPU, a link to DIR/traceCPU, so ktvm read
# drains that CPU's buffer alone.
only() {
	rm -rf /tmp/only
	mkdir /tmp/only
	ln -s "$1/trace$2" /tmp/only/trace$2
}

# getppid_on CPU FILE: 1000 getppid calls pinned to CPU; pid in FILE.
getppid_on() {
	taskset -c "$1" /ktvm getppid 1000 >"$2" || fail "cannot run on cpu$1"
}

# entries DIR FILE: getppid entries of the pid in FILE that ktvm read
# finds in DIR's trace files.
entries() {
	m="syscall_entry:common_pid=$(cat "$2"),nr=$GETPPID_NR"
	/ktvm read -f $D/events -m "$m" "$1" >/tmp/r || return 1
	expect "bad pages in $1" "$(val bad /tmp/r)" 0 || return 1
	matched "$m"
}

test_hotplug_engine() {
	rmmod ktrace 2>/dev/null
	insmod /ktrace.ko || return 1
	# (A failed redirection of exec would end the shell: try it first.)
	if [ -n "$NEWCPU" ]; then
		(exec 5<$D/trace$NEWCPU) ||
			fail "trace$NEWCPU of a CPU never online does not open" || return 1
		exec 5<$D/trace$NEWCPU
	fi
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/enabled
	echo start >$D/state
	getppid_on 1 /tmp/hp1 || return 1
	cpu_set 1 0 || return 1
	getppid_on 0 /tmp/hp2 || return 1
	# What cpu1 wrote is read while it is offline.
	only $D 1
	expect "entries of cpu1's pid in trace1, cpu1 offline" \
		"$(entries /tmp/only /tmp/hp1)" 1000 || return 1
	cpu_set 1 1 || return 1
	getppid_on 1 /tmp/hp3 || return 1
	if [ -n "$NEWCPU" ]; then
		cpu_set "$NEWCPU" 1 || return 1
		getppid_on "$NEWCPU" /tmp/hp4 || return 1
		cpu_set "$NEWCPU" 0 || return 1
	fi
	echo stop >$D/state
	echo 0 >$D/enabled
	only $D 1
	expect "entries of the pid on cpu1 after it came back, in trace1" \
		"$(entries /tmp/only /tmp/hp3)" 1000 || return 1
	only $D 0
	expect "entries of the pid on cpu0, in trace0" \
		"$(entries /tmp/only /tmp/hp2)" 1000 || return 1
	if [ -n "$NEWCPU" ]; then
		# The reader opened before the CPU ever ran gets its records.
		rm -rf /tmp/new
		mkdir /tmp/new
		dd bs=4096 <&5 of=/tmp/new/trace$NEWCPU 2>/dev/null ||
			fail "trace$NEWCPU: read failed" || return 1
		exec 5<&-
		expect "entries of the pid on cpu$NEWCPU (first online while tracing)" \
			"$(entries /tmp/new /tmp/hp4)" 1000 || return 1
	fi
	expect dropped "$(cat $D/dropped)" 0 &&
	expect overflow "$(cat $D/overflow)" 0 &&
	rmmod ktrace
}

# hp_fill NAME FLAGS: a sample channel of 4 pages per CPU gets 5000
# events on cpu1, cpu1 goes offline and is drained, 5000 on cpu0, cpu1
# comes back, 5000 more on it.  Sets got (records read in all),
# got_back (cpu1's after it came back), dropped, overrun.
hp_fill() {
	grep -q '^ktrace ' /proc/modules || insmod /ktrace.ko || return 1
	sample "$1" "$2" 4096 4 || return 1
	C=$S/$1
	echo start >$C/state
	emit_on 1 5000
	cpu_set 1 0 || return 1
	only $C 1
	/ktvm read -s /tmp/only >/tmp/r1 || return 1
	emit_on 0 5000
	cpu_set 1 1 || return 1
	emit_on 1 5000
	echo stop >$C/state
	only $C 1
	/ktvm read -s /tmp/only >/tmp/r2 || return 1
	only $C 0
	/ktvm read -s /tmp/only >/tmp/r3 || return 1
	cat /tmp/r1 /tmp/r2 /tmp/r3
	for r in /tmp/r1 /tmp/r2 /tmp/r3; do
		cp $r /tmp/r
		intact || return 1
	done
	got=$(($(val records /tmp/r1) + $(val records /tmp/r2) + $(val records /tmp/r3)))
	got_off=$(val records /tmp/r1)
	got_back=$(val records /tmp/r2)
	dropped=$(cat $C/dropped)
	overrun=$(cat $C/overrun 2>/dev/null || echo 0)
	echo "got $got (cpu1 offline $got_off, back $got_back) dropped $dropped overrun $overrun"
	unsample
}

test_hotplug_sample_drop() {
	hp_fill hpdrop 0 || return 1
	[ "$got_off" -gt 0 ] || fail "nothing read from cpu1 while offline" || return 1
	[ "$got_back" -gt 0 ] || fail "nothing recorded on cpu1 once back" || return 1
	[ "$dropped" -gt 0 ] || fail "4 pages took 5000 events without a drop" || return 1
	expect "records + dropped" "$((got + dropped))" 15000
}

test_hotplug_sample_flight() {
	hp_fill hpflight 2 || return 1
	[ "$got_back" -gt 0 ] || fail "nothing recorded on cpu1 once back" || return 1
	[ "$overrun" -gt 0 ] || fail "4 pages took 5000 events without an overrun" || return 1
	expect "records + overrun" "$((got + overrun))" 15000 &&
	expect "newest seq, on cpu1 once back" "$(val last_seq /tmp/r2)" 14999 &&
	expect dropped "$dropped" 0
}

# ktrace record of the engine and of ftrace, with its reader threads
# blocked in every CPU's buffer while the CPUs come and go.
test_hotplug_record() {
	rmmod ktrace 2>/dev/null
	insmod /ktrace.ko || return 1
	{
		echo "taskset -c 1 /ktvm getppid 1000 >/tmp/hp1"
		echo "echo 0 >$HP/cpu1/online"
		echo "taskset -c 0 /ktvm getppid 1000 >/tmp/hp2"
		echo "echo 1 >$HP/cpu1/online"
		echo "taskset -c 1 /ktvm getppid 1000 >/tmp/hp3"
		if [ -n "$NEWCPU" ]; then
			echo "echo 1 >$HP/cpu$NEWCPU/online"
			echo "taskset -c $NEWCPU /ktvm getppid 1000 >/tmp/hp4"
			echo "echo 0 >$HP/cpu$NEWCPU/online"
		fi
	} >/tmp/hp-work.sh
	$K record -q -o /tmp/hp.dat -e ktrace:syscall_entry -e raw_syscalls:sys_enter \
		-- sh /tmp/hp-work.sh >/dev/null 2>/tmp/err
	rc=$?
	cat /tmp/err
	expect "ktrace record's status" "$rc" 0 || return 1
	$K report -i /tmp/hp.dat --stat >/tmp/stat || return 1
	grep -q '^no events lost' /tmp/stat || { cat /tmp/stat; fail "events lost"; } || return 1
	for w in 1:1 2:0 3:1 ${NEWCPU:+4:$NEWCPU}; do
		pid=$(cat /tmp/hp${w%:*})
		cpu=${w#*:}
		$K report -i /tmp/hp.dat --pid="$pid" --cpu="$cpu" >/tmp/rep || return 1
		expect "ktrace:syscall_entry getppid of $pid on cpu$cpu" \
			"$(grep -cE ' syscall_entry: +nr=110 ' /tmp/rep)" 1000 &&
		expect "raw_syscalls:sys_enter getppid of $pid on cpu$cpu" \
			"$(grep -cE ' sys_enter: +NR 110 |sys_enter: +id=110 ' /tmp/rep)" 1000 ||
			{ head -5 /tmp/rep; return 1; }
	done
	rmmod ktrace
}

# ktrace stream (mapped or read pages, per CPU) while cpu2 starts for the
# first time: a CPU without a buffer until then must not end the stream.
test_hotplug_stream() {
	{
		echo "echo 1 >$HP/cpu$NEWCPU/online"
		echo "taskset -c $NEWCPU /ktvm getppid 10 >/tmp/st1"
		echo "echo 0 >$HP/cpu$NEWCPU/online"
		echo "taskset -c 1 /ktvm getppid 10 >/tmp/st2"
	} >/tmp/st-work.sh
	$K stream -q -c -e raw_syscalls:sys_enter -- sh /tmp/st-work.sh \
		>/tmp/st 2>/tmp/err
	rc=$?
	cat /tmp/err
	expect "ktrace stream's status" "$rc" 0 || return 1
	for f in /tmp/st1 /tmp/st2; do
		pid=$(cat $f)
		expect "getppid entries of $pid in the stream" \
			"$(grep -E -- "-$pid +\[" /tmp/st | grep -cE 'sys_enter: +(NR 110 |id=110 )')" 10 ||
			{ head -5 /tmp/st; return 1; }
	done
}

# ---- writers in every context ----

# The stress module (tests/vm/stress): its hrtimer, irq_work and
# timer_list write its channel from hard and soft interrupts, and the
# hrtimer arms the timer_list, which the engine's timer_set records in
# the hard interrupt, while tasks on every CPU write too; NMIs sent from
# inside writes (an export) and outside them write as well.  An interrupt
# that comes while a probe writes is held off until the commit; a record
# from it must neither be lost uncounted nor break the page it lands on.
X=/sys/kernel/debug/ktrace_stress/stress

# online_cpus: the CPUs online now.
online_cpus() {
	for c in $(seq 0 $((NCPU - 1))); do
		[ "$(cat $HP/cpu$c/online 2>/dev/null || echo 1)" = 1 ] && echo "$c"
	done
}

# The engine records syscalls, timer_set, softirqs and irqs while the
# stress timers fire, NMIs come in the middle of writes, and a getppid
# flood runs on every CPU: every getppid and every arming of the stress
# timer_list is there, nothing is dropped, every page is intact; the
# stress channel's records and drops (NMIs that found it busy) add up to
# what it wrote.
test_stress_engine() {
	rmmod ktrace_stress 2>/dev/null
	rmmod ktrace 2>/dev/null
	insmod /ktrace.ko || return 1
	insmod /ktrace_stress.ko period_us=200 || return 1
	for e in syscall_entry syscall_exit timer_set softirq_entry \
		softirq_exit irq_entry irq_exit; do
		echo 1 >$D/events/$e/enable || fail "enable $e" || return 1
	done
	# The stress channel runs first and stops last: every engine record
	# may send an NMI that writes to it (see the module).
	echo start >$X/state
	echo 1 >$D/enabled
	echo start >$D/state
	echo 1 >$X/timers
	for c in $(online_cpus); do
		taskset -c "$c" /ktvm getppid 5000 >/tmp/sp$c &
	done
	wait
	echo 0 >$X/timers
	echo stop >$D/state
	echo stop >$X/state
	echo 0 >$D/enabled
	fn=$(cat $X/timer_fn)
	set -- -m "timer_set:function=$fn"
	for c in $(online_cpus); do
		set -- "$@" -m "syscall_entry:common_pid=$(cat /tmp/sp$c),nr=$GETPPID_NR"
	done
	/ktvm read -f $D/events "$@" $D >/tmp/r || return 1
	cat /tmp/r
	armed=$(cat $X/armed)
	expect "bad pages" "$(val bad /tmp/r)" 0 &&
	expect "timestamps going back" "$(val ts_back /tmp/r)" 0 &&
	expect dropped "$(cat $D/dropped)" 0 || return 1
	for c in $(online_cpus); do
		expect "getppid entries on cpu$c" \
			"$(matched "syscall_entry:common_pid=$(cat /tmp/sp$c),nr=$GETPPID_NR")" \
			5000 || return 1
	done
	[ "$armed" -gt 0 ] || fail "the stress timer_list was never armed" || return 1
	expect "timer_set of the stress timer_list" \
		"$(matched "timer_set:function=$fn")" "$armed" || return 1
	/ktvm read -s $X >/tmp/r || return 1
	cat /tmp/r
	intact || return 1
	echo "KT: # stress engine: timer_set $armed; stress channel: fired" \
		"$(cat $X/fired) nmis $(cat $X/nmis) dropped $(cat $X/dropped)" \
		>/dev/console
	[ "$(cat $X/nmis)" -gt 0 ] || fail "no NMI came" || return 1
	expect "stress records + dropped" \
		"$(($(val records /tmp/r) + $(cat $X/dropped)))" "$(cat $X/fired)" &&
	rmmod ktrace_stress &&
	rmmod ktrace
}

# stress_fill FLAGS: a stress channel of 4 pages per CPU, its timers and
# 500000 records from a kthread on every CPU, drained by a reader all along
# (a flight writer takes pages from under it); sets got, fired,
# dropped, overrun.
stress_fill() {
	rmmod ktrace_stress 2>/dev/null
	grep -q '^ktrace ' /proc/modules || insmod /ktrace.ko || return 1
	insmod /ktrace_stress.ko flags="$1" buf_nr=4 period_us=200 || return 1
	echo start >$X/state
	echo 1 >$X/timers
	echo 500000 >$X/flood &
	flooder=$!
	got=0
	while kill -0 $flooder 2>/dev/null; do
		/ktvm read -s $X >/tmp/r || return 1
		intact || return 1
		got=$((got + $(val records /tmp/r)))
	done
	wait
	echo 0 >$X/timers
	echo stop >$X/state
	/ktvm read -s $X >/tmp/r || return 1
	intact || return 1
	got=$((got + $(val records /tmp/r)))
	fired=$(cat $X/fired)
	dropped=$(cat $X/dropped)
	overrun=$(cat $X/overrun 2>/dev/null || echo 0)
	nmis=$(cat $X/nmis)
	# On the console too: what the stress came to, in every boot's log.
	echo "got $got fired $fired dropped $dropped overrun $overrun nmis $nmis"
	echo "KT: # stress flags=$1: got $got fired $fired dropped $dropped" \
		"overrun $overrun nmis $nmis" >/dev/console
	rmmod ktrace_stress
}

test_stress_drop() {
	stress_fill 0 || return 1
	[ "$dropped" -gt 0 ] || fail "4 pages took $fired records without a drop" || return 1
	expect "records + dropped" "$((got + dropped))" "$fired"
}

test_stress_flight() {
	stress_fill 2 || return 1
	[ "$overrun" -gt 0 ] || fail "4 pages took $fired records without an overrun" || return 1
	# Only NMIs that came inside a write of this channel are dropped.
	[ "$dropped" -le "$nmis" ] || fail "more dropped than NMIs" || return 1
	expect "records + overrun + dropped" "$((got + overrun + dropped))" "$fired"
}

echo "KT: # reliability (tests/vm/guest-reliab.sh), cpus online $(cat $HP/online)${NEWCPU:+, cpu$NEWCPU never yet}"
t "hold the tracepoints of these tests in two ftrace instances" keys_on
t "$CYCLES load/unload cycles with events firing under load; the last load records exactly" test_cycles
t "hotplug: engine reads cpu1 offline, records once back${NEWCPU:+ and on the first start of cpu$NEWCPU}; counts exact" \
	with_cpus test_hotplug_engine
t "hotplug: sample drop channel: records + dropped = written across cpu1 offline/online" \
	with_cpus test_hotplug_sample_drop
t "hotplug: sample flight channel: records + overrun = written across cpu1 offline/online" \
	with_cpus test_hotplug_sample_flight
t "hotplug: ktrace record of ktrace.ko and ftrace across cpu1 offline/online: every getppid, none lost" \
	with_cpus test_hotplug_record
[ -z "$NEWCPU" ] ||
	t "hotplug: ktrace stream while cpu$NEWCPU starts for the first time: every getppid" \
		with_cpus test_hotplug_stream
t "stress: the engine under interrupts and NMIs that write during a getppid flood on every CPU: every getppid and timer_set, none dropped" \
	test_stress_engine
t "stress: drop channel, writers in hard and soft interrupts and tasks, a reader all along: records + dropped = written" \
	test_stress_drop
t "stress: flight channel, the same: records + overrun + dropped (NMIs inside a write) = written" \
	test_stress_flight
keys_off
