#!/bin/bash
# ktrace top's costs, measured (as root):
#  1. its page walker (lib/file/rawpage.c) against libtraceevent's kbuffer on
#     the same live-captured pages: ns per event, ratio of medians;
#  2. the CPU time ktrace top itself spends counting a syscall flood,
#     reading the ring buffer through mmap against read(), runs
#     interleaved (A B A B ...) so machine noise hits both.
# Usage: bench/top.sh [RUNS]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
KTRACE=${KTRACE:-$top/ktrace}
runs=${1:-7}
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$top/lib" -I"$top/kernel" $(pkg-config --cflags libtracefs libtraceevent) \
	-o "$tmp/top-walk" "$top/bench/top-walk.c" "$top/lib/file/rawpage.c" \
	"$top/lib/live/tracefs/tracefs.c" "$top/lib/base/log.c" $(pkg-config --libs libtracefs libtraceevent) || exit 1
echo "== page walker: own vs kbuffer"
"$tmp/top-walk" 21

median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# one MODE: CPU ms of ktrace top while 300000 one-byte dd writes run;
# appends "cpu_ms events lost" to $tmp/MODE.
one() {
	local mode=$1 pid t0 cpu
	if [ "$mode" = read ]; then export KTRACE_NO_MMAP=1; else unset KTRACE_NO_MMAP; fi
	"$KTRACE" top --batch -e 'raw_syscalls:*' -d 0.5 >"$tmp/out" 2>/dev/null &
	pid=$!
	until [ "$(cat "$T/instances/ktrace-$pid/tracing_on" 2>/dev/null)" = 1 ]; do :; done
	# schedstat's first field: nanoseconds on a CPU, user and system.
	t0=$(awk '{ print $1 }' "/proc/$pid/schedstat")
	dd if=/dev/zero of=/dev/null bs=1 count=300000 status=none
	# Let it count what is left: two more intervals.
	n=$(grep -c '^ktrace top:' "$tmp/out")
	until [ "$(grep -c '^ktrace top:' "$tmp/out")" -ge $((n + 2)) ]; do sleep 0.05; done
	cpu=$(awk -v t0="$t0" '{ print ($1 - t0) / 1e6 }' "/proc/$pid/schedstat")
	kill -TERM "$pid"
	wait "$pid"
	awk -v cpu="$cpu" '/^rate / { ev = $4; lost = $7 + $9 + $11 } END { print cpu, ev, lost }' \
		"$tmp/out" >>"$tmp/$mode"
}

echo "== ktrace top CPU time counting 600000+ syscall events: mmap vs read()"
for ((i = 0; i < runs; i++)); do
	one mmap
	one read
done
for m in mmap read; do
	printf '%-5s cpu %6.1f ms (median of %d)  events %s  lost %s (medians)\n' "$m" \
		"$(cut -d' ' -f1 "$tmp/$m" | median)" "$runs" \
		"$(cut -d' ' -f2 "$tmp/$m" | median)" "$(cut -d' ' -f3 "$tmp/$m" | median)"
done
ma=$(cut -d' ' -f1 "$tmp/mmap" | median)
mr=$(cut -d' ' -f1 "$tmp/read" | median)
awk -v a="$ma" -v b="$mr" 'BEGIN { if (a > 0) printf "read/mmap CPU %.2fx\n", b / a }'

# 3. What watching costs the watched: the wall time of the same syscall
#    workload alone, under ktrace top (raw_syscalls:*, counted from the
#    ring buffer) and under perf stat -a -I (the same tracepoints counted
#    in the kernel, no buffer), interleaved.
work_ms() {
	local t0 t1
	t0=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count=200000 status=none
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

# under WHAT: work_ms while WHAT watches; appends to $tmp/w.WHAT.
under() {
	local what=$1 pid
	: >"$tmp/wout"
	case $what in
	alone) work_ms >>"$tmp/w.$what"; return ;;
	ktrace) "$KTRACE" top --batch -e 'raw_syscalls:*' -d 0.1 >"$tmp/wout" 2>/dev/null & ;;
	ktrace-read) KTRACE_NO_MMAP=1 "$KTRACE" top --batch -e 'raw_syscalls:*' -d 0.1 \
		>"$tmp/wout" 2>/dev/null & ;;
	perf) perf stat -a -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -I 100 \
		-o "$tmp/wout" >/dev/null 2>&1 & ;;
	esac
	pid=$!
	# Ready once it has reported its first interval.
	until [ -s "$tmp/wout" ] && grep -q '[0-9]' "$tmp/wout"; do sleep 0.02; done
	work_ms >>"$tmp/w.$what"
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
}

if command -v perf >/dev/null; then
	echo "== wall time of 400000 syscalls: alone, under ktrace top (mmap, read), under perf stat"
	for ((i = 0; i < runs; i++)); do
		under alone
		under ktrace
		under ktrace-read
		under perf
	done
	a=$(median <"$tmp/w.alone")
	printf 'alone             %4s ms  (median of %d)\n' "$a" "$runs"
	for w in ktrace ktrace-read perf; do
		m=$(median <"$tmp/w.$w")
		printf '%-17s %4s ms  %.2fx\n' "$(sed 's/^ktrace-read$/ktrace top (read)/; s/^ktrace$/ktrace top (mmap)/; s/^perf$/perf stat -I/' <<<"$w")" \
			"$m" "$(awk -v x="$m" -v y="$a" 'BEGIN { print x / y }')"
	done
fi
