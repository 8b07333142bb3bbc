#!/bin/bash
# The layout's rules, checked from the sources (lib/README.md says why):
#   1. a lib/ room includes only the rooms below it;
#   2. no include loop among lib/ and cmd/ files;
#   3. lib/ includes nothing of cmd/.
# Prints one line per breach and exits 1, or prints nothing and exits 0.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
bad=0

# The rooms each room may include, itself included.  live/ is itself in
# rooms (lib/README.md), each named live/<room>, with arrows of their
# own: tracefs at the bottom, the session at the top.
allowed() {
	local dec="base file decode"
	case $1 in
	base) echo "base" ;;
	file) echo "base file" ;;
	decode) echo "$dec" ;;
	net) echo "base file net" ;;
	views) echo "$dec views" ;;
	live/tracefs) echo "$dec live/tracefs" ;;
	live/module) echo "$dec live/tracefs live/module" ;;
	live/events) echo "$dec live/tracefs live/module live/events" ;;
	live/probes) echo "$dec live/tracefs live/probes" ;;
	live/buffers) echo "$dec live/tracefs live/module live/buffers" ;;
	live/trigger) echo "$dec live/trigger" ;;
	live/session) echo "$dec live/tracefs live/module live/events live/probes live/buffers live/trigger live/session net" ;;
	analyze) echo "$dec views analyze" ;;
	sql) echo "$dec views analyze sql" ;;
	push) echo "$dec views analyze sql push" ;;
	*) echo "" ;;
	esac
}

# room PATH: the room of a file under lib/, or of an include's path
# (live/<room>/x.h is in live/<room>; live/x.h, in no room, is "live").
room() {
	local r=${1#lib/}
	case $r in
	live/*/*) r=${r#live/}; echo "live/${r%%/*}" ;;
	*) echo "${r%%/*}" ;;
	esac
}

for f in lib/*/*.[ch] lib/live/*/*.[ch]; do
	room=$(room "$f")
	ok=$(allowed "$room")
	if [ -z "$ok" ]; then
		echo "layout: $f is in room '$room', which lib/README.md does not describe"
		bad=1
		continue
	fi
	while read -r inc; do
		case $inc in
		*/*) ;;
		*)
			# A bare name is a header of cmd/ or kernel/ found by -I.
			if [ -e "cmd/$inc" ]; then
				echo "layout: $f includes cmd/$inc; lib/ never includes cmd/"
				bad=1
			fi
			continue
			;;
		esac
		r=$(room "$inc")
		case " $ok " in
		*" $r "*) ;;
		*)
			echo "layout: $f ($room) includes $inc; $room may include only: $ok"
			bad=1
			;;
		esac
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# Loops: a file X.c or X.h that includes Y.h depends on Y (Y.h and
# Y.c), so each quoted include is an edge between two such units,
# resolved the way the compiler does (beside the file first, then -Ilib
# -Icmd -Ikernel).  tsort finds the loops: events.c including module.h,
# module.c writer.h and writer.h events.h is one, though no header
# includes itself.
resolve() {
	local dir=$1 inc=$2 d
	for d in "$dir" lib cmd kernel; do
		if [ -e "$d/$inc" ]; then
			realpath --relative-to=. "$d/$inc"
			return
		fi
	done
}
# kernel/ is left out: there a probe's inline filter (ktrace-pidset.h,
# ktrace-process.h) is included by the events that call it while its
# control file switches those events, a loop of units by design; the
# headers are split by the file that provides each name (kernel/README.md).
edges=$(for f in lib/*/*.[ch] lib/live/*/*.[ch] cmd/*.[ch] ktrace.c; do
	[ -e "$f" ] || continue
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		t=$(resolve "$(dirname "$f")" "$inc")
		# A private header X-int.h is part of X's unit.
		a=${f%.*} b=${t%.*}
		a=${a%-int} b=${b%-int}
		[ -n "$t" ] && [ "$a" != "$b" ] && echo "$a $b"
	done
done)
if ! out=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null); then
	echo "layout: an include loop: $(echo "$out" | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')"
	bad=1
fi
exit $bad
