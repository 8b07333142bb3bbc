#!/bin/sh
# The process tracer, the pid set and exports, in the guest: sourced by
# guest.sh (its t, expect, val, matched, fail and events_off), with
# ktrace.ko unloaded before and after.
X=/sys/kernel/debug/ktrace_export_sample

# proc_reset: everything off and empty, the pid set and filters cleared.
proc_reset() {
	rmmod ktrace_export_sample 2>/dev/null
	events_off
	echo 0 >$D/process_follow_pid
	echo >$D/set_pid
	echo 0 >$D/pid_fork
	echo -1 >$D/process_trace_uid_filter
	echo >$D/process_trace_taskcomm_filter
	echo 1 >$D/process_trace_lifecycle
	echo 0 >$D/process_trace_syscalls
	echo 0 >$D/process_trace_signals
}

# proc_on EVENT...: select the events and start recording.
proc_on() {
	for e in "$@"; do
		echo 1 >$D/events/$e/enable || return 1
	done
	echo 1 >$D/enabled && echo start >$D/state
}

proc_off() {
	echo stop >$D/state
	echo 0 >$D/enabled
}

# gated CMD...: start "/ktvm gate CMD..." held at its gate; sets gpid.
# go lets it run and waits for it.
gated() {
	rm -f /tmp/go /tmp/tp
	mkfifo /tmp/go /tmp/tp
	/ktvm gate "$@" </tmp/go >/tmp/tp 2>/tmp/gated.err &
	exec 5>/tmp/go
	read -r gpid </tmp/tp
	# Only once it sleeps in read(2) (syscall 0) has it made its last
	# syscall before the gate opens.
	until grep -q '^0 ' /proc/$gpid/syscall 2>/dev/null; do
		[ -d /proc/$gpid ] || break
	done
}

go() {
	echo >&5
	exec 5>&-
	wait "$gpid"
}

# lifecycle_read: read the process_* records into /tmp/r, dumped.
lifecycle_read() {
	/ktvm read -f $D/events -d process_fork -d process_exec \
		-d process_exit -d process_signal -d process_signal_generate $D >/tmp/r
}

# count EVENT [FIELD=VALUE...]: dumped records of EVENT matching all.
count() {
	ev=$1
	shift
	pat="^dump $ev "
	n=$(grep "$pat" /tmp/r | {
		c=0
		while read -r line; do
			ok=1
			for kv in "$@"; do
				case " $line " in
				*" $kv "*) ;;
				*) ok=0 ;;
				esac
			done
			c=$((c + ok))
		done
		echo $c
	})
	echo "$n"
}

test_proc_load() {
	insmod /ktrace.ko || return 1
	for f in set_pid pid_fork process_follow_pid process_trace_uid_filter \
		process_trace_taskcomm_filter process_trace_lifecycle \
		process_trace_syscalls process_trace_signals process_trace_README \
		events/process_fork events/process_exec events/process_exit \
		events/process_signal events/process_signal_generate \
		events/process_syscall_entry events/process_syscall_exit; do
		[ -e "$D/$f" ] || fail "missing $D/$f" || return 1
	done
	expect lifecycle "$(cat $D/process_trace_lifecycle)" 1 &&
	expect syscalls "$(cat $D/process_trace_syscalls)" 0 &&
	expect signals "$(cat $D/process_trace_signals)" 0 &&
	expect follow "$(cat $D/process_follow_pid)" 0 &&
	expect uid "$(cat $D/process_trace_uid_filter)" -1 &&
	expect comm "$(cat $D/process_trace_taskcomm_filter)" "" &&
	expect set_pid "$(cat $D/set_pid)" "" &&
	grep -q '^1\. ' $D/process_trace_README || fail "README has no steps" || return 1
	for e in process_fork process_exec process_exit process_signal \
		process_signal_generate process_syscall_entry process_syscall_exit; do
		grep -q 'field:char comm\[16\];' $D/events/$e/format ||
			fail "$e has no comm" || return 1
	done
	/ktvm formats $D/events
}

# refused FILE VALUE...: every write fails with EINVAL, FILE unchanged.
refused() {
	f=$1
	shift
	before=$(cat $D/$f)
	for g in "$@"; do
		if /ktvm write $D/$f "$g" >/tmp/err; then
			echo "$f accepted '$g'"
			rc=1
		elif ! grep -q 'Invalid argument' /tmp/err; then
			echo "$f refused '$g' without EINVAL: $(cat /tmp/err)"
			rc=1
		fi
	done
	expect "$f after garbage" "$(cat $D/$f)" "$before" || rc=1
}

test_proc_garbage() {
	rc=0
	echo "1 2" >$D/set_pid
	echo 7 >$D/process_trace_uid_filter
	echo sh >$D/process_trace_taskcomm_filter
	refused set_pid x -1 "1 x" "1,2" "0 1" 99999999999 4194304
	refused pid_fork 2 on -1 x
	refused process_follow_pid x -1 1x 4194304 99999999999
	refused process_trace_uid_filter x -2 4294967295 1.5 "1 2"
	refused process_trace_taskcomm_filter "a b" 0123456789abcdef
	for f in lifecycle syscalls signals; do
		refused process_trace_$f 2 on -1 x
	done
	expect "set_pid" "$(cat $D/set_pid | tr '\n' ' ')" "1 2 " || rc=1
	# A pid no process has: no such process, nothing changed.
	if /ktvm write $D/process_follow_pid 4000000 >/tmp/err ||
		! grep -q 'No such process' /tmp/err; then
		echo "follow of a missing pid: $(cat /tmp/err)"
		rc=1
	fi
	expect follow "$(cat $D/process_follow_pid)" 0 || rc=1
	echo >$D/set_pid
	expect "set_pid after an empty write" "$(cat $D/set_pid)" "" || rc=1
	echo 0 >$D/set_pid
	expect "set_pid after 0" "$(cat $D/set_pid)" "" || rc=1
	proc_reset
	return $rc
}

# The pid set: a process outside it leaves no record, one inside does.
test_pid_set() {
	proc_reset
	echo 1 >$D/events/syscall_entry/enable
	gated getppid 500
	out=$gpid
	echo "1 $out" >$D/set_pid || return 1
	expect "set_pid" "$(cat $D/set_pid | tr '\n' ' ')" "1 $out " || return 1
	echo 1 >$D/set_pid
	proc_on
	go
	gated getppid 300
	echo "$gpid" >$D/set_pid
	go
	proc_off
	/ktvm read -f $D/events -m "syscall_entry:common_pid=$out" \
		-m "syscall_entry:common_pid=$gpid,nr=$GETPPID_NR" \
		-d syscall_entry $D >/tmp/r
	grep -v '^dump' /tmp/r
	grep '^dump' /tmp/r | grep -v " nr=$GETPPID_NR\$"
	expect "records of $out, outside the set" \
		"$(matched "syscall_entry:common_pid=$out")" 0 &&
	expect "getppid records of $gpid, in the set" \
		"$(matched "syscall_entry:common_pid=$gpid,nr=$GETPPID_NR")" 300 &&
	expect "records in all" "$(val records /tmp/r)" 301
}

# A three-generation tree under process_follow_pid, a busy process and
# a forking loop beside it: every fork, exec and exit of the tree and
# nothing else.
test_follow_tree() {
	proc_reset
	/ktvm getppid 300000 >/tmp/busy &
	busy=$!
	sh -c 'i=0; while [ $i -lt 20 ]; do /ktvm exit 0; i=$((i + 1)); done' &
	loop=$!
	gated tree
	echo "$gpid" >$D/process_follow_pid || return 1
	expect follow "$(cat $D/process_follow_pid)" "$gpid" || return 1
	expect pid_fork "$(cat $D/pid_fork)" 1 || return 1
	proc_on process_fork process_exec process_exit || return 1
	go || fail "the tree failed" || return 1
	wait $busy $loop
	proc_off
	lifecycle_read
	cat /tmp/gated.err
	tree="$gpid $(awk '{print $2}' /tmp/gated.err | tr '\n' ' ')"
	echo "tree: $tree"
	rc=0
	for p in $(sed -n 's/^dump .* common_pid=\([0-9]*\) .*/\1/p' /tmp/r); do
		case " $tree " in
		*" $p "*) ;;
		*) echo "a record of pid $p, outside the tree"; rc=1 ;;
		esac
	done
	[ "$(echo $tree | wc -w)" = 5 ] || fail "tree: $tree" || return 1
	g2=$(sed -n 's/^gen2 //p' /tmp/gated.err)
	g3=$(sed -n 's/^gen3 //p' /tmp/gated.err)
	expect forks "$(count process_fork)" 4 &&
	expect "forks by the root" "$(count process_fork common_pid=$gpid)" 2 &&
	expect execs "$(count process_exec filename=/ktvm comm=ktvm)" 2 &&
	expect exits "$(count process_exit)" 5 &&
	expect "exit of the root" "$(count process_exit common_pid=$gpid exit_code=0)" 1 || return 1
	for p in $g2; do
		expect "fork by $p" "$(count process_fork common_pid=$p)" 1 &&
		expect "exit 2 of $p" "$(count process_exit common_pid=$p exit_code=512)" 1 || return 1
	done
	for p in $g3; do
		expect "fork of $p" "$(count process_fork child_pid=$p)" 1 &&
		expect "exec by $p" "$(count process_exec common_pid=$p)" 1 &&
		expect "exit 3 of $p" "$(count process_exit common_pid=$p exit_code=768)" 1 || return 1
	done
	expect "the set after the tree exited" "$(cat $D/set_pid)" "" &&
	expect dropped "$(cat $D/dropped)" 0 &&
	return $rc
}

# set_pid with pid_fork off: the root of the tree only; with it on (and
# no process_follow_pid), the whole tree.
test_pid_fork() {
	proc_reset
	gated tree
	echo "$gpid" >$D/set_pid
	proc_on process_fork process_exit || return 1
	go || return 1
	proc_off
	lifecycle_read
	grep '^dump' /tmp/r
	expect "forks, pid_fork off" "$(count process_fork common_pid=$gpid)" 2 &&
	expect "records, pid_fork off" "$(grep -c '^dump' /tmp/r)" 3 &&
	expect "set, pid_fork off" "$(cat $D/set_pid)" "$gpid" || return 1
	echo 1 >$D/reset
	echo 1 >$D/pid_fork
	gated tree
	echo "$gpid" >$D/set_pid
	proc_on
	go || return 1
	proc_off
	lifecycle_read
	expect "forks, pid_fork on" "$(count process_fork)" 4 &&
	expect "exits, pid_fork on" "$(count process_exit)" 5 &&
	expect "set after the exits" "$(cat $D/set_pid)" ""
}

# uid and comm filters, system-wide.
test_proc_filters() {
	proc_reset
	echo 1000 >$D/process_trace_uid_filter
	expect uid "$(cat $D/process_trace_uid_filter)" 1000 || return 1
	proc_on process_fork process_exec process_exit || return 1
	/ktvm asuid 1000 /ktvm exit 0 >/tmp/pid || return 1
	/ktvm exit 0
	proc_off
	lifecycle_read
	p=$(cat /tmp/pid)
	n=$(grep -c '^dump ' /tmp/r)
	expect "records of uid 1000" "$n" "$(grep -c "^dump .* common_pid=$p " /tmp/r)" &&
	expect "exec of uid 1000's process" "$(count process_exec common_pid=$p filename=/ktvm)" 1 &&
	expect "exit of uid 1000's process" "$(count process_exit common_pid=$p)" 1 || return 1

	proc_reset
	cp /ktvm /tmp/xcomm
	echo xcomm >$D/process_trace_taskcomm_filter
	expect comm "$(cat $D/process_trace_taskcomm_filter)" xcomm || return 1
	proc_on process_fork process_exec process_exit || return 1
	/tmp/xcomm exit 0
	/ktvm exit 0
	proc_off
	lifecycle_read
	n=$(grep -c '^dump ' /tmp/r)
	expect "records of comm xcomm" "$n" "$(grep -c '^dump .* comm=xcomm ' /tmp/r)" &&
	expect "exec of xcomm" "$(count process_exec filename=/tmp/xcomm comm=xcomm)" 1 &&
	expect "exit of xcomm" "$(count process_exit comm=xcomm)" 1
}

# N getppid calls of a followed process: exactly N syscall records,
# none from a busy process beside it; none with syscalls off.
test_proc_syscalls() {
	proc_reset
	echo 1 >$D/process_trace_syscalls
	echo 0 >$D/process_trace_lifecycle
	proc_on process_syscall_entry process_syscall_exit || return 1
	gated getppid 1000
	echo "$gpid" >$D/process_follow_pid
	/ktvm getppid 20000 >/tmp/busy &
	busy=$!
	go
	wait $busy
	proc_off
	me="common_pid=$gpid,nr=$GETPPID_NR"
	/ktvm read -f $D/events -m "process_syscall_entry:$me" \
		-m "process_syscall_exit:$me,ret=$$" \
		-m "process_syscall_entry:common_pid=$(cat /tmp/busy)" $D >/tmp/r
	cat /tmp/r
	expect "getppid entries" "$(matched "process_syscall_entry:$me")" 1000 &&
	expect "getppid exits returning $$" "$(matched "process_syscall_exit:$me,ret=$$")" 1000 &&
	expect "records of the busy process" \
		"$(matched "process_syscall_entry:common_pid=$(cat /tmp/busy)")" 0 &&
	expect dropped "$(cat $D/dropped)" 0 || return 1

	echo 0 >$D/process_trace_syscalls
	proc_on
	gated getppid 1000
	echo "$gpid" >$D/process_follow_pid
	go
	proc_off
	/ktvm read $D >/tmp/r
	expect "records with syscalls off" "$(val records /tmp/r)" 0
}

test_proc_signals() {
	proc_reset
	echo 1 >$D/process_trace_signals
	proc_on process_signal process_signal_generate || return 1
	gated sigchild
	echo "$gpid" >$D/process_follow_pid
	go || fail "sigchild failed" || return 1
	proc_off
	lifecycle_read
	cat /tmp/r /tmp/gated.err
	c=$(sed -n 's/^child //p' /tmp/gated.err)
	expect "SIGUSR1 to the child" \
		"$(count process_signal common_pid=$c signo=10 code=0 errno=0 comm=ktvm)" 1 &&
	expect "signals in all" "$(count process_signal signo=10)" 1 &&
	expect "SIGUSR1 sent by $gpid to $c, delivered" \
		"$(count process_signal_generate common_pid=$gpid comm=ktvm signo=10 errno=0 code=0 pid=$c group=1 result=0)" 1 &&
	expect "SIGCHLD sent by $c to $gpid" \
		"$(count process_signal_generate common_pid=$c signo=17 pid=$gpid group=1)" 1 &&
	expect "SIGUSR1 sent in all" "$(count process_signal_generate signo=10)" 1 || return 1
	# Sent from outside the tree (this shell): kept for its target.
	gated sleeper 100000
	echo "$gpid" >$D/process_follow_pid
	proc_on
	kill -TERM "$gpid"
	exec 5>&-
	wait "$gpid"
	proc_off
	lifecycle_read
	cat /tmp/r
	expect "SIGTERM sent by $$ to $gpid" \
		"$(count process_signal_generate common_pid=$$ signo=15 pid=$gpid group=1 result=0)" 1 &&
	expect "delivered to $gpid as SIGKILL" "$(count process_signal common_pid=$gpid signo=9)" 1 || return 1

	echo 0 >$D/process_trace_signals
	proc_on
	gated sigchild
	echo "$gpid" >$D/process_follow_pid
	go || fail "sigchild failed" || return 1
	proc_off
	/ktvm read $D >/tmp/r
	expect "records with signals off" "$(val records /tmp/r)" 0
}

# A small buffer: what was read plus what was dropped is all there was;
# the export saw exactly what was stored.
small() {
	insmod /ktrace.ko buf_kb=8 || return 1
	insmod /ktrace_export_sample.ko || return 1
	echo 1 >$D/process_trace_syscalls
	echo 0 >$D/process_trace_lifecycle
	gated getppid 20000
	# Blocked at its gate: none of its syscalls is before the set is.
	echo "$gpid" >$D/process_follow_pid
	proc_on process_syscall_entry || return 1
	go
	proc_off
	/ktvm read -f $D/events -m "process_syscall_entry:common_pid=$gpid" $D >/tmp/r
	cat /tmp/r
	got=$(matched "process_syscall_entry:common_pid=$gpid")
	dropped=$(cat $D/dropped)
	echo "got $got dropped $dropped exported $(cat $X/events)"
	[ "$dropped" -gt 0 ] || fail "nothing dropped" || return 1
	# The getppid calls and exit_group: the process's only syscalls.
	expect "received + dropped" "$((got + dropped))" 20001 &&
	expect "records in all" "$(val records /tmp/r)" "$got" &&
	expect "exported (dropped are not)" "$(cat $X/events)" "$got" &&
	expect "exported bytes" "$(cat $X/bytes)" "$(val bytes /tmp/r)"
}

test_proc_small() {
	proc_reset
	rmmod ktrace || return 1
	small
	rc=$?
	rmmod ktrace_export_sample 2>/dev/null
	rmmod ktrace && insmod /ktrace.ko && return $rc
}

# Exported counts equal what the reader got, across events and CPUs.
test_export_counts() {
	proc_reset
	insmod /ktrace_export_sample.ko || return 1
	for e in syscall_entry syscall_exit sched_schedule process_fork \
		process_exec process_exit; do
		echo 1 >$D/events/$e/enable
	done
	echo 1 >$X/reset
	echo 1 >$D/enabled
	echo start >$D/state
	/ktvm tree 2>/dev/null
	/ktvm sleeper 20 >/dev/null
	/ktvm getppid 1000 >/dev/null
	proc_off
	/ktvm read -f $D/events $D >/tmp/r
	cat /tmp/r
	echo "exported $(cat $X/events) events, $(cat $X/bytes) bytes"
	[ "$(val records /tmp/r)" -gt 2000 ] || fail "too few records" || return 1
	expect dropped "$(cat $D/dropped)" 0 &&
	expect "exported events" "$(cat $X/events)" "$(val records /tmp/r)" &&
	expect "exported bytes" "$(cat $X/bytes)" "$(val bytes /tmp/r)" || return 1
	rmmod ktrace_export_sample
}

test_export_nowrite() {
	if insmod /ktrace_export_sample.ko nowrite=1 2>/tmp/err; then
		rmmod ktrace_export_sample
		fail "an export without write() was registered"
		return 1
	fi
	cat /tmp/err
	grep -q 'Invalid argument' /tmp/err
}

# Unregistering the export while events flow on both CPUs.
test_export_unload() {
	proc_reset
	insmod /ktrace_export_sample.ko || return 1
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/events/sched_schedule/enable
	proc_on
	taskset -c 0 /ktvm getppid 400000 >/dev/null &
	a=$!
	taskset -c 1 /ktvm getppid 400000 >/dev/null &
	b=$!
	/ktvm sleeper 50 >/dev/null
	n=$(cat $X/events)
	rmmod ktrace_export_sample || return 1
	insmod /ktrace_export_sample.ko || return 1
	/ktvm sleeper 20 >/dev/null
	rmmod ktrace_export_sample || return 1
	wait $a $b
	proc_off
	echo "exported $n before the first rmmod"
	[ "$n" -gt 0 ] || fail "nothing exported while running" || return 1
	[ ! -e $X ] || fail "$X left behind" || return 1
	echo 1 >$D/reset
}

test_proc_unload() {
	proc_reset
	echo 1 >$D/process_trace_syscalls
	echo 1 >$D/process_trace_signals
	proc_on process_fork process_exec process_exit process_syscall_entry \
		process_syscall_exit process_signal process_signal_generate
	/ktvm getppid 100000 >/dev/null &
	b=$!
	echo "$b" >$D/process_follow_pid
	/ktvm tree 2>/dev/null &
	t=$!
	rmmod ktrace || return 1
	wait $b $t
	[ ! -e $D ] || fail "$D left behind"
}

t "process tracer: files, defaults, formats with comm" test_proc_load
t "process tracer: garbage to its files is refused and changes nothing" test_proc_garbage
t "pid set: a process outside it leaves no record, one inside all of its" test_pid_set
t "process_follow_pid: every fork, exec, exit of a 3-generation tree, nothing else" test_follow_tree
t "set_pid follows forks only with pid_fork on" test_pid_fork
t "process tracer: uid and comm filters" test_proc_filters
t "process tracer: N getppid give N process_syscall_entry; none when off" test_proc_syscalls
t "process tracer: SIGUSR1 to a child gives process_signal and _generate; none when off" test_proc_signals
t "process tracer: small buffer, received + dropped = N, export = received" test_proc_small
t "export sample counts what the reader got, events and bytes" test_export_counts
t "an export without a write callback is refused with EINVAL" test_export_nowrite
t "export sample unloads while events flow" test_export_unload
t "ktrace.ko unloads while the process tracer follows a tree" test_proc_unload
