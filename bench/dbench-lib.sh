# Shared by bench/record-overhead, bench/always-on and bench/trigger:
# dbench on a tmpfs (CLIENTS clients, 8 unless set), the no-tracing and
# floor conditions, and the interleaved rounds with medians of per-round
# slowdowns.  Source it after setting BENCH (the script's name), EVENTS,
# ROUNDS and SECS; it needs root, dbench and cc, and sets work, out,
# TRACEFS and dbench_cmd.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KTRACE=${KTRACE:-$top/ktrace}
CLIENT=/usr/share/dbench/client.txt
TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
TRACEFS=${TRACEFS:-/sys/kernel/tracing}

die() { echo "$BENCH: $*" >&2; exit 1; }

# need TOOL...: each must be on PATH.
need() {
	local t
	[ "$(id -u)" = 0 ] || die "run as root"
	for t in "$@"; do
		command -v "$t" >/dev/null || die "'$t' is missing; run: scripts/deps.sh bench"
	done
	[ -x "$KTRACE" ] || die "no $KTRACE; run make"
}

# A work directory on a 4 GB tmpfs (dbench's files and the trace files),
# trace-cmd's LD_PRELOAD shim built in it; removed on exit.
bench_setup() {
	work=$(mktemp -d /tmp/kt-bench.XXXXXX) || die "mktemp failed"
	floor_inst="$TRACEFS/instances/ktrace-bench-floor-$$"
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	mkdir -p "$work/fs"
	mount -t tmpfs -o size=4g tmpfs "$work/fs" || die "cannot mount a tmpfs"
	mkdir -p "$work/fs/db" "$work/fs/out"
	# KT_BENCH_OUT_FS=own: the recordings on a tmpfs of their own, not
	# sharing the superblock (its locks, its block count) with dbench's
	# creates and unlinks.
	if [ "${KT_BENCH_OUT_FS:-}" = own ]; then
		mkdir -p "$work/outfs"
		mount -t tmpfs -o size=4g tmpfs "$work/outfs" || die "cannot mount a tmpfs"
		mkdir -p "$work/outfs/out"
	fi
	cc -O2 -shared -fPIC -o "$work/tc-shim.so" "$top/tests/tc-shim.c" -ldl ||
		die "cannot build tests/tc-shim.c"
	out=$work/fs/out
	[ "${KT_BENCH_OUT_FS:-}" = own ] && out=$work/outfs/out
	dbench_cmd=(dbench -c "$CLIENT" -D "$work/fs/db" "${CLIENTS:-8}" -t "$SECS")
}

bench_cleanup() {
	[ -d "$floor_inst" ] && rmdir "$floor_inst" 2>/dev/null
	umount "$work/outfs" 2>/dev/null
	umount "$work/fs" 2>/dev/null
	rm -rf "$work"
}

throughput() { awk '/^Throughput/ { print $2 }' "$1"; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Each run_X prints "throughput lost".
run_none() {
	"${dbench_cmd[@]}" >"$work/db.log" 2>&1
	echo "$(throughput "$work/db.log") 0"
}

# The events on in an instance and nobody reading: the tracepoints' cost.
run_floor() {
	local e lost
	mkdir "$floor_inst" || return 1
	for e in "${EVENTS[@]}"; do
		e=${e%:\*}
		echo 1 >"$floor_inst/events/${e/://}/enable"
	done
	"${dbench_cmd[@]}" >"$work/db.log" 2>&1
	echo 0 >"$floor_inst/tracing_on"
	lost=$(cat "$floor_inst"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	rmdir "$floor_inst"
	echo "$(throughput "$work/db.log") $lost"
}

# interleave COND...: ROUNDS rounds of run_COND each, the order rotated
# every round; prints each run and a table, and sets slow[COND], the
# median over rounds of (none's throughput / COND's) in the same round
# (the machine's load drifts).  "none" must be among the conditions.
declare -A slow
interleave() {
	local conds=("$@") c i r t l res tps ratios med ml
	declare -A tp lost
	echo "dbench ${CLIENTS:-8} for ${SECS}s, $ROUNDS interleaved rounds; events: ${EVENTS[*]}"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#conds[@]}; i++)); do
			c=${conds[(i + r) % ${#conds[@]}]}
			# The whole run, its clean-up too, before the next one
			# (read from "< <(run)" returned at its first line and
			# let an rm -rf of the last run's DIR race the next
			# run's files: "cannot open the per-CPU buffers").
			res=$("run_$c")
			{ [ -n "$res" ] && read -r t l <<<"$res"; } || { echo "  $c failed" >&2; t=0 l=0; }
			tp[$c,$r]=$t
			lost[$c]+="$l "
			printf '  round %d %-9s %8s MB/s  lost %s\n' "$((r + 1))" "$c" "$t" "$l"
		done
	done
	echo
	printf '%-10s %12s %10s %14s\n' condition "MB/s (med)" slowdown "lost (median)"
	for c in "${conds[@]}"; do
		tps="" ratios=""
		for ((r = 0; r < ROUNDS; r++)); do
			tps+="${tp[$c,$r]} "
			ratios+="$(awk -v a="${tp[none,$r]}" -v b="${tp[$c,$r]}" 'BEGIN { if (b > 0) printf "%.4f", a / b }') "
		done
		med=$(tr ' ' '\n' <<<"$tps" | grep . | median)
		ml=$(tr ' ' '\n' <<<"${lost[$c]:-}" | grep . | median)
		slow[$c]=$(tr ' ' '\n' <<<"$ratios" | grep . | median)
		printf '%-10s %12s %10s %14s\n' "$c" "$med" "${slow[$c]}x" "$ml"
	done
}
