#!/usr/bin/env bats
# ktrace record: real recordings on the live tracefs, read back with
# trace-cmd (the oracle), counted against workloads that count themselves.

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	# A program that makes exactly N getppid system calls (110 on x86_64).
	export KT_REC_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool getppid_n "$KT_REC_BIN"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	top_events_before=$(cat "$TRACEFS/set_event")
}

teardown() {
	cd /
	umount_tmpfs
	# Every ktrace this test ran took its instance away with it.
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
	# And switched nothing on in the top-level buffer.
	[ "$(cat "$TRACEFS/set_event")" = "$top_events_before" ] ||
		fail "top-level set_event changed: $(cat "$TRACEFS/set_event")"
}

report() { trace-cmd report -i "$@" 2>/dev/null; }

no_leftovers() { # DIR: no temporary file of ours
	run ls -A "$1"
	refute_output --partial ".tmp-"
}

@test "records a short sleep with sched_schedule into a v7 zstd file trace-cmd reads" {
	run rec -q -o s.dat -e sched_schedule -- sleep 0.2
	assert_success
	[ "$(head -c 11 s.dat | tail -c 1)" = 7 ] || fail "not a version 7 file"
	# The compression's name follows the header's fixed 18 bytes.
	[ "$(tail -c +19 s.dat | head -c 4)" = zstd ] || fail "not zstd"
	run report s.dat
	assert_success
	assert_output --regexp 'sleep-[0-9]+ +\[[0-9]+\] +[0-9.]+: sched_switch: +sleep:[0-9]+ '
	refute_output --partial "sched_wakeup"
	# kallsyms is in the file, and the per-CPU statistics.
	run trace-cmd report -i s.dat -f
	assert_success
	[ "$(wc -l <<<"$output")" -gt 10000 ] || fail "kallsyms missing: $(wc -l <<<"$output") functions"
	run trace-cmd report -i s.dat --stat
	assert_output --partial "CPU: 0"
	assert_output --partial "overrun: 0"
	no_leftovers .
}

@test "--file-version and --compression: v6, v7 none, zlib; v6 with a compression is one line naming the fix" {
	run rec -q --file-version 6 -o 6.dat -e sched:sched_switch -- true
	assert_success
	[ "$(head -c 11 6.dat | tail -c 1)" = 6 ]
	run rec -q --compression none -o n.dat -e sched:sched_switch -- true
	assert_success
	[ "$(tail -c +19 n.dat | head -c 5)" = "none" ]
	run rec -q --compression zlib --file-version 7 -o z.dat -e sched:sched_switch -- true
	assert_success
	[ "$(tail -c +19 z.dat | head -c 4)" = zlib ]
	for f in 6.dat n.dat z.dat; do
		run "$KTRACE" report -i $f
		assert_success
		assert_output --partial "sched_switch:"
	done
	run report n.dat
	assert_output --partial "sched_switch:"
	run "$KTRACE" record --file-version 6 --compression zstd -o x.dat -- true
	assert_failure 64
	assert_line --index 0 "ktrace record: --file-version 6 has no compression; use --file-version 7 for --compression zstd, or drop --compression"
	run "$KTRACE" record --compression lz4 -o x.dat -- true
	assert_failure 64
	assert_line --index 0 "ktrace record: unknown compression 'lz4'; use zstd, zlib or none"
	run "$KTRACE" record --file-version 5 -o x.dat -- true
	assert_failure 64
	assert_line --index 0 "ktrace record: bad file version '5'; use 6 or 7"
	[ ! -e x.dat ]
	no_leftovers .
}

@test "record -e sched:sched_switch -- true: a file no bigger than trace-cmd's" {
	command -v trace-cmd >/dev/null || skip "no trace-cmd"
	cc -O2 -shared -fPIC -o tc-shim.so "$TOP/tests/tc-shim.c" -ldl
	inst="kt-test-$$-size"
	LD_PRELOAD=$PWD/tc-shim.so trace-cmd record -q -B "$inst" -o tc.dat \
		-e sched:sched_switch true >/dev/null 2>&1 || true
	rmdir "$TRACEFS/instances/$inst" 2>/dev/null || true
	[ -s tc.dat ] || skip "trace-cmd wrote no file"
	run rec -q -o kt.dat -e sched:sched_switch -- true
	assert_success
	kt=$(stat -c %s kt.dat)
	tc=$(stat -c %s tc.dat)
	echo "# ktrace $kt bytes, trace-cmd $tc bytes" >&3
	[ "$kt" -le "$tc" ] || fail "ktrace's file is $kt bytes, trace-cmd's $tc"
}

@test "records dbench 8 with sched_schedule, nothing lost, every event readable" {
	tmpfs_at mnt-db 512m
	run rec -o d.dat -e sched_schedule -- dbench -c /usr/share/dbench/client.txt -D mnt-db 8 -t 3
	assert_success
	assert_output --partial "Throughput"
	refute_output --partial "LOST"
	summary=$(sed -n "s/.*wrote 'd.dat': \([0-9]*\) events.*/\1/p" <<<"$output")
	run report d.dat
	assert_success
	n=$(grep -c ': sched_switch: ' <<<"$output")
	[ "$n" -gt 1000 ] || fail "only $n sched_switch events"
	[ "$n" -eq "$summary" ] || fail "trace-cmd reads $n events, ktrace said $summary"
	grep -q 'dbench-[0-9]* ' <<<"$output" || fail "no dbench task in the trace"
	# No page carries a lost-events mark.
	refute_output --partial "EVENTS DROPPED"
}

@test "N writes to the instance's trace_marker give exactly N ftrace:print events" {
	run rec -q -o m.dat -e ftrace:print -- sh -c '
		m=/sys/kernel/tracing/instances/ktrace-$PPID/trace_marker
		i=0; while [ $i -lt 777 ]; do i=$((i + 1)); echo "mark $i" >"$m"; done'
	assert_success
	run report m.dat
	assert_success
	[ "$(grep -c 'tracing_mark_write: mark [0-9]*$' <<<"$output")" -eq 777 ] ||
		fail "$(grep -c 'tracing_mark_write: mark' <<<"$output") print events"
	for i in 1 400 777; do
		grep -q "tracing_mark_write: mark $i\$" <<<"$output" || fail "mark $i missing"
	done
}

@test "N getppid calls give exactly N sys_enter id 110 events for that pid" {
	run rec -q -o g.dat -F -e raw_syscalls:sys_enter -- "$KT_REC_BIN/getppid_n" 4321
	assert_success
	pid=$output
	# "getppid_n-PID [CPU] TS: sys_enter: NR 110 (...)", after the exec.
	n=$(report g.dat | grep -cE -- "(^| )getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 110 ")
	[ "$n" -eq 4321 ] || fail "$n getppid events for pid $pid"
	# With a filter the kernel drops all the other system calls.
	run rec -q -o g2.dat -e raw_syscalls:sys_enter -f 'id == 110' -- "$KT_REC_BIN/getppid_n" 999
	assert_success
	pid=$output
	run report g2.dat
	n=$(grep -cE -- "(^| )getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 110 " <<<"$output")
	[ "$n" -eq 999 ] || fail "$n filtered getppid events"
	refute_output --regexp 'NR (0|1|3|9|59|231) '
}

# sys_enter/sys_exit lines of pid $1 in report's text $2.
calls_of() { grep -cE -- "(^| )[^ ]+-$1 +\[[0-9]+\] +[0-9.]+: sys_(enter|exit):" "$2" || true; }

@test "ktrace's own threads make no system call in the file; --trace-self records them" {
	run rec -q -o self.dat -e raw_syscalls -- sleep 0.5
	assert_success
	kpid=$(tail -1 "$BATS_TEST_TMPDIR/ktrace.pids")
	report self.dat >self.txt
	# The command's calls are there (it ran as a child of ktrace, named
	# ktrace until its exec).
	child=$(grep -oE -- "(^| )sleep-[0-9]+ +\[[0-9]+\] +[0-9.]+: sys_enter:" self.txt |
		head -1 | sed -E 's/^ ?sleep-([0-9]+) .*/\1/')
	[ -n "$child" ] || fail "no system call of sleep's in the file"
	n=$(calls_of "$kpid" self.txt)
	[ "$n" -eq 0 ] || fail "$n system calls of ktrace's main thread ($kpid) recorded"
	# Every other thread of ktrace's is named ktrace or ktrace-*.
	n=$(grep -E -- "(^| )ktrace(-[a-z]+)?-[0-9]+ +\[[0-9]+\] +[0-9.]+: sys_(enter|exit):" self.txt |
		grep -vcE -- "(^| )ktrace-$child +\[") || true
	[ "$n" -eq 0 ] || fail "$n system calls of ktrace's threads recorded"

	run rec -q --trace-self -o all.dat -e raw_syscalls -- sleep 0.5
	assert_success
	kpid=$(tail -1 "$BATS_TEST_TMPDIR/ktrace.pids")
	report all.dat >all.txt
	n=$(calls_of "$kpid" all.txt)
	[ "$n" -gt 10 ] || fail "only $n system calls of ktrace's main thread ($kpid) with --trace-self"
}

@test "-F keeps only the command's pid, -c also its descendants" {
	script='echo $$ >>pids; sh -c "echo \$\$ >>pids; exec sleep 0.1" & wait'
	: >pids
	run rec -q -o F.dat -F -e raw_syscalls:sys_enter -- sh -c "$script"
	assert_success
	parent=$(sed -n 1p pids) child=$(sed -n 2p pids)
	seen=$(report F.dat | awk '/sys_enter:/ { n = split($1, a, "-"); print a[n] }' | sort -u)
	[ "$seen" = "$parent" ] || fail "-F recorded pids: $seen (want $parent)"

	: >pids
	run rec -q -o c.dat -c -e raw_syscalls:sys_enter -- sh -c "$script"
	assert_success
	parent=$(sed -n 1p pids) child=$(sed -n 2p pids)
	seen=$(report c.dat | awk '/sys_enter:/ { n = split($1, a, "-"); print a[n] }' | sort -u)
	[ "$seen" = "$(printf '%s\n' "$parent" "$child" | sort -u)" ] ||
		fail "-c recorded pids: $(echo $seen) (want $parent $child)"
}

@test "-F follows the command's threads, not the process one of them forks; -c both" {
	kt_tool group "$BATS_TEST_TMPDIR/bin" -lpthread
	# group 3 50: 3 threads of 50 getppid each; the first forks a child
	# process of 50 getuid.
	run rec -q -o F.dat -F -e raw_syscalls -- "$BATS_TEST_TMPDIR/bin/group" 3 50
	assert_success
	got=$("$KTRACE" analyze syscalls -i F.dat --format json |
		jq -r '[.rows[] | select(.syscall == "getppid" or .syscall == "getuid") | "\(.syscall) \(.calls)"] | sort | join(",")')
	[ "$got" = "getppid 150" ] || fail "-F: $got (want getppid 150 and no getuid)"
	# Four tasks of one process made system calls; the child entered none.
	n=$("$KTRACE" report -i F.dat --format json -e sys_enter | jq -r .pid | sort -u | wc -l)
	[ "$n" -eq 4 ] || fail "-F: $n tasks entered system calls, not 4"
	run rec -q -o c.dat -c -e raw_syscalls -- "$BATS_TEST_TMPDIR/bin/group" 3 50
	assert_success
	got=$("$KTRACE" analyze syscalls -i c.dat --format json |
		jq -r '[.rows[] | select(.syscall == "getppid" or .syscall == "getuid") | "\(.syscall) \(.calls)"] | sort | join(",")')
	[ "$got" = "getppid 150,getuid 50" ] || fail "-c: $got"
}

@test "-c follows three generations from the command's exec on; -p with -c a running process's new children" {
	# gen.sh N: note its pid, then run gen.sh N-1 as a child and wait;
	# no other process (a $(...) would be one more descendant).
	cat >gen.sh <<'EOF'
echo $$ >>"$PIDS"
if [ "$1" -gt 1 ]; then sh "$0" $(($1 - 1)) & wait; fi
EOF
	export PIDS=$PWD/pids
	: >pids
	run rec -q -o t.dat -c -e raw_syscalls:sys_enter -e sched:sched_process_exec \
		-- sh "$PWD/gen.sh" 3
	assert_success
	want=$(sort -u pids)
	[ "$(wc -l <<<"$want")" -eq 3 ] || fail "pids: $(cat pids)"
	seen=$(report t.dat | awk '/sys_enter:/ { n = split($1, a, "-"); print a[n] }' | sort -u)
	[ "$seen" = "$want" ] || fail "-c recorded pids: $(echo $seen) (want $(echo $want))"
	# Tracing was on before the command's first instruction: its exec
	# is in the file.
	first=$(sed -n 1p pids)
	report t.dat | grep -qE "sched_process_exec: +filename=/(usr/)?bin/sh pid=$first " ||
		fail "no exec of the command ($first)"

	# -P PID -c: a running shell that forks only once recording is on.
	mkfifo go
	sh -c 'read x <go; sh -c "echo \$\$ >kid; exec true" & wait' &
	victim=$!
	rec_started -q -o pc.dat -P "$victim" -c -e raw_syscalls:sys_enter
	echo go >go
	wait "$victim"
	kill -INT "$pid"
	wait "$pid"
	seen=$(report pc.dat | awk '/sys_enter:/ { n = split($1, a, "-"); print a[n] }' | sort -u)
	[ "$seen" = "$(printf '%s\n' "$victim" "$(cat kid)" | sort -u)" ] ||
		fail "-p -c recorded pids: $(echo $seen) (want $victim $(cat kid))"
}

@test "-p traces a running process only" {
	"$KT_REC_BIN/getppid_n" 0 >/dev/null
	sh -c 'while :; do sleep 0.05; done' &
	victim=$!
	run rec -q -o p.dat -p "$victim" -e raw_syscalls:sys_enter -s 0.5
	kill "$victim"
	assert_success
	seen=$(report p.dat | awk '/sys_enter:/ { n = split($1, a, "-"); print a[n] }' | sort -u)
	[ "$seen" = "$victim" ] || fail "-p recorded pids: $(echo $seen) (want $victim)"
}

@test "the command's exit status passes through, a signal death as 128+N" {
	run rec -q -o e.dat -- sh -c 'exit 7'
	assert_failure 7
	run report e.dat
	assert_success
	run rec -q -o e.dat -- sh -c 'kill -KILL $$'
	assert_failure 137
	run rec -q -o e.dat -- true
	assert_success
	# Without "--", the command starts at the first non-option word.
	run rec -q -o e.dat sh -c 'exit 5' -e sched_switch
	assert_failure 5
}

@test "SIGINT stops a whole-system recording with a valid file and no instance" {
	rec_started -q -o i.dat -e sched:sched_switch
	# A private instance: the event is on there and not at the top level.
	grep -qx 'sched:sched_switch' "$TRACEFS/instances/ktrace-$pid/set_event"
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 0 ] || fail "exit status $st"
	[ ! -d "$TRACEFS/instances/ktrace-$pid" ] || fail "instance left"
	run report i.dat
	assert_success
	assert_output --partial "sched_switch:"
	no_leftovers .
}

@test "SIGTERM and SIGHUP end a recording cleanly too" {
	for sig in TERM HUP; do
		rec_started -q -o "$sig.dat"
		kill -"$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		[ "$st" -eq 0 ] || fail "SIG$sig: exit status $st"
		run report "$sig.dat"
		assert_success
	done
	no_leftovers .
}

@test "SIGINT to ktrace reaches the command; the file is valid, status 130" {
	mkfifo ready
	"$KTRACE" record -q -o c.dat -- sh -c 'echo $$ >ready; exec sleep 60' &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	read -r cmdpid <ready
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 130 ] || fail "exit status $st"
	run report c.dat
	assert_success
	# The command ran in the recording.
	assert_output --regexp "sched_switch: +(sh|sleep):$cmdpid "
	[ ! -d "$TRACEFS/instances/ktrace-$pid" ] || fail "instance left"
	run pgrep -f "exec sleep 60"
	assert_failure
}

@test "--flight keeps only the newest events" {
	# Pinned: a CPU the writer left would keep its oldest marks.
	run rec -o f.dat --flight -b 16 -e ftrace:print -- taskset -c 0 sh -c '
		m=/sys/kernel/tracing/instances/ktrace-$PPID/trace_marker
		i=0; while [ $i -lt 3000 ]; do i=$((i + 1)); echo "seq $i" >"$m"; done'
	assert_success
	assert_output --partial "overwritten"
	refute_output --partial "LOST"
	marks=$(report f.dat | sed -n 's/.*tracing_mark_write: seq \([0-9]*\)$/\1/p' | sort -n)
	first=$(head -n 1 <<<"$marks") last=$(tail -n 1 <<<"$marks") n=$(wc -l <<<"$marks")
	[ "$last" -eq 3000 ] || fail "newest mark $last"
	[ "$first" -gt 1 ] || fail "the oldest marks were kept"
	# Nothing missing in between: the newest, contiguous.
	[ "$n" -eq $((last - first + 1)) ] || fail "$n marks from $first to $last"
}

@test "an unknown event fails before anything is enabled" {
	run rec -o u.dat -e sched_swich -- true
	assert_failure 1
	assert_output "ktrace record: unknown event 'sched_swich'; did you mean 'sched:sched_switch'?"
	[ ! -e u.dat ] || fail "file written"
	no_leftovers .
}

@test "an event only a tracer writes is refused with what writes it; ftrace:print is taken" {
	run rec -q -o t.dat -e ftrace:function -- true
	assert_failure 1
	assert_output "ktrace record: 'ftrace:function' is written by the function tracer, not switched on as an event; use -p function (where 'ktrace doctor' says it runs)"
	run rec -q -o t.dat -e ftrace:kernel_stack -- true
	assert_failure 1
	assert_output "ktrace record: 'ftrace:kernel_stack' is written with -T (every event) or --stack EVENT; use those"
	run rec -q -o t.dat -e ftrace:funcgraph_entry -- true
	assert_failure 1
	[ ! -e t.dat ] || fail "file written"
	run rec -q -o t.dat -e ftrace:print -- sh -c 'echo hello >"$1"/instances/ktrace-$PPID/trace_marker' sh "$TRACEFS"
	assert_success
	report t.dat | grep -q 'print:.*hello'
}

@test "a kernel function given as an event is named as one, with what can trace it" {
	grep -qw do_sys_openat2 /proc/kallsyms
	run rec -o u.dat -e do_sys_openat2 -- true
	assert_failure 1
	assert_output "ktrace record: 'do_sys_openat2' is a kernel function, not an event: use --kprobe do_sys_openat2, or -p function -l do_sys_openat2 (ktrace doctor says which this kernel allows)"
	[ ! -e u.dat ] || fail "file written"
	# Not for a name that is no function: the suggestion as before.
	run rec -o u.dat -e do_sys_openat3 -- true
	assert_failure 1
	assert_output --partial "unknown event 'do_sys_openat3'"
}

@test "a bad filter fails with the kernel's reason, nothing left" {
	run rec -o b.dat -e sched:sched_switch -f 'no_such_field == 1' -- true
	assert_failure 1
	assert_output --partial "bad filter 'no_such_field == 1' for 'sched:sched_switch'"
	assert_output --partial "Field not found"
	[ "$(wc -l <<<"$output")" -eq 1 ] || fail "more than one line"
	[ ! -e b.dat ] || fail "file written"
	no_leftovers .
}

@test "an output that cannot be written fails first" {
	run rec -o /nonexistent/dir/x.dat -- true
	assert_failure 1
	assert_output "ktrace record: cannot open '/nonexistent/dir/x.dat': No such file or directory; try -o in a writable directory"
	mkdir adir
	run rec -o adir -- true
	assert_failure 1
	assert_output --partial "Is a directory"
}

@test "not root: one line, exit 1" {
	run as_nobody "$KTRACE" record -o /tmp/nobody.dat -- true
	assert_failure 1
	assert_output --partial "run as root"
	[ ! -e /tmp/nobody.dat ]
}

@test "a command that does not exist: exit 127, no file; not executable: 126" {
	run -127 rec -o n.dat -- no-such-command-xyz
	assert_failure 127
	assert_output --partial "cannot run 'no-such-command-xyz'"
	[ ! -e n.dat ] || fail "file written"
	touch notexec
	run rec -o n.dat -- ./notexec
	assert_failure 126
	[ ! -e n.dat ] || fail "file written"
	no_leftovers .
}

@test "a full disk stops the recording, keeps a valid file, exits 1" {
	# kallsyms alone is megabytes: leave a few for the events.
	ksz=$(wc -c </proc/kallsyms)
	tmpfs_at mnt-full $(((ksz + 3 * 1024 * 1024) / 1024))k
	run rec -q -o mnt-full/full.dat -e 'raw_syscalls:*' -- dd if=/dev/zero of=/dev/null bs=1 count=3000000
	assert_failure 1
	assert_output --partial "disk full"
	run report mnt-full/full.dat
	assert_success
	assert_output --partial "sys_enter"
	no_leftovers mnt-full
}

@test "-m stops at the size limit" {
	# The fixed part (kallsyms, formats) counts: allow 3 MB of events.
	mb=$(( ($(wc -c </proc/kallsyms) >> 20) + 4 ))
	run rec -o m.dat -m "$mb" -e 'raw_syscalls:*' -- dd if=/dev/zero of=/dev/null bs=1 count=3000000
	assert_success
	assert_output --partial "reached the -m limit"
	assert_output --partial "after the -m limit were not written"
	size=$(stat -c %s m.dat)
	[ "$size" -le $((mb << 20)) ] || fail "file is $size bytes, over $mb MB"
	run report m.dat
	assert_success
	# -m counts the data before packing: a v6 file reaches the limit.
	run rec -o m6.dat --file-version 6 -m "$mb" -e 'raw_syscalls:*' -- \
		dd if=/dev/zero of=/dev/null bs=1 count=3000000
	assert_success
	assert_output --partial "reached the -m limit"
	size=$(stat -c %s m6.dat)
	[ "$size" -le $((mb << 20)) ] || fail "file is $size bytes, over $mb MB"
	[ "$size" -gt $(((mb - 2) << 20)) ] || fail "file is only $size bytes"
}

@test "-s ends a whole-system recording; no -e records switches and wakeups" {
	run rec -q -o t.dat -s 0.3
	assert_success
	# trace-cmd 3.1 prints no --events of a v7 file (its own either):
	# dump lists the formats the file holds.
	run trace-cmd dump --events t.dat
	assert_success
	assert_output --partial "name: sched_switch"
	assert_output --partial "name: sched_wakeup"
	refute_output --partial "name: sys_enter"
}

@test "--max-lost turns lost events into exit status 3" {
	run rec -o l.dat -b 4 --max-lost 0 -e 'raw_syscalls:*' -e 'sched:*' -- \
		dd if=/dev/zero of=/dev/null bs=1 count=1000000
	assert_failure 3
	assert_output --partial "LOST"
	assert_output --partial "more than --max-lost 0"
	# The loss is in the file too.
	run trace-cmd report -i l.dat --stat
	assert_output --regexp 'overrun: [1-9]'
}

@test "usage errors exit 64" {
	run rec -F -o x.dat
	assert_failure 64
	run rec -f 'prev_pid == 1' -e sched_switch
	assert_failure 64
	run rec -b nope -- true
	assert_failure 64
}

@test "a terminal gets a live status line and a per-CPU summary" {
	run script -qec "$KTRACE record -o tty.dat -s 1.5" /dev/null
	assert_success
	assert_output --partial "events,"
	assert_output --partial "written"
	assert_output --regexp 'CPU +events +bytes +overrun +dropped'
}

@test "stores the trace clock against realtime at start and end, which trace-cmd skips" {
	local t0 t1 s e first
	t0=$(date +%s%N)
	run rec -q -e raw_syscalls -o w.dat -- "$KT_REC_BIN/getppid_n" 50
	assert_success
	t1=$(date +%s%N)
	run "$KTRACE" sql -i w.dat --format csv "select key, value from meta where key in ('boot_id', 'realtime_offset_start', 'realtime_offset_end') order by key"
	assert_success
	assert_line --index 1 "boot_id,$(cat /proc/sys/kernel/random/boot_id)"
	s=$(sed -n 's/^realtime_offset_start,//p' <<<"$output")
	e=$(sed -n 's/^realtime_offset_end,//p' <<<"$output")
	[ -n "$s" ] && [ -n "$e" ] || fail "no offsets: $output"
	# The clock does not jump in a second: the two agree within 10 ms.
	[ $(((s > e ? s - e : e - s) < 10000000)) = 1 ] || fail "start $s, end $e"
	# The first record's wall-clock time is within the recording.
	first=$("$KTRACE" report -i w.dat --format json | head -n 1 | jq .ts)
	[ $((first + s >= t0 && first + s <= t1)) = 1 ] || fail "$((first + s)) not in [$t0, $t1]"
	# trace-cmd's text is ktrace's: no timestamp moved (its DATE option
	# would shift them; ours it skips, and says nothing of it).
	diff <(trace-cmd report -i w.dat 2>&1 | grep -v '^cpus=') <("$KTRACE" report -i w.dat)
}
