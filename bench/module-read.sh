#!/bin/bash
# The CPU time `ktrace record` spends per MB of ktrace.ko's events when
# it maps the module's buffers (the default) against read() of whole
# pages (KTRACE_NO_MMAP=1), interleaved in one boot of a qemu guest
# running Debian's kernel (see bench/module-read-guest.sh).
# Usage: bench/module-read.sh [6.1|6.12]   (default 6.12)
# Prints a markdown table for BENCHMARKS.md.
#
# Knobs (environment): BENCH_N (getppid calls per sample, 100000),
# BENCH_ROUNDS (5); one uncounted warm-up of each reader.  As every VM bench,
# qemu runs with -icount shift=0 (TCG, one vCPU) by default, so ns are
# guest instructions (bench/vm-bench.sh).
set -eu
# shellcheck source=bench/vm-bench.sh
. "$(dirname "$0")/vm-bench.sh"
timeout=${KT_VM_TIMEOUT:-5400}

vm_bench_kernel "read" "${1:-6.12}"
{
	for v in BENCH_N BENCH_ROUNDS; do
		[ -n "${!v:-}" ] && echo "$v=${!v}"
	done
	cat bench/module-read-guest.sh
} >"$w/guest-bench.sh"
vm_pack "$w" "$w/guest-bench.sh"
vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
grep -E '^BENCH ' "$w/console.log" | tr -d '\r' >"$w/bench.txt" || true
if grep -q 'BENCH error' "$w/bench.txt" || ! grep -q '^BENCH done' "$w/bench.txt"; then
	echo "module-read: the guest did not finish; see $w/console.log" >&2
	exit 1
fi
grep '^BENCH note' "$w/bench.txt" >&2 || true

printf 'Kernel %s, qemu -accel %s %s, one boot.\n\n' "$rel" "$accel" "${KT_VM_QEMU_ARGS:-}"
awk "$bench_median"'
$1 == "BENCH" && $2 ~ /^t?(mmap|read)$/ {
	v[$2, ++n[$2]] = $3 / ($4 / 1048576)
	mb[$2] += $4 / 1048576
	how[$2] = how[$2] ? how[$2] : $5
}
function row(c, what) {
	printf "| %s | %d | %.1f | %.0f |\n", what, n[c], mb[c] / n[c], median(c)
}
END {
	printf "| reader | samples | MB a sample | ns of reader CPU per MB (median) |\n"
	printf "|---|---:|---:|---:|\n"
	row("mmap", "ktrace record, mapped (said: " how["mmap"] ")")
	row("read", "ktrace record, read() (KTRACE_NO_MMAP=1; said: " how["read"] ")")
	row("tmmap", "the transport alone: mapped, pages looked at (ktvm mapread -n)")
	row("tread", "the transport alone: read() into one buffer (ktvm drain)")
	printf "\nrecord, mapped / read(): %.2f; the transport alone: %.2f\n",
		median("mmap") / median("read"), median("tmmap") / median("tread")
}' "$w/bench.txt"
