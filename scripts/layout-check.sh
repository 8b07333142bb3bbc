#!/bin/bash
# The layout's rules, checked from the sources (lib/README.md says why):
#   1. a lib/ room includes only the rooms below it;
#   2. no include loop among lib/ and cmd/ files;
#   3. lib/ includes nothing of cmd/.
# Prints one line per breach and exits 1, or prints nothing and exits 0.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

# One awk reads every source once: the shell loop it replaced forked a
# few times per #include line and took 42 s on a machine whose fork
# costs 8 ms.  Its input: the headers that exist (for resolving), then
# the sources.
#
# The rooms each room may include, itself included.  live/ is itself in
# rooms (lib/README.md), each named live/<room>, with arrows of their
# own: tracefs at the bottom, the session at the top.
#
# Loops: a file X.c or X.h that includes Y.h depends on Y (Y.h and
# Y.c), so each quoted include is an edge between two such units,
# resolved the way the compiler does (beside the file first, then -Ilib
# -Icmd -Ikernel).  tsort finds the loops: events.c including module.h,
# module.c writer.h and writer.h events.h is one, though no header
# includes itself.  kernel/ is left out: there a probe's inline filter
# (ktrace-pidset.h, ktrace-process.h) is included by the events that
# call it while its control file switches those events, a loop of units
# by design; the headers are split by the file that provides each name
# (kernel/README.md).  A private header X-int.h is part of X's unit.
edges=$(mktemp)
trap 'rm -f "$edges" "$edges.files"' EXIT
find lib cmd kernel -type f >"$edges.files"
awk -v edges="$edges" '
function room(p,   r) {
	r = p
	sub(/^lib\//, "", r)
	if (r ~ /^live\/[^\/]+\//) {
		sub(/^live\//, "", r)
		sub(/\/.*/, "", r)
		return "live/" r
	}
	sub(/\/.*/, "", r)
	return r
}
# The path a/./b/../c as a/c, relative to the top.
function norm(p,   n, i, k, part, out) {
	n = split(p, part, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "." || part[i] == "")
			continue
		if (part[i] == ".." && k > 0) {
			k--
			continue
		}
		out[++k] = part[i]
	}
	p = ""
	for (i = 1; i <= k; i++)
		p = p (i > 1 ? "/" : "") out[i]
	return p
}
function resolve(dir, inc,   d, n, i, t) {
	n = split(dir " lib cmd kernel", d, " ")
	for (i = 1; i <= n; i++) {
		t = norm(d[i] "/" inc)
		if (t in exists)
			return t
	}
	return ""
}
function unit(p) {
	sub(/\.[^.\/]*$/, "", p)
	sub(/-int$/, "", p)
	return p
}
BEGIN {
	dec = "base file decode"
	allowed["base"] = "base"
	allowed["file"] = "base file"
	allowed["decode"] = dec
	allowed["net"] = "base file net"
	allowed["views"] = dec " views"
	allowed["live/tracefs"] = dec " live/tracefs"
	allowed["live/module"] = dec " live/tracefs live/module"
	allowed["live/events"] = dec " live/tracefs live/module live/events"
	allowed["live/probes"] = dec " live/tracefs live/probes"
	allowed["live/buffers"] = dec " live/tracefs live/module live/buffers"
	allowed["live/trigger"] = dec " live/trigger"
	allowed["live/session"] = dec " live/tracefs live/module live/events live/probes live/buffers live/trigger live/session net"
	allowed["analyze"] = dec " views analyze"
	allowed["sql"] = dec " views analyze sql"
	allowed["push"] = dec " views analyze sql push"
	bad = 0
}
FILENAME == ARGV[1] { exists[$0] = 1; next }
FNR == 1 {
	f = FILENAME
	dir = f
	if (!sub(/\/[^\/]*$/, "", dir))
		dir = "."
	inlib = f ~ /^lib\//
	ok = ""
	if (inlib) {
		r = room(f)
		ok = (r in allowed) ? allowed[r] : ""
		if (ok == "") {
			print "layout: " f " is in room '\''" r "'\'', which lib/README.md does not describe"
			bad = 1
		}
	}
}
/^#include "/ {
	inc = $0
	sub(/^#include "/, "", inc)
	sub(/".*/, "", inc)
	if (inlib && ok != "") {
		if (inc !~ /\//) {
			# A bare name is a header of cmd/ or kernel/ found by -I.
			if (("cmd/" inc) in exists) {
				print "layout: " f " includes cmd/" inc "; lib/ never includes cmd/"
				bad = 1
			}
		} else if (index(" " ok " ", " " room(inc) " ") == 0) {
			print "layout: " f " (" r ") includes " inc "; " r " may include only: " ok
			bad = 1
		}
	}
	t = resolve(dir, inc)
	if (t != "" && unit(f) != unit(t))
		print unit(f), unit(t) >edges
}
END { exit bad }
' "$edges.files" lib/*/*.[ch] lib/live/*/*.[ch] cmd/*.[ch] ktrace.c
bad=$?
if ! out=$(tsort "$edges" 2>&1 >/dev/null); then
	echo "layout: an include loop: $(echo "$out" | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')"
	bad=1
fi
exit $bad
