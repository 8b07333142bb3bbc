#!/bin/sh
# Guest side of bench/process-cli-overhead.sh: ns per getppid() call of
# a command under `ktrace record --process --no-lifecycle --no-signals`
# on ktrace.ko's process tracer, the same on ftrace (--backend ftrace),
# and untraced.  The configurations alternate within each round, so
# drift hits them all alike.  Prints "BENCH <config> <ns>", and
# "BENCH-lost <config> <events>" for a recording that lost events.
K=/ktrace
N=${BENCH_N:-100000}
ROUNDS=${BENCH_ROUNDS:-7}
# Per-CPU buffers that hold every record of a run (2N, under 100 bytes
# each) for both tracers: the cost of recording, not of losing.
KB=${BENCH_KB:-32768}

insmod /ktrace.ko || echo "BENCH error insmod"
# kallsyms is copied into every file: leave it out, it is not the subject.
: >/tmp/no-kallsyms
mount --bind /tmp/no-kallsyms /proc/kallsyms

run() {
	case $1 in
	none) /ktvm bench "$N" ;;
	module) $K record -q --process --no-lifecycle --no-signals -b $KB -o /tmp/b.dat \
		-- /ktvm bench "$N" 2>/tmp/err ;;
	ftrace) $K record -q --process --backend ftrace --no-lifecycle --no-signals -b $KB \
		-o /tmp/b.dat -- /ktvm bench "$N" 2>/tmp/err ;;
	esac
}

r=0
tag=WARMUP
while [ $r -le "$ROUNDS" ]; do
	for c in none module ftrace; do
		: >/tmp/err
		echo "$tag $c $(run $c)"
		lost=$(sed -n 's/.*LOST \([0-9]*\) events.*/\1/p' /tmp/err)
		[ -z "$lost" ] || echo "$tag-lost $c $lost"
		rm -f /tmp/b.dat
	done
	r=$((r + 1))
	tag=BENCH
done
echo "BENCH end"
