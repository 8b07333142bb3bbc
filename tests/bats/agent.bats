#!/usr/bin/env bats
# ktrace agent and ktrace record --remote on loopback, both started by
# the test: exact counts of a marks workload run on the agent
# (--allow-command), drops (the agent killed, the controller killed or
# stopped), tokens, and hostile peers (random bytes, a huge length, a
# peer that says nothing).  After each: the agent's workers gone, no
# ktrace-* instance of theirs, no private directory left.

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	export KT_AG_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool marks "$KT_AG_BIN"
	# The workload the agent is allowed to run: marks N [RATE] into the
	# instance of the worker that runs it (its parent, ktrace-PPID).
	cat >"$KT_AG_BIN/wl" <<-EOS
	#!/bin/sh
	exec "$KT_AG_BIN/marks" "\$1" "$TRACEFS/instances/ktrace-\$PPID/trace_marker" mark \${2:+"\$2"}
	EOS
	chmod +x "$KT_AG_BIN/wl"
	# The remote side of a two-host recording: waits (at most 120 s)
	# for the file its controller makes when the host's side is done.
	cat >"$KT_AG_BIN/waitfor" <<-'EOS'
	#!/bin/sh
	i=0
	while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	EOS
	# The host's side: "sync N AGENTLOG DONE [now]": once the agent's
	# worker records, N times a mark Lk in this recording's instance (its
	# parent's, ktrace-PPID), Rk in the worker's, Mk in this one's again,
	# one write after another; then DONE.  "now": record --local runs it
	# only once the agent records, so it does not wait for that.
	cat >"$KT_AG_BIN/sync" <<-EOS
	#!/bin/bash
	here=$TRACEFS/instances/ktrace-\$PPID/trace_marker
	for ((i = 0; i < 1200; i++)); do
		w=\$(sed -n 's/.*: recording in instance ktrace-\([0-9]*\)\$/\1/p' "\$2")
		[ "\${4:-}" = now ] && break
		[ -n "\$w" ] && [ "\$(cat $TRACEFS/instances/ktrace-\$w/tracing_on 2>/dev/null)" = 1 ] && break
		sleep 0.1
	done
	there=$TRACEFS/instances/ktrace-\$w/trace_marker
	for ((k = 1; k <= \$1; k++)); do
		echo "L\$k" >"\$here"
		echo "R\$k" >"\$there"
		echo "M\$k" >"\$here"
	done
	: >"\$3"
	EOS
	chmod +x "$KT_AG_BIN/waitfor" "$KT_AG_BIN/sync"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	AGENT_PID=
	CTL_PID=
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$TMPDIR"
}

teardown() {
	cd /
	[ -z "$CTL_PID" ] || { kill -KILL "$CTL_PID" 2>/dev/null; wait "$CTL_PID" 2>/dev/null; } || true
	# SIGTERM ends the agent with status 0 (under ASan: no leak either).
	local st=0
	if [ -n "$AGENT_PID" ]; then
		kill -TERM "$AGENT_PID" 2>/dev/null || true
		wait "$AGENT_PID" 2>/dev/null || st=$?
	fi
	# Each worker the agent started: gone, and its instance with it.
	local w
	for w in $(workers); do
		wait_gone "$w"
		assert_no_instance "$w"
	done
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp" 2>/dev/null)" ] ||
		fail "left in TMPDIR: $(ls -A "$BATS_TEST_TMPDIR/tmp")"
	[ "$st" -eq 0 ] || fail "the agent exited with status $st: $(cat "$BATS_TEST_TMPDIR/agent.err")"
}

# The workers' pids, from the agent's log.
workers() {
	sed -n 's/.*: recording in instance ktrace-\([0-9]*\)$/\1/p' "$BATS_TEST_TMPDIR/agent.err" 2>/dev/null
}

wait_gone() { # PID: at most 20 s
	local i
	for ((i = 0; i < 200; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	fail "pid $1 still running"
}

# wait_line FILE REGEX: at most 20 s for a line.
wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no line '$2' in $1: $(cat "$1" 2>/dev/null)"
}

# wait_pages FILE: pages have reached the controller ($CTL_PID), at most
# 20 s: its spool of FILE grew (v6), or, packing them as they come, its
# scratch file of packed blocks (no name: "(deleted)" in its fds).
wait_pages() {
	local i f n
	for ((i = 0; i < 200; i++)); do
		n=$(cat "$1".tmp-*.cpu* 2>/dev/null | wc -c)
		for f in /proc/"$CTL_PID"/fd/*; do
			[[ $(readlink "$f" 2>/dev/null) == *"(deleted)" ]] || continue
			n=$((n + $(stat -L -c %s "$f" 2>/dev/null || echo 0)))
		done
		[ "$n" -gt 0 ] && return 0
		sleep 0.1
	done
	fail "no pages reached the controller writing $1"
}

# start_agent ARGS...: on a free loopback port ($PORT), in the background.
start_agent() {
	local try
	for try in 1 2 3 4 5 6 7 8; do
		PORT=$((20000 + RANDOM % 20000))
		: >"$BATS_TEST_TMPDIR/agent.err"
		"$KTRACE" agent --listen "127.0.0.1:$PORT" "$@" 2>"$BATS_TEST_TMPDIR/agent.err" &
		AGENT_PID=$!
		local i
		for ((i = 0; i < 200; i++)); do
			grep -q "listening on" "$BATS_TEST_TMPDIR/agent.err" && return 0
			kill -0 "$AGENT_PID" 2>/dev/null || break
			sleep 0.1
		done
		wait "$AGENT_PID" 2>/dev/null || true
		AGENT_PID=
	done
	fail "no agent: $(cat "$BATS_TEST_TMPDIR/agent.err")"
}

marks_in() { # FILE: the marks' numbers, sorted, one a line
	"$KTRACE" report -i "$1" | sed -n 's/.* mark \([0-9]*\)$/\1/p' | sort -n
}

@test "agent: a remote recording of COMMAND holds every mark, read by ktrace and trace-cmd" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -o r.dat -e ftrace:print -- "$KT_AG_BIN/wl" 3000
	assert_success
	assert_output --regexp "wrote 'r.dat' from .* \(agent at 127.0.0.1:$PORT\)"
	[ "$(marks_in r.dat)" = "$(seq 1 3000)" ]
	run trace-cmd report -i r.dat
	assert_success
	[ "$(grep -c ' mark [0-9]*$' <<<"$output")" -eq 3000 ]
	# The agent's options came along: its clock, its host, its statistics.
	run "$KTRACE" stat -i r.dat
	assert_success
	# A second controller after the first: served.
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q -o r2.dat -e ftrace:print -- "$KT_AG_BIN/wl" 10
	assert_success
	[ "$(marks_in r2.dat)" = "$(seq 1 10)" ]
	[ "$(workers | wc -l)" -eq 2 ]
}

# counts_of FILE: "EVENTS LOST", the events it holds and those it says it lost.
counts_of() { "$KTRACE" stat -i "$1" --json | jq -r '"\([.events[].total] | add) \(.lost)"'; }

@test "agent: a busy CPU loses no more events remotely than locally (its recorder never naps while its buffer fills)" {
	# dd's small reads and writes fill a small buffer (-b 512) in a few
	# ms.  A recorder that napped 10 ms after each 100 ms round had taken
	# the pages lost 1-3% of them; a local recording loses none here.
	cat >"$BATS_TEST_TMPDIR/flood" <<-'EOS'
	#!/bin/sh
	timeout 2 dd if=/dev/zero of=/dev/null bs=64 2>/dev/null
	exit 0
	EOS
	chmod +x "$BATS_TEST_TMPDIR/flood"
	start_agent --allow-command "$BATS_TEST_TMPDIR/flood"
	run "$KTRACE" record -q -b 512 -e 'raw_syscalls:*' -o local.dat -- "$BATS_TEST_TMPDIR/flood"
	assert_success
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q -b 512 -e 'raw_syscalls:*' -o remote.dat -- "$BATS_TEST_TMPDIR/flood"
	assert_success
	local le ll re rl
	read -r le ll < <(counts_of local.dat)
	read -r re rl < <(counts_of remote.dat)
	echo "# local lost $ll of $le; remote lost $rl of $re" >&3
	[ "$re" -gt 1000000 ] || fail "only $re events: no flood"
	# Up to 0.5% more than local: room for a loaded machine (a CI run under
	# ASan lost 0.1%), well under what the nap cost.
	[ "$rl" -le $((ll + re / 200)) ] || fail "remote lost $rl events of $re, local $ll"
}

@test "agent: the controller packs the pages as they arrive (never spooled): the file reads as one packed at its end; a full disk keeps the blocks that fit, the rest counted" {
	run -0 "$KTRACE" record -q -e 'raw_syscalls:*' -o in.dat -- dd if=/dev/zero of=/dev/null bs=64 count=300000
	# Each CPU's pages given in slices of 1, 3, 5, ... pages, as a remote
	# recording's PAGES messages bring them, against the writer packing
	# the same pages at the end; then a full disk, with no pages besides
	# the blocks: the writer keeps the blocks that fit (each one's room
	# given back as it is copied), unpacking the rest to count them.
	packed_check alone alone alonefull 100000
	# A remote recording leaves nothing beside its file.
	start_agent --allow-command "$KT_AG_BIN/wl"
	mkdir out
	run -0 "$KTRACE" record --remote "127.0.0.1:$PORT" -q -o out/r.dat -e ftrace:print -- "$KT_AG_BIN/wl" 3000
	[ "$(marks_in out/r.dat)" = "$(seq 1 3000)" ]
	[ "$(ls -A out)" = r.dat ] || fail "beside the file: $(ls -A out)"
}

@test "agent: the controller's disk fills as the file is written: it keeps the blocks that fit, says how many events the rest held, trace-cmd reads it" {
	[ -f "$TOP/build/faultinj.so" ] || make -s -C "$TOP" build/faultinj.so >/dev/null
	cat >"$BATS_TEST_TMPDIR/flood" <<-'EOS'
	#!/bin/sh
	timeout 1 dd if=/dev/zero of=/dev/null bs=64 2>/dev/null
	exit 0
	EOS
	chmod +x "$BATS_TEST_TMPDIR/flood"
	start_agent --allow-command "$BATS_TEST_TMPDIR/flood"
	mkdir out
	run -0 "$KTRACE" record --remote "127.0.0.1:$PORT" -q -e 'raw_syscalls:*' -o out/whole.dat -- "$BATS_TEST_TMPDIR/flood"
	local size limit n kept
	size=$(stat -c %s out/whole.dat)
	limit=$((size / 2))
	run env LD_PRELOAD="$TOP/build/faultinj.so" KT_FAULT_FULL="*/out/cut.dat*:$limit" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		"$KTRACE" record --remote "127.0.0.1:$PORT" -q -e 'raw_syscalls:*' -o out/cut.dat -- "$BATS_TEST_TMPDIR/flood"
	assert_output --regexp "disk full writing 'out/cut.dat': the newest pages \((at least )?[0-9]+ events\) did not fit"
	n=$(sed -n 's/.*pages (\(at least \)\{0,1\}\([0-9]*\) events).*/\2/p' <<<"$output")
	[ "$n" -gt 0 ] || fail "no events counted as cut: $output"
	# Past the room by less than a page at most: each CPU's data begins on
	# a page (a seek, a hole, no disk).
	[ "$(stat -c %s out/cut.dat)" -le $((limit + 4096)) ] || fail "past the disk's room"
	kept=$(counts_of out/cut.dat | cut -d' ' -f1)
	[ "$kept" -gt 0 ] || fail "nothing kept"
	run -0 trace-cmd report -i out/cut.dat
	[[ $output != *"rror"* ]] || fail "trace-cmd: $(grep -m3 rror <<<"$output")"
	[ "$(ls -A out | sort | paste -sd' ')" = "cut.dat whole.dat" ] || fail "beside the files: $(ls -A out)"
}

@test "agent: COMMAND's status passes through; v6 files too" {
	start_agent --allow-command "$KT_AG_BIN/wl" --allow-command false
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q -o f.dat -- false
	assert_failure 1
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q --file-version 6 -o v6.dat -e ftrace:print -- "$KT_AG_BIN/wl" 100
	assert_success
	[ "$(marks_in v6.dat)" = "$(seq 1 100)" ]
	run trace-cmd report -i v6.dat
	assert_success
}

@test "agent: record's options are checked by record's parser on the agent; COMMAND only when allowed" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -o x.dat -- /bin/sh -c 'echo hi'
	assert_failure 64
	assert_output --partial "refused: ktrace agent: '/bin/sh' is not allowed here"
	[ ! -e x.dat ]
	grep -q "refused: ktrace agent: '/bin/sh' is not allowed here" agent.err
	# Bad options are refused here first, by the same parser.
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -s 0 -o x.dat
	assert_failure 64
	run "$KTRACE" record --remote "127.0.0.1:$PORT" --rotate 1M -o x.dat
	assert_failure 64
	assert_output --partial "--remote and --rotate conflict"
	# An event the agent's kernel does not have: its error, once, here.
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q -s 1 -e nosuch:event -o x.dat
	assert_failure
	assert_output --partial "agent 127.0.0.1:$PORT:"
	[ ! -e x.dat ]
}

@test "agent: the agent killed mid-recording: its worker stops, removes its instance; a valid partial file" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	"$KTRACE" record --remote "127.0.0.1:$PORT" -o d.dat -e ftrace:print -- "$KT_AG_BIN/wl" 1000000 2000 2>ctl.err &
	CTL_PID=$!
	wait_line agent.err "recording in instance"
	wait_pages d.dat
	kill -KILL "$AGENT_PID"
	wait "$AGENT_PID" || true
	AGENT_PID=
	local st=0
	wait "$CTL_PID" || st=$?
	CTL_PID=
	[ "$st" -eq 1 ]
	run cat ctl.err
	[ "$(grep -c "dropped" <<<"$output")" -eq 1 ]
	assert_output --regexp "the connection to the agent at '127.0.0.1:$PORT' dropped \(the agent closed the connection\): 'd.dat' holds the recording up to the drop"
	# The marks are 1..N with no gap, N > 0: what came before the drop.
	local m
	m=$(marks_in d.dat)
	[ -n "$m" ]
	[ "$m" = "$(seq 1 "$(tail -1 <<<"$m")")" ]
	run trace-cmd report -i d.dat
	assert_success
	[ -z "$(ls d.dat.tmp-* 2>/dev/null)" ]
}

@test "agent: the controller killed: the agent stops the recording and COMMAND, removes its instance, serves the next" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	"$KTRACE" record --remote "127.0.0.1:$PORT" -o c.dat -e ftrace:print -- "$KT_AG_BIN/wl" 1000000 2000 2>ctl.err &
	CTL_PID=$!
	wait_line agent.err "recording in instance"
	kill -KILL "$CTL_PID"
	wait "$CTL_PID" || true
	CTL_PID=
	wait_line agent.err "done, status"
	[ "$(grep -c "the controller left" agent.err)" -eq 1 ]
	local w
	w=$(workers)
	wait_gone "$w"
	assert_no_instance "$w"
	run pgrep -f "$KT_AG_BIN/marks 1000000"
	assert_failure
	rm -f c.dat.tmp-*
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q -o n.dat -e ftrace:print -- "$KT_AG_BIN/wl" 50
	assert_success
	[ "$(marks_in n.dat)" = "$(seq 1 50)" ]
}

@test "agent: SIGINT to the controller stops the remote recording; the file is whole" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	"$KTRACE" record --remote "127.0.0.1:$PORT" -o i.dat -e ftrace:print -- "$KT_AG_BIN/wl" 1000000 2000 2>ctl.err &
	CTL_PID=$!
	wait_line agent.err "recording in instance"
	wait_pages i.dat
	kill -INT "$CTL_PID"
	local st=0
	wait "$CTL_PID" || st=$?
	CTL_PID=
	# COMMAND's status: it was stopped by SIGINT.
	[ "$st" -eq 130 ]
	run cat ctl.err
	assert_output --partial "wrote 'i.dat'"
	refute_output --partial "dropped"
	local m
	m=$(marks_in i.dat)
	[ -n "$m" ]
	[ "$m" = "$(seq 1 "$(tail -1 <<<"$m")")" ]
	run trace-cmd report -i i.dat
	assert_success
}

@test "agent: a token is proved, never sent; a wrong or missing one is refused in one line on each side" {
	umask 077
	echo "secret-one" >t1
	echo "secret-two" >t2
	start_agent --token-file t1 --allow-command "$KT_AG_BIN/wl"
	run "$KTRACE" record --remote "127.0.0.1:$PORT" --token-file t2 -o w.dat -e ftrace:print -- "$KT_AG_BIN/wl" 10
	assert_failure 1
	assert_output "ktrace record: the agent at 127.0.0.1:$PORT refused: wrong token"
	[ "$(grep -c "wrong token" agent.err)" -eq 1 ]
	[ ! -e w.dat ]
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -o w.dat -e ftrace:print -- "$KT_AG_BIN/wl" 10
	assert_failure 1
	assert_output "ktrace record: the agent at '127.0.0.1:$PORT' wants a token; give --token-file FILE (the agent's)"
	run "$KTRACE" record --remote "127.0.0.1:$PORT" --token-file t1 -q -o ok.dat -e ftrace:print -- "$KT_AG_BIN/wl" 10
	assert_success
	[ "$(marks_in ok.dat)" = "$(seq 1 10)" ]
	# The token is in no file the recording wrote.
	run grep -c secret-one ok.dat
	assert_output 0
	# A token others may read is refused.
	chmod 644 t2
	run "$KTRACE" record --remote "127.0.0.1:$PORT" --token-file t2 -o w.dat
	assert_failure 1
	assert_output --partial "others may read it"
}

@test "agent: --guest CID[:PORT]: a bad one refused in one line; a host without vsock's transport to guests says so, writes nothing" {
	local bad
	for bad in 0 2 x 3:x 3:0 "" 99999999999; do
		run "$KTRACE" record --guest "$bad" -o g.dat -- true
		assert_failure 64
		assert_line --index 0 "ktrace record: bad --guest '$bad'; give the guest's vsock context id (3 or more; 1: this machine) and the agent's port, e.g. --guest 3 or --guest 3:6517 ('ktrace agent --vsock 6517' in the guest)"
	done
	# This host has no /dev/vhost-vsock (no vsock way to a guest's CID):
	# the VM test tries --guest through vsock's loopback in the guest.
	run "$KTRACE" record --guest 3 -o g.dat -e ftrace:print -- true
	assert_failure 1
	if [ -e /dev/vhost-vsock ]; then
		assert_output --partial "cannot connect to the agent at 'vsock:3:6517'"
	else
		assert_output "ktrace record: cannot connect to the agent at 'vsock:3:6517': No such device; this machine has no vsock way to its guests (load vhost_vsock, and give the guest a vhost-vsock-pci device with its guest-cid), or use --remote with a forwarded port"
	fi
	# The controller sets nothing up before it connects: no file, no piece.
	[ ! -e g.dat ] && [ -z "$(ls -A . | grep -v '^tmp$')" ] || fail "left: $(ls -A)"
}

@test "agent: a non-loopback address needs --token-file" {
	run "$KTRACE" agent --listen "0.0.0.0:$((20000 + RANDOM % 20000))"
	assert_failure 64
	assert_output --partial "is not a loopback address: give --token-file FILE"
	run "$KTRACE" agent --listen 127.0.0.1:1 --vsock 5
	assert_failure 64
}

@test "agent: hostile peers (random bytes, a huge length, silence) get one line each; the agent serves on" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	# Random bytes in place of the answer to the challenge.
	exec 5<>"/dev/tcp/127.0.0.1/$PORT"
	head -c 65536 /dev/urandom >&5 || true
	exec 5>&-
	wait_line agent.err "refused 127.0.0.1:[0-9]*: not ktrace's protocol"
	# A header that claims 2 GB: refused before anything is read or kept.
	exec 5<>"/dev/tcp/127.0.0.1/$PORT"
	printf 'KT\001\002\377\377\377\177\000\000\000\000' >&5
	wait_line agent.err "refused 127.0.0.1:[0-9]*: not ktrace's protocol.*"
	exec 5>&-
	[ "$(grep -c "not ktrace's protocol" agent.err)" -eq 2 ]
	# A peer that says nothing (or a byte at a time): cut after 10 s.
	exec 5<>"/dev/tcp/127.0.0.1/$PORT"
	printf 'K' >&5
	wait_line agent.err "no answer within 10 s"
	exec 5>&-
	[ "$(grep -c "refused" agent.err)" -eq 3 ]
	# The agent is still there, and small.
	kill -0 "$AGENT_PID"
	local rss
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$AGENT_PID/status")
	[ "$rss" -lt 65536 ]
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -q -o h.dat -e ftrace:print -- "$KT_AG_BIN/wl" 20
	assert_success
	[ "$(marks_in h.dat)" = "$(seq 1 20)" ]
}

@test "agent: one controller at a time, the next refused as busy" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	"$KTRACE" record --remote "127.0.0.1:$PORT" -o a.dat -e ftrace:print -- "$KT_AG_BIN/wl" 1000000 2000 2>ctl.err &
	CTL_PID=$!
	wait_line agent.err "recording in instance"
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -o b.dat
	assert_failure 1
	assert_output "ktrace record: the agent at 127.0.0.1:$PORT refused: busy: the agent serves another controller; try again when it is done"
	kill -INT "$CTL_PID"
	wait "$CTL_PID" || true
	CTL_PID=
	run trace-cmd report -i a.dat
	assert_success
}

@test "agent: the clock offsets measured at the start, during and at the end are in the file; stat -i shows them" {
	start_agent --allow-command "$KT_AG_BIN/wl"
	# 2.5 s at 400 marks a second: a measure every second between.
	run "$KTRACE" record --remote "127.0.0.1:$PORT" -o t.dat -e ftrace:print -- "$KT_AG_BIN/wl" 1000 400
	assert_success
	[ "$(marks_in t.dat)" = "$(seq 1 1000)" ]
	run "$KTRACE" stat -i t.dat
	assert_success
	assert_output --regexp "recorded by ktrace agent on .* \(clock local\) for .* \(clock [a-z_]+\)"
	assert_output --regexp "clock offsets \(the controller's clock less this file's; [0-9]+ measures"
	assert_output --regexp "  start  at [0-9]+\.[0-9]{6}: [-+][0-9]+\.[0-9]{9} s, within [0-9]+\.[0-9]{9} s"
	assert_output --regexp "  end    at "
	run "$KTRACE" stat -i t.dat --json
	assert_success
	local m
	m=$(grep -o '"measures":\[[^]]*\]' <<<"$output" | grep -o '{[^}]*}')
	grep -q '"when":"start"' <<<"$m"
	grep -q '"when":"during"' <<<"$m"
	grep -q '"when":"end"' <<<"$m"
	# One machine, one clock (the controller reads the top-level trace
	# clock, local here): each offset is within its bound, give or take
	# the microsecond the clocks are read at on each side.
	if [ "$(cat "$TRACEFS/trace_clock" | grep -o '\[[a-z_-]*\]')" = "[local]" ]; then
		local off bound
		while read -r off bound; do
			[ "${off#-}" -le $((bound + 2000)) ] || fail "offset $off outside its bound $bound"
		done < <(sed -E 's/.*"offset":(-?[0-9]+),"bound":([0-9]+).*/\1 \2/' <<<"$m")
	fi
	# trace-cmd reads the file, skipping the option.
	run trace-cmd report -i t.dat
	assert_success
	[ "$(grep -c ' mark [0-9]*$' <<<"$output")" -eq 1000 ]
}

# mark_ts FILE NAME: the ns time of the mark NAME (L1, R1, ...) in
# report -t's merged lines in FILE.
mark_ts() {
	awk -v m="$2" '$NF == m { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); split($i, a, "."); printf "%d%09d\n", a[1], a[2]; exit } }' "$1"
}

# check_merged HOST REMOTE: the host's recording (marks Lk, Mk) and the
# remote one (Rk, written between them) of sync 40, each alone and
# merged by report -i HOST -i REMOTE.
check_merged() {
	# Each side alone: its own marks, every one.
	run "$KTRACE" report -i "$1"
	assert_success
	local nhost nguest
	nhost=$(grep -c ': [LM][0-9]*$' <<<"$output")
	[ "$nhost" -eq 80 ]
	run "$KTRACE" report -i "$2"
	assert_success
	nguest=$(grep -c ': R[0-9]*$' <<<"$output")
	[ "$nguest" -eq 40 ]
	# Merged: a header line per host (one name: the files' names), the
	# remote one with its offsets and error bound, then each line named.
	"$KTRACE" report -t -i "$1" -i "$2" >merged.txt
	run sed -n 1,2p merged.txt
	assert_line --index 0 --regexp "^ *$1: cpus=[0-9]+ clock=[a-z0-9_-]+ offset=0$"
	assert_line --index 1 --regexp "^ *$2: cpus=[0-9]+ clock=[a-z0-9_-]+ offset=[-+][0-9.]+\.\.[-+][0-9.]+ s to .*'s clock [a-z0-9_-]+ \([0-9]+ measures\), error bound [0-9]+\.[0-9]{9} s$"
	[ "$(grep -c "^ *$1: .*: [LM][0-9]*$" merged.txt)" -eq "$nhost" ]
	[ "$(grep -c "^ *$2: .*: R[0-9]*$" merged.txt)" -eq "$nguest" ]
	[ "$(wc -l <merged.txt)" -eq $((2 + nhost + nguest)) ]
	# The lines are in time order, whichever host they come from.
	sed -n '3,$p' merged.txt | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $i + 0; break } }' >ts.txt
	sort -g -c ts.txt
	# Rk, written on the remote side between Lk and Mk on the host, lies
	# between them on the one timeline, give or take the stored bound
	# (and the microsecond each side reads its clock at).
	local bound k l r m
	bound=$(sed -n '2s/.*error bound \([0-9]*\)\.\([0-9]*\) s$/\1\2/p' merged.txt)
	bound=$((10#$bound + 2000))
	for ((k = 1; k <= 40; k++)); do
		l=$(mark_ts merged.txt "L$k")
		r=$(mark_ts merged.txt "R$k")
		m=$(mark_ts merged.txt "M$k")
		[ -n "$l" ] && [ -n "$r" ] && [ -n "$m" ] || fail "mark $k missing"
		[ "$r" -ge $((l - bound)) ] && [ "$r" -le $((m + bound)) ] ||
			fail "R$k at $r is not within $bound ns of [$l, $m]"
	done
	# JSON: each object names its host.
	run "$KTRACE" report --format json -i "$1" -i "$2"
	assert_success
	[ "$(grep -c "^{\"host\":\"$2\"," <<<"$output")" -eq "$nguest" ]
	[ "$(grep -c "^{\"host\":\"$1\"," <<<"$output")" -eq "$nhost" ]
	# stat -i says the same bound.
	run "$KTRACE" stat -i "$2"
	assert_success
	assert_output --partial "the widest bound $(sed -n '2s/.*error bound \([0-9.]*\) s$/\1/p' merged.txt) s"
	# trace-cmd reads the pair too (its own clock each: its files carry
	# no ktrace offsets), each line named by its file.
	run trace-cmd report -i "$1" -i "$2"
	assert_success
	[ "$(grep -c "$2: .*R[0-9]*$" <<<"$output")" -eq "$nguest" ]
}

@test "agent: a host and a remote recording at once; report -i host -i remote merges them: marks written at one moment line up within the stored bound" {
	start_agent --allow-command "$KT_AG_BIN/waitfor"
	"$KTRACE" record --remote "127.0.0.1:$PORT" -q -o guest.dat -e ftrace:print -- "$KT_AG_BIN/waitfor" "$BATS_TEST_TMPDIR/done" 2>ctl.err &
	CTL_PID=$!
	run "$KTRACE" record -q -o host.dat -e ftrace:print -- "$KT_AG_BIN/sync" 40 "$BATS_TEST_TMPDIR/agent.err" "$BATS_TEST_TMPDIR/done"
	assert_success
	local st=0
	wait "$CTL_PID" || st=$?
	CTL_PID=
	[ "$st" -eq 0 ] || fail "the remote recording: status $st: $(cat ctl.err)"
	check_merged host.dat guest.dat
	# Options that need one recording are refused in one line.
	run "$KTRACE" report -i host.dat -i guest.dat --timeline -o t.svg
	assert_failure 64
	assert_output --partial "are recordings of several hosts"
}

@test "agent: record --local --remote: this machine and an agent in one run, COMMAND once the agent records, read in one go by report -i" {
	# An agent slow to set up its recording (1.5 s before it reads the
	# event headers, its instance made and off): COMMAND runs once the
	# agent records, so sync need not wait for it.
	LD_PRELOAD="$TOP/build/faultinj.so" KT_FAULT_SLOW_OPEN='*/events/header_page:1500' \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" start_agent
	# COMMAND runs once the agent records: sync does not wait for it.
	run "$KTRACE" record --local --remote "127.0.0.1:$PORT" -q -o two.dat -e ftrace:print -- "$KT_AG_BIN/sync" 40 "$BATS_TEST_TMPDIR/agent.err" "$BATS_TEST_TMPDIR/done" now
	assert_success
	# trace-cmd's layout: OUT for this machine, OUT-HOST.dat for the agent.
	[ -f two.dat ] && [ -f two-127.0.0.1.dat ]
	check_merged two.dat two-127.0.0.1.dat
	# analyze: each host's analysis under its name (no syscalls here:
	# each says so), JSON refused.
	run "$KTRACE" analyze -i two.dat -i two-127.0.0.1.dat syscalls
	assert_failure 1
	assert_line --index 0 "host two.dat:"
	assert_line "host two-127.0.0.1.dat:"
	[ "$(grep -c "holds no system call events" <<<"$output")" -eq 2 ]
	run "$KTRACE" analyze -i two.dat -i two-127.0.0.1.dat --format json syscalls
	assert_failure 64
	assert_output --partial "are recordings of several hosts"
	# Usage: --local needs --remote; an agent named twice.
	run "$KTRACE" record --local -o x.dat
	assert_failure 64
	run "$KTRACE" record --remote "127.0.0.1:$PORT" --remote "127.0.0.1:$PORT" -o x.dat
	assert_failure 64
	assert_output --partial "is given twice with --remote"
}

@test "agent: sql -i host -i remote: one database of both hosts, each row's host, on report -i host -i remote's timeline" {
	start_agent
	run "$KTRACE" record --local --remote "127.0.0.1:$PORT" -q -o two.dat -e ftrace:print -e sched:sched_switch -- "$KT_AG_BIN/sync" 40 "$BATS_TEST_TMPDIR/agent.err" "$BATS_TEST_TMPDIR/done"
	assert_success
	local a=two.dat b=two-127.0.0.1.dat na nb
	# Each host's rows: as many as report -i FILE alone prints, its
	# marks every one, under the name report -i A -i B gives it.
	na=$("$KTRACE" report -i "$a" | wc -l)
	nb=$("$KTRACE" report -i "$b" | wc -l)
	run "$KTRACE" sql --format csv -i "$a" -i "$b" "select host, count(*) from events group by host order by host"
	assert_success
	assert_output "host,count(*)
$b,$nb
$a,$na"
	run "$KTRACE" sql --format csv -i "$a" -i "$b" "select host, count(*) from print where buf glob '[LM][0-9]*' or buf glob 'R[0-9]*' group by host order by host"
	assert_output "host,count(*)
$b,40
$a,80"
	# Per-recording tables by host: a meta row and the tasks of each.
	run "$KTRACE" sql --format csv -i "$a" -i "$b" "select host, value from meta where key = 'file' order by host"
	assert_output "host,value
$b,$b
$a,$a"
	run "$KTRACE" sql --format csv -i "$a" -i "$b" "select count(distinct host) from tasks"
	assert_output "count(distinct host)
2"
	# Ordered by time, the rows interleave the hosts as report -i A -i B's
	# lines do, each at report's time (the remote one's offsets applied);
	# a tie goes to the file given first, as the rows were loaded.
	"$KTRACE" report -t -i "$a" -i "$b" | sed -n '3,$p' |
		awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $1); sub(/:$/, "", $i); print $1, $i; break } }' >rep.txt
	"$KTRACE" sql --format csv -i "$a" -i "$b" "select host || ' ' || printf('%d.%09d', ts / 1000000000, ts % 1000000000) from events order by ts, rowid" |
		sed 1d >sql.txt
	[ "$(wc -l <rep.txt)" -eq $((na + nb)) ]
	diff rep.txt sql.txt
	[ "$(cut -d' ' -f1 sql.txt | uniq | wc -l)" -gt 2 ] || fail "the hosts do not interleave"
	# One file: its own times, as report -i FILE alone gives them; its
	# host named all the same.
	"$KTRACE" report -t -i "$b" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); print $i; break } }' >one.txt
	"$KTRACE" sql --format csv -i "$b" "select printf('%d.%09d', ts / 1000000000, ts % 1000000000) from events order by ts, rowid" | sed 1d >sqlone.txt
	diff one.txt sqlone.txt
	run "$KTRACE" sql --format csv -i "$b" "select distinct host from events"
	assert_output "host
$(uname -n)"
}

@test "agent: report -i of two hosts' own recordings (no offsets): each named by its host name, merged on their own clocks, said once" {
	# Another host name: a UTS namespace of its own.
	unshare -u sh -c "hostname kt-other-host && exec \"$KTRACE\" record -q -o other.dat -e ftrace:print -- sh -c 'echo o1 >$TRACEFS/instances/ktrace-\$PPID/trace_marker'"
	"$KTRACE" record -q -o mine.dat -e ftrace:print -- sh -c "echo m1 >$TRACEFS/instances/ktrace-\$PPID/trace_marker"
	run "$KTRACE" report -i mine.dat -i other.dat
	assert_success
	local me
	me=$(uname -n)
	[ "$(grep -c "none of 'mine.dat, other.dat' stores clock offsets" <<<"$output")" -eq 1 ]
	assert_line --regexp "^ *$me: cpus=[0-9]+ clock=[a-z0-9_-]+ offset=0$"
	assert_line --regexp "^ *kt-other-host: cpus=[0-9]+ clock=[a-z0-9_-]+ offset=0$"
	assert_line --regexp "^ *$me: .*: m1$"
	assert_line --regexp "^ *kt-other-host: .*: o1$"
	run "$KTRACE" report --stat -i mine.dat -i other.dat
	assert_failure 64
	assert_output --partial "are recordings of several hosts: --stat takes one"
}
