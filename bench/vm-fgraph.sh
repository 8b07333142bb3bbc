#!/bin/bash
# Make bench/report-speed's function_graph files: this host's kernel
# refuses the function tracers, so a qemu guest booting Debian's kernel
# records the graph of vfs_read under dd, once with `ktrace record` and
# once with `trace-cmd record` (bench/vm-fgraph-guest.sh), and sends both
# files back.  Usage: bench/vm-fgraph.sh [DIR [6.1|6.12]]: writes
# DIR/fgraph-ktrace.dat and DIR/fgraph-tc.dat; DIR is by default
# report-speed's kinds directory ($KT_BENCH_DIR/kinds, KT_BENCH_DIR by
# default /var/tmp/kt-bench-report), where bench/report-kinds.sh takes
# them.  Kernel 6.12 by default.
# Real time under KVM when there is one (the files, not timings, are
# the point): KT_VM_QEMU_ARGS and KT_VM_ACCEL as bench/vm-bench.sh's.
set -eu
dest=${1:-${KT_BENCH_DIR:-/var/tmp/kt-bench-report}/kinds}
dest=$(mkdir -p "$dest" && cd "$dest" && pwd)
export KT_VM_QEMU_ARGS=${KT_VM_QEMU_ARGS-}
export KT_VM_SMP=${KT_VM_SMP:-2}
# shellcheck source=bench/vm-bench.sh
. "$(dirname "$0")/vm-bench.sh"
timeout=${KT_VM_TIMEOUT:-900}

vm_bench_kernel "fgraph" "${2:-6.12}"
vm_pack "$w" bench/vm-fgraph-guest.sh
vm_pack_add "$w" /usr/bin/trace-cmd
vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
grep -E '^BENCH ' "$w/console.log" || true
if grep -q 'BENCH error' "$w/console.log" || ! grep -q '^BENCH end' "$w/console.log"; then
	echo "vm-fgraph: the guest did not finish; see $w/console.log" >&2
	exit 1
fi
tr -d '\r' <"$w/export.b64" | base64 -d -i | gzip -d | tar x -C "$dest"
ls -l "$dest"/fgraph-ktrace.dat "$dest"/fgraph-tc.dat
