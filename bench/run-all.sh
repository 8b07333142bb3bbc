#!/bin/bash
# Run every benchmark (make bench calls this): each executable file in
# bench/ except this script and the guest halves (*-guest.sh, which their
# host script runs inside its VM).  The VM benches, those that boot
# Debian kernels in qemu through tests/vm/vm-lib.sh (kernels fetched or
# taken from KT_VM_CACHE; TCG with -icount by default, tens of minutes
# each), run only with KT_BENCH_VM=1 or when named.  Every bench left out
# is listed with the reason; the last line counts them.
#
# Usage: bench/run-all.sh [-n] [NAME...]
#   -n     list what would run and what is skipped; run nothing
#   NAME   only these (file names in bench/: list.sh, loss-rate, ...)
set -u
here=$(cd "$(dirname "$0")" && pwd)
dry=
if [ "${1:-}" = -n ]; then
	dry=1
	shift
fi

# why NAME: why a bench is not run by default (nothing: it is run).
why() {
	case "$1" in
	*-guest.sh) echo "the guest half of ${1%-guest.sh}.sh, run inside its VM" ;;
	*)
		if grep -qE 'tests/vm/vm-lib\.sh|vm-bench\.sh' "$here/$1" &&
			[ "${KT_BENCH_VM:-0}" != 1 ]; then
			echo "a VM bench (qemu, Debian kernels, tens of minutes); KT_BENCH_VM=1 runs it"
		fi
		;;
	esac
}

benches=() skipped=0
if [ $# -gt 0 ]; then
	for name; do
		if [ ! -f "$here/$name" ] || [ ! -x "$here/$name" ]; then
			echo "run-all: no bench '$name' in $here" >&2
			exit 64
		fi
		benches+=("$name")
	done
else
	for b in "$here"/*; do
		name=$(basename "$b")
		if [ ! -f "$b" ] || [ ! -x "$b" ] || [ "$name" = run-all.sh ]; then
			continue
		fi
		reason=$(why "$name")
		if [ -n "$reason" ]; then
			echo "-- skip $name: $reason"
			skipped=$((skipped + 1))
			continue
		fi
		benches+=("$name")
	done
fi

ran=0 failed=0
for name in "${benches[@]}"; do
	echo "== $name"
	[ -n "$dry" ] && continue
	ran=$((ran + 1))
	"$here/$name" || { echo "-- $name failed (status $?)"; failed=$((failed + 1)); }
done
if [ -n "$dry" ]; then
	echo "bench: ${#benches[@]} to run, $skipped skipped (-n: none run)"
	exit 0
fi
echo "bench: $ran ran, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
