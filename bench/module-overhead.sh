#!/bin/bash
# ns per traced event of ktrace.ko against ftrace, measured in a qemu
# guest booting Debian's kernel (see bench/module-overhead-guest.sh).
# Usage: bench/module-overhead.sh [6.1|6.12]   (default 6.12)
# Prints a markdown table for BENCHMARKS.md.
#
# By default qemu runs with -icount shift=0 (TCG, one vCPU): the guest
# clock then advances one ns per guest instruction, so the numbers are
# instruction counts, the same on every run and blind to the host's
# load.  KT_VM_QEMU_ARGS= KT_VM_ACCEL=... measures real time instead.
set -eu
export KT_VM_SMP=${KT_VM_SMP:-1}
export KT_VM_QEMU_ARGS=${KT_VM_QEMU_ARGS--icount shift=0,sleep=off}
case $KT_VM_QEMU_ARGS in
*icount*) export KT_VM_ACCEL=tcg ;;	# icount exists only under TCG
esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/bench-vm
timeout=${KT_VM_TIMEOUT:-900}
mkdir -p "$out"
# shellcheck source=tests/vm/vm-lib.sh
. tests/vm/vm-lib.sh

read -r s rel root kdir < <(tests/vm/fetch-kernels.sh "${1:-6.12}")
w=$out/$rel
mkdir -p "$w"
vm_pick_accel "$root/fs/boot/vmlinuz-$rel"
vm_build_helpers || { cat "$out/helpers.log"; exit 1; }
vm_build_modules "$w" "$kdir" || { tail "$w/build.log"; exit 1; }
vm_pack "$w" bench/module-overhead-guest.sh
vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
grep '^BENCH ' "$w/console.log" >"$w/bench.txt" || true
if grep -q 'BENCH error' "$w/bench.txt" || ! grep -q '^BENCH floor' "$w/bench.txt"; then
	echo "module-overhead: the guest did not finish; see $w/console.log" >&2
	exit 1
fi

# Medians per configuration; each getppid() makes two events.
awk -v rel="$rel" -v accel="$accel" -v qargs="${KT_VM_QEMU_ARGS:-}" '
$1 == "BENCH" && $2 != "dropped" { v[$2, ++n[$2]] = $3 }
$2 == "dropped" { dropped = $3 }
function median(c,   i, j, t, k) {
	k = n[c]
	for (i = 1; i <= k; i++) a[i] = v[c, i]
	for (i = 1; i <= k; i++)
		for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
	none = median("none"); mod = median("module"); att = median("attached")
	ft = median("ftrace"); fl = median("floor")
	em = (mod - none) / 2; ef = (ft - none) / 2; efl = (fl - none) / 2
	printf "Kernel %s, qemu -accel %s %s, %d rounds, medians.\n\n", rel, accel, qargs, n["none"]
	printf "| configuration | ns per getppid() | ns per event |\n|---|---:|---:|\n"
	printf "| nothing traced | %.1f | - |\n", none
	printf "| ktrace.ko probes attached, channel stopped | %.1f | %.1f |\n", att, (att - none) / 2
	ps = median("pidset")
	printf "| ktrace.ko recording, pid set without the caller | %.1f | %.1f |\n", ps, (ps - none) / 2
	printf "| ktrace.ko syscall_entry+exit | %.1f | %.1f |\n", mod, em
	printf "| ftrace raw_syscalls | %.1f | %.1f |\n", ft, ef
	printf "| floor: raw_syscalls, tracing_on=0 | %.1f | %.1f |\n", fl, efl
	printf "\nmodule/ftrace per event: %.2f (target <= 0.6)\n", em / ef
	printf "module/floor per event: %.2f; module/floor per call: %.2f (target <= 1.3)\n", em / efl, mod / fl
	printf "records dropped by the module: %s\n", dropped
}' "$w/bench.txt"
