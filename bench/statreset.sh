#!/bin/bash
# Wall time of ktrace stat / doctor / reset against the nearest trace-cmd
# commands, run interleaved (A B A B ...) so machine noise hits both, and
# the ratio of medians.  Usage: bench/statreset.sh [RUNS]   (as root)
#
#   ktrace stat            vs  trace-cmd stat
#   ktrace doctor          vs  trace-cmd check-events -N
#                          (doctor parses every format as check-events does,
#                           and probes far more besides)
#   ktrace reset -B INST   (alone: trace-cmd reset cannot be kept off the
#                           shared top-level buffer here)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
KTRACE=${KTRACE:-$top/ktrace}
runs=${1:-20}
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)

# ms CMD...: wall milliseconds of one run, output discarded.
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pair NAME "A..." "B...": interleaved runs, medians in ms and B/A.
pair() {
	local name=$1 a=$2 b=$3 i fa fb ma mb
	fa=$(mktemp) fb=$(mktemp)
	for ((i = 0; i < runs; i++)); do
		ms $a >>"$fa"
		ms $b >>"$fb"
	done
	ma=$(median <"$fa") mb=$(median <"$fb")
	printf '%-8s ktrace %7.1f ms   %-28s %7.1f ms   ratio %.2fx\n' "$name" \
		"$(echo "$ma / 1000" | bc -l)" "$b" "$(echo "$mb / 1000" | bc -l)" \
		"$(echo "$mb / $ma" | bc -l)"
	rm -f "$fa" "$fb"
}

pair stat "$KTRACE stat" "trace-cmd stat"
pair doctor "$KTRACE doctor" "trace-cmd check-events -N"

inst=kt-bench-$$
mkdir "$T/instances/$inst"
f=$(mktemp)
for ((i = 0; i < runs; i++)); do
	echo 1 > "$T/instances/$inst/events/sched/enable"
	echo 'common_pid != 0' > "$T/instances/$inst/events/sched/sched_switch/filter"
	ms "$KTRACE" reset -B "$inst" >>"$f"
done
rmdir "$T/instances/$inst"
printf '%-8s ktrace %7.1f ms   (dirty instance: 1 system enabled, 1 filter)\n' reset \
	"$(echo "$(median <"$f") / 1000" | bc -l)"
rm -f "$f"
