#!/bin/sh
# Guest side of bench/module-read.sh: the CPU time ktrace.ko's readers
# spend per MB, mapped against read().
#
# sample: `ktrace record -e ktrace:syscall_entry -e ktrace:syscall_exit`
# system-wide, then N getppid() calls; once they are done and the
# readers had half a second to drain, the on-CPU time of the recorder's
# module readers (its threads ktrace-modN; /proc/PID/task/*/schedstat,
# ns: the instruction count under -icount) since the engine started,
# and the file's size.  Prints "BENCH <mode> <ns> <bytes> <the read mode
# record said>".
#
# transport: the same calls read by a reader that keeps nothing (see
# below).  Prints "BENCH t<mode> <ns> <bytes of pages>".
#
# The readers alternate within each round, so drift hits them alike.
# The host may prepend BENCH_N and BENCH_ROUNDS.
D=/sys/kernel/debug/ktrace
N=${BENCH_N:-100000}
ROUNDS=${BENCH_ROUNDS:-5}
K=/ktrace

insmod /ktrace.ko || echo "BENCH error insmod"
# The recordings need no kallsyms; leave its copy out of the figures.
: >/tmp/no-kallsyms
mount --bind /tmp/no-kallsyms /proc/kallsyms

# cpu_ns PID: on-CPU ns of PID's module readers (threads ktrace-modN).
cpu_ns() {
	for t in /proc/"$1"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		ktrace-mod*) cat "$t/schedstat" 2>/dev/null ;;
		esac
	done | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# sample MODE: one recording; prints its BENCH line.
sample() {
	if [ "$1" = read ]; then
		export KTRACE_NO_MMAP=1
	else
		unset KTRACE_NO_MMAP
	fi
	rm -f /tmp/b.dat
	$K record -o /tmp/b.dat -b 8192 -e ktrace:syscall_entry \
		-e ktrace:syscall_exit 2>/tmp/rec.err &
	rp=$!
	i=0
	until [ "$(cat $D/state)" = running ] || [ $i -ge 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	c0=$(cpu_ns $rp)
	/ktvm getppid "$N" >/dev/null
	sleep 0.5
	c1=$(cpu_ns $rp)
	kill -INT $rp
	wait $rp
	how=$(sed -n "s/.*buffers are read by //p" /tmp/rec.err)
	if grep -qi 'lost\|error' /tmp/rec.err; then
		sed 's/^/BENCH note /' /tmp/rec.err
	fi
	echo "BENCH $1 $((c1 - c0)) $(wc -c </tmp/b.dat) ${how:-?}"
}

# transport MODE: the reading alone, by a reader that keeps nothing:
# ktvm drain (read() of whole pages into one buffer) or ktvm mapread -n
# (each complete page's commit word looked at, then given back), of
# trace0 while N getppid() calls are traced.  Prints "BENCH t<MODE> <ns
# of the reader> <bytes of pages>".
transport() {
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/events/syscall_exit/enable
	echo 1 >$D/enabled
	echo start >$D/state
	if [ "$1" = read ]; then
		/ktvm drain $D/trace0 >/tmp/tr &
	else
		/ktvm mapread -n $D >/tmp/tr &
	fi
	tp=$!
	sleep 0.2
	c0=$(awk '{ print $1 }' /proc/$tp/schedstat)
	/ktvm getppid "$N" >/dev/null
	sleep 0.5
	c1=$(awk '{ print $1 }' /proc/$tp/schedstat)
	echo stop >$D/state
	wait $tp
	echo 0 >$D/enabled
	echo 1 >$D/reset
	if [ "$1" = read ]; then
		pages=$(cat /tmp/tr)
	else
		pages=$(sed -n 's/^pages //p' /tmp/tr)
	fi
	echo "BENCH t$1 $((c1 - c0)) $((pages * 4096))"
}

sample mmap >/dev/null	# warm-up, uncounted
echo 8192 >$D/buffer_size_kb
transport mmap >/dev/null
r=0
while [ $r -lt "$ROUNDS" ]; do
	sample mmap
	sample read
	transport mmap
	transport read
	r=$((r + 1))
done
echo "BENCH done"
