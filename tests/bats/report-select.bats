#!/usr/bin/env bats
# ktrace report's selection language (lib/decode/select.c) beyond the
# text: --stat of a selection, counted by hand from the lines trace-cmd
# and report print; and -o OUT.dat, the selected events as a trace.dat (of
# the input's version, or --file-version/--compression's) that trace-cmd
# reads back line for line.  On the stored corpus
# (tests/data), so nothing is recorded here (record runs only to refuse
# a misspelt event, as report does).

load helpers

# libtraceevent leaks inside tep_parse_event() on formats it half parses.
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan-libtraceevent.supp

DATA=$TOP/tests/data
LOST=$DATA/tc-v7-lost.dat

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Sum of the counted "[N EVENTS DROPPED]" marks in report text on stdin,
# "+" after it when some mark has no count.
drops() {
	awk '/EVENTS DROPPED\]/ { if (match($0, /\[[0-9]+ /)) n += substr($0, RSTART + 1, RLENGTH - 2); else u = 1 }
	     END { printf "%d%s\n", n, u ? "+" : "" }'
}

@test "--stat without a selection prints no selection lines" {
	run "$KTRACE" report -i "$LOST" --stat
	assert_success
	refute_line --partial "selection:"
	refute_line --partial "losses:"
	assert_line --partial "16480+ events lost on 2 CPUs"
}

@test "--stat -e --cpu: the counts of the selected events, the losses of the selected CPU" {
	local n lost
	# By hand, from trace-cmd: CPU 1's sched_switch lines and its marks.
	trace-cmd report -i "$LOST" 2>/dev/null >tc.txt
	n=$(grep -c '\[001\] .* sched_switch:' tc.txt)
	lost=$(grep 'CPU:1 ' tc.txt | drops)
	[ "$n" -gt 10 ] && [ "$lost" = 4753+ ]
	run "$KTRACE" report -i "$LOST" --stat -e sched_switch --cpu 1
	assert_success
	assert_line "selection: -e sched_switch --cpu 1"
	assert_line "losses: those of the CPUs shown, over the whole recording"
	assert_line --partial "a lost event has no name"
	# One CPU row: events, and the marks' loss beside the record-time stats.
	assert_line --regexp "^kt-corpus-[0-9-]+ +1 +$n +[0-9]+ +${lost%+}\\+ +7507 +0 +0\$"
	refute_line --regexp "^kt-corpus-[0-9-]+ +0 "
	assert_line --regexp "^sched:sched_switch +$n +$n "
	refute_line --regexp "^kmem:"
	# Overrun 7507 is more than the marks count: the verdict takes it.
	assert_line --partial "7507+ events lost on CPU 1"
}

@test "--stat --from --to: the marks inside the window count, and it says so" {
	local n lost sel=(--from 0.05 --to 0.075)
	"$KTRACE" report -i "$LOST" "${sel[@]}" >all.txt
	n=$(grep -c ' sched_switch:' all.txt)
	lost=$(drops <all.txt)
	[ "$n" -gt 10 ] && [ "$lost" = 1495+ ]
	run "$KTRACE" report -i "$LOST" --stat "${sel[@]}"
	assert_success
	assert_line "selection: --from 0.05 --to 0.075"
	# The first event plus 50 and 75 ms, rounded to the microsecond as
	# report rounds times.
	assert_line --regexp "^window: 3137\.709707 to 3137\.734707\$"
	assert_line --partial "losses: the lost-event marks inside the window"
	assert_line "lost-event marks in the window:"
	assert_line --regexp "^sched:sched_switch +$n "
	assert_line --partial "$lost events lost in the window on 2 CPUs"
	# The same selection as JSON; every count adds up to the text's lines.
	run "$KTRACE" report -i "$LOST" --stat "${sel[@]}" --format json
	assert_success
	echo "$output" | jq -e --argjson n "$n" --argjson all "$(grep -vc 'EVENTS DROPPED' all.txt)" '
		.selection == "--from 0.05 --to 0.075" and .losses == "window marks" and
		.lost == 1495 and
		([.events[] | select(.event == "sched_switch") | .total] == [$n]) and
		([.events[].total] | add) == $all and ([.cpus[].events] | add) == $all'
}

@test "--stat of a window with no loss in it says no events were lost there" {
	run "$KTRACE" report -i "$LOST" --stat --from 0.075
	assert_success
	"$KTRACE" report -i "$LOST" --from 0.075 | drops | grep -qx 0
	assert_line "no events lost in the window"
}

@test "--stat refuses a bad selection as report does" {
	run "$KTRACE" report -i "$LOST" --stat --from 1x
	[ "$status" = 64 ]
	assert_output --partial "bad --from '1x'"
	run "$KTRACE" report -i "$LOST" --stat -e sched_swich
	assert_failure 1
	assert_output --partial "did you mean 'sched:sched_switch'"
	run "$KTRACE" report -i "$LOST" --stat --head 3
	[ "$status" = 64 ]
}

# The "did you mean" of a message on stdin: what follows "; ".
hint() {
	sed -n "s/^ktrace [a-z]*: [^;]*; //p"
}

@test "-e: a typo gets the same suggestions from record (live) as from report and analyze on a file" {
	local f=$DATA/tc-kinds.dat typo want live
	# An event, an event and a classic alias, an alias alone: the file
	# holds sched:sched_switch, irq:softirq_exit and kmem:mm_page_alloc.
	for typo in sched_swich softirq_exi page_aloc; do
		case $typo in
		sched_swich) want="did you mean 'sched:sched_switch'?" ;;
		softirq_exi) want="did you mean 'irq:softirq_exit' or 'softirq_exit'?" ;;
		page_aloc) want="did you mean 'page_alloc'?" ;;
		esac
		live=$("$KTRACE" record -q -e "$typo" -o r.dat -- true 2>&1 | hint)
		[ ! -e r.dat ]
		[ "$live" = "$want" ] || fail "record -e $typo: '$live', not '$want'"
		run "$KTRACE" report -i "$f" -e "$typo"
		assert_failure 1
		assert_output "ktrace report: no event '$typo' in the file; $want"
		run "$KTRACE" report -i "$f" --stat -e "$typo"
		assert_failure 1
		assert_output "ktrace report: no event '$typo' in the file; $want"
		run "$KTRACE" analyze sched -i "$f" -e "$typo"
		assert_failure 1
		assert_output "ktrace analyze: no event '$typo' in the file; $want"
	done
}

@test "the one resolver (lib/base/evspec.c): its grammar and suggestions on a made-up catalog" {
	local cat='sched sched_switch
sched sched_wakeup
foo sched_switch
irq softirq_exit
irq irq_handler_entry
ktrace syscall_entry
foo syscall_entry
raw_syscalls sys_enter'
	run "$UNIT/evspec-check" sched_switch syscall_entry 'sched:' '*wake*' irq \
		irq_entry sched_schedule 'ktrace:*' softirq_exi sys_entr page_aloc \
		'nope*' x:y <<<"$cat
prefer ktrace"
	assert_success
	assert_output "sched_switch: EEXIST
syscall_entry: ktrace:syscall_entry
sched:: sched:sched_switch sched:sched_wakeup
*wake*: sched:sched_wakeup
irq: irq:irq_handler_entry irq:softirq_exit
irq_entry: irq:irq_handler_entry
sched_schedule: sched:sched_switch
ktrace:*: ktrace:syscall_entry
softirq_exi: ENOENT; did you mean 'irq:softirq_exit' or 'softirq_exit'?
sys_entr: ENOENT; did you mean 'raw_syscalls:sys_enter'?
page_aloc: ENOENT
nope*: ENOENT
x:y: ENOENT"
	# No preferred system: a bare name in two systems is ambiguous, or
	# (a recording's rule) both.
	run "$UNIT/evspec-check" syscall_entry <<<"$cat"
	assert_output "syscall_entry: EEXIST"
	run "$UNIT/evspec-check" -a syscall_entry sched_switch <<<"$cat"
	assert_output "syscall_entry: foo:syscall_entry ktrace:syscall_entry
sched_switch: foo:sched_switch sched:sched_switch"
}

@test "-e on a file: one grammar with record's; an alias whose event the file lacks is no suggestion" {
	# "system:" is the whole system, as on the running kernel.
	cmp <("$KTRACE" report -i "$DATA/tc-kinds.dat" -e 'sched:') \
	    <("$KTRACE" report -i "$DATA/tc-kinds.dat" -e 'sched:*')
	# A classic name, and ktrace.ko's name of it in a file without the module.
	"$KTRACE" report -i "$DATA/tc-kinds.dat" -e sched_switch >modern.txt
	[ -s modern.txt ]
	"$KTRACE" report -i "$DATA/tc-kinds.dat" -e sched_schedule | cmp modern.txt -
	"$KTRACE" report -i "$DATA/tc-kinds.dat" -e ktrace:sched_schedule | cmp modern.txt -
	# tc-kinds.dat has no syscalls: 'syscall_entry' is not offered for it.
	run "$KTRACE" report -i "$DATA/tc-kinds.dat" -e syscall_entr
	assert_failure 1
	assert_output "ktrace report: no event 'syscall_entr' in the file; see the events it holds with 'ktrace report --stat'"
}

# -o OUT.dat: the selection as a trace.dat.  trace-cmd report of the new
# file prints what ktrace report prints of the old one with the same
# selection (trace-cmd's first line aside), and so does ktrace report.
# SPLIT_FORMAT: --file-version/--compression for the -o run.
same_split() { # IN.dat SELECTION...
	local in=$1 out=$BATS_TEST_TMPDIR/out.dat
	shift
	rm -f "$out"
	"$KTRACE" report -i "$in" "$@" -o "$out" $SPLIT_FORMAT || { echo "-o: status $? for $in $*" >&2; return 1; }
	"$KTRACE" report -i "$in" "$@" >want.txt
	[ -s want.txt ] || { echo "empty selection: $in $*" >&2; return 1; }
	trace-cmd report -i "$out" >tc.txt 2>tc.err || { echo "trace-cmd: status $?: $(head -3 tc.err)" >&2; return 1; }
	tail -n +2 tc.txt >tc.body
	cmp -s want.txt tc.body || { diff want.txt tc.body | head -10 >&2; echo "trace-cmd differs: $in $*" >&2; return 1; }
	"$KTRACE" report -i "$out" >kt.txt
	cmp -s want.txt kt.txt || { diff want.txt kt.txt | head -10 >&2; echo "ktrace differs: $in $*" >&2; return 1; }
	# The formats, kallsyms and printk formats are the input's, as they
	# were.  (trace-cmd 3.1 prints no --events of a v7 file: of v7
	# input, those of its trace-cmd convert to v6; trace-cmd here has no
	# zlib: a *-zlib.dat file's are its *-zstd.dat twin's.)
	local ev=$in src=${in%-zlib.dat}
	[ "$src" = "$in" ] || src=$src-zstd.dat
	if [ -z "$(trace-cmd report -i "$src" --events 2>/dev/null | head -c 1)" ]; then
		ev=$BATS_TEST_TMPDIR/conv6.dat
		trace-cmd convert --file-version 6 --compression none -i "$src" -o "$ev" >/dev/null 2>&1
	fi
	# A v7 output's too (the same trace-cmd convert).
	local evout=$out
	if [ "$(head -c 11 "$out" | tail -c 1)" = 7 ]; then
		evout=$BATS_TEST_TMPDIR/out6.dat
		trace-cmd convert --file-version 6 --compression none -i "$out" -o "$evout" >/dev/null 2>&1
	fi
	[ "$(trace-cmd report -i "$evout" --events 2>/dev/null | md5sum)" = \
	  "$(trace-cmd report -i "$ev" --events 2>/dev/null | md5sum)" ] ||
		{ echo "the formats differ: $in $*" >&2; return 1; }
	echo "$(wc -l <want.txt) lines: $in $*"
}

@test "-o OUT.dat without a selection: the whole file, as trace-cmd reads the input" {
	local f
	for f in tc-sched tc-kinds tc-stack tc-ustack tc-print tc-multi tc-syscalls \
		 tc-clock-mono tc-clock-uptime tc-date kt-sched kt-kinds; do
		same_split "$DATA/$f.dat"
	done
	# The CPU count, clock and record-time stats are kept.
	"$KTRACE" report -i "$DATA/tc-clock-mono.dat" -o m.dat
	run "$KTRACE" report --stat -i m.dat
	assert_line --regexp "^file: m\.dat \(trace\.dat v6, compression none, 2 CPUs, clock mono\)\$"
	diff <("$KTRACE" report --stat -i "$DATA/tc-clock-mono.dat" | tail -n +2) \
	     <("$KTRACE" report --stat -i m.dat | tail -n +2)
}

@test "-o OUT.dat with -e, --cpu, --from/--to, --pid, --comm, -F: the selected lines, repacked" {
	local pid
	same_split "$DATA/tc-kinds.dat" -e sched_switch
	same_split "$DATA/tc-kinds.dat" -e 'kmem:*' -e irq
	same_split "$DATA/tc-kinds.dat" --cpu 1
	same_split "$DATA/tc-kinds.dat" --from 0.01 --to 0.02
	same_split "$DATA/tc-multi.dat" --cpu 0 -e 'sched:*'
	same_split "$DATA/tc-stack.dat" --comm 'dd*'
	same_split "$DATA/tc-syscalls.dat" -F 'sys_exit_read: ret > 0'
	pid=$("$KTRACE" report -i "$DATA/kt-sched.dat" --format json | jq -r 'select(.pid > 0) | .pid' | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	same_split "$DATA/kt-sched.dat" --pid "$pid"
	# --format dat says the same of any name.
	"$KTRACE" report -i "$DATA/tc-sched.dat" -e sched_switch --format dat -o s.trace
	trace-cmd report -i s.trace 2>/dev/null | tail -n +2 >s.txt
	"$KTRACE" report -i "$DATA/tc-sched.dat" -e sched_switch | cmp - s.txt
}

@test "-o OUT.dat: deltas past 27 bits become time extends in the repacked pages" {
	local gap
	# The fork/exec/exit events of tc-sched: on some CPU two in a row
	# lie more than 2^27 ns apart, and a CPU's few records share one
	# fresh page, so the second needs a time extend before it.
	gap=$("$KTRACE" report -i "$DATA/tc-sched.dat" -e 'sched_process_*' --format json |
		jq -s '[group_by(.cpu)[] | [.[].ts] | [range(1; length) as $i | .[$i] - .[$i - 1]] | max // 0] | max')
	[ "$gap" -gt 134217728 ]
	same_split "$DATA/tc-sched.dat" -e 'sched_process_*'
	same_split "$DATA/tc-sched.dat" -e 'sched_wakeup*'
}

@test "-o OUT.dat of a file with losses keeps the drop marks of the window; --stat shows them" {
	trace-cmd convert --file-version 6 --compression none -i "$LOST" -o lost6.dat >/dev/null 2>&1
	"$KTRACE" report -i lost6.dat | cmp - <("$KTRACE" report -i "$LOST")
	same_split lost6.dat
	same_split lost6.dat --from 0.05 --to 0.075
	same_split lost6.dat --cpu 1
	# The window's marks, the same loss in the new file's --stat.
	"$KTRACE" report -i lost6.dat --from 0.05 --to 0.075 -o w.dat
	"$KTRACE" report -i w.dat | drops | grep -qx 1495+
	run "$KTRACE" report --stat -i w.dat
	assert_success
	assert_line --partial "1495+ events lost on 2 CPUs"
	assert_line --regexp "^kt-corpus-[0-9-]+ +1 +[0-9]+ +[0-9]+ +790\+ +790 +0 +0\$"
	# Without a window the record-time stats are the input's.
	"$KTRACE" report -i lost6.dat --cpu 1 -o c.dat
	run "$KTRACE" report --stat -i c.dat
	assert_line --regexp "^kt-corpus-[0-9-]+ +1 +2139 +[0-9]+ +4753\+ +7507 +0 +0\$"
	# CPU 0 keeps its place in the CPU count, with nothing in it.
	assert_line --regexp "^kt-corpus-[0-9-]+ +0 +0 +0 +0 +- +- +-"
}

@test "-o OUT.dat from v7 input, zstd, zlib or none, instances too: a v7 file as the input's, or v6, that trace-cmd reads the same" {
	local f
	# The input's version and compression (trace-cmd here has no zlib:
	# the zlib input's output is zstd for it).
	for f in tc-v7-none tc-v7-zstd tc-v7-multi tc-v7-print tc-v7-stack tc-v7-lost; do
		same_split "$DATA/$f.dat"
		[ "$(head -c 11 out.dat | tail -c 1)" = 7 ] || fail "$f: not v7"
		"$KTRACE" stat -i "$DATA/$f.dat" | head -n 1 | sed 's/^file: [^ ]* //' >in.h
		"$KTRACE" stat -i out.dat | head -n 1 | sed 's/^file: [^ ]* //' | cmp - in.h
	done
	SPLIT_FORMAT="--compression zstd" same_split "$DATA/tc-v7-zlib.dat"
	"$KTRACE" report -i "$DATA/tc-v7-zlib.dat" -o z.dat
	"$KTRACE" stat -i z.dat | grep -q "trace.dat v7, compression zlib"
	cmp <("$KTRACE" report -i z.dat) <("$KTRACE" report -i "$DATA/tc-v7-zlib.dat")
	# v6 on request: the same text, a v6 file.
	for f in tc-v7-none tc-v7-zlib tc-v7-multi tc-v7-lost; do
		SPLIT_FORMAT="--file-version 6" same_split "$DATA/$f.dat"
		[ "$(head -c 11 out.dat | tail -c 1)" = 6 ] || fail "$f: not v6"
	done
	same_split "$LOST" --from 0.05 --to 0.075
	same_split "$LOST" --cpu 1
	same_split "$DATA/tc-v7-multi.dat" --cpu 0
	# What v6 and v7 hold alike: the same text from the same data.
	"$KTRACE" report -i "$LOST" -o v6.dat --file-version 6
	trace-cmd convert --file-version 6 --compression none -i "$LOST" -o lost6.dat >/dev/null 2>&1
	"$KTRACE" report -i lost6.dat -o v6b.dat
	cmp <("$KTRACE" report -i v6.dat) <("$KTRACE" report -i v6b.dat)
	cmp <("$KTRACE" report --stat -i v6.dat | tail -n +2) <("$KTRACE" report --stat -i v6b.dat | tail -n +2)
}

@test "-o OUT.dat --file-version 7 of v6 input, instances too, zstd or none: trace-cmd reads the same; bad values refused" {
	local f
	for f in tc-sched tc-multi tc-kinds kt-sched; do
		SPLIT_FORMAT="--file-version 7" same_split "$DATA/$f.dat"
		"$KTRACE" stat -i out.dat | grep -q "trace.dat v7, compression zstd" || fail "$f: not v7 zstd"
		SPLIT_FORMAT="--file-version 7 --compression none" same_split "$DATA/$f.dat" -e 'sched:*'
		"$KTRACE" stat -i out.dat | grep -q "trace.dat v7, compression none" || fail "$f: not v7 none"
	done
	# A compression alone means v7; none alone keeps v6.
	"$KTRACE" report -i "$DATA/tc-sched.dat" -o z.dat --compression zstd
	"$KTRACE" stat -i z.dat | grep -q "trace.dat v7, compression zstd"
	"$KTRACE" report -i "$DATA/tc-sched.dat" -o n.dat --compression none
	[ "$(head -c 11 n.dat | tail -c 1)" = 6 ]
	run "$KTRACE" report -i "$DATA/tc-sched.dat" -o x.dat --file-version 5
	assert_failure 64
	assert_line --index 0 "ktrace report: bad file version '5'; use 6 or 7"
	run "$KTRACE" report -i "$DATA/tc-sched.dat" -o x.dat --file-version 6 --compression zstd
	assert_failure 64
	assert_line --index 0 "ktrace report: --file-version 6 has no compression; use --file-version 7 for --compression zstd, or drop --compression"
	run "$KTRACE" report -i "$DATA/tc-sched.dat" --compression lz4 -o x.dat
	assert_failure 64
	assert_line --index 0 "ktrace report: unknown compression 'lz4'; use zstd, zlib or none"
	run "$KTRACE" report -i "$DATA/tc-sched.dat" --file-version 7
	assert_failure 64
	assert_line --index 0 "ktrace report: --file-version and --compression are for a trace.dat output; give it with -o OUT.dat"
	[ ! -e x.dat ]
}

@test "-o OUT.dat: an unwritable place or a full disk leaves no file and one line, v7 with instances too" {
	tmpfs_at mnt 1M
	mount -o remount,ro mnt
	run "$KTRACE" report -i "$DATA/tc-sched.dat" -o mnt/x.dat
	umount mnt
	assert_failure 1
	assert_output "ktrace report: cannot create 'mnt/x.dat': Read-only file system; try -o in a writable directory"
	tmpfs_at mnt 64k
	run "$KTRACE" report -i "$DATA/tc-kinds.dat" -o mnt/x.dat
	local left=$(ls -A mnt)
	umount mnt
	assert_failure 1
	[ "${#lines[@]}" = 1 ]
	assert_output --partial "cannot write 'mnt/x.dat': No space left on device"
	[ -z "$left" ] || fail "left behind: $left"
	# v7 with an instance (chained options sections): whichever write
	# the disk refuses, one line and no file; with room, trace-cmd reads it.
	local size
	for size in 4k 8k 12k 16k 20k; do
		tmpfs_at mnt "$size"
		run "$KTRACE" report -i "$DATA/tc-v7-multi.dat" -o mnt/x.dat
		left=$(ls -A mnt)
		umount mnt
		assert_failure 1
		[ "${#lines[@]}" = 1 ] || fail "$size: ${#lines[@]} lines: $output"
		assert_output --partial "cannot write 'mnt/x.dat': No space left on device"
		[ -z "$left" ] || fail "$size: left behind: $left"
	done
	tmpfs_at mnt 64k
	"$KTRACE" report -i "$DATA/tc-v7-multi.dat" -o mnt/x.dat
	cmp <(trace-cmd report mnt/x.dat 2>/dev/null | tail -n +2) \
		<(trace-cmd report "$DATA/tc-v7-multi.dat" 2>/dev/null | tail -n +2) ||
		{ umount mnt; fail "the v7 copy with room reads differently"; }
	umount mnt
	run "$KTRACE" report -i "$LOST" --format dat
	[ "$status" = 64 ]
	run "$KTRACE" report -i "$DATA/tc-sched.dat" -o x.dat --format dat --raw
	[ "$status" = 64 ]
	# Another format asked for writes its text, whatever the name.
	"$KTRACE" report -i "$DATA/tc-sched.dat" -o x.dat --raw
	"$KTRACE" report -i "$DATA/tc-sched.dat" --raw | cmp - x.dat
}
