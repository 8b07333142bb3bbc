#!/bin/bash
# ns per traced event of ktrace.ko against ftrace, measured in a qemu
# guest booting Debian's kernel (see bench/module-overhead-guest.sh).
# Usage: bench/module-overhead.sh [6.1|6.12]   (default 6.12)
# Prints a markdown table for BENCHMARKS.md.  Under TCG (the default
# here: this machine's KVM cannot run guests) every instruction is
# emulated, so absolute numbers are far above bare metal; the ratios are
# what the table is for.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/bench-vm
accel=${KT_VM_ACCEL:-tcg}
timeout=${KT_VM_TIMEOUT:-900}
mkdir -p "$out"
# shellcheck source=tests/vm/vm-lib.sh
. tests/vm/vm-lib.sh

read -r s rel root kdir < <(tests/vm/fetch-kernels.sh "${1:-6.12}")
w=$out/$rel
mkdir -p "$w"
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
	printf "| ktrace.ko syscall_entry+exit | %.1f | %.1f |\n", mod, em
	printf "| ftrace raw_syscalls | %.1f | %.1f |\n", ft, ef
	printf "| floor: raw_syscalls, tracing_on=0 | %.1f | %.1f |\n", fl, efl
	printf "\nmodule/ftrace per event: %.2f (target <= 0.6)\n", em / ef
	printf "module/floor per event: %.2f; module/floor per call: %.2f (target <= 1.3)\n", em / efl, mod / fl
	printf "records dropped by the module: %s\n", dropped
}' "$w/bench.txt"
