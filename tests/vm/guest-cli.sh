#!/bin/sh
# The ktrace command line on ktrace.ko, sourced by guest.sh (busybox sh;
# t, expect, fail, val come from there).  Recordings are sent to the
# host as "KTCLI: " console lines (gzip, tar, base64), where
# tests/vm/host-cli.sh has trace-cmd report decode and count them.
K=/ktrace
CLI=/tmp/cli

cli_load() {
	rmmod ktrace 2>/dev/null
	insmod /ktrace.ko || return 1
	mkdir -p $CLI
	# The recordings go to the host: leave the big kallsyms out.
	: >/tmp/no-kallsyms
	mount --bind /tmp/no-kallsyms /proc/kallsyms
}

test_cli_list() {
	$K list 'ktrace:*' >/tmp/l || return 1
	cat /tmp/l
	want=$(ls $D/events | sed 's/^/ktrace:/' | sort)
	expect "ktrace list 'ktrace:*'" "$(sort /tmp/l)" "$want" || return 1
	# A bare classic name is the module's while it is loaded ...
	expect "ktrace list sched_schedule" "$($K list sched_schedule)" \
		ktrace:sched_schedule || return 1
	expect "--backend ftrace sched_schedule" \
		"$($K list --backend ftrace sched_schedule)" sched:sched_switch || return 1
	# ... and system:NAME is always ftrace's.
	expect "ktrace list irq:softirq_entry" "$($K list irq:softirq_entry)" \
		irq:softirq_entry || return 1
	$K list --fields ktrace:syscall_entry >/tmp/f || return 1
	grep -q 'args' /tmp/f || fail "--fields shows no args field" || return 1
	$K list --backend module | grep -v '^ktrace:' && fail "--backend module lists ftrace events"
	# The function tracer's own list here (the host refuses it and lists
	# kallsyms, which cli_load emptied).
	$K list functions 'vfs_read*' >/tmp/fn 2>/tmp/fnerr || return 1
	cat /tmp/fn /tmp/fnerr
	grep -qx vfs_read /tmp/fn || fail "list functions: no vfs_read" || return 1
	grep -q warning /tmp/fnerr && fail "list functions read kallsyms, not available_filter_functions" && return 1
	return 0
}

test_cli_enable() {
	f=$D/events/syscall_entry/enable
	echo 0 >$f
	$K enable ktrace:syscall_entry || return 1
	expect "enable file after enable" "$(cat $f)" 1 || return 1
	$K enable -d syscall_entry || return 1
	expect "enable file after enable -d" "$(cat $f)" 0 || return 1
	if $K enable -f 'nr == 1' ktrace:syscall_entry 2>/tmp/err; then
		fail "a filter on a module event was accepted"
		return 1
	fi
	cat /tmp/err
	grep -q 'takes no filter' /tmp/err &&
	expect "enable file after the refused filter" "$(cat $f)" 0
}

test_cli_stat() {
	echo 1 >$D/events/sched_schedule/enable
	echo 1 >$D/enabled
	echo start >$D/state
	/ktvm sleeper 20 >/dev/null
	echo stop >$D/state
	echo 0 >$D/enabled
	$K stat >/tmp/s || return 1
	$K stat -j >/tmp/j || return 1
	cat /tmp/s
	grep -q '^ktrace.ko' /tmp/s || fail "no ktrace.ko section" || return 1
	grep -q 'ktrace:sched_schedule' /tmp/s || fail "enabled event not shown" || return 1
	entries=$(cat $D/stats/cpu* | sed -n 's/^entries: //p' | awk '{s += $1} END {print s}')
	[ "$entries" -gt 0 ] || fail "no entries in stats/cpu*" || return 1
	all=$(awk '/^ktrace.ko/ {m = 1} m && $1 == "all" {print $2}' /tmp/s)
	expect "entries of 'all' in ktrace stat" "$all" "$entries" || return 1
	grep -q '"module":{"running":false' /tmp/j || fail "no module in JSON" || return 1
	$K reset || return 1
	expect "sched_schedule after reset" "$(cat $D/events/sched_schedule/enable)" 0 &&
	expect "entries after reset" \
		"$(cat $D/stats/cpu* | sed -n 's/^entries: //p' | awk '{s += $1} END {print s}')" 0
}

# rec NAME ARGS...: ktrace record -o $CLI/NAME.dat ARGS, the workload's
# pid in $CLI/NAME.pid; the engine must be left stopped and unselected.
rec() {
	rn=$1
	shift
	$K record -q -o $CLI/$rn.dat "$@" >$CLI/$rn.pid 2>/tmp/err
	rc=$?
	cat /tmp/err
	[ "$rc" = 0 ] || fail "ktrace record exited $rc" || return 1
	[ -s $CLI/$rn.dat ] || fail "no $rn.dat" || return 1
	expect "state after record" "$(cat $D/state)" stopped &&
	expect "enabled after record" "$(cat $D/enabled)" 0 &&
	expect "sched_schedule after record" "$(cat $D/events/sched_schedule/enable)" 0 &&
	expect "syscall_entry after record" "$(cat $D/events/syscall_entry/enable)" 0
}

test_cli_record_both() {
	rec both -e ktrace:sched_schedule -e sched:sched_switch -- /ktvm sleeper 100
}

test_cli_record_pid() {
	if [ ! -e $D/set_pid ]; then
		# No pid filter in this ktrace.ko: -F must say so, not ignore it.
		if $K record -q -o $CLI/x.dat -e ktrace:syscall_entry -F -- /ktvm getppid 10 \
			2>/tmp/err; then
			fail "record -F worked without set_pid"
			return 1
		fi
		cat /tmp/err
		grep -q 'no pid filter' /tmp/err
		return
	fi
	rec pid -e ktrace:syscall_entry -F -- /ktvm getppid 10 || return 1
	! grep -q '[0-9]' $D/set_pid || fail "set_pid not cleared: $(cat $D/set_pid)"
}

# A filter on a module event, and stream on one, are one clear line each,
# before anything is touched: no instance, the module stopped, switches off.
test_cli_refusals() {
	if $K record -q -o $CLI/f.dat -e ktrace:sched_schedule -f 'pid == 1' \
		-- /ktvm getppid 1 2>/tmp/err; then
		fail "record took a filter on a module event"
		return 1
	fi
	cat /tmp/err
	grep -q 'takes no filter' /tmp/err || fail "no 'takes no filter'" || return 1
	[ ! -e $CLI/f.dat ] || fail "f.dat written" || return 1
	if $K stream -e ktrace:sched_schedule -- /ktvm getppid 1 >/tmp/sout 2>/tmp/err; then
		fail "stream took a module event"
		return 1
	fi
	cat /tmp/err
	expect "stream's error lines" "$(wc -l </tmp/err)" 1 || return 1
	grep -q "is ktrace.ko's event" /tmp/err || fail "no 'is ktrace.ko's event'" || return 1
	[ ! -s /tmp/sout ] || fail "stream printed: $(head -3 /tmp/sout)" || return 1
	expect "ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0 &&
	expect "state after the refusals" "$(cat $D/state)" stopped &&
	expect "enabled after the refusals" "$(cat $D/enabled)" 0 &&
	expect "sched_schedule after the refusals" "$(cat $D/events/sched_schedule/enable)" 0
}

# The recordings to the host, in console lines (t() keeps stdout).
# kprobes, which the host's kernel lacks: on a kernel function by name,
# with fetch arguments, entry and return; gone after the recording.
# The text goes to the host, which compares trace-cmd's with it.
test_cli_kprobe() {
	$K record -q -F -o $CLI/kprobe.dat --kprobe 'do_sys_openat2 dfd=%di:s32' \
		--kretprobe 'do_sys_openat2 ret=$retval:s64' -- \
		/bin/sh -c 'for i in 1 2 3 4 5; do : </proc/version; done' || return 1
	$K report -i $CLI/kprobe.dat >$CLI/kprobe.txt || return 1
	n=$(grep -c ' do_sys_openat2: .*dfd=' $CLI/kprobe.txt)
	r=$(grep -c ' do_sys_openat2_ret: .*ret=' $CLI/kprobe.txt)
	echo "kprobe: $n entries, $r returns"
	[ "$n" -ge 5 ] || fail "kprobe: $n entries" || return 1
	[ "$r" -ge 5 ] || fail "kretprobe: $r returns" || return 1
	if grep -q ':ktrace_' /sys/kernel/tracing/dynamic_events; then
		fail "probes left: $(cat /sys/kernel/tracing/dynamic_events)"
		return 1
	fi
	return 0
}

test_cli_export() {
	ls -l $CLI
	(cd $CLI && tar c . | gzip -1 | base64) | sed 's/^/KTCLI: /' >/dev/console
}

test_cli_no_module() {
	umount /proc/kallsyms
	rmmod ktrace || return 1
	if $K list 'ktrace:*' 2>/tmp/err; then
		fail "ktrace:* listed without the module"
		return 1
	fi
	cat /tmp/err
	grep -q 'not loaded' /tmp/err &&
	expect "sched_schedule without the module" "$($K list sched_schedule)" \
		sched:sched_switch
}

# ktrace top --batch on the guest's ring buffer: read() pages on 6.1,
# which cannot map them, the mapped buffer on 6.12 (Linux 6.10+; the
# possible cpu2 that was never online has no buffer to map and is read:
# "mmap+read"); either way every getppid of a workload is counted.
test_cli_top() {
	$K top --batch -n 40 -d 0.25 -e raw_syscalls:sys_enter >/tmp/top.out 2>/tmp/top.err &
	tp=$!
	i=0
	while [ ! -s /tmp/top.out ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	/ktvm getppid 1000 >/dev/null
	wait $tp
	expect "top's status" "$?" 0 || { cat /tmp/top.err; return 1; }
	case $(uname -r) in
	6.1.*) how='(read)' ;;
	*) how='(mmap' ;;
	esac
	head -1 /tmp/top.out
	head -1 /tmp/top.out | grep -qF "$how" ||
		fail "top did not use $how" || return 1
	n=$(awk '$1 == "raw_syscalls:sys_enter" { t = $3 } END { print t + 0 }' /tmp/top.out)
	[ "$n" -ge 1000 ] || fail "top counted $n sys_enter for 1000 getppid calls" || return 1
	expect "ktrace- instances left by top" "$(ls $T/instances | grep -c '^ktrace-')" 0
}

echo "KT: # ktrace CLI on ktrace.ko"
t "cli: load for the CLI tests" cli_load
t "cli: ktrace list 'ktrace:*', bare classic names, --backend, --fields, functions" test_cli_list
t "cli: ktrace enable flips a module event's enable file, refuses a filter" test_cli_enable
t "cli: ktrace stat shows the module's entries; ktrace reset empties it" test_cli_stat
t "cli: ktrace record -e ktrace:sched_schedule -e sched:sched_switch" test_cli_record_both
t "cli: ktrace record -F limits module events to the command" test_cli_record_pid
t "cli: record -f on a module event, stream -e ktrace:NAME: one line, nothing touched" test_cli_refusals
t "cli: record --kprobe/--kretprobe do_sys_openat2 with fetch arguments, removed after" test_cli_kprobe
t "cli: recordings sent to the host" test_cli_export
t "cli: ktrace top --batch counts every getppid, by read() on 6.1, mapped on 6.12" test_cli_top
t "cli: without the module ktrace:* is a clear error, classic names are ftrace's" test_cli_no_module
