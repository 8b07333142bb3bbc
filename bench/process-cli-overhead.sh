#!/bin/bash
# ns per system call of a command recorded by `ktrace record --process`
# (system calls only) on ktrace.ko's process tracer against the same on
# ftrace's raw_syscalls, end to end: probes, buffers and ktrace's readers
# writing the file, in a qemu guest booting Debian's kernel (see
# bench/process-cli-overhead-guest.sh).
# Usage: bench/process-cli-overhead.sh [6.1|6.12]   (default 6.12)
# Prints a markdown table for BENCHMARKS.md.
#
# As bench/module-overhead.sh: qemu -icount shift=0 (TCG, one vCPU) by
# default, so the numbers are instruction counts, blind to the host's
# load; KT_VM_QEMU_ARGS= KT_VM_ACCEL=... measures real time instead.
set -eu
# shellcheck source=bench/vm-bench.sh
. "$(dirname "$0")/vm-bench.sh"
timeout=${KT_VM_TIMEOUT:-900}

vm_bench_kernel "proc" "${1:-6.12}"
vm_pack "$w" bench/process-cli-overhead-guest.sh
vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
grep -E '^BENCH(-lost)? ' "$w/console.log" >"$w/bench.txt" || true
if grep -q 'BENCH error' "$w/bench.txt" || ! grep -q '^BENCH end' "$w/bench.txt"; then
	echo "process-cli-overhead: the guest did not finish; see $w/console.log" >&2
	exit 1
fi

awk -v rel="$rel" -v accel="$accel" -v qargs="${KT_VM_QEMU_ARGS:-}" "$bench_median"'
$1 == "BENCH-lost" { lost[$2]++; nlost[$2] += $3; next }
$1 == "BENCH" && $2 != "end" { v[$2, ++n[$2]] = $3 }
END {
	none = median("none"); mod = median("module"); ft = median("ftrace")
	printf "Kernel %s, qemu -accel %s %s, %d rounds, medians.\n\n", rel, accel, qargs, n["none"]
	printf "| record --process (system calls only) | ns per getppid() | added ns per call | recordings that lost events | events lost, all runs |\n|---|---:|---:|---:|---:|\n"
	printf "| untraced | %.1f | - | - | - |\n", none
	printf "| on ktrace.ko | %.1f | %.1f | %d of %d | %d |\n", mod, mod - none, lost["module"], n["module"], nlost["module"]
	printf "| on ftrace (--backend ftrace) | %.1f | %.1f | %d of %d | %d |\n", ft, ft - none, lost["ftrace"], n["ftrace"], nlost["ftrace"]
	printf "\nktrace.ko / ftrace, added cost: %.2fx\n", (mod - none) / (ft - none)
}' "$w/bench.txt"
