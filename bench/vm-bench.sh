# shellcheck shell=bash
# The set-up every VM bench shares (sourced, after `set -eu`): qemu with
# -icount shift=0 (TCG, one vCPU) by default, so the guest clock
# advances one ns per guest instruction and the numbers are instruction
# counts, the same on every run and blind to the host's load;
# KT_VM_QEMU_ARGS= KT_VM_ACCEL=... measures real time instead.  Leaves
# $top (the tree, also the working directory) and $out (build/bench-vm),
# and tests/vm/vm-lib.sh loaded.
export KT_VM_SMP=${KT_VM_SMP:-1}
export KT_VM_QEMU_ARGS=${KT_VM_QEMU_ARGS--icount shift=0,sleep=off}
case $KT_VM_QEMU_ARGS in
*icount*) export KT_VM_ACCEL=tcg ;;	# icount exists only under TCG
esac
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
out=$top/build/bench-vm
mkdir -p "$out"
# shellcheck source=tests/vm/vm-lib.sh
. tests/vm/vm-lib.sh

# awk functions for a bench's tables: median(c) of the samples v[c, i],
# i from 1 to n[c].
# shellcheck disable=SC2034
bench_median='
function median(c,   i, j, t, k) {
	k = n[c]
	for (i = 1; i <= k; i++) a[i] = v[c, i]
	for (i = 1; i <= k; i++)
		for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}'

# vm_bench_kernel NAME [VERSION]: Debian's kernel VERSION (6.12 by
# default) fetched, the work directory $w ($out/NAME-RELEASE) made, the
# accelerator picked, the guest's helpers and ktrace.ko built for it.
# Leaves $rel, $root and $kdir as tests/vm/fetch-kernels.sh gives them.
vm_bench_kernel() {
	local _
	read -r _ rel root kdir < <(tests/vm/fetch-kernels.sh "${2:-6.12}")
	w=$out/${1:+$1-}$rel
	mkdir -p "$w"
	vm_pick_accel "$root/fs/boot/vmlinuz-$rel"
	vm_build_helpers || { cat "$out/helpers.log"; exit 1; }
	vm_build_modules "$w" "$kdir" || { tail "$w/build.log"; exit 1; }
}
