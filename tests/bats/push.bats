#!/usr/bin/env bats
# ktrace push: recordings made here, pushed into real ClickHouse servers
# (tests/bats/clickhouse.bash: as nobody, on loopback ports, in temporary
# directories removed on every path), checked against ktrace sql and
# report --format json on the same files.

load helpers
load clickhouse

bats_require_minimum_version 1.5.0

setup_file() {
	export KT_PUSH_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool getppid_n "$KT_PUSH_BIN"
	kt_tool threads_n "$KT_PUSH_BIN" -lpthread
	cd "$BATS_FILE_TMPDIR"
	: >"$BATS_FILE_TMPDIR/ktrace.pids"
	# A small recording: system calls and the scheduler's events.
	BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR rec -q -e raw_syscalls -e sched_switch \
		-e sched_waking -e sched_wakeup -o "$BATS_FILE_TMPDIR/a.dat" -- \
		sh -c "$KT_PUSH_BIN/getppid_n 300; sleep 0.05; $KT_PUSH_BIN/getppid_n 300; $KT_PUSH_BIN/threads_n 2 10 100" >/dev/null
	ch_start CH1 "$(ch_port)" "$(ch_port)"
	export CH1
}

teardown_file() {
	ch_stop "${CH1:-}"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	URL=http://127.0.0.1:$(cat "$CH1/http_port")
}

teardown() {
	cd /
	ch_stop "${CHA:-}"
	ch_stop "${CHB:-}"
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
}

# trace_of OUTPUT: the trace id push printed.
trace_of() {
	sed -n 's/.*trace \([0-9a-f]*\)[: ].*/\1/p' <<<"$1" | head -n 1
}

@test "push: every table's counts and values are ktrace sql's and report's JSON" {
	local f=$BATS_FILE_TMPDIR/a.dat id t n c
	# A database of this try's own (push makes it).
	db=try${BATS_TEST_TRY_NUMBER:-1}
	run "$KTRACE" push -i "$f" --to "$URL/$db"
	assert_success
	assert_output --regexp "pushed as host $(uname -n), trace [0-9a-f]+: [0-9]+ events, .*, [0-9]+ events/s, [0-9]+ tables"
	id=$(trace_of "$output")
	[ -n "$id" ]
	# Every table with rows: the same count as ktrace sql's.
	for t in events sys_enter sys_exit sched_switch sched_waking sched_wakeup tasks losses; do
		n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from $t" | tail -n 1)
		c=$(chq "$CH1" "SELECT count() FROM $db.$t WHERE trace_id = $id" 2>/dev/null || echo 0)
		[ "$n" = "$c" ] || fail "$t: sql $n, clickhouse $c"
	done
	# The values: report's JSON, names beside numbers.
	diff <(chq "$CH1" "SELECT ts, cpu, pid, comm, id, ret, ifNull(syscall, ''), ifNull(errno, '-') FROM $db.sys_exit WHERE trace_id = $id ORDER BY ts, cpu") \
		<("$KTRACE" report -i "$f" --format json -e sys_exit | jq -r '[.ts, .cpu, .pid, .comm, .id, .ret, .syscall, (.errno // "-")] | @tsv' | sort -n -k1,1 -k2,2)
	diff <(chq "$CH1" "SELECT ts, prev_comm, prev_pid, prev_state, prev_state_name, next_comm, next_pid FROM $db.sched_switch WHERE trace_id = $id ORDER BY ts, cpu") \
		<("$KTRACE" sql -i "$f" --format json "select ts, prev_comm, prev_pid, prev_state, prev_state_name, next_comm, next_pid from sched_switch order by ts, cpu" | jq -r '[.[]] | @tsv')
	diff <(chq "$CH1" "SELECT pid, tgid, comm, events, first_ts, last_ts FROM $db.tasks WHERE trace_id = $id ORDER BY pid") \
		<("$KTRACE" sql -i "$f" --format json "select pid, tgid, comm, events, first_ts, last_ts from tasks order by pid" | jq -r '[.[]] | @tsv')
	# The types: the kernel's for cpu and pid, Int64 for every field.
	run chq "$CH1" "SELECT table, name, type FROM system.columns WHERE database = '$db' AND ((table IN ('sys_exit', 'events', 'losses') AND name = 'cpu') OR (table IN ('sys_exit', 'tasks') AND name IN ('pid', 'tgid', 'id')) OR (table = 'sched_switch' AND name = 'prev_pid')) ORDER BY table, name"
	assert_output "events	cpu	UInt32
losses	cpu	UInt32
sched_switch	prev_pid	Int64
sys_exit	cpu	UInt32
sys_exit	id	Int64
sys_exit	pid	Int32
tasks	pid	Int32
tasks	tgid	Int32"
	# record's thread -> process map got there: threads_n's threads have
	# a tgid not their pid (sql.bats checks which).
	run chq "$CH1" "SELECT countIf(tgid != pid) > 0 FROM $db.tasks WHERE trace_id = $id"
	assert_output 1
	# wall_ts is ts moved by the offsets record measured.
	run chq "$CH1" "SELECT count() FROM $db.events WHERE trace_id = $id AND (wall_ts IS NULL OR abs(wall_ts - ts - $("$KTRACE" sql -i "$f" --format csv "select value from meta where key = 'realtime_offset_start'" | tail -n 1)) > 10000000)"
	assert_output 0
	# The traces row: the file's facts.
	run chq "$CH1" "SELECT host, kernel, machine, cpus, clock, events FROM $db.traces WHERE trace_id = $id"
	assert_output "$(uname -n)	$(uname -r)	$(uname -m)	$(nproc)	local	$("$KTRACE" sql -i "$f" --format csv "select count(*) from events" | tail -n 1)"
	# And the command line that recorded it.
	run chq "$CH1" "SELECT command LIKE 'ktrace record -q -e raw_syscalls -e sched_switch -e sched_waking -e sched_wakeup -o $f -- sh -c %getppid_n 300%' FROM $db.traces WHERE trace_id = $id"
	assert_output 1
}

# tasks_agree FILE DB: each task's run_ns, switches and missing_switches,
# as ClickHouse has them (NULL as "-") and as ktrace sql has them.
tasks_agree() {
	local f=$1 db=$2 id
	id=$(chq "$CH1" "SELECT trace_id FROM $db.traces WHERE file = '$f'")
	[ -n "$id" ] || fail "$f: no traces row in $db"
	chq "$CH1" "SELECT pid, ifNull(toString(run_ns), '-'), ifNull(toString(switches), '-'), ifNull(toString(missing_switches), '-') FROM $db.tasks WHERE trace_id = $id ORDER BY pid" >ch.txt
	"$KTRACE" sql -i "$f" --format csv "select pid, coalesce(run_ns, '-'), coalesce(switches, '-'), coalesce(missing_switches, '-') from tasks order by pid" |
		tail -n +2 | tr , '\t' >sql.txt
	[ -s sql.txt ] || fail "$f: sql has no tasks"
	diff ch.txt sql.txt || fail "$f: push's tasks are not sql's"
}

@test "push: tasks' run_ns, switches and missing_switches are sql's (one task model), NULL without sched_switch; an older tasks table gets them" {
	local f=$BATS_FILE_TMPDIR/a.dat db=tm${BATS_TEST_TRY_NUMBER:-1} old=tmold${BATS_TEST_TRY_NUMBER:-1}
	run "$KTRACE" push -q -i "$f" -i "$TOP/tests/data/tc-sched.dat" -i "$TOP/tests/data/tc-syscalls.dat" --to "$URL/$db"
	assert_success
	tasks_agree "$f" "$db"
	tasks_agree "$TOP/tests/data/tc-sched.dat" "$db"
	tasks_agree "$TOP/tests/data/tc-syscalls.dat" "$db"
	# A recording with switches has run time; one without has NULL.
	run chq "$CH1" "SELECT countIf(run_ns > 0) > 0, countIf(run_ns IS NULL) FROM $db.tasks WHERE trace_id = (SELECT trace_id FROM $db.traces WHERE file = '$f')"
	assert_output "1	0"
	run chq "$CH1" "SELECT count() > 0, countIf(run_ns IS NULL) = count() FROM $db.tasks WHERE trace_id = (SELECT trace_id FROM $db.traces WHERE file = '$TOP/tests/data/tc-syscalls.dat')"
	assert_output "1	1"
	run chq "$CH1" "SELECT name, type FROM system.columns WHERE database = '$db' AND table = 'tasks' AND name IN ('run_ns', 'switches', 'missing_switches') ORDER BY name"
	assert_output "missing_switches	Nullable(Int64)
run_ns	Nullable(Int64)
switches	Nullable(Int64)"

	# A tasks table of an older push, without the three: they are added,
	# its rows keep NULL there, the new trace's rows have sql's figures.
	chx "$CH1" "CREATE DATABASE IF NOT EXISTS $old"
	chx "$CH1" "CREATE TABLE IF NOT EXISTS $old.tasks (host String, trace_id UInt64, boot_id UUID, pid Int32, tgid Int32, comm String, events Int64, first_ts Int64, last_ts Int64) ENGINE = MergeTree() ORDER BY (host, trace_id, pid)"
	chx "$CH1" "INSERT INTO $old.tasks VALUES ('before', 1, '00000000-0000-0000-0000-000000000001', 1, 1, 'init', 1, 1, 1)"
	run "$KTRACE" push -q -i "$f" --to "$URL/$old"
	assert_success
	run chq "$CH1" "SELECT name, type FROM system.columns WHERE database = '$old' AND table = 'tasks' AND name IN ('run_ns', 'switches', 'missing_switches') ORDER BY name"
	assert_output "missing_switches	Nullable(Int64)
run_ns	Nullable(Int64)
switches	Nullable(Int64)"
	run chq "$CH1" "SELECT run_ns IS NULL AND switches IS NULL AND missing_switches IS NULL FROM $old.tasks WHERE host = 'before'"
	assert_output 1
	tasks_agree "$f" "$old"
}

@test "push: batches of 50 rows, several of a table at once on the senders, new tables made once: each row once" {
	local f=$BATS_FILE_TMPDIR/a.dat id t n c
	db=small${BATS_TEST_TRY_NUMBER:-1}
	run "$KTRACE" push -i "$f" --to "$URL/$db" --batch 50
	assert_success
	id=$(trace_of "$output")
	[ -n "$id" ]
	for t in events sys_enter sys_exit sched_switch sched_waking sched_wakeup tasks; do
		n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from $t" | tail -n 1)
		c=$(chq "$CH1" "SELECT count() FROM $db.$t WHERE trace_id = $id" 2>/dev/null || echo 0)
		[ "$n" = "$c" ] || fail "$t: sql $n, clickhouse $c"
	done
	diff <(chq "$CH1" "SELECT ts, cpu, pid, id, ret FROM $db.sys_exit WHERE trace_id = $id ORDER BY ts, cpu") \
		<("$KTRACE" sql -i "$f" --format json "select ts, cpu, pid, id, ret from sys_exit order by ts, cpu" | jq -r '[.[]] | @tsv')
}

@test "push: batches whose columns span many pieces of its arena, the pieces used again batch after batch: each value as sql has it" {
	local f=$BATS_TEST_TMPDIR/big.dat id t n c
	db=big${BATS_TEST_TRY_NUMBER:-1}
	# 25000 calls: batches of 10000 rows a table, in which ts (80 KB)
	# passes its first piece (malloc's, 64 KB) and args (480 KB) spans
	# four (see push/bytebuf.h); a table's third batch is written into the
	# pieces its first had.
	rec -q -e raw_syscalls -o "$f" -- "$KT_PUSH_BIN/getppid_n" 25000 >/dev/null
	run "$KTRACE" push -i "$f" --to "$URL/$db" --batch 10000
	assert_success
	id=$(trace_of "$output")
	[ -n "$id" ]
	for t in sys_enter sys_exit tasks; do
		n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from $t" | tail -n 1)
		c=$(chq "$CH1" "SELECT count() FROM $db.$t WHERE trace_id = $id" 2>/dev/null || echo 0)
		[ "$n" = "$c" ] || fail "$t: sql $n, clickhouse $c"
	done
	n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from sys_enter" | tail -n 1)
	[ "$n" -gt 20000 ] || fail "sys_enter: $n rows, not 3 batches"
	diff <(chq "$CH1" "SELECT ts, cpu, pid, comm, id, args, ifNull(syscall, '-') FROM $db.sys_enter WHERE trace_id = $id ORDER BY ts, cpu") \
		<("$KTRACE" sql -i "$f" --format json "select ts, cpu, pid, comm, id, args, syscall from sys_enter order by ts, cpu" | jq -r '[.ts, .cpu, .pid, .comm, .id, .args, (.syscall // "-")] | @tsv')
	diff <(chq "$CH1" "SELECT ts, cpu, id, ret FROM $db.sys_exit WHERE trace_id = $id ORDER BY ts, cpu") \
		<("$KTRACE" sql -i "$f" --format json "select ts, cpu, id, ret from sys_exit order by ts, cpu" | jq -r '[.[]] | @tsv')
}

@test "push: the same file twice sends nothing the second time" {
	local f=$BATS_FILE_TMPDIR/a.dat id before
	run "$KTRACE" push -i "$f" --to "$URL" --host twice
	assert_success
	id=$(trace_of "$output")
	before=$(chq "$CH1" "SELECT count() FROM events WHERE host = 'twice'")
	run "$KTRACE" push -i "$f" --to "$URL" --host twice
	assert_success
	assert_output "$f: trace $id of host twice is there already: nothing sent"
	run chq "$CH1" "SELECT count() FROM events WHERE host = 'twice'"
	assert_output "$before"
	run chq "$CH1" "SELECT count() FROM traces WHERE host = 'twice'"
	assert_output 1
}

@test "push: the trace id is the file's XXH3, as xxhsum -H3 prints it (in hex)" {
	local f=$BATS_FILE_TMPDIR/a.dat id hex
	run "$KTRACE" push -i "$f" --to "$URL" --host xxh3
	assert_success
	id=$(trace_of "$output")
	[ -n "$id" ]
	hex=$(xxhsum -H3 <"$f" | awk '{ print $NF }')
	[[ $hex =~ ^[0-9a-f]{16}$ ]]
	[ "$id" = "$(printf '%u' "0x$hex")" ]
	run chq "$CH1" "SELECT trace_id FROM traces WHERE host = 'xxh3'"
	assert_output "$id"
}

@test "push: -i DIR pushes a series of chunks as one trace: the file's rows, an id of the chunks' bytes in order" {
	local f=$BATS_FILE_TMPDIR/a.dat d=$BATS_TEST_TMPDIR/chunks id hex t n c
	mkdir -p "$d"
	# trace-cmd split's chunks, a few pages of each CPU apiece.
	(cd "$d" && trace-cmd split -i "$f" -o out -p 2 -r >/dev/null 2>&1)
	[ "$(ls "$d" | wc -l)" -gt 2 ]
	# trace-cmd 3.1.6's split is no oracle when its chunks hold other
	# events than the file (seen once with v7, series.bats' split_into).
	n=0
	for t in "$d"/out.*; do
		n=$((n + $(trace-cmd report -i "$t" 2>/dev/null | grep -vc '^cpus=\|^version =')))
	done
	[ "$n" -eq "$(trace-cmd report -i "$f" 2>/dev/null | grep -vc '^cpus=\|^version =')" ] ||
		skip "trace-cmd split's chunks of a.dat hold $n events, not the file's"
	run "$KTRACE" push -i "$d" --to "$URL" --host series
	assert_success
	id=$(trace_of "$output")
	[ -n "$id" ]
	hex=$(cat $(ls -v "$d"/out.*) | xxhsum -H3 | awk '{ print $NF }')
	[ "$id" = "$(printf '%u' "0x$hex")" ]
	for t in events sys_enter sched_switch tasks; do
		n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from $t" | tail -n 1)
		c=$(chq "$CH1" "SELECT count() FROM $t WHERE trace_id = $id")
		[ "$n" = "$c" ] || fail "$t: the file's $n, the series' $c"
	done
	diff <(chq "$CH1" "SELECT ts, cpu, pid, next_pid FROM sched_switch WHERE trace_id = $id ORDER BY ts, cpu") \
		<("$KTRACE" sql -i "$f" --format csv "select ts, cpu, pid, next_pid from sched_switch order by ts, cpu" | tail -n +2 | tr , '\t')
}

@test "push: one killed mid-way is completed by the next, one copy of each row" {
	local id n pid i c
	rec -q -e raw_syscalls -o big.dat -- "$KT_PUSH_BIN/getppid_n" 20000
	n=$("$KTRACE" sql -i big.dat --format csv "select count(*) from sys_exit" | tail -n 1)
	# Small batches, so that it is killed between two of them.  Counted
	# in sys_exit, which its first batch makes (the events view is made
	# at the end of a push that makes an event table).
	"$KTRACE" push -q -i big.dat --to "$URL" --host killed --batch 200 &
	pid=$!
	for i in $(seq 200); do
		c=$(chq "$CH1" "SELECT count() FROM sys_exit WHERE host = 'killed'" 2>/dev/null) || c=0
		[ "${c:-0}" -gt 0 ] && break
		sleep 0.05
	done
	kill -KILL "$pid"
	wait "$pid" || true
	c=$(chq "$CH1" "SELECT count() FROM sys_exit WHERE host = 'killed'")
	[ "$c" -gt 0 ] && [ "$c" -lt "$n" ] || fail "not killed mid-way: $c of $n rows"
	# No traces row: known incomplete.
	run chq "$CH1" "SELECT count() FROM traces WHERE host = 'killed'"
	assert_output 0
	run "$KTRACE" push -i big.dat --to "$URL" --host killed
	assert_success
	assert_output --partial "big.dat: deleted the rows of an interrupted push first"
	id=$(trace_of "$output")
	for t in events sys_enter sys_exit; do
		run chq "$CH1" "SELECT count(), uniqExact(ts, cpu) FROM $t WHERE host = 'killed'"
		c=$("$KTRACE" sql -i big.dat --format csv "select count(*) from $t" | tail -n 1)
		assert_output "$c	$c"
	done
	run chq "$CH1" "SELECT count() FROM traces WHERE host = 'killed' AND trace_id = $id"
	assert_output 1
}

@test "push: events is a view over the event tables of every push; a table by that name is refused" {
	local f=$BATS_FILE_TMPDIR/a.dat n m p1 p2 db=view${BATS_TEST_TRY_NUMBER:-1}
	rec -q -e sched_process_exit -o exit.dat -- sh -c 'true; /bin/true; /bin/true'
	run "$KTRACE" push -q -i "$f" -i exit.dat --to "$URL/$db"
	assert_success
	n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from events" | tail -n 1)
	m=$("$KTRACE" sql -i exit.dat --format csv "select count(*) from events" | tail -n 1)
	run chq "$CH1" "SELECT count() FROM $db.events"
	assert_output "$((n + m))"
	# Each record once, named as sql names it.
	diff <(chq "$CH1" "SELECT system, event, count() FROM $db.events WHERE trace_id IN (SELECT trace_id FROM $db.traces WHERE file = '$f') GROUP BY system, event ORDER BY system, event") \
		<("$KTRACE" sql -i "$f" --format csv "select system, event, count(*) from events group by system, event order by system, event" | tail -n +2 | tr ',' '\t')
	run chq "$CH1" "SELECT count() FROM $db.events WHERE event = 'sched_process_exit' AND trace_id IN (SELECT trace_id FROM $db.traces WHERE file = 'exit.dat')"
	assert_output "$m"
	# Two first pushes at once into an empty database (small files: both
	# make the view at about the same time): one view over both's tables.
	"$KTRACE" push -q -i "$TOP/tests/data/kt-sched.dat" --to "$URL/${db}b" 2>/dev/null &
	p1=$!
	"$KTRACE" push -q -i "$TOP/tests/data/tc-sched.dat" --to "$URL/${db}b" 2>/dev/null &
	p2=$!
	wait "$p1" || fail "the first push failed"
	wait "$p2" || fail "the second push failed"
	n=$("$KTRACE" sql -i "$TOP/tests/data/kt-sched.dat" --format csv "select count(*) from events" | tail -n 1)
	m=$("$KTRACE" sql -i "$TOP/tests/data/tc-sched.dat" --format csv "select count(*) from events" | tail -n 1)
	run chq "$CH1" "SELECT count() FROM ${db}b.events"
	assert_output "$((n + m))"
	# An events table (not push's view) is another schema's.
	chx "$CH1" "CREATE DATABASE IF NOT EXISTS evtab"
	chx "$CH1" "CREATE TABLE IF NOT EXISTS evtab.events (host String, trace_id UInt64, ts Int64) ENGINE = MergeTree() ORDER BY host"
	run --separate-stderr "$KTRACE" push -q -i exit.dat --to "$URL/evtab"
	assert_failure 1
	[[ $stderr == *": table 'events' is of another schema: a MergeTree table, not push's view; complete: none" ]] || fail "$stderr"
}

@test "push: credentials from a file or the environment, never the command line" {
	local f=$BATS_FILE_TMPDIR/a.dat
	echo kt-secret >pw
	run "$KTRACE" push -q -i "$f" --to "$URL/creds" --user kt --password-file pw
	assert_success
	run env KTRACE_PUSH_PASSWORD=kt-secret "$KTRACE" push -i "$f" --to "$URL/creds" --user kt
	assert_success
	assert_output --partial "is there already: nothing sent"
	# --password is --password-file abbreviated (argp): a file name.
	run "$KTRACE" push -i "$f" --to "$URL/creds" --password kt-secret
	assert_failure 1
	assert_output "ktrace push: cannot read 'kt-secret': No such file or directory"
}

@test "push: unreachable, wrong password, a table of another schema, a refused batch: one line each, what is complete" {
	local f=$BATS_FILE_TMPDIR/a.dat port ev
	port=$(ch_port)
	run --separate-stderr "$KTRACE" push -i "$f" --to "http://127.0.0.1:$port/x"
	assert_failure 1
	[ "${#stderr_lines[@]}" = 1 ] || fail "not one line: $stderr"
	[[ $stderr == "ktrace push: cannot push '$f' to 127.0.0.1:$port: unreachable: "*"; complete: none" ]] || fail "$stderr"

	# A file that cannot be read: said before the reader tries, one line.
	run --separate-stderr "$KTRACE" push -i "$BATS_FILE_TMPDIR/none.dat" --to "$URL/x"
	assert_failure 1
	[ "${#stderr_lines[@]}" = 1 ] || fail "not one line: $stderr"
	[[ $stderr == "ktrace push: cannot push '$BATS_FILE_TMPDIR/none.dat' to 127.0.0.1:"*": cannot read '$BATS_FILE_TMPDIR/none.dat': No such file or directory; complete: none" ]] || fail "$stderr"

	run --separate-stderr env KTRACE_PUSH_PASSWORD=wrong "$KTRACE" push -i "$f" --to "$URL/x" --user kt
	assert_failure 1
	[ "${#stderr_lines[@]}" = 1 ] || fail "not one line: $stderr"
	[[ $stderr == "ktrace push: cannot push '$f' to 127.0.0.1:"*": credentials refused: Wrong password for user kt"*"; complete: none" ]] || fail "$stderr"

	# A table of another schema: refused before anything is changed.
	chx "$CH1" "CREATE DATABASE IF NOT EXISTS other"
	chx "$CH1" "CREATE TABLE IF NOT EXISTS other.events (host String, trace_id UInt64, ts String) ENGINE = MergeTree() ORDER BY host"
	run --separate-stderr "$KTRACE" push -i "$f" --to "$URL/other"
	assert_failure 1
	[[ $stderr == "ktrace push: cannot push '$f' to 127.0.0.1:"*": table 'events' is of another schema: its column 'ts' is String, not Int64; complete: none" ]] || fail "$stderr"
	run chq "$CH1" "SELECT name FROM system.columns WHERE database = 'other' AND table = 'events'"
	assert_output "host
trace_id
ts"

	# A batch the server refuses: ClickHouse's message, the traces
	# complete before it named, the refused one without its traces row.
	rej=rej${BATS_TEST_TRY_NUMBER:-1}
	rec -q -e sched_process_exit -o exit.dat -- sh -c 'true; /bin/true; /bin/true'
	run "$KTRACE" push -q -i exit.dat --to "$URL/$rej"
	assert_success
	chx "$CH1" "ALTER TABLE $rej.sched_process_exit ADD COLUMN refuse UInt8 DEFAULT throwIf(host = 'other')"
	run --separate-stderr "$KTRACE" push -q -i "$f" -i exit.dat --to "$URL/$rej" --host other
	assert_failure 1
	[ "${#stderr_lines[@]}" = 1 ] || fail "not one line: $stderr"
	[[ $stderr == "ktrace push: cannot push 'exit.dat' to 127.0.0.1:"*": batch of "*" rows into 'sched_process_exit' refused: Value passed to 'throwIf' function is non zero (ClickHouse code 395); complete: $f" ]] || fail "$stderr"
	run chq "$CH1" "SELECT file FROM $rej.traces WHERE host = 'other'"
	assert_output "$f"

	# An event's table of another schema: found by the sender that
	# would send its first batch (it makes or checks the table there),
	# the same one line; the trace not marked complete.
	ev=evs${BATS_TEST_TRY_NUMBER:-1}
	chx "$CH1" "CREATE DATABASE IF NOT EXISTS $ev"
	chx "$CH1" "CREATE TABLE IF NOT EXISTS $ev.sched_process_exit (host String, trace_id UInt64, ts String) ENGINE = MergeTree() ORDER BY host"
	run --separate-stderr "$KTRACE" push -q -i exit.dat --to "$URL/$ev"
	assert_failure 1
	[ "${#stderr_lines[@]}" = 1 ] || fail "not one line: $stderr"
	[[ $stderr == "ktrace push: cannot push 'exit.dat' to 127.0.0.1:"*": table 'sched_process_exit' is of another schema: its column 'ts' is String, not Int64; complete: none" ]] || fail "$stderr"
	run chq "$CH1" "SELECT count() FROM $ev.traces"
	assert_output 0
}

# The p99 wakeup latency per host: each task's sched_waking and its
# switch-in, sorted together (ts * 2 + kind: a waking before a switch-in
# of the same ts), a switch-in right after a waking being one latency.
P99_SQL="SELECT host, quantileExact(0.99)(lat), count() FROM (
  SELECT host, arrayJoin(arrayFilter(x -> x >= 0, arrayMap(i -> if(i > 1 AND e[i] % 2 = 1 AND e[i - 1] % 2 = 0,
      intDiv(e[i], 2) - intDiv(e[i - 1], 2), -1), arrayEnumerate(e)))) AS lat
  FROM (SELECT host, trace_id, tid, arraySort(groupArray(key)) AS e FROM (
      SELECT host, trace_id, field_pid AS tid, ts * 2 AS key FROM WAKING
      UNION ALL
      SELECT host, trace_id, next_pid AS tid, ts * 2 + 1 AS key FROM SWITCH)
    GROUP BY host, trace_id, tid))
GROUP BY host ORDER BY host"

@test "push: two shards, one cluster: a Distributed table sees both hosts, their latencies, losses and wall-clock order" {
	local h1 t1 h2 t2 remote t0a t1a t1b t out
	h1=$(ch_port) t1=$(ch_port) h2=$(ch_port) t2=$(ch_port)
	remote="<kt_fleet><shard><replica><host>127.0.0.1</host><port>$t1</port></replica></shard><shard><replica><host>127.0.0.1</host><port>$t2</port></replica></shard></kt_fleet>"
	ch_start CHA "$h1" "$t1" "$remote"
	ch_start CHB "$h2" "$t2" "$remote"
	# Two recordings one after the other, as two hosts, one per shard.
	t0a=$(date +%s%N)
	rec -q -e sched_switch -e sched_waking -o alpha.dat -- sh -c "$KT_PUSH_BIN/getppid_n 200; sleep 0.05; $KT_PUSH_BIN/getppid_n 200" >/dev/null
	t1a=$(date +%s%N)
	rec -q -e sched_switch -e sched_waking -o beta.dat -- sh -c "$KT_PUSH_BIN/getppid_n 200; sleep 0.05; $KT_PUSH_BIN/getppid_n 200" >/dev/null
	t1b=$(date +%s%N)
	run "$KTRACE" push -q -i alpha.dat --host alpha --to "http://127.0.0.1:$h1/fleet"
	assert_success
	run "$KTRACE" push -q -i beta.dat --host beta --to "http://127.0.0.1:$h2/fleet"
	assert_success
	for t in events sched_switch sched_waking traces losses; do
		chx "$CHA" "CREATE TABLE fleet.all_$t AS fleet.$t ENGINE = Distributed(kt_fleet, fleet, $t)"
	done
	# Both hosts through the Distributed table, each as on its own shard.
	out=$(chq "$CHA" "$(sed 's/WAKING/fleet.all_sched_waking/; s/SWITCH/fleet.all_sched_switch/' <<<"$P99_SQL")")
	[ "$(cut -f1 <<<"$out" | tr '\n' ' ')" = "alpha beta " ] || fail "hosts: $out"
	awk -F'\t' '$2 <= 0 || $3 <= 0 { exit 1 }' <<<"$out" || fail "no latencies: $out"
	diff <(grep '^alpha' <<<"$out") <(chq "$CHA" "$(sed 's/WAKING/fleet.sched_waking/; s/SWITCH/fleet.sched_switch/' <<<"$P99_SQL")")
	diff <(grep '^beta' <<<"$out") <(chq "$CHB" "$(sed 's/WAKING/fleet.sched_waking/; s/SWITCH/fleet.sched_switch/' <<<"$P99_SQL")")
	# The events lost per host: report --stat's, from the traces rows.
	run chq "$CHA" "SELECT host, lost FROM fleet.all_traces ORDER BY host"
	assert_output "alpha	$("$KTRACE" report -i alpha.dat --stat --format json | jq .lost)
beta	$("$KTRACE" report -i beta.dat --stat --format json | jq .lost)"
	run chq "$CHA" "SELECT host, count() FROM fleet.all_events GROUP BY host ORDER BY host"
	assert_output "alpha	$("$KTRACE" sql -i alpha.dat --format csv 'select count(*) from events' | tail -n 1)
beta	$("$KTRACE" sql -i beta.dat --format csv 'select count(*) from events' | tail -n 1)"
	# Wall-clock order: alpha's events within its recording, beta's
	# within its own, all of alpha's before beta's.
	run chq "$CHA" "SELECT host, min(wall_ts), max(wall_ts) FROM fleet.all_events GROUP BY host ORDER BY min(wall_ts)"
	assert_success
	read -r ha amin amax hb bmin bmax <<<"$(tr '\n' ' ' <<<"$output")"
	[ "$ha $hb" = "alpha beta" ] || fail "order: $output"
	[ $((amin >= t0a && amax <= t1a && bmin >= t1a && bmax <= t1b && amax < bmin)) = 1 ] ||
		fail "alpha [$amin, $amax] in [$t0a, $t1a], beta [$bmin, $bmax] in [$t1a, $t1b]"
}

@test "push: a file without realtime offsets (trace-cmd's) goes in with wall_ts NULL, and push says so" {
	run --separate-stderr "$KTRACE" push -i "$TOP/tests/data/tc-sched.dat" --to "$URL/foreign"
	assert_success
	assert_equal "$stderr" "ktrace push: warning: '$TOP/tests/data/tc-sched.dat' has no realtime offsets (an older or foreign file): its wall_ts is NULL"
	run chq "$CH1" "SELECT count(), countIf(wall_ts IS NULL) FROM foreign.events"
	n=$("$KTRACE" sql -i "$TOP/tests/data/tc-sched.dat" --format csv "select count(*) from events" | tail -n 1)
	assert_output "$n	$n"
}

@test "push: a terminal gets a progress bar on stderr; a pipe gets none" {
	run script -qec "$KTRACE push -i $BATS_FILE_TMPDIR/a.dat --to $URL/tty --host tty" /dev/null
	assert_success
	assert_output --regexp "a\.dat \[#+\.*\] [0-9]+ events, .* sent"
	assert_output --regexp "pushed as host tty, trace [0-9a-f]+: [0-9]+ events"
	run --separate-stderr "$KTRACE" push -i "$BATS_FILE_TMPDIR/a.dat" --to "$URL/tty" --host tty2
	assert_success
	assert_equal "$stderr" ""
}

@test "push: a damaged file pushes what can be read and exits 2; a latency trace has nothing to push" {
	local D=$TOP/tests/data s
	s=$(stat -c %s "$D/tc-sched.dat")
	head -c $((s - 2000)) "$D/tc-sched.dat" >end-cut.dat
	run --separate-stderr "$KTRACE" push -q -i end-cut.dat --to "$URL/damaged"
	assert_failure 2
	[[ $stderr == *"'end-cut.dat' is damaged: pushed what could be read, as trace "* ]] || fail "$stderr"
	run chq "$CH1" "SELECT count() > 0 FROM damaged.traces WHERE file = 'end-cut.dat'"
	assert_output 1
	head -c 6000 "$D/tc-sched.dat" >head-cut.dat
	run --separate-stderr "$KTRACE" push -q -i head-cut.dat --to "$URL/damaged"
	assert_failure 2
	[[ ${stderr_lines[-1]} == "ktrace push: cannot push 'head-cut.dat' to 127.0.0.1:"*": the file is damaged (above); complete: none" ]] || fail "$stderr"
	run "$KTRACE" push -q -i "$D/tc-latency.dat" --to "$URL/damaged"
	assert_failure 1
	assert_output --partial "is a latency trace (the tracer's text, no records): nothing to push; complete: none"
	# Refused at once, while libcurl loads on a thread: exiting then
	# corrupted the heap, once in a few runs, until the load was joined.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		run "$KTRACE" push -q -i "$D/tc-latency.dat" --to "$URL/damaged"
		assert_failure 1
	done
}

@test "push: libcurl is loaded by push alone; every other command starts without it" {
	# Linked, it and its 30 libraries cost each command 6.5 ms of its start.
	run ldd "$KTRACE"
	assert_success
	refute_output --partial libcurl
	run env LD_DEBUG=files "$KTRACE" --version
	refute_output --partial libcurl
	run env LD_DEBUG=files "$KTRACE" push -q -i "$BATS_FILE_TMPDIR/a.dat" --to "$URL/lazy"
	assert_success
	assert_output --partial "file=libcurl.so.4"
}

@test "push: a libcurl that cannot be loaded gives one line naming the server and the reason, exit 1" {
	# A libcurl.so.4 found before Debian's, and not a library.
	mkdir badlib
	echo "not a library" >badlib/libcurl.so.4
	run --separate-stderr env LD_LIBRARY_PATH="$PWD/badlib" "$KTRACE" push -q -i "$BATS_FILE_TMPDIR/a.dat" --to "$URL/nocurl"
	assert_failure 1
	[[ $stderr == "ktrace push: cannot push '$BATS_FILE_TMPDIR/a.dat' to 127.0.0.1:"*": cannot load libcurl: "*"libcurl.so.4"*"; complete: none" ]] || fail "$stderr"
	[ "${#stderr_lines[@]}" = 1 ] || fail "$stderr"
}
