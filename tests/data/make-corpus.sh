#!/bin/bash
# Remake the trace.dat files of tests/data that this machine can make
# (tests/data/PROVENANCE.md lists them): recorded by trace-cmd and by
# ktrace on the running kernel, each in a private tracefs instance (the
# top-level buffer is left alone), then slimmed (tests/datslim.c keeps the
# kallsyms and saved-cmdlines lines the report needs) so that each file is
# tens of kilobytes, not megabytes.  The files that ktrace does not yet
# read as trace-cmd does ($PENDING) go to OUTDIR/pending/.
# Run as root from the top of the tree after `make`:
#
#   tests/data/make-corpus.sh [OUTDIR]      (default tests/data)
#
# make check does not run this: tests/bats/corpus.bats reads the stored
# files.  A remade file differs from the stored one (other times, other
# pids); every file must still read the same in ktrace and trace-cmd, or
# go to tests/data/pending/.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$TOP/tests/data}
KTRACE=${KTRACE:-$TOP/ktrace}
PENDING=""
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
W=$(mktemp -d)
N=0
trap 'rm -rf "$W"; for d in "$T"/instances/kt-corpus-$$-*; do [ -d "$d" ] && rmdir "$d"; done 2>/dev/null; true' EXIT

cc -O2 -shared -fPIC -o "$W/tc-shim.so" "$TOP/tests/tc-shim.c" -ldl
cc -O2 -Wall -o "$W/datslim" "$TOP/tests/datslim.c"
cc -O2 -o "$W/dat-zlib" "$TOP/tests/dat-zlib.c" -lz -lzstd

# slim IN OUT: cut IN's kallsyms to the names its report shows; the cut
# file must read exactly as the whole one in trace-cmd.
slim() {
	trace-cmd report -i "$1" >"$W/full.rep" 2>/dev/null
	grep -oE '[A-Za-z0-9_.$]+' "$W/full.rep" | sort -u >"$W/names"
	"$W/datslim" "$1" "$2" "$W/names" 2>/dev/null
	trace-cmd report -i "$2" 2>/dev/null | cmp -s - "$W/full.rep" ||
		{ echo "make-corpus: $2 does not read as $1 once slimmed" >&2; exit 1; }
}

# A fresh instance name for trace-cmd -B; $INST is its tracefs folder.
new_inst() {
	NAME=kt-corpus-$$-$((++N))
	INST=$T/instances/$NAME
}

# tc NAME [record options...] -- COMMAND...: trace-cmd record (v6) into
# instance $NAME (set by new_inst before), slimmed into $OUT/NAME.dat.
tc() {
	local name=$1 try
	shift
	# trace-cmd 3.1 sometimes writes a saved-cmdlines size that does not
	# match the text it wrote, and then reads nothing back: record again.
	for try in 1 2 3; do
		LD_PRELOAD=$W/tc-shim.so trace-cmd record --file-version 6 -o "$W/$name.dat" \
			-B "$NAME" "$@" >"$W/tc.log" 2>&1 || { cat "$W/tc.log" >&2; exit 1; }
		[ "$(trace-cmd report -i "$W/$name.dat" 2>/dev/null | head -n 3 | wc -l)" -ge 3 ] &&
			break
		[ "$try" = 3 ] && { echo "make-corpus: trace-cmd cannot read $name.dat" >&2; exit 1; }
	done
	slim "$W/$name.dat" "$OUT/$name.dat"
	echo "$name.dat"
}

# kt NAME [ktrace record options...]: the same with ktrace record.
kt() {
	local name=$1
	shift
	"$KTRACE" record -q -o "$W/$name.dat" "$@" >/dev/null
	slim "$W/$name.dat" "$OUT/$name.dat"
	echo "$name.dat"
}

# v7 NAME FROM COMPRESSION: FROM (a v6 file here) as trace-cmd's v7.
v7() {
	trace-cmd convert --file-version 7 --compression "$3" -i "$OUT/$2.dat" \
		-o "$OUT/$1.dat" >/dev/null 2>&1
	echo "$1.dat"
}

# A short workload: processes, files, a pipe, a sleep, a refused connect.
work='ls /usr/include/linux/netfilter >/dev/null; cat /etc/hostname | wc -c >/dev/null;
      (exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null; sleep 0.01; sleep 1 & kill $!'

new_inst
tc tc-sched -F -c -e sched_switch -e sched_wakeup -e sched_process_fork \
	-e sched_process_exec -e sched_process_exit -- bash -c "$work"

new_inst
tc tc-syscalls -F -e 'syscalls:sys_*_openat' -e 'syscalls:sys_*_read' \
	-e 'syscalls:sys_*_mmap' -e 'syscalls:sys_*_execve' -e 'syscalls:sys_*_newfstatat' \
	-- cat /etc/hostname

# Many kinds of print fmt: flags, symbolic, hex, cpumasks, %pS, strings;
# only the workload's events (-F -c), to stay small.
new_inst
tc tc-kinds -F -c -e sched -e irq -e timer -e kmem:kmalloc -e kmem:mm_page_alloc -e workqueue -e signal \
	-e ipi -e block -e writeback -e net -e skb -e sock -e tcp -e task \
	-- bash -c "$work"

# kernel_stack (options/stacktrace: -T) records of varying depth.
new_inst
tc tc-stack -F -c -T -e sched_switch -e sched_wakeup -e sched_process_exec -- bash -c "$work"

# user_stack records (options/userstacktrace).
new_inst
tc tc-ustack -F -c -O userstacktrace -e sched_switch -e sched_process_exec -- bash -c "$work"

# print (trace_marker) of several lengths, and raw_data (trace_marker_raw).
new_inst
tc tc-print -e sched_process_exec -- bash -c "
	m=$INST/trace_marker r=$INST/trace_marker_raw
	echo hello >\$m; printf x >\$m; printf '' >\$m; printf 'tab\there\n\n' >\$m
	printf '%0300d\n' 7 >\$m; printf 'no newline' >\$m
	printf '\x2a\x00\x00\x00' >\$r; printf '\x01\x00\x00\x00abcdefgh\xff' >\$r"

# A buffer too small for the events: lost-event marks (kept as v7 only,
# below: the v6 file is too big).
new_inst
tc tc-lost -b 4 -e kmem -e sched -- cat /etc/hostname

# Two instances in one file.
new_inst
a=$NAME
new_inst
LD_PRELOAD=$W/tc-shim.so trace-cmd record --file-version 6 -o "$W/tc-multi.dat" \
	-B "$a" -F -c -e sched_switch -B "$NAME" -F -c -e irq -e sched_wakeup -- bash -c "$work" \
	>"$W/tc.log" 2>&1 || { cat "$W/tc.log" >&2; exit 1; }
slim "$W/tc-multi.dat" "$OUT/tc-multi.dat"
echo tc-multi.dat

# Trace clocks other than local.
for c in global x86-tsc counter uptime mono; do
	new_inst
	tc "tc-clock-$c" -F -c -C "$c" -e sched_switch -e sched_wakeup -- bash -c "$work"
done

# --date: a DATE option, whose offset trace-cmd report adds.
new_inst
tc tc-date -F -c --date -e sched_switch -- bash -c "$work"

# v7, as trace-cmd 3.x writes by default, and with its other compressions.
v7 tc-v7-zstd tc-kinds zstd
v7 tc-v7-none tc-kinds none
"$W/dat-zlib" "$OUT/tc-v7-zstd.dat" "$OUT/tc-v7-zlib.dat" && echo tc-v7-zlib.dat
v7 tc-v7-multi tc-multi zstd
v7 tc-v7-stack tc-stack zstd
v7 tc-v7-print tc-print zstd
v7 tc-v7-lost tc-lost zstd
rm "$OUT/tc-lost.dat"

# A latency-format file: tc-sched's header, then the text of a trace
# file (this kernel has no latency tracer; trace-cmd writes this form
# for one).
new_inst
mkdir "$INST"
echo 1 >"$INST/options/event-fork"
echo 1 >"$INST/events/sched/sched_switch/enable"
echo 1 >"$INST/events/sched/sched_process_exec/enable"
bash -c "echo \$\$ >$INST/set_event_pid; exec bash -c '$work'"
echo 0 >"$INST/tracing_on"
at=$(grep -obUaP 'flyrecord\x00' "$OUT/tc-sched.dat" | head -n 1 | cut -d: -f1)
{ head -c "$at" "$OUT/tc-sched.dat"; printf 'latency  \0'; cat "$INST/trace"; } \
	>"$OUT/tc-latency.dat"
rmdir "$INST"
echo tc-latency.dat

# ktrace record's own files.
kt kt-sched -c -- bash -c "$work"
kt kt-kinds -e sched -e irq -e timer -e kmem:kmalloc -e kmem:mm_page_alloc -e 'syscalls:sys_*_openat' -e block -e writeback \
	-e net -e skb -e sock -e ftrace:print -c -- bash -c "$work"

# What no kernel here records: formats of other machines (mkodd.py).
python3 "$TOP/tests/data/mkodd.py" "$OUT"

for f in $PENDING; do
	mkdir -p "$OUT/pending"
	mv "$OUT/$f.dat" "$OUT/pending/"
done
