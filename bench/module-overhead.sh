#!/bin/bash
# ns per traced event of ktrace.ko against ftrace, and dbench 8
# throughput under each, measured in one boot of a qemu guest running
# Debian's kernel (see bench/module-overhead-guest.sh).
# Usage: bench/module-overhead.sh [6.1|6.12]   (default 6.12)
# Prints markdown tables for BENCHMARKS.md.
#
# Knobs (environment): BENCH_PARTS ("syscall dbench"), BENCH_N (getppid
# calls per sample, 200000), BENCH_ROUNDS (11), DBENCH_SECS (guest
# seconds per dbench run, 5), DBENCH_ROUNDS (3); each part adds one
# uncounted warm-up round.  Needs dbench (Debian package dbench).
#
# By default qemu runs with -icount shift=0 (TCG, one vCPU): the guest
# clock then advances one ns per guest instruction, so the numbers are
# instruction counts, the same on every run and blind to the host's
# load.  KT_VM_QEMU_ARGS= KT_VM_ACCEL=... measures real time instead.
set -eu
# shellcheck source=bench/vm-bench.sh
. "$(dirname "$0")/vm-bench.sh"
parts=${BENCH_PARTS:-syscall dbench}
timeout=${KT_VM_TIMEOUT:-5400}

vm_bench_kernel "" "${1:-6.12}"
# The guest script with the knobs set at its top.
{
	echo "BENCH_PARTS='$parts'"
	for v in BENCH_N BENCH_ROUNDS DBENCH_SECS DBENCH_ROUNDS; do
		[ -n "${!v:-}" ] && echo "$v=${!v}"
	done
	cat bench/module-overhead-guest.sh
} >"$w/guest-bench.sh"
vm_pack "$w" "$w/guest-bench.sh"
case $parts in
*dbench*)
	if ! [ -x /usr/bin/dbench ] || ! [ -r /usr/share/dbench/client.txt ]; then
		echo "module-overhead: dbench is missing; try apt-get install dbench" >&2
		exit 1
	fi
	vm_pack_add "$w" /usr/bin/dbench /usr/share/dbench/client.txt || exit 1
	# dbench's files live in a tmpfs of the guest's memory.
	KT_VM_QEMU_ARGS="${KT_VM_QEMU_ARGS:-} -m 1024"
	;;
esac
vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
grep -E '^(BENCH|DBENCH) ' "$w/console.log" >"$w/bench.txt" || true
if grep -q 'BENCH error' "$w/console.log" || ! grep -q '^BENCH done' "$w/bench.txt"; then
	echo "module-overhead: the guest did not finish; see $w/console.log" >&2
	exit 1
fi

# median (bench/vm-bench.sh): shared by both tables.
median=$bench_median

printf 'Kernel %s, qemu -accel %s %s, one boot.\n' "$rel" "$accel" "${KT_VM_QEMU_ARGS:-}"

# Medians per configuration; each getppid() makes two events.
case $parts in *syscall*) awk "$median"'
$1 == "BENCH" && $2 == "dropped" { dropped = $3; next }
$1 == "BENCH" && $2 != "done" { v[$2, ++n[$2]] = $3 }
END {
	none = median("none"); mod = median("module"); att = median("attached")
	ft = median("ftrace"); fl = median("floor")
	em = (mod - none) / 2; ef = (ft - none) / 2; efl = (fl - none) / 2
	printf "\nPer event: %d rounds, medians.\n\n", n["none"]
	printf "| configuration | ns per getppid() | ns per event |\n|---|---:|---:|\n"
	printf "| nothing traced | %.1f | - |\n", none
	printf "| ktrace.ko probes attached, channel stopped | %.1f | %.1f |\n", att, (att - none) / 2
	ps = median("pidset")
	printf "| ktrace.ko recording, pid set without the caller | %.1f | %.1f |\n", ps, (ps - none) / 2
	printf "| ktrace.ko syscall_entry+exit | %.1f | %.1f |\n", mod, em
	printf "| ftrace raw_syscalls | %.1f | %.1f |\n", ft, ef
	printf "| floor: raw_syscalls, tracing_on=0 | %.1f | %.1f |\n", fl, efl
	printf "\nmodule/ftrace per event: %.2f (target <= 0.5)\n", em / ef
	printf "module/floor per event: %.2f; module/floor per call: %.2f (target <= 1.2)\n", em / efl, mod / fl
	printf "records dropped by the module: %s\n", dropped
}' "$w/bench.txt" ;;
esac

# dbench: slowdown is taken within each round (untraced MB/s / traced
# MB/s), then the median over rounds; the overhead is slowdown - 1.
case $parts in *dbench*) awk "$median"'
$1 == "DBENCH" && $2 == "dropped" { dropped = $3; next }
$1 == "DBENCH" {
	r = ++n[$2]; thr[$2, r] = $3; ev[$2, r] = $4; calls[$2, r] = $6
}
function col(c, what,   i) {
	for (i = 1; i <= n[c]; i++)
		v[c, i] = what == "thr" ? thr[c, i] : what == "ev" ? ev[c, i] : \
			what == "calls" ? calls[c, i] : thr["none", i] / thr[c, i]
	return median(c)
}
END {
	split("none ftrace ftrace-read module module-read", cs, " ")
	name["none"] = "nothing traced"
	name["ftrace"] = "ftrace events, no reader"
	name["ftrace-read"] = "ftrace events, trace_pipe_raw readers"
	name["module"] = "ktrace.ko events, no reader"
	name["module-read"] = "ktrace.ko events, trace0 readers"
	printf "\ndbench 8: %d rounds, medians.\n\n", n["none"]
	if (!n["none"]) exit 1
	printf "| configuration | MB/s | slowdown | events written per run | read() calls per run |\n|---|---:|---:|---:|---:|\n"
	for (k = 1; k <= 5; k++) {
		c = cs[k]
		sd[c] = col(c, "sd")
		printf "| %s | %.2f | %.4fx | %d | %s |\n", name[c], col(c, "thr"), sd[c], \
			col(c, "ev"), c == "module-read" ? col(c, "calls") : "-"
	}
	printf "\nmodule/ftrace overhead, no reader: %.2f (target <= 0.5)\n", \
		(sd["module"] - 1) / (sd["ftrace"] - 1)
	printf "module/ftrace overhead, with readers: %.2f (target <= 0.5)\n", \
		(sd["module-read"] - 1) / (sd["ftrace-read"] - 1)
	printf "records dropped by the module: %s\n", dropped
}' "$w/bench.txt" ;;
esac
