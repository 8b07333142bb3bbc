#!/bin/bash
# ktrace.ko before and after readers were woken at a fill level, in one
# boot of a qemu guest running Debian's kernel (bench/modwake-guest.sh):
# the events `ktrace record --process` loses in a getppid() flood at the
# default buffers, the instructions per recorded event, and optionally
# dbench 8 with blocking readers (read() calls per run).  The two module
# builds take turns within each round.
# Usage: bench/modwake.sh [6.1|6.12]   (default 6.12)
#
# Knobs (environment): BENCH_BEFORE (the revision whose kernel/ is
# "before"; default: the parent of the commit that added kt_wake_kick),
# BENCH_PARTS ("flood syscall"; add dbench, which needs the dbench
# package), BENCH_N (getppid() calls of the flood, 200000), BENCH_KB
# (record's -b in the flood; default: the buffers' defaults), SYSCALL_N
# (per sample of the syscall part, 200000), BENCH_ROUNDS (7),
# DBENCH_SECS (5), DBENCH_ROUNDS (2).  Each part adds an uncounted
# warm-up round.
#
# As bench/module-overhead.sh: qemu -icount shift=0 (TCG, one vCPU) by
# default, so ns are guest instructions, blind to the host's load;
# KT_VM_QEMU_ARGS= KT_VM_ACCEL=... measures real time instead.
set -eu
# shellcheck source=bench/vm-bench.sh
. "$(dirname "$0")/vm-bench.sh"
parts=${BENCH_PARTS:-flood syscall}
timeout=${KT_VM_TIMEOUT:-5400}

before=${BENCH_BEFORE:-}
if [ -z "$before" ]; then
	first=$(git log --reverse --format=%H -S kt_wake_kick -- kernel | head -n1)
	[ -n "$first" ] || { echo "modwake: no commit adds kt_wake_kick; set BENCH_BEFORE" >&2; exit 1; }
	before=$first^
fi

vm_bench_kernel "modwake" "${1:-6.12}"
# The "before" build, from git, beside the tree's.
rm -rf "$w/before"
mkdir -p "$w/before"
git archive "$before" kernel | tar x -C "$w/before" --strip-components=1
make -C "$kdir" M="$w/before" modules >"$w/build-before.log" 2>&1 ||
	{ tail "$w/build-before.log"; exit 1; }
bko=/tmp/ktrace-before-$$.ko
{
	echo "BENCH_PARTS='$parts'"
	echo "BEFORE_KO=$bko"
	for v in BENCH_N BENCH_KB BENCH_ROUNDS SYSCALL_N DBENCH_SECS DBENCH_ROUNDS; do
		[ -n "${!v:-}" ] && echo "$v=${!v}"
	done
	cat bench/modwake-guest.sh
} >"$w/guest-bench.sh"
vm_pack "$w" "$w/guest-bench.sh"
strip --strip-debug -o "$bko" "$w/before/ktrace.ko"
add=("$bko")
case $parts in
*dbench*)
	if ! [ -x /usr/bin/dbench ] || ! [ -r /usr/share/dbench/client.txt ]; then
		echo "modwake: dbench is missing; try apt-get install dbench" >&2
		exit 1
	fi
	add+=(/usr/bin/dbench /usr/share/dbench/client.txt)
	KT_VM_QEMU_ARGS="${KT_VM_QEMU_ARGS:-} -m 1024"
	;;
esac
vm_pack_add "$w" "${add[@]}" || { rm -f "$bko"; exit 1; }
rm -f "$bko"
vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
grep -E '^(BENCH|BENCH-lost|SYSCALL|DBENCH) ' "$w/console.log" >"$w/bench.txt" || true
if grep -q 'BENCH error' "$w/console.log" || ! grep -q '^BENCH done' "$w/bench.txt"; then
	echo "modwake: the guest did not finish; see $w/console.log" >&2
	exit 1
fi

printf 'Kernel %s, qemu -accel %s %s, "before" = %s, one boot.\n\n' "$rel" \
	"$accel" "${KT_VM_QEMU_ARGS:-}" "$(git rev-parse --short "$before")"
awk '
$1 == "BENCH-lost" { lost[$2, ++nl[$2]] = $3; tot[$2] += $3; next }
{ v[$1, $2, ++n[$1, $2]] = $3; x[$1, $2, n[$1, $2]] = $4 " " $5 }
function median(p, c,   i, j, t, k) {
	k = n[p, c]
	for (i = 1; i <= k; i++) a[i] = v[p, c, i]
	for (i = 1; i <= k; i++)
		for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
	if (n["BENCH", "before"]) {
		printf "| flood of %s getppid(), %s | ns per call (median) | events lost per recording | lost, all %d rounds |\n|---|---:|---|---:|\n", "N", KB ? "-b " KB : "default buffers", n["BENCH", "before"]
		split("before after ftrace", cs, " ")
		for (i = 1; i <= 3; i++) {
			c = cs[i]; l = ""
			for (j = 1; j <= nl[c]; j++) l = l (j > 1 ? " " : "") lost[c, j]
			printf "| %s | %.1f | %s | %d |\n", c, median("BENCH", c), l, tot[c]
		}
		print ""
	}
	if (n["SYSCALL", "none"]) {
		none = median("SYSCALL", "none")
		printf "| syscall_entry+exit recording | ns per getppid() | per event |\n|---|---:|---:|\n"
		printf "| untraced | %.1f | - |\n", none
		split("before after", cs, " ")
		for (i = 1; i <= 2; i++) {
			m = median("SYSCALL", cs[i])
			printf "| %s | %.1f | %.1f |\n", cs[i], m, (m - none) / 2
		}
		print ""
	}
	if (n["DBENCH", "before"]) {
		printf "| dbench 8, readers | MB/s, each round | events written, reads |\n|---|---|---|\n"
		split("before after", cs, " ")
		for (i = 1; i <= 2; i++) {
			l = ""; e = ""
			for (j = 1; j <= n["DBENCH", cs[i]]; j++) {
				l = l " " v["DBENCH", cs[i], j]; e = e " (" x["DBENCH", cs[i], j] ")"
			}
			printf "| %s |%s |%s |\n", cs[i], l, e
		}
	}
}' KB="${BENCH_KB:-}" "$w/bench.txt" | sed "s/of N getppid/of ${BENCH_N:-200000} getppid/"
