#!/usr/bin/env bats
# ktrace report --format perfetto read by Perfetto's own trace processor
# (trace_processor_shell, built from upstream by
# ../shared/tools/build-trace-processor.sh; KT_TRACE_PROCESSOR names
# another): no error or data-loss stats, and its scheduling tables
# against the same file's events as `ktrace report --format json` gives
# them: one sched slice per switch less each CPU's first, thread states
# of the switches' prev_state, threads under their processes.  Skipped,
# with the reason, where the binary is absent.  Generic events (the
# denser encoding: a descriptor per bundle, then values alone): the
# trace processor's count of each name and the args of each name's first
# event equal report's JSON.

load helpers

TP=${KT_TRACE_PROCESSOR:-/var/cache/trace-processor/trace_processor_shell}

setup() {
	[ -x "$TP" ] ||
		skip "no trace processor at '$TP': build it with ../shared/tools/build-trace-processor.sh, or set KT_TRACE_PROCESSOR"
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
}

teardown() {
	cd /
	[ -z "${BATS_TEST_SKIPPED:-}" ] || return 0
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
}

# tp TRACE SQL: the query's rows as CSV, without the header.
tp() {
	printf '%s\n' "$2" >q.sql
	"$TP" -q q.sql "$1" 2>tp.err | tail -n +2 | tr -d '"' | sed '/^$/d'
}

# check_tp FILE: FILE's Perfetto trace against its JSON lines.
check_tp() {
	local f=$1
	"$KTRACE" report -i "$f" --format perfetto -o t.pftrace
	"$KTRACE" report -i "$f" --format json -e sched_switch >sw.jsonl
	[ -s sw.jsonl ] || fail "no switches in '$f'"
	# No stat of severity error or data loss.
	tp t.pftrace "select name, value from stats where severity in ('error', 'data_losses') and value > 0" >stats.txt
	[ ! -s stats.txt ] || fail "trace processor stats: $(cat stats.txt) $(cat tp.err)"
	# One slice per switch, less each CPU's first (it starts no slice
	# the trace saw begin).
	local sw cpus breaks slices running
	sw=$(wc -l <sw.jsonl)
	cpus=$(jq -r .cpu sw.jsonl | sort -u | wc -l)
	slices=$(tp t.pftrace 'select count(*) from sched')
	[ "$slices" = $((sw - cpus)) ] || fail "$slices slices of $sw switches on $cpus CPUs"
	# A switch whose prev_pid is not the CPU's last next_pid: a switch
	# between them is missing (this host's kernel drops some around
	# idle, uncounted), and the thread states there are the trace
	# processor's guess: each such break is one state either way.
	breaks=$(jq -s 'group_by(.cpu) | map([.[:-1], .[1:]] | transpose |
		map(select(.[0].next_pid != .[1].prev_pid)) | length) | add // 0' sw.jsonl)
	# Running states, at most one per slice (on a live whole-system
	# recording the trace processor has given some fewer than the
	# slices, 231 for 248 once with 3 breaks: not counted exactly).
	running=$(tp t.pftrace "select count(*) from thread_state where state = 'Running'")
	[ "$running" -gt 0 ] && [ "$running" -le $((slices + breaks)) ] ||
		fail "$running Running states for $slices slices, $breaks breaks"
	# Each prev_state the switches give their tasks: thread states of
	# that name, at most one per switch (R and R+ also begin at
	# wakeups).
	tp t.pftrace "select state, count(*) from thread_state where state != 'Running' group by state" >states.txt
	jq -r '.prev_state_name' sw.jsonl | sort | uniq -c | while read -r n s; do
		got=$(awk -F, -v s="$s" '$1 == s { print $2 }' states.txt)
		# (each CPU's first switch and a break may give none)
		[ "$n" -le $((cpus + breaks)) ] || [ "${got:-0}" -gt 0 ] || fail "state $s: none for $n switches"
		case $s in
		R | R+) true ;;
		*) [ "${got:-0}" -le $((n + breaks)) ] ;;
		esac || fail "state $s: $got thread states for $n switches, $breaks breaks ($(cat states.txt))"
	done
	# Every state is one a switch or a wakeup gives.
	cut -d, -f1 states.txt | while read -r s; do
		[ "$s" = R ] || jq -s -e --arg s "$s" 'any(.[]; .prev_state_name == $s)' sw.jsonl >/dev/null ||
			fail "thread state $s of no switch"
	done
	# Every task that switched is a thread of a process.
	[ "$(tp t.pftrace 'select count(*) from thread where tid > 0 and upid is null')" = 0 ] ||
		fail "threads with no process: $(tp t.pftrace 'select tid, name from thread where tid > 0 and upid is null')"
}

@test "trace processor reads the corpus files' Perfetto traces: slices, thread states, processes" {
	local f
	for f in kt-sched tc-sched tc-v7-stack; do
		check_tp "$TOP/tests/data/$f.dat"
	done
}

@test "trace processor reads a live recording's Perfetto trace: a program's threads in its process" {
	kt_tool threads_n "$BATS_TEST_TMPDIR" -pthread
	# 3 threads besides the main one, each napping 20 times.
	run rec -q -e sched -e raw_syscalls -o live.dat -- "$BATS_TEST_TMPDIR/threads_n" 3 20 2000
	assert_success
	check_tp live.dat
	# threads_n's 4 tasks, as the file names them, in one process: the
	# one of its main thread (its pid, the tgid of them all).
	"$KTRACE" report -i live.dat --format json -e sched_switch |
		jq -r 'select(.prev_comm == "threads_n") | .prev_pid' | sort -u >tids.txt
	[ "$(wc -l <tids.txt)" = 4 ] || fail "threads_n's tasks: $(cat tids.txt)"
	tp t.pftrace "select distinct p.pid from thread t join process p using (upid) where t.tid in ($(paste -sd, tids.txt))" >procs.txt
	[ "$(wc -l <procs.txt)" = 1 ] || fail "threads_n's threads in processes $(cat procs.txt)"
	grep -qx "$(cat procs.txt)" tids.txt || fail "process $(cat procs.txt) is none of threads_n's tasks"
	[ "$(tp t.pftrace "select count(*) from thread t join process p using (upid) where p.pid = $(cat procs.txt)")" -ge 4 ]
}

@test "a sys_enter keeps the arguments its call takes; a syscall-bound trace is at most 25% of the JSON" {
	# dd's own 64-byte reads and writes: 40,000 calls of 3 arguments.
	run rec -q -F -e raw_syscalls -o sc.dat -- dd if=/dev/zero of=/dev/null bs=64 count=20000
	assert_success
	"$KTRACE" report -i sc.dat --format perfetto -o t.pftrace
	"$KTRACE" report -i sc.dat --format chrome -o t.json
	local pf js
	pf=$(stat -c %s t.pftrace)
	js=$(stat -c %s t.json)
	[ $((4 * pf)) -le "$js" ] || fail "perfetto $pf bytes: more than 25% of the JSON's $js"
	# The trace processor's system call slices, with the arguments it
	# read (args[0]...): as many as the kernel's own sys_enter_NAME
	# format has fields, where this kernel has that event.
	tp t.pftrace "select s.name, count(a.key) from slice s left join args a
		on a.arg_set_id = s.arg_set_id and a.key like 'args[%'
		where s.name like 'sys\_%' escape '\' group by s.id" | sort -u >nargs.txt
	grep -qx 'sys_read,3' nargs.txt || fail "no read of 3 arguments: $(cat nargs.txt)"
	grep -qx 'sys_write,3' nargs.txt || fail "no write of 3 arguments: $(cat nargs.txt)"
	local name n f want
	while IFS=, read -r name n; do
		f=$TRACEFS/events/syscalls/sys_enter_${name#sys_}/format
		[ -r "$f" ] || continue
		want=$(awk '/field:/ && !/common_/ && !/__syscall_nr/ { n++ } END { print n + 0 }' "$f")
		[ "$n" = "$want" ] || fail "$name: $n arguments, its format $want"
	done <nargs.txt
}

@test "generic events, described once per bundle: the trace processor's counts and args are report's; a mostly generic file is at most 25% of the JSON" {
	# Events Perfetto has no message for (any system but the typed
	# messages' sched, irq, raw_syscalls, task, signal and ftrace): kmem,
	# net, timer, syscalls:sys_enter_NAME... in kt-kinds, only
	# syscalls:* in tc-syscalls.
	local f pf js
	for f in kt-kinds tc-syscalls; do
		"$KTRACE" report -i "$TOP/tests/data/$f.dat" --format perfetto -o t.pftrace
		"$KTRACE" report -i "$TOP/tests/data/$f.dat" --format chrome -o t.json
		# (python, not jq: jq rounds numbers past 2^53)
		"$KTRACE" report -i "$TOP/tests/data/$f.dat" --format json | python3 -c '
import json, sys
for l in sys.stdin:
    if json.loads(l).get("system", "sched") not in ("sched", "irq", "raw_syscalls", "task", "signal", "ftrace"):
        sys.stdout.write(l)' >gen.jsonl
		[ "$(wc -l <gen.jsonl)" -gt 100 ] || fail "$f: $(wc -l <gen.jsonl) generic events"
		jq -r .event gen.jsonl | sort | uniq -c | awk '{ print $2 "," $1 }' >want.txt
		tp t.pftrace "select name, count(*) from ftrace_event where name in
			($(cut -d, -f1 want.txt | sed "s/.*/'&'/" | paste -sd,)) group by name order by name" >got.txt
		diff -u want.txt got.txt || fail "$f: generic events per name differ: $(cat tp.err)"
		[ "$(tp t.pftrace "select count(*) from stats where name = 'ftrace_generic_descriptor_errors' and value > 0")" = 0 ]
		# Each name's first event: the trace processor's args are its fields.
		tp t.pftrace "select f.name, a.key, coalesce(a.string_value, a.int_value) from ftrace_event f
			join args a using (arg_set_id) where f.id in (select min(id) from ftrace_event group by name)" >args.txt
		python3 - gen.jsonl args.txt <<'PY' || fail "$f: args differ"
import csv, json, sys
first = {}
for l in open(sys.argv[1]):
    e = json.loads(l)
    first.setdefault(e["event"], e)
args = {}
for name, key, val in csv.reader(open(sys.argv[2])):
    if name in first:
        args.setdefault(name, {})[key] = val
assert set(args) == set(first), (sorted(first), sorted(args))
for name, kv in args.items():
    e = first[name]
    common = {"cpu", "ts", "pid", "comm", "event", "system", "buffer"}
    if e["system"] == "syscalls":
        common |= {"syscall", "errno"}	# report's own: the call's name, ret's
    # a field named as a common key is field_NAME in the JSON
    want = {k[6:] if k.startswith("field_") else k: v for k, v in e.items() if k not in common}
    assert set(kv) == set(want), (name, sorted(kv), sorted(want))
    for k, v in kv.items():
        w = want[k]
        if isinstance(w, int):
            assert int(v) % (1 << 64) == w % (1 << 64), (name, k, v, w)
        elif isinstance(w, str):
            assert v == w, (name, k, v, w)
print("ok", len(args), "names")
PY
		pf=$(stat -c %s t.pftrace)
		js=$(stat -c %s t.json)
		# kt-kinds 20.1% (48.9% with every field's name in every event);
		# tc-syscalls, 182 small events of 2 CPUs' bundles, 25.6% (61.8%).
		if [ "$f" = kt-kinds ]; then
			[ $((4 * pf)) -le "$js" ] || fail "$f: perfetto $pf bytes, more than 25% of the JSON's $js"
		else
			[ $((100 * pf)) -le $((26 * js)) ] || fail "$f: perfetto $pf bytes, more than 26% of the JSON's $js"
		fi
	done
}
