#!/usr/bin/env bats
# ktrace sql: every table against report's JSON of the same file (counts
# and values), the fixed tables, the output formats, --schema, --save
# (sqlite3 opens it), standard input, the prompt (through a pty), and bad
# queries and files.  The stored corpus, and one recording (threads_n,
# for tasks.tgid).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	D=$TOP/tests/data
}

# jsonl FILE EVENT: report's JSON of one event kind.
jsonl() {
	"$KTRACE" report -i "$1" --format json -e "$2"
}

@test "sql: each event table holds every record of its kind, as report's JSON counts them" {
	local f e n c
	for f in tc-sched tc-syscalls tc-kinds tc-v7-zstd; do
		for e in $("$KTRACE" report -i "$D/$f.dat" --stat --format json | jq -r '.events[] | "\(.system):\(.event)"'); do
			n=$(jsonl "$D/$f.dat" "$e" | wc -l)
			t=${e#*:}
			c=$("$KTRACE" sql -i "$D/$f.dat" --format csv "select count(*) from \"$t\"" 2>/dev/null | tail -n 1)
			if [ -z "$c" ]; then
				# two systems share the name: system_event
				c=$("$KTRACE" sql -i "$D/$f.dat" --format csv "select count(*) from \"${e/:/_}\"" | tail -n 1)
			fi
			[ "$c" = "$n" ] || fail "$f $e: sql $c, report $n"
		done
	done
	# events: all of them.
	n=$("$KTRACE" report -i "$D/tc-sched.dat" --format json | grep -vc '"lost"')
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select count(*) from events"
	assert_output "count(*)
$n"
}

@test "sql: the values are report's JSON values, names beside numbers" {
	diff <("$KTRACE" sql -i "$D/tc-sched.dat" --format csv \
		"select ts, cpu, pid, prev_comm, prev_pid, prev_state, prev_state_name, next_pid from sched_switch" | tail -n +2) \
		<(jsonl "$D/tc-sched.dat" sched_switch | jq -r '[.ts, .cpu, .pid, .prev_comm, .prev_pid, .prev_state, .prev_state_name, .next_pid] | @csv' | tr -d '"')
	diff <("$KTRACE" sql -i "$D/tc-syscalls.dat" --format json \
		"select ts, pid, ret, syscall, errno from sys_exit_openat" | jq -c '[.ts, .pid, .ret, .syscall, .errno]') \
		<(jsonl "$D/tc-syscalls.dat" sys_exit_openat | jq -c '[.ts, .pid, .ret, .syscall, .errno]')
	# An array field: its numbers.
	run "$KTRACE" sql -i "$D/tc-stack.dat" --format csv "select caller from kernel_stack limit 1"
	assert_line --index 1 --regexp '^"\[[0-9]+(,[0-9]+)+\]"$'
	# A char buf[] ending the record (ftrace:print): its text, as report
	# prints it (the newline left out).
	diff <("$KTRACE" sql -i "$D/tc-print.dat" --format json "select buf from print" | jq -r .buf) \
		<("$KTRACE" report -i "$D/tc-print.dat" -e ftrace:print | sed 's/.*tracing_mark_write: //')
}

@test "sql: tasks, losses (never silent) and meta" {
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format json "select pid, comm, events from tasks where pid > 0 order by events desc limit 1"
	assert_success
	pid=$(jq .pid <<<"$output")
	n=$("$KTRACE" report -i "$D/tc-sched.dat" --format json --pid "$pid" | grep -vc '"lost"')
	jq -e --argjson n "$n" '.events == $n' <<<"$output"
	# The loss: each gap the data marks, as report --stat counts them,
	# and the file's total (with the record-time counters) on stderr.
	st=$("$KTRACE" report -i "$D/tc-v7-lost.dat" --stat --format json)
	marked=$(jq '[.cpus[].lost] | add' <<<"$st")
	unknown=$(jq '[.cpus[].unknown_marks] | add' <<<"$st")
	total=$(jq .lost <<<"$st")
	out=$("$KTRACE" sql -i "$D/tc-v7-lost.dat" --format csv "select sum(lost), count(*) - count(lost) from losses" 2>err)
	[ "$(tail -n 1 <<<"$out")" = "$marked,$unknown" ] || fail "losses: $out; report: $marked marked, $unknown uncounted"
	[ "$(cat err)" = "ktrace sql: warning: at least $total events were lost in '$D/tc-v7-lost.dat'; the tables lack them (the losses table says where)" ] ||
		fail "$(cat err)"
	# A gap's span: the last record before it and the first after.
	"$KTRACE" sql -i "$D/tc-v7-lost.dat" --format csv "select count(*) from losses where after_ts >= before_ts" | tail -n 1 | grep -qx 0
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select value from meta where key in ('clock', 'cpus', 'version') order by key"
	assert_output "value
local
2
6"
}

@test "sql: tasks.tgid: threads_n's threads under its main thread's pid; a file without record's map, each task its own process" {
	kt_tool threads_n "$BATS_TEST_TMPDIR/bin" -lpthread
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	run rec -q -e raw_syscalls -o t.dat -- "$BATS_TEST_TMPDIR/bin/threads_n" 3 20 100
	assert_success
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids"
	# The main thread: the one that returned from execve as threads_n.
	main=$("$KTRACE" sql -i t.dat --format csv "select pid from sys_exit where syscall = 'execve' and comm = 'threads_n'" | tail -n 1)
	[ -n "$main" ] || fail "no execve of threads_n"
	run "$KTRACE" sql -i t.dat --format csv "select count(*), sum(tgid = $main), sum(pid = $main) from tasks where comm = 'threads_n'"
	assert_output "count(*),sum(tgid = $main),sum(pid = $main)
4,4,1"
	# trace-cmd's file has no map: tgid is pid.
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select count(*) > 0, sum(tgid != pid) from tasks"
	assert_output "count(*) > 0,sum(tgid != pid)
1,0"
}

@test "sql: tables loaded by one pass or several join as report counts; the loss is the same whether a load or a pass of its own counts it" {
	local f=$D/tc-v7-lost.dat
	# events and tasks, loaded by one pass: each task's events are its rows.
	out=$("$KTRACE" sql -i "$f" --format csv 2>/dev/null \
		"select count(*) from tasks t where t.events != (select count(*) from events e where e.pid = t.pid)")
	[ "$out" = "count(*)
0" ] || fail "tasks against events: $out"
	# A second statement loads sched_switch by a pass of its own: it
	# joins the events the first loaded, one row to one.
	n=$(jsonl "$f" sched_switch | grep -vc '"lost"')
	[ "$n" -gt 0 ]
	out=$("$KTRACE" sql -i "$f" --format csv 2>/dev/null "select count(*) from events;
		select count(*) from sched_switch s join events e on e.ts = s.ts and e.cpu = s.cpu and e.event = 'sched_switch'")
	[ "$(tail -n 1 <<<"$out")" = "$n" ] || fail "sched_switch joined with events: $out; report: $n"
	# The loss: counted by the pass that loads (events, then again
	# nothing for sched_switch's pass), or by one of its own (select 1).
	"$KTRACE" sql -i "$f" "select 1" >/dev/null 2>own
	"$KTRACE" sql -i "$f" "select count(*) from events; select count(*) from sched_switch" >/dev/null 2>load
	grep -q 'events were lost' own
	diff own load
}

@test "sql: --format table, csv and json; several statements; standard input" {
	run "$KTRACE" sql -i "$D/tc-sched.dat" "select 1 as a, 'x,y' as b, null as c"
	assert_output "a  b    c
1  x,y  NULL"
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select 1 as a, 'x,y' as b, null as c"
	assert_output 'a,b,c
1,"x,y",NULL'
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format json "select 1 as a, 'x' as b, null as c, 1.5 as d"
	assert_output '{"a":1,"b":"x","c":null,"d":1.5}'
	run bash -c "printf 'select 1 as one;\nselect count(*) as n from sched_switch;\n' | '$KTRACE' sql -i '$D/tc-sched.dat' --format csv"
	assert_success
	assert_output "one
1
n
$(jsonl "$D/tc-sched.dat" sched_switch | wc -l)"
}

@test "sql: --schema and --save: a database sqlite3 opens, written whole or not at all" {
	run "$KTRACE" sql -i "$D/tc-sched.dat" --schema
	assert_success
	assert_line 'CREATE TABLE "sched_switch" ("ts" INTEGER, "cpu" INTEGER, "pid" INTEGER, "comm" TEXT, "prev_comm" TEXT, "prev_pid" INTEGER, "prev_prio" INTEGER, "prev_state" INTEGER, "next_comm" TEXT, "next_pid" INTEGER, "next_prio" INTEGER, "prev_state_name" TEXT, "host" TEXT);'
	assert_line 'CREATE TABLE "losses" ("buffer" INTEGER, "cpu" INTEGER, "after_ts" INTEGER, "before_ts" INTEGER, "lost" INTEGER, "host" TEXT);'
	# Every row names its host, one file's too: its stored host name.
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select count(distinct host), count(host) = count(*) from sched_switch"
	assert_output "count(distinct host),count(host) = count(*)
1,1"
	"$KTRACE" sql -i "$D/tc-sched.dat" --save t.db
	[ "$(sqlite3 t.db 'select count(*) from sched_switch')" = "$(jsonl "$D/tc-sched.dat" sched_switch | wc -l)" ]
	[ "$(sqlite3 t.db "select value from meta where key = 'clock'")" = local ]
	# A directory that refuses it: one line, exit 1, nothing left.
	mkdir ro
	chmod 500 ro
	run as_nobody "$KTRACE" sql -i "$D/tc-sched.dat" --save ro/t.db
	assert_failure 1
	assert_output --regexp "^ktrace sql: cannot save 'ro/t.db': "
	[ -z "$(ls -A ro)" ]
}

@test "sql: .tables and .schema as the query; .tables, sqlite_master and --schema name the tables the file has, only those" {
	# The event tables: the events report --stat counts in the file.
	want=$("$KTRACE" report -i "$D/tc-sched.dat" --stat | awk '$1 ~ /^[a-z_]+:[a-z_0-9]+$/ && $2 > 0 { sub(/.*:/, "", $1); print $1 }' | sort)
	[ "$(wc -l <<<"$want")" -ge 3 ]
	run "$KTRACE" sql -i "$D/tc-sched.dat" .tables
	assert_success
	[ "$(tr ',' '\n' <<<"$output" | tr -d ' ' | grep -vxE 'events|tasks|losses|meta|wakeups|sched_slices|offcpu_slices' | sort)" = "$want" ] ||
		fail ".tables: $output; the file's events: $want"
	assert_output --regexp ', events, tasks, losses, meta, wakeups, sched_slices, offcpu_slices$'
	tables=$output
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select name from sqlite_master where type = 'table'"
	assert_success
	[ "$(tail -n +2 <<<"$output" | sort)" = "$(tr ',' '\n' <<<"$tables" | tr -d ' ' | sort)" ]
	run "$KTRACE" sql -i "$D/tc-sched.dat" --schema
	[ "${#lines[@]}" -eq "$(tr ',' '\n' <<<"$tables" | wc -l)" ]
	run "$KTRACE" sql -i "$D/tc-sched.dat" ".schema sched_switch"
	assert_success
	assert_output --regexp '^CREATE TABLE "sched_switch" \("ts" INTEGER, '
	run "$KTRACE" sql -i "$D/tc-sched.dat" ".schema nosuch"
	assert_failure 1
	assert_output "ktrace sql: no table 'nosuch'; the tables are: $tables"
	run "$KTRACE" sql -i "$D/tc-sched.dat" ".tabels"
	assert_failure 1
	assert_output "ktrace sql: unknown command '.tabels'; use .tables, .schema [TABLE] or .quit"
}

@test "sql: the prompt edits lines, keeps history and runs each statement once complete" {
	run script -qec "'$KTRACE' sql -i '$D/tc-sched.dat'" /dev/null <<'EOF2'
select count(*)
  as n from sched_switch;
.tables
.quit
EOF2
	assert_success
	out=$(tr -d '\r' <<<"$output")
	grep -q "ktrace> " <<<"$out"
	grep -q "   \.\.\.> " <<<"$out"
	grep -qx "$(jsonl "$D/tc-sched.dat" sched_switch | wc -l)" <<<"$out"
	grep -q "sched_switch, sched_wakeup" <<<"$out"
}

@test "sql: bad queries and files say what is wrong, in one line" {
	run "$KTRACE" sql -i "$D/tc-sched.dat" "selec 1"
	assert_failure 1
	assert_output "ktrace sql: near \"selec\": syntax error, at character 1 of the query: 'selec 1'"
	run "$KTRACE" sql -i "$D/tc-sched.dat" "select * from nosuch"
	assert_failure 1
	assert_output --regexp "^ktrace sql: no such table: nosuch; the tables are: .*sched_switch.*, events, tasks, losses, meta, wakeups, sched_slices, offcpu_slices \(--schema shows their columns\)$"
	run "$KTRACE" sql -i "$D/tc-sched.dat" "select nocol from sched_switch"
	assert_failure 1
	assert_output "ktrace sql: no such column: nocol; --schema (or .schema TABLE) shows each table's columns"
	run "$KTRACE" sql -i "$D/tc-latency.dat" "select 1"
	assert_failure 1
	assert_output --partial "is a latency trace"
	run "$KTRACE" sql -i nonexistent.dat "select 1"
	assert_failure 1
	head -c 6000 "$D/tc-sched.dat" >cut.dat
	run "$KTRACE" sql -i cut.dat "select count(*) from events"
	[ "$status" = 2 ]
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format xml "select 1"
	[ "$status" = 64 ]
	run complete_words ktrace sql --format c
	assert_output csv
}

@test "sql: wakeups, each wakeup's latency as analyze sched counts it; README's worst wakeup per comm is analyze sched's" {
	local f
	for f in tc-sched kt-sched tc-kinds tc-v7-lost; do
		want=$("$KTRACE" analyze sched -i "$D/$f.dat" --by comm --format json 2>/dev/null |
			jq -r '.rows[] | select(.wakeups > 0) | "\(.comm),\(.wakeups),\(.lat_max_ns)"' | sort)
		[ -n "$want" ] || fail "$f: no wakeups in analyze sched"
		got=$("$KTRACE" sql -i "$D/$f.dat" --format csv \
			"select comm, count(*), max(latency_ns) from wakeups group by comm" 2>/dev/null | tail -n +2 | sort)
		[ "$got" = "$want" ] || fail "$f: $(diff <(echo "$want") <(echo "$got"))"
		# README's and ktrace-sql(1)'s example: the top 5 by the worst.
		want=$("$KTRACE" analyze sched -i "$D/$f.dat" --by comm --sort max --top 5 --format json 2>/dev/null |
			jq -r '.rows[] | select(.wakeups > 0) | "\(.comm),\(.lat_max_ns / 1000 | floor)"' | sort)
		got=$("$KTRACE" sql -i "$D/$f.dat" --format csv "select comm, max(latency_ns) / 1000 as max_us from wakeups
  group by comm order by max_us desc limit 5" 2>/dev/null | tail -n +2 | sort)
		[ "$got" = "$want" ] || fail "$f, the example: $(diff <(echo "$want") <(echo "$got"))"
	done
	# Each row: the switch-in after its wakeup, on the pid's own switch.
	run "$KTRACE" sql -i "$D/tc-sched.dat" --format csv "select count(*) from wakeups w where w.latency_ns != w.run_ts - w.ts
  or not exists (select 1 from sched_switch s where s.next_pid = w.pid and s.ts = w.run_ts and s.cpu = w.cpu)"
	assert_success
	assert_output "$(printf 'count(*)\n0')"
	# The table is listed only where a file has switches.
	run "$KTRACE" sql -i "$D/tc-syscalls.dat" .tables
	assert_success
	refute_output --partial wakeups
	refute_output --partial slices
}

# slices_agree FILE: sched_slices, offcpu_slices and tasks' run_ns,
# switches and missing_switches, summed per task, are analyze cpu's,
# sched's and offcpu's JSON figures; each interval rests on the records
# it names.
slices_agree() {
	local f=$1 want got
	want=$("$KTRACE" analyze cpu -i "$f" --format json 2>/dev/null |
		jq -r '.tasks[] | select(.switches > 0) | "\(.pid),\(.cpu_ns),\(.switches),\(.missing_switches)"' | sort)
	got=$("$KTRACE" sql -i "$f" --format csv "select t.pid, coalesce(s.ns, 0), t.switches, t.missing_switches
  from tasks t left join (select pid, sum(dur_ns) as ns from sched_slices group by pid) s on s.pid = t.pid
  where t.switches > 0" 2>/dev/null | tail -n +2 | sort)
	[ "$(wc -l <<<"$want")" -ge 3 ] || fail "$f: analyze cpu: $want"
	[ "$got" = "$want" ] || fail "$f, analyze cpu against sql: $(diff <(echo "$want") <(echo "$got"))"
	want=$("$KTRACE" analyze sched -i "$f" --format json 2>/dev/null |
		jq -r '.rows[] | select(.switches > 0) | "\(.pid),\(.run_ns),\(.switches),\(.missing_switches)"' | sort)
	got=$(join -t, <(cut -d, -f1 <<<"$want") <(echo "$got"))
	[ "$got" = "$want" ] || fail "$f, analyze sched against sql: $(diff <(echo "$want") <(echo "$got"))"
	want=$("$KTRACE" analyze offcpu -i "$f" --format json 2>/dev/null |
		jq -r '.rows[] | "\(.pid),\(.s_ns),\(.d_ns),\(.other_ns),\(.times)"' | sort)
	got=$("$KTRACE" sql -i "$f" --format csv "select pid, sum(iif(state = 'S', dur_ns, 0)),
  sum(iif(state = 'D', dur_ns, 0)), sum(iif(state = 'other', dur_ns, 0)), count(*)
  from offcpu_slices group by pid" 2>/dev/null | tail -n +2 | sort)
	[ "$(wc -l <<<"$want")" -ge 3 ] || fail "$f: analyze offcpu: $want"
	[ "$got" = "$want" ] || fail "$f, analyze offcpu against sql: $(diff <(echo "$want") <(echo "$got"))"
	want=$("$KTRACE" analyze offcpu -i "$f" --format json 2>/dev/null |
		jq -r '.rows[] | .pid as $p | .reasons[] | "\($p),\(.reason),\(.ns),\(.times)"' | sort)
	got=$("$KTRACE" sql -i "$f" --format csv "select pid, coalesce(reason, '-'), sum(dur_ns), count(*)
  from offcpu_slices group by 1, 2" 2>/dev/null | tail -n +2 | sort)
	[ "$got" = "$want" ] || fail "$f, offcpu's reasons against sql: $(diff <(echo "$want") <(echo "$got"))"
	# A run from a switch onto its CPU to the switch off it; a stretch
	# off from a switch off in a sleeping state, after it (a wakeup of
	# the task by waker_pid between).
	got=$("$KTRACE" sql -i "$f" --format csv "create index sw on sched_switch (cpu, ts); select
  (select count(*) from sched_slices r where r.dur_ns != r.end_ts - r.ts or r.dur_ns < 0
    or not exists (select 1 from sched_switch s where s.cpu = r.cpu and s.ts = r.end_ts and s.prev_pid = r.pid)
    or not exists (select 1 from sched_switch s where s.cpu = r.cpu and s.ts = r.ts and s.next_pid = r.pid)) as runs,
  (select count(*) from offcpu_slices o where o.dur_ns != o.end_ts - o.ts
    or not exists (select 1 from sched_switch s where s.cpu = o.cpu and s.ts = o.ts and s.prev_pid = o.pid
      and s.prev_state_name not like 'R%')
    or (o.waker_pid is not null and not (o.wake_ts between o.ts and o.end_ts))) as stretches" 2>/dev/null)
	[ "$got" = "$(printf 'runs,stretches\n0,0')" ] || fail "$f, the intervals not on their switches: $got"
	# The four tables from one task model, fed once (one query names
	# them all), are each the same as from a model of its own.
	local q=(
		"select count(*), sum(latency_ns), sum(run_ts - ts) from wakeups"
		"select count(*), sum(dur_ns), sum(pid * 7 + cpu) from sched_slices"
		"select count(*), sum(dur_ns), count(reason), count(waker_pid) from offcpu_slices"
		"select count(*), sum(run_ns), sum(switches), sum(missing_switches) from tasks")
	want=$(for x in "${q[@]}"; do "$KTRACE" sql -i "$f" --format csv "$x" | tail -n 1; done | paste -sd,)
	got=$("$KTRACE" sql -i "$f" --format csv "select * from (${q[0]}), (${q[1]}), (${q[2]}), (${q[3]})" |
		tail -n 1)
	[ "$got" = "$want" ] || fail "$f, one model against four: $(diff <(echo "$want") <(echo "$got"))"
}

@test "sql: sched_slices, offcpu_slices and tasks' run time: summed per task, analyze cpu's, sched's and offcpu's figures, on a recording and on a file with losses" {
	kt_tool naps "$BATS_TEST_TMPDIR/bin"
	run rec -q --for sched --for offcpu -o a.dat -- "$BATS_TEST_TMPDIR/bin/naps" 50 2000
	assert_success
	slices_agree a.dat
	slices_agree "$D/tc-v7-lost.dat"
	"$KTRACE" report -i "$D/tc-v7-lost.dat" --stat --format json | jq -e '.lost > 0' >/dev/null
	# naps: its naps, each at least 2 ms off in S, a system call its
	# reason, and woken (a timer's wakeup).
	run "$KTRACE" sql -i a.dat --format csv "select count(*) from offcpu_slices where comm = 'naps'
  and state = 'S' and dur_ns >= 1900000 and reason is not null and waker_pid is not null"
	assert_success
	[ "${lines[1]}" -ge 25 ] || fail "naps' naps off the CPU: $output"
	# A file without switches: no run time to give (NULL), no slices.
	run "$KTRACE" sql -i "$D/tc-syscalls.dat" --format csv "select count(*), count(run_ns) from tasks"
	assert_success
	assert_line --index 1 --regexp '^[1-9][0-9]*,0$'
	run "$KTRACE" sql -i "$D/tc-syscalls.dat" "select count(*) from sched_slices"
	assert_success
}
