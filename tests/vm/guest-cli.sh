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

# record reads the module's buffers mapped, or by read() with
# KTRACE_NO_MMAP=1, and both files hold every getppid of the
# workload; the host has trace-cmd report both (host-cli.sh).
test_cli_record_mmap() {
	for m in mmap read; do
		if [ $m = read ]; then
			KTRACE_NO_MMAP=1 $K record -o $CLI/${m}r.dat -e ktrace:syscall_entry \
				-e ktrace:syscall_exit -F -- /ktvm getppid 2000 \
				>$CLI/${m}r.pid 2>/tmp/err
		else
			$K record -o $CLI/${m}r.dat -e ktrace:syscall_entry \
				-e ktrace:syscall_exit -F -- /ktvm getppid 2000 \
				>$CLI/${m}r.pid 2>/tmp/err
		fi
		rc=$?
		cat /tmp/err
		expect "record's status" "$rc" 0 || return 1
		grep -q "buffers are read by $m\$" /tmp/err ||
			fail "record does not say it read by $m" || return 1
		$K report -i $CLI/${m}r.dat >$CLI/${m}r.txt || return 1
		e=$(grep -c ' syscall_entry: *nr=110 ' $CLI/${m}r.txt)
		x=$(grep -c ' syscall_exit: *nr=110 ' $CLI/${m}r.txt)
		echo "$m: $e entries, $x exits of getppid"
		expect "$m: getppid entries" "$e" 2000 &&
		expect "$m: getppid exits" "$x" 2000 || return 1
	done
	# System-wide, the reader's own system calls are recorded too: it
	# must wait for data as read() does, not close a page of its own
	# calls whenever nothing else is there (a reader that did wrote
	# 50000 pages of them in a second).
	$K record -q -o /tmp/all.dat -e ktrace:syscall_entry -- /ktvm getppid 2000 \
		>/dev/null 2>/tmp/err || { cat /tmp/err; return 1; }
	n=$($K report -i /tmp/all.dat | grep -c ' syscall_entry: ')
	rm -f /tmp/all.dat
	echo "system-wide: $n syscall_entry records for 2000 getppid calls"
	[ "$n" -ge 2000 ] && [ "$n" -lt 12000 ] ||
		fail "system-wide: $n syscall_entry records for 2000 getppid calls" || return 1
}

# A filter on a module event, and stream of one with another clock, are
# one clear line each, before anything is touched: no instance, the
# module stopped, switches off.
test_cli_refusals() {
	if $K record -q -o $CLI/f.dat -e ktrace:sched_schedule -f 'pid == 1' \
		-- /ktvm getppid 1 2>/tmp/err; then
		fail "record took a filter on a module event"
		return 1
	fi
	cat /tmp/err
	grep -q 'takes no filter' /tmp/err || fail "no 'takes no filter'" || return 1
	[ ! -e $CLI/f.dat ] || fail "f.dat written" || return 1
	if $K stream --clock global -e ktrace:sched_schedule -- /ktvm getppid 1 >/tmp/sout 2>/tmp/err; then
		fail "stream took a module event on the global clock"
		return 1
	fi
	cat /tmp/err
	expect "stream's error lines" "$(wc -l </tmp/err)" 1 || return 1
	grep -q "is ktrace.ko's event, stamped with the local clock" /tmp/err ||
		fail "no 'is ktrace.ko's event, stamped with the local clock'" || return 1
	[ ! -s /tmp/sout ] || fail "stream printed: $(head -3 /tmp/sout)" || return 1
	expect "ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0 &&
	expect "state after the refusals" "$(cat $D/state)" stopped &&
	expect "enabled after the refusals" "$(cat $D/enabled)" 0 &&
	expect "sched_schedule after the refusals" "$(cat $D/events/sched_schedule/enable)" 0
}

# stream -e ktrace:syscall_entry -F: every getppid of the command as a
# line, merged in time order with an ftrace event's lines, the module
# put back as found.
test_cli_stream() {
	$K stream -e ktrace:syscall_entry -e sched:sched_process_exit -F -- /ktvm getppid 500 \
		>/tmp/sout 2>/tmp/err
	expect "stream's status" "$?" 0 || { cat /tmp/err; return 1; }
	cat /tmp/err
	n=$(grep -c ' syscall_entry: *nr=110 ' /tmp/sout)
	expect "getppid lines" "$n" 500 || { head -5 /tmp/sout; return 1; }
	grep -q ' sched_process_exit: ' /tmp/sout || fail "no sched_process_exit line" || return 1
	# Merged: the exit comes after every call (the stream's order holds
	# but for what two CPUs commit while they are read, livestream.h).
	last_call=$(grep -n ' syscall_entry: *nr=110 ' /tmp/sout | tail -1 | cut -d: -f1)
	exit_at=$(grep -n ' sched_process_exit: ' /tmp/sout | tail -1 | cut -d: -f1)
	[ "$exit_at" -gt "$last_call" ] ||
		fail "the exit (line $exit_at) before the last getppid (line $last_call)" || return 1
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t < last) { n++; if (last - t > m) m = last - t } last = t; break } }
	     END { printf "# %d steps back in time, the largest %.6f s\n", n, m }' /tmp/sout
	grep -q ' 0 lost' /tmp/err || fail "stream's summary: $(cat /tmp/err)" || return 1
	# The module's rings read() through the same cursor: every call too.
	KTRACE_NO_MMAP=1 $K stream -e ktrace:syscall_entry -F -- /ktvm getppid 500 \
		>/tmp/sout 2>/tmp/err
	expect "stream's status, read()" "$?" 0 || { cat /tmp/err; return 1; }
	cat /tmp/err
	expect "getppid lines, read()" "$(grep -c ' syscall_entry: *nr=110 ' /tmp/sout)" 500 || return 1
	grep -q '(read), 0 lost' /tmp/err || fail "stream's summary, read(): $(cat /tmp/err)" || return 1
	expect "ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0 &&
	expect "state after stream" "$(cat $D/state)" stopped &&
	expect "enabled after stream" "$(cat $D/enabled)" 0 &&
	expect "syscall_entry after stream" "$(cat $D/events/syscall_entry/enable)" 0 &&
	! grep -q '[0-9]' $D/set_pid || fail "set_pid not cleared: $(cat $D/set_pid)"
}

# The recordings to the host, in console lines (t() keeps stdout).
# kprobes, which the host's kernel lacks: on a kernel function by name,
# with fetch arguments, entry and return; gone after the recording.
# The text goes to the host, which compares trace-cmd's with it.
test_cli_kprobe() {
	$K record -q -F -o $CLI/kprobe.dat \
		--kprobe 'do_sys_openat2 dfd=%di:s32 file=+0(%si):ustring kfile=+0(%si):string' \
		--kretprobe 'do_sys_openat2 ret=$retval:s64' -- \
		/bin/sh -c 'for i in 1 2 3 4 5; do : </proc/version; done' || return 1
	$K report -i $CLI/kprobe.dat >$CLI/kprobe.txt || return 1
	n=$(grep -c ' do_sys_openat2: .*dfd=' $CLI/kprobe.txt)
	r=$(grep -c ' do_sys_openat2_ret: .*ret=' $CLI/kprobe.txt)
	echo "kprobe: $n entries, $r returns"
	grep -m 2 ' do_sys_openat2: ' $CLI/kprobe.txt
	# A user string fetched by name: the file the shell opened.
	u=$(grep -c ' do_sys_openat2: .*file="/proc/version"' $CLI/kprobe.txt)
	[ "$u" -ge 5 ] || fail "kprobe: $u entries with file=\"/proc/version\"" || return 1
	[ "$n" -ge 5 ] || fail "kprobe: $n entries" || return 1
	[ "$r" -ge 5 ] || fail "kretprobe: $r returns" || return 1
	if grep -q ':ktrace_' /sys/kernel/tracing/dynamic_events; then
		fail "probes left: $(cat /sys/kernel/tracing/dynamic_events)"
		return 1
	fi
	return 0
}

# The top level's settings a function tracer may borrow, to compare
# before and after a recording.
ftrace_top() {
	for f in current_tracer tracing_on set_ftrace_filter set_ftrace_notrace \
		set_graph_function max_graph_depth set_ftrace_pid set_event_pid \
		set_ftrace_notrace_pid set_event_notrace_pid \
		buffer_size_kb trace_clock options/stacktrace options/func_stack_trace \
		options/function-fork options/event-fork events/sched/sched_process_exec/enable; do
		echo "$f: $(cat $T/$f 2>&1)"
	done
}

# ftrace_clean NAME: nothing of the recording is left (top level as
# before, no ktrace- instance).
ftrace_clean() {
	ftrace_top >/tmp/top.after
	if ! cmp -s /tmp/top.before /tmp/top.after; then
		diff /tmp/top.before /tmp/top.after
		fail "$1: the top level changed"
		return 1
	fi
	expect "$1: ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0
}

# -p function -l vfs_read -F, which the host refuses: every record is
# vfs_read's (one ip; kallsyms is emptied, so no names), of the shell's
# own reads (-F: set_ftrace_pid), in the private instance, nothing left;
# the text goes to the host for trace-cmd's.
test_cli_function() {
	ftrace_top >/tmp/top.before
	$K record -F -o $CLI/func.dat -p function -l vfs_read -- \
		/bin/sh -c 'read x </proc/version; read x </proc/version' 2>/tmp/err || { cat /tmp/err; return 1; }
	cat /tmp/err
	grep -q "runs in instance 'ktrace-" /tmp/err || fail "no 'runs in instance' line" || return 1
	$K report -i $CLI/func.dat >$CLI/func.txt || return 1
	$K report -i $CLI/func.dat --format json >/tmp/fj || return 1
	n=$(grep -c '"event":"function"' /tmp/fj)
	ips=$(grep -o '"ip":[0-9]*' /tmp/fj | sort -u | wc -l)
	echo "function -l vfs_read: $n records of $ips functions"
	head -n 3 $CLI/func.txt
	[ "$n" -ge 2 ] && [ "$ips" = 1 ] || fail "-l vfs_read: $n records of $ips functions" || return 1
	ftrace_clean "-p function" || return 1
	# -n takes vfs_read out of -l 'vfs_read*'.
	ip=$(grep -o '"ip":[0-9]*' /tmp/fj | head -n 1)
	$K record -q -F -o /tmp/notrace.dat -p function -l 'vfs_read*' -n vfs_read -- \
		/bin/sh -c 'read x </proc/version' || return 1
	$K report -i /tmp/notrace.dat --format json >/tmp/nj || return 1
	echo "-n vfs_read: $(grep -c '"event":"function"' /tmp/nj) records, $(grep -c "$ip," /tmp/nj) of vfs_read"
	grep -q "$ip," /tmp/nj && fail "-n vfs_read: vfs_read recorded" && return 1
	ftrace_clean "-p function -n" || return 1
	# -c: the children's calls too (function-fork: the subshell's, a
	# fork; busybox runs cat in the shell and it does not read with
	# read()); --func-stack: a kernel stack after each function record.
	$K record -q -c -o $CLI/funcstack.dat -p function -l vfs_read --func-stack -- \
		/bin/sh -c '(read x </proc/version); read x </proc/version' || return 1
	$K report -i $CLI/funcstack.dat >$CLI/funcstack.txt || return 1
	f=$(grep -c ' function: ' $CLI/funcstack.txt)
	k=$(grep -c ' kernel_stack: ' $CLI/funcstack.txt)
	p=$(grep ' function: ' $CLI/funcstack.txt | sed 's/ *\[.*//; s/.*-//' | sort -u | wc -l)
	echo "-c --func-stack: $f function records of $p pids, $k stacks"
	[ "$p" -ge 2 ] || fail "-c: the calls of $p pid(s)" || return 1
	[ "$k" = "$f" ] || fail "--func-stack: $k stacks for $f records" || return 1
	ftrace_clean "-p function --func-stack -c"
}

# self_calls FILE CHILD: the function records of ktrace's own threads
# (named ktrace, not the command's pid, which is ktrace until its exec).
self_calls() {
	$K report -i "$1" --format json | grep '"event":"function"' |
		grep '"comm":"ktrace' | grep -vc "\"pid\":$2,"
}

# ktrace's own threads are not in a function tracer's file
# (set_ftrace_notrace_pid, as set_event_notrace_pid for events): every
# system call's entry function of every process, recorded while the
# command sleeps, holds none of ktrace's reads and waits; --trace-self
# keeps them.
test_cli_function_self() {
	ftrace_top >/tmp/top.before
	for self in "" --trace-self; do
		$K record -q $self -o /tmp/self.dat -p function -l '__x64_sys_*' -- \
			/bin/sh -c 'echo $$ >/tmp/self.pid; sleep 1' || return 1
		n=$(self_calls /tmp/self.dat "$(cat /tmp/self.pid)")
		all=$($K report -i /tmp/self.dat --format json | grep -c '"event":"function"')
		echo "record -p function ${self:-(default)}: $n of $all calls are ktrace's own"
		if [ -z "$self" ]; then
			[ "$all" -ge 3 ] || fail "only $all calls recorded" || return 1
			[ "$n" = 0 ] || fail "$n calls of ktrace's own threads recorded" || return 1
		else
			[ "$n" -ge 10 ] || fail "--trace-self: only $n calls of ktrace's own" || return 1
		fi
	done
	ftrace_clean "-p function, ktrace left out"
}

# -p function_graph -g do_sys_openat2 --max-graph-depth 3: at the top
# level (put back after) on 6.1, whose instances have no function_graph,
# and on 6.12, whose instances lack set_graph_function and
# max_graph_depth; every call starts at one function, none deeper than
# 3; JSON has each exit's duration.  Then -T with -l (the instance on
# 6.12), a function no kernel has, and SIGINT.
test_cli_fgraph() {
	# Where this kernel's instances offer function_graph, and its files.
	mkdir $T/instances/kt-fg
	ingraph=$(grep -cw function_graph $T/instances/kt-fg/available_tracers)
	indepth=$(ls $T/instances/kt-fg | grep -c '^max_graph_depth$')
	ingfunc=$(ls $T/instances/kt-fg | grep -c '^set_graph_function$')
	echo "instances: function_graph $ingraph, max_graph_depth $indepth, set_graph_function $ingfunc"
	rmdir $T/instances/kt-fg
	case $(uname -r) in
	6.1.*) [ "$ingraph" = 0 ] || fail "6.1 has function_graph in instances" || return 1 ;;
	esac
	# -g and --max-graph-depth need the instance's files (6.12's lack them).
	where='top-level buffer'
	[ "$ingraph" = 1 ] && [ "$indepth" = 1 ] && [ "$ingfunc" = 1 ] &&
		where="in instance 'ktrace-"
	ftrace_top >/tmp/top.before
	$K record -F -o $CLI/fgraph.dat -p function_graph -g do_sys_openat2 --max-graph-depth 3 -- \
		/bin/sh -c 'cat /proc/version >/dev/null; : </proc/version' 2>/tmp/err || { cat /tmp/err; return 1; }
	cat /tmp/err
	grep -q "$where" /tmp/err || fail "not run where expected ($where)" || return 1
	ftrace_clean "-p function_graph" || return 1
	$K report -i $CLI/fgraph.dat >$CLI/fgraph.txt || return 1
	head -n 12 $CLI/fgraph.txt
	$K report -i $CLI/fgraph.dat --format json >/tmp/gj || return 1
	roots=$(grep '"event":"funcgraph_entry"' /tmp/gj | grep '"depth":0[,}]' | grep -o '"func":[0-9]*' | sort -u | wc -l)
	calls=$(grep -c '"event":"funcgraph_entry".*"depth":0[,}]' /tmp/gj)
	deep=$(grep '"event":"funcgraph_' /tmp/gj | grep -o '"depth":[0-9]*' | cut -d: -f2 | sort -n | tail -1)
	durs=$(grep '"event":"funcgraph_exit"' /tmp/gj | grep -c '"duration":[0-9]')
	exits=$(grep -c '"event":"funcgraph_exit"' /tmp/gj)
	echo "function_graph: $calls calls of $roots root functions, depth up to $deep, $durs of $exits exits with a duration"
	[ "$calls" -ge 2 ] && [ "$roots" = 1 ] || fail "-g do_sys_openat2: $calls calls of $roots roots" || return 1
	[ "$deep" -le 2 ] || fail "--max-graph-depth 3: depth $deep" || return 1
	[ "$durs" = "$exits" ] || fail "JSON: $durs of $exits exits have a duration" || return 1
	ftrace_top >/tmp/top.before
	where='top-level buffer'
	[ "$ingraph" = 1 ] && where="in instance 'ktrace-"
	$K record -F -T -o $CLI/fgstack.dat -p function_graph -l do_sys_openat2 \
		-e sched:sched_process_exec -- /bin/sh -c ': </proc/version' 2>/tmp/err || { cat /tmp/err; return 1; }
	grep "tracer runs" /tmp/err
	grep -q "$where" /tmp/err || fail "-T: not run where expected ($where)" || return 1
	ftrace_clean "-p function_graph -T" || return 1
	$K report -i $CLI/fgstack.dat >$CLI/fgstack.txt || return 1
	grep -q '<stack trace' $CLI/fgstack.txt || fail "-T: no stack" || return 1
	grep -q 'funcgraph_e' $CLI/fgstack.txt || fail "-T: no graph" || return 1
	# A function no kernel has: one line, exit 1, the top level put back.
	if $K record -q -o /tmp/bad.dat -p function_graph -g no_such_function_kt -- true 2>/tmp/err; then
		fail "-g no_such_function_kt was taken"
		return 1
	fi
	cat /tmp/err
	grep -q "no kernel function matches 'no_such_function_kt'" /tmp/err || fail "not said" || return 1
	ftrace_clean "-g no_such_function_kt" || return 1
	# SIGINT ends a system-wide recording: the top level put back too.
	$K record -q -o /tmp/int.dat -p function_graph -g do_sys_openat2 &
	rp=$!
	i=0
	while [ "$(cat $T/current_tracer)" != function_graph ] && [ -z "$(ls $T/instances | grep '^ktrace-')" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	: </proc/version
	kill -INT $rp
	wait $rp
	expect "record's status after SIGINT" "$?" 0 || return 1
	ftrace_clean "-p function_graph, SIGINT"
}

EV=ktsample_tick
EVS=/sys/kernel/debug/ktrace_event_sample
EVFMT='"seq=%u label=%s kind=%s"'

# kinds FILE: the ticks of a report by kind, "load N emit N unload N".
kinds() {
	echo "load $(grep -c " $EV: .* kind=load\$" "$1")" \
		"emit $(grep -c " $EV: .* kind=emit\$" "$1")" \
		"unload $(grep -c " $EV: .* kind=unload\$" "$1")"
}

# An event of another module (ktrace_event_sample.ko, KTRACE_EVENT):
# its files, info line and list entry while loaded; recorded across an
# unload and a load by ktrace record, every tick there; decoded by
# report here and by trace-cmd on the host (cli_report); gone after.
test_cli_modevent() {
	rmmod ktrace_event_sample 2>/dev/null
	insmod /ktrace_event_sample.ko count=5 || return 1
	[ -e $D/events/$EV/enable ] && [ -e $D/events/$EV/format ] ||
		fail "no events/$EV/enable and format" || return 1
	cat $D/events/$EV/format
	grep -q "^	field:__data_loc char\[\] label;	offset:[0-9]*;	size:4;	signed:0;\$" \
		$D/events/$EV/format || fail "label is no __data_loc string" || return 1
	grep -qF "print fmt: $EVFMT, REC->seq, __get_str(label), __print_symbolic(REC->kind, { 0, \"load\" }, { 1, \"emit\" }, { 2, \"unload\" })" \
		$D/events/$EV/format || fail "print fmt" || return 1
	id=$(sed -n 's/^ID: //p' $D/events/$EV/format)
	grep "^event $EV " $D/info
	expect "info's $EV line" "$(grep "^event $EV " $D/info)" \
		"event $EV $EVFMT $id disabled module ktrace_event_sample" || return 1
	$K list 'ktrace:*' | grep -qx "ktrace:$EV" || fail "ktrace list 'ktrace:*' lacks $EV" || return 1
	$K list --fields ktrace:$EV >/tmp/f || return 1
	grep -q label /tmp/f || fail "--fields shows no label" || return 1
	# 7 emitted, 1 at unload, 5 at the load after: 13, in a file that
	# saved the format at the start.  The 5 of the first load were not
	# recorded and did not count: ktrace_emit() evaluates its arguments
	# only while the event is on.
	rec modev -e ktrace:$EV -- /bin/sh -c "echo 7 >$EVS/emit && rmmod ktrace_event_sample && insmod /ktrace_event_sample.ko count=5 label=again" ||
		return 1
	expect "$EV's enable after record" "$(cat $D/events/$EV/enable)" 0 || return 1
	$K report -i $CLI/modev.dat >$CLI/modev.txt || return 1
	grep " $EV: " $CLI/modev.txt | head -n 3
	expect "ticks by kind" "$(kinds $CLI/modev.txt)" "load 5 emit 7 unload 1" || return 1
	expect "reloaded ticks" "$(grep -cE " $EV: +seq=[0-4] label=again kind=load\$" $CLI/modev.txt)" 5 ||
		return 1
	expect "emitted ticks" "$(grep -cE " $EV: +seq=[0-6] label=sample kind=emit\$" $CLI/modev.txt)" 7 ||
		return 1
	expect "id after the reload" "$(sed -n 's/^ID: //p' $D/events/$EV/format)" "$id" || return 1
	rmmod ktrace_event_sample || return 1
	[ ! -e $D/events/$EV ] || fail "events/$EV left after rmmod" || return 1
	grep -q "^event $EV " $D/info && fail "info lists $EV after rmmod" && return 1
	$K list 'ktrace:*' | grep -q "$EV" && fail "ktrace list shows $EV after rmmod" && return 1
	return 0
}

# 100 loads and unloads of ktrace_event_sample.ko while its event is
# selected and recorded, with readers of its files and of info going
# on: every tick of every load (10 at its load, 1 at its unload) is in
# the file, each load's under its own label.
test_cli_modevent_cycles() {
	rmmod ktrace_event_sample 2>/dev/null
	insmod /ktrace_event_sample.ko count=10 || return 1
	rm -f /tmp/cyc.stop
	(while [ ! -e /tmp/cyc.stop ]; do
		cat $D/events/$EV/format $D/events/$EV/enable $D/info
	done) >/dev/null 2>&1 &
	rp=$!
	rec cycles -e ktrace:$EV -- /bin/sh -c 'i=0; while [ $i -lt 100 ]; do
		rmmod ktrace_event_sample && insmod /ktrace_event_sample.ko count=10 label=c$i || exit 1
		i=$((i + 1))
	done'
	rc=$?
	touch /tmp/cyc.stop
	wait $rp
	[ "$rc" = 0 ] || return 1
	$K report -i $CLI/cycles.dat >$CLI/cycles.txt || return 1
	expect "ticks by kind" "$(kinds $CLI/cycles.txt)" "load 1000 emit 0 unload 100" ||
		return 1
	expect "loads with their 10 ticks" "$(grep -oE " $EV: +seq=[0-9] label=c[0-9]+ kind=load\$" $CLI/cycles.txt |
		sed 's/.*label=//' | sort | uniq -c | awk '$1 == 10' | wc -l)" 100 || return 1
	$K report -i $CLI/cycles.dat --stat >/tmp/cyc.stat 2>&1 || return 1
	grep -iE 'lost|dropped|overrun' /tmp/cyc.stat
	rmmod ktrace_event_sample &&
	expect "events/$EV after rmmod" "$(ls $D/events | grep -c "^$EV\$")" 0
}

# A module that goes with its event still registered (leak=1) has it
# taken away by ktrace.ko as it goes, with a warning: no files left,
# and switching the engine on and off touches nothing of the module.
test_cli_modevent_leak() {
	rmmod ktrace_event_sample 2>/dev/null
	insmod /ktrace_event_sample.ko leak=1 || return 1
	echo 1 >$D/events/$EV/enable
	echo 1 >$D/enabled
	rmmod ktrace_event_sample || return 1
	dmesg | grep "left its event"
	[ ! -e $D/events/$EV ] || fail "events/$EV left" || return 1
	dmesg | grep -q "ktrace_event_sample left its event $EV registered" ||
		fail "no warning" || return 1
	echo 0 >$D/enabled
	echo 1 >$D/enabled
	echo 0 >$D/enabled
	insmod /ktrace_event_sample.ko count=3 || return 1
	expect "$EV's enable after it came back" "$(cat $D/events/$EV/enable)" 0 &&
	rmmod ktrace_event_sample
}

# record --rotate with ktrace.ko's events and ftrace's: each getppid of
# the workload, entry and exit, in exactly one chunk across many
# boundaries (the two sources' records cut at one time, per CPU in
# order from chunk to chunk, as the series reader checks); each chunk
# read alone with its own counts, the directory read as one.  The host
# counts the chunks again with trace-cmd (host-cli.sh).
ROT_N=60000
test_cli_rotate() {
	rm -rf $CLI/rot
	# 20 ms after each 1000 calls: 1.2 s at least, a dozen files or more.
	$K record -q --rotate 50ms -o $CLI/rot -b 4096 -e ktrace:syscall_entry \
		-e ktrace:syscall_exit -e sched:sched_switch -F -- /ktvm getppid $ROT_N 20 \
		>/dev/null 2>/tmp/err
	rc=$?
	cat /tmp/err
	expect "record --rotate's status" "$rc" 0 || return 1
	echo $ROT_N >$CLI/rot.n
	ls -A $CLI/rot | grep -q '\.part' && fail "a hidden file left: $(ls -A $CLI/rot)" && return 1
	nf=0 e=0 x=0
	for f in $CLI/rot/ktrace-*.dat; do
		$K report -i $f >/tmp/rot.txt 2>/tmp/rerr || { cat /tmp/rerr; fail "$f not read"; return 1; }
		$K stat -i $f >/tmp/rot.st 2>/tmp/rerr || { cat /tmp/rerr; fail "stat -i $f"; return 1; }
		fe=$(grep -c ' syscall_entry: *nr=110 ' /tmp/rot.txt)
		fx=$(grep -c ' syscall_exit: *nr=110 ' /tmp/rot.txt)
		fs=$(grep -c ' sched_switch: ' /tmp/rot.txt)
		echo "# $f: $fe entries, $fx exits of getppid, $fs sched_switch"
		e=$((e + fe))
		x=$((x + fx))
		nf=$((nf + 1))
	done
	echo "# $nf files: $e entries, $x exits of $ROT_N getppid calls"
	[ "$nf" -ge 4 ] || fail "only $nf files" || return 1
	expect "getppid entries in the files" "$e" $ROT_N &&
	expect "getppid exits in the files" "$x" $ROT_N || return 1
	# Read as one: the series reader refuses a chunk whose CPU starts
	# before the last chunk's ended.
	$K report -i $CLI/rot >/tmp/rot.txt 2>/tmp/rerr || { cat /tmp/rerr; fail "the directory not read as one"; return 1; }
	expect "getppid entries in the directory read as one" \
		"$(grep -c ' syscall_entry: *nr=110 ' /tmp/rot.txt)" $ROT_N || return 1
	$K stat -i $CLI/rot >/tmp/rot.st || return 1
	cat /tmp/rot.st
	expect "state after record" "$(cat $D/state)" stopped &&
	expect "enabled after record" "$(cat $D/enabled)" 0
}

# 300 rotations with ktrace.ko's events, a getppid workload running
# throughout: record's memory stays flat, --keep 3 bounds the directory,
# SIGTERM ends it with status 0.
rot_high() {
	ls /tmp/rotm 2>/dev/null | sed -n 's/^ktrace-0*\([0-9][0-9]*\)\.dat$/\1/p' |
		sort -n | tail -n 1
}
rot_wait() {
	i=0
	until [ "$(rot_high)" -ge "$1" ] 2>/dev/null; do
		kill -0 $rp 2>/dev/null || { cat /tmp/err; fail "record exited"; return 1; }
		i=$((i + 1))
		[ $i -lt 3000 ] || { fail "no file $1 in 300 s"; return 1; }
		sleep 0.1
	done
}
test_cli_rotate_memory() {
	rm -rf /tmp/rotm
	# 20000 calls a second: a tmpfs /tmp holds what an emulated CPU
	# has not yet written out.
	/ktvm getppid 2000000000 50 >/dev/null &
	wp=$!
	$K record -q --rotate 10ms --keep 3 -o /tmp/rotm -e ktrace:syscall_entry \
		-e ktrace:syscall_exit -e sched:sched_switch 2>/tmp/err &
	rp=$!
	if ! rot_wait 30; then
		kill $wp $rp 2>/dev/null
		return 1
	fi
	early=$(awk '/^VmRSS/ { print $2 }' /proc/$rp/status)
	rot_wait 330
	ok=$?
	late=$(awk '/^VmRSS/ { print $2 }' /proc/$rp/status)
	kill $wp
	kill -TERM $rp
	wait $rp
	rc=$?
	cat /tmp/err
	echo "VmRSS $early kB at file 30, $late kB at file $(rot_high)" | tee $CLI/rotm.txt
	[ $ok = 0 ] || return 1
	expect "record's status after SIGTERM" "$rc" 0 || return 1
	n=$(ls /tmp/rotm | wc -l)
	[ "$n" -le 3 ] || fail "$n files kept with --keep 3: $(ls -A /tmp/rotm)" || return 1
	[ "$late" -le $((early + early / 10 + 1024)) ] ||
		fail "VmRSS grew from $early to $late kB" || return 1
	for f in /tmp/rotm/ktrace-*.dat; do
		$K report -i $f >/dev/null 2>/tmp/rerr || { cat /tmp/rerr; fail "$f not read"; return 1; }
	done
	rm -rf /tmp/rotm
	expect "state after record" "$(cat $D/state)" stopped
}

# wait_file FILE [SECONDS]: until FILE exists (60 s at most), while
# the recording $rp runs.
wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		kill -0 $rp 2>/dev/null || { cat /tmp/err; fail "record exited before $1"; return 1; }
		i=$((i + 1))
		[ $i -lt $((${2:-60} * 20)) ] || { fail "no $1 in ${2:-60} s"; return 1; }
		sleep 0.05
	done
}

# snap_abort: the workload let go and the recording $rp ended.
snap_abort() {
	: >/tmp/go2
	: >/tmp/go4
	kill $rp 2>/dev/null
	wait $rp
}

# snap_calls FILE PIDFILE: getppid entries and exits of the pid in
# PIDFILE that ktrace report finds in FILE, "ENTRIES EXITS".
snap_calls() {
	$K report -i "$1" >/tmp/snap.txt 2>/tmp/rerr || { cat /tmp/rerr; echo "x x"; return 1; }
	p=$(cat "$2")
	echo "$(grep -E " syscall_entry: *nr=110 " /tmp/snap.txt | grep -cE -- "-$p +\[")" \
		"$(grep -E " syscall_exit: *nr=110 " /tmp/snap.txt | grep -cE -- "-$p +\[")"
}

# ktrace snapshot, --last and SIGUSR2 of a recording of ktrace.ko's
# events and ftrace's, in the middle of it: three getppid workloads
# (3000, 2000, 5000 calls, 12 s between the first two; the last not
# exec'd by the shell, whose own getppid would count); after the
# second, a snapshot of the --last window that starts 3 s after the
# first holds every call of the second and not the first's (at most a
# page a CPU before the window), a whole one and SIGUSR2's hold the
# first two's and none of the third's, and the recording's own file at
# the end holds every call of the three exactly once.  The host has trace-cmd read
# the snapshots too (host-cli.sh).
SNAP_SH='/ktvm getppid 3000 >/tmp/p1; : >/tmp/go1
until [ -e /tmp/go2 ]; do sleep 0.05; done
/ktvm getppid 2000 >/tmp/p2; : >/tmp/go3
until [ -e /tmp/go4 ]; do sleep 0.05; done
/ktvm getppid 5000 >/tmp/p3; :'
test_cli_snapshot() {
	rm -rf /tmp/go* /tmp/ktrun $CLI/snap*
	KTRACE_RUN_DIR=/tmp/ktrun $K record -o $CLI/snapf.dat -b 4096 \
		-e ktrace:syscall_entry -e ktrace:syscall_exit -e sched:sched_switch \
		-c -- /bin/sh -c "$SNAP_SH" >/dev/null 2>/tmp/err &
	rp=$!
	wait_file /tmp/go1 || { snap_abort; return 1; }
	t1=$(cut -d' ' -f1 /proc/uptime)
	sleep 12
	: >/tmp/go2
	wait_file /tmp/go3 || { snap_abort; return 1; }
	# The window starts 3 s after the first workload ended as the
	# request leaves, so the snapshot has 9 s to be taken.
	last=$(awk -v a="$t1" -v b="$(cut -d' ' -f1 /proc/uptime)" \
		'BEGIN { printf "%d", (b - a - 3) * 1000 }')
	echo "# --last ${last}ms"
	KTRACE_RUN_DIR=/tmp/ktrun $K snapshot --last ${last}ms -o $CLI/snapl.dat $rp >/tmp/sout 2>&1
	src=$?
	cat /tmp/sout
	KTRACE_RUN_DIR=/tmp/ktrun $K snapshot -o $CLI/snap.dat >>/tmp/sout 2>&1
	src2=$?
	tail -n 1 /tmp/sout
	kill -USR2 $rp
	i=0
	until grep -q "snapshot '" /tmp/err || [ $i -ge 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	: >/tmp/go4
	wait $rp
	rc=$?
	cat /tmp/err
	expect "ktrace snapshot --last's status" "$src" 0 &&
	expect "ktrace snapshot's status" "$src2" 0 &&
	expect "record's status" "$rc" 0 || return 1
	usr2=$(sed -n "s/.*snapshot '\([^']*\)': .*/\1/p" /tmp/err)
	[ -s "$usr2" ] || fail "SIGUSR2 wrote no snapshot" || return 1
	mv "$usr2" $CLI/snapu.dat
	cp /tmp/p1 $CLI/snap.p1
	cp /tmp/p2 $CLI/snap.p2
	cp /tmp/p3 $CLI/snap.p3
	for f in snapl snap snapu snapf; do
		for w in 1 2 3; do
			set -- $(snap_calls $CLI/$f.dat /tmp/p$w)
			eval ${f}_e$w=$1 ${f}_x$w=$2
			echo "# $f.dat: workload $w: $1 getppid entries, $2 exits"
		done
		$K stat -i $CLI/$f.dat >/tmp/snap.st 2>&1 || { cat /tmp/snap.st; fail "stat -i $f.dat"; return 1; }
	done
	expect "the --last snapshot: the second workload's entries" "$snapl_e2" 2000 &&
	expect "the --last snapshot: its exits" "$snapl_x2" 2000 &&
	expect "the --last snapshot: the third's" "$snapl_e3" 0 || return 1
	# At most a page a CPU before the window.
	[ "$snapl_e1" -lt 3000 ] || fail "the --last snapshot holds all $snapl_e1 of the first workload's, 3 s before it" || return 1
	for f in snap snapu; do
		eval "e1=\$${f}_e1 x1=\$${f}_x1 e2=\$${f}_e2 x2=\$${f}_x2 e3=\$${f}_e3"
		expect "$f.dat: the first workload's entries" "$e1" 3000 &&
		expect "$f.dat: its exits" "$x1" 3000 &&
		expect "$f.dat: the second's entries" "$e2" 2000 &&
		expect "$f.dat: its exits" "$x2" 2000 &&
		expect "$f.dat: the third's, after it" "$e3" 0 || return 1
	done
	expect "the recording's file: the first workload's entries" "$snapf_e1" 3000 &&
	expect "its exits" "$snapf_x1" 3000 &&
	expect "the second's entries" "$snapf_e2" 2000 &&
	expect "its exits" "$snapf_x2" 2000 &&
	expect "the third's entries" "$snapf_e3" 5000 &&
	expect "its exits" "$snapf_x3" 5000 &&
	expect "state after record" "$(cat $D/state)" stopped &&
	expect "enabled after record" "$(cat $D/enabled)" 0
}

# The same of a --rotate recording: a snapshot taken after several
# files holds the finished files and the one being written, ktrace.ko's
# records of it cut and carried as the files are; every call of the
# workload before it in the snapshot once, none after, and the
# directory read as one holds every call once.
test_cli_snapshot_rotate() {
	rm -rf /tmp/go* /tmp/ktrun /tmp/snaprot $CLI/snaprot.dat
	KTRACE_RUN_DIR=/tmp/ktrun $K record -q --rotate 100ms -o /tmp/snaprot -b 4096 \
		-e ktrace:syscall_entry -e ktrace:syscall_exit -e sched:sched_switch \
		-c -- /bin/sh -c '/ktvm getppid 6000 200 >/tmp/p1; : >/tmp/go1
until [ -e /tmp/go4 ]; do sleep 0.05; done
/ktvm getppid 2000 >/tmp/p3; :' >/dev/null 2>/tmp/err &
	rp=$!
	wait_file /tmp/go1 || { snap_abort; return 1; }
	KTRACE_RUN_DIR=/tmp/ktrun $K snapshot -o $CLI/snaprot.dat >/tmp/sout 2>&1
	src=$?
	cat /tmp/sout
	nf=$(ls /tmp/snaprot | grep -c '^ktrace-.*\.dat$')
	: >/tmp/go4
	wait $rp
	rc=$?
	cat /tmp/err
	expect "ktrace snapshot's status" "$src" 0 &&
	expect "record's status" "$rc" 0 || return 1
	cp /tmp/p1 $CLI/snaprot.p1
	cp /tmp/p3 $CLI/snaprot.p3
	echo "# $nf files finished before the snapshot"
	[ "$nf" -ge 2 ] || fail "only $nf files before the snapshot" || return 1
	for w in 1 3; do
		set -- $(snap_calls $CLI/snaprot.dat /tmp/p$w)
		eval s_e$w=$1 s_x$w=$2
		set -- $(snap_calls /tmp/snaprot /tmp/p$w)
		eval d_e$w=$1 d_x$w=$2
		eval echo "\"# workload $w: snapshot \$s_e$w/\$s_x$w, directory \$d_e$w/\$d_x$w\""
	done
	rm -rf /tmp/snaprot
	expect "the snapshot: the first workload's entries" "$s_e1" 6000 &&
	expect "its exits" "$s_x1" 6000 &&
	expect "the second's, after it" "$s_e3" 0 &&
	expect "the directory read as one: the first workload's entries" "$d_e1" 6000 &&
	expect "its exits" "$d_x1" 6000 &&
	expect "the second's entries" "$d_e3" 2000 &&
	expect "its exits" "$d_x3" 2000
}

# mod_lost: what ktrace.ko dropped and overwrote (its info file).
mod_lost() {
	awk '$1 == "dropped" || $1 == "overrun" { s += $2 } END { print s + 0 }' $D/info
}

# A snapshot stores ktrace.ko's losses: the recorder stopped (SIGSTOP)
# while 100000 getppid calls go into 64 KB a CPU, then a snapshot.  Its
# CPU statistics hold the module's count of what it dropped (between
# the count before the snapshot and after), and what it kept plus that
# covers every call.
test_cli_snapshot_loss() {
	rm -rf /tmp/go* /tmp/ktrun $CLI/snaploss.dat
	KTRACE_RUN_DIR=/tmp/ktrun $K record -q -o /tmp/snaplf.dat -b 64 \
		-e ktrace:syscall_entry -c -- /bin/sh -c ': >/tmp/go1; sleep 1
/ktvm getppid 100000 >/tmp/p1; : >/tmp/go3
until [ -e /tmp/go4 ]; do sleep 0.05; done' >/dev/null 2>/tmp/err &
	rp=$!
	wait_file /tmp/go1 || { snap_abort; return 1; }
	kill -STOP $rp
	i=0
	while [ ! -e /tmp/go3 ] && [ $i -lt 2400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -CONT $rp
	wait_file /tmp/go3 || { snap_abort; return 1; }
	before=$(mod_lost)
	KTRACE_RUN_DIR=/tmp/ktrun $K snapshot -o $CLI/snaploss.dat >/tmp/sout 2>&1
	src=$?
	after=$(mod_lost)
	cat /tmp/sout
	: >/tmp/go4
	wait $rp
	rc=$?
	cat /tmp/err
	expect "ktrace snapshot's status" "$src" 0 &&
	expect "record's status" "$rc" 0 || return 1
	set -- $(snap_calls $CLI/snaploss.dat /tmp/p1)
	n=$1
	$K stat -i $CLI/snaploss.dat >/tmp/snap.st || return 1
	stored=$(awk '$1 == "top" && $2 ~ /^[0-9]+$/ { s += $6 + $7 } END { print s + 0 }' /tmp/snap.st)
	echo "$n getppid entries kept, $stored lost stored; ktrace.ko counted $before before the snapshot, $after after" |
		tee $CLI/snaploss.txt
	[ "$before" -gt 0 ] || fail "nothing dropped" || return 1
	[ "$stored" -ge "$before" ] && [ "$stored" -le "$after" ] ||
		fail "the snapshot stores $stored lost, ktrace.ko counted $before to $after" || { cat /tmp/snap.st; return 1; }
	[ "$n" -lt 100000 ] || fail "all 100000 kept with $stored lost" || return 1
	[ $((n + stored)) -ge 100000 ] ||
		fail "$n kept + $stored lost < 100000 calls: a silent loss" || return 1
	rm -f /tmp/snaplf.dat
	expect "state after record" "$(cat $D/state)" stopped
}

test_cli_export() {
	ls -l $CLI
	(cd $CLI && tar c . | gzip -1 | base64) | sed 's/^/KTCLI: /' >/dev/console
}

test_cli_no_module() {
	rmmod ktrace_event_sample 2>/dev/null
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

# top_getppid EVENT...: ktrace top --batch counting EVENTs into
# /tmp/top.out while /ktvm makes 1000 getppid calls; top's status.
top_getppid() {
	tev=
	for e in "$@"; do
		tev="$tev -e $e"
	done
	# shellcheck disable=SC2086
	$K top --batch -n 40 -d 0.25 $tev >/tmp/top.out 2>/tmp/top.err &
	tp=$!
	i=0
	while [ ! -s /tmp/top.out ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	/ktvm getppid 1000 >/dev/null
	wait $tp
}

# top_total EVENT: its TOTAL in /tmp/top.out's last table.
top_total() {
	awk -v e="$1" '$1 == e { t = $3 } END { print t + 0 }' /tmp/top.out
}

# ktrace top --batch on the guest's ring buffer: read() pages on 6.1,
# which cannot map them, the mapped buffer on 6.12 (Linux 6.10+; the
# possible cpu2 that was never online has no buffer to map and is read:
# "mmap+read"); either way every getppid of a workload is counted.
# Then ktrace.ko's event beside ftrace's: counted from its traceN pages,
# the module put back as found.
test_cli_top() {
	top_getppid raw_syscalls:sys_enter
	expect "top's status" "$?" 0 || { cat /tmp/top.err; return 1; }
	case $(uname -r) in
	6.1.*) how='(read)' ;;
	*) how='(mmap' ;;
	esac
	head -1 /tmp/top.out
	head -1 /tmp/top.out | grep -qF "$how" ||
		fail "top did not use $how" || return 1
	n=$(top_total raw_syscalls:sys_enter)
	[ "$n" -ge 1000 ] || fail "top counted $n sys_enter for 1000 getppid calls" || return 1
	expect "ktrace- instances left by top" "$(ls $T/instances | grep -c '^ktrace-')" 0 || return 1
	top_getppid ktrace:syscall_entry raw_syscalls:sys_enter
	expect "top's status with a module event" "$?" 0 || { cat /tmp/top.err; return 1; }
	n=$(top_total ktrace:syscall_entry)
	[ "$n" -ge 1000 ] || fail "top counted $n ktrace:syscall_entry for 1000 getppid calls" || return 1
	head -1 /tmp/top.out | grep -qF "; ktrace.ko mmap)" ||
		fail "top did not read ktrace.ko mapped: $(head -1 /tmp/top.out)" || return 1
	m=$(top_total raw_syscalls:sys_enter)
	[ "$m" -ge 1000 ] || fail "top counted $m sys_enter beside the module's" || return 1
	# The module's rings read() through the same cursor.
	export KTRACE_NO_MMAP=1
	top_getppid ktrace:syscall_entry
	trc=$?
	unset KTRACE_NO_MMAP
	expect "top's status, read()" "$trc" 0 || { cat /tmp/top.err; return 1; }
	n=$(top_total ktrace:syscall_entry)
	[ "$n" -ge 1000 ] || fail "top counted $n ktrace:syscall_entry by read() for 1000 getppid calls" || return 1
	head -1 /tmp/top.out | grep -qF "; ktrace.ko read)" ||
		fail "top did not read() ktrace.ko: $(head -1 /tmp/top.out)" || return 1
	expect "ktrace- instances left by top" "$(ls $T/instances | grep -c '^ktrace-')" 0 &&
	expect "state after top" "$(cat $D/state)" stopped &&
	expect "enabled after top" "$(cat $D/enabled)" 0 &&
	expect "syscall_entry after top" "$(cat $D/events/syscall_entry/enable)" 0
}

# wait_go: until the command under test made /tmp/go (4 s at most).
wait_go() {
	i=0
	while [ ! -e /tmp/go ] && [ $i -lt 400 ]; do
		sleep 0.01
		i=$((i + 1))
	done
}

# A module that is already running (another recording's) is refused by
# top, stream and record, in one line each, and left running as found.
test_cli_module_busy() {
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/enabled
	echo start >$D/state
	rc=0
	for cmd in "top --batch -n 2 -d 0.1 -e ktrace:syscall_entry" \
		"stream -e ktrace:syscall_entry -- /ktvm getppid 1" \
		"record -o $CLI/busy.dat -e ktrace:syscall_entry -- /ktvm getppid 1"; do
		# shellcheck disable=SC2086
		if $K $cmd >/tmp/bout 2>/tmp/err; then
			fail "$cmd took a running module"
			rc=1
			continue
		fi
		cat /tmp/err
		cmd=${cmd%% *}
		expect "$cmd's error lines" "$(wc -l </tmp/err)" 1 || rc=1
		grep -q 'already running' /tmp/err || fail "$cmd: $(cat /tmp/err)" || rc=1
		expect "state after $cmd" "$(cat $D/state)" running || rc=1
		expect "enabled after $cmd" "$(cat $D/enabled)" 1 || rc=1
		expect "syscall_entry after $cmd" "$(cat $D/events/syscall_entry/enable)" 1 || rc=1
	done
	[ ! -e $CLI/busy.dat ] || fail "record left $CLI/busy.dat" || rc=1
	echo stop >$D/state
	echo 0 >$D/enabled
	echo 0 >$D/events/syscall_entry/enable
	return $rc
}

# A real loss: the reader stopped (SIGSTOP) while the command makes
# 100000 getppid calls into a 64 KB buffer a CPU.  stream's summary and
# top's loss line count what the module dropped, and what was shown
# plus what was lost covers every call: nothing vanishes unsaid.
test_cli_module_loss() {
	module_loss
}

# The same with ktrace.ko in flight mode (flight=1): the writer laps the
# stopped readers' mapped rings, overwriting pages they may hold between
# GET_PRODUCED and PUT_CONSUMED; what it overwrote is counted (overrun),
# and shown + lost still covers every call without top counting itself.
test_cli_module_flight_loss() {
	rmmod ktrace_event_sample 2>/dev/null
	umount /proc/kallsyms 2>/dev/null
	rmmod ktrace || return 1
	if insmod /ktrace.ko flight=1; then
		if grep -qx 'mode flight' $D/info; then
			module_loss
		else
			fail "not in flight mode: $(cat $D/info)"
		fi
	else
		false
	fi
	rc=$?
	# Back to the drop mode the other tests expect, whatever happened.
	cli_load || return 1
	return $rc
}

module_loss() {
	buf0=$(cat $D/buffer_size_kb)
	rm -f /tmp/go
	$K stream -b 64 -e ktrace:syscall_entry -F -- \
		/bin/sh -c ': >/tmp/go; sleep 1; exec /ktvm getppid 100000' >/tmp/sout 2>/tmp/err &
	sp=$!
	# Stopped once the command runs, which sleeps a second first.
	wait_go
	kill -STOP $sp
	sleep 3
	kill -CONT $sp
	wait $sp
	expect "stream's status" "$?" 0 || { cat /tmp/err; return 1; }
	cat /tmp/err
	n=$(grep -c ' syscall_entry: *nr=110 ' /tmp/sout)
	lost=$(sed -n 's/.* \([0-9][0-9]*\)+* lost.*/\1/p' /tmp/err | tail -1)
	echo "# stream: $n getppid lines, ${lost:-no} lost"
	[ "${lost:-0}" -gt 0 ] || fail "stream's summary shows no loss: $(cat /tmp/err)" || return 1
	[ "$n" -lt 100000 ] || fail "all 100000 lines with $lost lost" || return 1
	[ $((n + lost)) -ge 100000 ] ||
		fail "$n lines + $lost lost < 100000 calls: a silent loss" || return 1
	expect "state after stream" "$(cat $D/state)" stopped || return 1
	expect "buffer_size_kb after stream -b 64" "$(cat $D/buffer_size_kb)" "$buf0" || return 1

	echo 64 >$D/buffer_size_kb
	$K top --batch -n 30 -d 0.2 -e ktrace:syscall_entry >/tmp/top.out 2>/tmp/top.err &
	tp=$!
	# Stopped once it has started the module (its output is buffered).
	i=0
	while [ "$(cat $D/state)" != running ] && [ $i -lt 1000 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -STOP $tp
	expect "state under top" "$(cat $D/state)" running || { kill -CONT $tp; wait $tp; return 1; }
	/ktvm getppid 100000 >/dev/null
	kill -CONT $tp
	wait $tp
	trc=$?
	echo "$buf0" >$D/buffer_size_kb
	expect "top's status" "$trc" 0 || { cat /tmp/top.err; return 1; }
	n=$(top_total ktrace:syscall_entry)
	# Dropped (drop mode) or overwritten (flight), from the last line.
	dropped=$(awk '$1 == "rate" { d = 0; for (i = 1; i < NF; i++) if ($i == "dropped" || $i == "overrun") d += $(i + 1) } END { print d + 0 }' /tmp/top.out)
	grep '^rate' /tmp/top.out | tail -1
	echo "# top: $n syscall_entry counted, $dropped dropped"
	[ "$dropped" -gt 0 ] || fail "top's loss line shows nothing dropped" || return 1
	[ $((n + dropped)) -ge 100000 ] ||
		fail "$n counted + $dropped dropped < 100000 calls: a silent loss" || return 1
	# Its own syscalls are traced too, a few per wake-up: not 10^5 more
	# (a poll() that answers at once, on a CPU with no buffer, spins).
	[ $((n + dropped)) -lt 120000 ] ||
		fail "$n counted + $dropped dropped for 100000 calls: top counts itself spinning" || return 1
	expect "state after top" "$(cat $D/state)" stopped &&
	expect "enabled after top" "$(cat $D/enabled)" 0 &&
	expect "buffer_size_kb put back" "$(cat $D/buffer_size_kb)" "$buf0"
}

# ktrace.ko loaded in flight mode (flight=1: the oldest overwritten), a
# record whose mapped readers are stopped (SIGSTOP) while the command
# makes 100000 getppid calls into 64 KB a CPU: the flight writer laps
# them.  The file keeps the newest calls; what was overwritten is
# counted, in record's warning and in report's drop marks, and the file
# plus the count cover every call.  The host has trace-cmd read it too.
test_cli_record_flight() {
	record_flight
	rc=$?
	# Back to the drop mode the other tests expect, whatever happened.
	umount /proc/kallsyms 2>/dev/null
	rmmod ktrace
	cli_load || return 1
	return $rc
}

record_flight() {
	rmmod ktrace_event_sample 2>/dev/null
	umount /proc/kallsyms 2>/dev/null
	rmmod ktrace || return 1
	insmod /ktrace.ko flight=1 || return 1
	mount --bind /tmp/no-kallsyms /proc/kallsyms
	grep -qx 'mode flight' $D/info || fail "not in flight mode: $(cat $D/info)" || return 1
	rm -f /tmp/go
	$K record -b 64 -o $CLI/flight.dat -e ktrace:syscall_entry -F -- \
		/bin/sh -c ': >/tmp/go; sleep 1; exec /ktvm getppid 100000' \
		>$CLI/flight.pid 2>/tmp/err &
	rp=$!
	wait_go
	kill -STOP $rp
	sleep 3
	kill -CONT $rp
	wait $rp
	rc=$?
	cat /tmp/err
	expect "record's status" "$rc" 0 || return 1
	lost=$(sed -n 's/.*LOST \([0-9][0-9]*\) events.*/\1/p' /tmp/err)
	pid=$(cat $CLI/flight.pid)
	$K report -i $CLI/flight.dat >$CLI/flight.txt 2>/tmp/rerr || { cat /tmp/rerr; return 1; }
	n=$(grep -c " syscall_entry: *nr=110 " $CLI/flight.txt)
	# A mark has no count where the page had no room left to store one.
	marks=$(grep -c 'EVENTS DROPPED\]' $CLI/flight.txt)
	$K stat -i $CLI/flight.dat >/tmp/fstat || return 1
	# Its overrun and dropped columns: the record-time counts it stores.
	stored=$(awk '$1 == "top" && $2 ~ /^[0-9]+$/ { s += $6 + $7 } END { print s + 0 }' /tmp/fstat)
	echo "# flight.dat: pid $pid: $n getppid records, record says ${lost:-no} lost, stored $stored, report's marks $marks, overrun $(cat $D/overrun)"
	[ "${lost:-0}" -gt 0 ] || fail "record reports no loss" || return 1
	[ "$n" -lt 100000 ] || fail "all 100000 kept with $lost lost" || return 1
	[ $((n + lost)) -ge 100000 ] ||
		fail "$n kept + $lost lost < 100000 calls: a silent loss" || return 1
	[ "$marks" -gt 0 ] || fail "no drop mark in report's text" || return 1
	expect "the loss stat -i finds stored in the file" "$stored" "$lost" || { cat /tmp/fstat; return 1; }
	expect "state after record" "$(cat $D/state)" stopped &&
	expect "enabled after record" "$(cat $D/enabled)" 0
}

echo "KT: # ktrace CLI on ktrace.ko"
t "cli: load for the CLI tests" cli_load
t "cli: ktrace list 'ktrace:*', bare classic names, --backend, --fields, functions" test_cli_list
t "cli: ktrace enable flips a module event's enable file, refuses a filter" test_cli_enable
t "cli: ktrace stat shows the module's entries; ktrace reset empties it" test_cli_stat
t "cli: ktrace record -e ktrace:sched_schedule -e sched:sched_switch" test_cli_record_both
t "cli: ktrace record -F limits module events to the command" test_cli_record_pid
t "cli: ktrace record reads the module mapped, by read() with KTRACE_NO_MMAP=1: 2000 getppid in both" test_cli_record_mmap
t "cli: record -f on a module event, stream --clock global -e ktrace:NAME: one line, nothing touched" test_cli_refusals
t "cli: stream -e ktrace:syscall_entry -F: every getppid, merged with ftrace's, mapped and read(), the module put back" test_cli_stream
t "cli: record --kprobe/--kretprobe do_sys_openat2 with fetch arguments, removed after" test_cli_kprobe
t "cli: record -p function -l vfs_read -F, -n, -c --func-stack: in the instance, nothing left" test_cli_function
t "cli: record -p function leaves ktrace's own threads out; --trace-self keeps them" test_cli_function_self
t "cli: record -p function_graph -g --max-graph-depth, and with -T: instance or top level, put back" test_cli_fgraph
t "cli: another module's event (KTRACE_EVENT): files, info, list, recorded across a reload, gone after" test_cli_modevent
t "cli: 100 loads and unloads of a module while its event is recorded and its files read: every tick" test_cli_modevent_cycles
t "cli: an event its module left registered is taken away as it goes" test_cli_modevent_leak
t "cli: record with ktrace.ko in flight mode, its readers stopped: the newest kept, the overwritten counted and marked" test_cli_record_flight
t "cli: record --rotate with ktrace.ko's and ftrace's events: every getppid in exactly one file, the files read alone and as one" test_cli_rotate
t "cli: 300 rotations with ktrace.ko's events: memory flat, --keep 3, SIGTERM ends it cleanly" test_cli_rotate_memory
t "cli: ktrace snapshot, --last and SIGUSR2 of a recording with ktrace.ko's events: each holds the calls before it, the file at the end every call once" test_cli_snapshot
t "cli: a snapshot of a --rotate recording with ktrace.ko's events: its files and the one being written, every call before it once" test_cli_snapshot_rotate
t "cli: a snapshot stores ktrace.ko's exact losses, shown by stat -i" test_cli_snapshot_loss
t "cli: recordings sent to the host" test_cli_export
t "cli: ktrace top --batch counts every getppid, by read() on 6.1, mapped on 6.12; ktrace:syscall_entry too, mapped and read()" test_cli_top
t "cli: top, stream and record refuse a module that is already running, and leave it running" test_cli_module_busy
t "cli: a stopped reader's loss is counted by stream and top: shown + lost covers every call" test_cli_module_loss
t "cli: the same in flight mode, the writer lapping the stopped readers' rings: shown + lost covers every call" test_cli_module_flight_loss
t "cli: without the module ktrace:* is a clear error, classic names are ftrace's" test_cli_no_module
