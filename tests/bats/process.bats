#!/usr/bin/env bats
# ktrace record --process: the process-event tracer's ftrace backend,
# recorded on the live tracefs and read back with trace-cmd (the oracle)
# and with ktrace's own process view.

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	export KT_PROC_BIN="$BATS_FILE_TMPDIR/bin"
	# Exactly N getppid system calls (110 on x86_64) after printing its pid.
	kt_tool getppid_n "$KT_PROC_BIN"
	# The process view's driver (with the sanitizers): records made of
	# this kernel's formats, sound and damaged.
	kt_build_units
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >ktrace.pids
	top_events=$(cat "$TRACEFS/set_event")
	busy=
}

teardown() {
	[ -z "$busy" ] || kill "$busy" 2>/dev/null || true
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
	[ "$(cat "$TRACEFS/set_event")" = "$top_events" ] ||
		fail "top-level set_event changed"
}

tc() { trace-cmd report -i "$1" 2>/dev/null; }

# The pids of the lines of a trace-cmd report on stdin ("comm-PID [cpu]").
line_pids() {
	awk '$2 ~ /^\[[0-9]+\]$/ { n = split($1, a, "-"); print a[n] }' | sort -u
}

@test "a three-generation tree: every fork, exec and exit, nothing from beside it" {
	# A busy process running beside the recording, outside the tree.
	sh -c 'while :; do :; done' &
	busy=$!
	: >pids
	run rec -q -o t.dat --process -- sh -c '
		echo "1 $$" >>pids
		sh -c "echo \"2 \$\$\" >>pids; sh -c '\''echo \"3 \$\$\" >>pids; exit 3'\'' ; exit 2" &
		wait $!; echo "w $?" >>pids; exit 1'
	assert_failure 1
	grep -qx 'w 2' pids || fail "the tree did not run: $(cat pids)"
	g1=$(awk '$1 == 1 { print $2 }' pids)
	g2=$(awk '$1 == 2 { print $2 }' pids)
	g3=$(awk '$1 == 3 { print $2 }' pids)
	run tc t.dat
	assert_success
	out=$output
	# Generation 1 forks 2, 2 forks 3; each execs sh and exits.
	grep -qE -- "-$g1 +\[[0-9]+\] +[0-9.]+: task_newtask: +pid=$g2 " <<<"$out" || fail "no fork of $g2 by $g1"
	grep -qE -- "-$g2 +\[[0-9]+\] +[0-9.]+: task_newtask: +pid=$g3 " <<<"$out" || fail "no fork of $g3 by $g2"
	for p in "$g1" "$g2" "$g3"; do
		grep -qE -- "-$p +\[[0-9]+\] +[0-9.]+: sched_process_exec: +filename=/usr/bin/sh pid=$p " <<<"$out" ||
			fail "no exec of $p"
		grep -qE -- "-$p +\[[0-9]+\] +[0-9.]+: sched_process_exit: +comm=sh pid=$p " <<<"$out" ||
			fail "no exit of $p"
	done
	# Every pid in the file is one of the tree's (the exit-code
	# subshells of sh are part of it too), never the busy one.
	seen=$(line_pids <<<"$out")
	grep -qx "$busy" <<<"$seen" && fail "the busy process $busy was recorded"
	for p in $seen; do
		grep -qE -- "task_newtask: +pid=$p |sched_process_exec: +filename=[^ ]+ pid=$p old_pid=$p\$" <<<"$out" ||
			[ "$p" = "$g1" ] || fail "pid $p is not from the tree"
	done
	# System calls and signals are on by default: sh waits for a SIGCHLD.
	grep -qE -- "-$g1 +\[[0-9]+\] +[0-9.]+: sys_enter: " <<<"$out" || fail "no system calls"
	grep -qE -- "-$g1 +\[[0-9]+\] +[0-9.]+: signal_deliver: +sig=17 " <<<"$out" || fail "no SIGCHLD delivery"
}

@test "the instance follows the tree: set_event_pid, event-fork, the process events" {
	mkfifo go
	rec_started -q -o i.dat --process --comm 'sle*' -- sh -c 'read x <go'
	p=$pid
	inst="$TRACEFS/instances/ktrace-$p"
	[ "$(cat "$inst/options/event-fork")" = 1 ] || fail "event-fork is off"
	cmdpid=$(cat "$inst/set_event_pid")
	[ -n "$cmdpid" ] || fail "set_event_pid is empty"
	events=$(sort "$inst/set_event" | tr '\n' ' ')
	filter=$(cat "$inst/events/raw_syscalls/sys_enter/filter")
	nfilter=$(cat "$inst/events/task/task_newtask/filter")
	gfilter=$(cat "$inst/events/signal/signal_generate/filter")
	echo go >go
	wait "$p"
	assert_equal "$events" "raw_syscalls:sys_enter raw_syscalls:sys_exit sched:sched_process_exec sched:sched_process_exit signal:signal_deliver signal:signal_generate task:task_newtask "
	assert_equal "$filter" 'comm ~ "sle*"'
	assert_equal "$nfilter" 'comm ~ "sle*"'
	# signal_generate's own comm is the target's; COMM is the sender's.
	assert_equal "$gfilter" '(COMM ~ "sle*" || comm ~ "sle*")'
	# The file says it was recorded with --process.
	run trace-cmd dump --options -i i.dat
	assert_output --regexp "ktrace [0-9.]+ \+process"
}

@test "--comm keeps only the processes of that name" {
	run rec -q -o c.dat --process --comm getppid_n -- sh -c "
		ls / >/dev/null; $KT_PROC_BIN/getppid_n 77; cat /dev/null"
	assert_success
	pid=$output
	run tc c.dat
	assert_success
	comms=$(awk '$2 ~ /^\[[0-9]+\]$/ { sub(/-[0-9]+$/, "", $1); print $1 }' <<<"$output" | sort -u)
	assert_equal "$comms" "getppid_n"
	# Its exec (named after the exec) and exit are in; exactly its calls.
	assert_output --regexp "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sched_process_exec: +filename=$KT_PROC_BIN/getppid_n "
	assert_output --regexp "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sched_process_exit: "
	n=$(grep -cE -- "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 110 " <<<"$output")
	[ "$n" -eq 77 ] || fail "$n getppid calls"
	# The SIGCHLD it sends at its end: kept by the sender's name.
	assert_output --regexp "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: signal_generate: +sig=17 errno=0 code=1 comm=sh "
}

@test "a followed process doing N getppid calls gives exactly N entries and N returns" {
	run rec -q -o g.dat --process -- sh -c "$KT_PROC_BIN/getppid_n 3210; true"
	assert_success
	pid=$output
	run tc g.dat
	n=$(grep -cE -- "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 110 " <<<"$output")
	[ "$n" -eq 3210 ] || fail "$n getppid entries for $pid"
	n=$(grep -cE -- "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sys_exit: +NR 110 = [0-9]+\$" <<<"$output")
	[ "$n" -eq 3210 ] || fail "$n getppid returns for $pid"
}

@test "--no-syscalls and --no-signals leave those out; the exit code still comes" {
	# The child waits in the shell's wait, which a trapped signal ends.
	script='trap "echo got" USR1; sleep 10 & s=$!; echo $$ >fifo; wait $s; kill $s; exit 5'
	mkfifo fifo
	for mode in on off; do
		args=()
		[ "$mode" = off ] && args=(--no-syscalls --no-signals)
		run rec -q -o s-$mode.dat --process "${args[@]}" -- sh -c "
			sh -c '$script' & c=\$!
			read x <fifo; echo \$x >child.pid; kill -USR1 \$c; wait \$c"
		assert_failure 5
		child=$(cat child.pid)
		run tc s-$mode.dat
		if [ "$mode" = on ]; then
			assert_output --regexp "sh-$child +\[[0-9]+\] +[0-9.]+: signal_deliver: +sig=10 "
			assert_output --regexp ": sys_enter: +NR "
			assert_output --regexp ": sys_exit: +NR "
		else
			refute_output --partial "signal_deliver"
			refute_output --partial "signal_generate"
			refute_output --partial "sys_enter: "
			refute_output --partial "sys_exit: "
			# exit_group(5) is kept for the exit line.
			assert_output --regexp "sh-$child +\[[0-9]+\] +[0-9.]+: sys_enter_exit_group: +error_code: 0x0+5"
		fi
		assert_output --regexp "sh-$child +\[[0-9]+\] +[0-9.]+: sched_process_exit: "
	done
	# --no-lifecycle: system calls only.
	run rec -q -o l.dat --process --no-lifecycle --no-signals -- "$KT_PROC_BIN/getppid_n" 5
	assert_success
	run tc l.dat
	refute_output --partial "sched_process_"
	refute_output --partial "task_newtask"
	assert_output --partial "sys_enter: "
}

@test "--process -p follows a running process and its new children" {
	mkfifo go
	sh -c 'read x <go; sh -c "echo \$\$ >kid; exit 0"; sleep 0.2' &
	victim=$!
	rec_started -q -o p.dat --process --no-syscalls -p "$victim"
	p=$pid
	echo go >go
	wait "$victim"
	kill -INT "$p"
	wait "$p"
	kid=$(cat kid)
	run tc p.dat
	assert_output --regexp "sh-$victim +\[[0-9]+\] +[0-9.]+: task_newtask: +pid=$kid "
	assert_output --regexp "sh-$kid +\[[0-9]+\] +[0-9.]+: sched_process_exec: "
	assert_output --regexp "-$kid +\[[0-9]+\] +[0-9.]+: sched_process_exit: "
	assert_output --regexp "-$victim +\[[0-9]+\] +[0-9.]+: sched_process_exit: "
}

@test "--uid without the module: one line, exit 1, nothing changed" {
	run rec -o u.dat --process --uid 0 -- true
	assert_failure 1
	# (Another test run may have the module loaded on this shared kernel:
	# then --uid works, and only --backend ftrace below refuses it.)
	if [ ! -d /sys/module/ktrace ]; then
		assert_output "ktrace record: --uid needs the ktrace module (kernel/ktrace.ko); load it with 'insmod kernel/ktrace.ko', or use --comm NAME or -P PID"
	fi
	run rec -o u.dat --process --backend ftrace --uid 0 -- true
	assert_failure 1
	assert_output "ktrace record: --uid needs the ktrace module, and --backend ftrace leaves it out; drop --backend ftrace, or use --comm NAME or -P PID"
	[ ! -e u.dat ] || fail "file written"
	run ls -A .
	refute_output --partial ".tmp-"
}

@test "--process --backend module without the module: one line, exit 1, nothing written" {
	[ ! -d /sys/module/ktrace ] || fail "this test needs ktrace.ko not loaded"
	run rec -o m.dat --process --backend module -- true
	assert_failure 1
	assert_output "ktrace record: --backend module needs ktrace.ko, which is not loaded; load it with 'insmod ktrace.ko' (build it with 'make module'; see kernel/README.md)"
	[ ! -e m.dat ]
	run rec -o m.dat --process --uid x1 -- true
	assert_failure 64
	assert_output --partial "bad user id 'x1' for --uid"
}

@test "a command's exit status 3 passes through without a word about lost events" {
	run rec -o s.dat --process --no-syscalls -- sh -c 'exit 3'
	assert_failure 3
	refute_output --partial "lost"
	[ -s s.dat ]
}

@test "usage errors: process options without --process, nothing left to record" {
	run rec -o x.dat --comm sh -- true
	assert_failure 64
	run rec -o x.dat --no-signals -- true
	assert_failure 64
	run rec -o x.dat --process --no-syscalls --no-signals --no-lifecycle -- true
	assert_failure 64
	assert_output --partial "nothing to record"
	run rec -o x.dat --process --comm 'a"b' -- true
	assert_failure 64
	[ ! -e x.dat ]
}

@test "the process view: one line per event, ? for what the record lacks" {
	run "$UNIT/procview-feed" "$TRACEFS" <<'EOF'
task:task_newtask common_pid=100 pid=101 clone_flags=0x1200011
task:task_newtask common_pid=101 pid=102 clone_flags=0x3d0f00
sched:sched_process_exec common_pid=101 filename=/usr/bin/ls pid=101 old_pid=101
sched:sched_process_exec common_pid=101 filename=/usr/bin/ls pid=101 old_pid=102
signal:signal_deliver common_pid=101 sig=10 errno=0 code=-6
raw_syscalls:sys_enter common_pid=101 id=257 args=0xffffff9c,0x7ffd1234,0x80000,0,0,0
raw_syscalls:sys_exit common_pid=101 id=257 ret=3
raw_syscalls:sys_exit common_pid=101 id=257 ret=-2
raw_syscalls:sys_exit common_pid=101 id=9 ret=0x7f0012340000
raw_syscalls:sys_enter common_pid=101 id=110
raw_syscalls:sys_enter common_pid=101 id=999
syscalls:sys_enter_exit_group common_pid=102 error_code=0x107
sched:sched_process_exit common_pid=102 pid=102
sched:sched_process_exit common_pid=101 pid=101
sched:sched_process_exit common_pid=100 pid=100
raw_syscalls:sys_enter common_pid=100 id=231 args=42
sched:sched_process_exit common_pid=100 pid=100
sched:sched_process_fork common_pid=1 child_pid=5
signal:signal_deliver common_pid=300 sig=11 errno=0 code=1 sa_handler=0
sched:sched_process_exit common_pid=300 pid=300
signal:signal_deliver common_pid=301 sig=10 errno=0 code=0 sa_handler=0x5555
sched:sched_process_exit common_pid=301 pid=301
sched:sched_switch common_pid=100
EOF
	assert_success
	assert_output "shown fork 101 flags 0x1200011
shown thread 102 flags 0x3d0f00
shown exec /usr/bin/ls
shown exec /usr/bin/ls old_pid 102
shown signal 10 SIGUSR1 errno 0 code -0x6
shown syscall openat(0xffffff9c, 0x7ffd1234, 0x80000, 0x0)
shown syscall openat rc 3 error 0
shown syscall openat rc -1 error 2 ENOENT
shown syscall mmap rc 0x7f0012340000 error 0
shown syscall getppid()
shown syscall syscall_999(0x0, 0x0, 0x0, 0x0, 0x0, 0x0)
hidden
shown exit 7
shown exit 7
shown exit ?
shown syscall exit_group(0x2a)
shown exit 42
shown fork 5 flags ?
shown signal 11 SIGSEGV errno 0 code 0x1
shown exit ? killed by 11 SIGSEGV
shown signal 10 SIGUSR1 errno 0 code 0x0
shown exit ?
other"
}

@test "the process view: a signal as it was sent, and the exit it caused" {
	# A fatal one reaches the task as SIGKILL: the exit names the one
	# sent.  A handled one is no longer pending once delivered; an
	# ignored one was never pending.
	run "$UNIT/procview-feed" "$TRACEFS" <<'EOF'
signal:signal_generate common_pid=400 sig=10 errno=0 code=0 pid=400 group=1 result=0
signal:signal_deliver common_pid=400 sig=9 errno=0 code=0 sa_handler=0
sched:sched_process_exit common_pid=400 pid=400
signal:signal_generate common_pid=1 sig=10 errno=0 code=0 pid=401 group=1 result=0
signal:signal_deliver common_pid=401 sig=10 errno=0 code=0 sa_handler=0x5555
signal:signal_generate common_pid=1 sig=15 errno=0 code=0 pid=401 group=1 result=1
signal:signal_deliver common_pid=401 sig=9 errno=0 code=0 sa_handler=0
sched:sched_process_exit common_pid=401 pid=401
task:task_newtask common_pid=500 pid=501 clone_flags=0x3d0f00
signal:signal_generate common_pid=1 sig=15 errno=0 code=0 pid=501 group=0 result=0
signal:signal_deliver common_pid=501 sig=9 errno=0 code=0 sa_handler=0
sched:sched_process_exit common_pid=501 pid=501
signal:signal_deliver common_pid=500 sig=9 errno=0 code=0 sa_handler=0
sched:sched_process_exit common_pid=500 pid=500
signal:signal_generate common_pid=1 sig=17 errno=0 code=-6 pid=402 group=0 result=2
signal:signal_generate common_pid=1 sig=99 errno=0 code=0 pid=402 group=1 result=7
signal:signal_generate size=0
signal:signal_generate common_pid=1 sig=10 size=12
EOF
	assert_success
	assert_output "shown signal 10 SIGUSR1 sent to process 400 errno 0 code 0x0 result delivered
shown signal 9 SIGKILL errno 0 code 0x0 sent as 10 SIGUSR1
shown exit ? killed by 10 SIGUSR1
shown signal 10 SIGUSR1 sent to process 401 errno 0 code 0x0 result delivered
shown signal 10 SIGUSR1 errno 0 code 0x0
shown signal 15 SIGTERM sent to process 401 errno 0 code 0x0 result ignored
shown signal 9 SIGKILL errno 0 code 0x0
shown exit ? killed by 9 SIGKILL
shown thread 501 flags 0x3d0f00
shown signal 15 SIGTERM sent to thread 501 errno 0 code 0x0 result delivered
shown signal 9 SIGKILL errno 0 code 0x0 sent as 15 SIGTERM
shown exit ? killed by 15 SIGTERM
shown signal 9 SIGKILL errno 0 code 0x0 sent as 15 SIGTERM
shown exit ? killed by 15 SIGTERM
shown signal 17 SIGCHLD sent to thread 402 errno 0 code -0x6 result already pending
shown signal 99 sent to process 402 errno 0 code 0x0 result 7
shown signal ? sent to ? errno ? code ? result ?
shown signal 10 SIGUSR1 sent to ? errno ? code ? result ?"
}

@test "kill -USR1 \$\$ in a traced shell: SIGUSR1 in the signal line and in the exit line" {
	run rec -q -o u.dat --process -- sh -c 'echo $$; kill -USR1 $$'
	# The command's end passes through as a shell gives it: 128 + 10.
	assert_failure 138
	pid=${output%%$'\n'*}
	run tc u.dat
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: signal_generate: +sig=10 errno=0 code=0 comm=sh pid=$pid grp=1 res=0"
	# The kernel delivers a fatal signal as SIGKILL to the whole group.
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: signal_deliver: +sig=9 "
	run "$KTRACE" report -i u.dat
	assert_success
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: signal 10 SIGUSR1 sent to process $pid errno 0 code 0x0 result delivered"
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: signal 9 SIGKILL errno 0 code 0x0 sent as 10 SIGUSR1"
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: exit \? killed by 10 SIGUSR1"
	refute_output --partial "killed by 9 SIGKILL"
	# A trapped one is delivered as itself and ends nothing.
	run rec -q -o h.dat --process --no-syscalls -- sh -c 'trap "exit 7" USR1; echo $$; kill -USR1 $$; sleep 5'
	assert_failure 7
	pid=${output%%$'\n'*}
	run "$KTRACE" report -i h.dat
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: signal 10 SIGUSR1 sent to process $pid errno 0 code 0x0 result delivered"
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: signal 10 SIGUSR1 errno 0 code 0x0"
	assert_output --regexp "sh-$pid +\[[0-9]+\] +[0-9.]+: exit 7"
}

# kt_formats DIR: ktrace.ko's process event formats under DIR/events/ktrace,
# as the module prints them (kernel/ktrace-events.c), for procview-feed.
kt_formats() {
	local d=$1/events/ktrace id=2000
	kt_format() {
		id=$((id + 1))
		mkdir -p "$d/$1"
		{
			printf 'name: %s\nID: %d\nformat:\n' "$1" "$id"
			printf '\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n'
			printf '\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n'
			printf '\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n'
			printf '\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n'
			printf '\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n'
			printf '%b' "$2"
			printf '\nprint fmt: %s\n' "$3"
		} >"$d/$1/format"
	}
	kt_format process_fork '\tfield:int child_pid;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:unsigned long clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n' \
		'"comm=%s child_pid=%d clone_flags=0x%lx", REC->comm, REC->child_pid, REC->clone_flags'
	kt_format process_exec '\tfield:int old_pid;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:char filename[256];\toffset:28;\tsize:256;\tsigned:0;\n' \
		'"comm=%s old_pid=%d filename=%s", REC->comm, REC->old_pid, REC->filename'
	kt_format process_exit '\tfield:int exit_code;\toffset:24;\tsize:4;\tsigned:1;\n' \
		'"comm=%s exit_code=0x%x", REC->comm, REC->exit_code'
	kt_format process_signal '\tfield:int signo;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:int errno;\toffset:28;\tsize:4;\tsigned:1;\n\tfield:int code;\toffset:32;\tsize:4;\tsigned:1;\n' \
		'"comm=%s signo=%d errno=%d code=%d", REC->comm, REC->signo, REC->errno, REC->code'
	kt_format process_signal_generate '\tfield:int signo;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:int errno;\toffset:28;\tsize:4;\tsigned:1;\n\tfield:int code;\toffset:32;\tsize:4;\tsigned:1;\n\tfield:int pid;\toffset:36;\tsize:4;\tsigned:1;\n\tfield:int group;\toffset:40;\tsize:4;\tsigned:1;\n\tfield:int result;\toffset:44;\tsize:4;\tsigned:1;\n' \
		'"comm=%s signo=%d errno=%d code=%d pid=%d group=%d result=%d", REC->comm, REC->signo, REC->errno, REC->code, REC->pid, REC->group, REC->result'
	kt_format process_syscall_entry '\tfield:long nr;\toffset:24;\tsize:8;\tsigned:1;\n\tfield:unsigned long args[6];\toffset:32;\tsize:48;\tsigned:0;\n' \
		'"comm=%s nr=%ld args=(0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx)", REC->comm, REC->nr, REC->args[0], REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]'
	kt_format process_syscall_exit '\tfield:long nr;\toffset:24;\tsize:8;\tsigned:1;\n\tfield:long ret;\toffset:32;\tsize:8;\tsigned:1;\n\tfield:int errno;\toffset:40;\tsize:4;\tsigned:1;\n' \
		'"comm=%s nr=%ld ret=%ld errno=%d", REC->comm, REC->nr, REC->ret, REC->errno'
}

@test "the process view of ktrace.ko's process events: the same lines as ftrace's" {
	kt_formats kt
	run "$UNIT/procview-feed" "$TRACEFS" "" kt <<'EOF'
ktrace:process_fork common_pid=100 comm=sh child_pid=101 clone_flags=0x1200011
ktrace:process_fork common_pid=101 comm=sh child_pid=102 clone_flags=0x3d0f00
ktrace:process_exec common_pid=101 comm=ls old_pid=101 filename=/usr/bin/ls
ktrace:process_exec common_pid=101 comm=ls old_pid=102 filename=/usr/bin/ls
ktrace:process_signal common_pid=101 comm=ls signo=10 errno=0 code=-6
ktrace:process_syscall_entry common_pid=101 comm=ls nr=257 args=0xffffff9c,0x7ffd1234,0x80000,0,0,0
ktrace:process_syscall_exit common_pid=101 comm=ls nr=257 ret=3
ktrace:process_syscall_exit common_pid=101 comm=ls nr=257 ret=-2 errno=2
ktrace:process_syscall_entry common_pid=101 comm=ls nr=110
ktrace:process_exit common_pid=102 comm=ls exit_code=0x700
ktrace:process_exit common_pid=101 comm=ls exit_code=0
ktrace:process_exit common_pid=300 comm=x exit_code=0x8b
ktrace:process_exit common_pid=301 comm=x exit_code=9
ktrace:process_signal_generate common_pid=600 comm=sh signo=10 errno=0 code=0 pid=600 group=1 result=0
ktrace:process_signal common_pid=600 comm=sh signo=9 errno=0 code=0
ktrace:process_exit common_pid=600 comm=sh exit_code=0xa
EOF
	assert_success
	assert_output "shown fork 101 flags 0x1200011
shown thread 102 flags 0x3d0f00
shown exec /usr/bin/ls
shown exec /usr/bin/ls old_pid 102
shown signal 10 SIGUSR1 errno 0 code -0x6
shown syscall openat(0xffffff9c, 0x7ffd1234, 0x80000, 0x0)
shown syscall openat rc 3 error 0
shown syscall openat rc -1 error 2 ENOENT
shown syscall getppid()
shown exit 7
shown exit 0
shown exit ? killed by 11 SIGSEGV
shown exit ? killed by 9 SIGKILL
shown signal 10 SIGUSR1 sent to process 600 errno 0 code 0x0 result delivered
shown signal 9 SIGKILL errno 0 code 0x0 sent as 10 SIGUSR1
shown exit ? killed by 10 SIGUSR1"
	# Damaged: cut short, a filename with no end inside the record.
	run "$UNIT/procview-feed" "$TRACEFS" "" kt <<'EOF'
ktrace:process_exec common_pid=1 old_pid=1 filename=/usr/bin/ls size=40
ktrace:process_exec common_pid=1 old_pid=1 filename=/usr/bin/ls size=31
ktrace:process_fork common_pid=1 child_pid=2 clone_flags=0x11 size=30
ktrace:process_exit size=26
ktrace:process_signal size=0
ktrace:process_signal_generate size=0
ktrace:process_syscall_entry common_pid=1 nr=257 args=1,2,3,4,5,6 size=60
ktrace:process_syscall_exit common_pid=1 nr=257 ret=3 size=35
EOF
	assert_success
	assert_output "shown exec ?
shown exec ?
shown fork 2 flags ?
shown exit ?
shown signal ? errno ? code ?
shown signal ? sent to ? errno ? code ? result ?
shown syscall openat(0x1, 0x2, 0x3, ?)
shown syscall openat rc ? error ?"
}

@test "the process view survives damaged records: ? fields, no read outside" {
	# Cut short, a string pointing outside the record, nothing at all.
	run "$UNIT/procview-feed" "$TRACEFS" <<'EOF'
sched:sched_process_exec common_pid=1 filename=/usr/bin/ls pid=1 old_pid=1 loc=0xffffffff
sched:sched_process_exec common_pid=1 filename=/usr/bin/ls pid=1 old_pid=1 loc=0x00ff0014
sched:sched_process_exec common_pid=1 filename=/usr/bin/ls pid=1 old_pid=1 size=10
raw_syscalls:sys_enter common_pid=1 id=257 args=1,2,3,4,5,6 size=40
task:task_newtask common_pid=1 pid=2 clone_flags=0x11 size=9
signal:signal_deliver size=0
raw_syscalls:sys_exit size=12
sched:sched_process_exit size=3
EOF
	assert_success
	assert_output "shown exec ?
shown exec ?
shown exec ?
shown syscall openat(0x1, 0x2, 0x3, ?)
shown fork ? flags ?
shown signal ? errno ? code ?
shown syscall ? rc ? error ?
shown exit ?"
	# Many tasks coming and going: the task table grows and shrinks.
	for i in $(seq 3000); do
		echo "task:task_newtask common_pid=$((i % 97 + 1)) pid=$((i * 7 % 5003 + 2)) clone_flags=$((i % 3 ? 0x3d0f00 : 0x11))"
		echo "syscalls:sys_enter_exit_group common_pid=$((i * 13 % 5003 + 2)) error_code=$((i % 256))"
		echo "sched:sched_process_exit common_pid=$((i * 11 % 5003 + 2)) pid=$((i * 11 % 5003 + 2))"
	done >many
	run "$UNIT/procview-feed" "$TRACEFS" <many
	assert_success
	[ "$(grep -c '^shown exit' <<<"$output")" -eq 3000 ] || fail "not one exit line per exit"
}

@test "the x86_64 system call table agrees with this machine's headers" {
	[ "$(uname -m)" = x86_64 ] || fail "not x86_64"
	echo '#include <asm/unistd_64.h>' | cc -E -dM - |
		awk '$2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/ { sub(/^__NR_/, "", $2); printf "{ %d, \"%s\",\n", $3, $2 }' |
		sort >want
	[ "$(wc -l <want)" -gt 300 ] || fail "no system calls in the headers"
	# (The count is -1 for calls x86_64 never implemented.)
	sed -E 's/ -?[0-9]+ },$//' "$TOP/lib/decode/syscalls-x86_64.h" | grep '^{' | sort >have
	run comm -23 want have
	assert_output ""
}

@test "--process without a command or -p takes every process; --comm narrows it" {
	# A name no other process on the machine has.
	name=ktpv$$
	name=${name:0:15}
	cp "$KT_PROC_BIN/getppid_n" "./$name"
	rec_started -q -o w.dat --process --comm "$name"
	p=$pid
	# Tracing every process: no set_event_pid.
	[ -z "$(cat "$TRACEFS/instances/ktrace-$p/set_event_pid")" ] || fail "set_event_pid is set"
	pid=$("./$name" 55 3) || true
	kill -INT "$p"
	wait "$p"
	run tc w.dat
	assert_success
	comms=$(awk '$2 ~ /^\[[0-9]+\]$/ { sub(/-[0-9]+$/, "", $1); print $1 }' <<<"$output" | sort -u)
	assert_equal "$comms" "$name"
	n=$(grep -cE -- "$name-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 110 " <<<"$output")
	[ "$n" -eq 55 ] || fail "$n getppid calls"
	assert_output --regexp "$name-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 231 \(3,"
}

@test "ktrace report shows a --process file in the process view" {
	run rec -q -o v.dat --process -- sh -c "$KT_PROC_BIN/getppid_n 321 3; exit 4"
	assert_failure 4
	pid=${output%%$'\n'*}
	run "$KTRACE" report -i v.dat
	assert_success
	view=$output
	# Exactly the N calls, named, with their returns.
	n=$(grep -cE -- "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: syscall getppid\(\)\$" <<<"$view")
	[ "$n" -eq 321 ] || fail "$n getppid entries in the view"
	n=$(grep -cE -- "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: syscall getppid rc [0-9]+ error 0\$" <<<"$view")
	[ "$n" -eq 321 ] || fail "$n getppid returns in the view"
	assert_output --regexp "sh-[0-9]+ +\[[0-9]+\] +[0-9.]+: fork $pid flags 0x[0-9a-f]+"
	assert_output --regexp "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: exec $KT_PROC_BIN/getppid_n"
	assert_output --regexp "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: exit 3"
	assert_output --regexp "sh-[0-9]+ +\[[0-9]+\] +[0-9.]+: exit 4"
	assert_output --regexp "syscall exit_group\(0x3\)"
	refute_output --partial "sys_enter:"
	# One line per event: as many as trace-cmd prints.
	[ "$(wc -l <<<"$view")" -eq "$(tc v.dat | grep -c ': ')" ] ||
		fail "$(wc -l <<<"$view") lines, trace-cmd has $(tc v.dat | grep -c ': ')"
	# --format trace-cmd: trace-cmd's own lines.
	run "$KTRACE" report -i v.dat --format trace-cmd
	assert_success
	[ "$output" = "$(tc v.dat | grep -v '^cpus=')" ] || fail "--format trace-cmd differs from trace-cmd report"
}

@test "the process view without system calls: exit codes from exit_group, signals named" {
	script='trap "echo got" USR1; sleep 10 & s=$!; echo $$ >fifo; wait $s; kill $s; exit 5'
	mkfifo fifo
	run rec -q -o n.dat --process --no-syscalls -- sh -c "
		sh -c '$script' & c=\$!
		read x <fifo; echo \$x >child.pid; kill -USR1 \$c; wait \$c"
	assert_failure 5
	child=$(cat child.pid)
	run "$KTRACE" report -i n.dat
	assert_success
	assert_output --regexp "sh-$child +\[[0-9]+\] +[0-9.]+: signal 10 SIGUSR1 errno 0 code 0x0"
	assert_output --regexp "sh-$child +\[[0-9]+\] +[0-9.]+: exit 5"
	# The exit_group events feed the exit lines and make none of their own.
	refute_output --partial "sys_enter_exit_group"
	refute_output --partial "error_code"
	# A file recorded without --process reads as usual; --format process
	# applies the view anyway.
	run rec -q -o plain.dat -e raw_syscalls:sys_enter -F -- "$KT_PROC_BIN/getppid_n" 7
	assert_success
	pid=$output
	run "$KTRACE" report -i plain.dat
	assert_output --regexp "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: sys_enter: +NR 110 "
	run "$KTRACE" report -i plain.dat --format process
	n=$(grep -cE -- "getppid_n-$pid +\[[0-9]+\] +[0-9.]+: syscall getppid\(\)\$" <<<"$output")
	[ "$n" -eq 7 ] || fail "$n getppid lines with --format process"
	run "$KTRACE" report -i plain.dat --format process --raw
	assert_failure 64
}
