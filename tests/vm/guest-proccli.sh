#!/bin/sh
# `ktrace record --process` on ktrace.ko's process tracer, in the guest:
# sourced by guest.sh (its t, expect, fail), with ktrace.ko loaded here
# and unloaded at the end.  The guest checks exit statuses and that every
# control is back as found; the recordings go to the host as "KTPROC: "
# console lines, where tests/vm/host-proccli.sh reads them with ktrace
# report (the process view) and trace-cmd report.
K=/ktrace
PC=/tmp/proccli

pc_load() {
	rmmod ktrace 2>/dev/null
	insmod /ktrace.ko || return 1
	rm -rf $PC
	mkdir -p $PC
	# The recordings go to the host: leave the big kallsyms out.
	: >/tmp/no-kallsyms
	mount --bind /tmp/no-kallsyms /proc/kallsyms
	cp /ktvm /tmp/xcomm
	BUF0=$(cat $D/buffer_size_kb)
}

# pc_clean: every control the process tracer has at its default, the
# engine stopped, no event selected, no instance left.
pc_clean() {
	rc=0
	expect "state" "$(cat $D/state)" stopped || rc=1
	expect "enabled" "$(cat $D/enabled)" 0 || rc=1
	expect "process_follow_pid" "$(cat $D/process_follow_pid)" 0 || rc=1
	expect "process_trace_uid_filter" "$(cat $D/process_trace_uid_filter)" -1 || rc=1
	expect "process_trace_taskcomm_filter" "$(cat $D/process_trace_taskcomm_filter)" "" || rc=1
	expect "process_trace_lifecycle" "$(cat $D/process_trace_lifecycle)" 1 || rc=1
	expect "process_trace_syscalls" "$(cat $D/process_trace_syscalls)" 0 || rc=1
	expect "process_trace_signals" "$(cat $D/process_trace_signals)" 0 || rc=1
	expect "set_pid" "$(cat $D/set_pid)" "" || rc=1
	expect "pid_fork" "$(cat $D/pid_fork)" 0 || rc=1
	expect "buffer_size_kb" "$(cat $D/buffer_size_kb)" "$BUF0" || rc=1
	for e in $D/events/process_*/enable; do
		expect "$e" "$(cat "$e")" 0 || rc=1
	done
	expect "ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0 || rc=1
	return $rc
}

# pc_rec NAME WANT_STATUS ARGS...: ktrace record -q --process -o
# $PC/NAME.dat ARGS; the command's stdout in $PC/NAME.out, stderr (the
# command's and ktrace's) in $PC/NAME.err.
pc_rec() {
	pn=$1
	want=$2
	shift 2
	$K record -q --process -o $PC/$pn.dat "$@" >$PC/$pn.out 2>$PC/$pn.err
	rc=$?
	cat $PC/$pn.err
	expect "ktrace record's status" "$rc" "$want" || return 1
	[ -s $PC/$pn.dat ] || fail "no $pn.dat" || return 1
	pc_clean
}

# A 3-generation tree (/ktvm tree: the root forks two children, each
# forks a grandchild that execs /ktvm exit 3), a busy process beside it.
test_pc_tree() {
	/ktvm getppid 300000 >$PC/tree.busy &
	busy=$!
	pc_rec tree 0 -- /ktvm tree || return 1
	wait $busy
}

test_pc_no_syscalls() {
	pc_rec nosys 0 --no-syscalls -- /ktvm tree
}

# 1000 getppid calls, syscalls only.
test_pc_getppid() {
	pc_rec getppid 0 --no-lifecycle --no-signals -- /ktvm getppid 1000
}

# -b sizes the module's buffers: 20000 getppid calls (40000 records) fit
# in 8 MB per CPU whenever the reader runs; put back after.
test_pc_bufsize() {
	pc_rec bufsize 0 -b 8192 --no-lifecycle --no-signals -- /ktvm getppid 20000 || return 1
	! grep -q LOST $PC/bufsize.err || fail "events lost with -b 8192"
}

# --uid 1000: only the part of the tree that runs as uid 1000.
test_pc_uid() {
	pc_rec uid 0 --uid 1000 -- sh -c '/ktvm asuid 1000 /ktvm exit 0; /ktvm exit 0'
}

# --comm xcomm: only the process of that name.
test_pc_comm() {
	pc_rec comm 0 --comm xcomm -- sh -c '/tmp/xcomm exit 0; /ktvm exit 0'
}

# A failing command's status passes through; signals are recorded, a
# fatal one as it was sent (kill -USR1 $$: 128 + 10).
test_pc_signal() {
	pc_rec signal 0 --no-syscalls -- /ktvm sigchild || return 1
	pc_rec status 3 --no-syscalls -- /ktvm exit 3 || return 1
	pc_rec fatal 138 -- sh -c 'echo $$; kill -USR1 $$'
}

# -p PID: the module follows that pid while recording (-b 2048: in
# buffers of that size); SIGTERM ends it; SIGINT ends the recording and
# every control is put back.
test_pc_pid_sigint() {
	/ktvm sleeper 100000 >/tmp/sl &
	sl=$!
	$K record -q --process --no-syscalls -b 2048 -p $sl -o $PC/pid.dat 2>$PC/pid.err &
	rp=$!
	# The engine runs once record has set everything up.
	i=0
	until [ "$(cat $D/state)" = running ]; do
		i=$((i + 1))
		[ $i -lt 100000 ] || break
	done
	rc=0
	expect "process_follow_pid while recording -p $sl" "$(cat $D/process_follow_pid)" "$sl" || rc=1
	expect "buffer_size_kb while recording -b 2048" "$(cat $D/buffer_size_kb)" 2048 || rc=1
	echo $sl >$PC/pid.pid
	# Its end is in the file: the signal and the exit it caused.
	kill $sl
	wait $sl
	kill -INT $rp
	wait $rp
	rc2=$?
	cat $PC/pid.err
	expect "record -p's status after SIGINT" "$rc2" 0 || return 1
	pc_clean && return $rc
}

# No command and no -p: every process (nothing followed), narrowed by
# --comm; SIGINT ends it.
test_pc_system() {
	$K record -q --process --comm xcomm -o $PC/system.dat 2>$PC/system.err &
	rp=$!
	i=0
	until [ "$(cat $D/state)" = running ]; do
		i=$((i + 1))
		[ $i -lt 100000 ] || break
	done
	rc=0
	expect "process_follow_pid while recording every process" "$(cat $D/process_follow_pid)" 0 || rc=1
	expect "set_pid while recording every process" "$(cat $D/set_pid)" "" || rc=1
	/tmp/xcomm exit 0
	/ktvm exit 0
	kill -INT $rp
	wait $rp
	rc2=$?
	cat $PC/system.err
	expect "record's status after SIGINT" "$rc2" 0 || return 1
	pc_clean && return $rc
}

# Controls set by hand before the recording are put back as they were.
test_pc_restore_custom() {
	echo 0 >$D/process_trace_lifecycle
	echo 1 >$D/process_trace_signals
	echo 7 >$D/process_trace_uid_filter
	echo sh >$D/process_trace_taskcomm_filter
	$K record -q --process -o $PC/x.dat -- /ktvm exit 0 2>/tmp/err
	cat /tmp/err
	rc=0
	expect "lifecycle put back" "$(cat $D/process_trace_lifecycle)" 0 || rc=1
	expect "signals put back" "$(cat $D/process_trace_signals)" 1 || rc=1
	expect "uid put back" "$(cat $D/process_trace_uid_filter)" 7 || rc=1
	expect "comm put back" "$(cat $D/process_trace_taskcomm_filter)" sh || rc=1
	rm -f $PC/x.dat
	$K reset || rc=1
	pc_clean || rc=1
	return $rc
}

# Refusals: one clear line, nothing touched.
test_pc_refusals() {
	rc=0
	if $K record -q --process --comm 'xc*' -o $PC/g.dat -- /ktvm exit 0 2>/tmp/err; then
		fail "a --comm pattern was taken by the module"
		rc=1
	fi
	cat /tmp/err
	expect "lines for a --comm pattern" "$(wc -l </tmp/err)" 1 || rc=1
	grep -q 'exact names' /tmp/err || fail "no 'exact names'" || rc=1
	[ ! -e $PC/g.dat ] || fail "g.dat written" || rc=1
	# --backend ftrace has no uid.
	if $K record -q --process --backend ftrace --uid 0 -o $PC/g.dat -- /ktvm exit 0 \
		2>/tmp/err; then
		fail "--uid with --backend ftrace worked"
		rc=1
	fi
	cat /tmp/err
	grep -q 'drop --backend ftrace' /tmp/err || fail "no 'drop --backend ftrace'" || rc=1
	pc_clean || rc=1
	return $rc
}

# --backend module without the module: one line, exit 1.
test_pc_no_module() {
	umount /proc/kallsyms
	rmmod ktrace || return 1
	$K record -q --process --backend module -o $PC/n.dat -- /ktvm exit 0 2>/tmp/err
	rc=$?
	cat /tmp/err
	expect "status" "$rc" 1 &&
	expect "error lines" "$(wc -l </tmp/err)" 1 &&
	grep -q 'needs ktrace.ko, which is not loaded' /tmp/err &&
	[ ! -e $PC/n.dat ]
}

test_pc_export() {
	ls -l $PC
	(cd $PC && tar c . | gzip -1 | base64) | sed 's/^/KTPROC: /' >/dev/console
}

echo "KT: # ktrace record --process on ktrace.ko"
t "proccli: load" pc_load
t "proccli: record --process -- 3-generation tree, a busy process beside; controls back" test_pc_tree
t "proccli: record --process --no-syscalls" test_pc_no_syscalls
t "proccli: record --process --no-lifecycle --no-signals -- getppid 1000" test_pc_getppid
t "proccli: record --process -b 8192 sizes the module's buffers, puts them back" test_pc_bufsize
t "proccli: record --process --uid 1000" test_pc_uid
t "proccli: record --process --comm xcomm" test_pc_comm
t "proccli: record --process: a signal; the command's exit status passes through" test_pc_signal
t "proccli: record --process -p PID follows it; SIGINT puts every control back" test_pc_pid_sigint
t "proccli: record --process --comm xcomm without a command: every process of that name" test_pc_system
t "proccli: controls set by hand are put back as found; ktrace reset clears them" test_pc_restore_custom
t "proccli: --comm pattern and --uid with --backend ftrace: one line, nothing touched" test_pc_refusals
t "proccli: recordings sent to the host" test_pc_export
t "proccli: --backend module without the module: one line, exit 1" test_pc_no_module
