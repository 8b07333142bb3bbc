#!/bin/bash
# How often `ktrace diff` gets issue 29's two cases right, on
# tests/lockreg.c recorded as diff.bats records it (chrt -f 10, --for
# offcpu --for cpu --for syscalls), with its fsyncs in SYNCDIR (a
# directory on a real disk, such as /var/tmp, by default):
#   unchanged  two runs of the same workload: right when no row is
#              significant;
#   seeded     a run against one where locker0 holds the lock 2 ms
#              longer: right when the first row is the lock's
#              (locker0's runs, futex calls or futex waits), significant.
# Usage:
#   bench/diff-pairs.sh record DIR [PAIRS [SYNCDIR]]
#       records DIR/aI.dat, DIR/bI.dat (seeded), DIR/cI.dat (unchanged),
#       for I in 1..PAIRS (10), each triple under one hold of
#       /tmp/kt-tracefs.lock (a, b, c interleaved: drift hits all alike);
#   bench/diff-pairs.sh count DIR
#       diffs a against c and a against b with $KTRACE (./ktrace) and
#       prints each pair's verdict and the two counts.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
KTRACE=${KTRACE:-$top/ktrace}
mode=${1:?record or count}
dir=${2:?DIR}
lock_row='(.kind == "task" and .name == "locker0") or (.kind == "syscall" and .name == "futex") or (.kind == "offcpu" and (.name | test("futex")))'

case $mode in
record)
	pairs=${3:-10}
	sync=${4:-/var/tmp}
	mkdir -p "$dir" "$dir/bin"
	cc -O2 -o "$dir/bin/lockreg" "$top/tests/lockreg.c" -lpthread
	sync=$(mktemp -d "$sync/kt-diff-sync.XXXXXX")
	trap 'rm -rf "$sync"' EXIT
	for ((i = 1; i <= pairs; i++)); do
		flock /tmp/kt-tracefs.lock bash -c '
			for f in a b c; do
				extra=0
				[ $f = b ] && extra=2000
				"$0" record -q -c --for offcpu --for cpu --for syscalls \
					-o "$1/$f$2.dat" -- chrt -f 10 "$1/bin/lockreg" $extra 50 "$3" >/dev/null
			done' "$KTRACE" "$dir" "$i" "$sync"
		echo "pair $i recorded ($(cut -d' ' -f1-3 /proc/loadavg))"
	done
	;;
count)
	quiet=0 first=0 n=0
	for a in "$dir"/a*.dat; do
		i=${a##*/a}
		i=${i%.dat}
		n=$((n + 1))
		u=$("$KTRACE" diff "$a" "$dir/c$i.dat" --format json |
			jq -c '[.rows[] | select(.significant) | "\(.kind) \(.name) \(.delta.total_ns / 1e6 | floor) ms"]')
		[ "$u" = "[]" ] && quiet=$((quiet + 1))
		s=$("$KTRACE" diff "$a" "$dir/b$i.dat" --format json |
			jq -r ".rows[0] | if .significant and .delta.total_ns > 0 and ($lock_row) then \"first\" else \"\(.kind) \(.name)\" end")
		[ "$s" = first ] && first=$((first + 1))
		echo "pair $i: unchanged: significant $u; seeded: $s"
	done
	echo "unchanged pairs with nothing significant: $quiet/$n"
	echo "seeded pairs with the lock's row first and significant: $first/$n"
	;;
*)
	echo "usage: $0 record DIR [PAIRS [SYNCDIR]] | count DIR" >&2
	exit 64
	;;
esac
