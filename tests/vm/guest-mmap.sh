#!/bin/sh
# Zero-copy reading of ktrace.ko's traceN files (kernel/README.md,
# "Zero-copy reading"), sourced by guest.sh (busybox sh; t, expect,
# fail, val, matched, sample, unsample, emit_on come from there).  ktvm
# mapread reads by mmap and the ktrace-abi.h ioctls, ktvm maphold holds
# a mapping while the module or the channel goes.

# The engine's syscall events of 1000 getppid calls, read mapped: every
# record, none dropped; then 20000 calls on CPU 1 read while written.
test_mmap_getppid() {
	insmod /ktrace.ko || return 1
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/events/syscall_exit/enable
	echo 1 >$D/enabled
	echo start >$D/state
	/ktvm getppid 1000 >/tmp/pid
	echo stop >$D/state
	pid=$(cat /tmp/pid)
	me="common_pid=$pid,nr=$GETPPID_NR"
	/ktvm mapread -f $D/events -m "syscall_entry:$me" -m "syscall_exit:$me" \
		$D >/tmp/r || return 1
	cat /tmp/r
	expect mode "$(val mode /tmp/r)" mmap &&
	expect bad "$(val bad /tmp/r)" 0 &&
	expect "lost pages" "$(val lost_pages /tmp/r)" 0 &&
	expect dropped "$(cat $D/dropped)" 0 &&
	expect "getppid entries of $pid" "$(matched "syscall_entry:$me")" 1000 &&
	expect "getppid exits of $pid" "$(matched "syscall_exit:$me")" 1000 || return 1
	# A reader of every CPU while the flood is written (held at a gate
	# until the reader runs, so the pid is known).
	echo 4096 >$D/buffer_size_kb || return 1
	echo 1 >$D/reset
	rm -f /tmp/go /tmp/tp
	mkfifo /tmp/go /tmp/tp
	taskset -c 1 /ktvm gate getppid 20000 </tmp/go >/tmp/tp &
	exec 5>/tmp/go
	read -r gpid </tmp/tp
	me="common_pid=$gpid,nr=$GETPPID_NR"
	echo start >$D/state
	/ktvm mapread -f $D/events -m "syscall_entry:$me" $D >/tmp/r &
	rd=$!
	echo >&5
	exec 5>&-
	wait "$gpid"
	echo stop >$D/state
	wait $rd || return 1
	cat /tmp/r
	echo 0 >$D/enabled
	/ktvm read -f $D/events -m "syscall_entry:$me" $D >/tmp/r2
	expect "records left for read()" "$(val records /tmp/r2)" 0 &&
	expect bad "$(val bad /tmp/r)" 0 &&
	expect "getppid entries of $gpid" "$(matched "syscall_entry:$me")" 20000 &&
	expect dropped "$(cat $D/dropped)" 0 &&
	expect "stats read events = records read" \
		"$(cat $D/stats/cpu* | sed -n 's/^read events: //p' | awk '{s += $1} END {print s}')" \
		"$(val records /tmp/r)" || return 1
	rmmod ktrace
}

# A flight channel whose writer laps the mapped reader between its
# GET_PRODUCED and PUT_CONSUMED: the pages it read are declared lost,
# nothing read twice or missed, read + overrun = written exactly.
test_mmap_flight_lap() {
	insmod /ktrace.ko || return 1
	sample lap 2 4096 4 || return 1
	C=$S/lap
	echo start >$C/state
	emit_on 0 500
	/ktvm mapread -s -L $C/emit:100000 $C >/tmp/r || return 1
	cat /tmp/r
	got=$(val records /tmp/r)
	overrun=$(cat $C/overrun)
	dropped=$(cat $C/dropped)
	echo "overrun $overrun dropped $dropped"
	unsample
	rmmod ktrace
	[ "$(val lost_pages /tmp/r)" -gt 0 ] || fail "the writer never lapped the reader" || return 1
	expect "records + overrun" "$((got + overrun))" 100500 &&
	expect "missed told by PUT_CONSUMED" "$(val missed /tmp/r)" "$overrun" &&
	expect "last seq (newest kept)" "$(val last_seq /tmp/r)" 100499 &&
	expect "first seq" "$(val first_seq /tmp/r)" "$overrun" &&
	expect "seq gaps" "$(val seq_gaps /tmp/r)" 0 &&
	expect "bad pages" "$(val bad /tmp/r)" 0 &&
	expect "bad records" "$(val bad_magic /tmp/r)" 0 &&
	expect dropped "$dropped" 0
}

# hold TRACE [ARGS]: ktvm maphold TRACE ARGS in the background, once it
# says "held"; release lets it go on and waits for it.
hold() {
	rm -f /tmp/hgo /tmp/h
	mkfifo /tmp/hgo
	/ktvm maphold "$@" </tmp/hgo >/tmp/h 2>&1 &
	hpid=$!
	exec 6>/tmp/hgo
	until grep -q '^held' /tmp/h; do
		[ -d /proc/$hpid ] || break
		sleep 0.1
	done
}

release() {
	echo >&6
	exec 6>&-
	wait $hpid
}

# Read-only, one reader at a time, no resize while mapped, and ktrace.ko
# stays while only a mapping is left of its files.
test_mmap_rules() {
	insmod /ktrace.ko || return 1
	echo 1 >$D/events/syscall_entry/enable
	echo 1 >$D/enabled
	echo start >$D/state
	/ktvm getppid 100 >/dev/null
	echo stop >$D/state
	echo 0 >$D/enabled
	hold $D/trace0 $D/buffer_size_kb close
	if rmmod ktrace 2>/tmp/err; then
		fail "rmmod succeeded while trace0 was mapped"
		return 1
	fi
	release
	rc=$?
	cat /tmp/h
	[ $rc = 0 ] || return 1
	expect "mprotect PROT_WRITE" "$(val mprotect_write /tmp/h)" "Permission denied" &&
	expect "another reader's read()" "$(val other_read /tmp/h)" "Device or resource busy" &&
	expect "another reader's GET_PRODUCED" "$(val other_get /tmp/h)" "Device or resource busy" &&
	expect "buffer_size_kb while mapped" "$(val resize /tmp/h)" "Device or resource busy" &&
	grep -q '^unmapped' /tmp/h || fail "no munmap" || return 1
	echo 64 >$D/buffer_size_kb || fail "resize after munmap" || return 1
	rmmod ktrace
}

# The sample module (and its channel) goes while trace0 is mapped and
# open: GET_PRODUCED fails, the pages stay readable, munmap and close
# free them, ktrace.ko goes after.
test_mmap_gone() {
	insmod /ktrace.ko || return 1
	sample mgone 0 4096 4 || return 1
	C=$S/mgone
	echo start >$C/state
	emit_on 0 10
	hold $C/trace0
	unsample || return 1
	[ ! -e $C ] || fail "$C left behind" || return 1
	release
	cat /tmp/h
	expect "GET_PRODUCED after unload" "$(val get_after /tmp/h)" "Input/output error" &&
	grep -q '^unmapped 1' /tmp/h || fail "pages not readable after unload" || return 1
	rmmod ktrace
}

t "mmap: 1000 getppid read mapped; 20000 read while written, none dropped" test_mmap_getppid
t "mmap: a flight writer laps the mapped reader: read + overrun = written" test_mmap_flight_lap
t "mmap: read-only, one reader, no resize, module held while mapped" test_mmap_rules
t "mmap: the channel goes while mapped: EIO, pages readable, munmap safe" test_mmap_gone
