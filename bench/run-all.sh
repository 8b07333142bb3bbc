#!/bin/bash
# Run every benchmark: each executable bench/<name>-<what> script (not
# the sources next to them).  make bench calls this.
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
for b in "$here"/*-*; do
	case "$b" in *.c | *.h | *.md | *.sh) continue ;; esac
	[ -f "$b" ] && [ -x "$b" ] || continue
	echo "== $(basename "$b")"
	"$b" || status=1
done
exit $status
