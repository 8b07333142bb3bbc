#!/bin/sh
# Guest side of bench/module-overhead.sh: ns per getppid() call with
# ktrace.ko's syscall_entry/exit on, with its probes attached but the
# channel stopped, with ftrace's raw_syscalls on, with raw_syscalls
# enabled but tracing_on=0 (the dispatch floor), and with nothing.  The
# configurations alternate within each round, so drift in the host's
# load hits them all alike.  Prints "BENCH <config> <ns>".
D=/sys/kernel/debug/ktrace
T=/sys/kernel/tracing
N=${BENCH_N:-200000}
ROUNDS=${BENCH_ROUNDS:-11}

# Same buffer size and overwrite mode for both tracers.
echo 1408 >$T/buffer_size_kb
echo 1 >$T/options/overwrite
insmod /ktrace.ko buf_kb=1408 flight=1 || echo "BENCH error insmod"
echo 1 >$D/events/syscall_entry/enable
echo 1 >$D/events/syscall_exit/enable

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
