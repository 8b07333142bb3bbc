#!/bin/bash
# tests/corpus-dir.sh DIR: compare `ktrace report -i F` with `trace-cmd
# report -i F` for every DIR/*.dat, a corpus kept outside the tree (public
# files whose licence or size keeps them out of tests/data; see
# tests/data/PROVENANCE.md).  Prints one line per file and exits 1 if any
# file differs or fails.  `make corpus-check KT_CORPUS_DIR=DIR` runs it.
set -u
dir=${1:?usage: tests/corpus-dir.sh DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
ktrace=${KTRACE:-$top/ktrace}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
for f in "$dir"/*.dat; do
	[ -e "$f" ] || { echo "corpus-dir: no *.dat in $dir" >&2; exit 1; }
	n=$((n + 1))
	# trace-cmd's first line ("cpus=N" or "version = N") ktrace does not print.
	trace-cmd report -i "$f" 2>/dev/null | tail -n +2 >"$tmp/tc"
	if [ ! -s "$tmp/tc" ]; then
		echo "SKIPPED $f: trace-cmd prints nothing for it"
		continue
	fi
	if ! "$ktrace" report -i "$f" >"$tmp/kt" 2>"$tmp/err"; then
		echo "FAILED  $f: status $?: $(head -n 1 "$tmp/err")"
		bad=$((bad + 1))
	elif ! cmp -s "$tmp/tc" "$tmp/kt"; then
		echo "DIFFERS $f: $(diff "$tmp/tc" "$tmp/kt" | grep -c '^[<>]') lines"
		bad=$((bad + 1))
	else
		echo "same    $f ($(wc -l <"$tmp/kt") lines)"
	fi
done
echo "$n files, $bad differ or fail"
[ "$bad" = 0 ]
