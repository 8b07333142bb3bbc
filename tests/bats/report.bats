#!/usr/bin/env bats
# ktrace report: trace-cmd is the oracle.  Files are recorded at test time
# by trace-cmd (with a shim for the function-tracer files this machine
# refuses) into a private instance; `ktrace report` must print what
# `trace-cmd report` prints, line for line, and must survive damage.

load helpers

# libtraceevent leaks inside tep_parse_event() on formats it half parses;
# that is its leak, not ours, and must not fail the ASan run.
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan-libtraceevent.supp

EVENTS=(-e sched -e irq -e timer -e kmem -e syscalls -e block -e writeback
	-e net -e skb -e sock)

# tc_record OUT [trace-cmd record options...]: record the workload with
# trace-cmd into a private instance (the top-level buffer is left alone).
tc_record() {
	local out=$1 inst try
	shift
	# trace-cmd 3.1 sometimes writes a saved-cmdlines size that does not
	# match the text it wrote (the kernel's list changes while it reads,
	# more often on a loaded machine); then its own report reads nothing.
	# Such a file is no oracle: record again.
	for try in 1 2 3; do
		inst="kt-test-$$-rec$((++TC_N))"
		# Options after -B (like -b) apply to the instance, not the top.
		LD_PRELOAD=$RD/tc-shim.so trace-cmd record -B "$inst" "$@" "${EVENTS[@]}" \
			-o "$out" -- "$TOP/tests/data/workload.sh" "$RD" >"$RD/tc.log" 2>&1 ||
			{ cat "$RD/tc.log" >&2; return 1; }
		[ -s "$out" ] || return 1
		[ "$(trace-cmd report "$out" 2>/dev/null | head -n 3 | wc -l)" -ge 3 ] &&
			return 0
		echo "# trace-cmd cannot read back its own $out (try $try); recording again" >&3
	done
	return 1
}

setup_file() {
	export RD=$BATS_FILE_TMPDIR
	TC_N=0
	cc -O2 -shared -fPIC -o "$RD/tc-shim.so" "$TOP/tests/tc-shim.c" -ldl
	tc_record "$RD/v7.dat"			# trace-cmd 3.x default: v7, zstd
	tc_record "$RD/v6.dat" --file-version 6
	tc_record "$RD/v7n.dat" --compression none
	# A small buffer under heavy events: lost-event marks in the data.
	# Whether trace-cmd's readers fall behind depends on the machine's
	# load (a quiet one may keep up): recorded again until they did, so
	# that the tests of the marks have marks to compare.
	EVENTS=(-e kmem -e syscalls -e sched)
	local try
	for try in 1 2 3 4 5 6; do
		tc_record "$RD/lost.dat" -b 8
		trace-cmd report "$RD/lost.dat" 2>/dev/null | grep -q 'EVENTS DROPPED\]$' && break
		echo "# trace-cmd lost no events with -b 8 (try $try); recording again" >&3
	done
	# Small files for damage and fuzzing.
	EVENTS=(-e sched -e irq -e syscalls:sys_enter_openat)
	tc_record "$RD/small.dat"
	tc_record "$RD/small6.dat" --file-version 6
	# Two instances in one file.
	local a="kt-test-$$-a" b="kt-test-$$-b"
	echo "$a $b" >"$RD/multi.names"
	LD_PRELOAD=$RD/tc-shim.so trace-cmd record -B "$a" -e sched_switch \
		-B "$b" -e irq -e sched_wakeup -o "$RD/multi.dat" -- \
		"$TOP/tests/data/workload.sh" "$RD" >"$RD/tc.log" 2>&1
	# trace-cmd here has no zlib: repack the zstd file with zlib.
	kt_tool dat-zlib "$RD" -lz -lzstd
	"$RD/dat-zlib" "$RD/v7.dat" "$RD/v7z.dat"
	# kallsyms-check and rawpage-check.
	kt_build_units
	for f in v7 v6 v7n lost small small6 multi; do
		trace-cmd report "$RD/$f.dat" 2>/dev/null | tail -n +2 >"$RD/$f.tc"
	done
	export TC_N
}

teardown_file() {
	kt_cleanup_instances
}

# cmp, showing the first differences when they differ.
same_file() {
	cmp -s "$1" "$2" && return 0
	diff -u "$1" "$2" | head -n 30
	return 1
}

# The lines of a report without the instance column ("name: ").
unprefixed() {
	sed -E 's/^kt-test-[0-9]+-rec[0-9]+: //' "$@"
}

# Must equal trace-cmd report FILE with the same options, header aside.
same_as_tc() { # FILE KTRACE-OPTS... -- TRACE-CMD-OPTS...
	local f=$1 k=() t=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do k+=("$1"); shift; done
	shift
	t=("$@")
	"$KTRACE" report -i "$f" "${k[@]}" >"$RD/k.out"
	trace-cmd report "${t[@]}" "$f" 2>/dev/null | tail -n +2 >"$RD/t.out"
	[ -s "$RD/t.out" ] || fail "trace-cmd printed nothing for $f"
	diff -u "$RD/t.out" "$RD/k.out" | head -20 >&2
	cmp -s "$RD/t.out" "$RD/k.out"
}

@test "v7 zstd file: same text as trace-cmd report, line for line" {
	run "$KTRACE" report -i "$RD/v7.dat" -o "$RD/v7.out"
	assert_success
	[ "$(wc -l <"$RD/v7.tc")" -gt 1000 ]
	same_file "$RD/v7.tc" "$RD/v7.out"
	# The file really is compressed v7 and has the kinds of events asked.
	[ "$(head -c 11 "$RD/v7.dat" | tail -c 1)" = 7 ]
	for e in sched_switch irq_handler_entry hrtimer_start kmalloc sys_enter_openat \
		 block_rq_issue writeback_dirty_folio net_dev_queue; do
		grep -q " $e: " "$RD/v7.out" || fail "no $e in the report"
	done
}

@test "a file ktrace record wrote, with many kinds of events: same text as trace-cmd report" {
	"$KTRACE" record -q -o "$RD/kt.dat" -e sched -e irq -e timer -e kmem \
		-e syscalls -e block -e writeback -e net -e skb -e sock \
		-e ftrace:print -- "$TOP/tests/data/workload.sh" "$RD" >/dev/null
	# ktrace record's default: v7, zstd, as trace-cmd's.
	[ "$(head -c 11 "$RD/kt.dat" | tail -c 1)" = 7 ] || fail "not a v7 file"
	"$KTRACE" stat -i "$RD/kt.dat" | grep -q "trace.dat v7, compression zstd" ||
		fail "not zstd: $("$KTRACE" stat -i "$RD/kt.dat" | head -n 1)"
	trace-cmd report "$RD/kt.dat" 2>/dev/null | tail -n +2 >"$RD/kt.tc"
	[ "$(wc -l <"$RD/kt.tc")" -gt 1000 ] || fail "trace-cmd read $(wc -l <"$RD/kt.tc") lines"
	"$KTRACE" report -i "$RD/kt.dat" >"$RD/kt.out"
	same_file "$RD/kt.tc" "$RD/kt.out"
	for e in sched_switch hrtimer_start kmalloc sys_enter_openat; do
		grep -q " $e: " "$RD/kt.out" || fail "no $e in the report"
	done
	# The same recording as v6 (report -o --file-version 6): trace-cmd
	# prints the same text for both, its header line too, and so does ktrace.
	"$KTRACE" report -i "$RD/kt.dat" -o "$RD/kt6.dat" --file-version 6
	[ "$(head -c 11 "$RD/kt6.dat" | tail -c 1)" = 6 ]
	same_file <(trace-cmd report "$RD/kt.dat" 2>/dev/null) \
		<(trace-cmd report "$RD/kt6.dat" 2>/dev/null)
	"$KTRACE" report -i "$RD/kt6.dat" >"$RD/kt6.out"
	same_file "$RD/kt.out" "$RD/kt6.out"
}

# ktrace record -o FILE with OPTS..., the workload, the events of many kinds.
kt_record_as() { # FILE OPTS...
	local f=$1
	shift
	"$KTRACE" record -q -o "$f" "$@" -e sched -e irq -e timer -e kmem \
		-e syscalls -e block -e ftrace:print -- \
		"$TOP/tests/data/workload.sh" "$RD" >/dev/null
}

@test "ktrace record --file-version 6, --compression none and zlib: trace-cmd and ktrace print the same text as for v6" {
	local f
	for f in "v6 --file-version 6" "none --compression none" "zlib --compression zlib"; do
		set -- $f
		kt_record_as "$RD/kt-$1.dat" "${@:2}"
		"$KTRACE" report -i "$RD/kt-$1.dat" >"$RD/kt-$1.out"
		[ "$(wc -l <"$RD/kt-$1.out")" -gt 1000 ] || fail "$1: $(wc -l <"$RD/kt-$1.out") lines"
		# The same recording as v6 (report -o): the same text.
		"$KTRACE" report -i "$RD/kt-$1.dat" -o "$RD/kt-$1-6.dat" --file-version 6
		"$KTRACE" report -i "$RD/kt-$1-6.dat" >"$RD/kt-$1-6.out"
		same_file "$RD/kt-$1.out" "$RD/kt-$1-6.out" || fail "$1: ktrace's text differs from v6's"
		trace-cmd report "$RD/kt-$1-6.dat" 2>/dev/null | tail -n +2 >"$RD/kt-$1.tc"
		same_file "$RD/kt-$1.tc" "$RD/kt-$1.out" || fail "$1: trace-cmd's text of v6 differs"
		# trace-cmd here has no zlib (trace-cmd list -c): the others it reads.
		if [ "$1" != zlib ] || trace-cmd list -c 2>/dev/null | grep -q zlib; then
			same_file <(trace-cmd report "$RD/kt-$1.dat" 2>/dev/null) \
				<(trace-cmd report "$RD/kt-$1-6.dat" 2>/dev/null) ||
				fail "$1: trace-cmd prints another text than for v6"
		fi
	done
	[ "$(head -c 11 "$RD/kt-v6.dat" | tail -c 1)" = 6 ]
	"$KTRACE" stat -i "$RD/kt-none.dat" | grep -q "trace.dat v7, compression none"
	"$KTRACE" stat -i "$RD/kt-zlib.dat" | grep -q "trace.dat v7, compression zlib"
}

@test "v6 file: same text as trace-cmd report" {
	[ "$(head -c 11 "$RD/v6.dat" | tail -c 1)" = 6 ]
	"$KTRACE" report -i "$RD/v6.dat" >"$RD/v6.out" 2>"$RD/v6.err" ||
		fail "status $?: $(cat "$RD/v6.err")"
	same_file "$RD/v6.tc" "$RD/v6.out"
}

@test "v7 uncompressed file: same text as trace-cmd report" {
	run "$KTRACE" report -i "$RD/v7n.dat" --stat
	assert_output --partial "compression none"
	"$KTRACE" report -i "$RD/v7n.dat" >"$RD/v7n.out"
	same_file "$RD/v7n.tc" "$RD/v7n.out"
}

@test "v7 zlib file: the same text as trace-cmd prints for the zstd original" {
	run "$KTRACE" report -i "$RD/v7z.dat" --stat
	assert_output --partial "compression zlib"
	"$KTRACE" report -i "$RD/v7z.dat" >"$RD/v7z.out"
	same_file "$RD/v7.tc" "$RD/v7z.out"
	# Cut inside its packed data: the head is still printed, exit 2.
	size=$(stat -c %s "$RD/v7z.dat")
	head -c $((size * 3 / 4)) "$RD/v7z.dat" >"$RD/t.dat"
	run "$KTRACE" report -i "$RD/t.dat"
	assert_failure 2
}

@test "lost events: the same CPU:N [N EVENTS DROPPED] marks as trace-cmd" {
	"$KTRACE" report -i "$RD/lost.dat" >"$RD/lost.out"
	same_file "$RD/lost.tc" "$RD/lost.out"
	# A page that had no room for the count says only that events were
	# lost: trace-cmd prints "[EVENTS DROPPED]" for it, without a number.
	grep -Eq '^(kt-test-[0-9]+-rec[0-9]+: )?CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]$' "$RD/lost.out"
}

@test "instances: every buffer, named in a column, as trace-cmd" {
	"$KTRACE" report -i "$RD/multi.dat" >"$RD/multi.out"
	same_file "$RD/multi.tc" "$RD/multi.out"
	read -r a b <"$RD/multi.names"
	grep -q "^$a: " "$RD/multi.out"
	grep -q "^$b: " "$RD/multi.out"
}

@test "-t prints nanoseconds as trace-cmd report -t" {
	same_as_tc "$RD/small.dat" -t -- -t
	grep -Eq '\] +[0-9]+\.[0-9]{9}: ' "$RD/k.out"
}

@test "--raw prints field=value as trace-cmd report -R" {
	same_as_tc "$RD/v7.dat" --raw -- -R
	grep -q ' sched_switch: .*prev_comm=.*next_pid=' "$RD/k.out"
}

# What a selection of v7.dat must print: trace-cmd's lines that match,
# and every lost-events mark (a selection never hides a loss).
want() {
	grep -E -- "$1|EVENTS DROPPED\]\$" "$RD/v7.tc"
}

# trace-cmd 3.1 ignores --cpu and -F for instance buffers (it prints
# nothing), and these files hold an instance: the oracle for selection
# is trace-cmd's full report, filtered here.
@test "--cpu selects CPUs" {
	"$KTRACE" report -i "$RD/v7.dat" --cpu 1 >"$RD/k.out"
	grep -E '\[001\] |CPU:1 \[.*DROPPED\]$' "$RD/v7.tc" | cmp - "$RD/k.out"
	[ -s "$RD/k.out" ]
	"$KTRACE" report -i "$RD/v7.dat" --cpu 0-1 | cmp - "$RD/v7.tc"
	"$KTRACE" report -i "$RD/v7.dat" --cpu 0,1 | cmp - "$RD/v7.tc"
}

@test "-e selects events by name, system:name, system and glob" {
	"$KTRACE" report -i "$RD/v7.dat" -e sched_switch >"$RD/k.out"
	want ' sched_switch: ' | cmp - "$RD/k.out"
	# Every event of the irq system this kernel has: the rare ones too
	# (tasklet_entry fires now and then; a fixed list made this flaky).
	local irq
	irq=$(ls "$TRACEFS/events/irq" | grep -vx -e enable -e filter | paste -sd '|')
	[[ $irq == *softirq_raise* ]]
	"$KTRACE" report -i "$RD/v7.dat" -e 'irq:*' -e sched:sched_wakeup >"$RD/k.out"
	want " ($irq|sched_wakeup): " | cmp - "$RD/k.out"
	"$KTRACE" report -i "$RD/v7.dat" -e irq >"$RD/k.out"
	want " ($irq): " | cmp - "$RD/k.out"
	[ -s "$RD/k.out" ]
}

@test "-e, --pid and --cpu learn comms from the records they leave out, as trace-cmd's full text does: a task named only by its sched_wakeup_new" {
	# trace-cmd formats every record, and the sched plugin registers the
	# comms a switch or a wakeup names.  A task whose switch-in was
	# dropped (this host drops some) and whose pid is not in the saved
	# cmdlines is named on its first line by its wakeup alone.  Made
	# here from tc-kinds.dat: ls (25925) without its switch-in, and its
	# saved cmdline moved to another pid (same length, v6 uncompressed).
	"$KTRACE" report -i "$TOP/tests/data/tc-kinds.dat" --format dat -o "$RD/cut.dat" \
		-F 'sched_switch: next_pid != 25925' -F 'sched_wakeup_new: pid != 0' \
		-F 'sched_wakeup: pid != 0'
	[ "$(LC_ALL=C grep -c -a '^25925 ls$' "$RD/cut.dat")" = 1 ]
	LC_ALL=C sed 's/^25925 ls$/25995 ls/' "$RD/cut.dat" >"$RD/nocomm.dat"
	trace-cmd report "$RD/nocomm.dat" 2>/dev/null | tail -n +2 >"$RD/nocomm.tc"
	# The oracle: the wakeup_new names it, and the first switch-out says so.
	grep -q ' bash-25925 \[000\] .* sched_switch: *bash:25925 ' "$RD/nocomm.tc"
	"$KTRACE" report -i "$RD/nocomm.dat" >"$RD/k.out"
	same_file "$RD/nocomm.tc" "$RD/k.out"
	"$KTRACE" report -i "$RD/nocomm.dat" -e sched_switch >"$RD/k.out"
	grep -E ' sched_switch: ' "$RD/nocomm.tc" >"$RD/want.out"
	same_file "$RD/want.out" "$RD/k.out"
	"$KTRACE" report -i "$RD/nocomm.dat" --pid 25925 >"$RD/k.out"
	grep -E -- '-25925 \[' "$RD/nocomm.tc" >"$RD/want.out"
	same_file "$RD/want.out" "$RD/k.out"
	# --cpu 1: the name comes from CPU 0's sched_wakeup_new.
	"$KTRACE" report -i "$RD/nocomm.dat" --cpu 1 >"$RD/k.out"
	grep -E ' \[001\] ' "$RD/nocomm.tc" >"$RD/want.out"
	grep -q ' bash-25925 \[001\] ' "$RD/want.out"
	same_file "$RD/want.out" "$RD/k.out"
}

@test "-F filters with libtraceevent syntax" {
	"$KTRACE" report -i "$RD/v7.dat" -F 'sched_switch: prev_comm == "workload.sh"' >"$RD/k.out"
	want ' sched_switch: +workload\.sh:[0-9]+ ' | cmp - "$RD/k.out"
	[ -s "$RD/k.out" ]
	"$KTRACE" report -i "$RD/v7.dat" -F 'sched_switch: prev_pid != 0 && next_pid != 0' >"$RD/k.out"
	want ' sched_switch: ' | grep -vE '( swapper/[0-9]+:0 \[)' | cmp - "$RD/k.out"
}

@test "--pid and --comm select tasks" {
	pid=$(grep -m1 ' sys_enter_openat: ' "$RD/v7.tc" | sed -E 's/^.{0,60}-([0-9]+) +\[[0-9]{3}\] .*/\1/')
	[ -n "$pid" ]
	"$KTRACE" report -i "$RD/v7.dat" --pid "$pid" >"$RD/pid.out"
	want "-$pid +\[[0-9]{3}\] " | cmp - "$RD/pid.out"
	"$KTRACE" report -i "$RD/v7.dat" --comm 'work*' -e sched_switch >"$RD/comm.out"
	[ -s "$RD/comm.out" ]
	unprefixed "$RD/comm.out" | grep -v 'EVENTS DROPPED\]$' | grep -v '^ *work[^ ]*-[0-9]' && return 1
	true
}

# The timestamp column of report lines (comms may hold spaces).
ts_col() {
	awk '{ if (match($0, /\[[0-9][0-9][0-9]\] +[0-9]+\.[0-9]+:/)) {
		t = substr($0, RSTART + 5, RLENGTH - 6); sub(/^ +/, "", t); print t
	} else print "-" }' "$@"
}

@test "--from and --to keep the events of a time window" {
	from=$(ts_col "$RD/v7.tc" | sed -n '100p')
	to=$(ts_col "$RD/v7.tc" | sed -n '400p')
	"$KTRACE" report -i "$RD/v7.dat" --from "@$from" --to "@$to" >"$RD/win.out"
	paste -d '\t' <(ts_col "$RD/v7.tc") "$RD/v7.tc" |
		awk -F '\t' -v a="$from" -v b="$to" '$1 != "-" && $1 + 0 >= a + 0 && $1 + 0 <= b + 0 { print $2 }' |
		grep -v 'EVENTS DROPPED\]$' >"$RD/win.want"
	[ "$(wc -l <"$RD/win.want")" -ge 301 ]
	grep -v 'EVENTS DROPPED\]$' "$RD/win.out" | cmp "$RD/win.want" -
	# Relative to the first event: 0 keeps everything.
	"$KTRACE" report -i "$RD/v7.dat" --from 0 >"$RD/all.out"
	cmp "$RD/v7.tc" "$RD/all.out"
	run "$KTRACE" report -i "$RD/v7.dat" --from yesterday
	assert_failure 64
}

@test "relative --from and --to are exact to the nanosecond; @T keeps its rounding" {
	"$KTRACE" report -i "$RD/v7.dat" --format json | jq -r 'select(.ts != null) | .ts' >"$RD/ts.all"
	first=$(head -n 1 "$RD/ts.all")
	# An event with no other event in the same nanosecond, mid-file.
	mid=$(awk 'NR > 100 && $1 != prev { print; exit } { prev = $1 }' "$RD/ts.all")
	d=$((mid - first))
	sec() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
	# count_ts OP VALUE: how many events have ts OP VALUE.
	count_ts() { awk -v v="$2" "\$1 $1 v" "$RD/ts.all" | wc -l; }
	for off in $((d - 1)) $d $((d + 1)); do
		got=$("$KTRACE" report -i "$RD/v7.dat" --from "$(sec "$off")" --format json | jq -r 'select(.ts != null) | .ts' | wc -l)
		[ "$got" -eq "$(count_ts '>=' $((first + off)))" ] || fail "--from $(sec "$off"): $got events"
		got=$("$KTRACE" report -i "$RD/v7.dat" --to "$(sec "$off")" --format json | jq -r 'select(.ts != null) | .ts' | wc -l)
		[ "$got" -eq "$(count_ts '<=' $((first + off)))" ] || fail "--to $(sec "$off"): $got events"
	done
	# Fewer digits are no coarser: an event less than half a microsecond
	# before a boundary given in microseconds stays out of --from and in
	# --to (the rounding meant for @T once took it in).
	near=$(awk -v f="$first" 'NR > 100 && ($1 - f) % 1000 >= 500 && $1 != prev { print; exit } { prev = $1 }' "$RD/ts.all")
	b=$(( (near - first) / 1000 + 1 ))
	bs=$(printf '%d.%06d' $((b / 1000000)) $((b % 1000000)))
	got=$("$KTRACE" report -i "$RD/v7.dat" --from "$bs" --format json | jq -r 'select(.ts != null) | .ts' | wc -l)
	[ "$got" -eq "$(count_ts '>=' $((first + b * 1000)))" ] || fail "--from $bs: $got events"
	got=$("$KTRACE" report -i "$RD/v7.dat" --to "$(printf '%d.%06d' $(((b - 1) / 1000000)) $(((b - 1) % 1000000)))" --format json | jq -r 'select(.ts != null) | .ts' | wc -l)
	[ "$got" -eq "$(count_ts '<=' $((first + (b - 1) * 1000)))" ] || fail "--to $((b - 1))us: $got events"
	# The same instant in ns: --from 2.0 is --from 2000000000ns.
	a=$("$KTRACE" report -i "$RD/v7.dat" --from "$(sec "$d")" | md5sum)
	b=$("$KTRACE" report -i "$RD/v7.dat" --from "${d}ns" | md5sum)
	[ "$a" = "$b" ]
	# @T as printed (microseconds) takes everything printed as T.
	# (printed rounded: libtraceevent adds half a microsecond).
	us=$(((mid + 500) / 1000))
	at=$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))
	lo=$((us * 1000 - 500)) hi=$((us * 1000 + 499))
	got=$("$KTRACE" report -i "$RD/v7.dat" --from "@$at" --to "@$at" --format json | jq -r 'select(.ts != null) | .ts' | wc -l)
	want=$(awk -v a="$lo" -v b="$hi" '$1 >= a && $1 <= b' "$RD/ts.all" | wc -l)
	[ "$got" -eq "$want" ] && [ "$got" -ge 1 ]
}

@test "--head N prints the first N events" {
	"$KTRACE" report -i "$RD/v7.dat" --head 25 >"$RD/head.out"
	awk '{ print } !/EVENTS DROPPED\]$/ && ++n == 25 { exit }' "$RD/v7.tc" |
		cmp - "$RD/head.out"
}

@test "--format json: one object per line with typed fields" {
	"$KTRACE" report -i "$RD/v7.dat" --format json >"$RD/j.out"
	[ "$(jq -c 'select(has("lost") | not)' "$RD/j.out" | wc -l)" = "$(grep -vc 'EVENTS DROPPED\]$' "$RD/v7.tc")" ]
	jq -e . "$RD/j.out" >/dev/null
	# sched_switch fields match the field=value text.
	"$KTRACE" report -i "$RD/v7.dat" --raw -e sched_switch |
		grep -v 'EVENTS DROPPED\]$' | sed 's/.* sched_switch: *//' >"$RD/raw.sw"
	jq -r 'select(.event == "sched_switch") |
		"prev_comm=\(.prev_comm) prev_pid=\(.prev_pid) prev_prio=\(.prev_prio) prev_state=\(.prev_state) next_comm=\(.next_comm) next_pid=\(.next_pid) next_prio=\(.next_prio)"' \
		"$RD/j.out" >"$RD/json.sw"
	cmp "$RD/raw.sw" "$RD/json.sw"
	run jq -r 'select(.event == "sched_switch") | [(.prev_pid|type), (.prev_comm|type), (.cpu|type), (.ts|type), .system] | join(" ")' "$RD/j.out"
	assert_line --index 0 "number string number number sched"
	# __data_loc strings are strings, byte arrays are arrays.
	run jq -r 'select(.event == "net_dev_queue") | .name | type' "$RD/j.out"
	assert_line --index 0 string
	run jq -r 'select(.event == "inet_sock_set_state") | .saddr | type' "$RD/j.out"
	assert_line --index 0 array
	# Timestamps are the text's, in ns.
	t=$(ts_col "$RD/v7.tc" | head -n 1)
	[ "$(head -n 1 "$RD/j.out" | jq -r '(.ts + 500) / 1000 | floor')" = "$(tr -d . <<<"$t")" ]
}

@test "-e takes classic names as record does: sched_schedule is sched_switch" {
	"$KTRACE" report -i "$RD/v7.dat" -e sched_switch >"$RD/modern.out"
	"$KTRACE" report -i "$RD/v7.dat" -e sched_schedule >"$RD/classic.out"
	[ -s "$RD/modern.out" ]
	cmp "$RD/modern.out" "$RD/classic.out"
}

@test "--format json: no key twice; pid and comm are the task's, a field of that name is field_NAME" {
	"$KTRACE" record -q -F -o "$RD/fork.dat" -e task_newtask -e sched_wakeup_new \
		-- sh -c 'true & wait'
	"$KTRACE" report -i "$RD/fork.dat" --format json >"$RD/fork.json"
	python3 - "$RD/fork.json" <<'PY'
import json, sys
def no_dups(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
forks = [json.loads(l, object_pairs_hook=no_dups) for l in open(sys.argv[1])]
forks = [e for e in forks if e.get("event") == "task_newtask"]
assert forks, "no task_newtask"
for e in forks:
    # The shell forks the child: the task is the parent, the field the child.
    assert e["field_pid"] != e["pid"] and e["comm"] == "sh", e
    assert isinstance(e["field_comm"], str), e
PY
}

@test "--format json: names beside numbers (syscall, errno, vec_name, prev_state_name); the raw keys stay" {
	kt_tool getppid_n "$BATS_TEST_TMPDIR"
	"$KTRACE" record -q -e raw_syscalls -e irq:softirq_entry -e sched_switch \
		-o "$BATS_TEST_TMPDIR/n.dat" -- sh -c "$BATS_TEST_TMPDIR/getppid_n 50 >/dev/null; cat /no/such/file 2>/dev/null; sleep 0.05"
	"$KTRACE" report -i "$BATS_TEST_TMPDIR/n.dat" --format json >"$BATS_TEST_TMPDIR/n.jsonl"
	"$KTRACE" report -i "$BATS_TEST_TMPDIR/n.dat" >"$BATS_TEST_TMPDIR/n.txt"
	cd "$BATS_TEST_TMPDIR"
	# System calls: 110 is getppid, at entry and exit, and id stays.
	[ "$(jq -c 'select(.event == "sys_enter" and .id == 110 and .syscall == "getppid")' n.jsonl | wc -l)" -ge 50 ]
	[ "$(jq -c 'select(.event == "sys_exit" and .id == 110 and .syscall == "getppid" and (.ret | type) == "number")' n.jsonl | wc -l)" -ge 50 ]
	jq -e -s '[.[] | select((.event == "sys_enter" or .event == "sys_exit") and .id >= 0 and .id < 300)] | all(has("syscall"))' n.jsonl
	# A failed open's -2 is ENOENT; every error in errno's range is named.
	jq -e -s '[.[] | select(.event == "sys_exit" and .ret == -2)] | length > 0 and all(.errno == "ENOENT")' n.jsonl
	jq -e -s '[.[] | select(.event == "sys_exit" and .ret < 0 and .ret > -134)] | all(.errno | test("^E[A-Z0-9]+$"))' n.jsonl
	jq -e -s '[.[] | select(.event == "sys_exit" and .ret >= 0)] | all(has("errno") | not)' n.jsonl
	# Softirq vectors: the same names as the kernel's own print format.
	jq -r 'select(.event == "softirq_entry") | .vec_name' n.jsonl >names.json
	sed -n 's/.*softirq_entry: .*\[action=\([A-Z_]*\)\].*/\1/p' n.txt >names.txt
	[ -s names.txt ]
	cmp names.txt names.json
	# prev_state: the letters of the kernel's own print format (bits
	# below TASK_REPORT_MAX, R when none, + for 0x100, preempted), which
	# libtraceevent's sched_switch plugin (its table predates Linux 4.14)
	# does not follow for I and Z.
	jq -e -s '[.[] | select(.event == "sched_switch")] | length > 0 and all(has("prev_state_name"))' n.jsonl
	jq -e -s '[.[] | select(.event == "sched_switch" and .prev_state == 0)] | all(.prev_state_name == "R")' n.jsonl
	jq -e -s '[.[] | select(.event == "sched_switch" and .prev_state == 1)] | all(.prev_state_name == "S")' n.jsonl
	jq -e -s '[.[] | select(.event == "sched_switch" and .prev_state == 2)] | all(.prev_state_name == "D")' n.jsonl
	jq -e -s '[.[] | select(.event == "sched_switch" and .prev_state == 128)] | all(.prev_state_name == "I")' n.jsonl
	jq -e -s '[.[] | select(.event == "sched_switch" and .prev_state == 256)] | all(.prev_state_name == "R+")' n.jsonl
	jq -e -s '[.[] | select(.event == "sched_switch" and .prev_state == 257)] | all(.prev_state_name == "S+")' n.jsonl
}

@test "--format json: a kernel_stack record's caller array holds the frames the record has" {
	# The format declares caller[8]; the kernel writes size frames, fewer
	# or more.
	"$KTRACE" report -i "$TOP/tests/data/tc-stack.dat" --format json |
		jq -e -s '[.[] | select(.event == "kernel_stack")] | length > 100 and
			all((.caller | length) == .size) and any(.size < 8) and any(.size > 8)'
}

@test "--format json shows lost events as objects" {
	# One object per mark trace-cmd prints; lost is the count, or null
	# where the page did not say how many.
	local marks
	marks=$(grep -c 'EVENTS DROPPED\]$' "$RD/lost.tc")
	"$KTRACE" report -i "$RD/lost.dat" --format json |
		jq -s -e --argjson n "$marks" '[.[] | select(has("lost"))] | length == $n and $n > 0 and
			all(.lost == null or (.lost | type == "number" and . > 0))'
	# The stored file has both kinds of mark, whatever this machine's load.
	"$KTRACE" report -i "$TOP/tests/data/tc-v7-lost.dat" --format json |
		jq -s -e '[.[] | select(has("lost"))] | map(.lost) == [811, 942, null, null, 3963, 604, null, 101, 790]'
}

@test "--stat: record-time stats, lost marks, event counts, verdict" {
	run "$KTRACE" report -i "$RD/lost.dat" --stat
	assert_success
	assert_output --regexp "events lost on (CPU [0-9]+|[0-9]+ CPUs)"
	assert_output --partial "lost-event marks in the data:"
	# The instance's record-time stats (trace-cmd files them after a
	# "Buffer: NAME" mark) are on the instance's rows.
	assert_output --regexp "kt-test-[0-9]+-rec[0-9]+ +0 +[0-9]+ +[0-9]+ +[0-9]+\+? +[0-9]+ +[0-9]+ +[0-9]+"
	run "$KTRACE" report -i "$RD/v7.dat" --stat
	assert_success
	n=$(grep -c ' sched_switch: ' "$RD/v7.tc")
	assert_output --regexp "sched:sched_switch +$n "
	run "$KTRACE" report -i "$RD/small.dat" --stat --format json
	assert_success
	jq -e '.cpus | length > 0' <<<"$output"
	[ "$(jq '[.events[].total] | add' <<<"$output")" = "$(grep -vc 'EVENTS DROPPED\]$' "$RD/small.tc")" ]
}

@test "-o writes the file; a closed pipe ends quietly with status 0" {
	run "$KTRACE" report -i "$RD/small.dat" -o "$RD/o.txt"
	assert_success
	cmp "$RD/small.tc" "$RD/o.txt"
	run bash -c "'$KTRACE' report -i '$RD/v7.dat' | head -n 1"
	assert_success
	refute_output --partial "ktrace report:"
	"$KTRACE" report -i "$RD/v7.dat" 2>"$RD/pipe.err" | head -n 1 >/dev/null
	[ "${PIPESTATUS[0]}" = 0 ]
	[ ! -s "$RD/pipe.err" ]
}

@test "-o through a symlink writes its target and leaves the link (-o /dev/stdout into a file)" {
	# /dev/stdout is a link to /proc/self/fd/1: with stdout sent to a
	# file, a rename over the link made /dev/stdout a plain file for
	# every program after.  Here a private link of the same kind.
	ln -sfn /proc/self/fd/1 "$RD/out-link"
	"$KTRACE" report -i "$RD/small.dat" -o "$RD/out-link" >"$RD/redir.txt"
	[ -L "$RD/out-link" ]
	cmp "$RD/small.tc" "$RD/redir.txt"
	# A link to a file: the file takes the output, the link stays.
	echo old >"$RD/target.txt"
	ln -sfn target.txt "$RD/file-link"
	"$KTRACE" report -i "$RD/small.dat" -o "$RD/file-link"
	[ -L "$RD/file-link" ]
	cmp "$RD/small.tc" "$RD/target.txt"
	[ -z "$(find "$RD" -maxdepth 1 -name 'target.txt.*' -o -maxdepth 1 -name 'redir.txt.*')" ]
}

# FILE holds no block past its end: st_blocks within its size in 4 KB.
no_room_left() {
	local b bs size
	read -r b bs size < <(stat -c '%b %B %s' "$1")
	[ $((b * bs)) -le $(((size + 4095) / 4096 * 4096)) ] ||
		fail "$1: $((b * bs)) bytes of blocks for $size bytes: room taken ahead was left"
}

@test "a report into a file on ext4: room taken ahead is given back (-o, >, >>); a refused fallocate or a full disk changes nothing else" {
	[ "$(stat -f -c %T "$RD")" = ext2/ext3 ] ||
		skip "$RD is on $(stat -f -c %T "$RD"), not ext4: room is taken ahead only there"
	[ -f "$TOP/build/faultinj.so" ] || make -s -C "$TOP" build/faultinj.so >/dev/null
	# Each run logs the fallocate it was refused: proof room was asked.
	local log=$RD/room.log inj=(env LD_PRELOAD="$TOP/build/faultinj.so" KT_FAULT_LOG="$RD/room.log"
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0")
	"$KTRACE" report -i "$RD/v7.dat" -o "$RD/room-o.txt"
	cmp "$RD/v7.tc" "$RD/room-o.txt"
	no_room_left "$RD/room-o.txt"
	"$KTRACE" report -i "$RD/v7.dat" >"$RD/room-redir.txt"
	cmp "$RD/v7.tc" "$RD/room-redir.txt"
	no_room_left "$RD/room-redir.txt"
	# >>: the end is shared (O_APPEND), no room is taken.
	echo first >"$RD/room-append.txt"
	rm -f "$log"
	"${inj[@]}" KT_FAULT_FALLOCATE="*:EIO" "$KTRACE" report -i "$RD/v7.dat" >>"$RD/room-append.txt"
	cmp <(echo first; cat "$RD/v7.tc") "$RD/room-append.txt"
	[ ! -e "$log" ]
	# fallocate refused (a file system without it): the same bytes.
	rm -f "$log"
	"${inj[@]}" KT_FAULT_FALLOCATE="*/room-no*:EOPNOTSUPP" \
		"$KTRACE" report -i "$RD/v7.dat" -o "$RD/room-no.txt"
	cmp "$RD/v7.tc" "$RD/room-no.txt"
	grep -q "^fallocate $RD/room-no.txt" "$log"
	"${inj[@]}" KT_FAULT_FALLOCATE="*/room-no2*:EOPNOTSUPP" \
		"$KTRACE" report -i "$RD/v7.dat" >"$RD/room-no2.txt"
	cmp "$RD/v7.tc" "$RD/room-no2.txt"
	grep -q "^fallocate $RD/room-no2.txt" "$log"
	# A disk with room for 100 kB: one line, exit 1, no file left.
	run "${inj[@]}" KT_FAULT_FULL="*/room-full*:100000" \
		"$KTRACE" report -i "$RD/v7.dat" -o "$RD/room-full.txt"
	assert_failure 1
	assert_output --regexp "^ktrace report: cannot write '$RD/room-full.txt': No space left on device"
	assert_equal "${#lines[@]}" 1
	[ -z "$(find "$RD" -maxdepth 1 -name 'room-full.txt*')" ]
}

@test "reading ahead in a second thread (KTRACE_THREADS=1, and its trial): the serial path's bytes" {
	local f o e opts
	# A real recording (ktrace record's, trace-cmd's v7, v6, uncompressed,
	# lost events, two instances) and every file of the stored corpus.
	for f in "$RD"/{kt,v7,v6,v7n,lost,multi}.dat "$TOP"/tests/data/*.dat; do
		[ -s "$f" ] || continue
		for opts in "" "--raw -t" "--format json" \
			    "-e sched_switch --cpu 0 --head 999" "--from 0.01" "--pid 1"; do
			# shellcheck disable=SC2086
			run env KTRACE_NO_THREADS=1 "$KTRACE" report -i "$f" $opts -o "$RD/serial.out"
			o=$status e=$output
			# shellcheck disable=SC2086
			run env KTRACE_THREADS=1 "$KTRACE" report -i "$f" $opts -o "$RD/threaded.out"
			[ "$status" = "$o" ] ||
				fail "$f $opts: status $status, serially $o: $(head -c 600 <<<"$output$e")"
			same_file "$RD/serial.out" "$RD/threaded.out" ||
				fail "$f $opts: the bytes read ahead differ"
			# The trial switches between reading ahead and not
			# (phases of a twentieth of the file): the same bytes.
			# shellcheck disable=SC2086
			run env KTRACE_THREADS=trial "$KTRACE" report -i "$f" $opts -o "$RD/threaded.out"
			[ "$status" = "$o" ] ||
				fail "$f $opts: status $status in the trial, serially $o: $(head -c 600 <<<"$output$e")"
			same_file "$RD/serial.out" "$RD/threaded.out" ||
				fail "$f $opts: the bytes of the read-ahead trial differ"
		done
	done
	# The trial says what it measured and chose (its phases are a
	# twentieth of the file, but a fill takes a window at least, so a
	# file of a few windows a CPU ends before the trial does).
	run env KTRACE_THREADS=trial "$KTRACE" report -i "$RD/v7.dat" -o /dev/null
	assert_success
	assert_output --regexp '^ktrace report: read-ahead trial: (serial [0-9.]+ s CPU [0-9.]+ s wall, reading ahead [0-9.]+ s CPU [0-9.]+ s wall: (serial|reading ahead)|not finished \(the file ended first\); serial)$'
	# A second thread was taken, to a file and to a pipe.
	# LeakSanitizer cannot run under ptrace: the ASan build checks leaks elsewhere.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	KTRACE_THREADS=1 strace -f -e trace=clone,clone3 -o "$RD/strace" \
		"$KTRACE" report -i "$RD/v7.dat" -o "$RD/threaded.out"
	grep -Eq 'clone3?\(' "$RD/strace"
	KTRACE_THREADS=1 strace -f -e trace=clone,clone3 -o "$RD/strace" \
		"$KTRACE" report -i "$RD/v7.dat" | cmp - "$RD/threaded.out"
	grep -Eq 'clone3?\(' "$RD/strace"
	# The thread reads packed chunks a few at a time, as the serial path
	# does, not header and bytes apart (two preads a chunk).
	local serial_reads
	KTRACE_NO_THREADS=1 strace -f -e trace=pread64 -o "$RD/strace" \
		"$KTRACE" report -i "$RD/v7.dat" -o /dev/null
	serial_reads=$(grep -c pread64 "$RD/strace")
	KTRACE_THREADS=1 strace -f -e trace=pread64 -o "$RD/strace" \
		"$KTRACE" report -i "$RD/v7.dat" -o /dev/null
	[ "$(grep -c pread64 "$RD/strace")" -le $((serial_reads + 8)) ] ||
		fail "$(grep -c pread64 "$RD/strace") reads ahead, $serial_reads serially"
	# ... and not with KTRACE_NO_THREADS=1 (even with KTRACE_THREADS=1), nor
	# by default for a file of less than 4 MB of data, where a second thread
	# would not pay.
	KTRACE_NO_THREADS=1 KTRACE_THREADS=1 strace -f -e trace=clone,clone3 -o "$RD/strace" \
		"$KTRACE" report -i "$RD/v7.dat" -o /dev/null
	if grep -Eq 'clone3?\(' "$RD/strace"; then fail "a thread with KTRACE_NO_THREADS=1"; fi
	[ "$(stat -c %s "$RD/v7.dat")" -lt 4000000 ]
	strace -f -e trace=clone,clone3 -o "$RD/strace" \
		"$KTRACE" report -i "$RD/v7.dat" -o /dev/null
	if grep -Eq 'clone3?\(' "$RD/strace"; then fail "a thread for a small file"; fi
}

@test "the input defaults to ktrace.dat in the current directory" {
	mkdir -p "$RD/cwd"
	cp "$RD/small.dat" "$RD/cwd/ktrace.dat"
	cd "$RD/cwd"
	"$KTRACE" report >"$RD/cwd.out"
	same_file "$RD/small.tc" "$RD/cwd.out"
}

@test "bad usage exits 64; an event or filter the file cannot match, or a missing file, 1" {
	run "$KTRACE" report -i "$RD/small.dat" --format xml
	assert_failure 64
	run "$KTRACE" report -i "$RD/small.dat" --cpu x
	assert_failure 64
	run "$KTRACE" report -i "$RD/small.dat" -e no_such_event_here
	assert_failure 1
	assert_output --partial "no_such_event_here"
	run "$KTRACE" report -i "$RD/small.dat" -e sched_swich
	assert_failure 1
	assert_output "ktrace report: no event 'sched_swich' in the file; did you mean 'sched:sched_switch'?"
	run "$KTRACE" report -i "$RD/small.dat" -F 'sched_switch: ((('
	assert_failure 1
	# A misspelt field would be FALSE to libtraceevent: nothing printed.
	run "$KTRACE" report -i "$RD/small.dat" -F 'sched_switch: nxt_pid == 1'
	assert_failure 1
	assert_output --partial "no field 'nxt_pid' in sched_switch"
	[ "${#lines[@]}" = 1 ]
	run "$KTRACE" report -i "$RD/small.dat" --head 1 \
		-F 'sched_switch: next_pid >= 0 && COMM != "x" && common_pid >= 0'
	assert_success
	assert_output --partial "sched_switch:"
	run "$KTRACE" report -i "$RD/nonexistent.dat"
	assert_failure 1
	assert_output --partial "nonexistent.dat"
}

@test "not a trace file: one line naming it, exit 2" {
	printf 'hello world, not a trace\n' >"$RD/text.dat"
	run "$KTRACE" report -i "$RD/text.dat"
	assert_failure 2
	assert_output --partial "not a trace.dat file"
	[ "${#lines[@]}" = 1 ]
	: >"$RD/empty.dat"
	run "$KTRACE" report -i "$RD/empty.dat"
	assert_failure 2
}

# patch FILE OFFSET HEXBYTES: overwrite bytes in place.
patch() {
	printf "$(sed 's/../\\x&/g' <<<"$3")" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

@test "header damage: magic, version, page size, header_page label: exit 2 with the byte offset" {
	for spec in "0 00" "10 39" "14 00000000" "18 78" "12 09"; do
		cp "$RD/small6.dat" "$RD/d.dat"
		patch "$RD/d.dat" ${spec}
		run timeout 20 "$KTRACE" report -i "$RD/d.dat"
		[ "$status" = 2 ] || fail "patch $spec: status $status: $output"
		[ "${#lines[@]}" = 1 ] || fail "patch $spec: not one line: $output"
		[[ "$output" == *"byte"* ]] || fail "patch $spec: no offset: $output"
	done
}

@test "section damage in v7: section id, option size, CPU data offset: exit 2" {
	off=$(trace-cmd dump --options "$RD/small.dat" 2>/dev/null |
		sed -n 's/.*\[Section 0 @ \([0-9]*\):.*/\1/p' | head -n 1)
	[ -n "$off" ]
	cp "$RD/small.dat" "$RD/d.dat"
	patch "$RD/d.dat" "$off" 0909
	run timeout 20 "$KTRACE" report -i "$RD/d.dat"
	assert_failure 2
	assert_output --partial "byte $off"
	# The first option's size, far past the section.
	cp "$RD/small.dat" "$RD/d.dat"
	patch "$RD/d.dat" $((off + 18)) ffffff7f
	run timeout 20 "$KTRACE" report -i "$RD/d.dat"
	assert_failure 2
	assert_output --partial "runs past"
}

@test "v6 CPU data outside the file: exit 2" {
	inst=$(trace-cmd dump --options "$RD/small6.dat" 2>/dev/null |
		sed -n 's/^\([0-9]*\) \[offset\]$/\1/p' | head -n 1)
	[ -n "$inst" ]
	cp "$RD/small6.dat" "$RD/d.dat"
	# "flyrecord\0" then CPU 0's offset.
	patch "$RD/d.dat" $((inst + 10)) ffffffffffff0000
	run timeout 20 "$KTRACE" report -i "$RD/d.dat"
	assert_failure 2
	assert_output --partial "outside the file"
}

@test "page damage: commit past the page, record length past the page: the rest still printed, exit 2" {
	# The first CPU with data ("[offset, size of cpu N]" lines; a buffer
	# without data prints no size, and "$2 > 0" on a word is true).
	read -r off size < <(trace-cmd dump --flyrecord "$RD/small6.dat" 2>/dev/null |
		awk '/offset, size of cpu/ && $2 ~ /^[0-9]+$/ && $2 > 0 { print $1, $2; exit }')
	[ -n "$off" ] || fail "no CPU with data in small6.dat"
	all=$(wc -l <"$RD/small6.tc")
	cp "$RD/small6.dat" "$RD/d.dat"
	patch "$RD/d.dat" $((off + 8)) ffff0f0000000000
	run timeout 20 "$KTRACE" report -i "$RD/d.dat"
	assert_failure 2
	assert_output --partial "commit size is larger than the page"
	# --stat counts what can be read and says the file is damaged.
	run timeout 20 "$KTRACE" report -i "$RD/d.dat" --stat
	assert_failure 2
	assert_output --partial "is damaged: the counts above cover what could be read"
	[ "$(grep -c '^kt-test' <<<"$output")" -gt 0 ]
	[ "$(grep -c '^kt-test' <<<"$output")" -lt "$all" ]
	# The first record: type_len 0 with a length of 1 GB.
	cp "$RD/small6.dat" "$RD/d.dat"
	patch "$RD/d.dat" $((off + 16)) 0000000000000040
	run timeout 20 "$KTRACE" report -i "$RD/d.dat"
	assert_failure 2
	assert_output --partial "record length is out of range"
	# Events before the damaged record and on other pages are printed.
	[ "$(grep -c '^kt-test' <<<"$output")" -gt 0 ]
}

@test "truncated at many offsets: always exit 2, never a crash or hang" {
	for f in small small6; do
		size=$(stat -c %s "$RD/$f.dat")
		offs="0 1 5 9 10 11 12 13 17 18 19 29 30 31 40 60 100 200 500 1000 2000 4000"
		for i in $(seq 1 24); do offs="$offs $((size * i / 25))"; done
		offs="$offs $((size - 4096)) $((size - 100)) $((size - 1))"
		for n in $offs; do
			head -c "$n" "$RD/$f.dat" >"$RD/t.dat"
			run timeout 30 "$KTRACE" report -i "$RD/t.dat"
			[ "$status" = 2 ] || fail "$f cut at $n: status $status: ${output:0:300}"
		done
	done
}

@test "random byte flips never crash or hang" {
	seed=${KT_FUZZ_SEED:-$$}
	RANDOM=$seed
	for f in small small6; do
		size=$(stat -c %s "$RD/$f.dat")
		for i in $(seq 1 40); do
			cp "$RD/$f.dat" "$RD/z.dat"
			for j in 1 2 3 4; do
				if ((RANDOM % 2)); then
					o=$(( (RANDOM * 32768 + RANDOM) % 12000 ))
				else
					o=$(( (RANDOM * 32768 + RANDOM) % size ))
				fi
				patch "$RD/z.dat" "$o" "$(printf %02x $((RANDOM % 256)))"
			done
			for fmt in text json; do
				run timeout 30 "$KTRACE" report -i "$RD/z.dat" --format "$fmt"
				case $status in
				0|2) ;;
				*) cp "$RD/z.dat" "$BATS_RUN_TMPDIR/crash-$seed-$f-$i.dat"
				   fail "seed $seed $f iteration $i ($fmt): status $status: ${output:0:400}" ;;
				esac
			done
		done
	done
}

@test "the top-level buffer is left alone by these tests" {
	# Every recording went to a kt-test-* instance, removed afterwards.
	run ls "$TRACEFS/instances"
	refute_output --partial "kt-test-$$-rec"
}

@test "--from skips whole pages by their timestamps without decoding them" {
	# A CPU with more than two pages of data (a number in the size
	# column: a buffer without data prints none).
	read -r off size cpu < <(trace-cmd dump --flyrecord "$RD/v6.dat" 2>/dev/null |
		awk '/offset, size of cpu/ && $2 ~ /^[0-9]+$/ && $2 > 8192 {
			c = $NF; sub(/\]/, "", c); print $1, $2, c; exit }')
	[ -n "$off" ] || fail "no CPU of v6.dat has more than two pages"
	col=$(printf '[%03d] ' "$cpu")
	# Damage its first page; a window after it must never read it.
	cp "$RD/v6.dat" "$RD/d.dat"
	patch "$RD/d.dat" $((off + 8)) ffff0f0000000000
	last=$(grep -F "$col" "$RD/v6.tc" | ts_col | tail -n 1)
	run "$KTRACE" report -i "$RD/d.dat" --from "@$last" --cpu "$cpu"
	assert_success
	refute_output --partial "damaged"
	assert_output --partial "$col"
	# Without the window the damage is found.
	run "$KTRACE" report -i "$RD/d.dat" --cpu "$cpu"
	assert_failure 2
}

@test "a zlib chunk unpacks as zlib's uncompress() unpacks it, its Adler-32 checked (unpack-check)" {
	# Random and 0xff bytes against adler32(); whole, cut, padded and
	# damaged streams against uncompress(): the same ones refused.
	run "$UNIT/unpack-check"
	assert_success
	[[ "$output" =~ ^ok\ [0-9]+\ streams$ ]] || fail "$output"
}

@test "packed blocks are the libraries' own at the levels promised: trace-cmd's for data, the fast level for a trigger's ring (pack-levels)" {
	# zstd and zlib, data and metadata, before and after
	# kt_pack_set_fast(): byte for byte libzstd's and zlib's at 3/6,
	# 6/9 and 1, each unpacking to its input.
	run "$UNIT/pack-levels"
	assert_success
	[[ "$output" =~ ^ok\ [0-9]+\ blocks$ ]] || fail "$output"
}

@test "a reader's big buffers come with their pages: populated at once, in huge pages from 1 MB (bigbuf-check)" {
	run "$UNIT/bigbuf-check" 100 300000 1048576 7216474
	assert_success
	# Each: backed before a byte is written (no fault a page), the big
	# ones aligned for huge pages, and given them where THP is on.
	awk '$1 == 300000 && $3 ~ /rss_kb=/ { split($3, r, "="); exit !(r[2] >= 290) }' <<<"$output" ||
		fail "300 KB not populated: $output"
	awk '$1 == 7216474 { split($3, r, "="); exit !($2 == "align2m=1" && r[2] >= 7000) }' <<<"$output" ||
		fail "7 MB not aligned or not populated: $output"
	if ! grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
		awk '$1 == 7216474 { split($4, h, "="); exit !(h[2] >= 2048) }' <<<"$output" ||
			fail "no huge page under a 7 MB buffer ($(cat /sys/kernel/mm/transparent_hugepage/enabled)): $output"
	fi
}

@test "kallsyms are read into the same function table as libtraceevent reads them (kallsyms-check)" {
	# This kernel's symbols, and each odd shape of line between good ones.
	cp /proc/kallsyms "$RD/ks.0"
	# Out of address order, the same addresses in another order.
	shuf "$RD/ks.0" >"$RD/ks.shuf"
	n=0
	while IFS= read -r odd; do
		n=$((n + 1))
		printf 'ffffffff81000000 T _stext\n%b\nffffffff81000100 T after\n' "$odd" >"$RD/ks.$n"
	done <<'ODD'
ffffffff81000010 t foo\t[mymod]
ffffffff81000020 t bar\t[
ffffffff81000030 t baz\t[]
ffffffff81000040 t qux\t[ spaced]
ffffffff81000050 A abs
ffffffff81000060 T $a
0xffffffff81000070 T hexp
ffffffff81000080  T twospace
ffffffff81000090 T tr \t[x]\r
ffffffff810000a0 T cr\r
111111111111111111 T long
zzz

\n\n
ffffffff81000070 T
ffffffff81000070 T \t[m]
FFFFFFFF81000070 T upper\t[m]x y
gfffffff81000070 T bad_first_digit
ffffffff8100007g T bad_last_digit
ffffffff81:00070 T colon_digit
ffffffff81`00070 T backtick_digit
ffffffff81/00070 T slash_digit
ffffffff81@00070 T at_digit
fFfFfFfF8100aBcD T mixed_case
ffffffff81000070 T fifteen_bytes_a
ffffffff81000070 T sixteen_bytes_ab
ffffffff81000070 T seventeen_bytes_a\t[m]
ffffffff81000070 T thirty_two_bytes_abcdefghijklmno
ffffffff81000070 T ctl\x01_in_a_name_past_sixteen\t[m]
ffffffff81000070 T tail\x0bvt
ffffffff81000070 T high\x80\xff_bytes_past_sixteen
ffffffff81000070 T trailing_space_past_sixteen_bytes \nffffffff81000080 T next
ODD
	for f in "$RD"/ks.*; do
		"$UNIT/kallsyms-check" lib "$f" >"$RD/lib.out"
		"$UNIT/kallsyms-check" ours "$f" >"$RD/ours.out"
		cmp "$RD/lib.out" "$RD/ours.out" || fail "$f: $(diff "$RD/lib.out" "$RD/ours.out" | head -n 5)"
		# kt_ksymtab (report's lookups) answers as that table does.
		run "$UNIT/kallsyms-check" find "$f"
		assert_success
		[[ "$output" =~ ^(ok\ [0-9]+\ lookups|shape)$ ]] || fail "$f: $output"
	done
	# The kernel's own text, in order and not, is kt_ksymtab's.
	for f in "$RD/ks.0" "$RD/ks.shuf"; do
		run "$UNIT/kallsyms-check" find "$f"
		[[ "$output" =~ ^ok\ [0-9]{6,}\ lookups$ ]] || fail "$f: $output"
	done
	# The real table was read, not an empty one.
	[ "$(wc -l <"$RD/ks.0" )" -gt 1000 ]
	"$UNIT/kallsyms-check" ours "$RD/ks.0" | awk 'END { exit !(NR > 1000) }'
}

@test "the page walker reads records as libtraceevent's kbuffer does (rawpage-check)" {
	# Random pages of every record kind: time, offsets and sizes agree.
	run "$UNIT/rawpage-check" 20000
	assert_success
	[[ "$output" =~ ^ok\ [0-9]{6,}\ records$ ]] || fail "$output"
}
