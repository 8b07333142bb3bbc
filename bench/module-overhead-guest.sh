#!/bin/sh
# Guest side of bench/module-overhead.sh, two parts in one boot.
#
# syscall: ns per getppid() call with ktrace.ko's syscall_entry/exit on,
# with its probes attached but the channel stopped, with ftrace's
# raw_syscalls on, with raw_syscalls enabled but tracing_on=0 (the
# dispatch floor), and with nothing.  Prints "BENCH <config> <ns>".
#
# dbench: dbench 8 throughput in a tmpfs with nothing traced, with
# ftrace's sched_switch, sched_waking and raw_syscalls, and with the
# module's equivalents (sched_schedule, sched_try_wakeup, syscall_entry,
# syscall_exit), each tracer with and without a reader draining its
# buffers.  Prints "DBENCH <config> <MB/s> <events written>".
#
# The configurations alternate within each round, so drift hits them
# all alike.  The host may prepend settings: BENCH_PARTS, BENCH_N,
# BENCH_ROUNDS, DBENCH_SECS, DBENCH_ROUNDS.
D=/sys/kernel/debug/ktrace
T=/sys/kernel/tracing
N=${BENCH_N:-200000}
ROUNDS=${BENCH_ROUNDS:-11}
PARTS=${BENCH_PARTS:-syscall dbench}
DBENCH_SECS=${DBENCH_SECS:-5}
DBENCH_ROUNDS=${DBENCH_ROUNDS:-3}

# Same buffer size and overwrite mode for both tracers.
echo 1408 >$T/buffer_size_kb
echo 1 >$T/options/overwrite
# When splice readers wake (the kernel default, said aloud).
echo 50 >$T/buffer_percent
insmod /ktrace.ko buf_kb=1408 flight=1 || echo "BENCH error insmod"

on() {
	case $1 in
	module) echo 1 >$D/enabled; echo start >$D/state ;;
	# Recording, but the pid set holds only init: we pay the lookup.
	pidset) echo 1 >$D/set_pid; echo 1 >$D/enabled; echo start >$D/state ;;
	attached) echo 1 >$D/enabled ;;
	ftrace) echo 1 >$T/events/raw_syscalls/enable; echo 1 >$T/tracing_on ;;
	floor) echo 0 >$T/tracing_on; echo 1 >$T/events/raw_syscalls/enable ;;
	esac
}

off() {
	echo stop >$D/state
	echo 0 >$D/enabled
	echo >$D/set_pid
	echo 0 >$T/events/raw_syscalls/enable
	echo 1 >$T/tracing_on
	echo 1 >$D/reset
	echo >$T/trace
}

part_syscall() {
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/events/syscall_exit/enable
	off
	# Round 0 warms caches and allocations up and is not counted.
	r=0
	tag=WARMUP
	while [ $r -le "$ROUNDS" ]; do
		for c in none attached pidset module ftrace floor; do
			on $c
			echo "$tag $c $(/ktvm bench "$N")"
			off
		done
		r=$((r + 1))
		tag=BENCH
	done
	echo "BENCH dropped $(cat $D/dropped)"
	echo 0 >$D/events/syscall_entry/enable
	echo 0 >$D/events/syscall_exit/enable
}

# The same tracepoints for both: sched_switch, sched_waking, sys_enter,
# sys_exit.
FT_EVENTS="sched/sched_switch sched/sched_waking raw_syscalls"
KT_EVENTS="sched_schedule sched_try_wakeup syscall_entry syscall_exit"
DB=/db

# written FILES...: events written per the per-CPU stats files (those
# still in the buffer, those overwritten, those read), and those read.
written() {
	cat "$@" | awk '/^(entries|overrun|read events):/ { s += $NF }
		/^read events:/ { r += $NF }
		END { print s + 0, r + 0 }'
}

# dbench_run CONFIG: one dbench 8 run under CONFIG, printing
# "<MB/s> <events written> <events read> <read() calls of the readers>".
dbench_run() {
	local e readers='' p thr n="0 0" calls=0
	case $1 in
	ftrace*)
		for e in $FT_EVENTS; do echo 1 >$T/events/$e/enable; done
		echo 1 >$T/tracing_on ;;
	module*)
		for e in $KT_EVENTS; do echo 1 >$D/events/$e/enable; done
		echo 1 >$D/enabled
		echo start >$D/state ;;
	esac
	: >/tmp/drain
	# A reader per CPU draining pages into nothing, each tracer read
	# its best way (ktvm drain): splice of whole pages once a buffer
	# is buffer_percent (50) full for ftrace, as record and trace-cmd
	# do; read() for the module, as record does (the channel's 50 ms
	# timer wakes it).
	case $1 in
	ftrace-read)
		for p in $T/per_cpu/cpu*/trace_pipe_raw; do
			/ktvm drain $p >>/tmp/drain &
			readers="$readers $!"
		done ;;
	module-read)
		for p in $D/trace[0-9]*; do
			/ktvm drain $p >>/tmp/drain &
			readers="$readers $!"
		done ;;
	esac
	dbench -c /usr/share/dbench/client.txt -D $DB 8 -t "$DBENCH_SECS" \
		>/tmp/dbench.log 2>&1
	thr=$(awk '/^Throughput/ { print $2 }' /tmp/dbench.log)
	case $1 in
	ftrace*)
		echo 0 >$T/tracing_on
		n=$(written $T/per_cpu/cpu*/stats) ;;
	module*)
		echo stop >$D/state
		n=$(written $D/stats/cpu*) ;;
	esac
	# Stopping the module's channel ends its readers' reads; ftrace's
	# wait for more, so they are killed (the shell's notes on that are
	# noise).
	case $1 in ftrace*) for p in $readers; do kill $p; done ;; esac
	for p in $readers; do wait $p; done 2>/dev/null
	calls=$(awk '{ s += $1 } END { print s + 0 }' /tmp/drain)
	for e in $FT_EVENTS; do echo 0 >$T/events/$e/enable; done
	echo 1 >$T/tracing_on
	echo >$T/trace
	echo 0 >$D/enabled
	for e in $KT_EVENTS; do echo 0 >$D/events/$e/enable; done
	echo 1 >$D/reset
	rm -rf $DB/clients
	# No throughput line, or 0 (a run too short to pass the warm-up).
	if ! awk -v t="$thr" 'BEGIN { exit !(t + 0 > 0) }'; then
		echo "BENCH error dbench $1: $(tail -n 3 /tmp/dbench.log)" >&2
		thr=0
	fi
	echo "$thr $n $calls"
}

part_dbench() {
	local r=0 tag=DBWARMUP c
	mkdir -p $DB
	mount -t tmpfs -o size=600m tmpfs $DB || echo "BENCH error tmpfs"
	# Round 0 fills the page cache and slabs and is not counted.
	while [ $r -le "$DBENCH_ROUNDS" ]; do
		for c in none ftrace ftrace-read module module-read; do
			echo "$tag $c $(dbench_run $c)"
		done
		r=$((r + 1))
		tag=DBENCH
	done
	echo "DBENCH dropped $(cat $D/dropped)"
	umount $DB
}

for part in $PARTS; do
	part_$part
done
echo "BENCH done"
