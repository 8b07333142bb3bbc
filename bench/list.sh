#!/bin/bash
# How long `ktrace list` (events, as the completion runs it on every Tab)
# and `ktrace list --fields` take next to trace-cmd's (and perf's)
# equivalents.
# Interleaved rounds, so machine noise hits both sides alike; CPU time
# (perf stat task-clock) is the steady number on a shared machine, wall
# time is shown too.  Prints per-run means and the ktrace/trace-cmd ratio.
# Usage: bench/list.sh [ROUNDS [RUNS-PER-ROUND]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
KTRACE=${KTRACE:-$top/ktrace}
rounds=${1:-10}
per=${2:-20}

# cost CMD...: "cpu-ms wall-ms" summed over $per runs of CMD.
cost() {
	perf stat -x, -r "$per" -e task-clock -- "$@" 2>&1 >/dev/null |
		awk -F, '$3 == "task-clock" { cpu = $1 } END { printf "%s ", cpu }'
	local t0 t1
	t0=$(date +%s%N)
	for ((i = 0; i < per; i++)); do "$@" >/dev/null; done
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / per))"
}

# pair NAME "KTRACE ARGS" "OTHER-TOOL ARGS"
pair() {
	local name=$1 r ca=0 cb=0 wa=0 wb=0 c w
	for ((r = 0; r < rounds; r++)); do
		read -r c w < <(cost $2)
		ca=$(awk -v a="$ca" -v b="$c" 'BEGIN { print a + b }'); wa=$((wa + w))
		read -r c w < <(cost $3)
		cb=$(awk -v a="$cb" -v b="$c" 'BEGIN { print a + b }'); wb=$((wb + w))
	done
	awk -v n="$name" -v t="${3%% *}" -v r="$rounds" -v ca="$ca" -v cb="$cb" -v wa="$wa" -v wb="$wb" 'BEGIN {
		printf "%-30s cpu ktrace %5.2f ms, %-9s %5.2f ms, ratio %.2f | wall %5.2f / %5.2f ms, ratio %.2f\n",
		       n, ca / r, t, cb / r, ca / cb, wa / r / 1e6, wb / r / 1e6, wa / wb }'
}

pair "list events"                "$KTRACE list events"                "trace-cmd list -e"
pair "list events sched:*"        "$KTRACE list events sched:*"        "trace-cmd list -e sched:.*"
pair "list tracers"               "$KTRACE list tracers"               "trace-cmd list -t"
pair "list options"               "$KTRACE list options"               "trace-cmd list -o"
pair "list events (vs perf)"     "$KTRACE list events"                "perf list tracepoint"
pair "list --fields sched_switch" "$KTRACE list --fields sched:sched_switch" \
	"trace-cmd list -e sched:sched_switch -F"
