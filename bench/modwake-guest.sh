#!/bin/sh
# Guest side of bench/modwake.sh: ktrace.ko as it was before readers were
# woken at a fill level ($BEFORE_KO, packed by the host) against the module being
# tested (/ktrace.ko), the two loaded in turn within each round.
#
# flood: `ktrace record --process` (system calls only) of a getppid()
# flood at the buffers' defaults (or -b BENCH_KB), on each module and on
# ftrace; prints
# "BENCH <config> <ns per call>" and "BENCH-lost <config> <events>".
#
# syscall: ns per getppid() with each module's syscall_entry/exit
# recording (1408 KiB per CPU, flight mode, as bench/module-overhead.sh)
# and untraced; prints "SYSCALL <config> <ns per call>".
#
# dbench: dbench 8 under each module's sched and syscall events with a
# blocking reader per CPU (as bench/module-overhead.sh's module-read);
# prints "DBENCH <config> <MB/s> <events written> <read() calls>".
#
# The host prepends BEFORE_KO and: BENCH_PARTS, BENCH_N, BENCH_KB,
# BENCH_ROUNDS, SYSCALL_N, DBENCH_SECS, DBENCH_ROUNDS.
D=/sys/kernel/debug/ktrace
K=/ktrace
N=${BENCH_N:-200000}
ROUNDS=${BENCH_ROUNDS:-7}
PARTS=${BENCH_PARTS:-flood syscall}
KB=${BENCH_KB:+-b $BENCH_KB}
SYSCALL_N=${SYSCALL_N:-200000}
DBENCH_SECS=${DBENCH_SECS:-5}
DBENCH_ROUNDS=${DBENCH_ROUNDS:-2}

# kallsyms is copied into every file: leave it out, it is not the subject.
: >/tmp/no-kallsyms
mount --bind /tmp/no-kallsyms /proc/kallsyms

# load before|after [PARAMS]: that build of ktrace.ko, alone.
load() {
	local m=$1
	shift
	rmmod ktrace 2>/dev/null
	case $m in
	before) insmod "$BEFORE_KO" "$@" ;;
	after) insmod /ktrace.ko "$@" ;;
	esac || echo "BENCH error insmod $m"
}

flood_run() {
	case $1 in
	before | after)
		load "$1"
		$K record -q --process --no-lifecycle --no-signals $KB \
			-o /tmp/b.dat -- /ktvm bench "$N" 2>/tmp/err ;;
	ftrace)
		rmmod ktrace 2>/dev/null
		$K record -q --process --backend ftrace --no-lifecycle \
			--no-signals $KB -o /tmp/b.dat -- /ktvm bench "$N" 2>/tmp/err ;;
	esac
}

part_flood() {
	local r=0 tag=WARMUP c lost
	while [ $r -le "$ROUNDS" ]; do
		for c in before after ftrace; do
			: >/tmp/err
			echo "$tag $c $(flood_run $c)"
			lost=$(sed -n 's/.*LOST \([0-9]*\) events.*/\1/p' /tmp/err)
			echo "$tag-lost $c ${lost:-0}"
			rm -f /tmp/b.dat
		done
		r=$((r + 1))
		tag=BENCH
	done
	rmmod ktrace 2>/dev/null
}

part_syscall() {
	local r=0 tag=SYSWARMUP c
	while [ $r -le "$ROUNDS" ]; do
		for c in none before after; do
			case $c in
			none) rmmod ktrace 2>/dev/null ;;
			*)
				load $c buf_kb=1408 flight=1
				echo 1 >$D/events/syscall_entry/enable
				echo 1 >$D/events/syscall_exit/enable
				echo 1 >$D/enabled
				echo start >$D/state ;;
			esac
			echo "$tag $c $(/ktvm bench "$SYSCALL_N")"
		done
		r=$((r + 1))
		tag=SYSCALL
	done
	rmmod ktrace 2>/dev/null
}

KT_EVENTS="sched_schedule sched_try_wakeup syscall_entry syscall_exit"
DB=/db

dbench_run() {
	local e p readers='' thr n calls
	load "$1" buf_kb=1408 flight=1
	for e in $KT_EVENTS; do echo 1 >$D/events/$e/enable; done
	echo 1 >$D/enabled
	echo start >$D/state
	: >/tmp/drain
	for p in $D/trace[0-9]*; do
		/ktvm drain $p >>/tmp/drain &
		readers="$readers $!"
	done
	dbench -c /usr/share/dbench/client.txt -D $DB 8 -t "$DBENCH_SECS" \
		>/tmp/dbench.log 2>&1
	thr=$(awk '/^Throughput/ { print $2 }' /tmp/dbench.log)
	echo stop >$D/state
	n=$(cat $D/stats/cpu* | awk '/^(entries|overrun|read events):/ { s += $NF }
		END { print s + 0 }')
	for p in $readers; do wait $p; done
	calls=$(awk '{ s += $1 } END { print s + 0 }' /tmp/drain)
	rmmod ktrace
	rm -rf $DB/clients
	echo "${thr:-0} $n $calls"
}

part_dbench() {
	local r=0 tag=DBWARMUP c
	mkdir -p $DB
	mount -t tmpfs -o size=600m tmpfs $DB || echo "BENCH error tmpfs"
	while [ $r -le "$DBENCH_ROUNDS" ]; do
		for c in before after; do
			echo "$tag $c $(dbench_run $c)"
		done
		r=$((r + 1))
		tag=DBENCH
	done
	umount $DB
}

for part in $PARTS; do
	part_$part
done
echo "BENCH done"
